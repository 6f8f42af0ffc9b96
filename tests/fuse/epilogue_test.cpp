// Epilogue fusion: which element-wise consumers move into the fold that
// produces their operand, and which must stay in their own loop nest.
#include "fuse/epilogue.h"

#include <gtest/gtest.h>

#include "fuse/summary.h"
#include "fuse_testing.h"

namespace axon::fuse {
namespace {

ir::Program compile(const std::string& text) {
  return testing::compile_numpy("epilogue_test.py", text);
}

struct Case {
  std::string what, source;
  ir::Dims dims;
  int fused;                            // epilogues fused
  std::vector<std::string> statements;  // the loop nests afterwards
};

TEST(Epilogue, FusesPointwiseConsumersOfFoldsOnly) {
  const std::vector<Case> cases = {
      {"gated MLP: into the second matmul, the first one's result ready",
       "def k(x: 'f32[M, K]', a: 'f32[K, N]', b: 'f32[K, N]'):\n"
       "    h = x @ a\n"
       "    return h / (1.0 + np.exp(-h)) * (x @ b)\n",
       {{"M", 4}, {"K", 6}, {"N", 8}},
       1,
       {"t4[i, j] += x[i, k] * b[k, j]",
        "out0[i, j] = sum_k(x[i, k] * a[k, j]) / (1 + exp(-sum_k(x[i, k] * a[k, j]))) * t4[i, j]"}},
      {"softmax then matmul: the row sums move before the matmul, the division into its store",
       "def k(s: 'f32[M, T]', v: 'f32[T, D]'):\n"
       "    e = np.exp(s - np.max(s, axis=-1, keepdims=True))\n"
       "    return (e @ v) / np.sum(e, axis=-1, keepdims=True)\n",
       {{"M", 4}, {"T", 6}, {"D", 8}},
       1,
       {"t2[i, 0] max= s[i, j]", "t3[i, j] = exp((s[i, j] - t2[i, 0]))", "t5[i, 0] += t3[i, j]",
        "out0[i, j] = sum_k(t3[i, k] * v[k, j]) / t5[i, 0]"}},
      {"a row reduction with its vector loop folded",
       "def k(x: 'f32[M, N]', y: 'f32[M]'):\n    return np.sqrt(np.sum(x * x, axis=1)) + y\n",
       {{"M", 3}, {"N", 5}},
       1,
       {"out0[i] = (sqrt(sum_j(x[i, j] * x[i, j])) + y[i])"}},
      {"softmax: the consumer reads the row sums broadcast, not point for point",
       "def k(x: 'f32[M, N]'):\n    e = np.exp(x - np.max(x, axis=1, keepdims=True))\n"
       "    return e / np.sum(e, axis=1, keepdims=True)\n",
       {{"M", 3}, {"N", 5}},
       0,
       {"t1[i, 0] max= x[i, j]", "t2[i, j] = exp((x[i, j] - t1[i, 0]))", "t3[i, 0] += t2[i, j]",
        "out0[i, j] = t2[i, j] / t3[i, 0]"}},
      {"a result that is also returned stays in memory",
       "def k(a: 'f32[M, K]', b: 'f32[K, N]'):\n    c = a @ b\n    return c, c * 2.0\n",
       {{"M", 4}, {"K", 6}, {"N", 8}},
       0,
       {"out0[i, j] += a[i, k] * b[k, j]", "out1[i, j] = out0[i, j] * 2"}},
  };
  for (const Case& c : cases) {
    ir::Program p = compile(c.source);
    tile::Plan plan = tile::plan_function(p.kernel, c.dims);
    EXPECT_EQ(fuse_epilogues(plan), c.fused) << c.what;
    tile::PlanOptions off;
    off.fuse_elementwise = false;
    FusionSummary s = summarize_fusion(p.kernel, plan, tile::plan_function(p.kernel, c.dims, off));
    std::vector<std::string> got;
    for (const FusedNest& n : s.nests) got.push_back(n.statement);
    EXPECT_EQ(got, c.statements) << c.what;
    EXPECT_EQ(s.epilogues, c.fused) << c.what;
  }
}

}  // namespace
}  // namespace axon::fuse
