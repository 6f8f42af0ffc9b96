// One search over a program's space: variants of the nu-graph x fusion
// choices x a target's tile space, ranked by the target's cost model, the
// most promising compiled, run, validated against the float64 reference and
// timed; the fastest valid one chosen. The pipeline that drives it is
// search/pipeline.cpp; reports are search/report.cpp.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/program.h"
#include "search/options.h"
#include "search/target.h"
#include "search/variants.h"
#include "smt/prover.h"
#include "tile/plan.h"

namespace axon::search {

/// One point of the search space: a variant of the nu-graph, planned with a
/// fusion choice, each stage with one tiling, as its target printed it.
struct Candidate {
  std::string name;  // "variant 1 / unfused / tiling 2"
  size_t variant = 0;
  /// Node fusion: kAll (element-wise chains, fold epilogues and row groups),
  /// kEpilogues (no row groups), kChains (element-wise chains only: the
  /// planner alone), kNone (every op its own nest).
  enum Fusion { kNone, kChains, kEpilogues, kAll } fusion = kAll;
  int tiling_index = 0;  // 0: the target's heuristic tiling; k: the k-th from its cost model
  bool pinned = false;   // kChains with the heuristic tiling (the fixed choice before tuning): always measured
  ir::Function fn;
  std::shared_ptr<const tile::Plan> plan;
  KernelPtr kernel;
  Estimate estimate;
  int rank = 0;  // by the cost model over all candidates, 1 = most promising
  int64_t reduction = 1;
  std::string id;   // the kernel's identity: its key among the cache's records
  std::string dir;  // where its files are written
  Artifact artifact;
  /// Its twin at the check sizes (SearchResult::check_dims): the same
  /// variant, fusion and tiling choices, emitted again, run and validated
  /// there while `kernel` is timed dry. Null: validated at the requested sizes.
  KernelPtr check_kernel;
  Artifact check_artifact;

  /// Where it is: each state one step further, except the two failures.
  enum class State { Generated, CutOff, Compiled, CompileError, Failed, Valid } state = State::Generated;
  bool selected = false;     // to be compiled and measured
  bool from_record = false;  // its result came from an interrupted search's record
  bool measured = false;     // run (now or in the recorded search)
  std::string status;        // why not valid, or why not measured ("cut off: ...")
  double max_error = 0, seconds = 0;
  double seconds_min = 0, seconds_max = 0;  // the spread of its timed calls
  double finished_at = -1;                  // seconds since the search began
  bool confirmed = false;                   // timed twice (the fastest few); `seconds` is the lower median

  bool valid() const { return state == State::Valid; }
  bool compiled() const { return state == State::Compiled || state == State::Failed || state == State::Valid; }
};

/// Where the search spent its time, in seconds.
struct PhaseTimes {
  double algebra = 0;    // nu-graph exploration and variant extraction
  double lowering = 0;   // planning, tiling, instruction synthesis and proofs, emission, the cost model
  double reference = 0;  // the float64 reference results
  double compile = 0;
  double measure = 0;  // running, validating and timing candidates
  double numpy = 0;    // timing NumPy on the same inputs
  double baselines = 0;  // the target's baseline kernels
  double total = 0;
};

/// The size of the space and how much of it was measured.
struct SearchSpace {
  size_t variants = 0;
  size_t plans = 0;       // variants x fusion choices
  double points = 0;      // variants x fusion x every stage's tilings
  size_t generated = 0;   // distinct kernels printed and ranked by the model
  size_t duplicates = 0;  // printed kernels identical to an earlier one
  size_t selected = 0, cut_by_count = 0, cut_by_budget = 0;
};

/// NumPy running the program's file on the same inputs.
struct NumpyTime {
  bool measured = false;
  std::string why_not;  // when not measured
  double median = 0, min = 0, max = 0;
  int reps = 0;
};

/// A baseline kernel (Target::baselines) timed like the candidates.
struct BaselineTime {
  std::string name, label;
  bool measured = false;
  double seconds = 0;
  std::string why_not;  // when not measured
};

struct SearchResult {
  const ir::Program* program = nullptr;
  ir::Dims dims;
  /// Where candidates were validated when not at `dims` (a target that times
  /// dry): smaller sizes of the same program; empty otherwise.
  ir::Dims check_dims;
  /// How candidates were scored when not by measured time (Target::scoring);
  /// then a candidate's "seconds" hold that score.
  std::string scoring;
  /// "measured", "simulated" (seconds from the target's timing model) or
  /// "none" (Target::timing).
  std::string timing = "measured";
  /// The chosen kernel's profile from the target (RunResult), for the reports.
  std::string profile_markdown, profile_svg;
  std::string code_file = "kernel.cpp";  // the main printed file
  const hw::Description* target = nullptr;
  Options options;
  SearchSpace space;
  PhaseTimes phases;
  std::vector<Candidate> candidates;  // in rank order
  const Candidate* best = nullptr;
  const isa::Synthesizer* synth = nullptr;
  Variants variants;  // owns the nodes of every candidate's function
  NumpyTime numpy;
  std::vector<BaselineTime> baselines;  // the target's, timed on the same program, sizes and inputs
  std::optional<smt::ProofResult> variant_proof;  // the program == the chosen variant (when it is one)
  std::string cache_state;                        // "miss" or "off"
  int resumed = 0;
};

std::string dims_text(const ir::Dims& dims);

/// What the kernel must do at least, for the benchmark's roofline, and its family.
struct Workload {
  int64_t flops = 0, bytes = 0;
  std::string family = "elementwise";
};
Workload workload(const ir::Function& fn, const tile::Plan& plan);

std::string report_markdown(const SearchResult& r);
std::string report_html(const SearchResult& r);
std::string search_json(const SearchResult& r);

/// A candidate's time or score as people read it: "median 1.25 ms", or
/// "1234 instructions on its busiest engine" when r.scoring says so.
std::string score_text(const SearchResult& r, double seconds);

/// "naive (what it is): simulated 1.25 ms; the kernel is 3.1x faster".
std::string baseline_text(const SearchResult& r, const BaselineTime& b);

}  // namespace axon::search
