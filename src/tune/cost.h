// The analytic cost model: estimated seconds of a planned, tiled kernel,
// from the hardware description alone (instruction throughputs, clock,
// cores, memory capacities and bandwidths). It ranks candidates so that only
// the promising ones are compiled and measured; measurement decides.
//
// Per stage: compute = vector points x the cycles of the step lowerings
// (operands loaded once per register tile are shared by its rows or
// vectors), over the threads that have outer work; memory = every buffer the
// stage touches, once, at the bandwidth of the smallest memory level that
// holds it (outputs written to DRAM count twice: a write allocates the line);
// the stage takes the longer of the two (the engines overlap), plus a
// fork-join cost per parallel region.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "hw/description.h"
#include "tile/plan.h"
#include "tile/tiling.h"

namespace axon::tune {

struct StageEstimate {
  double compute_seconds = 0, memory_seconds = 0, overhead_seconds = 0;
  double seconds = 0;
  std::string bound;  // "compute" or "memory: dram" (the level that bounds it)
};

/// One stage of `plan` under `params`; `step_cost` is emit::StageReport's
/// cycles per vector of each step ("compute", "load", "load_bcast", ...).
/// `resident`: buffers already in the cache when the stage runs (a row group:
/// an earlier member touched the same rows), with the bytes of one row; they
/// move at the bandwidth of the level that holds a row.
StageEstimate estimate_stage(const tile::Plan& plan, const tile::Stage& stage, const tile::TileParams& params,
                             const std::map<std::string, double>& step_cost, const hw::Description& target,
                             const std::map<int, double>& resident = {});

/// `e` with `seconds` more memory traffic (its time recomputed as estimate_stage's).
StageEstimate with_memory_seconds(StageEstimate e, double seconds);

/// A row group runs its shared row loops outermost, so an operand of a member
/// that does not move along some of them (a contraction's weights) is read
/// whole again by each of their iterations after the first: the seconds of
/// those re-reads, from the level that holds one iteration's share of all
/// such operands together with as much again beside them (the rows and
/// results they share the cache with; the tiler's panels take half a cache
/// the same way).
/// `row_loops` and `row_block` as emit::StageReport's.
double row_group_reread_seconds(const tile::Plan& plan, const tile::Stage& stage, const tile::TileParams& params,
                                int row_loops, int64_t row_block, const hw::Description& target);

}  // namespace axon::tune
