// Prelude for kernels emitted for hw/x86-avx512.json: the helpers that its
// instructions' emit texts call. Self-contained; compile with
// -mavx512f -mavx512dq -mavx2 -mfma.
//
// exp/log/tanh use the same range reductions and polynomials as
// hw/x86-avx2-prelude.h (max relative error <= 2e-7 there, measured by
// tests/hw/prelude_check.cpp); rsqrt/rcp start from the 2^-14 approximations,
// so one Newton step leaves only rounding error. Special values as in the
// AVX2 prelude, but exp: it overflows to +inf above 88.72283 and is
// subnormal, not 0, from -87.33654 down to -103.97; log(0) = -inf,
// log(x < 0) = NaN; tanh saturates to +-1; rsqrt(0) = +inf, rcp(+-0) = +-inf, rcp(+-inf) = +-0. Subnormal inputs are
// scaled into the normal range, not flushed.
#ifndef AXON_X86_AVX512_PRELUDE_H
#define AXON_X86_AVX512_PRELUDE_H

#include <immintrin.h>

#include <cmath>
#include <cstdint>

// A streaming (non-temporal) store: the line goes to memory without being
// read into the caches first. _mm512_stream_ps needs a 64-byte aligned address;
// at any other address the vector is stored the ordinary way. Weakly ordered:
// the kernel runs _mm_sfence() on each thread after its last one.
static inline void axon_stream_ps(float* p, __m512 v) {
  if ((reinterpret_cast<uintptr_t>(p) & 63u) == 0)
    _mm512_stream_ps(p, v);
  else
    _mm512_storeu_ps(p, v);
}

// e^x: n = round(x / ln 2), r = x - n ln 2, e^r by the Cephes polynomial,
// times 2^n by vscalefps, which rounds to +inf above the largest finite
// result and gives subnormals, then 0, below the smallest normal one, so the
// fast path needs no compare or blend. x is clamped to [-150, 150] first (NaN
// stays NaN), which keeps n small and r exact; n is rounded by adding and
// subtracting 1.5 2^23 (ties to even, as vrndscaleps would).
static inline __m512 axon_exp_ps(__m512 x) {
  // The second operand of min/max is returned for NaN, so NaN stays NaN.
  __m512 xc = _mm512_max_ps(_mm512_set1_ps(-150.0f), _mm512_min_ps(_mm512_set1_ps(150.0f), x));
  const __m512 round = _mm512_set1_ps(12582912.0f);
  __m512 n = _mm512_sub_ps(_mm512_fmadd_ps(xc, _mm512_set1_ps(1.44269504088896341f), round), round);
  __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693359375f), xc);
  r = _mm512_fnmadd_ps(n, _mm512_set1_ps(-2.12194440e-4f), r);
  __m512 p = _mm512_set1_ps(1.9875691500e-4f);
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.3981999507e-3f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(8.3334519073e-3f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(4.1665795894e-2f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.6666665459e-1f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(5.0000001201e-1f));
  __m512 y = _mm512_fmadd_ps(p, _mm512_mul_ps(r, r), r);
  y = _mm512_add_ps(y, _mm512_set1_ps(1.0f));
  return _mm512_scalef_ps(y, n);
}

