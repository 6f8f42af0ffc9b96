// The runner compiles kernels with the system compiler and runs them in a
// child: correct kernels give their outputs and timings; compile errors,
// crashes, hangs, failures and missing symbols are reported, never fatal.
#include "tune/runner.h"

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <numeric>

#include "support/diag.h"

namespace axon::tune {
namespace {

namespace fs = std::filesystem;
using Status = RunResult::Status;

const char* status_name(Status status) {
  switch (status) {
    case Status::Ok: return "Ok";
    case Status::Failed: return "Failed";
    case Status::Crashed: return "Crashed";
    case Status::TimedOut: return "TimedOut";
  }
  return "?";
}

std::string describe(const RunResult& result) {
  return std::string(status_name(result.status)) + ": " + result.message;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

size_t entries_in(const fs::path& directory) {
  return static_cast<size_t>(std::distance(fs::directory_iterator(directory), fs::directory_iterator()));
}

const char* kDoubleAndAdd = R"src(
#include <cstddef>
#ifndef SCALE
#define SCALE 2
#endif
extern "C" int axon_kernel_packed(const float* const* in, float* const* out) {
  for (std::size_t i = 0; i < 1000; ++i) out[0][i] = in[0][i] * SCALE + in[1][i];
  for (std::size_t j = 0; j < 7; ++j) out[1][j] = in[1][j] - in[0][j];
  return 0;
}
)src";

const char* kOpenMpSquare = R"src(
#include <omp.h>
extern "C" int axon_kernel_packed(const float* const* in, float* const* out) {
#pragma omp parallel for
  for (long i = 0; i < 100000; ++i) out[0][i] = in[0][i] * in[0][i];
#pragma omp parallel
  {
#pragma omp single
    out[1][0] = static_cast<float>(omp_get_num_threads());
  }
  return 0;
}
)src";

class RunnerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    std::string pattern = (fs::temp_directory_path() / "axon-runner-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    directory_ = pattern;
  }
  static void TearDownTestSuite() {
    std::error_code ignored;
    fs::remove_all(directory_, ignored);
  }

  /// Writes `source` to <name>.cpp and compiles it to <name>.so.
  static CompileResult compile(const std::string& name, const std::string& source, const std::string& flags = "") {
    fs::path source_path = directory_ / (name + ".cpp");
    std::ofstream(source_path) << source;
    return compile_shared(source_path.string(), so_path(name), flags);
  }
  static std::string so_path(const std::string& name) { return (directory_ / (name + ".so")).string(); }

  /// Compiles a kernel that must compile, and a request to run it.
  static RunRequest request_for(const std::string& name, const std::string& source, size_t output_size = 1) {
    CompileResult compiled = compile(name, source);
    EXPECT_TRUE(compiled.ok) << compiled.command << "\n" << compiled.log;
    RunRequest request;
    request.so_path = so_path(name);
    request.output_sizes = {output_size};
    return request;
  }

  static fs::path directory_;
};

fs::path RunnerTest::directory_;

// ---- Correct kernels ----------------------------------------------------------

TEST_F(RunnerTest, CorrectKernelGivesOutputsAndTimings) {
  CompileResult compiled = compile("double_add", kDoubleAndAdd);
  ASSERT_TRUE(compiled.ok) << compiled.command << "\n" << compiled.log;
  EXPECT_TRUE(contains(compiled.command, "-fopenmp")) << compiled.command;
  EXPECT_GT(compiled.seconds, 0);

  RunRequest request;
  request.so_path = so_path("double_add");
  std::vector<float> a(1000), b(1000);
  for (size_t i = 0; i < a.size(); ++i) {
    a[i] = static_cast<float>(i) * 0.25f - 3;
    b[i] = std::sin(static_cast<float>(i));
  }
  request.inputs = {a, b};
  request.output_sizes = {1000, 7};
  request.reps = 5;
  RunResult result = run_isolated(request);
  ASSERT_EQ(result.status, Status::Ok) << describe(result);
  EXPECT_EQ(result.message, "");
  ASSERT_EQ(result.outputs.size(), 2u);
  ASSERT_EQ(result.outputs[0].size(), 1000u);
  ASSERT_EQ(result.outputs[1].size(), 7u);
  for (size_t i = 0; i < 1000; ++i) EXPECT_EQ(result.outputs[0][i], a[i] * 2 + b[i]) << "i = " << i;
  for (size_t j = 0; j < 7; ++j) EXPECT_EQ(result.outputs[1][j], b[j] - a[j]) << "j = " << j;
  ASSERT_EQ(result.seconds.size(), 5u);
  for (double seconds : result.seconds) EXPECT_GE(seconds, 0);
  EXPECT_GE(result.median(), 0);
}

