// UnionFind: the disjoint sets behind the nu-graph's e-classes.
//
// The smaller id of two roots always stays the root, so every id's parent is
// at most the id itself and the canonical id of a class is its oldest member:
// results do not depend on the order of unions. Paths are compressed by
// find_compress and by compress_all; find never writes, so const readers may
// share the structure.
#pragma once

#include <vector>

#include "nugraph/enode.h"

namespace axon::nugraph {

class UnionFind {
 public:
  /// A new singleton set; ids are 0, 1, 2, ... in creation order.
  ClassId make_set();
  size_t size() const { return parent_.size(); }

  /// The root of `id`'s set. `id` must exist.
  ClassId find(ClassId id) const;
  /// The same, compressing the path on the way.
  ClassId find_compress(ClassId id);
  bool is_root(ClassId id) const { return parent_.at(id) == id; }

  /// Joins the sets of two roots and returns the new root: the smaller id.
  ClassId unite(ClassId root_a, ClassId root_b);

  /// Points every id straight at its root: one pass, since parents are smaller.
  void compress_all();

 private:
  std::vector<ClassId> parent_;
};

}  // namespace axon::nugraph
