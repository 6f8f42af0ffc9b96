// The cost model: estimates follow the hardware description, and rank the
// choices that matter (register reuse, threads for small and large work,
// memory traffic of unfused plans) the way the machine does.
#include "tune/cost.h"

#include <gtest/gtest.h>

#include "../fuse/fuse_testing.h"
#include "search/target.h"

namespace axon::tune {
namespace {

const std::string kSource = AXON_SOURCE_DIR;

ir::Program compile(const std::string& text) {
  return testing::compile_numpy("cost_test.py", text);
}

const hw::Description& avx2() {
  static const hw::Description d = hw::load_description(kSource + "/hw/x86-avx2.json");
  return d;
}

const std::map<std::string, double> kSteps = {
    {"compute", 1}, {"compute_latency", 4}, {"load", 0.5}, {"load_bcast", 1}, {"store", 1}};

tile::TargetShape shape() {
  tile::TargetShape t;
  t.lanes = 8;
  t.registers = 16;
  t.cores = 2;
  return t;
}

tile::TileParams with(tile::TileParams p, int mr, int nv, int threads) {
  p.mr = mr, p.nv = nv, p.threads = threads;
  return p;
}

TEST(Cost, LargerRegisterTilesAreCheaperForMatmul) {
  ir::Program p = compile("def k(a: 'f32[M, K]', b: 'f32[K, N]'):\n    return a @ b\n");
  tile::Plan plan = tile::plan_function(p.kernel, {{"M", 512}, {"K", 512}, {"N", 512}});
  tile::TileParams base = tile::choose_tiling(plan.stages[0], shape()).params;
  double one = estimate_stage(plan, plan.stages[0], with(base, 1, 1, 2), kSteps, avx2()).seconds;
  double tile = estimate_stage(plan, plan.stages[0], with(base, 4, 3, 2), kSteps, avx2()).seconds;
  EXPECT_LT(tile, one / 2) << "1x1: " << one << " s, 4x3: " << tile << " s";
  StageEstimate e = estimate_stage(plan, plan.stages[0], with(base, 4, 3, 2), kSteps, avx2());
  EXPECT_EQ(e.bound, "compute");
  // 2 x 512^3 FLOP: no faster than the description's peak (2 cores x 3.6 GHz x 2 FMA units x 16 FLOP).
  EXPECT_GT(e.seconds, 2.0 * 512 * 512 * 512 / (2 * 3.6e9 * 2 * 16));
}

// In a row group (rows outermost) a contraction's weights, which do not move
// along the rows, are read again for every block of rows: from L2 when they
// fit in half of it, from a slower level when they do not; the rows
// themselves are read once.
TEST(Cost, RowGroupsReadSharedWeightsOncePerBlockOfRows) {
  ir::Program p = compile("def k(a: 'f32[M, K]', b: 'f32[K, N]'):\n    return a @ b\n");
  auto rereads = [&](int64_t k, int64_t row_block) {
    tile::Plan plan = tile::plan_function(p.kernel, {{"M", 96}, {"K", k}, {"N", 128}});
    tile::TileParams base = tile::choose_tiling(plan.stages[0], shape()).params;
    return row_group_reread_seconds(plan, plan.stages[0], with(base, 3, 2, 2), 1, row_block, avx2());
  };
  const hw::Memory *l2 = nullptr, *l3 = nullptr;
  for (const hw::Memory& m : avx2().memories) {
    if (m.name == "l2") l2 = &m;
    if (m.name == "l3") l3 = &m;
  }
  ASSERT_NE(l2, nullptr);
  ASSERT_NE(l3, nullptr);
  // b: 256 x 128 floats = 128 KiB (fits half of L2), read 96/3 = 32 times: 31 more.
  EXPECT_NEAR(rereads(256, 3), 31 * 131072 / (l2->bandwidth_gbps * 1e9), 1e-12);
  EXPECT_NEAR(rereads(256, 32), 2 * 131072 / (l2->bandwidth_gbps * 1e9), 1e-12);  // 3 blocks of 32 rows
  // b: 4096 x 128 floats = 2 MiB, more than half of L2: from L3.
  EXPECT_NEAR(rereads(4096, 3), 31 * 2097152 / (l3->bandwidth_gbps * 1e9), 1e-12);
  // Two shared operands (a row's scale and shift), 512 KiB each: half of L2 would hold either, not both.
  {
    ir::Program q = compile("def k(x: 'f32[M, N]', b: 'f32[N]', c: 'f32[N]'):\n    return x * b + c\n");
    tile::Plan plan = tile::plan_function(q.kernel, {{"M", 96}, {"N", 131072}});
    ASSERT_EQ(plan.stages.size(), 1u);
    tile::TileParams base = tile::choose_tiling(plan.stages[0], shape()).params;
    EXPECT_NEAR(row_group_reread_seconds(plan, plan.stages[0], with(base, 3, 2, 2), 1, 3, avx2()),
                31 * 2 * 524288 / (l3->bandwidth_gbps * 1e9), 1e-12);
  }
  // Outside a row group (no shared row loops) there is nothing to re-read.
  tile::Plan plan = tile::plan_function(p.kernel, {{"M", 96}, {"K", 256}, {"N", 128}});
  tile::TileParams base = tile::choose_tiling(plan.stages[0], shape()).params;
  EXPECT_EQ(row_group_reread_seconds(plan, plan.stages[0], with(base, 3, 2, 2), 0, 1, avx2()), 0);
}

TEST(Cost, ThreadsPayForLargeWorkNotForTiny) {
  ir::Program p = compile("def k(x: 'f32[M, N]'):\n    return x * 2.0\n");
  for (auto [m, n, parallel_wins] : {std::tuple<int64_t, int64_t, bool>{4, 8, false}, {4096, 4096, true}}) {
    tile::Plan plan = tile::plan_function(p.kernel, {{"M", m}, {"N", n}});
    tile::TileParams base = tile::choose_tiling(plan.stages[0], shape()).params;
    double one = estimate_stage(plan, plan.stages[0], with(base, 1, 4, 1), kSteps, avx2()).seconds;
    double two = estimate_stage(plan, plan.stages[0], with(base, 1, 4, 2), kSteps, avx2()).seconds;
    EXPECT_EQ(two < one, parallel_wins) << m << "x" << n << ": 1 thread " << one << " s, 2 threads " << two << " s";
  }
}

TEST(Cost, LargeElementwiseIsBoundByDram) {
  ir::Program p = compile("def k(x: 'f32[M, N]', y: 'f32[M, N]'):\n    return x + y\n");
  tile::Plan plan = tile::plan_function(p.kernel, {{"M", 4096}, {"N", 4096}});
  tile::TileParams base = tile::choose_tiling(plan.stages[0], shape()).params;
  StageEstimate e = estimate_stage(plan, plan.stages[0], with(base, 1, 4, 2), kSteps, avx2());
  EXPECT_EQ(e.bound, "memory: dram");
  // Two reads and a write-allocated write of 64 MiB each at the description's 50 GB/s.
  EXPECT_NEAR(e.memory_seconds, 4 * 64.0 * (1 << 20) / 50e9, 1e-4);
}

// A contraction that memory bounds (four rows against a wide matrix):
// register tiles estimate the same seconds, and the compute alone tells them
// apart, as the search's order of estimates does.
TEST(Cost, TilesThatMemoryBoundsTieAndTheirComputeDecides) {
  ir::Program p = compile("def k(a: 'f32[M, K]', b: 'f32[K, N]'):\n    return a @ b\n");
  tile::Plan plan = tile::plan_function(p.kernel, {{"M", 4}, {"K", 8192}, {"N", 8192}});
  tile::TileParams base = tile::choose_tiling(plan.stages[0], shape()).params;
  StageEstimate small = estimate_stage(plan, plan.stages[0], with(base, 2, 1, 2), kSteps, avx2());
  StageEstimate large = estimate_stage(plan, plan.stages[0], with(base, 4, 1, 2), kSteps, avx2());
  ASSERT_EQ(small.bound, "memory: dram");
  ASSERT_EQ(large.bound, "memory: dram");
  EXPECT_EQ(small.seconds, large.seconds);
  EXPECT_GT(small.compute_seconds, large.compute_seconds);
  search::Estimate a{small.seconds, true, 0, small.compute_seconds}, b{large.seconds, true, 0, large.compute_seconds};
  EXPECT_TRUE(search::ranks_before(b, a));
  EXPECT_FALSE(search::ranks_before(a, b));
  a.seconds = b.seconds * 0.9;  // fewer seconds come first whatever the compute
  EXPECT_TRUE(search::ranks_before(a, b));
}

TEST(Cost, UnfusedPlansMoveMoreBytes) {
  ir::Program p = compile("def k(x: 'f32[M, N]'):\n    return np.tanh(x * 2.0 + 1.0) * x\n");
  ir::Dims dims{{"M", 2048}, {"N", 2048}};
  tile::PlanOptions unfused;
  unfused.fuse_elementwise = false;
  auto total = [&](const tile::Plan& plan) {
    double s = 0;
    for (const tile::Stage& st : plan.stages)
      s += estimate_stage(plan, st, tile::choose_tiling(st, shape()).params, kSteps, avx2()).memory_seconds;
    return s;
  };
  EXPECT_LT(total(tile::plan_function(p.kernel, dims)), total(tile::plan_function(p.kernel, dims, unfused)) / 2);
}

}  // namespace
}  // namespace axon::tune
