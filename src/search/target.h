// The target seam. A target is its description (hw/<name>.json) plus four
// parts: a tile space with its cost model and a printer (kernels()), a
// toolchain (compile, compile_alone) and a runner (run). The search knows
// only this interface: a new target implements it in src/targets/ and
// registers itself there (targets/register.cpp), editing nothing here.
#pragma once

#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "fuse/rows.h"
#include "hw/description.h"
#include "ir/graph.h"
#include "isa/synth.h"
#include "tile/plan.h"
#include "tune/runner.h"

namespace axon::search {

/// The cost model's view of one kernel.
struct Estimate {
  double seconds = 0;
  bool memory_bound = false;    // memory bounds it more than compute: timed from cold caches
  int64_t footprint_bytes = 0;  // its inputs and outputs
  /// The compute alone (0 where the target does not say): where memory bounds
  /// the stages, kernels that differ only in their register tiles estimate the
  /// same seconds, and the one that computes faster ranks first.
  double compute_seconds = 0;
};

/// The search's order of estimates: fewer seconds first, in steps of 2%
/// (the model's resolution: a tiny stage run on one thread saves microseconds
/// of fork and join); within one step, less compute first.
inline bool ranks_before(const Estimate& a, const Estimate& b) {
  auto step = [](double seconds) {
    return seconds > 0 ? std::floor(std::log(seconds) / std::log(1.02)) : -std::numeric_limits<double>::infinity();
  };
  double sa = step(a.seconds), sb = step(b.seconds);
  if (sa != sb) return sa < sb;
  return a.compute_seconds < b.compute_seconds;
}

/// One kernel a target printed for one point of the space: what the search
/// ranks, compiles, measures and writes. Immutable once made.
class TargetKernel {
 public:
  virtual ~TargetKernel() = default;
  /// A digest of everything that makes it (source, flags): equal kernels are one.
  virtual std::string identity() const = 0;
  /// The tiling of each stage in a few characters ("4x3@2 1x2@1"), for tables.
  virtual std::string tilings() const = 0;
  /// The instruction-level form, stage by stage, as Markdown.
  virtual std::string stages_markdown() const = 0;
  /// The row groups it runs (fuse/rows.h), for the fused form in the reports.
  virtual std::vector<fuse::RowGroup> row_groups() const = 0;
  /// The main source, as the output folder holds it (kernel.cpp, kernel.py).
  virtual const std::string& source() const = 0;
  /// The kernel's own code for people, without the shared helpers of its
  /// description (the reports show it).
  virtual std::string code() const = 0;
  /// The output folder's files that the printer wrote: name -> bytes.
  virtual std::map<std::string, std::string> files() const = 0;
  virtual Estimate estimate() const = 0;
};

using KernelPtr = std::shared_ptr<const TargetKernel>;

/// How the space asks for the kernels of one plan.
struct PointRequest {
  bool fuse_rows = false;       // row groups (fuse/rows.h) where the tilings allow
  bool tiling_space = true;     // false: the heuristic tiling only
  bool default_tiling = false;  // the ablation: no register-tile search at all
  bool algebra = true;          // false (the ablation): no operator propagation on the lowered steps either
};

/// A compiled kernel: the file the runner loads and the symbol it calls.
struct Artifact {
  std::string path, symbol;
};

struct Built {
  bool ok = false;
  Artifact artifact;
  std::string log;  // the toolchain's messages when !ok
};

/// What one run gets: the inputs, the output sizes, limits, and whether to time.
struct RunSpec {
  const std::vector<std::vector<float>>* inputs = nullptr;
  std::vector<size_t> output_sizes;
  double timeout_s = 120;
  size_t memory_limit_bytes = 0;
  double cpu_limit_s = 0;
  bool timed = true;  // false: the first call only (a check)
  bool profile = false;  // with timed: say where the time went (RunResult's profile), if the target can
  /// No values: the kernel runs on no inputs and returns no outputs, only its
  /// time (a target that times_dry(); with timed).
  bool dry = false;
};

/// A kernel the search times beside its choice, on the same program, sizes,
/// inputs and timing, so that the reports can say what the search gained.
struct Baseline {
  std::string name;   // the key in search.json ("naive")
  std::string label;  // what it is, for the reports
  KernelPtr kernel;     // null when the target cannot make it here
  std::string why_not;  // then why
};

class Target {
 public:
  virtual ~Target() = default;
  virtual const hw::Description& description() const = 0;
  /// Empty when this machine can run the target's kernels, else why not.
  virtual std::string cannot_run() const = 0;
  /// Empty when the target has a toolchain, else why not: a search for it is
  /// refused before it starts (its kernels can still be printed).
  virtual std::string cannot_build() const { return ""; }
  /// Empty when candidates are chosen by their measured time; otherwise how
  /// they are scored instead (run() then returns that score as its one
  /// "time"), for the reports.
  virtual std::string scoring() const { return ""; }
  /// How run()'s "time" comes about: "measured" (timed calls on this
  /// machine), "simulated" (a timing model's seconds for the target, which
  /// scoring() names) or "none" (a score that is no time at all).
  virtual std::string timing() const { return scoring().empty() ? "measured" : "none"; }
  /// The synthesizer whose proved lowerings the kernels use (for the reports).
  virtual const isa::Synthesizer& synthesizer() const = 0;
  /// Whether run() can time a kernel without its values (RunSpec::dry): a
  /// simulated time depends on the sizes only. The search then validates each
  /// candidate at smaller sizes (the same variant, fusion and tiling choices,
  /// emitted again) and times it dry at the requested ones.
  virtual bool times_dry() const { return false; }

