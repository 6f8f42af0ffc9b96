// DOT export: every class and e-node appears, edges go to child clusters,
// labels are escaped, and the text is stable.
#include "nugraph/dot.h"

#include <gtest/gtest.h>

#include "nugraph_testing.h"

namespace axon::nugraph {
namespace {

using namespace testing;
using ir::Op;

size_t count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

NuGraph example() {
  ir::Program p = compile(
      "def f(x: \"f32[M, K]\", w: \"f32[K, N]\"):\n"
      "    s = np.sum(x * x, axis=1, keepdims=True)\n"
      "    return (x / s) @ w\n");
  NuGraph g;
  ClassId root = g.add_term(p.kernel.outputs[0]);
  // A second way to the same value, merged in: (x @ w) / s.
  ClassId x = g.add_input(0, "x", f32({M, K}));
  ClassId w = g.add_input(1, "w", f32({K, N}));
  ClassId s = g.find(g.nodes(g.nodes(root)[0].children[0])[0].children[1]);
  ir::Attrs spec;
  spec.name = "ik,kj->ij";
  ClassId alternative = g.add(enode(Op::Div, {g.add(enode(Op::Contract, {x, w}, spec)), s}));
  g.merge(root, alternative);
  g.rebuild();
  return g;
}

TEST(NuGraphDotTest, ContainsEveryClassAndNode) {
  NuGraph g = example();
  std::string dot = to_dot(g);
  EXPECT_EQ(dot.rfind("digraph nugraph {\n  compound=true;\n", 0), 0u) << dot;
  EXPECT_EQ(dot.substr(dot.size() - 2), "}\n");
  EXPECT_EQ(count(dot, "subgraph cluster_"), g.num_classes());
  size_t edges = 0;
  for (ClassId id : g.classes()) {
    std::string c = "c" + std::to_string(id);
    EXPECT_NE(dot.find("subgraph cluster_" + c + " {"), std::string::npos) << c;
    EXPECT_NE(dot.find("label=\"" + c + ": " + g.data(id).type.str() + "\""), std::string::npos) << c;
    for (size_t k = 0; k < g.nodes(id).size(); ++k) {
      EXPECT_NE(dot.find(c + "_n" + std::to_string(k) + " [label=\"" + g.nodes(id)[k].label() + "\"]"),
                std::string::npos);
      edges += g.nodes(id)[k].children.size();
    }
  }
  EXPECT_EQ(count(dot, "[label="), g.num_nodes());
  EXPECT_EQ(count(dot, " -> "), edges);
  EXPECT_EQ(count(dot, "lhead=cluster_"), edges);  // no class here uses itself
  EXPECT_NE(dot.find("einsum ik,kj->ij"), std::string::npos);
  EXPECT_NE(dot.find("sum axes=(1,) keepdims"), std::string::npos);
  EXPECT_NE(dot.find("input x #0"), std::string::npos);
}

TEST(NuGraphDotTest, IsStable) {
  NuGraph a = example();
  NuGraph b = example();
  EXPECT_EQ(to_dot(a), to_dot(b));
  EXPECT_EQ(to_dot(a), to_dot(a));
}

TEST(NuGraphDotTest, SelfEdgesAndEscaping) {
  NuGraph g;
  ClassId x = g.add_input(0, "say \"hi\"\\", f32({M}));
  ClassId times_one = g.add(enode(Op::Mul, {x, add_const(g, 1.0)}));
  g.merge(x, times_one);
  g.rebuild();
  std::string dot = to_dot(g);
  EXPECT_NE(dot.find("[label=\"input say \\\"hi\\\"\\\\ #0\"]"), std::string::npos) << dot;
  // mul(x, 1) lives in x's class: its edge to x cannot be clipped at x's own border.
  EXPECT_NE(dot.find("c0_n1 -> c0_n0 [label=\"0\"];"), std::string::npos) << dot;
  EXPECT_NE(dot.find("c0_n1 -> c1_n0 [lhead=cluster_c1, label=\"1\"];"), std::string::npos) << dot;
}

TEST(NuGraphDotTest, NeedsACleanGraph) {
  NuGraph g;
  ClassId a = g.add_input(0, "a", f32({M}));
  ClassId b = g.add_input(1, "b", f32({M}));
  g.merge(a, b);
  EXPECT_THROW(to_dot(g), InternalError);
  g.rebuild();
  EXPECT_EQ(count(to_dot(g), "subgraph cluster_"), 1u);
}

}  // namespace
}  // namespace axon::nugraph
