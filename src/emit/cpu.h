// CPU emission: a plan as C++ with the vector intrinsics of a description.
//
// Every instruction in the output comes from a proved lowering (isa/synth):
// loads, stores, broadcasts, tail masks, the covered body of each stage, the
// accumulation step and horizontal reductions. The loop nest around them
// (the sketch: vector blocks, register tiles, tails, threads) is this file's.
//
// Three steps, each reading only what the one before decided:
//   schedule_cpu  the target's shape, a tiling per stage, the row groups;
//   select_cpu    every lowering each stage's loop nest will use, with its
//                 cost, synthesized and proved; nothing is printed;
//   print_cpu     the files, asking the selection for every instruction.
// emit_cpu runs the three. The search may rank schedules by the selection's
// step costs before printing any, and composes printed kernels from their
// parts (prelude once, bodies in namespaces, print_exports with suffixes).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fuse/rows.h"
#include "hw/description.h"
#include "isa/cover.h"
#include "isa/synth.h"
#include "tile/plan.h"
#include "tile/tiling.h"

namespace axon::emit {

// ---- 1. the schedule --------------------------------------------------------

/// How a loop nest folds its reduction. Only Plain is printed today.
enum class FoldKind {
  Plain,   // one accumulator per output element, combined by the stage's own op
  Online,  // state carried across blocks of the fold: a running max and a sum
           // rescaled whenever the max grows (online softmax)
};

/// The loop order of a contraction's nest. RegisterTiled and KBlocked are printed today.
enum class LoopOrder {
  RegisterTiled,       // MR x NV accumulators in registers, the fold innermost
  ReductionOutermost,  // the fold outermost, rows streamed inside (matrix-vector shapes)
  KBlocked,            // the fold split into blocks of k_block, each register-tiled, the block loop
                       // outside the tiles of each thread's share (tile::TileParams::k_block)
};

/// What one loop nest computes and how. schedule_cpu produces the defaults,
/// or KBlocked where the stage's tiling blocks its fold; select_cpu and
/// print_cpu refuse any other value (InternalError naming the field) rather
/// than print something else.
struct StageSchedule {
  tile::TileChoice tiling;
  std::vector<size_t> results;  // the stages this nest computes; today exactly {its own index}
  FoldKind fold = FoldKind::Plain;
  LoopOrder order = LoopOrder::RegisterTiled;
  int64_t k_block = 0;  // the fold's block size under KBlocked; 0 otherwise
};

struct CpuSchedule {
  tile::TargetShape shape;
  std::string memory;                      // the description's memory space the arrays live in
  std::string registers;                   // the space of its vector registers
  std::vector<StageSchedule> stages;       // one per plan stage, in order
  std::vector<fuse::RowGroup> row_groups;  // those that apply, in stage order, not overlapping
  bool fuse_rows = false;                  // whether row groups were asked for
};

/// Decides the schedule of `plan` (of `fn`) on the cpu description `target`:
/// the shape (the widest vector load that synthesizes, hence `synth`), each
/// stage's tiling (`policy`, or `fixed[i]` when given: one of
/// tile::tiling_options of that stage), and with `fuse_rows` the row groups
/// whose members keep their shared loops outer. Throws a UserError when the
/// target has no vector load.
CpuSchedule schedule_cpu(const tile::Plan& plan, const ir::Function& fn, const hw::Description& target,
                         isa::Synthesizer& synth, tile::TilingPolicy policy = tile::TilingPolicy::Search,
                         const std::vector<tile::TileParams>& fixed = {}, bool fuse_rows = false);

// ---- 2. instruction selection -----------------------------------------------

/// A stage's expression (its body, first element, epilogue, or the combine of
/// two accumulators) over vector leaves, covered by proved instructions.
struct CoveredTile {
  std::shared_ptr<ir::Graph> graph = std::make_shared<ir::Graph>();
  ir::NodeRef root = nullptr;
  std::vector<ir::NodeRef> leaves;  // vector leaf per access
  ir::NodeRef acc = nullptr;        // the accumulator leaf, if any
  isa::Cover cover;
};

struct StageSelection {
  /// Every data-movement hole the stage's nest uses ("load", "load_tail",
  /// "store", "splat", "sum", ...) -> its lowering; its cost is
  /// lowering->tree.cost (reciprocal throughputs from the description).
  /// nullptr: an optional hole looked for and not proved (the nest does without).
  std::map<std::string, const isa::Lowering*> holes;
  /// The covered expressions: "body", "first", "combine", "epilogue".
  std::map<std::string, CoveredTile> tiles;
  /// As StageReport::step_cost of the printed kernel, equal by construction.
  std::map<std::string, double> step_cost;
  std::vector<std::string> listing;  // as StageReport::listing
};

struct CpuSelection {
  std::vector<StageSelection> stages;  // one per plan stage
  /// Owns the lowerings the stages' holes point at (shared: copies stay valid).
  std::shared_ptr<const std::map<std::string, std::optional<isa::Lowering>>> lowerings;
};

/// Selects, without printing, every lowering print_cpu will use for
/// `schedule`. Which holes a stage needs is decided by the same walk of its
/// loop nest that prints it (cpu_walk.h), run here with a source that
/// synthesizes; so the two cannot disagree. Throws the UserErrors emission
/// would (a step the target cannot express).
CpuSelection select_cpu(const tile::Plan& plan, const ir::Function& fn, const CpuSchedule& schedule,
                        const hw::Description& target, isa::Synthesizer& synth);

// ---- 3. printing ------------------------------------------------------------

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
  int64_t row_block = 1;  // the group's rows of its innermost shared loop per iteration (fuse::RowGroup::block)
};

