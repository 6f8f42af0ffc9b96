// Node fusion, as the planner decided it: which ops share one loop nest, and
// what staying in registers saves against the plan without element-wise
// fusion (every op its own loop nest and buffer).
//
// The planner (tile/plan) fuses element-wise chains into one body, element-
// wise prologues into the reductions, scans and copies that read them, and
// views (transposes, broadcasts, slices) into affine accesses. This module
// states the result for reports: each loop nest of the chosen kernel as one
// NumPy-like statement over its buffers.
#pragma once

#include <string>
#include <vector>

#include "fuse/rows.h"
#include "ir/program.h"
#include "tile/plan.h"

namespace axon::fuse {

struct FusedNest {
  std::string loops;      // "i=64, j=128, k=256 (k summed)"
  std::string statement;  // "t2[i, j] += x[i, k] * w[k, j]"
  int ops = 0;            // arithmetic ops computed in this nest per point (combining included)
};

struct FusionSummary {
  std::vector<FusedNest> nests;
  size_t nests_unfused = 0;   // loop nests without element-wise fusion
  int64_t scratch_bytes = 0;  // intermediates written to memory
  int64_t scratch_bytes_unfused = 0;
  int fused_nests = 0;  // nests that compute more than one op
  int epilogues = 0;    // folds with a fused element-wise consumer
  std::vector<RowGroup> rows;  // nests that run inside one loop over their shared rows
};

/// `fused` and `unfused` are plans of the same function `fn` at the same
/// sizes; `rows`, the row groups the emitter formed in `fused`.
FusionSummary summarize_fusion(const ir::Function& fn, const tile::Plan& fused, const tile::Plan& unfused,
                               const std::vector<RowGroup>& rows = {});

/// The summary as Markdown: a sentence, then one line per loop nest.
std::string fusion_markdown(const FusionSummary& summary);

}  // namespace axon::fuse