TEST_F(RunnerTest, OpenMpKernelGivesOutputs) {
  RunRequest request = request_for("omp_square", kOpenMpSquare);
  std::vector<float> x(100000);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 1000) / 8;
  request.inputs = {x};
  request.output_sizes = {100000, 1};
  request.warmup = 2;
  request.reps = 3;
  RunResult result = run_isolated(request);
  ASSERT_EQ(result.status, Status::Ok) << describe(result);
  ASSERT_EQ(result.outputs.size(), 2u);
  for (size_t i = 0; i < x.size(); ++i) ASSERT_EQ(result.outputs[0][i], x[i] * x[i]) << "i = " << i;
  EXPECT_GE(result.outputs[1][0], 1) << "threads";
  EXPECT_EQ(result.seconds.size(), 3u);
}

TEST_F(RunnerTest, ExtraFlagsAreSplitOnSpaces) {
  CompileResult compiled = compile("double_add_flags", kDoubleAndAdd, " -DSCALE=3   -Wall ");
  ASSERT_TRUE(compiled.ok) << compiled.command << "\n" << compiled.log;
  EXPECT_TRUE(contains(compiled.command, "-DSCALE=3 -Wall")) << compiled.command;
  RunRequest request;
  request.so_path = so_path("double_add_flags");
  request.inputs = {std::vector<float>(1000, 1.5f), std::vector<float>(1000, 1)};
  request.output_sizes = {1000, 7};
  RunResult result = run_isolated(request);
  ASSERT_EQ(result.status, Status::Ok) << describe(result);
  EXPECT_EQ(result.outputs[0][999], 5.5f);
  EXPECT_TRUE(result.seconds.empty()) << "reps = 0 means no timed calls";
  EXPECT_EQ(result.median(), 0);
}

TEST_F(RunnerTest, UnwrittenOutputsAreNaN) {
  RunRequest request = request_for("writes_nothing", R"src(
extern "C" int axon_kernel_packed(const float* const*, float* const* out) { out[0][0] = 1; return 0; }
)src",
                                   10);
  request.output_sizes = {10, 3};
  RunResult result = run_isolated(request);
  ASSERT_EQ(result.status, Status::Ok) << describe(result);
  EXPECT_EQ(result.outputs[0][0], 1);
  for (size_t i = 1; i < 10; ++i) EXPECT_TRUE(std::isnan(result.outputs[0][i])) << "i = " << i;
  for (float value : result.outputs[1]) EXPECT_TRUE(std::isnan(value));
}

TEST_F(RunnerTest, OutputsAreAligned) {
  RunRequest request = request_for("alignment", R"src(
#include <cstdint>
extern "C" int axon_kernel_packed(const float* const*, float* const* out) {
  for (int i = 0; i < 3; ++i) out[i][0] = static_cast<float>(reinterpret_cast<std::uintptr_t>(out[i]) % 64);
  return 0;
}
)src");
  request.output_sizes = {1, 5, 17};
  RunResult result = run_isolated(request);
  ASSERT_EQ(result.status, Status::Ok) << describe(result);
  for (const std::vector<float>& output : result.outputs) EXPECT_EQ(output[0], 0);
}

TEST_F(RunnerTest, LargeOutputsDoNotStallThePipe) {
  constexpr size_t kCount = size_t{1} << 22;  // 16 MiB each way, far beyond a pipe's buffer
  RunRequest request = request_for("large", R"src(
extern "C" int axon_kernel_packed(const float* const* in, float* const* out) {
  for (long i = 0; i < (1L << 22); ++i) out[0][i] = in[0][i] + 1;
  return 0;
}
)src",
                                   kCount);
  std::vector<float> x(kCount);
  std::iota(x.begin(), x.end(), 0.0f);
  request.inputs = {x};
  RunResult result = run_isolated(request);
  ASSERT_EQ(result.status, Status::Ok) << describe(result);
  ASSERT_EQ(result.outputs[0].size(), kCount);
  for (size_t i = 0; i < kCount; ++i) ASSERT_EQ(result.outputs[0][i], x[i] + 1) << "i = " << i;
}

