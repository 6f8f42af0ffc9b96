// Row fusion: which consecutive loop nests may run inside one loop over their
// shared rows.
#include "fuse/rows.h"

#include <gtest/gtest.h>

#include "fuse_testing.h"

namespace axon::fuse {
namespace {

ir::Program compile(const std::string& text) {
  return testing::compile_numpy("rows_test.py", text);
}

struct Case {
  std::string what, source;
  ir::Dims dims;
  std::vector<std::tuple<size_t, size_t, int>> groups;  // first, last, shared loops
};

TEST(RowGroups, RowStatisticsAndTheirReadersShareTheRowLoop) {
  const std::vector<Case> cases = {
      {"rmsnorm: the sum of squares, then the normalization",
       "def k(x: 'f32[M, N]', g: 'f32[N]'):\n"
       "    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + 1e-6) * g\n",
       {{"M", 3}, {"N", 5}},
       {{0, 1, 1}}},
      {"softmax: max, exponentials, sum, division, all per row",
       "def k(x: 'f32[B, M, N]'):\n    e = np.exp(x - np.max(x, axis=-1, keepdims=True))\n"
       "    return e / np.sum(e, axis=-1, keepdims=True)\n",
       {{"B", 2}, {"M", 3}, {"N", 5}},
       {{0, 3, 2}}},
      {"a column sum folds the first loop: nothing to share",
       "def k(x: 'f32[M, N]'):\n    return x / np.sum(x, axis=0, keepdims=True)\n",
       {{"M", 3}, {"N", 5}},
       {}},
      {"a prefix sum along the rows reads other rows",
       "def k(x: 'f32[M, N]'):\n    return np.cumsum(x * 2.0 + 1.0, axis=0) * 3.0\n",
       {{"M", 3}, {"N", 5}},
       {}},
  };
  for (const Case& c : cases) {
    ir::Program p = compile(c.source);
    tile::Plan plan = tile::plan_function(p.kernel, c.dims);
    std::vector<std::tuple<size_t, size_t, int>> got;
    for (const RowGroup& g : row_groups(plan, std::vector<bool>(plan.stages.size(), true)))
      got.emplace_back(g.first, g.last, g.shared);
    EXPECT_EQ(got, c.groups) << c.what;
  }
}

TEST(RowGroups, OnlyFusableStagesJoin) {
  ir::Program p = compile(
      "def k(x: 'f32[M, N]', g: 'f32[N]'):\n"
      "    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + 1e-6) * g\n");
  tile::Plan plan = tile::plan_function(p.kernel, {{"M", 3}, {"N", 5}});
  EXPECT_TRUE(row_groups(plan, {true, false}).empty());
}

}  // namespace
}  // namespace axon::fuse
