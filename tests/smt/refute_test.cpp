// Refutation: a deliberately wrong proposal is refuted with a counterexample
// (sizes and inputs) that, replayed in the reference interpreter, really
// shows the two programs differ.
#include "smt/refute.h"

#include <gtest/gtest.h>

#include <cmath>

#include "smt_testing.h"

namespace axon::smt {
namespace {

using smttest::compile;
using smttest::kernel_source;

constexpr const char* kParams = R"(a: "f32[M, K]", b: "f32[K, N]")";

// exp moved past the matmul: exp(a @ b) is not exp(a) @ b.
TEST(SmtRefute, ExpPastMatmulIsRefutedWithReplayableCounterexample) {
  ir::Program lhs = compile("a.py", kernel_source(kParams, "np.exp(a @ b)"));
  ir::Program rhs = compile("b.py", kernel_source(kParams, "np.exp(a) @ b"));
  ProofResult r = Prover().prove_equal(lhs.kernel.outputs[0], rhs.kernel.outputs[0]);
  ASSERT_EQ(r.verdict, Verdict::Refuted) << r.method << r.detail;
  ASSERT_TRUE(r.counterexample.has_value());
  const Counterexample& cex = *r.counterexample;
  EXPECT_TRUE(r.smtlib.empty()) << "a refutation carries no proof";

  // The sizes name every size of the programs, each at least 1.
  for (const char* name : {"M", "K", "N"}) {
    ASSERT_TRUE(cex.dims.count(name)) << name;
    EXPECT_GE(cex.dims.at(name), 1) << name;
  }
  // The inputs have the parameters' shapes at those sizes.
  ASSERT_EQ(cex.inputs.size(), 2u);
  EXPECT_EQ(cex.inputs[0].shape, (std::vector<int64_t>{cex.dims.at("M"), cex.dims.at("K")}));
  EXPECT_EQ(cex.inputs[1].shape, (std::vector<int64_t>{cex.dims.at("K"), cex.dims.at("N")}));

  // Replayed: both programs in the interpreter, and through evaluate_at.
  EXPECT_EQ(smttest::replay_problem(lhs, rhs, 0, cex), "");
  eval::Tensor x = eval::evaluate(lhs.kernel, cex.inputs, cex.dims).at(0);
  eval::Tensor y = eval::evaluate(rhs.kernel, cex.inputs, cex.dims).at(0);
  ASSERT_EQ(x.shape, y.shape);
  ASSERT_EQ(cex.index.size(), 2u);
  size_t flat = static_cast<size_t>(cex.index[0] * x.shape[1] + cex.index[1]);
  EXPECT_FALSE(smttest::values_agree(x.data.at(flat), y.data.at(flat)))
      << x.data.at(flat) << " vs " << y.data.at(flat);
  EXPECT_DOUBLE_EQ(x.data.at(flat), cex.lhs);
  EXPECT_DOUBLE_EQ(y.data.at(flat), cex.rhs);
  // Computed by hand from the inputs: exp(sum_k a[i,k] b[k,j]) and sum_k exp(a[i,k]) b[k,j].
  int64_t K = cex.dims.at("K"), N = cex.dims.at("N");
  double dot = 0, mixed = 0;
  for (int64_t k = 0; k < K; ++k) {
    double aik = cex.inputs[0].data[static_cast<size_t>(cex.index[0] * K + k)];
    double bkj = cex.inputs[1].data[static_cast<size_t>(k * N + cex.index[1])];
    dot += aik * bkj;
    mixed += std::exp(aik) * bkj;
  }
  EXPECT_NEAR(std::exp(dot), cex.lhs, 1e-12 * (1 + std::fabs(cex.lhs)));
  EXPECT_NEAR(mixed, cex.rhs, 1e-12 * (1 + std::fabs(cex.rhs)));
}

// find_difference alone: nothing for an identity, a difference for the wrong proposal.
TEST(SmtRefute, FindDifferenceSeparatesIdentityFromWrongProposal) {
  ir::Program lhs = compile("a.py", kernel_source(kParams, "np.exp(a @ b)"));
  ir::Program same = compile("b.py", kernel_source(kParams, "np.exp(np.einsum(\"ik,kj->ij\", a, b))"));
  ir::Program wrong = compile("c.py", kernel_source(kParams, "np.exp(a) @ b"));
  EXPECT_FALSE(find_difference(lhs.kernel.outputs[0], same.kernel.outputs[0], 1).has_value());
  for (uint64_t seed : {1, 2, 3}) {
    auto cex = find_difference(lhs.kernel.outputs[0], wrong.kernel.outputs[0], seed);
    ASSERT_TRUE(cex.has_value()) << "seed " << seed;
    EXPECT_EQ(smttest::replay_problem(lhs, wrong, 0, *cex), "") << "seed " << seed;
  }
}

// The replay check itself is not vacuous: a counterexample of the wrong
// proposal, replayed against an identity, is rejected.
TEST(SmtRefute, ReplayRejectsACounterexampleThatDoesNotDiffer) {
  ir::Program lhs = compile("a.py", kernel_source(kParams, "np.exp(a @ b)"));
  ir::Program same = compile("b.py", kernel_source(kParams, "np.exp(np.einsum(\"ik,kj->ij\", a, b))"));
  ir::Program wrong = compile("c.py", kernel_source(kParams, "np.exp(a) @ b"));
  auto cex = find_difference(lhs.kernel.outputs[0], wrong.kernel.outputs[0], 1);
  ASSERT_TRUE(cex.has_value());
  EXPECT_NE(smttest::replay_problem(lhs, same, 0, *cex), "");
  Counterexample altered = *cex;
  altered.rhs += 1.0;  // the reported value no longer matches the replay
  EXPECT_NE(smttest::replay_problem(lhs, wrong, 0, altered), "");
}

// A counterexample carries the relative difference of the two sides, so a
// user can tell a real bug (near 1) from rounding (near 1e-7).
TEST(SmtRefute, CounterexampleShowsTheRelativeDifference) {
  ir::Program lhs = compile("a.py", kernel_source(kParams, "np.exp(a @ b)"));
  ir::Program rhs = compile("b.py", kernel_source(kParams, "np.exp(a) @ b"));
  ProofResult r = Prover().prove_equal(lhs.kernel.outputs[0], rhs.kernel.outputs[0]);
  ASSERT_TRUE(r.counterexample.has_value());
  const Counterexample& cex = *r.counterexample;
  double expected = std::fabs(cex.lhs - cex.rhs) / std::max(std::fabs(cex.lhs), std::fabs(cex.rhs));
  EXPECT_DOUBLE_EQ(cex.relative_difference(), expected);
  EXPECT_GT(cex.relative_difference(), 1e-3);
}

TEST(SmtRefute, RelativeDifferenceRows) {
  struct Row {
    double lhs, rhs, expected;
  };
  for (Row row : {Row{1.0, 1.0 + 1e-7, 1e-7 / (1.0 + 1e-7)}, Row{0.0, 0.0, 0.0}, Row{1.0, -1.0, 2.0},
                  Row{-4.0, -2.0, 0.5}, Row{0.0, 3.0, 1.0}}) {
    Counterexample cex;
    cex.lhs = row.lhs;
    cex.rhs = row.rhs;
    EXPECT_NEAR(cex.relative_difference(), row.expected, 1e-15) << row.lhs << " vs " << row.rhs;
  }
  Counterexample shapes;
  shapes.lhs = shapes.rhs = NAN;
  EXPECT_TRUE(std::isnan(shapes.relative_difference()));
}

}  // namespace
}  // namespace axon::smt