TEST_F(RunnerTest, MinSecondsRepeatsTimedCalls) {
  RunRequest request = request_for("sleeps", R"src(
#include <unistd.h>
extern "C" int axon_kernel_packed(const float* const*, float* const* out) { usleep(10000); out[0][0] = 0; return 0; }
)src");
  request.warmup = 0;
  request.reps = 1;
  request.min_seconds = 0.05;
  RunResult result = run_isolated(request);
  ASSERT_EQ(result.status, Status::Ok) << describe(result);
  double spent = std::accumulate(result.seconds.begin(), result.seconds.end(), 0.0);
  EXPECT_GE(spent, 0.05);
  EXPECT_GE(result.seconds.size(), 2u);
  EXPECT_LT(result.seconds.size(), 50u);
  EXPECT_GE(result.median(), 0.009);
}

TEST_F(RunnerTest, MinSecondsStopsAtAThousandCalls) {
  RunRequest request = request_for("tiny", R"src(
extern "C" int axon_kernel_packed(const float* const*, float* const* out) { out[0][0] = 0; return 0; }
)src");
  request.min_seconds = 30;
  RunResult result = run_isolated(request);
  ASSERT_EQ(result.status, Status::Ok) << describe(result);
  EXPECT_EQ(result.seconds.size(), 1000u);
}

TEST_F(RunnerTest, TheNamedSymbolIsCalled) {
  // A batch library: several kernels, each under its own packed name.
  RunRequest request = request_for("batch", R"src(
extern "C" int axon_kernel_packed_a(const float* const*, float* const* out) { out[0][0] = 1; return 0; }
extern "C" int axon_kernel_packed_b(const float* const*, float* const* out) { out[0][0] = 2; return 0; }
)src");
  for (auto [symbol, want] : {std::pair<const char*, float>{"axon_kernel_packed_a", 1}, {"axon_kernel_packed_b", 2}}) {
    request.symbol = symbol;
    RunResult result = run_isolated(request);
    ASSERT_EQ(result.status, Status::Ok) << symbol << ": " << describe(result);
    EXPECT_EQ(result.outputs.at(0).at(0), want) << symbol;
  }
  request.symbol = "axon_kernel_packed";
  RunResult missing = run_isolated(request);
  EXPECT_EQ(missing.status, Status::Failed);
  EXPECT_TRUE(contains(missing.message, "does not export axon_kernel_packed")) << missing.message;
}

TEST_F(RunnerTest, CacheFlushingStaysOutsideTheTimedCalls) {
  RunRequest request = request_for("flushed", R"src(
extern "C" int axon_kernel_packed(const float* const*, float* const* out) { out[0][0] = 0; return 0; }
)src");
  request.warmup = 0;
  request.reps = 5;
  request.flush_bytes = size_t{96} << 20;  // several milliseconds per flush
  RunResult result = run_isolated(request);
  ASSERT_EQ(result.status, Status::Ok) << describe(result);
  ASSERT_EQ(result.seconds.size(), 5u);
  EXPECT_LT(result.median(), 1e-3);
}

TEST(RunnerResult, MedianOfSeconds) {
  RunResult result;
  EXPECT_EQ(result.median(), 0);
  result.seconds = {3, 1, 2};
  EXPECT_EQ(result.median(), 2);
  result.seconds = {4, 1, 3, 2};
  EXPECT_EQ(result.median(), 2.5);
}

// ---- Errors: each must be reported, with its message ---------------------------

TEST_F(RunnerTest, CompileErrorIsInTheLog) {
  CompileResult compiled = compile("syntax_error", R"src(
extern "C" int axon_kernel_packed(const float* const*, float* const*) { int x = ; return 0; }
)src");
  EXPECT_FALSE(compiled.ok);
  EXPECT_TRUE(contains(compiled.log, "error")) << compiled.log;
  EXPECT_TRUE(contains(compiled.log, "syntax_error.cpp")) << compiled.log;
  EXPECT_TRUE(contains(compiled.log, "exited with status")) << compiled.log;
  EXPECT_FALSE(fs::exists(so_path("syntax_error")));
}

