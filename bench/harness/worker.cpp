// axon-bench-worker: times one compiled kernel for the benchmark driver
// (bench/harness/run.py), and measures the machine's limits.
//
//   axon-bench-worker --so LIB --abi axon|baseline --inputs DIR --out-shape D0,D1,...
//                     [--sizes S0,S1,...] --contestant NAME
//   axon-bench-worker --limits [--threads N]
//
// A kernel worker reads DIR/in0.npy, in1.npy, ... (float32), loads LIB and
// calls its C ABI on 64-byte-aligned copies of them with a preallocated
// output: `axon_kernel_packed(inputs, outputs)` for a kernel from
// `axon optimize`, `axon_baseline(sizes, inputs, outputs)` for an expert
// library baseline (bench/baselines). It writes the first call's result to
// DIR/out-NAME.npy, runs three untimed calls and prints `ready SECONDS`.
// Then each stdin line `time N` runs N timed calls and prints
// `times T1 ... TN` (seconds); `quit` or end of input ends it. Any failure
// prints one line `error MESSAGE` and exits 1. This is the protocol of
// bench/harness/py_worker.py, so the driver interleaves both kinds alike.
//
// --limits prints one JSON object: the FMA peak (GFLOP/s) and the copy
// bandwidth with streaming stores over 64 MiB arrays (GB/s, one read plus
// one write counted), each the median of repeated trials, for 1 and N
// threads (default: the hardware threads).
#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <dlfcn.h>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "eval/npy.h"

namespace {

using Clock = std::chrono::steady_clock;

[[noreturn]] void fail(const std::string& message) {
  std::string line = message;
  std::replace(line.begin(), line.end(), '\n', ' ');
  std::cout << "error " << line << std::endl;
  std::exit(1);
}

struct AlignedFree {
  void operator()(float* p) const { std::free(p); }
};
using Buffer = std::unique_ptr<float[], AlignedFree>;

Buffer aligned_floats(size_t n) {
  size_t bytes = std::max<size_t>(64, (n * sizeof(float) + 63) / 64 * 64);
  auto* p = static_cast<float*>(std::aligned_alloc(64, bytes));
  if (!p) fail("out of memory allocating " + std::to_string(bytes) + " bytes");
  return Buffer(p);
}

std::vector<int64_t> int_list(const std::string& text) {
  std::vector<int64_t> values;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ','))
    if (!item.empty()) values.push_back(std::stoll(item));
  return values;
}

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// ---- limits -----------------------------------------------------------------

// 12 independent FMA chains on 8 lanes: 192 FLOP per iteration.
__attribute__((target("avx2,fma"))) double fma_flops_avx2(int64_t iterations) {
  __m256 acc[12];
  for (int i = 0; i < 12; ++i) acc[i] = _mm256_set1_ps(0.01f * static_cast<float>(i));
  const __m256 a = _mm256_set1_ps(0.999f), b = _mm256_set1_ps(0.001f);
  for (int64_t it = 0; it < iterations; ++it)
#pragma GCC unroll 12
    for (int i = 0; i < 12; ++i) acc[i] = _mm256_fmadd_ps(acc[i], a, b);
  __m256 s = acc[0];
  for (int i = 1; i < 12; ++i) s = _mm256_add_ps(s, acc[i]);
  volatile float sink = _mm256_cvtss_f32(s);
  (void)sink;
  return 192.0 * static_cast<double>(iterations);
}

__attribute__((target("avx512f"))) double fma_flops_avx512(int64_t iterations) {
  __m512 acc[12];
  for (int i = 0; i < 12; ++i) acc[i] = _mm512_set1_ps(0.01f * static_cast<float>(i));
  const __m512 a = _mm512_set1_ps(0.999f), b = _mm512_set1_ps(0.001f);
  for (int64_t it = 0; it < iterations; ++it)
#pragma GCC unroll 12
    for (int i = 0; i < 12; ++i) acc[i] = _mm512_fmadd_ps(acc[i], a, b);
  __m512 s = acc[0];
  for (int i = 1; i < 12; ++i) s = _mm512_add_ps(s, acc[i]);
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, s);
  volatile float sink = lanes[0] + lanes[15];
  (void)sink;
  return 384.0 * static_cast<double>(iterations);
}

