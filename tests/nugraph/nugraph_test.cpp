// NuGraph: hash-consing, merging and deferred rebuilding, the dirty-graph
// rule, type checks, and the queries the propagation runner relies on.
#include "nugraph/nugraph.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <random>

#include "nugraph_testing.h"

namespace axon::nugraph {
namespace {

using namespace testing;
using ir::Op;

TEST(NuGraphTest, HashConsesEqualNodes) {
  NuGraph g;
  ClassId x = g.add_input(0, "x", f32({M, N}));
  EXPECT_EQ(g.add_input(0, "x", f32({M, N})), x);
  ClassId y = g.add_input(1, "y", f32({M, N}));
  EXPECT_NE(x, y);
  ClassId e1 = g.add(enode(Op::Exp, {x}));
  ClassId e2 = g.add(enode(Op::Exp, {x}));
  EXPECT_EQ(e1, e2);
  EXPECT_NE(g.add(enode(Op::Exp, {y})), e1);
  EXPECT_EQ(g.add(enode(Op::Add, {x, y})), g.add(enode(Op::Add, {x, y})));
  EXPECT_NE(g.add(enode(Op::Add, {x, y})), g.add(enode(Op::Add, {y, x})));  // no commutativity built in
  ir::Attrs axis1;
  axis1.axes = {1};
  ir::Attrs axis1_keep = axis1;
  axis1_keep.keepdims = true;
  EXPECT_NE(g.add(enode(Op::ReduceSum, {x}, axis1)), g.add(enode(Op::ReduceSum, {x}, axis1_keep)));
  EXPECT_EQ(add_const(g, 2.0), add_const(g, 2.0));
  EXPECT_NE(add_const(g, 0.0), add_const(g, -0.0));
  EXPECT_EQ(g.num_nodes(), 11u);
  EXPECT_EQ(g.num_classes(), 11u);
  EXPECT_FALSE(g.dirty());
  expect_invariants(g);
}

TEST(NuGraphTest, ClassDataFromShapeInference) {
  NuGraph g;
  ClassId x = g.add_input(0, "x", f32({M, N}));
  ClassId v = g.add_input(1, "v", {ir::DType::BF16, {N}});
  ClassId two = add_const(g, 2.0);
  EXPECT_TRUE(g.data(two).weak_scalar);
  EXPECT_EQ(g.data(two).type, f32({}));
  EXPECT_FALSE(g.data(x).weak_scalar);
  ClassId sum = g.add(enode(Op::Add, {x, v}));
  EXPECT_EQ(g.data(sum).type, f32({M, N}));
  // A weak scalar does not decide the dtype: bf16 * 2 stays bf16.
  EXPECT_EQ(g.data(g.add(enode(Op::Mul, {v, two}))).type, (ir::TensorType{ir::DType::BF16, {N}}));
  ir::Attrs axis0;
  axis0.axes = {0};
  ClassId reduced = g.add(enode(Op::ReduceSum, {sum}, axis0));
  EXPECT_EQ(g.data(reduced).type, f32({N}));
  EXPECT_EQ(g.data(reduced).cost_lower_bound, 2.0);
  EXPECT_EQ(g.data(x).cost_lower_bound, 0.0);
}

TEST(NuGraphTest, AddTermSharesSubterms) {
  ir::Program p = compile(
      "def f(x: \"f32[M, N]\", w: \"f32[N, K]\"):\n"
      "    y = np.exp(x)\n"
      "    return (y * y + np.exp(x)) @ w\n");
  NuGraph g;
  ClassId root = g.add_term(p.kernel.outputs[0]);
  EXPECT_EQ(g.num_classes(), 6u);  // x, w, exp, mul, add, einsum
  EXPECT_EQ(g.data(root).type, f32({M, K}));
  EXPECT_EQ(g.add_term(p.kernel.outputs[0]), root);
  EXPECT_EQ(g.num_classes(), 6u);
  // Adding a subterm finds its class.
  ir::NodeRef exp_x = p.kernel.outputs[0]->input(0)->input(1);
  ASSERT_EQ(exp_x->op(), Op::Exp);
  EXPECT_EQ(g.add_terms({exp_x, p.kernel.outputs[0]}), (std::vector<ClassId>{g.add_term(exp_x), root}));
  expect_invariants(g);
}

TEST(NuGraphTest, MergeThenRebuildRestoresCongruence) {
  NuGraph g;
  ClassId a = g.add_input(0, "a", f32({M}));
  ClassId b = g.add_input(1, "b", f32({M}));
  ClassId fa = g.add(enode(Op::Exp, {a}));
  ClassId fb = g.add(enode(Op::Exp, {b}));
  ASSERT_NE(fa, fb);
  EXPECT_TRUE(g.merge(a, b));
  EXPECT_TRUE(g.dirty());
  EXPECT_EQ(g.find(a), g.find(b));
  EXPECT_EQ(g.find(b), a);            // the smaller id stays the root
  EXPECT_NE(g.find(fa), g.find(fb));  // congruence waits for rebuild
  g.rebuild();
  EXPECT_FALSE(g.dirty());
  EXPECT_EQ(g.find(fa), g.find(fb));
  EXPECT_EQ(g.find(fb), fa);
  EXPECT_EQ(g.num_classes(), 2u);
  EXPECT_EQ(g.num_nodes(), 3u);  // a, b, exp(a): exp(b) became exp(a)
  ASSERT_EQ(g.nodes(fb).size(), 1u);
  EXPECT_EQ(g.nodes(fb)[0], enode(Op::Exp, {a}));
  EXPECT_EQ(g.nodes(a).size(), 2u);
  expect_invariants(g);
}

TEST(NuGraphTest, RebuildPropagatesCongruenceUpward) {
  NuGraph g;
  ClassId a = g.add_input(0, "a", f32({M}));
  ClassId b = g.add_input(1, "b", f32({M}));
  ClassId top_a = a, top_b = b;
  for (int i = 0; i < 5; ++i) {
    top_a = g.add(enode(i % 2 ? Op::Neg : Op::Exp, {top_a}));
    top_b = g.add(enode(i % 2 ? Op::Neg : Op::Exp, {top_b}));
  }
  ClassId joined = g.add(enode(Op::Mul, {top_a, top_b}));
  g.merge(b, a);
  g.rebuild();
  EXPECT_EQ(g.find(top_a), g.find(top_b));
  EXPECT_EQ(g.num_classes(), 7u);
  EXPECT_EQ(g.nodes(joined)[0], enode(Op::Mul, {g.find(top_a), g.find(top_a)}));
  expect_invariants(g);
}

TEST(NuGraphTest, MergeReportsWhetherAnythingChanged) {
  NuGraph g;
  ClassId a = g.add_input(0, "a", f32({M}));
  ClassId b = g.add_input(1, "b", f32({M}));
  ClassId fa = g.add(enode(Op::Exp, {a}));
  ClassId fb = g.add(enode(Op::Exp, {b}));
  EXPECT_FALSE(g.merge(a, a));
  EXPECT_FALSE(g.dirty());
  EXPECT_TRUE(g.merge(a, b));
  EXPECT_FALSE(g.merge(b, a));
  g.rebuild();
  EXPECT_FALSE(g.merge(fa, fb));  // already equal by congruence
  EXPECT_FALSE(g.dirty());
}

TEST(NuGraphTest, SearchingADirtyGraphIsAnInternalError) {
  NuGraph g;
  ClassId a = g.add_input(0, "a", f32({M}));
  ClassId b = g.add_input(1, "b", f32({M}));
  ClassId fa = g.add(enode(Op::Exp, {a}));
  g.merge(a, b);
  EXPECT_THROW(g.nodes(a), InternalError);
  EXPECT_THROW(g.classes(), InternalError);
  EXPECT_THROW(g.parents(a), InternalError);
  EXPECT_THROW(g.lookup(enode(Op::Exp, {b})), InternalError);
  // Bookkeeping that does not search stays available.
  EXPECT_EQ(g.find(b), a);
  EXPECT_EQ(g.data(fa).type, f32({M}));
  EXPECT_EQ(g.num_classes(), 2u);
  // So does adding (the runner adds proposals before rebuilding).
  ClassId fb = g.add(enode(Op::Exp, {b}));
  g.rebuild();
  EXPECT_EQ(g.find(fa), g.find(fb));
  EXPECT_EQ(g.classes().size(), 2u);
  EXPECT_EQ(g.lookup(enode(Op::Exp, {b})), fa);
  expect_invariants(g);
}

TEST(NuGraphTest, MergingDifferentTypesIsAnInternalError) {
  NuGraph g;
  ClassId m = g.add_input(0, "m", f32({M}));
  ClassId n = g.add_input(1, "n", f32({N}));
  ClassId half = g.add_input(2, "h", {ir::DType::F16, {M}});
  ClassId vector_sum = g.add(enode(Op::ReduceSum, {m}, [] {
    ir::Attrs attrs;
    attrs.axes = {0};
    return attrs;
  }()));
  ClassId literal = add_const(g, 1.0);
  EXPECT_THROW(g.merge(m, n), InternalError);
  EXPECT_THROW(g.merge(m, half), InternalError);
  // f32[] both, but a literal is a weak scalar and a sum is not: parents' dtypes would differ.
  EXPECT_THROW(g.merge(vector_sum, literal), InternalError);
  EXPECT_FALSE(g.dirty());
  EXPECT_EQ(g.num_classes(), 5u);
  EXPECT_TRUE(g.merge(literal, add_const(g, 1.5)));
}

TEST(NuGraphTest, ShapeErrorLeavesTheGraphUnchanged) {
  NuGraph g;
  ClassId x = g.add_input(0, "x", f32({M}));
  ClassId y = g.add_input(1, "y", f32({N}));
  ClassId e = g.add(enode(Op::Exp, {x}));
  const std::vector<ClassId> classes_before = g.classes();
  const auto parents_before = g.parents(x);
  EXPECT_THROW(g.add(enode(Op::Add, {x, y})), ir::ShapeError);
  EXPECT_THROW(g.add(enode(Op::Add, {e})), InternalError);  // a wrong arity is a bug, and changes nothing either
  ir::Attrs bad_axis;
  bad_axis.axes = {3};
  EXPECT_THROW(g.add(enode(Op::ReduceSum, {x}, bad_axis)), ir::ShapeError);
  EXPECT_EQ(g.num_nodes(), 3u);
  EXPECT_EQ(g.num_classes(), 3u);
  EXPECT_FALSE(g.dirty());
  EXPECT_EQ(g.classes(), classes_before);
  EXPECT_EQ(g.parents(x), parents_before);
  EXPECT_TRUE(g.parents(y).empty());
  EXPECT_EQ(g.lookup(enode(Op::Add, {x, y})), std::nullopt);
  // The next class gets the next id, as if nothing had happened.
  EXPECT_EQ(g.add(enode(Op::Neg, {x})), 3u);
  expect_invariants(g);
}

TEST(NuGraphTest, InputsComeOnlyFromAddInput) {
  NuGraph g;
  ir::Attrs attrs;
  attrs.index = 0;
  attrs.name = "x";
  EXPECT_THROW(g.add(enode(Op::Input, {}, attrs)), InternalError);
  ClassId x = g.add_input(0, "x", f32({M}));
  EXPECT_EQ(g.add(enode(Op::Input, {}, attrs)), x);  // an existing input is found
  EXPECT_THROW(g.add_input(0, "x", f32({N})), InternalError);
  EXPECT_THROW(g.add(enode(Op::Exp, {99})), InternalError);  // no such class
  EXPECT_EQ(g.num_classes(), 1u);
}

TEST(NuGraphTest, ParentsListEachUserOnce) {
  NuGraph g;
  ClassId x = g.add_input(0, "x", f32({M}));
  ClassId y = g.add_input(1, "y", f32({M}));
  ClassId square = g.add(enode(Op::Mul, {x, x}));
  ClassId exp_x = g.add(enode(Op::Exp, {x}));
  ClassId sum = g.add(enode(Op::Add, {x, y}));
  using Parents = std::vector<std::pair<ENode, ClassId>>;
  EXPECT_EQ(g.parents(x),
            (Parents{{enode(Op::Mul, {x, x}), square}, {enode(Op::Exp, {x}), exp_x}, {enode(Op::Add, {x, y}), sum}}));
  EXPECT_EQ(g.parents(y), (Parents{{enode(Op::Add, {x, y}), sum}}));
  EXPECT_TRUE(g.parents(sum).empty());
  g.merge(x, y);
  g.rebuild();
  EXPECT_EQ(g.parents(y),
            (Parents{{enode(Op::Mul, {x, x}), square}, {enode(Op::Exp, {x}), exp_x}, {enode(Op::Add, {x, x}), sum}}));
  EXPECT_EQ(g.parents(x), g.parents(y));
  expect_invariants(g);
}

TEST(NuGraphTest, CostLowerBoundFallsOnMergeAndPropagates) {
  NuGraph g;
  ClassId x = g.add_input(0, "x", f32({M}));
  ClassId z = g.add_input(1, "z", f32({M}));
  ClassId deep = g.add(enode(Op::Exp, {g.add(enode(Op::Exp, {g.add(enode(Op::Exp, {x}))}))}));
  ClassId top = g.add(enode(Op::Neg, {g.add(enode(Op::Tanh, {deep}))}));
  EXPECT_EQ(g.data(deep).cost_lower_bound, 3.0);
  EXPECT_EQ(g.data(top).cost_lower_bound, 5.0);
  g.merge(deep, z);
  EXPECT_EQ(g.data(deep).cost_lower_bound, 0.0);  // at once for the merged class
  g.rebuild();
  EXPECT_EQ(g.data(top).cost_lower_bound, 2.0);  // after rebuild for its users
  // A cycle cannot lower a bound: x = exp(x) keeps x at 0 and exp(x) at 1.
  ClassId exp_z = g.add(enode(Op::Exp, {z}));
  g.merge(exp_z, g.add(enode(Op::Abs, {exp_z})));
  g.rebuild();
  EXPECT_EQ(g.data(exp_z).cost_lower_bound, 1.0);
}

TEST(NuGraphTest, CyclicClassesAreFine) {
  NuGraph g;
  ClassId x = g.add_input(0, "x", f32({M, N}));
  ClassId one = add_const(g, 1.0);
  ClassId times_one = g.add(enode(Op::Mul, {x, one}));
  g.merge(times_one, x);
  g.rebuild();
  EXPECT_EQ(g.num_classes(), 2u);
  EXPECT_EQ(g.nodes(x), (std::vector<ENode>{enode(Op::Input, {},
                                                  [] {
                                                    ir::Attrs a;
                                                    a.name = "x";
                                                    return a;
                                                  }()),
                                            enode(Op::Mul, {x, one})}));
  // Adding x * 1 again, or (x * 1) * 1, finds the same class.
  EXPECT_EQ(g.add(enode(Op::Mul, {times_one, one})), x);
  EXPECT_EQ(g.num_nodes(), 3u);
  expect_invariants(g);
}

TEST(NuGraphTest, LookupCanonicalizesChildren) {
  NuGraph g;
  ClassId a = g.add_input(0, "a", f32({M}));
  ClassId b = g.add_input(1, "b", f32({M}));
  ClassId fb = g.add(enode(Op::Exp, {b}));
  EXPECT_EQ(g.lookup(enode(Op::Exp, {a})), std::nullopt);
  g.merge(b, a);
  g.rebuild();
  EXPECT_EQ(g.lookup(enode(Op::Exp, {a})), fb);
  EXPECT_EQ(g.lookup(enode(Op::Exp, {b})), fb);
  EXPECT_EQ(g.lookup(enode(Op::Neg, {b})), std::nullopt);
}

TEST(NuGraphTest, LimitsAndStopReasons) {
  NuGraph g(Limits{4, 3});
  EXPECT_EQ(g.limits().max_nodes, 4u);
  ClassId x = g.add_input(0, "x", f32({M}));
  ClassId y = g.add_input(1, "y", f32({M}));
  g.add(enode(Op::Exp, {x}));
  EXPECT_FALSE(g.over_limit());
  g.add(enode(Op::Exp, {y}));
  EXPECT_TRUE(g.over_limit());  // 4 classes > 3
  g.merge(x, y);
  g.rebuild();
  EXPECT_FALSE(g.over_limit());  // 2 classes, 3 nodes
  EXPECT_EQ(NuGraph().limits().max_nodes, 20000u);
  EXPECT_EQ(NuGraph().limits().max_classes, 10000u);
  EXPECT_STREQ(stop_reason_name(StopReason::Saturated), "saturated");
  EXPECT_STREQ(stop_reason_name(StopReason::NodeLimit), "node limit");
  EXPECT_STREQ(stop_reason_name(StopReason::IterationLimit), "iteration limit");
  EXPECT_STREQ(stop_reason_name(StopReason::ProposalLimit), "proposal limit");
}

TEST(NuGraphTest, DeepChainsMergeWithoutRecursion) {
  constexpr int kDepth = 10000;
  NuGraph g;
  ClassId a = g.add_input(0, "a", f32({M}));
  ClassId b = g.add_input(1, "b", f32({M}));
  ClassId top_a = a, top_b = b;
  for (int i = 0; i < kDepth; ++i) {
    top_a = g.add(enode(Op::Exp, {top_a}));
    top_b = g.add(enode(Op::Exp, {top_b}));
  }
  EXPECT_EQ(g.data(top_a).cost_lower_bound, kDepth);
  g.merge(a, b);
  g.rebuild();
  EXPECT_EQ(g.find(top_a), g.find(top_b));
  EXPECT_EQ(g.num_classes(), static_cast<size_t>(kDepth + 1));
  EXPECT_EQ(g.num_nodes(), static_cast<size_t>(kDepth + 2));
}

// The e-graph against a naive congruence closure: after random merges, two
// e-nodes share a class exactly when the naive fixpoint says so.
TEST(NuGraphTest, MatchesNaiveCongruenceClosure) {
  const Op ops[] = {Op::Exp, Op::Neg, Op::Add, Op::Mul};
  size_t congruence_merges = 0;  // merges that only congruence implies, over all seeds
  for (uint32_t seed = 1; seed <= 20; ++seed) {
    std::mt19937 rng(seed);
    NuGraph g;
    std::vector<ClassId> ids;  // class of term t, as added
    std::vector<ENode> terms;  // term t over term indices
    for (int i = 0; i < 3; ++i) {
      ids.push_back(g.add_input(i, "x" + std::to_string(i), f32({M})));
      terms.push_back(enode(Op::Input, {}));
    }
    for (int i = 0; i < 40; ++i) {
      Op op = ops[rng() % 4];
      std::vector<ClassId> kids;
      std::vector<ClassId> kid_terms;
      for (int k = 0; k < (op == Op::Add || op == Op::Mul ? 2 : 1); ++k) {
        uint32_t t = rng() % terms.size();
        kid_terms.push_back(t);
        kids.push_back(ids[t]);
      }
      ClassId id = g.add(enode(op, kids));
      ids.push_back(id);
      terms.push_back(enode(op, kid_terms));
    }
    std::vector<std::pair<uint32_t, uint32_t>> merges;
    for (int i = 0; i < 6; ++i) merges.push_back({rng() % terms.size(), rng() % terms.size()});
    for (auto [s, t] : merges) g.merge(ids[s], ids[t]);
    g.rebuild();
    expect_invariants(g);

    // Naive: repeat "merge the asserted pairs and all congruent pairs" to a fixpoint.
    std::vector<uint32_t> rep(terms.size());
    std::iota(rep.begin(), rep.end(), 0u);
    auto root = [&](uint32_t t) {
      while (rep[t] != t) t = rep[t];
      return t;
    };
    auto join = [&](uint32_t s, uint32_t t) {
      s = root(s), t = root(t);
      if (s == t) return false;
      rep[std::max(s, t)] = std::min(s, t);
      return true;
    };
    for (auto [s, t] : merges) join(s, t);
    auto partition_size = [&] {
      size_t n = 0;
      for (size_t t = 0; t < terms.size(); ++t) n += root(t) == t;
      return n;
    };
    const size_t asserted_only = partition_size();
    for (bool changed = true; changed;) {
      changed = false;
      for (size_t s = 3; s < terms.size(); ++s)
        for (size_t t = s + 1; t < terms.size(); ++t) {
          if (terms[s].op != terms[t].op) continue;
          bool congruent = true;
          for (size_t k = 0; k < terms[s].children.size(); ++k)
            congruent = congruent && root(terms[s].children[k]) == root(terms[t].children[k]);
          if (congruent && join(s, t)) changed = true;
        }
    }
    congruence_merges += asserted_only - partition_size();
    for (size_t s = 0; s < terms.size(); ++s)
      for (size_t t = s + 1; t < terms.size(); ++t)
        EXPECT_EQ(g.find(ids[s]) == g.find(ids[t]), root(s) == root(t))
            << "seed " << seed << ", terms " << s << ", " << t;
  }
  EXPECT_GT(congruence_merges, 20u);
}

}  // namespace
}  // namespace axon::nugraph