TEST_F(RunnerTest, FailedCompileRemovesAStaleLibrary) {
  ASSERT_TRUE(compile("stale", kDoubleAndAdd).ok);
  ASSERT_TRUE(fs::exists(so_path("stale")));
  EXPECT_FALSE(compile("stale", "this is not C++").ok);
  EXPECT_FALSE(fs::exists(so_path("stale")));
}

TEST_F(RunnerTest, MissingCompilerIsNotAnException) {
  const char* saved = getenv("AXON_CXX");
  std::string saved_value = saved != nullptr ? saved : "";
  setenv("AXON_CXX", "/nonexistent/axon-c++", 1);
  CompileResult compiled = compile("no_compiler", kDoubleAndAdd);
  if (saved != nullptr) {
    setenv("AXON_CXX", saved_value.c_str(), 1);
  } else {
    unsetenv("AXON_CXX");
  }
  EXPECT_FALSE(compiled.ok);
  EXPECT_TRUE(contains(compiled.command, "/nonexistent/axon-c++ -O3")) << compiled.command;
  EXPECT_TRUE(contains(compiled.log, "cannot run /nonexistent/axon-c++")) << compiled.log;
}

TEST_F(RunnerTest, SegfaultIsCrashed) {
  RunRequest request = request_for("segfault", R"src(
#include <cstdint>
extern "C" int axon_kernel_packed(const float* const*, float* const* out) {
  volatile float* unmapped = reinterpret_cast<volatile float*>(std::uintptr_t{64});
  *unmapped = 1;
  out[0][0] = 0;
  return 0;
}
)src");
  RunResult result = run_isolated(request);
  EXPECT_EQ(result.status, Status::Crashed) << describe(result);
  EXPECT_TRUE(contains(result.message, "killed by signal 11 (Segmentation fault)")) << result.message;
  EXPECT_TRUE(contains(result.message, "during the first call")) << result.message;
  EXPECT_TRUE(result.outputs.empty());
}

TEST_F(RunnerTest, AbortIsCrashed) {
  RunRequest request = request_for("aborts", R"src(
#include <cstdlib>
static int calls = 0;
extern "C" int axon_kernel_packed(const float* const*, float* const* out) {
  out[0][0] = 7;
  if (++calls == 2) std::abort();
  return 0;
}
)src");
  RunResult result = run_isolated(request);
  EXPECT_EQ(result.status, Status::Crashed) << describe(result);
  EXPECT_TRUE(contains(result.message, "signal 6 (Aborted) during the warmup calls")) << result.message;
  ASSERT_EQ(result.outputs.size(), 1u) << "the first call had returned";
  EXPECT_EQ(result.outputs[0][0], 7);
}

TEST_F(RunnerTest, InfiniteLoopTimesOut) {
  RunRequest request = request_for("spins", R"src(
extern "C" int axon_kernel_packed(const float* const*, float* const*) {
  volatile int spin = 1;
  while (spin) {
  }
  return 0;
}
)src");
  request.timeout_s = 1;
  auto start = std::chrono::steady_clock::now();
  RunResult result = run_isolated(request);
  double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(result.status, Status::TimedOut) << describe(result);
  EXPECT_TRUE(contains(result.message, "timed out after 1 s during the first call")) << result.message;
  EXPECT_GE(waited, 0.9);
  EXPECT_LT(waited, 5);
}

TEST_F(RunnerTest, NonZeroReturnIsFailed) {
  RunRequest request = request_for("returns_3", R"src(
extern "C" int axon_kernel_packed(const float* const*, float* const*) { return 3; }
)src");
  RunResult result = run_isolated(request);
  EXPECT_EQ(result.status, Status::Failed) << describe(result);
  EXPECT_EQ(result.message, "kernel returned 3 on the first call");
  EXPECT_TRUE(result.outputs.empty());
}

TEST_F(RunnerTest, FailureOnATimedCallKeepsTheOutputs) {
  RunRequest request = request_for("fails_later", R"src(
static int calls = 0;
extern "C" int axon_kernel_packed(const float* const*, float* const* out) { out[0][0] = 4; return ++calls >= 3 ? 5 : 0; }
)src");
  request.reps = 5;
  RunResult result = run_isolated(request);
  EXPECT_EQ(result.status, Status::Failed) << describe(result);
  EXPECT_EQ(result.message, "kernel returned 5 on timed call 1");
  ASSERT_EQ(result.outputs.size(), 1u);
  EXPECT_EQ(result.outputs[0][0], 4);
  EXPECT_TRUE(result.seconds.empty());
}

