// The pipeline of one search, written once as a linear script (Search::run):
//
//   algebra     the nu-graph's proven variants            (search/variants)
//   reference   float64 results and rounding bounds        (eval)
//   space       plans x fusion x the target's tile space,  (tile, fuse, target)
//               instructions selected and proved, printed,
//               ranked by the target's cost model
//   compile     the selected candidates, in batches        (target toolchain)
//   measure     run, validated, timed; the fastest few     (target runner)
//               timed again
//   numpy       NumPy on the same inputs, for the speed-up
//
// Each stage is timed, reported to the Observer, and its result dumped at
// $AXON_DEBUG verbosity (search/debug.h). Writing the output folder is a
// separate step (write_output), done only when run() found a valid kernel.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "eval/interpreter.h"
#include "search/observer.h"
#include "search/search.h"
#include "tune/cache.h"

namespace axon::search {

/// Reference results and their rounding bounds on random inputs, rounded to
/// each parameter's dtype (float32 arrays hold them exactly: the kernel sees
/// the same values).
struct Reference {
  std::vector<std::vector<float>> inputs;
  std::vector<std::vector<int64_t>> shapes;  // of the inputs
  eval::Evaluation want;
  std::vector<size_t> output_sizes;
};
Reference reference_results(const ir::Function& fn, const ir::Dims& dims, uint64_t seed, int64_t max_memory);

/// The target's heuristic kernel for the program as written: planned with
/// element-wise, epilogue and row fusion, no variants, no tile space, no measuring. Its source
/// is what `axon lower` prints.
KernelPtr lower_program(const ir::Program& program, const ir::Dims& dims, const hw::Description& description);

class Search {
 public:
  /// `cache` may be null (no records, no entry). Candidates go to work_dir.
  Search(const ir::Program& program, const ir::Dims& dims, Target& target, const Options& options, tune::Cache* cache,
         const tune::CacheKey& key, std::string work_dir, Observer& observer);
  ~Search();

  /// The whole search; true when a valid kernel was found (result().best).
  bool run();
  /// The chosen kernel compiled alone into `dir` and checked again, its
  /// files, the reports; the cache entry. After run() returned true.
  void write_output(const std::string& dir);
  /// report.md and search.json of a search without a valid kernel.
  void write_failure_report(const std::string& dir);
  /// Why no candidate was valid, in one sentence.
  std::string no_valid_kernel_text() const;

  const SearchResult& result() const { return result_; }

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
  SearchResult& result_;
};

}  // namespace axon::search
