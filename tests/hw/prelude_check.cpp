// Accuracy and behaviour check of the x86 preludes (hw/x86-avx2-prelude.h and,
// when built with -DAXON_CHECK_AVX512, hw/x86-avx512-prelude.h): the helpers
// that emitted kernels call. Standalone (no gtest); see prelude_check.sh:
//
//   g++ -std=c++17 -O2 -mavx2 -mfma -I hw tests/hw/prelude_check.cpp -o prelude_check
//   g++ -std=c++17 -O2 -mavx512f -mavx512dq -mavx2 -mfma -DAXON_CHECK_AVX512 -I hw
//       tests/hw/prelude_check.cpp -o prelude_check512
//
// Prints the measured max relative errors (against double-precision libm) and
// exits 0 on pass, 1 on failure, 77 (skip) when the CPU lacks the instructions
// (AVX2, or AVX-512F/DQ for the AVX-512 build). With --all it also sweeps every
// float (about 8 minutes). Measured on AMD EPYC (Zen 4), AVX2, every float:
// exp 8.46e-8, log 8.16e-8, tanh 1.42e-7, rsqrt 1.67e-7, rcp 1.54e-7.
//
// What is checked, for each target:
//   exp, log, tanh, rsqrt, rcp: max relative error over a few million inputs
//     (random bit patterns over the whole domain, uniform ranges, sweeps around
//     thresholds) whose results are normal floats; results that overflow must be
//     +-inf (or within the tolerance of +-FLT_MAX); results in the subnormal
//     range must be within a few subnormal ulps (exp: 0 is allowed where the
//     target flushes, AVX2; AVX-512's is subnormal);
//     special values (0, -0, +-inf, NaN, negatives) exactly;
//   reductions (add within rounding, max/min exactly), prefix sums (exactly on
//     integers, within rounding otherwise), bcast_last, transpose (exactly, also
//     in place), the tail mask, the mask_mov_ps and select_eq_ps emit texts;
//   the strided gathers for small and large strides (both index widths), and
//     that the masked gather never reads the lanes it leaves out: the array ends
//     at a PROT_NONE region that covers every address an inactive lane names.
#include "x86-avx2-prelude.h"
#ifdef AXON_CHECK_AVX512
#include "x86-avx512-prelude.h"
#endif

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <csetjmp>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace {

int failures = 0;

void fail(const char* target, const std::string& what) {
  std::printf("FAIL [%s] %s\n", target, what.c_str());
  ++failures;
}

std::string fmt(double v) {
  char b[64];
  std::snprintf(b, sizeof b, "%.9g", v);
  return b;
}

float from_bits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// ---- the two targets, as W-lane functions over float arrays ----------------

struct Avx2 {
  static constexpr int W = 8;
  static constexpr const char* name = "avx2";
  static constexpr bool exp_subnormal = false;  // flushes below -87.33654
  static bool supported() { return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"); }
  static void exp(const float* i, float* o) { _mm256_storeu_ps(o, axon_exp_ps256(_mm256_loadu_ps(i))); }
  static void log(const float* i, float* o) { _mm256_storeu_ps(o, axon_log_ps256(_mm256_loadu_ps(i))); }
  static void tanh(const float* i, float* o) { _mm256_storeu_ps(o, axon_tanh_ps256(_mm256_loadu_ps(i))); }
  static void rsqrt(const float* i, float* o) { _mm256_storeu_ps(o, axon_rsqrt_refined_ps256(_mm256_loadu_ps(i))); }
  static void rcp(const float* i, float* o) { _mm256_storeu_ps(o, axon_rcp_refined_ps256(_mm256_loadu_ps(i))); }
  static float reduce_add(const float* i) { return axon_reduce_add_ps256(_mm256_loadu_ps(i)); }
  static float reduce_max(const float* i) { return axon_reduce_max_ps256(_mm256_loadu_ps(i)); }
  static float reduce_min(const float* i) { return axon_reduce_min_ps256(_mm256_loadu_ps(i)); }
  static void transpose(const float* in, float* out, bool in_place) {
    __m256 a[8], b[8];
    for (int r = 0; r < 8; ++r) a[r] = _mm256_loadu_ps(in + 8 * r);
    if (in_place) {
      axon_transpose8x8(a, a);
      for (int r = 0; r < 8; ++r) _mm256_storeu_ps(out + 8 * r, a[r]);
    } else {
      axon_transpose8x8(b, a);
      for (int r = 0; r < 8; ++r) _mm256_storeu_ps(out + 8 * r, b[r]);
    }
  }
  // Lane i all ones <=> bit i set.
  static uint32_t tail_mask(int n) {
    return static_cast<uint32_t>(_mm256_movemask_ps(_mm256_castsi256_ps(axon_tail_mask8(n))));
  }
  static void load_strided(const float* x, int64_t s, float* o) { _mm256_storeu_ps(o, axon_load_strided_ps256(x, s)); }
  static void maskload_strided(const float* x, int64_t s, int n, float* o) {
    _mm256_storeu_ps(o, axon_maskload_strided_ps256(x, s, n));
  }
  // The emit texts of hw/x86-avx2.json, with {R} a runtime value here.
  static void mask_mov(const float* src_p, const float* x_p, int R, float* o) {
    __m256 src = _mm256_loadu_ps(src_p), x = _mm256_loadu_ps(x_p);
    _mm256_storeu_ps(o, _mm256_blendv_ps(src, x, _mm256_castsi256_ps(axon_tail_mask8(R))));
  }
  static void select_eq(const float* a_p, const float* b_p, const float* c_p, const float* d_p, float* o) {
    __m256 a = _mm256_loadu_ps(a_p), b = _mm256_loadu_ps(b_p), c = _mm256_loadu_ps(c_p), d = _mm256_loadu_ps(d_p);
    _mm256_storeu_ps(o, _mm256_blendv_ps(d, c, _mm256_cmp_ps(a, b, _CMP_EQ_OQ)));
  }
  static void prefix_sum(const float* i, float* o) { _mm256_storeu_ps(o, axon_prefix_sum_ps256(_mm256_loadu_ps(i))); }
  static void bcast_last(const float* i, float* o) {
    _mm256_storeu_ps(o, _mm256_permutevar8x32_ps(_mm256_loadu_ps(i), _mm256_set1_epi32(7)));
  }
};

#ifdef AXON_CHECK_AVX512
struct Avx512 {
  static constexpr int W = 16;
  static constexpr const char* name = "avx512";
  static constexpr bool exp_subnormal = true;  // vscalefps rounds into the subnormals
  static bool supported() { return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq"); }
  static void exp(const float* i, float* o) { _mm512_storeu_ps(o, axon_exp_ps(_mm512_loadu_ps(i))); }
  static void log(const float* i, float* o) { _mm512_storeu_ps(o, axon_log_ps(_mm512_loadu_ps(i))); }
  static void tanh(const float* i, float* o) { _mm512_storeu_ps(o, axon_tanh_ps(_mm512_loadu_ps(i))); }
  static void rsqrt(const float* i, float* o) { _mm512_storeu_ps(o, axon_rsqrt14_refined(_mm512_loadu_ps(i))); }
  static void rcp(const float* i, float* o) { _mm512_storeu_ps(o, axon_rcp14_refined(_mm512_loadu_ps(i))); }
  // hw/x86-avx512.json emits the reductions as these intrinsics directly.
  static float reduce_add(const float* i) { return _mm512_reduce_add_ps(_mm512_loadu_ps(i)); }
  static float reduce_max(const float* i) { return _mm512_reduce_max_ps(_mm512_loadu_ps(i)); }
  static float reduce_min(const float* i) { return _mm512_reduce_min_ps(_mm512_loadu_ps(i)); }
  static void transpose(const float* in, float* out, bool in_place) {
    __m512 a[16], b[16];
    for (int r = 0; r < 16; ++r) a[r] = _mm512_loadu_ps(in + 16 * r);
    if (in_place) {
      axon_transpose16x16(a, a);
      for (int r = 0; r < 16; ++r) _mm512_storeu_ps(out + 16 * r, a[r]);
    } else {
      axon_transpose16x16(b, a);
      for (int r = 0; r < 16; ++r) _mm512_storeu_ps(out + 16 * r, b[r]);
    }
  }
  static uint32_t tail_mask(int n) { return static_cast<__mmask16>((1u << n) - 1u); }
  static void load_strided(const float* x, int64_t s, float* o) { _mm512_storeu_ps(o, axon_load_strided_ps(x, s)); }
  static void maskload_strided(const float* x, int64_t s, int n, float* o) {
    _mm512_storeu_ps(o, axon_maskz_load_strided_ps(x, s, n));
  }
  static void mask_mov(const float* src_p, const float* x_p, int R, float* o) {
    __m512 src = _mm512_loadu_ps(src_p), x = _mm512_loadu_ps(x_p);
    _mm512_storeu_ps(o, _mm512_mask_mov_ps(src, (__mmask16)((1u << R) - 1u), x));
  }
  static void select_eq(const float* a_p, const float* b_p, const float* c_p, const float* d_p, float* o) {
    __m512 a = _mm512_loadu_ps(a_p), b = _mm512_loadu_ps(b_p), c = _mm512_loadu_ps(c_p), d = _mm512_loadu_ps(d_p);
    _mm512_storeu_ps(o, _mm512_mask_blend_ps(_mm512_cmp_ps_mask(a, b, _CMP_EQ_OQ), d, c));
  }
  static void prefix_sum(const float* i, float* o) { _mm512_storeu_ps(o, axon_prefix_sum_ps(_mm512_loadu_ps(i))); }
  static void bcast_last(const float* i, float* o) {
    _mm512_storeu_ps(o, _mm512_permutexvar_ps(_mm512_set1_epi32(15), _mm512_loadu_ps(i)));
  }
};
#endif

// ---- elementwise functions -------------------------------------------------

using Lanes = void (*)(const float*, float*);

std::vector<float> apply(Lanes f, int w, const std::vector<float>& in) {
  size_t n = (in.size() + w - 1) / w * w;
  std::vector<float> padded(in), out(n);
  padded.resize(n, 1.0f);
  for (size_t i = 0; i < n; i += w) f(padded.data() + i, out.data() + i);
  out.resize(in.size());
  return out;
}

struct Unary {
  const char* name;
  double (*ref)(double);
  double tol;      // max relative error where the result is a normal float
  double sub_tol;  // max absolute error where |result| < FLT_MIN
};

struct Accuracy {
  double max_rel = 0;
  float worst_x = 0, worst_got = 0;
  double worst_want = 0;
  long counted = 0, checked = 0;
  int printed = 0;
};

// Checks f on xs against u.ref, adding to a; failures are printed (the first few).
void measure(const char* target, const Unary& u, Lanes f, int w, const std::vector<float>& xs, Accuracy& a) {
  std::vector<float> got = apply(f, w, xs);
  auto bad = [&](size_t i, double want, const char* why) {
    if (a.printed++ < 5)
      fail(target, std::string(u.name) + "(" + fmt(xs[i]) + ") = " + fmt(got[i]) + ", want " + fmt(want) + " (" + why + ")");
    else
      ++failures;
  };
  for (size_t i = 0; i < xs.size(); ++i) {
    double want = u.ref(xs[i]);
    double g = got[i];
    ++a.checked;
    if (std::isnan(want)) {
      if (!std::isnan(g)) bad(i, want, "want NaN");
      continue;
    }
    double aw = std::fabs(want);
    if (aw > FLT_MAX) {  // overflows: +-inf, or within tolerance of +-FLT_MAX
      if (std::isnan(g) || std::signbit(g) != std::signbit(want) || std::fabs(g) < FLT_MAX * (1 - u.tol))
        bad(i, want, "overflow");
      continue;
    }
    if (aw < FLT_MIN) {
      if (!(std::fabs(g - want) <= u.sub_tol)) bad(i, want, "subnormal range");
      continue;
    }
    double rel = std::fabs(g - want) / aw;
    if (!(rel <= u.tol)) bad(i, want, ("rel " + fmt(rel)).c_str());
    ++a.counted;
    if (rel > a.max_rel || std::isnan(rel)) {
      a.max_rel = std::isnan(rel) ? INFINITY : rel;
      a.worst_x = xs[i];
      a.worst_got = got[i];
      a.worst_want = want;
    }
  }
}

void report(const char* target, const char* name, const Accuracy& a, double* worst, const char* over = "") {
  std::printf("[%s] %-5s max rel err %.3g at x=%.9g (got %.9g, want %.9g) over %ld normal results of %ld inputs%s\n",
              target, name, a.max_rel, a.worst_x, a.worst_got, a.worst_want, a.counted, a.checked, over);
  *worst = std::max(*worst, a.max_rel);
}

double ref_rsqrt(double x) { return 1.0 / std::sqrt(x); }
double ref_rcp(double x) { return 1.0 / x; }
double ref_exp(double x) { return std::exp(x); }
double ref_log(double x) { return std::log(x); }
double ref_tanh(double x) { return std::tanh(x); }

// Inputs: random bit patterns with |x| in [lo, hi] (both signs when signed),
// uniform values in [a, b], and runs of consecutive floats around points.
struct Inputs {
  std::mt19937_64 rng{12345};
  std::vector<float> xs;
  void bits(size_t n, float lo, float hi, bool signed_) {
    std::uniform_int_distribution<uint32_t> d(0, 0x7F7FFFFF);
    while (n) {
      float f = from_bits(d(rng));
      if (!(f >= lo && f <= hi)) continue;
      if (signed_ && (rng() & 1)) f = -f;
      xs.push_back(f);
      --n;
    }
  }
  void uniform(size_t n, float a, float b) {
    std::uniform_real_distribution<float> d(a, b);
    for (size_t i = 0; i < n; ++i) xs.push_back(d(rng));
  }
  void around(float x, int steps) {
    float lo = x, hi = x;
    for (int i = 0; i < steps; ++i) {
      lo = std::nextafter(lo, -INFINITY);
      hi = std::nextafter(hi, INFINITY);
      xs.push_back(lo);
      xs.push_back(hi);
    }
    xs.push_back(x);
  }
  void add(std::initializer_list<float> v) { xs.insert(xs.end(), v.begin(), v.end()); }
};

// Exact expectations for special inputs; want NaN means any NaN.
void expect(const char* target, const char* name, Lanes f, int w, std::vector<std::pair<float, float>> cases) {
  std::vector<float> xs;
  for (auto& c : cases) xs.push_back(c.first);
  std::vector<float> got = apply(f, w, xs);
  for (size_t i = 0; i < cases.size(); ++i) {
    float want = cases[i].second;
    bool ok = std::isnan(want) ? std::isnan(got[i])
                               : got[i] == want && std::signbit(got[i]) == std::signbit(want);
    if (!ok) fail(target, std::string(name) + "(" + fmt(xs[i]) + ") = " + fmt(got[i]) + ", want exactly " + fmt(want));
  }
}

template <class T>
void check_unary(double* worst) {
  const char* t = T::name;
  const int w = T::W;
  const float inf = INFINITY, nan = NAN;
  const float min_sub = from_bits(1);  // 2^-149
  const double sub3 = 3.0 * std::ldexp(1.0, -149);

  {  // exp
    Inputs in;
    in.uniform(2000000, -104.0f, 90.0f);
    in.bits(1000000, 0.0f, 110.0f, true);
    in.uniform(200000, -1e-3f, 1e-3f);
    in.around(88.72283172607421875f, 2000);
    in.around(-87.33654022216796875f, 2000);
    in.around(0.0f, 2000);
    Unary u{"exp", ref_exp, 2e-7, FLT_MIN};
    Accuracy a;
    measure(t, u, T::exp, w, in.xs, a);
    report(t, "exp", a, &worst[0]);
    expect(t, "exp", T::exp, w,
           {{0.0f, 1.0f}, {-0.0f, 1.0f}, {inf, inf}, {-inf, 0.0f}, {nan, nan}, {88.72284f, inf}, {89.0f, inf},
            {1000.0f, inf}, {-105.0f, 0.0f}, {-1000.0f, 0.0f}, {FLT_MAX, inf}, {-FLT_MAX, 0.0f}});
    std::vector<float> edge = apply(T::exp, w, {88.72283172607421875f, -87.33654022216796875f});
    if (!(std::isfinite(edge[0]) && edge[0] > 3.4e38f)) fail(t, "exp(88.72283) = " + fmt(edge[0]) + ", want finite");
    if (!(edge[1] > 0.0f)) fail(t, "exp(-87.33654) = " + fmt(edge[1]) + ", want > 0");
    // Below the smallest normal result: 0 where the target flushes
    // (T::exp_subnormal false), else within a few subnormal ulps.
    std::vector<float> low = {-87.33655f, -90.0f, -100.0f, -103.0f};
    std::vector<float> got = apply(T::exp, w, low);
    for (size_t i = 0; i < low.size(); ++i) {
      double want = std::exp(static_cast<double>(low[i]));
      bool ok = T::exp_subnormal ? std::fabs(got[i] - want) <= sub3 && got[i] > 0.0f : got[i] == 0.0f;
      if (!ok) fail(t, "exp(" + fmt(low[i]) + ") = " + fmt(got[i]) + (T::exp_subnormal ? ", want subnormal" : ", want 0"));
    }
  }
  {  // log
    Inputs in;
    in.bits(2000000, 0.0f, FLT_MAX, false);
    in.uniform(1000000, 0.5f, 2.0f);
    in.uniform(500000, 1.0f - 1e-3f, 1.0f + 1e-3f);
    in.around(1.0f, 5000);
    in.around(0.70710678f, 2000);
    in.around(1.41421356f, 2000);
    in.around(FLT_MIN, 2000);
    in.bits(200000, 0.0f, FLT_MIN, false);  // subnormal inputs
    in.add({min_sub, FLT_MAX, FLT_MIN, 2.0f, 0.5f, 10.0f});
    Unary u{"log", ref_log, 2e-7, 0.0};
    Accuracy a;
    measure(t, u, T::log, w, in.xs, a);
    report(t, "log", a, &worst[1]);
    expect(t, "log", T::log, w,
           {{1.0f, 0.0f}, {0.0f, -inf}, {-0.0f, -inf}, {-1.0f, nan}, {-min_sub, nan}, {-inf, nan}, {inf, inf},
            {nan, nan}, {-nan, nan}});
  }
  {  // tanh
    Inputs in;
    in.uniform(1000000, -10.0f, 10.0f);
    in.bits(2000000, 0.0f, 30.0f, true);
    in.around(0.625f, 5000);
    in.around(-0.625f, 5000);
    in.around(0.0f, 2000);
    in.uniform(200000, -1e-3f, 1e-3f);
    in.add({9.0f, 9.1f, 44.0f, 45.0f, 88.0f, 89.0f, 1e10f, FLT_MAX, -FLT_MAX, FLT_MIN, -FLT_MIN});
    Unary u{"tanh", ref_tanh, 2e-7, sub3};
    Accuracy a;
    measure(t, u, T::tanh, w, in.xs, a);
    report(t, "tanh", a, &worst[2]);
    expect(t, "tanh", T::tanh, w,
           {{0.0f, 0.0f}, {-0.0f, -0.0f}, {inf, 1.0f}, {-inf, -1.0f}, {nan, nan}, {20.0f, 1.0f}, {-20.0f, -1.0f},
            {1e-30f, 1e-30f}, {-1e-30f, -1e-30f}, {min_sub, min_sub}, {-min_sub, -min_sub}, {FLT_MAX, 1.0f}});
  }
  {  // rsqrt
    Inputs in;
    in.bits(3000000, 0.0f, FLT_MAX, false);
    in.uniform(500000, 0.25f, 4.0f);
    in.bits(200000, 0.0f, FLT_MIN, false);
    in.add({min_sub, FLT_MIN, FLT_MAX, 1.0f, 4.0f});
    Unary u{"rsqrt", ref_rsqrt, 3e-7, 0.0};
    Accuracy a;
    measure(t, u, T::rsqrt, w, in.xs, a);
    report(t, "rsqrt", a, &worst[3]);
    expect(t, "rsqrt", T::rsqrt, w,
           {{0.0f, inf}, {-0.0f, -inf}, {inf, 0.0f}, {-1.0f, nan}, {-inf, nan}, {nan, nan}});
  }
  {  // rcp
    Inputs in;
    in.bits(3000000, 0.0f, FLT_MAX, true);
    in.uniform(500000, -4.0f, 4.0f);
    in.bits(200000, 0.0f, FLT_MIN, true);
    in.around(std::ldexp(1.0f, -128), 1000);
    in.around(std::ldexp(1.0f, 126), 1000);
    in.add({min_sub, -min_sub, FLT_MIN, FLT_MAX, -FLT_MAX, 1.0f, 3.0f});
    Unary u{"rcp", ref_rcp, 3e-7, sub3};
    Accuracy a;
    measure(t, u, T::rcp, w, in.xs, a);
    report(t, "rcp", a, &worst[4]);
    expect(t, "rcp", T::rcp, w,
           {{0.0f, inf}, {-0.0f, -inf}, {inf, 0.0f}, {-inf, -0.0f}, {nan, nan}, {min_sub, inf}, {-min_sub, -inf}});
  }
}

// With --all: the same checks over every float (2^32 inputs per function).
template <class T>
void sweep_all(double* worst) {
  struct Function {
    Unary u;
    Lanes f;
  };
  const double sub3 = 3.0 * std::ldexp(1.0, -149);
  const Function fs[] = {{{"exp", ref_exp, 2e-7, FLT_MIN}, T::exp},
                         {{"log", ref_log, 2e-7, 0.0}, T::log},
                         {{"tanh", ref_tanh, 2e-7, sub3}, T::tanh},
                         {{"rsqrt", ref_rsqrt, 3e-7, 0.0}, T::rsqrt},
                         {{"rcp", ref_rcp, 3e-7, sub3}, T::rcp}};
  std::vector<float> xs(1 << 22);
  for (int k = 0; k < 5; ++k) {
    Accuracy a;
    for (uint64_t start = 0; start < (uint64_t{1} << 32); start += xs.size()) {
      for (size_t i = 0; i < xs.size(); ++i) xs[i] = from_bits(static_cast<uint32_t>(start + i));
      measure(T::name, fs[k].u, fs[k].f, T::W, xs, a);
    }
    report(T::name, fs[k].u.name, a, &worst[k], " (every float)");
  }
}

// ---- reductions, transpose, masks, emits ------------------------------------

template <class T>
void check_lanes() {
  const char* t = T::name;
  const int w = T::W;
  std::mt19937_64 rng(7);
  std::normal_distribution<float> nd(0.0f, 100.0f);
  double worst_add = 0;
  for (int trial = 0; trial < 100000; ++trial) {
    float v[16];
    for (int i = 0; i < w; ++i) v[i] = nd(rng);
    double sum = 0, sum_abs = 0;
    float mx = v[0], mn = v[0];
    for (int i = 0; i < w; ++i) sum += v[i], sum_abs += std::fabs(v[i]), mx = std::max(mx, v[i]), mn = std::min(mn, v[i]);
    double err = std::fabs(T::reduce_add(v) - sum) / sum_abs;  // a bound: log2(w) roundings of partial sums
    worst_add = std::max(worst_add, err);
    if (err > 4 * 0x1p-24 * 2) fail(t, "reduce_add error " + fmt(err) + " of sum |x|");
    if (T::reduce_max(v) != mx) fail(t, "reduce_max");
    if (T::reduce_min(v) != mn) fail(t, "reduce_min");
  }
  std::printf("[%s] reduce_add max error %.3g of sum|x| (100000 vectors); reduce_max/min exact\n", t, worst_add);

  // Prefix sums: exact on small integers (every partial sum representable,
  // so any order of additions gives the sequential result), and on random
  // values within log2(w) roundings of each lane's partial sum of |x|.
  {
    float v[16], o[16];
    for (int i = 0; i < w; ++i) v[i] = static_cast<float>((i * 7) % 5 - 2) + static_cast<float>(i) * 16.0f;
    T::prefix_sum(v, o);
    float run = 0;
    for (int i = 0; i < w; ++i) {
      run += v[i];
      if (o[i] != run) fail(t, "prefix_sum lane " + std::to_string(i) + ": " + fmt(o[i]) + ", want " + fmt(run));
    }
    T::bcast_last(v, o);
    for (int i = 0; i < w; ++i)
      if (o[i] != v[w - 1]) fail(t, "bcast_last lane " + std::to_string(i));
    double worst_prefix = 0;
    for (int trial = 0; trial < 100000; ++trial) {
      for (int i = 0; i < w; ++i) v[i] = nd(rng);
      T::prefix_sum(v, o);
      double sum = 0, sum_abs = 0;
      for (int i = 0; i < w; ++i) {
        sum += v[i], sum_abs += std::fabs(v[i]);
        double err = std::fabs(o[i] - sum) / sum_abs;
        worst_prefix = std::max(worst_prefix, err);
        if (err > 4 * 0x1p-24 * 2) fail(t, "prefix_sum error " + fmt(err) + " of sum |x| at lane " + std::to_string(i));
      }
    }
    std::printf("[%s] prefix_sum max error %.3g of sum|x| (100000 vectors), exact on integers; bcast_last exact\n", t,
                worst_prefix);
  }

  std::vector<float> m(w * w), out(w * w);
  for (int i = 0; i < w * w; ++i) m[i] = static_cast<float>(i);
  for (int in_place = 0; in_place < 2; ++in_place) {
    T::transpose(m.data(), out.data(), in_place);
    for (int r = 0; r < w; ++r)
      for (int c = 0; c < w; ++c)
        if (out[r * w + c] != m[c * w + r])
          fail(t, std::string("transpose") + (in_place ? " in place" : "") + " at " + std::to_string(r) + "," +
                      std::to_string(c));
  }

  for (int n = 0; n <= w; ++n) {
    uint32_t want = n == 32 ? ~0u : (1u << n) - 1u;
    if (T::tail_mask(n) != want) fail(t, "tail mask " + std::to_string(n));
  }

  float src[16], x[16], o[16];
  for (int i = 0; i < w; ++i) src[i] = 100.0f + i, x[i] = -1.0f - i;
  for (int R = 1; R <= w; ++R) {
    T::mask_mov(src, x, R, o);
    for (int i = 0; i < w; ++i)
      if (o[i] != (i < R ? x[i] : src[i])) fail(t, "mask_mov_ps R=" + std::to_string(R) + " lane " + std::to_string(i));
  }
  float a[16], b[16], c[16], d[16];
  for (int i = 0; i < w; ++i) {
    a[i] = static_cast<float>(i % 3);
    b[i] = static_cast<float>(i % 2);
    c[i] = 10.0f + i;
    d[i] = 20.0f + i;
  }
  a[w - 1] = b[w - 1] = NAN;   // NaN == NaN is false
  a[w - 2] = 0.0f, b[w - 2] = -0.0f;  // 0 == -0
  T::select_eq(a, b, c, d, o);
  for (int i = 0; i < w; ++i)
    if (o[i] != (a[i] == b[i] ? c[i] : d[i])) fail(t, "select_eq_ps lane " + std::to_string(i));
  std::printf("[%s] transpose%dx%d (also in place), tail masks, mask_mov_ps, select_eq_ps: checked\n", t, w, w);
}

// ---- strided gathers ---------------------------------------------------------

sigjmp_buf fault_jump;
void on_fault(int) { siglongjmp(fault_jump, 1); }

// An array x of `rows` rows of stride s floats whose last read element,
// x[(rows - 1) s], is the last float before a PROT_NONE region that covers
// every address lanes up to 16 could name (x + 16 s floats).
struct Guarded {
  char* base = nullptr;
  size_t size = 0;
  float* x = nullptr;
  bool make(int rows, int64_t s) {
    size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    size_t span = (static_cast<size_t>(rows - 1) * s + 1) * 4;
    size_t open = (span + page - 1) / page * page;
    size = open + (static_cast<size_t>(16) * s * 4 + page) / page * page + page;
    void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) return false;
    base = static_cast<char*>(p);
    if (mprotect(base + open, size - open, PROT_NONE) != 0) return false;
    x = reinterpret_cast<float*>(base + open - span);
    for (int i = 0; i < rows; ++i) x[static_cast<size_t>(i) * s] = 1.0f + i;
    return true;
  }
  ~Guarded() {
    if (base) munmap(base, size);
  }
};

template <class T>
void check_strided() {
  const char* t = T::name;
  const int w = T::W;
  struct sigaction sa = {}, old_segv = {}, old_bus = {};
  sa.sa_handler = on_fault;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGSEGV, &sa, &old_segv);
  sigaction(SIGBUS, &sa, &old_bus);
  const int64_t limit32 = INT32_MAX / (w - 1);  // the largest stride with 32-bit indices
  const int64_t strides[] = {1, 2, 3, 5, 16, 1000, 1025, 65536, limit32, limit32 + 1, 1073741824};
  int cases = 0;
  for (int64_t s : strides) {
    for (int rows = 1; rows <= w; ++rows) {
      // Large strides reserve up to 16 s floats of address space each; keep
      // the row counts of those few.
      if (s > 65536 && rows != 1 && rows != 2 && rows != w - 1 && rows != w) continue;
      Guarded g;
      if (!g.make(rows, s)) {
        std::printf("[%s] note: could not map %d rows of stride %lld; skipped\n", t, rows, static_cast<long long>(s));
        continue;
      }
      float o[16];
      std::string what = "rows=" + std::to_string(rows) + " stride=" + std::to_string(s);
      if (sigsetjmp(fault_jump, 1)) {
        fail(t, "masked strided load read past its rows (fault), " + what);
        continue;
      }
      T::maskload_strided(g.x, s, rows, o);
      for (int i = 0; i < w; ++i)
        if (o[i] != (i < rows ? 1.0f + i : 0.0f))
          fail(t, "masked strided load lane " + std::to_string(i) + " = " + fmt(o[i]) + ", " + what);
      if (rows == w) {
        if (sigsetjmp(fault_jump, 1)) {
          fail(t, "strided load faulted, " + what);
          continue;
        }
        T::load_strided(g.x, s, o);
        for (int i = 0; i < w; ++i)
          if (o[i] != 1.0f + i) fail(t, "strided load lane " + std::to_string(i) + " = " + fmt(o[i]) + ", " + what);
      }
      ++cases;
    }
  }
  sigaction(SIGSEGV, &old_segv, nullptr);
  sigaction(SIGBUS, &old_bus, nullptr);
  std::printf("[%s] strided loads: %d (rows, stride) cases, strides 1 .. 2^30 (32- and 64-bit indices), "
              "inactive lanes in PROT_NONE memory\n", t, cases);
}

template <class T>
bool run_target(double* worst, bool all) {
  if (!T::supported()) {
    std::printf("[%s] CPU lacks the instructions; skipped\n", T::name);
    return false;
  }
  check_unary<T>(worst);
  if (all) sweep_all<T>(worst);
  check_lanes<T>();
  check_strided<T>();
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  bool all = argc > 1 && std::strcmp(argv[1], "--all") == 0;  // also sweep every float (minutes)
  double worst[5] = {0, 0, 0, 0, 0};
#ifdef AXON_CHECK_AVX512
  bool ran = run_target<Avx512>(worst, all);
#else
  bool ran = run_target<Avx2>(worst, all);
#endif
  if (!ran) return 77;
  std::printf("max rel err: exp %.3g, log %.3g, tanh %.3g, rsqrt %.3g, rcp %.3g\n", worst[0], worst[1], worst[2],
              worst[3], worst[4]);
  if (failures) {
    std::printf("%d failure(s)\n", failures);
    return 1;
  }
  std::printf("all checks passed\n");
  return 0;
}