// ln x: x = m 2^e with m in [sqrt(1/2), sqrt(2)) (vgetmantps/vgetexpps, which
// also take subnormals), then the Cephes logf polynomial.
static inline __m512 axon_log_ps(__m512 x) {
  const __m512 one = _mm512_set1_ps(1.0f);
  // m in [0.5, 1), x = m 2^(getexp(x) + 1)
  __m512 m = _mm512_getmant_ps(x, _MM_MANT_NORM_p5_1, _MM_MANT_SIGN_zero);
  __m512 e = _mm512_add_ps(_mm512_getexp_ps(x), one);
  __mmask16 below = _mm512_cmp_ps_mask(m, _mm512_set1_ps(0.707106781186547524f), _CMP_LT_OQ);
  e = _mm512_mask_sub_ps(e, below, e, one);
  m = _mm512_mask_add_ps(m, below, m, m);
  __m512 f = _mm512_sub_ps(m, one);
  __m512 z = _mm512_mul_ps(f, f);
  __m512 p = _mm512_set1_ps(7.0376836292e-2f);
  p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(-1.1514610310e-1f));
  p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(1.1676998740e-1f));
  p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(-1.2420140846e-1f));
  p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(1.4249322787e-1f));
  p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(-1.6668057665e-1f));
  p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(2.0000714765e-1f));
  p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(-2.4999993993e-1f));
  p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(3.3333331174e-1f));
  __m512 y = _mm512_mul_ps(_mm512_mul_ps(p, f), z);
  y = _mm512_fmadd_ps(e, _mm512_set1_ps(-2.12194440e-4f), y);
  y = _mm512_fmadd_ps(z, _mm512_set1_ps(-0.5f), y);
  __m512 r = _mm512_add_ps(f, y);
  r = _mm512_fmadd_ps(e, _mm512_set1_ps(0.693359375f), r);
  r = _mm512_mask_mov_ps(r, _mm512_cmp_ps_mask(x, _mm512_set1_ps(INFINITY), _CMP_EQ_OQ), _mm512_set1_ps(INFINITY));
  r = _mm512_mask_mov_ps(r, _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_EQ_OQ), _mm512_set1_ps(-INFINITY));
  // x < 0 or NaN
  r = _mm512_mask_mov_ps(r, _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_NGE_UQ), _mm512_set1_ps(NAN));
  return r;
}

// tanh x: an odd polynomial for |x| <= 0.625, else 1 - 2 / (e^{2|x|} + 1)
// with the sign of x.
static inline __m512 axon_tanh_ps(__m512 x) {
  const __m512 one = _mm512_set1_ps(1.0f);
  __m512 ax = _mm512_abs_ps(x);
  __m512 e = axon_exp_ps(_mm512_add_ps(ax, ax));
  __m512 big = _mm512_sub_ps(one, _mm512_div_ps(_mm512_set1_ps(2.0f), _mm512_add_ps(e, one)));
  __m512 z = _mm512_mul_ps(x, x);
  __m512 p = _mm512_set1_ps(-5.70498872745e-3f);
  p = _mm512_fmadd_ps(p, z, _mm512_set1_ps(2.06390887954e-2f));
  p = _mm512_fmadd_ps(p, z, _mm512_set1_ps(-5.37397155531e-2f));
  p = _mm512_fmadd_ps(p, z, _mm512_set1_ps(1.33314422036e-1f));
  p = _mm512_fmadd_ps(p, z, _mm512_set1_ps(-3.33332819422e-1f));
  __m512 small = _mm512_fmadd_ps(_mm512_mul_ps(p, z), x, x);
  __m512 r = _mm512_mask_mov_ps(small, _mm512_cmp_ps_mask(ax, _mm512_set1_ps(0.625f), _CMP_GT_OQ), big);
  // Both parts have the sign of x except big (made for |x|) and small at
  // x = -0 (which rounds to +0): set the sign bit of x.
  return _mm512_castsi512_ps(_mm512_or_si512(
      _mm512_castps_si512(r), _mm512_and_si512(_mm512_castps_si512(x), _mm512_set1_epi32(INT32_MIN))));
}

// 1 / sqrt(x): vrsqrt14ps (rel. error < 2^-14) and one Newton step. x < 2^-100
// is scaled by 2^64 (the result by 2^32) so that subnormals are exact inputs;
// 0 and +inf keep the approximation (+inf, 0).
static inline __m512 axon_rsqrt14_refined(__m512 x) {
  __mmask16 small = _mm512_cmp_ps_mask(x, _mm512_set1_ps(7.88860905e-31f), _CMP_LT_OQ);  // 2^-100
  __m512 xs = _mm512_mask_mul_ps(x, small, x, _mm512_set1_ps(18446744073709551616.0f));
  __m512 scale = _mm512_mask_mov_ps(_mm512_set1_ps(1.0f), small, _mm512_set1_ps(4294967296.0f));
  __m512 y = _mm512_rsqrt14_ps(xs);
  __m512 r = _mm512_fnmadd_ps(_mm512_mul_ps(xs, y), y, _mm512_set1_ps(1.0f));  // 1 - x y^2
  __m512 y1 = _mm512_fmadd_ps(_mm512_mul_ps(y, _mm512_set1_ps(0.5f)), r, y);
  __mmask16 special = _mm512_cmp_ps_mask(xs, _mm512_setzero_ps(), _CMP_EQ_OQ) |
                      _mm512_cmp_ps_mask(xs, _mm512_set1_ps(INFINITY), _CMP_EQ_OQ);
  return _mm512_mul_ps(_mm512_mask_mov_ps(y1, special, y), scale);
}