/// Every kernel library also exports these two:
///   extern "C" int axon_kernel_packed(const float* const* in, float* const* out);
///   extern "C" const char* axon_kernel_info();  // kernel.json's text
inline constexpr const char* kPackedSymbol = "axon_kernel_packed";
inline constexpr const char* kInfoSymbol = "axon_kernel_info";
/// The internal (not exported) function of a body that computes the kernel.
inline constexpr const char* kComputeFunction = "axon_kernel_compute";

/// A kernel's source in pieces that compose without searching text.
struct KernelParts {
  /// Includes and the description's helpers (the prelude file), WITHOUT
  /// #include "kernel.h": identical for every kernel of one description.
  std::string prelude;
  /// The kernel's own definitions, valid inside any named namespace: its
  /// scratch type and kComputeFunction (static, not extern "C").
  std::string body;
  std::vector<std::string> param_c_names;  // inputs then outputs, as in the entry's signature
  size_t inputs = 0;
  std::string banner;  // kernel.cpp's first comment lines: target and kernel
};

struct CpuKernel {
  std::string entry;      // the C symbol, kernel_symbol(fn.name)
  std::string header;     // kernel.h
  std::string source;     // kernel.cpp: comment, parts.prelude, #include "kernel.h", parts.body, print_exports(*this)
  std::string info_json;  // kernel.json, also what the library's axon_kernel_info returns
  std::vector<StageReport> stages;
  tile::TargetShape shape;
  KernelParts parts;
};

/// Prints `schedule` with the lowerings of `selection` (select_cpu of the same
/// schedule). A hole the nest needs that the selection lacks, or a schedule
/// value not implemented, is an InternalError. Throws a UserError when the
/// description's prelude cannot be read or uses a reserved name.
CpuKernel print_cpu(const tile::Plan& plan, const ir::Function& fn, const CpuSchedule& schedule,
                    const CpuSelection& selection, const hw::Description& target);

struct ExportNames {
  std::string ns;      // the namespace holding the body, "" for none
  std::string suffix;  // appended to each exported symbol
  /// Statements placed in the packed wrapper before / after it calls the
  /// kernel (the search's test-only fault hook); after_call may use rc, in, out.
  std::string before_call, after_call;
};

/// The extern "C" definitions: the entry (kernel_symbol), axon_kernel_packed
/// and axon_kernel_info, each + names.suffix, calling into names.ns. The packed
/// wrapper is `{ (void)in; BEFORE int rc = NS::compute(in[0].., out[0]..); AFTER
/// return rc; }`, or `{ (void)in; return NS::compute(..); }` when both hooks are empty.
std::string print_exports(const CpuKernel& kernel, const ExportNames& names = {});

/// kernel.cpp with these exports: the banner, the prelude, the body and
/// print_exports(kernel, names). CpuKernel::source is kernel_source(kernel).
std::string kernel_source(const CpuKernel& kernel, const ExportNames& names = {});

/// Emits `plan` (of function `fn`) as the C function kernel_symbol(fn.name)
/// for the cpu description `target`: schedule_cpu, select_cpu, print_cpu.
/// Throws a UserError at the kernel when the target cannot express some stage.
CpuKernel emit_cpu(const tile::Plan& plan, const ir::Function& fn, const hw::Description& target,
                   isa::Synthesizer& synth, tile::TilingPolicy tiling = tile::TilingPolicy::Search,
                   const std::vector<tile::TileParams>& fixed = {}, bool fuse_rows = false);

/// The text of the description's prelude file (its path relative to the
/// description's folder; "" when it names none). A prelude that cannot be
/// read, or that defines a name under a prefix reserved for kernels and
/// parameters, is a UserError.
std::string read_prelude(const hw::Description& target);

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