TEST_F(RunnerTest, MissingSymbolIsFailed) {
  RunRequest request = request_for("wrong_name", R"src(
extern "C" int some_other_kernel(const float* const*, float* const*) { return 0; }
)src");
  RunResult result = run_isolated(request);
  EXPECT_EQ(result.status, Status::Failed) << describe(result);
  EXPECT_TRUE(contains(result.message, "wrong_name.so does not export axon_kernel_packed")) << result.message;
}

TEST_F(RunnerTest, MissingLibraryIsFailed) {
  RunRequest request;
  request.so_path = so_path("never_built");
  request.output_sizes = {1};
  RunResult result = run_isolated(request);
  EXPECT_EQ(result.status, Status::Failed) << describe(result);
  EXPECT_TRUE(contains(result.message, "dlopen: ")) << result.message;
  EXPECT_TRUE(contains(result.message, "never_built.so")) << result.message;
}

TEST_F(RunnerTest, KernelThatExitsIsFailed) {
  RunRequest request = request_for("exits", R"src(
#include <cstdlib>
extern "C" int axon_kernel_packed(const float* const*, float* const*) { std::_Exit(7); }
)src");
  RunResult result = run_isolated(request);
  EXPECT_EQ(result.status, Status::Failed) << describe(result);
  EXPECT_EQ(result.message, "the child exited with status 7 during the first call without reporting");
}

// ---- Resource limits ------------------------------------------------------------

// A kernel that asks for 1 GiB, as emitted kernels ask for scratch, and
// either returns 1 when it gets none or writes through the null pointer.
const char* kHog = R"src(
#include <cstdlib>
#include <cstring>
extern "C" int axon_kernel_packed(const float* const*, float* const* out) {
  char* hog = static_cast<char*>(std::malloc(std::size_t{1} << 30));
#ifdef CRASH
  hog[std::size_t{1} << 20] = 1;
#else
  if (!hog) return 1;
  std::memset(hog, 1, std::size_t{1} << 30);
#endif
  out[0][0] = static_cast<float>(hog[12345]);
  std::free(hog);
  return 0;
}
)src";

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAddressSanitizer = true;  // its allocator reports failures itself
#else
constexpr bool kAddressSanitizer = false;
#endif

TEST_F(RunnerTest, AllocationOverTheMemoryLimitIsReported) {
  if (kAddressSanitizer) GTEST_SKIP() << "AddressSanitizer's allocator aborts instead of returning null";
  RunRequest request = request_for("hog", kHog);
  request.memory_limit_bytes = size_t{256} << 20;
  RunResult result = run_isolated(request);
  EXPECT_EQ(result.status, Status::Failed) << describe(result);
  EXPECT_EQ(result.message,
            "exceeded the memory limit of 256 MiB (an allocation failed); the kernel returned 1 on the first call");
  // Under a limit above what it asks for, the same kernel runs.
  request.memory_limit_bytes = size_t{2} << 30;
  result = run_isolated(request);
  EXPECT_EQ(result.status, Status::Ok) << describe(result);
  ASSERT_EQ(result.outputs.size(), 1u);
  EXPECT_EQ(result.outputs[0][0], 1);
}

TEST_F(RunnerTest, CrashAfterAFailedAllocationIsOverTheMemoryLimit) {
  if (kAddressSanitizer) GTEST_SKIP() << "AddressSanitizer's allocator aborts instead of returning null";
  ASSERT_TRUE(compile("hog_crash", kHog, "-DCRASH").ok);
  RunRequest request;
  request.so_path = so_path("hog_crash");
  request.output_sizes = {1};
  request.memory_limit_bytes = size_t{64} << 20;
  RunResult result = run_isolated(request);
  EXPECT_EQ(result.status, Status::Crashed) << describe(result);
  EXPECT_TRUE(
      contains(result.message, "exceeded the memory limit of 64 MiB (an allocation failed); killed by signal 11"))
      << result.message;
  // A crash with no failed allocation is only a crash.
  RunRequest plain = request_for("segfault_plain", R"src(
extern "C" int axon_kernel_packed(const float* const*, float* const*) { *reinterpret_cast<volatile int*>(64) = 1; return 0; }
)src");
  plain.memory_limit_bytes = size_t{64} << 20;
  result = run_isolated(plain);
  EXPECT_EQ(result.status, Status::Crashed) << describe(result);
  EXPECT_FALSE(contains(result.message, "memory limit")) << result.message;
}

