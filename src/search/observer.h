// How a search reports progress: the command line draws its bar and lines
// from these calls, the Python package forwards them to a callback or drops
// them. Calls come from the searching thread, and from compile threads under
// a lock: never two at once.
#pragma once

#include <string>

namespace axon::search {

struct Progress {
  int total = 0;     // candidates selected for measuring
  int compiled = 0;  // compiled or failed to compile
  int measured = 0, valid = 0, failed = 0;
  double best_seconds = 0;  // the fastest valid so far, 0 when none
  std::string best_name;
  double elapsed = 0;  // seconds since the search began
};

class Observer {
 public:
  virtual ~Observer() = default;
  /// A line for people ("3 variant(s) from the nu-graph ...").
  virtual void note(const std::string& /*text*/) {}
  /// A problem that does not stop the search (a candidate that does not compile).
  virtual void warning(const std::string& /*text*/) {}
  /// A stage of the pipeline finished, in `seconds`.
  virtual void stage(const std::string& /*name*/, double /*seconds*/) {}
  /// The counts changed; `measured_one` when a candidate was just measured.
  virtual void progress(const Progress& /*state*/, bool /*measured_one*/) {}
  /// One candidate measured: its name and result ("valid, median 1.2 ms" or why not).
  virtual void candidate(const std::string& /*name*/, const std::string& /*result*/) {}
  /// The measuring is over (the bar can be closed).
  virtual void done() {}
};

}  // namespace axon::search