// 1 / x: vrcp14ps (rel. error < 2^-14) and one Newton step. |x| < 2^-100 is
// scaled by 2^64 and |x| > 2^100 by 2^-64 (the result by the same factor);
// +-0 and +-inf keep the approximation (+-inf, +-0).
static inline __m512 axon_rcp14_refined(__m512 x) {
  __m512 ax = _mm512_abs_ps(x);
  __m512 scale = _mm512_mask_mov_ps(_mm512_set1_ps(1.0f),
                                    _mm512_cmp_ps_mask(ax, _mm512_set1_ps(7.88860905e-31f), _CMP_LT_OQ),
                                    _mm512_set1_ps(18446744073709551616.0f));
  scale = _mm512_mask_mov_ps(scale, _mm512_cmp_ps_mask(ax, _mm512_set1_ps(1.2676506e30f), _CMP_GT_OQ),
                             _mm512_set1_ps(5.42101086e-20f));
  __m512 xs = _mm512_mul_ps(x, scale);
  __m512 y = _mm512_rcp14_ps(xs);
  __m512 r = _mm512_fnmadd_ps(xs, y, _mm512_set1_ps(1.0f));  // 1 - x y
  __m512 y1 = _mm512_fmadd_ps(y, r, y);
  __m512 axs = _mm512_abs_ps(xs);
  __mmask16 special = _mm512_cmp_ps_mask(axs, _mm512_setzero_ps(), _CMP_EQ_OQ) |
                      _mm512_cmp_ps_mask(axs, _mm512_set1_ps(INFINITY), _CMP_EQ_OQ);
  return _mm512_mul_ps(_mm512_mask_mov_ps(y1, special, y), scale);
}

// out[j][i] = in[i][j]; every read of in comes before the first write of out,
// so out may be in itself.
static inline void axon_transpose16x16(__m512 out[16], const __m512 in[16]) {
  __m512 t[16], u[16];
  // Interleave pairs of rows, then pairs of pairs: within each 128-bit lane,
  // u[4 k + j] holds elements (4 k .. 4 k + 3, lane column j).
  for (int i = 0; i < 8; ++i) {
    t[2 * i] = _mm512_unpacklo_ps(in[2 * i], in[2 * i + 1]);
    t[2 * i + 1] = _mm512_unpackhi_ps(in[2 * i], in[2 * i + 1]);
  }
  for (int k = 0; k < 4; ++k) {
    u[4 * k + 0] = _mm512_shuffle_ps(t[4 * k], t[4 * k + 2], _MM_SHUFFLE(1, 0, 1, 0));
    u[4 * k + 1] = _mm512_shuffle_ps(t[4 * k], t[4 * k + 2], _MM_SHUFFLE(3, 2, 3, 2));
    u[4 * k + 2] = _mm512_shuffle_ps(t[4 * k + 1], t[4 * k + 3], _MM_SHUFFLE(1, 0, 1, 0));
    u[4 * k + 3] = _mm512_shuffle_ps(t[4 * k + 1], t[4 * k + 3], _MM_SHUFFLE(3, 2, 3, 2));
  }
  // u[4 k + j], 128-bit lane l: rows 4 k .. 4 k + 3 of column 4 l + j.
  // Gather the 128-bit lanes: first pairs of row groups, then all four.
  for (int j = 0; j < 4; ++j) {
    __m512 a = _mm512_shuffle_f32x4(u[j], u[4 + j], _MM_SHUFFLE(2, 0, 2, 0));       // groups 0,1: lanes 0,2
    __m512 b = _mm512_shuffle_f32x4(u[j], u[4 + j], _MM_SHUFFLE(3, 1, 3, 1));       // groups 0,1: lanes 1,3
    __m512 c = _mm512_shuffle_f32x4(u[8 + j], u[12 + j], _MM_SHUFFLE(2, 0, 2, 0));  // groups 2,3: lanes 0,2
    __m512 d = _mm512_shuffle_f32x4(u[8 + j], u[12 + j], _MM_SHUFFLE(3, 1, 3, 1));  // groups 2,3: lanes 1,3
    out[j] = _mm512_shuffle_f32x4(a, c, _MM_SHUFFLE(2, 0, 2, 0));       // lane 0 of groups 0..3
    out[8 + j] = _mm512_shuffle_f32x4(a, c, _MM_SHUFFLE(3, 1, 3, 1));   // lane 2
    out[4 + j] = _mm512_shuffle_f32x4(b, d, _MM_SHUFFLE(2, 0, 2, 0));   // lane 1
    out[12 + j] = _mm512_shuffle_f32x4(b, d, _MM_SHUFFLE(3, 1, 3, 1));  // lane 3
  }
}

