#include "search/options.h"

#include <algorithm>
#include <iomanip>
#include <sstream>
#include <thread>

#include "eval/interpreter.h"
#include "tune/runner.h"

namespace axon::search {

Options Options::with_defaults() const {
  Options o = *this;
  int threads = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  if (o.jobs < 1) o.jobs = threads;
  if (o.memory_limit_bytes == 0) o.memory_limit_bytes = tune::default_memory_limit_bytes();
  if (o.cpu_limit_seconds <= 0) o.cpu_limit_seconds = o.time_limit_seconds * threads;
  if (o.max_memory <= 0) o.max_memory = eval::default_max_memory();
  return o;
}

std::string Options::text() const {
  std::string t;
  if (no_algebra) t += " --no-algebra";
  if (no_fusion) t += " --no-fusion";
  if (default_tiling) t += " --default-tiling";
  if (no_tuning) t += " --no-tuning";
  return t.empty() ? "full search" : t.substr(1);
}

// A field added to Options belongs here unless it is as harmless as those
// left out: parallel compiles, progress, a limit that refuses before the
// search, and the NumPy timing never change the kernel chosen.
std::string Options::key_text() const {
  std::ostringstream t;
  t << std::setprecision(17) << text() << " variants=" << variants << " max-candidates=" << max_candidates
    << " budget=" << budget_seconds << " seed=" << seed << " time-limit=" << time_limit_seconds
    << " memory-limit=" << memory_limit_bytes << " cpu-limit=" << cpu_limit_seconds
    << " fuse-elementwise=" << !no_fusion << " policy=" << (default_tiling ? "default" : "search");
  return t.str();
}

}  // namespace axon::search
