// The state of one `axon optimize` search, shared by the driver
// (optimize.cpp) and its reports (optimize_report.cpp).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "emit/cpu.h"
#include "hw/description.h"
#include "ir/program.h"
#include "isa/synth.h"
#include "tile/plan.h"

namespace axon::cli {

/// One point of the search space: a variant of the nu-graph, planned with or
/// without element-wise fusion, each stage with one tiling.
struct Candidate {
  std::string name;  // "variant 1 / unfused / tiling 2"
  size_t variant = 0;
  /// Node fusion: kAll (element-wise chains, fold epilogues and row groups),
  /// kEpilogues (no row groups), kChains (element-wise chains only: the
  /// planner alone), kNone (every op its own nest).
  enum Fusion { kNone, kChains, kEpilogues, kAll } fusion = kAll;
  int tiling_index = 0;  // 0: the planner's heuristic tiling; k: the k-th from the cost model
  bool pinned = false;   // kChains with the heuristic tiling (the fixed choice before tuning): always measured
  ir::Function fn;
  std::shared_ptr<const tile::Plan> plan;
  emit::CpuKernel kernel;
  double model_seconds = 0;
  bool memory_bound = false;    // by the model: then timed from cold caches, when its data fits in them
  int64_t footprint_bytes = 0;  // its inputs and outputs
  int rank = 0;                 // by the cost model over all candidates, 1 = most promising
  int64_t reduction = 1;

  std::string id;      // digest of its source and flags: its identity and its key among the cache's records
  std::string dir;     // where its kernel.cpp is written
  std::string symbol;  // its packed entry in the batch library it was compiled into
  std::string so_path;
  bool selected = false;  // to be compiled and measured
  bool compiled = false, measured = false, valid = false, from_record = false;
  std::string status;  // why not valid, or why not measured ("cut off: ...")
  double max_error = 0, seconds = 0;
  double finished_at = -1;  // seconds since the search began
  bool confirmed = false;   // timed twice (the fastest few); `seconds` is the lower median
};

/// Where the search spent its time, in seconds.
struct PhaseTimes {
  double algebra = 0;    // nu-graph exploration and variant extraction
  double lowering = 0;   // planning, tiling, instruction synthesis and proofs, emission, the cost model
  double reference = 0;  // the float64 reference results
  double compile = 0;
  double measure = 0;  // running, validating and timing candidates
  double total = 0;
};

struct SearchOptions {
  bool no_algebra = false, no_fusion = false, default_tiling = false, no_tuning = false;
  size_t variants = 4;
  size_t max_candidates = 8;
  double budget_seconds = 90;
  uint64_t seed = 0;
  /// The ablations, or "full search": part of the cache key and the reports.
  std::string text() const;
};

/// The size of the space and how much of it was measured.
struct SearchSpace {
  size_t variants = 0;
  size_t plans = 0;       // variants x fusion choices
  double points = 0;      // variants x fusion x the product of every stage's tilings
  size_t generated = 0;   // distinct kernels emitted and ranked by the model
  size_t duplicates = 0;  // emitted kernels identical to an earlier one (by canonical source hash)
  size_t selected = 0, cut_by_count = 0, cut_by_budget = 0;
};

/// What the kernel must do at least, for the benchmark's roofline, and its family.
struct Workload {
  int64_t flops = 0, bytes = 0;
  std::string family = "elementwise";
};
Workload workload(const ir::Function& fn, const tile::Plan& plan);

struct SearchResult {
  const ir::Program* program = nullptr;
  ir::Dims dims;
  const hw::Description* target = nullptr;
  SearchOptions options;
  SearchSpace space;
  PhaseTimes phases;
  std::vector<Candidate> candidates;  // in rank order
  const Candidate* best = nullptr;
  const isa::Synthesizer* synth = nullptr;
  std::string cache_state;  // "miss" or "off"
  int resumed = 0;
};

std::string dims_text(const ir::Dims& dims);
/// "4x3@2 1x2@1": MR x NV @ threads, per stage.
std::string tilings_text(const emit::CpuKernel& kernel);

std::string report_markdown(const SearchResult& r);
std::string report_html(const SearchResult& r);
std::string search_json(const SearchResult& r);

}  // namespace axon::cli
