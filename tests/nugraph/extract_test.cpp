// Extraction: the cheapest term under a cost, and the enumeration of
// distinct variants -- complete on small graphs, bounded, cycle-safe,
// deterministic, and iterative on deep graphs.
#include "nugraph/extract.h"

#include <gtest/gtest.h>

#include <set>

#include "nugraph_testing.h"

namespace axon::nugraph {
namespace {

using namespace testing;
using ir::Op;

ir::Attrs spec(const std::string& text) {
  ir::Attrs attrs;
  attrs.name = text;
  return attrs;
}

ir::Attrs axes(std::vector<int64_t> list) {
  ir::Attrs attrs;
  attrs.axes = std::move(list);
  return attrs;
}

// sum(x * y) and einsum("ij,ij->", x, y): one value, merged.
struct TwoWays {
  NuGraph graph;
  ClassId x, y, product_sum, contraction;
  TwoWays() {
    x = graph.add_input(0, "x", f32({M, N}));
    y = graph.add_input(1, "y", f32({M, N}));
    product_sum = graph.add(enode(Op::ReduceSum, {graph.add(enode(Op::Mul, {x, y}))}, axes({0, 1})));
    contraction = graph.add(enode(Op::Contract, {x, y}, spec("ij,ij->")));
    graph.merge(product_sum, contraction);
    graph.rebuild();
  }
};

TEST(NuGraphExtractTest, DefaultCostWeights) {
  NuGraph g;
  ClassData data;
  EXPECT_EQ(default_cost(enode(Op::Input, {}), data, {}), 0.0);
  EXPECT_EQ(default_cost(enode(Op::Const, {}), data, {}), 0.0);
  EXPECT_EQ(default_cost(enode(Op::Exp, {0}), data, {0.0}), 1.0);
  EXPECT_EQ(default_cost(enode(Op::Add, {0, 1}), data, {2.0, 3.0}), 6.0);
  EXPECT_EQ(default_cost(enode(Op::ReduceSum, {0}), data, {0.0}), 2.0);
  EXPECT_EQ(default_cost(enode(Op::Cumsum, {0}), data, {0.0}), 2.0);
  EXPECT_EQ(default_cost(enode(Op::Contract, {0, 1}), data, {0.0, 0.0}), 8.0);
  EXPECT_EQ(default_cost(enode(Op::Transpose, {0}), data, {1.0}), 2.0);
}

TEST(NuGraphExtractTest, ExtractBestPicksTheCheaperAlternative) {
  TwoWays t;
  ir::Graph into;
  ir::NodeRef best = extract_best(t.graph, t.contraction, default_cost, into);
  EXPECT_EQ(term_str(best), "sum(mul(x, y))");  // 1 + 2 < 8
  EXPECT_EQ(best->type(), f32({}));

  // Under a cost that makes contractions cheap, the other one wins.
  CostFn cheap_contract = [](const ENode& node, const ClassData& data, const std::vector<double>& children) {
    return node.op == Op::Contract ? 1.0 : default_cost(node, data, children) * 2;
  };
  ir::Graph into2;
  EXPECT_EQ(term_str(extract_best(t.graph, t.product_sum, cheap_contract, into2)), "einsum(x, y)");
  EXPECT_EQ(into2.size(), 3u);  // only the chosen term is built
}

TEST(NuGraphExtractTest, ExtractBestIntoTheSourceGraphGivesTheOriginal) {
  ir::Program p = compile(
      "def f(x: \"f32[M, K]\", w: \"f32[K, N]\", g: \"f32[K]\"):\n"
      "    rms = np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + 1e-6)\n"
      "    return ((x / rms) * g) @ w\n");
  NuGraph g;
  ClassId root = g.add_term(p.kernel.outputs[0]);
  // ir::Graph hash-conses, so rebuilding the one term of each class finds the original nodes.
  EXPECT_EQ(extract_best(g, root, default_cost, *p.graph), p.kernel.outputs[0]);
  ir::Graph fresh;
  ir::NodeRef copy = extract_best(g, root, default_cost, fresh);
  EXPECT_EQ(term_str(copy), term_str(p.kernel.outputs[0]));
  EXPECT_EQ(fresh.size(), ir::topological_order({p.kernel.outputs[0]}).size());
}

TEST(NuGraphExtractTest, ExtractBestOnACyclicClass) {
  NuGraph g;
  ClassId x = g.add_input(0, "x", f32({M, N}));
  ClassId times_one = g.add(enode(Op::Mul, {x, add_const(g, 1.0)}));
  ClassId root = g.add(enode(Op::Exp, {times_one}));
  g.merge(times_one, x);
  g.rebuild();
  ir::Graph into;
  EXPECT_EQ(term_str(extract_best(g, root, default_cost, into)), "exp(x)");
}

TEST(NuGraphExtractTest, ExtractionNeedsACleanGraphAndASaneCost) {
  TwoWays t;
  ClassId z = t.graph.add_input(2, "z", f32({}));
  t.graph.merge(z, t.contraction);
  ir::Graph into;
  EXPECT_THROW(extract_best(t.graph, t.contraction, default_cost, into), InternalError);
  EXPECT_THROW(enumerate_variants(t.graph, t.contraction, 4, into), InternalError);
  t.graph.rebuild();
  EXPECT_EQ(term_str(extract_best(t.graph, t.contraction, default_cost, into)), "z");
  CostFn shrinking = [](const ENode&, const ClassData&, const std::vector<double>& children) {
    return children.empty() ? 5.0 : 1.0;
  };
  ir::Graph into2;
  EXPECT_THROW(extract_best(t.graph, t.contraction, shrinking, into2), InternalError);
}

// Two places with two alternatives each: x + x or -(-x) * 2, and the same for y.
struct TwoByTwo {
  NuGraph graph;
  ClassId root;
  TwoByTwo() {
    ClassId two = add_const(graph, 2.0);
    ClassId places[2];
    for (int i = 0; i < 2; ++i) {
      ClassId v = graph.add_input(i, i ? "y" : "x", f32({M, N}));
      places[i] = graph.add(enode(Op::Add, {v, v}));
      ClassId twice_negated = graph.add(enode(Op::Neg, {graph.add(enode(Op::Neg, {v}))}));
      graph.merge(places[i], graph.add(enode(Op::Mul, {twice_negated, two})));
    }
    root = graph.add(enode(Op::Add, {places[0], places[1]}));
    graph.rebuild();
  }
};

TEST(NuGraphExtractTest, EnumerateVariantsListsEveryDistinctTerm) {
  TwoByTwo t;
  ir::Graph into;
  std::vector<ir::NodeRef> variants = enumerate_variants(t.graph, t.root, 100, into);
  EXPECT_EQ(term_strs(variants), (std::vector<std::string>{
                                     "add(add(x, x), add(y, y))",                      // cost 3
                                     "add(mul(neg(neg(x)), 2), add(y, y))",            // 5, built first
                                     "add(add(x, x), mul(neg(neg(y)), 2))",            // 5
                                     "add(mul(neg(neg(x)), 2), mul(neg(neg(y)), 2))",  // 7
                                 }));
  EXPECT_EQ(std::set<ir::NodeRef>(variants.begin(), variants.end()).size(), 4u);
  for (ir::NodeRef v : variants) EXPECT_EQ(v->type(), f32({M, N}));
  // The cheapest variant is what extract_best picks.
  EXPECT_EQ(extract_best(t.graph, t.root, default_cost, into), variants.front());
}

TEST(NuGraphExtractTest, EnumerateVariantsRespectsTheLimit) {
  TwoByTwo t;
  ir::Graph into;
  const std::vector<ir::NodeRef> all = enumerate_variants(t.graph, t.root, 100, into);
  EXPECT_TRUE(enumerate_variants(t.graph, t.root, 0, into).empty());
  for (size_t limit : {1u, 2u, 3u, 4u, 5u}) {
    std::vector<ir::NodeRef> some = enumerate_variants(t.graph, t.root, limit, into);
    EXPECT_EQ(some.size(), std::min<size_t>(limit, 4)) << "limit " << limit;
    for (ir::NodeRef v : some) EXPECT_NE(std::find(all.begin(), all.end(), v), all.end());
  }
}

TEST(NuGraphExtractTest, EnumerateVariantsTerminatesOnACyclicClass) {
  NuGraph g;
  ClassId x = g.add_input(0, "x", f32({M, N}));
  ClassId times_one = g.add(enode(Op::Mul, {x, add_const(g, 1.0)}));
  ClassId root = g.add(enode(Op::Exp, {x}));
  g.merge(x, times_one);
  g.rebuild();
  ir::Graph into;
  // mul(x, 1) would take class x as two terms (itself and x inside it): a
  // variant uses one term per class, so the cycle adds none.
  EXPECT_EQ(term_strs(enumerate_variants(g, x, 4, into)), (std::vector<std::string>{"x"}));
  EXPECT_EQ(term_strs(enumerate_variants(g, root, 500, into)), (std::vector<std::string>{"exp(x)"}));
}

// A class used twice takes one term in both places: x - max(x), with x as
// a + a or -(-a) * 2, has two variants, not four.
TEST(NuGraphExtractTest, EnumerateVariantsUsesOneTermPerClass) {
  NuGraph g;
  ClassId a = g.add_input(0, "a", f32({M, N}));
  ClassId x = g.add(enode(Op::Add, {a, a}));
  g.merge(x, g.add(enode(Op::Mul, {g.add(enode(Op::Neg, {g.add(enode(Op::Neg, {a}))})), add_const(g, 2.0)})));
  ir::Attrs kept = axes({1});
  kept.keepdims = true;
  ClassId root = g.add(enode(Op::Sub, {x, g.add(enode(Op::ReduceMax, {x}, kept))}));
  g.rebuild();
  ir::Graph into;
  std::vector<std::string> listed = term_strs(enumerate_variants(g, root, 10, into));
  ASSERT_EQ(listed.size(), 2u) << ::testing::PrintToString(listed);
  for (const std::string& v : listed) {
    bool sum = v.find("add(a, a)") != std::string::npos, product = v.find("mul(") != std::string::npos;
    EXPECT_NE(sum, product) << v;
  }
}

TEST(NuGraphExtractTest, EnumerateVariantsIsDeterministic) {
  auto run = [] {
    TwoByTwo t;
    // Make one place cyclic too: (x + x) merged with (x + x) * 1.
    ClassId place = t.graph.find(t.graph.nodes(t.root)[0].children[0]);
    t.graph.merge(place, t.graph.add(enode(Op::Mul, {place, add_const(t.graph, 1.0)})));
    t.graph.rebuild();
    ir::Graph into;
    std::vector<std::string> listed = term_strs(enumerate_variants(t.graph, t.root, 9, into));
    ir::Graph into2;  // the same graph, listed again
    EXPECT_EQ(term_strs(enumerate_variants(t.graph, t.root, 9, into2)), listed);
    return listed;
  };
  std::vector<std::string> first = run();
  EXPECT_EQ(first.size(), 4u);  // the cyclic place adds none (one term per class)
  EXPECT_EQ(run(), first);
  EXPECT_EQ(first.front(), "add(add(x, x), add(y, y))");
}

TEST(NuGraphExtractTest, DeepChainExtractsWithoutRecursion) {
  constexpr int kDepth = 10000;
  ir::Graph source;
  ir::NodeRef top = source.input(0, "x", f32({M}));
  for (int i = 0; i < kDepth; ++i) top = source.make(i % 3 ? Op::Exp : Op::Neg, {top}, {});
  NuGraph g;
  ClassId root = g.add_term(top);
  EXPECT_EQ(g.num_classes(), static_cast<size_t>(kDepth + 1));
  ir::Graph into;
  ir::NodeRef best = extract_best(g, root, default_cost, into);
  EXPECT_EQ(into.size(), static_cast<size_t>(kDepth + 1));
  EXPECT_EQ(extract_best(g, root, default_cost, source), top);
  std::vector<ir::NodeRef> variants = enumerate_variants(g, root, 3, into);
  ASSERT_EQ(variants.size(), 1u);
  EXPECT_EQ(variants[0], best);
  int depth = 0;
  for (ir::NodeRef node = best; node->op() != Op::Input; node = node->input(0)) ++depth;
  EXPECT_EQ(depth, kDepth);
}

}  // namespace
}  // namespace axon::nugraph