__attribute__((target("avx2"))) void stream_copy(const float* src, float* dst, size_t n) {
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    __m256 a = _mm256_load_ps(src + i), b = _mm256_load_ps(src + i + 8);
    __m256 c = _mm256_load_ps(src + i + 16), d = _mm256_load_ps(src + i + 24);
    _mm256_stream_ps(dst + i, a);
    _mm256_stream_ps(dst + i + 8, b);
    _mm256_stream_ps(dst + i + 16, c);
    _mm256_stream_ps(dst + i + 24, d);
  }
  for (; i < n; ++i) dst[i] = src[i];
  _mm_sfence();
}

// Runs `work(thread)` on `threads` threads at once; returns the wall time.
template <typename Work>
double timed_parallel(int threads, Work work) {
  std::vector<std::thread> pool;
  auto t = Clock::now();
  for (int k = 0; k < threads; ++k) pool.emplace_back([&work, k] { work(k); });
  for (std::thread& th : pool) th.join();
  return seconds_since(t);
}

double fma_peak(int threads, bool wide) {
  const int64_t iterations = 20'000'000;
  std::vector<double> rates;
  for (int trial = 0; trial < 5; ++trial) {
    std::vector<double> flops(static_cast<size_t>(threads));
    double s = timed_parallel(threads, [&](int k) {
      flops[static_cast<size_t>(k)] = wide ? fma_flops_avx512(iterations) : fma_flops_avx2(iterations);
    });
    double total = 0;
    for (double f : flops) total += f;
    rates.push_back(total / s / 1e9);
  }
  return median(rates);
}

double copy_bandwidth(int threads) {
  const size_t n = (64u << 20) / sizeof(float);
  Buffer src = aligned_floats(n), dst = aligned_floats(n);
  for (size_t i = 0; i < n; ++i) src[i] = static_cast<float>(i & 1023), dst[i] = 0;
  std::vector<double> rates;
  size_t chunk = (n / static_cast<size_t>(threads) + 31) / 32 * 32;
  for (int trial = 0; trial < 11; ++trial) {
    double s = timed_parallel(threads, [&](int k) {
      size_t begin = std::min(n, chunk * static_cast<size_t>(k)), end = std::min(n, begin + chunk);
      stream_copy(src.get() + begin, dst.get() + begin, end - begin);
    });
    if (trial > 0) rates.push_back(2.0 * static_cast<double>(n * sizeof(float)) / s / 1e9);
  }
  return median(rates);
}

int limits(int threads) {
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) fail("the limits need AVX2 and FMA");
  bool wide = __builtin_cpu_supports("avx512f");
  double fma1 = fma_peak(1, wide), fman = fma_peak(threads, wide);
  double copy1 = copy_bandwidth(1), copyn = copy_bandwidth(threads);
  std::cout << "{\"threads\": " << threads << ", \"vector\": \"" << (wide ? "avx512" : "avx2")
            << "\", \"fma_gflops_1\": " << fma1 << ", \"fma_gflops\": " << fman
            << ", \"copy_gbps_1\": " << copy1 << ", \"copy_gbps\": " << copyn << "}" << std::endl;
  return 0;
}

// ---- kernels ----------------------------------------------------------------

using AxonAbi = int (*)(const float* const*, float* const*);
using BaselineAbi = int (*)(const long long*, const float* const*, float* const*);

struct Args {
  std::string so, abi, inputs, contestant;
  std::vector<int64_t> out_shape, sizes;
  bool limits = false;
  int threads = 0;
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    std::string k = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) fail(k + " needs a value");
      return argv[++i];
    };
    if (k == "--so") a.so = value();
    else if (k == "--abi") a.abi = value();
    else if (k == "--inputs") a.inputs = value();
    else if (k == "--contestant") a.contestant = value();
    else if (k == "--out-shape") a.out_shape = int_list(value());
    else if (k == "--sizes") a.sizes = int_list(value());
    else if (k == "--threads") a.threads = static_cast<int>(std::stoll(value()));
    else if (k == "--limits") a.limits = true;
    else fail("unknown option '" + k + "'");
  }
  return a;
}

