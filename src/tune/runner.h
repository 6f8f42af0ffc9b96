// Runner: compiles generated C++ kernels into shared objects and runs them in
// a child process, so a kernel that crashes, hangs or fails cannot take the
// tuner down with it.
//
// A kernel library exports
//   extern "C" int axon_kernel_packed(const float* const* inputs, float* const* outputs);
// which reads one dense array per input, writes one per output and returns 0
// on success.
//
// run_isolated forks. The child reads the inputs straight from the memory it
// shares copy-on-write with the parent, loads the library, calls the kernel
// and reports back through a pipe; the parent never loads the library and so
// never starts the kernel's OpenMP threads. The child is forked, not exec'd,
// and then allocates and calls dlopen: in a parent with other threads that
// relies on glibc's fork handling, and a child that deadlocks on a lock held
// at the fork is reported TimedOut. SIGCHLD must not be ignored, or the
// child's status is lost.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace axon::tune {

struct CompileResult {
  bool ok = false;
  std::string command;  // as a shell would read it, for messages and reproduction
  std::string log;      // the compiler's stdout and stderr, interleaved
  double seconds = 0;
};

/// The compiler that compile_shared runs: $AXON_CXX as written, or "g++"
/// when it is unset or blank.
std::string compiler_command();

/// The first line that `<cxx> --version` prints, with cxx split on spaces as
/// $AXON_CXX is, e.g. "g++ (Debian 12.2.0-14) 12.2.0": a toolchain's identity
/// for the kernel cache. When it cannot be run or fails, "<cxx>: " and why, so
/// the text still names the compiler. Never throws.
std::string compiler_version(const std::string& cxx);

/// Compiles one C++ source into a shared library with compiler_command()
/// (split on spaces, so "ccache g++" works), using
///   -O3 -std=c++17 -fPIC -shared -fopenmp -fno-math-errno -o so_path source_path
/// (a path that starts with '-' as ./PATH, so that it stays a path) followed
/// by `extra_flags` split on spaces (so later flags override, and -l
/// libraries come after the source). so_path is removed first, so a failed
/// compile never leaves a stale library behind. Compile errors, and a missing
/// compiler, give ok = false with the reason in log; this never throws.
CompileResult compile_shared(const std::string& source_path, const std::string& so_path,
                             const std::string& extra_flags);

struct RunRequest {
  std::string so_path;
  std::string symbol = "axon_kernel_packed";  // the packed entry, as above, under this name
  std::vector<std::vector<float>> inputs;     // one dense array per kernel input
  std::vector<size_t> output_sizes;           // element count per output
  int warmup = 1;                             // untimed calls after the first call
  int reps = 0;                               // timed calls after the warmup; 0 = none
  double min_seconds = 0;                     // more timed calls until this much is spent, up to 1000 calls in all
  double timeout_s = 60;                      // the whole child is killed (SIGKILL) after this
  /// > 0: before every timed call, this many bytes of an unrelated buffer
  /// are written and read back (outside the timed region), so each call
  /// starts with cold caches.
  size_t flush_bytes = 0;
  /// > 0: the kernel may map at most this many bytes of data (RLIMIT_DATA:
  /// heap, private writable mappings, its threads' stacks) beyond what the
  /// child holds when the first call begins (the parent's memory, the
  /// library, inputs, outputs and the flush buffer). An allocation over it
  /// fails; a call that then fails or crashes is reported as "exceeded the
  /// memory limit of N MiB (an allocation failed)". Shared mappings escape it.
  size_t memory_limit_bytes = 0;
  /// > 0: the child is killed by SIGXCPU once it has used this much CPU time,
  /// all its threads together (RLIMIT_CPU, whole seconds, rounded up):
  /// "exceeded the CPU-time limit of S s". Processes the kernel forks
  /// inherit the limit.
  double cpu_limit_s = 0;
};

struct RunResult {
  enum class Status { Ok, Failed, Crashed, TimedOut } status = Status::Failed;
  /// Empty when Ok; otherwise why and when, e.g. "killed by signal 11
  /// (Segmentation fault) during the first call", "dlopen: ...",
  /// "kernel returned 3 on the first call".
  std::string message;
  /// From the first call, present once it has returned 0. Each is
  /// 64-byte aligned in the child and filled with NaN before the call, so an
  /// output the kernel never writes comes back as NaN.
  std::vector<std::vector<float>> outputs;
  std::vector<double> seconds;  // one per timed call, present only when Ok
  /// Where a simulated time went (a target's timing model), when the run was
  /// asked for it: a Markdown summary, a picture (SVG) and files for the
  /// output folder (name -> bytes, e.g. a Chrome trace).
  std::string profile_markdown, profile_svg;
  std::map<std::string, std::string> profile_files;

  /// The median of `seconds`, 0 when there are none.
  double median() const;
};

/// Half of this machine's physical memory: the default memory_limit_bytes.
size_t default_memory_limit_bytes();

/// Runs the kernel in `request.so_path` once for its outputs, then
/// `request.warmup` untimed calls, then max(reps, calls needed to spend
/// min_seconds) timed calls, all in a forked child that is killed after
/// timeout_s. Never throws for anything the child does; a request with
/// negative counts or a non-positive timeout is an internal error. The
/// child's stdout and stderr are the parent's.
RunResult run_isolated(const RunRequest& request);

struct StringResult {
  bool ok = false;
  std::string text;     // when ok
  std::string message;  // otherwise: why, as RunResult::message
};

/// Loads `so_path` in a forked child, as run_isolated does, calls its
/// `extern "C" const char* symbol()` and returns the string (e.g. a kernel's
/// embedded description). A library that cannot be loaded, lacks the symbol,
/// crashes or takes longer than timeout_s is a failure with its reason.
StringResult read_string_isolated(const std::string& so_path, const std::string& symbol, double timeout_s);

}  // namespace axon::tune
