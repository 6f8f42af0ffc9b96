#include "nugraph/union_find.h"

#include <algorithm>

#include "support/diag.h"

namespace axon::nugraph {

ClassId UnionFind::make_set() {
  auto id = static_cast<ClassId>(parent_.size());
  AXON_CHECK(parent_.size() < static_cast<size_t>(UINT32_MAX), "too many e-class ids");
  parent_.push_back(id);
  return id;
}

ClassId UnionFind::find(ClassId id) const {
  AXON_CHECK(id < parent_.size(), "unknown e-class id " + std::to_string(id));
  while (parent_[id] != id) id = parent_[id];
  return id;
}

ClassId UnionFind::find_compress(ClassId id) {
  ClassId root = find(id);
  while (parent_[id] != root) {
    ClassId next = parent_[id];
    parent_[id] = root;
    id = next;
  }
  return root;
}

ClassId UnionFind::unite(ClassId root_a, ClassId root_b) {
  AXON_CHECK(is_root(root_a) && is_root(root_b), "unite takes roots");
  ClassId root = std::min(root_a, root_b);
  parent_[std::max(root_a, root_b)] = root;
  return root;
}

void UnionFind::compress_all() {
  for (size_t id = 0; id < parent_.size(); ++id) parent_[id] = parent_[parent_[id]];
}

}  // namespace axon::nugraph
