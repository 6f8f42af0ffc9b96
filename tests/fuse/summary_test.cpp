// The fused form of a plan, as reports show it.
#include "fuse/summary.h"

#include <gtest/gtest.h>

#include "fuse_testing.h"

namespace axon::fuse {
namespace {

ir::Program compile(const std::string& text) {
  return testing::compile_numpy("summary_test.py", text);
}

struct Case {
  std::string source;
  ir::Dims dims;
  std::vector<std::string> statements;  // one per loop nest of the fused plan
  size_t unfused_nests;
};

TEST(FusionSummary, StatesEachLoopNestOverItsBuffers) {
  const std::vector<Case> cases = {
      {"def k(x: 'f32[M, N]', g: 'f32[N]'):\n"
       "    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + 1e-6) * g\n",
       {{"M", 3}, {"N", 5}},
       {"t2[i, 0] += x[i, j] * x[i, j]", "out0[i, j] = x[i, j] / sqrt((t2[i, 0] / 5 + 1e-06)) * g[j]"},
       7},
      {"def k(a: 'f32[M, K]', b: 'f32[K, N]'):\n    return np.maximum(a @ b, 0.0)\n",
       {{"M", 4}, {"K", 6}, {"N", 8}},
       {"t2[i, j] += a[i, k] * b[k, j]", "out0[i, j] = maximum(t2[i, j], 0)"},
       2},
      {"def k(x: 'f32[M, N]'):\n    return x.T * 2.0\n",
       {{"M", 4}, {"N", 6}},
       {"out0[i, j] = x[j, i] * 2"},
       1},  // a transpose is an access either way
  };
  for (const Case& c : cases) {
    ir::Program p = compile(c.source);
    tile::PlanOptions off;
    off.fuse_elementwise = false;
    FusionSummary s =
        summarize_fusion(p.kernel, tile::plan_function(p.kernel, c.dims), tile::plan_function(p.kernel, c.dims, off));
    std::vector<std::string> got;
    for (const FusedNest& n : s.nests) got.push_back(n.statement);
    EXPECT_EQ(got, c.statements) << c.source;
    EXPECT_EQ(s.nests_unfused, c.unfused_nests) << c.source;
    EXPECT_LE(s.scratch_bytes, s.scratch_bytes_unfused) << c.source;
    EXPECT_NE(fusion_markdown(s).find("loop nest"), std::string::npos);
  }
}

}  // namespace
}  // namespace axon::fuse
