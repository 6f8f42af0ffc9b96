// Operator propagation on the benchmark kernels: the variants the algebra
// must find, and a wrong proposal that must never be merged.
#include <gtest/gtest.h>

#include <functional>
#include <iostream>
#include <set>

#include "algebra/propagate.h"
#include "lang/load.h"
#include "nugraph/extract.h"

namespace axon::algebra {
namespace {

using ir::NodeRef;
using ir::Op;

struct Explored {
  ir::Program program;
  nugraph::NuGraph graph;
  nugraph::ClassId root = 0;
  PropagationStats stats;
};

void explore(const std::string& kernel, Explored& e) {
  e.program = lang::load_program(std::string(AXON_SOURCE_DIR) + "/bench/kernels/" + kernel + ".py");
  e.root = e.graph.add_term(e.program.kernel.outputs.at(0));
  smt::Prover prover;
  e.stats = propagate(e.graph, prover, {});
  std::cout << kernel << ": " << e.stats.proposals << " proposals, " << e.stats.proved << " proved, "
            << e.stats.refuted << " refuted, " << e.stats.unknown << " unknown, " << e.graph.num_classes()
            << " classes, " << e.stats.seconds << " s\n";
}

bool depends_on(NodeRef n, const std::function<bool(NodeRef)>& pred) {
  for (NodeRef m : ir::topological_order({n}))
    if (m != n && pred(m)) return true;
  return false;
}

// The first variant (of up to 2000) that satisfies `wanted`, printed.
bool find_variant(const Explored& e, const std::function<bool(NodeRef)>& wanted, const std::string& what) {
  ir::Graph out;
  for (NodeRef v : nugraph::enumerate_variants(e.graph, e.graph.find(e.root), 2000, out)) {
    if (!wanted(v)) continue;
    ir::Function f;
    f.outputs = {v};
    std::cout << what << ":\n" << ir::print_numpy(f);
    return true;
  }
  return false;
}

bool is_reduction(NodeRef n) { return ir::op_kind(n->op()) == ir::OpKind::Reduce; }

// No contraction waits for a sum: the normalization is applied afterwards.
bool contractions_before_sums(NodeRef v) {
  bool any = false;
  for (NodeRef n : ir::topological_order({v})) {
    if (n->op() != Op::Contract) continue;
    any = true;
    if (depends_on(n, [](NodeRef m) { return m->op() == Op::ReduceSum; })) return false;
  }
  return any;
}

TEST(AlgebraPropagate, RmsnormMatmulStopsWaitingForTheNorm) {
  Explored e;
  explore("rmsnorm_matmul", e);
  EXPECT_TRUE(find_variant(e, [](NodeRef v) {
    for (NodeRef n : ir::topological_order({v}))
      if (n->op() == Op::Contract && !depends_on(n, is_reduction)) return true;
    return false;
  }, "rmsnorm_matmul, the matmul independent of the norm"));
}

class Deferred : public ::testing::TestWithParam<const char*> {};

TEST_P(Deferred, FindsDeferredNormalization) {
  Explored e;
  explore(GetParam(), e);
  EXPECT_TRUE(find_variant(e, contractions_before_sums, std::string(GetParam()) + ", deferred normalization"));
}

INSTANTIATE_TEST_SUITE_P(AlgebraPropagate, Deferred, ::testing::Values("softmax_matmul", "attention", "gqa"));

class SharedInput : public ::testing::TestWithParam<const char*> {};

TEST_P(SharedInput, FindsOneContractionOverConcatenatedOperands) {
  Explored e;
  explore(GetParam(), e);
  EXPECT_TRUE(find_variant(e, [](NodeRef v) {
    for (NodeRef n : ir::topological_order({v}))
      if (n->op() == Op::Contract && (n->input(0)->op() == Op::Concat || n->input(1)->op() == Op::Concat)) return true;
    return false;
  }, std::string(GetParam()) + ", shared input"));
}

INSTANTIATE_TEST_SUITE_P(AlgebraPropagate, SharedInput, ::testing::Values("gated_mlp", "lora"));

// rope's element-wise ops move across its concatenation (rotate_half): the
// result becomes the concatenation of two element-wise parts that read slices
// of x, cos and sin, with no concatenated intermediate. The slices of the
// side operands come from the offset between a part's index and the
// concatenation's (D - D//2 for the second half), proved for every even and
// odd D.
TEST(AlgebraPropagate, RopeMovesElementwiseOpsAcrossTheConcatenation) {
  Explored e;
  explore("rope", e);
  EXPECT_TRUE(find_variant(e, [](NodeRef v) {
    if (v->op() != Op::Concat) return false;
    for (NodeRef n : ir::topological_order({v}))
      if (n != v && n->op() == Op::Concat) return false;
    for (NodeRef part : v->inputs())
      if (ir::op_kind(part->op()) != ir::OpKind::Binary) return false;
    return true;
  }, "rope, the concatenation outermost"));
}

// A side operand broadcast along the other axis is sliced along the
// concatenated one: a * c[:N] and b * c[N:] side by side.
TEST(AlgebraPropagate, MovesAcrossConcatenationWithBroadcastSide) {
  auto file = std::make_shared<SourceFile>(SourceFile{"k.py", R"(import numpy as np
def k(a: "f32[M, N]", b: "f32[M, K]", c: "f32[N + K]"):
    return np.concatenate([a, b], axis=1) * c
)"});
  ir::Program program = lang::compile_source(file);
  nugraph::NuGraph graph;
  nugraph::ClassId root = graph.add_term(program.kernel.outputs[0]);
  smt::Prover prover;
  propagate(graph, prover, {});
  ir::Graph out;
  bool found = false;
  for (NodeRef v : nugraph::enumerate_variants(graph, graph.find(root), 200, out)) {
    if (v->op() != Op::Concat) continue;
    found = true;
    ir::Function f;
    f.outputs = {v};
    std::cout << ir::print_numpy(f);
  }
  EXPECT_TRUE(found) << "a * c[:N] and b * c[N:] side by side";
}

// exp moved past a matmul is proposed (the consumer onto a producer input),
// refuted, and never merged.
TEST(AlgebraPropagate, WrongProposalIsRefutedAndNeverMerged) {
  auto file = std::make_shared<SourceFile>(SourceFile{"k.py", R"(import numpy as np
def k(a: "f32[M, K]", b: "f32[K, N]"):
    return np.exp(a @ b)
)"});
  ir::Program program = lang::compile_source(file);
  nugraph::NuGraph graph;
  nugraph::ClassId root = graph.add_term(program.kernel.outputs[0]);
  smt::Prover prover;
  PropagationStats stats = propagate(graph, prover, {});
  EXPECT_GT(stats.refuted, 0u);
  ir::Graph& g = *program.graph;
  NodeRef a = nullptr, b = nullptr;
  for (NodeRef n : ir::topological_order(program.kernel.outputs))
    if (n->op() == Op::Input) (n->attrs().index == 0 ? a : b) = n;
  NodeRef wrong = g.make(Op::Contract, {g.make(Op::Exp, {a}, {}), b}, program.kernel.outputs[0]->input(0)->attrs());
  nugraph::ClassId wrong_class = graph.add_term(wrong);
  graph.rebuild();
  EXPECT_NE(graph.find(wrong_class), graph.find(root)) << "exp(a) @ b was merged with exp(a @ b)";
}

}  // namespace
}  // namespace axon::algebra
