#include "tune/runner.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iostream>
#include <limits>
#include <string_view>
#include <system_error>
#include <thread>

#include "support/diag.h"

extern char** environ;

namespace axon::tune {
namespace {

using Clock = std::chrono::steady_clock;
using KernelFn = int (*)(const float* const* inputs, float* const* outputs);

constexpr size_t kMaxTimedCalls = 1000;  // when min_seconds asks for more calls than reps
constexpr size_t kOutputAlignment = 64;
constexpr double kLongestTimeout = 1e7;  // seconds; keeps the deadline arithmetic finite
// While the pipe is open the parent still polls the child's status this
// often, because a process the kernel forked may hold the pipe open after
// the child itself has exited.
constexpr int kStatusPollMs = 20;
// Exit codes of a child that could not report: it lost the pipe or its parent.
constexpr int kChildLostPipe = 120;
constexpr int kChildOrphaned = 121;

static_assert(sizeof(float) == 4 && std::numeric_limits<float>::has_quiet_NaN);

double seconds_between(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

std::string errno_text(const std::string& what, int error) {
  return what + ": " + std::generic_category().message(error);
}

std::string number_text(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

std::string signal_text(int signal_number) {
  const char* description = nullptr;
#if defined(__GLIBC_PREREQ)
#if __GLIBC_PREREQ(2, 32)
  description = sigdescr_np(signal_number);  // unlike strsignal, thread-safe
#endif
#else
  description = strsignal(signal_number);
#endif
  std::string text = "signal " + std::to_string(signal_number);
  if (description != nullptr) text += std::string(" (") + description + ")";
  return text;
}

std::vector<std::string> split_on_spaces(const std::string& text) {
  std::vector<std::string> words;
  std::string word;
  for (char c : text) {
    if (c == ' ' || c == '\t' || c == '\n') {
      if (!word.empty()) words.push_back(word);
      word.clear();
    } else {
      word += c;
    }
  }
  if (!word.empty()) words.push_back(word);
  return words;
}

std::string shell_quoted(const std::string& word) {
  constexpr std::string_view kPlain = "_-./=+:,@%";
  bool plain = !word.empty() && std::all_of(word.begin(), word.end(), [&](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || kPlain.find(c) != std::string_view::npos;
  });
  if (plain) return word;
  std::string quoted = "'";
  for (char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

std::string exit_text(int wait_status) {
  if (WIFSIGNALED(wait_status)) return "killed by " + signal_text(WTERMSIG(wait_status));
  return "exited with status " + std::to_string(WEXITSTATUS(wait_status));
}

/// Appends what the non-blocking `fd` holds now. False once every writer has
/// closed it (or it cannot be read), true when it is merely empty for now.
bool read_available(int fd, std::vector<char>& bytes) {
  constexpr size_t kChunk = size_t{1} << 16;
  for (;;) {
    size_t old_size = bytes.size();
    bytes.resize(old_size + kChunk);
    ssize_t n = read(fd, bytes.data() + old_size, kChunk);
    bytes.resize(old_size + static_cast<size_t>(std::max<ssize_t>(n, 0)));
    if (n > 0) continue;
    if (n == 0) return false;
    if (errno == EINTR) continue;
    return errno == EAGAIN || errno == EWOULDBLOCK;
  }
}

// ---- Compiling --------------------------------------------------------------

struct CommandOutcome {
  bool finished = false;  // started and reaped; wait_status is valid
  int wait_status = 0;
  std::string output;  // stdout and stderr together, or why it could not run
};

CommandOutcome run_capturing_output(const std::vector<std::string>& args) {
  CommandOutcome outcome;
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    outcome.output = errno_text("pipe", errno);
    return outcome;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDERR_FILENO);
  std::vector<char*> argv;
  for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  int error = posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  if (error != 0) {
    close(fds[0]);
    outcome.output = errno_text("cannot run " + args[0], error);
    return outcome;
  }
  char chunk[1 << 14];
  for (;;) {
    ssize_t n = read(fds[0], chunk, sizeof chunk);
    if (n > 0) {
      outcome.output.append(chunk, static_cast<size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  close(fds[0]);
  pid_t reaped;
  while ((reaped = waitpid(pid, &outcome.wait_status, 0)) < 0 && errno == EINTR) {
  }
  if (reaped == pid) {
    outcome.finished = true;
  } else {
    outcome.output += errno_text("\ncannot wait for " + args[0], errno);
  }
  return outcome;
}

// ---- The child's report -----------------------------------------------------
//
// The child writes a sequence of records, each a RecordHeader and a payload:
//   Phase    u32 phase, sent as each phase begins, so a crash can say when
//   Outputs  per output: u64 element count, then the floats (after the first call)
//   Seconds  the timed calls' durations as doubles
//   Done     u32 ok, then the message bytes; always the last record
//   OutOfMemory  no payload: the kernel crashed after an allocation failed
// Both ends are the same binary, so the layout is native.

enum class Tag : uint32_t { Phase, Outputs, Seconds, Done, OutOfMemory };
enum class Phase : uint32_t { Starting, Loading, FirstCall, Warmup, Timing };

struct RecordHeader {
  uint32_t tag;
  uint32_t unused;
  uint64_t payload_bytes;
};

std::string phase_text(Phase phase) {
  switch (phase) {
    case Phase::Starting: return "while starting";
    case Phase::Loading: return "while loading the library";
    case Phase::FirstCall: return "during the first call";
    case Phase::Warmup: return "during the warmup calls";
    case Phase::Timing: return "during the timed calls";
  }
  return "at an unknown phase";
}

void write_all(int fd, const void* data, size_t size) {
  const char* next = static_cast<const char*>(data);
  while (size > 0) {
    ssize_t n = write(fd, next, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      _exit(kChildLostPipe);
    }
    next += n;
    size -= static_cast<size_t>(n);
  }
}

void write_header(int fd, Tag tag, uint64_t payload_bytes) {
  RecordHeader header{static_cast<uint32_t>(tag), 0, payload_bytes};
  write_all(fd, &header, sizeof header);
}

void send_phase(int fd, Phase phase) {
  auto value = static_cast<uint32_t>(phase);
  write_header(fd, Tag::Phase, sizeof value);
  write_all(fd, &value, sizeof value);
}

void send_outputs(int fd, const std::vector<float*>& outputs, const std::vector<size_t>& sizes) {
  uint64_t payload_bytes = 0;
  for (size_t count : sizes) payload_bytes += sizeof(uint64_t) + count * sizeof(float);
  write_header(fd, Tag::Outputs, payload_bytes);
  for (size_t i = 0; i < outputs.size(); ++i) {
    uint64_t count = sizes[i];
    write_all(fd, &count, sizeof count);
    write_all(fd, outputs[i], sizes[i] * sizeof(float));
  }
}

void send_seconds(int fd, const std::vector<double>& seconds) {
  write_header(fd, Tag::Seconds, seconds.size() * sizeof(double));
  write_all(fd, seconds.data(), seconds.size() * sizeof(double));
}

/// The child's last words: the Done record, then exit without running the
/// parent's atexit handlers or flushing its copies of the parent's buffers.
[[noreturn]] void finish(int fd, bool ok, const std::string& message) {
  uint32_t ok_value = ok ? 1 : 0;
  write_header(fd, Tag::Done, sizeof ok_value + message.size());
  write_all(fd, &ok_value, sizeof ok_value);
  write_all(fd, message.data(), message.size());
  std::fflush(stdout);  // the kernel's own output
  std::fflush(stderr);
  _exit(0);
}

struct ChildReport {
  Phase phase = Phase::Starting;
  bool out_of_memory = false;
  bool has_outputs = false;
  bool done = false;
  bool ok = false;
  bool malformed = false;
  std::string message;
  std::vector<std::vector<float>> outputs;
  std::vector<double> seconds;
};

class ByteReader {
 public:
  ByteReader(const char* data, size_t size) : next_(data), left_(size) {}
  size_t left() const { return left_; }
  bool take(void* into, size_t size) {
    if (size > left_) return false;
    if (size == 0) return true;  // `into` may be an empty vector's null data()
    std::memcpy(into, next_, size);
    next_ += size;
    left_ -= size;
    return true;
  }
  /// The next `size` bytes (at most left()) as a reader of their own; this one skips them.
  ByteReader split(size_t size) {
    ByteReader front(next_, size);
    next_ += size;
    left_ -= size;
    return front;
  }

 private:
  const char* next_;
  size_t left_;
};

bool parse_outputs(ByteReader payload, const std::vector<size_t>& sizes, ChildReport& report) {
  report.outputs.clear();
  for (size_t expected : sizes) {
    uint64_t count = 0;
    if (!payload.take(&count, sizeof count) || count != expected || payload.left() / sizeof(float) < count) {
      return false;
    }
    std::vector<float>& output = report.outputs.emplace_back(count);
    payload.take(output.data(), count * sizeof(float));
  }
  report.has_outputs = true;
  return payload.left() == 0;
}

/// Reads the records in `bytes`; a record cut short (the child died while
/// writing it) ends the report without making it malformed.
ChildReport parse_report(const std::vector<char>& bytes, const std::vector<size_t>& output_sizes) {
  ChildReport report;
  ByteReader reader(bytes.data(), bytes.size());
  RecordHeader header;
  while (!report.done && reader.take(&header, sizeof header)) {
    if (header.payload_bytes > reader.left()) break;
    auto size = static_cast<size_t>(header.payload_bytes);
    ByteReader payload = reader.split(size);
    switch (static_cast<Tag>(header.tag)) {
      case Tag::Phase: {
        uint32_t phase = 0;
        report.malformed |=
            size != sizeof phase || !payload.take(&phase, sizeof phase) || phase > static_cast<uint32_t>(Phase::Timing);
        if (!report.malformed) report.phase = static_cast<Phase>(phase);
        break;
      }
      case Tag::Outputs: report.malformed |= !parse_outputs(payload, output_sizes, report); break;
      case Tag::Seconds:
        report.malformed |= size % sizeof(double) != 0;
        report.seconds.resize(size / sizeof(double));
        payload.take(report.seconds.data(), report.seconds.size() * sizeof(double));
        break;
      case Tag::OutOfMemory: report.out_of_memory = true; break;
      case Tag::Done: {
        uint32_t ok = 0;
        report.done = payload.take(&ok, sizeof ok);
        report.ok = ok == 1;
        report.message.resize(payload.left());
        payload.take(report.message.data(), report.message.size());
        break;
      }
      default: report.malformed = true;
    }
    if (report.malformed) break;
  }
  return report;
}

// ---- The child ----------------------------------------------------------------

constexpr int kFaultSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS};

/// Makes a fault in the kernel a signal the parent sees: the parent may have
/// handlers (sanitizers install some) or blocked signals the child inherits.
/// With `cpu_limit_s` > 0 the child gets SIGXCPU after that much CPU time
/// (all threads), and SIGKILL 2 s later should it survive.
void prepare_child_process(pid_t parent, double cpu_limit_s) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);  // do not outlive a parent that dies
  if (getppid() != parent) _exit(kChildOrphaned);
  for (int signal_number : kFaultSignals) signal(signal_number, SIG_DFL);
  signal(SIGXCPU, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  if (cpu_limit_s > 0) {
    auto seconds = static_cast<rlim_t>(std::ceil(std::min(cpu_limit_s, kLongestTimeout)));
    rlimit cpu{seconds, seconds + 2};
    setrlimit(RLIMIT_CPU, &cpu);
  }
}

/// The bytes of data (VmData: heap, private writable mappings, thread stacks)
/// this process maps now, or 0 when /proc cannot tell. Reads into a stack
/// buffer: the caller is a child forked from a threaded parent.
size_t mapped_data_bytes() {
  int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char text[8192];
  size_t used = 0;
  for (ssize_t n; used + 1 < sizeof text && (n = read(fd, text + used, sizeof text - 1 - used)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    used += static_cast<size_t>(n);
  }
  close(fd);
  text[used] = '\0';
  const char* field = std::strstr(text, "\nVmData:");
  return field == nullptr ? 0 : static_cast<size_t>(std::strtoull(field + 8, nullptr, 10)) * 1024;
}

int g_report_fd = -1;  // for the fault handler

/// A fault after a failed allocation (errno ENOMEM in the faulting thread) is
/// flagged to the parent before the default action ends the child.
void on_fault(int) {
  if (errno == ENOMEM) {
    RecordHeader header{static_cast<uint32_t>(Tag::OutOfMemory), 0, 0};
    ssize_t ignored = write(g_report_fd, &header, sizeof header);  // one small write: atomic
    (void)ignored;
  }
}  // SA_RESETHAND: the fault repeats, or abort() raises again, with the default action

/// Limits what the kernel may map beyond what the child holds now (the
/// parent's copy-on-write memory, the library, the inputs and outputs) to
/// `bytes` more (RLIMIT_DATA), and arms on_fault. Empty, or why it cannot.
std::string limit_memory(size_t bytes, int fd) {
  if (bytes == 0) return "";
  size_t held = mapped_data_bytes();
  if (held == 0) return "cannot apply the memory limit: /proc/self/status has no VmData";
  rlim_t limit = held > RLIM_INFINITY - bytes ? RLIM_INFINITY : static_cast<rlim_t>(held + bytes);
  rlimit data{limit, limit};
  if (setrlimit(RLIMIT_DATA, &data) != 0) return errno_text("cannot apply the memory limit: setrlimit", errno);
  g_report_fd = fd;
  struct sigaction action {};
  action.sa_handler = on_fault;
  action.sa_flags = SA_RESETHAND | SA_NODEFER;
  sigemptyset(&action.sa_mask);
  for (int signal_number : kFaultSignals) sigaction(signal_number, &action, nullptr);
  return "";
}

std::string mib_text(size_t bytes) {
  return std::to_string((bytes + (size_t{1} << 20) - 1) >> 20) + " MiB";
}

std::string over_memory_text(size_t limit_bytes) {
  return "exceeded the memory limit of " + mib_text(limit_bytes) + " (an allocation failed)";
}

/// A 64-byte aligned array of `count` NaNs, or null when it cannot be had.
float* allocate_output(size_t count) {
  if (count > (std::numeric_limits<size_t>::max() - kOutputAlignment) / sizeof(float)) return nullptr;
  size_t bytes = std::max<size_t>(count, 1) * sizeof(float);
  bytes = (bytes + kOutputAlignment - 1) / kOutputAlignment * kOutputAlignment;
  auto* output = static_cast<float*>(std::aligned_alloc(kOutputAlignment, bytes));
  if (output != nullptr) std::fill_n(output, count, std::numeric_limits<float>::quiet_NaN());
  return output;
}

/// Why a call that returned `code` failed: over the memory limit when an
/// allocation failed during it.
std::string returned_text(int code, const std::string& call, const RunRequest& request, bool allocation_failed) {
  if (request.memory_limit_bytes > 0 && allocation_failed)
    return over_memory_text(request.memory_limit_bytes) + "; the kernel returned " + std::to_string(code) + " on " +
           call;
  return "kernel returned " + std::to_string(code) + " on " + call;
}

/// The library's `symbol`, or the child's last words.
void* load_symbol(int fd, const std::string& so_path, const std::string& symbol_name) {
  send_phase(fd, Phase::Loading);
  // The OpenMP runtime the kernel loads reads its waiting policy now: idle
  // threads sleep rather than spin on a core another thread needs, as every
  // OpenMP contestant of the benchmark runs (the user's own setting wins; a
  // runtime the calling process loaded earlier keeps what it read then).
  setenv("OMP_WAIT_POLICY", "PASSIVE", 0);
  void* library = dlopen(so_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    const char* error = dlerror();
    finish(fd, false, std::string("dlopen: ") + (error != nullptr ? error : so_path));
  }
  dlerror();
  void* symbol = dlsym(library, symbol_name.c_str());
  if (symbol == nullptr) {
    const char* error = dlerror();
    finish(fd, false,
           "dlsym: " + so_path + " does not export " + symbol_name +
               (error != nullptr ? std::string(" (") + error + ")" : std::string()));
  }
  return symbol;
}

[[noreturn]] void child_main(const RunRequest& request, const std::vector<const float*>& inputs, int fd, pid_t parent) {
  prepare_child_process(parent, request.cpu_limit_s);
  auto kernel = reinterpret_cast<KernelFn>(load_symbol(fd, request.so_path, request.symbol));

  std::vector<float*> outputs;
  for (size_t count : request.output_sizes) {
    float* output = allocate_output(count);
    if (output == nullptr) finish(fd, false, "cannot allocate an output of " + std::to_string(count) + " floats");
    outputs.push_back(output);
  }
  std::vector<char> cold(request.flush_bytes);
  if (std::string why = limit_memory(request.memory_limit_bytes, fd); !why.empty()) finish(fd, false, why);
  bool allocation_failed = false;  // errno ENOMEM after the last call
  auto call = [&] {
    errno = 0;
    int code = kernel(inputs.data(), outputs.data());
    allocation_failed = errno == ENOMEM;
    return code;
  };

  send_phase(fd, Phase::FirstCall);
  if (int code = call(); code != 0)
    finish(fd, false, returned_text(code, "the first call", request, allocation_failed));
  send_outputs(fd, outputs, request.output_sizes);

  send_phase(fd, Phase::Warmup);
  for (int warmup = 1; warmup <= request.warmup; ++warmup) {
    if (int code = call(); code != 0)
      finish(fd, false, returned_text(code, "warmup call " + std::to_string(warmup), request, allocation_failed));
  }

  send_phase(fd, Phase::Timing);
  std::vector<double> seconds;
  double spent = 0;
  volatile char sink = 0;
  while (seconds.size() < static_cast<size_t>(request.reps) ||
         (spent < request.min_seconds && seconds.size() < kMaxTimedCalls)) {
    if (!cold.empty()) {
      std::memset(cold.data(), static_cast<int>(seconds.size() & 0x7f), cold.size());
      for (size_t i = 0; i < cold.size(); i += 64) sink = sink + cold[i];
    }
    Clock::time_point start = Clock::now();
    int code = call();
    double elapsed = seconds_between(start, Clock::now());
    if (code != 0)
      finish(fd, false,
             returned_text(code, "timed call " + std::to_string(seconds.size() + 1), request, allocation_failed));
    seconds.push_back(elapsed);
    spent += elapsed;
  }
  send_seconds(fd, seconds);
  finish(fd, true, "");
}

/// Calls `const char* symbol()` of the library and sends what it returns as
/// the Done record's message.
[[noreturn]] void string_child_main(const std::string& so_path, const std::string& symbol, int fd, pid_t parent) {
  prepare_child_process(parent, 0);
  auto function = reinterpret_cast<const char* (*)()>(load_symbol(fd, so_path, symbol));
  send_phase(fd, Phase::FirstCall);
  const char* text = function();
  if (text == nullptr) finish(fd, false, symbol + " returned a null pointer");
  finish(fd, true, text);
}

// ---- The parent -----------------------------------------------------------------

struct ChildExit {
  std::vector<char> report;
  bool timed_out = false;
  bool status_known = false;
  int wait_status = 0;
};

/// Reads the child's report as it comes, so a large one cannot fill the pipe
/// and stall the child, until the child has exited or the deadline has passed
/// (then it is killed). Either way the child is reaped.
ChildExit wait_for_child(pid_t pid, int fd, Clock::time_point deadline) {
  ChildExit exit;
  bool pipe_open = true;
  std::chrono::microseconds backoff(50);
  for (;;) {
    pid_t reaped = waitpid(pid, &exit.wait_status, WNOHANG);
    if (reaped == pid || (reaped < 0 && errno != EINTR)) {
      exit.status_known = reaped == pid;
      // All the child wrote is in the pipe now, though another process may hold it open.
      if (pipe_open) read_available(fd, exit.report);
      return exit;
    }
    Clock::time_point now = Clock::now();
    if (now >= deadline) {
      kill(pid, SIGKILL);
      while ((reaped = waitpid(pid, &exit.wait_status, 0)) < 0 && errno == EINTR) {
      }
      exit.status_known = reaped == pid;
      exit.timed_out = true;
      if (pipe_open) read_available(fd, exit.report);
      return exit;
    }
    if (!pipe_open) {  // the child is exiting; its status follows within moments
      std::this_thread::sleep_for(std::min<Clock::duration>(backoff, deadline - now));
      backoff = std::min(backoff * 2, std::chrono::microseconds(5000));
      continue;
    }
    auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - now).count();
    pollfd readable{fd, POLLIN, 0};
    if (poll(&readable, 1, static_cast<int>(std::min<int64_t>(left, kStatusPollMs))) > 0) {
      pipe_open = read_available(fd, exit.report);
    }
  }
}

RunResult failed(const std::string& message) {
  RunResult result;
  result.status = RunResult::Status::Failed;
  result.message = message;
  return result;
}

RunResult interpret(const RunRequest& request, const ChildExit& exit) {
  ChildReport report = parse_report(exit.report, request.output_sizes);
  RunResult result;
  if (report.has_outputs) result.outputs = std::move(report.outputs);
  std::string when = report.done ? std::string() : " " + phase_text(report.phase);
  if (exit.timed_out) {
    result.status = RunResult::Status::TimedOut;
    result.message = "timed out after " + number_text(request.timeout_s) + " s" + when;
  } else if (!exit.status_known) {
    result.message = "the child's exit status was lost (is SIGCHLD ignored?)";
  } else if (WIFSIGNALED(exit.wait_status) && WTERMSIG(exit.wait_status) == SIGXCPU && request.cpu_limit_s > 0) {
    result.status = RunResult::Status::Crashed;
    result.message =
        "exceeded the CPU-time limit of " + number_text(request.cpu_limit_s) + " s (killed by SIGXCPU)" + when;
  } else if (WIFSIGNALED(exit.wait_status)) {
    result.status = RunResult::Status::Crashed;
    result.message = "killed by " + signal_text(WTERMSIG(exit.wait_status)) + when;
    if (report.out_of_memory) result.message = over_memory_text(request.memory_limit_bytes) + "; " + result.message;
  } else if (report.malformed) {
    result.message = "the child's report is malformed";
  } else if (!report.done) {
    result.message = "the child " + exit_text(exit.wait_status) + when + " without reporting";
  } else if (!report.ok) {
    result.message = report.message;
  } else {
    result.status = RunResult::Status::Ok;
    result.message = std::move(report.message);  // empty, but for string_child_main
    result.seconds = std::move(report.seconds);
  }
  return result;
}

/// Forks a child that runs `child` (which must not return) with the write end
/// of a pipe, and collects its report until it exits or `timeout_s` passes.
RunResult run_child(const RunRequest& request, const std::function<void(int fd, pid_t parent)>& child) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return failed(errno_text("pipe", errno));
  // What the parent has buffered must not be written twice, once by each process.
  std::fflush(nullptr);
  std::cout.flush();
  Clock::time_point deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(
                                                  std::min(request.timeout_s, kLongestTimeout)));
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    int error = errno;
    close(fds[0]);
    close(fds[1]);
    return failed(errno_text("fork", error));
  }
  if (pid == 0) {
    close(fds[0]);
    // On a thread of its own: an OpenMP runtime that this process ran
    // parallel regions with before the fork (a kernel called in-process, as
    // the Python module does) keeps its pool of worker threads in the forking
    // thread's state, and the child has none of those threads: a parallel
    // region from that thread would wait on them forever (libgomp). A new
    // thread starts a pool of its own.
    int fd = fds[1];
    try {
      std::thread([&] { child(fd, parent); }).join();
    } catch (const std::system_error&) {
      child(fd, parent);
    }
    _exit(kChildLostPipe);  // not reached: the child ends with finish()
  }
  close(fds[1]);
  fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK);
  ChildExit exit = wait_for_child(pid, fds[0], deadline);
  close(fds[0]);
  return interpret(request, exit);
}

}  // namespace

double RunResult::median() const {
  if (seconds.empty()) return 0;
  std::vector<double> sorted = seconds;
  std::sort(sorted.begin(), sorted.end());
  size_t middle = sorted.size() / 2;
  return sorted.size() % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

std::string compiler_command() {
  const char* compiler = std::getenv("AXON_CXX");
  if (compiler == nullptr || split_on_spaces(compiler).empty()) return "g++";
  return compiler;
}

std::string compiler_version(const std::string& cxx) {
  std::vector<std::string> args = split_on_spaces(cxx);
  if (args.empty()) return cxx + ": no compiler named";
  args.push_back("--version");
  CommandOutcome outcome = run_capturing_output(args);
  std::string first_line = outcome.output.substr(0, outcome.output.find('\n'));
  bool ok = outcome.finished && WIFEXITED(outcome.wait_status) && WEXITSTATUS(outcome.wait_status) == 0;
  if (!outcome.finished) return cxx + ": " + first_line;
  if (!ok) return cxx + ": --version " + exit_text(outcome.wait_status);
  if (first_line.empty()) return cxx + ": --version printed nothing";
  return first_line;
}

CompileResult compile_shared(const std::string& source_path, const std::string& so_path,
                             const std::string& extra_flags) {
  std::vector<std::string> args = split_on_spaces(compiler_command());
  for (const char* flag : {"-O3", "-std=c++17", "-fPIC", "-shared", "-fopenmp", "-fno-math-errno"}) {
    args.push_back(flag);
  }
  // A path that starts with '-' would be read as an option.
  auto as_path = [](const std::string& path) { return path.rfind('-', 0) == 0 ? "./" + path : path; };
  args.insert(args.end(), {"-o", as_path(so_path), as_path(source_path)});
  for (std::string& flag : split_on_spaces(extra_flags)) args.push_back(std::move(flag));

  CompileResult result;
  for (const std::string& arg : args) result.command += (result.command.empty() ? "" : " ") + shell_quoted(arg);
  unlink(so_path.c_str());
  Clock::time_point start = Clock::now();
  CommandOutcome outcome = run_capturing_output(args);
  result.seconds = seconds_between(start, Clock::now());
  result.log = std::move(outcome.output);
  result.ok = outcome.finished && WIFEXITED(outcome.wait_status) && WEXITSTATUS(outcome.wait_status) == 0;
  if (outcome.finished && !result.ok) {
    if (!result.log.empty() && result.log.back() != '\n') result.log += '\n';
    result.log += args[0] + " " + exit_text(outcome.wait_status) + "\n";
  }
  return result;
}

RunResult run_isolated(const RunRequest& request) {
  AXON_CHECK(request.warmup >= 0 && request.reps >= 0, "call counts must not be negative");
  AXON_CHECK(request.min_seconds >= 0, "min_seconds must not be negative");
  AXON_CHECK(request.timeout_s > 0, "the timeout must be positive");
  AXON_CHECK(request.cpu_limit_s >= 0, "the CPU-time limit must not be negative");
  std::vector<const float*> inputs;
  for (const std::vector<float>& input : request.inputs) inputs.push_back(input.data());
  return run_child(request, [&](int fd, pid_t parent) { child_main(request, inputs, fd, parent); });
}

StringResult read_string_isolated(const std::string& so_path, const std::string& symbol, double timeout_s) {
  AXON_CHECK(timeout_s > 0, "the timeout must be positive");
  RunRequest request;
  request.so_path = so_path;
  request.timeout_s = timeout_s;
  RunResult ran = run_child(request, [&](int fd, pid_t parent) { string_child_main(so_path, symbol, fd, parent); });
  StringResult result;
  result.ok = ran.status == RunResult::Status::Ok;
  (result.ok ? result.text : result.message) = std::move(ran.message);
  return result;
}

size_t default_memory_limit_bytes() {
  long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page_size <= 0) return size_t{4} << 30;
  return static_cast<size_t>(pages) / 2 * static_cast<size_t>(page_size);
}

}  // namespace axon::tune
