// The settings of one search: what the command line's options and the Python
// API's keyword arguments set.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace axon::search {

struct Options {
  // Ablations: each switches one stage of the search off.
  bool no_algebra = false, no_fusion = false, default_tiling = false, no_tuning = false;
  size_t variants = 4;         // variants of the nu-graph, the original included
  size_t max_candidates = 8;   // candidates compiled and measured, at most
  double budget_seconds = 90;  // for the whole search; candidates not measured by then are cut off
  uint64_t seed = 0;           // of the random validation inputs
  int jobs = 0;                // translation units compiled at once; 0: the hardware threads
  // What a candidate's child process may use; 0 takes the default that
  // with_defaults() fills in, as the command line's options do.
  double time_limit_seconds = 120;
  size_t memory_limit_bytes = 0;  // default: half the physical memory
  double cpu_limit_seconds = 0;   // default: the time limit x the hardware threads
  int64_t max_memory = 0;         // bytes the reference interpreter may use; default: half the physical memory
  bool quiet = false;             // no progress (the observer still hears everything)
  bool time_numpy = true;         // time NumPy running the same file on the same inputs, for the speed-up

  /// These options with every 0 that means "the default" replaced by it
  /// (jobs, the limits, max_memory): what a search runs with and is keyed by.
  Options with_defaults() const;

  /// The ablations, or "full search": part of the cache key and the reports.
  std::string text() const;
  /// Every setting that can change what the search chooses, for the cache key:
  /// all but `jobs`, `quiet`, `max_memory` and `time_numpy`.
  std::string key_text() const;
};

}  // namespace axon::search