TEST_F(RunnerTest, OpenMpKernelRunsUnderAMemoryLimit) {
  RunRequest request = request_for("omp_square_limited", kOpenMpSquare);
  request.inputs = {std::vector<float>(100000, 3)};
  request.output_sizes = {100000, 1};
  request.memory_limit_bytes = size_t{256} << 20;
  request.reps = 3;
  RunResult result = run_isolated(request);
  ASSERT_EQ(result.status, Status::Ok) << describe(result);
  EXPECT_EQ(result.outputs[0][5], 9);
}

TEST_F(RunnerTest, SpinningPastTheCpuLimitIsReported) {
  RunRequest request = request_for("spins_cpu", R"src(
extern "C" int axon_kernel_packed(const float* const*, float* const*) {
  for (volatile int spin = 0;; spin = spin + 1) {
  }
}
)src");
  request.timeout_s = 30;
  request.cpu_limit_s = 1;
  auto start = std::chrono::steady_clock::now();
  RunResult result = run_isolated(request);
  double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(result.status, Status::Crashed) << describe(result);
  EXPECT_EQ(result.message, "exceeded the CPU-time limit of 1 s (killed by SIGXCPU) during the first call");
  EXPECT_LT(waited, 20);
}

// ---- Reading a library's string ----------------------------------------------------

TEST_F(RunnerTest, StringIsReadInAChild) {
  ASSERT_TRUE(compile("info", R"src(
extern "C" const char* axon_kernel_info() { return "{\"kernel\": \"k\"}"; }
extern "C" const char* null_info() { return nullptr; }
extern "C" const char* crashing_info() { return *reinterpret_cast<const char* volatile*>(64); }
)src")
                  .ok);
  StringResult info = read_string_isolated(so_path("info"), "axon_kernel_info", 10);
  EXPECT_TRUE(info.ok) << info.message;
  EXPECT_EQ(info.text, "{\"kernel\": \"k\"}");
  for (auto [symbol, want] : {std::pair<const char*, const char*>{"missing_info", "does not export missing_info"},
                              {"null_info", "null_info returned a null pointer"},
                              {"crashing_info", "killed by signal 11"}}) {
    StringResult failed = read_string_isolated(so_path("info"), symbol, 10);
    EXPECT_FALSE(failed.ok) << symbol;
    EXPECT_TRUE(contains(failed.message, want)) << symbol << ": " << failed.message;
  }
  // Not a library at all, or one cut short.
  std::ofstream(directory_ / "garbage.so") << "this is not an ELF file";
  StringResult garbage = read_string_isolated((directory_ / "garbage.so").string(), "axon_kernel_info", 10);
  EXPECT_FALSE(garbage.ok);
  EXPECT_TRUE(contains(garbage.message, "dlopen: ")) << garbage.message;
  std::ifstream whole(so_path("info"), std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(whole)), std::istreambuf_iterator<char>());
  std::ofstream(directory_ / "truncated.so", std::ios::binary) << bytes.substr(0, bytes.size() / 3);
  StringResult truncated = read_string_isolated((directory_ / "truncated.so").string(), "axon_kernel_info", 10);
  EXPECT_FALSE(truncated.ok) << truncated.text;
  EXPECT_FALSE(truncated.message.empty());
}

TEST_F(RunnerTest, APathStartingWithADashIsAPath) {
  fs::path dash = directory_ / "-dash";
  fs::create_directories(dash);
  fs::path cwd = fs::current_path();
  fs::current_path(directory_);
  std::ofstream("-dash/k.cpp")
      << "extern \"C\" int axon_kernel_packed(const float* const*, float* const*) { return 0; }\n";
  CompileResult compiled = compile_shared("-dash/k.cpp", "-dash/k.so", "");
  fs::current_path(cwd);
  EXPECT_TRUE(compiled.ok) << compiled.command << "\n" << compiled.log;
  EXPECT_TRUE(fs::exists(dash / "k.so"));
}

