#include "ir/graph.h"

#include <unordered_set>

#include "ir/shape.h"

namespace axon::ir {

size_t Graph::KeyHash::operator()(const Key& key) const {
  size_t h = static_cast<size_t>(key.op) * 0x9e3779b97f4a7c15ULL;
  for (NodeRef in : *key.inputs) h = (h * 1000003) ^ static_cast<size_t>(in->id());
  return h ^ (key.attrs->hash() << 1);
}

bool Graph::KeyEq::operator()(const Key& a, const Key& b) const {
  return a.op == b.op && *a.inputs == *b.inputs && *a.attrs == *b.attrs;
}

NodeRef Graph::intern(Op op, std::vector<NodeRef> inputs, Attrs attrs, TensorType type, const SourceLoc& loc) {
  Key probe{op, &inputs, &attrs};
  if (auto it = interned_.find(probe); it != interned_.end()) {
    AXON_CHECK(it->second->type() == type, "equal nodes with different types");
    return it->second;
  }
  int id = static_cast<int>(nodes_.size());
  nodes_.push_back(std::unique_ptr<Node>(new Node(op, std::move(inputs), std::move(attrs), std::move(type), loc, id)));
  const Node* node = nodes_.back().get();
  interned_.emplace(Key{op, &node->inputs(), &node->attrs()}, node);
  return node;
}

NodeRef Graph::make(Op op, std::vector<NodeRef> inputs, Attrs attrs, const SourceLoc& loc) {
  AXON_CHECK(op != Op::Input, "inputs are made by Graph::input");
  TensorType type;
  try {
    type = infer_type(op, inputs, attrs);
  } catch (const ShapeError& e) {
    throw UserError(loc, e.what());
  } catch (const std::overflow_error&) {
    throw UserError(loc, "integer overflow in size arithmetic (beyond 64-bit integers)");
  }
  return intern(op, std::move(inputs), std::move(attrs), std::move(type), loc);
}

NodeRef Graph::input(int64_t index, const std::string& name, const TensorType& type, const SourceLoc& loc) {
  Attrs attrs;
  attrs.index = index;
  attrs.name = name;
  return intern(Op::Input, {}, std::move(attrs), type, loc);
}

NodeRef Graph::constant(double value, const SourceLoc& loc) {
  Attrs attrs;
  attrs.value = value;
  return make(Op::Const, {}, std::move(attrs), loc);
}

NodeRef Graph::size_value(const Size& size, const SourceLoc& loc) {
  Attrs attrs;
  attrs.sizes = {size};
  return make(Op::SizeValue, {}, std::move(attrs), loc);
}

std::vector<NodeRef> topological_order(const std::vector<NodeRef>& outputs) {
  std::vector<NodeRef> order;
  std::unordered_set<NodeRef> done;
  // (node, index of the next input to visit): an explicit stack, no recursion.
  std::vector<std::pair<NodeRef, size_t>> stack;
  for (NodeRef root : outputs) {
    if (done.count(root)) continue;
    stack.push_back({root, 0});
    while (!stack.empty()) {
      auto& [node, next] = stack.back();
      if (next < node->inputs().size()) {
        NodeRef child = node->inputs()[next++];
        if (!done.count(child)) stack.push_back({child, 0});
        continue;
      }
      if (done.insert(node).second) order.push_back(node);
      stack.pop_back();
    }
  }
  return order;
}

}  // namespace axon::ir
