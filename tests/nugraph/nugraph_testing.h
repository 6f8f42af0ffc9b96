// Helpers shared by the nu-graph tests: building terms and checking the
// graph's invariants.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "ir/program.h"
#include "lang/load.h"
#include "nugraph/nugraph.h"

namespace axon::nugraph {

inline void PrintTo(const ENode& node, std::ostream* out) {
  *out << node.str();
}

namespace testing {

inline const ir::Size M = ir::Size::name("M");
inline const ir::Size N = ir::Size::name("N");
inline const ir::Size K = ir::Size::name("K");

inline ir::TensorType f32(ir::Shape shape) {
  return {ir::DType::F32, std::move(shape)};
}

/// A kernel from NumPy text ("import numpy as np" is prepended).
inline ir::Program compile(const std::string& body) {
  auto file = std::make_shared<const SourceFile>(SourceFile{"t.py", "import numpy as np\n" + body});
  return lang::compile_source(file);
}

inline ENode enode(ir::Op op, std::vector<ClassId> children, ir::Attrs attrs = {}) {
  return ENode{op, std::move(attrs), std::move(children)};
}

inline ClassId add_const(NuGraph& graph, double value) {
  ir::Attrs attrs;
  attrs.value = value;
  return graph.add(enode(ir::Op::Const, {}, attrs));
}

/// "add(x, mul(x, 2))": a readable form of a small IR term.
inline std::string term_str(ir::NodeRef node) {
  switch (node->op()) {
    case ir::Op::Input: return node->attrs().name;
    case ir::Op::Const: {
      std::ostringstream out;
      out << node->attrs().value;
      return out.str();
    }
    default: break;
  }
  std::string text = std::string(ir::op_name(node->op())) + "(";
  for (size_t i = 0; i < node->inputs().size(); ++i) text += (i ? ", " : "") + term_str(node->input(i));
  return text + ")";
}

inline std::vector<std::string> term_strs(const std::vector<ir::NodeRef>& terms) {
  std::vector<std::string> result;
  for (ir::NodeRef term : terms) result.push_back(term_str(term));
  return result;
}

/// Hash-consing and congruence hold: children are canonical, every e-node is
/// found in its own class, e-nodes are counted once, and parents() lists
/// exactly the users of each class.
inline void expect_invariants(const NuGraph& graph) {
  ASSERT_FALSE(graph.dirty());
  std::vector<ClassId> classes = graph.classes();
  EXPECT_EQ(classes.size(), graph.num_classes());
  size_t nodes = 0;
  std::set<std::pair<ClassId, std::string>> uses;  // (child, "parent class: e-node")
  for (ClassId id : classes) {
    EXPECT_EQ(graph.find(id), id);
    for (const ENode& node : graph.nodes(id)) {
      ++nodes;
      for (ClassId child : node.children) {
        EXPECT_EQ(graph.find(child), child) << node.str() << " has a non-canonical child";
        uses.insert({child, std::to_string(id) + ": " + node.str()});
      }
      EXPECT_EQ(graph.lookup(node), id) << node.str();
    }
  }
  EXPECT_EQ(nodes, graph.num_nodes());
  std::set<std::pair<ClassId, std::string>> listed;
  for (ClassId id : classes)
    for (const auto& [parent, parent_class] : graph.parents(id))
      EXPECT_TRUE(listed.insert({id, std::to_string(parent_class) + ": " + parent.str()}).second)
          << "parent listed twice: " << parent.str();
  EXPECT_EQ(listed, uses);
}

}  // namespace testing
}  // namespace axon::nugraph