TEST_F(RunnerTest, NegativeCountsAreInternalErrors) {
  RunRequest request;
  request.so_path = so_path("never_built");
  request.reps = -1;
  EXPECT_THROW(run_isolated(request), InternalError);
  request.reps = 0;
  request.timeout_s = 0;
  EXPECT_THROW(run_isolated(request), InternalError);
}

// A process that ran OpenMP parallel regions itself (a kernel called
// in-process, as the Python module does) and then searches: the child that
// runs a candidate must not wait on the parent's worker threads, which a fork
// does not copy. (Run alone, as ctest runs each test: it loads OpenMP here.)
TEST_F(RunnerTest, OpenMpKernelRunsAfterTheParentRanOpenMp) {
  RunRequest request = request_for("omp_square_parent", kOpenMpSquare);
  // A copy outside the runs' folder (which ManyRunsLeaveNothingBehind checks).
  fs::path copy = fs::path(testing::TempDir()) / "omp_square_in_parent.so";
  fs::copy_file(request.so_path, copy, fs::copy_options::overwrite_existing);
  void* library = dlopen(copy.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  ASSERT_NE(library, nullptr) << dlerror();
  auto packed = reinterpret_cast<int (*)(const float* const*, float* const*)>(dlsym(library, "axon_kernel_packed"));
  ASSERT_NE(packed, nullptr);
  std::vector<float> x(100000, 3), y(100000), threads(1);
  const float* in[] = {x.data()};
  float* out[] = {y.data(), threads.data()};
  ASSERT_EQ(packed(in, out), 0);
  ASSERT_EQ(y[99999], 9);
  request.inputs = {x};
  request.output_sizes = {100000, 1};
  request.timeout_s = 20;
  for (int run = 0; run < 3; ++run) {
    RunResult result = run_isolated(request);
    ASSERT_EQ(result.status, Status::Ok) << "run " << run << ": " << describe(result);
    EXPECT_EQ(result.outputs[0][99999], 9);
  }
}

// ---- Hygiene: many runs leave no descriptors, zombies, threads or libraries ------

TEST_F(RunnerTest, ManyRunsLeaveNothingBehind) {
  RunRequest request = request_for("omp_square_again", kOpenMpSquare);
  request.inputs = {std::vector<float>(100000, 3)};
  request.output_sizes = {100000, 1};
  RunRequest crashing = request_for("segfault_again", R"src(
extern "C" int axon_kernel_packed(const float* const*, float* const*) { __builtin_trap(); }
)src");
  size_t descriptors = entries_in("/proc/self/fd");
  size_t threads = entries_in("/proc/self/task");
  // Where an earlier test of this process loaded OpenMP itself (all tests
  // run in one process, not by ctest), the runs cannot be told from it.
  auto mapped = [](const std::string& what) {
    std::ifstream maps("/proc/self/maps");
    std::string line;
    while (std::getline(maps, line))
      if (contains(line, what)) return true;
    return false;
  };
  bool openmp_before = mapped("libgomp");
  for (int run = 0; run < 30; ++run) {
    RunResult result = run_isolated(request);
    ASSERT_EQ(result.status, Status::Ok) << "run " << run << ": " << describe(result);
    ASSERT_EQ(result.outputs[0][99999], 9);
    RunResult crashed = run_isolated(crashing);
    ASSERT_EQ(crashed.status, Status::Crashed) << "run " << run << ": " << describe(crashed);
  }
  EXPECT_EQ(entries_in("/proc/self/fd"), descriptors);
  if (!openmp_before) {
    EXPECT_EQ(entries_in("/proc/self/task"), threads) << "the parent must not start OpenMP threads";
  }
  errno = 0;
  EXPECT_EQ(waitpid(-1, nullptr, WNOHANG), -1) << "a child is left unreaped";
  EXPECT_EQ(errno, ECHILD);
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    EXPECT_FALSE(contains(line, directory_.string())) << "the parent loaded a kernel: " << line;
    EXPECT_FALSE(!openmp_before && contains(line, "libgomp")) << "the parent loaded OpenMP: " << line;
  }
}

}  // namespace
}  // namespace axon::tune
