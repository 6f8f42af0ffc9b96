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

/// Every kernel library also exports these two:
///   extern "C" int axon_kernel_packed(const float* const* in, float* const* out);
///   extern "C" const char* axon_kernel_info();  // kernel.json's text
inline constexpr const char* kPackedSymbol = "axon_kernel_packed";
inline constexpr const char* kInfoSymbol = "axon_kernel_info";

struct CpuKernel {
  std::string entry;      // the C symbol, kernel_symbol(fn.name)
  std::string header;     // kernel.h
  std::string source;     // kernel.cpp
  std::string info_json;  // kernel.json, also what the library's axon_kernel_info returns
  std::vector<StageReport> stages;
  tile::TargetShape shape;
};

/// Emits `plan` (of function `fn`) as the C function kernel_symbol(fn.name)
/// for the cpu description `target`. Throws a
/// UserError at the kernel when the target cannot express some stage. Each
/// stage gets the tiling `policy` chooses, or `fixed[i]` when given (one of
/// tile::tiling_options of that stage). With `fuse_rows`, consecutive stages
/// that fuse::row_groups allows run inside one loop over their shared rows.
CpuKernel emit_cpu(const tile::Plan& plan, const ir::Function& fn, const hw::Description& target,
                   isa::Synthesizer& synth, tile::TilingPolicy tiling = tile::TilingPolicy::Search,
                   const std::vector<tile::TileParams>& fixed = {}, bool fuse_rows = false);

/// The C names of a user's identifiers, which live in a space of their own so
/// that a kernel may be called `memcpy` and a parameter `NULL` or `int`:
/// "axon_k_NAME" (kernels) and "axon_p_NAME" (parameters) when NAME is an
/// ASCII identifier; otherwise "axon_ku" or "axon_pu" followed by NAME with
/// every byte outside [A-Za-z0-9] written as '_' and two lowercase hex digits
/// ("xä" -> "axon_pux_c3_a4"). Injective: distinct names never share a C name,
/// and no other emitted name (axon_kernel_*, axon_in0, helpers) starts so.
std::string kernel_symbol(const std::string& kernel_name);
std::string parameter_name(const std::string& parameter);

}  // namespace axon::emit
