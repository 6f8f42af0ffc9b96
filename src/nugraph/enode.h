// ENode: one operation of the nu-graph, whose operands are e-classes.
//
// Like an ir::Node, but its inputs are class ids instead of nodes, so one
// e-node stands for every term whose operands come from those classes. E-nodes
// are plain values: equal op, attributes and children make equal e-nodes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ir/node.h"

namespace axon::nugraph {

/// An e-class id, handed out by NuGraph in creation order.
using ClassId = uint32_t;

struct ENode {
  ir::Op op = ir::Op::Input;
  ir::Attrs attrs;
  std::vector<ClassId> children;

  size_t hash() const;
  /// The op with the attributes it uses, e.g. "sum axes=(1,) keepdims" or
  /// "einsum ij,jk->ik"; children are not shown.
  std::string label() const;
  /// The label followed by the children, e.g. "add(c1, c4)".
  std::string str() const;

  friend bool operator==(const ENode& a, const ENode& b) {
    return a.op == b.op && a.children == b.children && a.attrs == b.attrs;
  }
};

struct ENodeHash {
  size_t operator()(const ENode& node) const { return node.hash(); }
};

}  // namespace axon::nugraph

template <>
struct std::hash<axon::nugraph::ENode> {
  size_t operator()(const axon::nugraph::ENode& node) const { return node.hash(); }
};
