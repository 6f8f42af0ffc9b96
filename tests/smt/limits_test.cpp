// The prover's limits: a check that runs away is stopped by the clock, not
// only by Z3's own resource limit (which Z3 4.8 was seen to ignore), and an
// obligation's budget turns the rest of its checks into unknown at once.
#include <gtest/gtest.h>

#include <unistd.h>

#include <chrono>
#include <cstdlib>

#include "smt/prover.h"
#include "smt_testing.h"
#include "support/process.h"

namespace axon::smt {
namespace {

using smttest::compile;
using smttest::kernel_source;

double seconds_of(const std::function<void()>& body) {
  auto start = std::chrono::steady_clock::now();
  body();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

TEST(RunForked, ReturnsWhatTheChildReturned) {
  EXPECT_EQ(run_forked([] { return 7; }, 10), 7);
  EXPECT_EQ(run_forked([] { return 0; }, 10), 0);
}

TEST(RunForked, ARunawayChildIsKilledAtTheDeadline) {
  int result = 0;
  double took = seconds_of([&] {
    result = run_forked(
        [] {
          for (;;) pause();
          return 1;
        },
        0.2);
  });
  EXPECT_EQ(result, -1);
  EXPECT_LT(took, 5.0);
}

TEST(RunForked, AChildThatDiesGivesNoResult) {
  EXPECT_EQ(run_forked(
                [] {
                  std::abort();
                  return 1;
                },
                10),
            -1);
}

constexpr const char* kParams = R"(a: "f32[M, K]", b: "f32[K, N]", c: "f32[N, P]")";

TEST(ProverLimits, AnIsolatedCheckGivesTheSameVerdict) {
  ir::Program lhs = compile("a.py", kernel_source(kParams, "(a @ b) @ c"));
  ir::Program rhs = compile("b.py", kernel_source(kParams, "a @ (b @ c)"));
  ProverOptions in_process, isolated;
  in_process.isolate_ops = 1'000'000;
  isolated.isolate_ops = 1;
  ProofResult here = Prover(in_process).prove_equal(lhs.kernel.outputs[0], rhs.kernel.outputs[0]);
  ProofResult there = Prover(isolated).prove_equal(lhs.kernel.outputs[0], rhs.kernel.outputs[0]);
  EXPECT_EQ(here.verdict, Verdict::Proved) << here.detail;
  EXPECT_EQ(there.verdict, Verdict::Proved) << there.detail;
  EXPECT_EQ(here.method, there.method);
}

TEST(ProverLimits, ASpentBudgetMakesTheVerdictUnknownAndSaysWhy) {
  ir::Program lhs = compile("a.py", kernel_source(kParams, "(a @ b) @ c"));
  ir::Program rhs = compile("b.py", kernel_source(kParams, "a @ (b @ c)"));
  ProverOptions options;
  options.budget_s = 1e-9;
  ProofResult r = Prover(options).prove_equal(lhs.kernel.outputs[0], rhs.kernel.outputs[0]);
  EXPECT_EQ(r.verdict, Verdict::Unknown);
  EXPECT_NE(r.detail.find("time budget"), std::string::npos) << r.detail;
  EXPECT_TRUE(r.smtlib.empty());
}

// An unknown says which obligation was left: the element compared, both
// sides, and where the proof attempts failed.
TEST(ProverLimits, AnUnknownNamesTheObligation) {
  const char* params = R"(x: "f32[M, N]")";
  ir::Program lhs = compile("a.py", kernel_source(params, "np.sum(x, axis=1)"));
  ir::Program rhs = compile(
      "b.py", kernel_source(params, "np.sum(x[:, :x.shape[1] // 2], axis=1) + np.sum(x[:, x.shape[1] // 2:], axis=1)"));
  ProofResult r = Prover().prove_equal(lhs.kernel.outputs[0], rhs.kernel.outputs[0]);
  ASSERT_EQ(r.verdict, Verdict::Unknown) << r.method;
  EXPECT_NE(r.detail.find("unproved obligation: the element [$0] of both results is equal"), std::string::npos)
      << r.detail;
  EXPECT_NE(r.detail.find("sum["), std::string::npos) << r.detail;
  EXPECT_NE(r.detail.find("not proved: "), std::string::npos) << r.detail;
}

}  // namespace
}  // namespace axon::smt