int serve(const Args& a) {
  if (a.so.empty() || a.inputs.empty() || a.contestant.empty() || (a.abi != "axon" && a.abi != "baseline"))
    fail("usage: --so LIB --abi axon|baseline --inputs DIR --out-shape D0,... [--sizes ...] --contestant NAME");
  auto setup = Clock::now();
  std::vector<Buffer> inputs;
  std::vector<const float*> in_ptrs;
  for (int i = 0;; ++i) {
    std::string path = a.inputs + "/in" + std::to_string(i) + ".npy";
    if (FILE* f = std::fopen(path.c_str(), "rb")) std::fclose(f);
    else break;
    axon::eval::Tensor t = axon::eval::read_npy(path);
    Buffer b = aligned_floats(t.data.size());
    for (size_t k = 0; k < t.data.size(); ++k) b[k] = static_cast<float>(t.data[k]);
    in_ptrs.push_back(b.get());
    inputs.push_back(std::move(b));
  }
  if (inputs.empty()) fail("no inputs in " + a.inputs + " (in0.npy, in1.npy, ...)");
  size_t out_count = 1;
  for (int64_t d : a.out_shape) out_count *= static_cast<size_t>(d);
  Buffer output = aligned_floats(out_count);
  std::fill(output.get(), output.get() + out_count, std::numeric_limits<float>::quiet_NaN());
  float* out_ptrs[1] = {output.get()};

  void* lib = dlopen(a.so.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) fail(std::string("dlopen: ") + dlerror());
  std::vector<long long> sizes(a.sizes.begin(), a.sizes.end());
  std::function<int()> call;
  if (a.abi == "axon") {
    auto fn = reinterpret_cast<AxonAbi>(dlsym(lib, "axon_kernel_packed"));
    if (!fn) fail("no axon_kernel_packed in " + a.so);
    call = [fn, &in_ptrs, &out_ptrs] { return fn(in_ptrs.data(), out_ptrs); };
  } else {
    auto fn = reinterpret_cast<BaselineAbi>(dlsym(lib, "axon_baseline"));
    if (!fn) fail("no axon_baseline in " + a.so);
    call = [fn, &sizes, &in_ptrs, &out_ptrs] { return fn(sizes.data(), in_ptrs.data(), out_ptrs); };
  }
  if (int rc = call()) fail("the kernel returned " + std::to_string(rc));
  axon::eval::Tensor result;
  for (int64_t d : a.out_shape) result.shape.push_back(d);
  result.data.assign(output.get(), output.get() + out_count);
  axon::eval::write_npy(a.inputs + "/out-" + a.contestant + ".npy", result, axon::eval::NpyDtype::F32);
  for (int w = 0; w < 3; ++w)
    if (int rc = call()) fail("the kernel returned " + std::to_string(rc));
  std::cout << "ready " << seconds_since(setup) << std::endl;

  std::string line;
  while (std::getline(std::cin, line)) {
    if (line == "quit") break;
    if (line.rfind("time ", 0) != 0) fail("unknown request '" + line + "'");
    int n = std::stoi(line.substr(5));
    std::vector<double> times;
    for (int r = 0; r < n; ++r) {
      auto t = Clock::now();
      int rc = call();
      times.push_back(seconds_since(t));
      if (rc) fail("the kernel returned " + std::to_string(rc));
    }
    std::ostringstream reply;
    reply.precision(9);
    reply << "times";
    for (double t : times) reply << ' ' << t;
    std::cout << reply.str() << std::endl;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    Args a = parse(argc, argv);
    if (a.limits) return limits(a.threads > 0 ? a.threads : static_cast<int>(std::thread::hardware_concurrency()));
    return serve(a);
  } catch (const std::exception& e) {
    fail(e.what());
  }
}