// x[0], x[s], ..., x[15 s]: a gather. 32-bit indices (lane * s) while 15 s
// fits in an int32 (s <= 143165576), else two gathers with 64-bit indices.
// s is a constant in emitted code, so the branch folds away.
static inline __m512 axon_load_strided_ps(const float* x, int64_t s) {
  if (s <= INT32_MAX / 15) {
    __m512i idx = _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                                     _mm512_set1_epi32(static_cast<int>(s)));
    return _mm512_i32gather_ps(idx, x, 4);
  }
  __m512i lanes = _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7);
  __m512i idx_lo = _mm512_mullo_epi64(lanes, _mm512_set1_epi64(s));
  __m512i idx_hi = _mm512_add_epi64(idx_lo, _mm512_set1_epi64(8 * s));
  __m256 lo = _mm512_i64gather_ps(idx_lo, x, 4);
  __m256 hi = _mm512_i64gather_ps(idx_hi, x, 4);
  return _mm512_insertf32x8(_mm512_castps256_ps512(lo), hi, 1);
}

// x[0], x[s], ..., x[(n - 1) s] in lanes i < n (n in [1, 16]), zero in the
// rest. A masked gather: memory of the inactive lanes is never read.
static inline __m512 axon_maskz_load_strided_ps(const float* x, int64_t s, int n) {
  __mmask16 k = static_cast<__mmask16>((1u << n) - 1u);
  if (s <= INT32_MAX / 15) {
    __m512i idx = _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                                     _mm512_set1_epi32(static_cast<int>(s)));
    return _mm512_mask_i32gather_ps(_mm512_setzero_ps(), k, idx, x, 4);
  }
  __m512i lanes = _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7);
  __m512i idx_lo = _mm512_mullo_epi64(lanes, _mm512_set1_epi64(s));
  __m512i idx_hi = _mm512_add_epi64(idx_lo, _mm512_set1_epi64(8 * s));
  __m256 lo = _mm512_mask_i64gather_ps(_mm256_setzero_ps(), static_cast<__mmask8>(k), idx_lo, x, 4);
  __m256 hi = _mm512_mask_i64gather_ps(_mm256_setzero_ps(), static_cast<__mmask8>(k >> 8), idx_hi, x, 4);
  return _mm512_insertf32x8(_mm512_castps256_ps512(lo), hi, 1);
}

// Inclusive prefix sums of the 16 lanes (lane i = x[0] + ... + x[i]): four
// shift-and-add steps; valignd against zero moves the lanes up by 1, 2, 4
// and 8 with zeros shifted in.
static inline __m512 axon_prefix_sum_ps(__m512 x) {
  const __m512i zero = _mm512_setzero_si512();
  x = _mm512_add_ps(x, _mm512_castsi512_ps(_mm512_alignr_epi32(_mm512_castps_si512(x), zero, 15)));
  x = _mm512_add_ps(x, _mm512_castsi512_ps(_mm512_alignr_epi32(_mm512_castps_si512(x), zero, 14)));
  x = _mm512_add_ps(x, _mm512_castsi512_ps(_mm512_alignr_epi32(_mm512_castps_si512(x), zero, 12)));
  return _mm512_add_ps(x, _mm512_castsi512_ps(_mm512_alignr_epi32(_mm512_castps_si512(x), zero, 8)));
}

#endif  // AXON_X86_AVX512_PRELUDE_H
