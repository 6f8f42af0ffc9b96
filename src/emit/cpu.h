// CPU emission: a plan as C++ with the vector intrinsics of a description.
//
// Every instruction in the output comes from a proved lowering (isa/synth):
// loads, stores, broadcasts, tail masks, the covered body of each stage, the
// accumulation step and horizontal reductions. The loop nest around them
// (the sketch: vector blocks, register tiles, tails, threads) is this file's.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "hw/description.h"
#include "isa/synth.h"
#include "tile/plan.h"
#include "tile/tiling.h"

namespace axon::emit {

struct StageReport {
  std::string what;
  tile::TileChoice tiling;
  std::vector<std::string> listing;  // the instruction-level form, one line per hole
  /// Per step ("compute", "epilogue", "load", "load_bcast", "store", ...): the
  /// reciprocal throughputs of its lowering, in cycles per vector; and
  /// "compute_latency", the latency of the compute step's root instruction.
  std::map<std::string, double> step_cost;
  int row_group = -1;  // the first stage of the row group it runs in (fuse/rows), or -1
  int row_loops = 0;   // the group's shared leading loops
};

struct CpuKernel {
  std::string entry;   // the C symbol
  std::string header;  // kernel.h
  std::string source;  // kernel.cpp
  std::vector<StageReport> stages;
  tile::TargetShape shape;
};

/// Emits `plan` (of function `fn`) for the cpu description `target`. Throws a
/// UserError at the kernel when the target cannot express some stage. Each
/// stage gets the tiling `policy` chooses, or `fixed[i]` when given (one of
/// tile::tiling_options of that stage). With `fuse_rows`, consecutive stages
/// that fuse::row_groups allows run inside one loop over their shared rows.
CpuKernel emit_cpu(const tile::Plan& plan, const ir::Function& fn, const hw::Description& target,
                   isa::Synthesizer& synth, const std::string& entry,
                   tile::TilingPolicy tiling = tile::TilingPolicy::Search,
                   const std::vector<tile::TileParams>& fixed = {}, bool fuse_rows = false);

/// `name` as a C identifier: letters, digits and '_' kept, others '_', a
/// leading digit prefixed; never a C or C++ keyword.
std::string c_identifier(const std::string& name);

}  // namespace axon::emit
