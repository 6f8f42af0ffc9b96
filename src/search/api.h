// The search as a library: what the command line and the Python package call.
//
// One request names a program file, its sizes, a target and the search's
// settings; optimize() answers from the kernel cache or runs the search, and
// writes the output folder whole (support/files.h StagedFolder: a killed run
// leaves the folder as it was). Progress goes to an Observer; failures are
// thrown as typed errors: UserError (bad program or request, with file:line:col
// where one exists), NoValidKernelError (no candidate was valid; exit 5) and
// InternalError (a bug).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ir/program.h"
#include "search/observer.h"
#include "search/options.h"
#include "support/diag.h"

namespace axon::search {

struct OptimizeRequest {
  std::string file;  // the program (.py in the NumPy subset)
  /// The program's text, when it is not the whole file (the Python package
  /// passes a function with its helpers, at their lines); `file` names it.
  std::optional<std::string> text;
  std::optional<std::string> entry;  // the kernel; default: the last def in the file
  /// Sizes as --dims spells them ("M=64,K=32", a SIZES preset such as "test",
  /// or both); `sizes` entries are applied after it.
  std::string dims;
  std::map<std::string, int64_t> sizes;
  std::string target = "cpu";  // a target's name (cpu, trn1) or a description file
  Options options;
  /// The kernel cache: the default one ($XDG_CACHE_HOME/axon/kernels.sqlite),
  /// a path, or none.
  enum class Cache { Default, Path, Off } cache = Cache::Default;
  std::string cache_path;
  std::string out;  // the output folder, replaced whole when the search succeeds
  // Where the command line spelled these, for errors (unknown when empty).
  SourceLoc target_loc, cache_loc, out_loc;
};

/// What optimize() reports back once `out` is in place.
struct OptimizeSummary {
  std::string out;           // the folder written
  std::string candidate;     // the chosen candidate's name
  double seconds = 0;        // its median time
  double numpy_seconds = 0;  // NumPy on the same file and inputs; 0 when not measured
  bool from_cache = false;
  std::string cache_path;  // empty when the cache was off
  std::string details;     // for people, before that line: the time and its spread, the speed-up, the rewrites
  std::string line;        // the one-line summary `axon optimize` prints last
};

/// Runs the search for `request` (or answers from the cache), writes
/// request.out, and returns what it chose. `observer` may be null.
OptimizeSummary optimize(const OptimizeRequest& request, Observer* observer = nullptr);

/// The same for a program already loaded and sizes already bound (every
/// symbolic size of program.kernel in `dims`); request.file, entry, dims and
/// sizes are not read.
OptimizeSummary optimize_program(const ir::Program& program, const ir::Dims& dims, const OptimizeRequest& request,
                                 Observer* observer = nullptr);

/// The program `file` holds, or `text` under that name when given: the
/// kernel `entry`, else the last def.
ir::Program load_program(const std::string& file, const std::optional<std::string>& text,
                         const std::optional<std::string>& entry, const SourceLoc& entry_loc = {});

/// The sizes `text` names for `program`, as --dims spells them: NAME=INTEGER
/// entries and presets of the file's SIZES, comma-separated, applied in
/// order. A UserError at loc_at(offset in text) for a bad entry.
ir::Dims parse_sizes(const ir::Program& program, const std::string& text,
                     const std::function<SourceLoc(size_t offset)>& loc_at);

/// The sizes `spec` names for `program` ("M=64,K=32", presets of its SIZES,
/// or both, applied in order), then `sizes`, then bound: every symbolic size
/// of the kernel gets a value or this is a UserError naming the missing one.
ir::Dims bind_sizes(const ir::Program& program, const std::string& spec, const std::map<std::string, int64_t>& sizes);

}  // namespace axon::search
