// Symbolic tiling of one stage for a vector target.
//
// Three levels: the instruction tile (W lanes along the vector loop), the
// register tile (MR rows x NV vectors of accumulators, the on-chip tile
// group) and the blocks in main memory (the outer loops, split over the
// cores). The parameters are symbolic sizes; the constraints are size
// expressions over them bounded by the description's capacities. Every
// assignment of a small candidate set is checked and the best valid one is
// the default tiling.
#pragma once

#include <string>
#include <vector>

#include "ir/size.h"
#include "tile/plan.h"

namespace axon::tile {

/// What tiling needs to know about a target.
struct TargetShape {
  int lanes = 1;                // W: f32 lanes of a vector register
  int registers = 16;           // vector registers
  int64_t l1_bytes = 32 << 10;  // innermost cache
  int64_t l2_bytes = 1 << 20;
  int cores = 1;
  bool has_tail = true;  // masked loads and stores exist
  bool streaming_stores = false;  // a vector store that bypasses the caches exists (hw::Instruction::nontemporal)
  int64_t last_cache_bytes = 0;   // the largest cache between memory and the registers
  bool transposes = false;        // a proved W x W transpose of vector registers exists
};

struct TileParams {
  int vec_dim = -1;    // the loop vectorized by W lanes
  int rows_dim = -1;   // the loop blocked by MR (register reuse), or -1
  int lanes = 1;       // W
  int mr = 1, nv = 1;  // register tile
  int threads = 1;     // over the outer blocks
  // The fold split into blocks of this many steps, the block loop outside
  // the register tiles within each thread's share of them, partial sums kept
  // in the output (0: the whole fold inside each tile). For matrix-vector
  // shapes: the tiles of one block read a few rows of the wide operand side
  // by side instead of walking down its columns a page per step.
  int k_block = 0;
  // A scan along the vector loop runs a vector at a time (prefix sums of the
  // lanes plus the carried total) where the target can, else, or when false,
  // one lane at a time in the reference's order.
  bool vector_scan = true;
  // Full vectors of the output are stored with the target's streaming store,
  // which bypasses the caches: a line written whole is then not read from
  // memory first. Offered where the stage's working set exceeds the
  // last-level cache (tile::may_stream); a store to an address the instruction cannot take
  // falls back to an ordinary one (the description's helper decides).
  bool stream = false;
  // A gathered leaf (strided along the vector loop) that is contiguous along
  // the rows loop is read as W contiguous vectors down the rows and
  // transposed in registers (the target's W x W transpose) instead of
  // gathered lane by lane: MR = W rows, NV = 1. Partial tiles still gather.
  bool transpose = false;

  bool operator==(const TileParams&) const = default;
};

struct TileConstraint {
  std::string what;  // "accumulators fit in registers"
  ir::Size lhs;      // over MR, NV, W and the stage's extents
  int64_t bound;     // lhs <= bound
};

struct TileChoice {
  TileParams params;
  std::vector<TileConstraint> constraints;
  int valid = 0, enumerated = 0;  // assignments
};

/// Search keeps the valid register tile with the most accumulators; Default
/// (an ablation: no tiling search) keeps MR = NV = 1, one vector at a time.
enum class TilingPolicy { Search, Default };

TileChoice choose_tiling(const Stage& stage, const TargetShape& target, TilingPolicy policy = TilingPolicy::Search);

/// The tuning space of one stage: every register tile that satisfies the
/// constraints of choose_tiling (same vector and row loops), each with one
/// thread and with every core. The first entries are not ranked; the cost
/// model ranks them.
std::vector<TileParams> tiling_options(const Stage& stage, const TargetShape& target);

/// The fold blocks tiling_options offers for `stage` (empty where blocking
/// does not apply): a sum over one loop, register-blocked rows that at most
/// four tiles cover, and an operand read down a wide matrix (a page or more
/// per fold step), which the output (kept partial sums) does not alias.
std::vector<int> fold_blocks(const Stage& stage, const TileParams& params);

/// Whether leaf `a` of a stage is read down a wide matrix: contiguous along
/// the vector loop, a page or more (1024 floats) apart along a fold loop.
bool read_down_wide_matrix(const Stage& stage, const Access& a, const TileParams& params);

/// Whether tiling_options offers streaming stores for `stage` under `params`:
/// the target has them, the output is written whole vectors at a time along
/// the vector loop, is not a fold's kept partial sums, and the stage's
/// working set (its output and every buffer it reads, each once) exceeds the
/// last-level cache, so that the output's first lines would be gone from it
/// by the end (an output whose working set fits is better left in the cache
/// for its reader).
bool may_stream(const Stage& stage, const TileParams& params, const TargetShape& target);

/// How a leaf or the output moves along the vector loop.
enum class LaneAccess { Broadcast, Contiguous, Strided };
LaneAccess lane_access(const Access& access, int vec_dim);

}  // namespace axon::tile
