#include "tune/cost.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

namespace axon::tune {
namespace {

double step(const std::map<std::string, double>& cost, const std::string& name, double otherwise) {
  auto it = cost.find(name);
  return it == cost.end() ? otherwise : it->second;
}

double clock_hz(const hw::Description& target) {
  double ghz = 0;
  for (const hw::Engine& e : target.engines) ghz = std::max(ghz, e.clock_ghz);
  return (ghz > 0 ? ghz : 1.0) * 1e9;
}

// The elements of `access` the stage's loops reach (at most the buffer).
double touched_elements(const tile::Plan& plan, const tile::Stage& s, const tile::Access& a) {
  double n = 1;
  for (size_t d = 0; d < s.extents.size(); ++d)
    if (a.strides[d] != 0) n *= static_cast<double>(s.extents[d]);
  return std::min(n, static_cast<double>(plan.buffers.at(static_cast<size_t>(a.buffer)).elements()));
}

// The smallest memory level (registers aside) that holds `bytes`, and its
// bandwidth in bytes per second for `threads` of the target's cores: one
// core is taken to draw half of what all of them draw together.
struct Level {
  std::string name;
  double bytes_per_second = 1;
};

Level level_holding(double bytes, int threads, const hw::Description& target) {
  const hw::Memory* best = nullptr;
  for (const hw::Memory& m : target.memories) {
    if (m.capacity_bytes < 4096 || m.bandwidth_gbps <= 0) continue;  // a register file
    if (static_cast<double>(m.capacity_bytes) < bytes) continue;
    if (!best || m.capacity_bytes < best->capacity_bytes) best = &m;
  }
  if (!best) best = &target.memories.at(0);
  double share = 0.5 + 0.5 * std::min(1.0, static_cast<double>(threads) / std::max(1, target.cores));
  return {best->name, std::max(best->bandwidth_gbps, 1e-3) * 1e9 * share};
}

}  // namespace

StageEstimate with_memory_seconds(StageEstimate e, double seconds) {
  e.memory_seconds += seconds;
  e.seconds = std::max(e.compute_seconds, e.memory_seconds) + e.overhead_seconds;
  return e;
}

double row_group_reread_seconds(const tile::Plan& plan, const tile::Stage& s, const tile::TileParams& p,
                                int row_loops, int64_t row_block, const hw::Description& target) {
  double share = 0, reread_bytes = 0;  // all such operands' shares of one iteration; their bytes read again
  std::set<int> seen;
  for (const tile::Access& a : s.leaves) {
    if (!seen.insert(a.buffer).second) continue;
    double traversals = 1, per_iteration = touched_elements(plan, s, a);
    for (int d = 0; d < row_loops && d < static_cast<int>(s.extents.size()); ++d) {
      double extent = static_cast<double>(s.extents[static_cast<size_t>(d)]);
      if (d == row_loops - 1) extent = std::ceil(extent / static_cast<double>(std::max<int64_t>(1, row_block)));
      if (a.strides[static_cast<size_t>(d)] == 0)
        traversals *= extent;
      else
        per_iteration /= extent;
    }
    if (traversals <= 1) continue;
    share += 4 * per_iteration;
    reread_bytes += (traversals - 1) * 4 * touched_elements(plan, s, a);
  }
  if (reread_bytes == 0) return 0;
  // They are in the cache together (a head's keys and values), beside the rows.
  return reread_bytes / level_holding(2 * share, std::max(1, p.threads), target).bytes_per_second;
}

StageEstimate estimate_stage(const tile::Plan& plan, const tile::Stage& s, const tile::TileParams& p,
                             const std::map<std::string, double>& step_cost, const hw::Description& target,
                             const std::map<int, double>& resident) {
  double points = 1, kept = 1, folded = 1;
  for (size_t d = 0; d < s.extents.size(); ++d) {
    points *= static_cast<double>(s.extents[d]);
    (s.reduced[d] ? folded : kept) *= static_cast<double>(s.extents[d]);
  }
  double vectors = points;
  if (p.vec_dim >= 0) {
    double along = static_cast<double>(s.extents[static_cast<size_t>(p.vec_dim)]);
    vectors = points / along * std::ceil(along / p.lanes);
  }
  double mr = p.mr, nv = p.nv;
  auto along_rows_fixed = [&](const tile::Access& a) {
    return p.rows_dim >= 0 && a.strides[static_cast<size_t>(p.rows_dim)] == 0;
  };

  // Core cycles: the body's steps per vector; operands a register tile shares
  // are loaded once for its rows (MR) or its vectors (NV).
  double compute = vectors * step(step_cost, "compute", 0);
  double latency = step(step_cost, "compute_latency", 0);
  bool accumulates = s.combine != tile::Combine::None && s.combine != tile::Combine::Scan;
  if (accumulates && latency > 0)  // a chain per accumulator: MR x NV of them hide the latency
    compute = std::max(compute, vectors * latency / (mr * nv));
  double loads = 0;
  for (const tile::Access& a : s.leaves) {
    switch (tile::lane_access(a, p.vec_dim)) {
      case tile::LaneAccess::Contiguous:
        loads += vectors * step(step_cost, "load", 1) / (along_rows_fixed(a) ? mr : 1);
        break;
      case tile::LaneAccess::Broadcast:
        loads += vectors * step(step_cost, "load_bcast", 1) / nv / (along_rows_fixed(a) ? mr : 1);
        break;
      case tile::LaneAccess::Strided:
        if (p.transpose && p.rows_dim >= 0 && a.strides[static_cast<size_t>(p.rows_dim)] == 1 &&
            step_cost.count("transpose"))  // W loads down the rows, one transpose of W vectors
          loads += vectors * (step(step_cost, "load", 1) + step(step_cost, "transpose", 0) / p.lanes);
        else
          loads += vectors * step(step_cost, "load_strided", 8);
        break;
    }
  }
  double stores = vectors / folded * (step(step_cost, "store", 1) + step(step_cost, "epilogue", 0));
  if (p.k_block > 0)  // each block of the fold but the first reloads the partial sums, each but the last stores them
    stores +=
        vectors / folded * std::ceil(folded / p.k_block) * (step(step_cost, "store", 1) + step(step_cost, "load", 1));
  for (size_t i = 0; i < s.epilogue_leaves.size(); ++i)  // a fused consumer's operands, once per stored vector
    if (static_cast<int>(i) != s.epilogue_result) stores += vectors / folded * step(step_cost, "load", 1);
  double tiles = std::max(1.0, kept / (mr * nv * p.lanes));
  double threads = std::min(static_cast<double>(std::max(1, p.threads)), tiles);
  StageEstimate e;
  e.compute_seconds = (std::max(compute, loads) + stores) / clock_hz(target) / threads;

  // Memory: each buffer once, from the level that holds it.
  std::map<int, double> reads;
  for (const tile::Access& a : s.leaves) reads[a.buffer] = std::max(reads[a.buffer], touched_elements(plan, s, a));
  for (size_t i = 0; i < s.epilogue_leaves.size(); ++i) {
    const tile::Access& a = s.epilogue_leaves[i];
    if (static_cast<int>(i) != s.epilogue_result)
      reads[a.buffer] = std::max(reads[a.buffer], touched_elements(plan, s, a));
  }
  std::string slowest;
  double slowest_seconds = -1;
  auto move = [&](int buffer, double elements, double times) {
    double bytes = 4 * static_cast<double>(plan.buffers.at(static_cast<size_t>(buffer)).elements());
    auto row = resident.find(buffer);
    Level level = level_holding(row != resident.end() ? row->second : bytes, static_cast<int>(threads), target);
    if (level.name == target.memories.at(0).name)
      bytes = 4 * elements * times;
    else
      bytes = 4 * elements;
    double seconds = bytes / level.bytes_per_second;
    e.memory_seconds += seconds;
    if (seconds > slowest_seconds) slowest_seconds = seconds, slowest = level.name;
  };
  // An operand read down a wide matrix, a page or more per fold step, from
  // memory where a few tiles cover every row (a matrix-vector shape, which
  // blocks of the fold could read a few rows at a time, side by side): the
  // prefetchers do not follow it: modeled as an eighth of the bandwidth
  // (measured on a 2-core Xeon with 58 GB/s streaming copies: at M=8
  // gated_mlp's two 64 MiB weights streamed at 8-9 GB/s, at M=16
  // rmsnorm_matmul's 96 MiB at 4-5 GB/s).
  std::set<int> hops;
  if (p.k_block == 0 && !tile::fold_blocks(s, p).empty())
    for (const tile::Access& a : s.leaves)
      if (tile::read_down_wide_matrix(s, a, p)) hops.insert(a.buffer);
  for (const auto& [buffer, elements] : reads) move(buffer, elements, hops.count(buffer) ? 8 : 1);
  if (p.stream && !resident.count(s.out.buffer)) {
    // Streaming stores write whole lines to memory without reading them first.
    double seconds = 4 * touched_elements(plan, s, s.out) / level_holding(std::numeric_limits<double>::infinity(), static_cast<int>(threads), target).bytes_per_second;
    e.memory_seconds += seconds;
    if (seconds > slowest_seconds) slowest_seconds = seconds, slowest = target.memories.at(0).name;
  } else {
    move(s.out.buffer, touched_elements(plan, s, s.out), 2);  // written lines are read first
  }
  e.overhead_seconds = p.threads > 1 ? 3e-6 : 0;            // waking the other threads and joining them
  e = with_memory_seconds(e, 0);
  e.bound = e.compute_seconds >= e.memory_seconds ? "compute" : "memory: " + slowest;
  return e;
}

}  // namespace axon::tune
