// Planning and tiling: which values get buffers, how views become strides,
// and the default register tile under the description's constraints.
#include "tile/plan.h"

#include <gtest/gtest.h>

#include <memory>

#include "lang/load.h"
#include "tile/tiling.h"

namespace axon::tile {
namespace {

ir::Program compile(const std::string& text) {
  auto file = std::make_shared<SourceFile>();
  file->path = "plan_test.py";
  file->text = "import numpy as np\n" + text;
  return lang::compile_source(file);
}

// 8 lanes, 16 vector registers, 2 cores: x86-avx2.json's shape.
TargetShape avx2_shape() {
  TargetShape t;
  t.lanes = 8;
  t.registers = 16;
  t.cores = 2;
  return t;
}

TEST(Plan, FusesElementwiseOpsIntoTheirReader) {
  ir::Program p = compile(
      "def k(x: 'f32[M, N]', g: 'f32[N]'):\n"
      "    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + 1e-6) * g\n");
  Plan plan = plan_function(p.kernel, {{"M", 3}, {"N", 5}});
  ASSERT_EQ(plan.stages.size(), 2u);  // the sum (with x * x inside), then everything else
  EXPECT_EQ(plan.stages[0].combine, Combine::Sum);
  EXPECT_EQ(plan.stages[0].extents, (std::vector<int64_t>{3, 5}));
  EXPECT_EQ(plan.stages[0].reduced, (std::vector<bool>{false, true}));
  EXPECT_EQ(plan.stages[0].out.strides, (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(plan.stages[1].combine, Combine::None);
  EXPECT_EQ(plan.buffers[static_cast<size_t>(plan.stages[1].out.buffer)].kind, Buffer::Kind::Output);
  // g is read with stride 0 along the rows.
  bool broadcast_g = false;
  for (const Access& a : plan.stages[1].leaves)
    broadcast_g |= a.buffer == plan.inputs[1] && a.strides == std::vector<int64_t>{0, 1};
  EXPECT_TRUE(broadcast_g);
}

TEST(Plan, ViewsBecomeStridesAndOffsets) {
  ir::Program p = compile("def k(x: 'f32[4, 6]'):\n    return x.T[1:, ::2] + 1.0\n");
  Plan plan = plan_function(p.kernel, {});
  ASSERT_EQ(plan.stages.size(), 1u);
  ASSERT_EQ(plan.stages[0].leaves.size(), 1u);
  const Access& a = plan.stages[0].leaves[0];
  // y[i, j] = x.T[1 + i, 2 j] = x[2 j, 1 + i]: offset 1, strides (1, 12).
  EXPECT_EQ(a.offset, 1);
  EXPECT_EQ(a.strides, (std::vector<int64_t>{1, 12}));
  EXPECT_EQ(plan.stages[0].extents, (std::vector<int64_t>{5, 2}));
}

// A result that is a reshape of an intermediate is written in place: the
// intermediate's stages store into the result's buffer (same flat order),
// with no scratch buffer and no copy. A reshape of an intermediate that
// another stage also reads stays a copy.
TEST(Plan, ReshapedResultsAreWrittenInPlace) {
  ir::Program flat = compile(
      "def k(x: 'f32[B, N]', w: 'f32[N, N]'):\n"
      "    return (np.exp(x @ w) + 1.0).reshape(-1)\n");
  Plan plan = plan_function(flat.kernel, {{"B", 3}, {"N", 7}});
  EXPECT_EQ(plan.buffers.size(), 4u);  // x, w, the product and the result
  ASSERT_EQ(plan.stages.size(), 2u);   // the product, then exp(.) + 1 stored as the result
  EXPECT_EQ(plan.stages[1].out.buffer, plan.outputs.at(0));
  EXPECT_EQ(plan.stages[1].out.strides, (std::vector<int64_t>{7, 1}));
  EXPECT_EQ(plan.buffers[static_cast<size_t>(plan.outputs.at(0))].shape, (std::vector<int64_t>{21}));

  ir::Program shared = compile(
      "def k(x: 'f32[B, N]', w: 'f32[N, N]'):\n"
      "    y = x @ w\n"
      "    return y.reshape(-1), np.sum(y, axis=0)\n");
  Plan both = plan_function(shared.kernel, {{"B", 3}, {"N", 7}});
  bool copied = false;
  for (const Stage& s : both.stages) copied |= s.what == "copy";
  EXPECT_TRUE(copied);
}

// The naive proxy's plan: a transpose is a stage of its own (a copy with
// transposed reads) whose buffer the contraction reads, where the default
// plan reads the input transposed in place.
TEST(Plan, TransposesAsStagesMaterializeTheTranspose) {
  ir::Program p = compile(
      "def k(a: 'f32[K, M]', b: 'f32[K, N]'):\n"
      "    return a.T @ b\n");
  ir::Dims dims{{"K", 4}, {"M", 3}, {"N", 5}};
  Plan in_place = plan_function(p.kernel, dims);
  EXPECT_EQ(in_place.stages.size(), 1u);
  PlanOptions naive;
  naive.fuse_elementwise = false;
  naive.transposes_as_stages = true;
  Plan staged = plan_function(p.kernel, dims, naive);
  ASSERT_EQ(staged.stages.size(), 2u);
  EXPECT_EQ(staged.stages[0].what, "transpose");
  EXPECT_EQ(staged.buffers[static_cast<size_t>(staged.stages[0].out.buffer)].shape, (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(staged.stages[1].leaves.at(0).buffer, staged.stages[0].out.buffer);
}

TEST(Plan, ContractionLoopsOverOutputThenSummedLetters) {
  ir::Program p = compile("def k(a: 'f32[M, K]', b: 'f32[K, N]'):\n    return a @ b\n");
  Plan plan = plan_function(p.kernel, {{"M", 2}, {"K", 3}, {"N", 4}});
  ASSERT_EQ(plan.stages.size(), 1u);
  const Stage& s = plan.stages[0];
  EXPECT_EQ(s.extents, (std::vector<int64_t>{2, 4, 3}));
  EXPECT_EQ(s.reduced, (std::vector<bool>{false, false, true}));
  ASSERT_EQ(s.leaves.size(), 2u);
  EXPECT_EQ(s.leaves[0].strides, (std::vector<int64_t>{3, 0, 1}));
  EXPECT_EQ(s.leaves[1].strides, (std::vector<int64_t>{0, 1, 4}));
}

TEST(Plan, ConstantArithmeticIsFolded) {
  ir::Program p = compile("def k(x: 'f32[M]'):\n    return x * (x.shape[0] / 2.0 + 1.0)\n");
  Plan plan = plan_function(p.kernel, {{"M", 6}});
  ASSERT_EQ(plan.stages.size(), 1u);
  ir::NodeRef body = plan.stages[0].body;
  ASSERT_EQ(body->op(), ir::Op::Mul);
  EXPECT_EQ(body->input(1)->op(), ir::Op::Const);
  EXPECT_EQ(body->input(1)->attrs().value, 4.0);
}

TEST(Tiling, MatmulGetsARegisterTileWithinTheConstraints) {
  ir::Program p = compile("def k(a: 'f32[M, K]', b: 'f32[K, N]'):\n    return a @ b\n");
  Plan plan = plan_function(p.kernel, {{"M", 64}, {"K", 64}, {"N", 64}});
  TargetShape avx2 = avx2_shape();
  TileChoice c = choose_tiling(plan.stages[0], avx2);
  EXPECT_EQ(c.params.vec_dim, 1);   // n: contiguous in b and in the result
  EXPECT_EQ(c.params.rows_dim, 0);  // m: b does not move along it (reuse)
  EXPECT_GE(c.params.mr * c.params.nv, 8);
  EXPECT_LE(c.params.mr * c.params.nv + c.params.nv + 1, 16);
  EXPECT_GT(c.valid, 0);
  EXPECT_LT(c.valid, c.enumerated);  // some assignments break a constraint
}

TEST(Tiling, InnermostReductionVectorizesTheReducedLoop) {
  ir::Program p = compile("def k(x: 'f32[M, N]'):\n    return np.max(x, axis=1)\n");
  Plan plan = plan_function(p.kernel, {{"M", 9}, {"N", 100}});
  TargetShape t;
  t.lanes = 8;
  TileChoice c = choose_tiling(plan.stages[0], t);
  EXPECT_EQ(c.params.vec_dim, 1);
  EXPECT_EQ(c.params.rows_dim, -1);
}

TEST(Tiling, OptionsAreEveryValidTileWithOneThreadAndAll) {
  ir::Program p = compile("def k(a: 'f32[M, K]', b: 'f32[K, N]'):\n    return a @ b\n");
  Plan plan = plan_function(p.kernel, {{"M", 64}, {"K", 64}, {"N", 64}});
  TargetShape avx2 = avx2_shape();
  TileChoice heuristic = choose_tiling(plan.stages[0], avx2);
  std::vector<TileParams> options = tiling_options(plan.stages[0], avx2);
  EXPECT_EQ(options.size(), 2u * static_cast<size_t>(heuristic.valid));  // each tile, 1 thread and 2
  bool has_heuristic = false;
  for (const TileParams& o : options) {
    EXPECT_EQ(o.vec_dim, heuristic.params.vec_dim);
    EXPECT_EQ(o.rows_dim, heuristic.params.rows_dim);
    EXPECT_LE(o.mr * o.nv + o.nv + 1, 16) << o.mr << "x" << o.nv;
    EXPECT_TRUE(o.threads == 1 || o.threads == 2);
    has_heuristic |=
        o.mr == heuristic.params.mr && o.nv == heuristic.params.nv && o.threads == heuristic.params.threads;
  }
  EXPECT_TRUE(has_heuristic);
}

TEST(Tiling, ElementwiseOptionsHaveNoRows) {
  ir::Program p = compile("def k(x: 'f32[M, N]'):\n    return x * 2.0\n");
  Plan plan = plan_function(p.kernel, {{"M", 9}, {"N", 100}});
  TargetShape t;
  t.lanes = 8;
  t.cores = 2;
  std::vector<TileParams> options = tiling_options(plan.stages[0], t);
  ASSERT_FALSE(options.empty());
  for (const TileParams& o : options) EXPECT_EQ(o.mr, 1);
}

// Streaming stores are offered where the loop nest's working set (its output
// and every buffer it reads, each once) exceeds the last-level cache: an
// output that alone fits may still be evicted before its reader comes.
TEST(Tiling, StreamingWhereTheWorkingSetExceedsTheLastCache) {
  // 64 x 1024 floats: x and the result 256 KiB each, y (read twice) 256 KiB, b 4 KiB.
  ir::Program p = compile("def k(x: 'f32[M, N]', y: 'f32[M, N]', b: 'f32[N]'):\n    return x * y + y * b\n");
  Plan plan = plan_function(p.kernel, {{"M", 64}, {"N", 1024}});
  ASSERT_EQ(plan.stages.size(), 1u);
  TargetShape t = avx2_shape();
  t.streaming_stores = true;
  auto streams = [&](int64_t cache) {
    t.last_cache_bytes = cache;
    bool any = false;
    for (const TileParams& o : tiling_options(plan.stages[0], t)) {
      EXPECT_EQ(o.stream, may_stream(plan.stages[0], o, t) && o.stream);
      any |= o.stream;
    }
    return any;
  };
  const int64_t kib = 1024;
  EXPECT_TRUE(streams(512 * kib));           // the output fits; with x and y it does not
  EXPECT_TRUE(streams(3 * 256 * kib + 3 * kib));
  EXPECT_FALSE(streams(3 * 256 * kib + 4 * kib));  // exactly the working set: it fits
  EXPECT_FALSE(streams(8 << 20));
}

}  // namespace
}  // namespace axon::tile
