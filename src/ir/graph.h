// Graph: the arena that creates, type-checks and hash-conses IR nodes.
#pragma once

#include <memory>
#include <unordered_map>
#include <vector>

#include "ir/node.h"

namespace axon::ir {

class Graph {
 public:
  Graph() = default;
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  /// The node `op(inputs; attrs)`, created if new. Infers its type; a type or
  /// shape error is a UserError at `loc`.
  NodeRef make(Op op, std::vector<NodeRef> inputs, Attrs attrs, const SourceLoc& loc = {});

  // Shorthands for the common cases.
  NodeRef input(int64_t index, const std::string& name, const TensorType& type, const SourceLoc& loc = {});
  NodeRef constant(double value, const SourceLoc& loc = {});
  NodeRef size_value(const Size& size, const SourceLoc& loc = {});

  size_t size() const { return nodes_.size(); }

 private:
  struct Key {
    Op op;
    const std::vector<NodeRef>* inputs;
    const Attrs* attrs;
  };
  struct KeyHash {
    size_t operator()(const Key& key) const;
  };
  struct KeyEq {
    bool operator()(const Key& a, const Key& b) const;
  };

  std::vector<std::unique_ptr<Node>> nodes_;
  std::unordered_map<Key, NodeRef, KeyHash, KeyEq> interned_;

  NodeRef intern(Op op, std::vector<NodeRef> inputs, Attrs attrs, TensorType type, const SourceLoc& loc);
};

/// Every node `outputs` depend on, inputs before users, each once, in a
/// deterministic order. Iterative, so arbitrarily deep graphs are fine.
std::vector<NodeRef> topological_order(const std::vector<NodeRef>& outputs);

}  // namespace axon::ir