  // ---- tile space, instruction selection, cost model, printer ----
  /// The kernels of one plan: the target's heuristic tiling first, then the
  /// points of its tile space that its cost model ranks best. `points` grows
  /// by the size of this plan's tile space.
  virtual std::vector<KernelPtr> kernels(const tile::Plan& plan, const ir::Function& fn, const PointRequest& request,
                                         double& points) = 0;
  /// The target's baselines for the program as written (`original`), given
  /// its plan with every op in its own stage and buffer (`unfused`); none by
  /// default (a measured target's baseline is NumPy, which the search times).
  virtual std::vector<Baseline> baselines(const tile::Plan& unfused, const ir::Function& original) {
    (void)unfused, (void)original;
    return {};
  }
  /// A copy of `kernel` with a test-only fault ("crash", "hang", "wrong",
  /// "memory"); null when the target has none.
  virtual KernelPtr with_fault(const TargetKernel& kernel, const std::string& fault) const = 0;

  // ---- toolchain ----
  /// Compiles `kernels` into `work_dir`, several to a unit where it can, `jobs`
  /// units at once; one result per kernel, in order. `progress` is called
  /// after each unit (under a lock). A kernel that fails only fails itself.
  virtual std::vector<Built> compile(const std::vector<const TargetKernel*>& kernels, const std::string& work_dir,
                                     int jobs, const std::function<void()>& progress) = 0;
  /// Compiles one kernel alone into `dir`, as the output folder holds it.
  virtual Built compile_alone(const TargetKernel& kernel, const std::string& dir) = 0;
  /// The files compile_alone, or the check run's profile, writes into the
  /// output folder ("kernel.so", "timeline.json").
  virtual std::vector<std::string> artifact_files() const = 0;
  /// The names of the files its kernels' files() hold ("kernel.cpp", ...).
  virtual std::vector<std::string> printed_files() const = 0;

  // ---- runner ----
  /// Runs the kernel isolated: its outputs from the first call, and with
  /// spec.timed the times of repeated calls. Never throws for what the kernel does.
  virtual tune::RunResult run(const TargetKernel& kernel, const Artifact& artifact, const RunSpec& spec) = 0;
};

/// Makes a target for a description whose `target` field names it.
using TargetFactory = std::function<std::unique_ptr<Target>(const hw::Description&, smt::Prover&)>;
/// Resolves a short name ("cpu") to a description file in the hw folder.
using NameResolver = std::function<std::string(const std::string& hw_dir)>;

/// Registers the target kind `kind` (a description's "target" field), and
/// optionally short names that resolve to one of its descriptions.
void register_target(const std::string& kind, TargetFactory factory);
void register_target_name(const std::string& name, NameResolver resolver);
/// The registered kinds and short names, sorted, for messages.
std::vector<std::string> target_names();

/// The description `name_or_path` names: a registered short name, or a path
/// to a .json description. A UserError at `loc` otherwise.
hw::Description load_description(const std::string& name_or_path, const SourceLoc& loc = {});
/// A target for `description`; a UserError when no target of its kind is registered.
std::unique_ptr<Target> make_target(const hw::Description& description, smt::Prover& prover);

/// The folder of the hardware descriptions: set_hw_dir's, else $AXON_HW_DIR,
/// else the source tree's hw/ folder.
void set_hw_dir(const std::string& dir);
std::string hw_dir();

}  // namespace axon::search
