// Prelude for kernels emitted for hw/x86-avx2.json: the helpers that its
// instructions' emit texts call. Self-contained; compile with -mavx2 -mfma.
//
// Accuracy: max relative error over finite inputs whose results are normal
// floats, bounds checked by tests/hw/prelude_check.cpp, measured over every
// float on AMD EPYC (Zen 4; rsqrt/rcp depend on the CPU's approximation tables):
//   axon_exp_ps256    <= 2e-7 (measured 8.5e-8)
//   axon_log_ps256    <= 2e-7 (measured 8.2e-8)
//   axon_tanh_ps256   <= 2e-7 (measured 1.4e-7)
//   axon_rsqrt_refined_ps256, axon_rcp_refined_ps256 <= 3e-7 (measured 1.7e-7, 1.5e-7)
// Special values follow libm: exp(+inf) = +inf, exp(-inf) = 0, exp(NaN) = NaN;
// exp overflows to +inf above 88.72283 and returns 0 below -87.33654 (no
// subnormal results); log(0) = -inf, log(x < 0) = NaN, log(+inf) = +inf;
// tanh(+-inf) = +-1; rsqrt(0) = +inf, rsqrt(+inf) = 0, rsqrt(x < 0) = NaN;
// rcp(+-0) = +-inf, rcp(+-inf) = +-0. Subnormal inputs are handled (scaled
// into the normal range), not flushed.
#ifndef AXON_X86_AVX2_PRELUDE_H
#define AXON_X86_AVX2_PRELUDE_H

#include <immintrin.h>

#include <cmath>
#include <cstdint>

// A streaming (non-temporal) store: the line goes to memory without being
// read into the caches first. _mm256_stream_ps needs a 32-byte aligned address;
// at any other address the vector is stored the ordinary way. Weakly ordered:
// the kernel runs _mm_sfence() on each thread after its last one.
static inline void axon_stream_ps(float* p, __m256 v) {
  if ((reinterpret_cast<uintptr_t>(p) & 31u) == 0)
    _mm256_stream_ps(p, v);
  else
    _mm256_storeu_ps(p, v);
}

// Lanes i < n all ones, the rest zero (n in [0, 8]).
static inline __m256i axon_tail_mask8(int n) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

// 2^n for integer lanes n in [-126, 127], built from the exponent bits.
static inline __m256 axon_pow2i_ps256(__m256i n) {
  return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(n, _mm256_set1_epi32(127)), 23));
}

// e^x. Cephes expf: n = round(x / ln 2), r = x - n ln 2 (two-part ln 2),
// e^r by a degree-7 polynomial, then times 2^n in two halves so that n = 128
// (x just under the overflow bound) needs no special case.
static inline __m256 axon_exp_ps256(__m256 x) {
  const __m256 hi = _mm256_set1_ps(88.72283172607421875f);   // largest x with a finite result
  const __m256 lo = _mm256_set1_ps(-87.33654022216796875f);  // smallest x with a normal result
  // The second operand of min/max is returned for NaN, so NaN stays NaN.
  __m256 xc = _mm256_max_ps(lo, _mm256_min_ps(hi, x));
  __m256 n = _mm256_round_ps(_mm256_mul_ps(xc, _mm256_set1_ps(1.44269504088896341f)),
                             _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693359375f), xc);
  r = _mm256_fnmadd_ps(n, _mm256_set1_ps(-2.12194440e-4f), r);
  __m256 p = _mm256_set1_ps(1.9875691500e-4f);
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.3981999507e-3f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(8.3334519073e-3f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(4.1665795894e-2f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.6666665459e-1f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(5.0000001201e-1f));
  __m256 y = _mm256_fmadd_ps(p, _mm256_mul_ps(r, r), r);
  y = _mm256_add_ps(y, _mm256_set1_ps(1.0f));
  __m256i ni = _mm256_cvtps_epi32(n);  // in [-126, 128] for non-NaN x
  __m256i n1 = _mm256_srai_epi32(ni, 1);
  __m256i n2 = _mm256_sub_epi32(ni, n1);
  y = _mm256_mul_ps(_mm256_mul_ps(y, axon_pow2i_ps256(n1)), axon_pow2i_ps256(n2));
  y = _mm256_blendv_ps(y, _mm256_set1_ps(INFINITY), _mm256_cmp_ps(x, hi, _CMP_GT_OQ));
  y = _mm256_blendv_ps(y, _mm256_setzero_ps(), _mm256_cmp_ps(x, lo, _CMP_LT_OQ));
  return y;
}

// ln x. Cephes logf: x = m 2^e with m in [sqrt(1/2), sqrt(2)), ln(1 + f) by a
// degree-9 polynomial in f = m - 1, plus e ln 2 (two-part ln 2). Subnormal x is
// first scaled by 2^24.
static inline __m256 axon_log_ps256(__m256 x) {
  const __m256 one = _mm256_set1_ps(1.0f);
  __m256 tiny = _mm256_cmp_ps(x, _mm256_set1_ps(1.17549435e-38f), _CMP_LT_OQ);
  __m256 xs = _mm256_blendv_ps(x, _mm256_mul_ps(x, _mm256_set1_ps(16777216.0f)), tiny);
  __m256i bits = _mm256_castps_si256(xs);
  __m256i ei = _mm256_sub_epi32(_mm256_srli_epi32(bits, 23), _mm256_set1_epi32(126));
  __m256 e = _mm256_add_ps(_mm256_cvtepi32_ps(ei), _mm256_and_ps(tiny, _mm256_set1_ps(-24.0f)));
  // m in [0.5, 1)
  __m256 m = _mm256_castsi256_ps(_mm256_or_si256(_mm256_and_si256(bits, _mm256_set1_epi32(0x007FFFFF)),
                                                 _mm256_set1_epi32(0x3F000000)));
  __m256 below = _mm256_cmp_ps(m, _mm256_set1_ps(0.707106781186547524f), _CMP_LT_OQ);
  e = _mm256_sub_ps(e, _mm256_and_ps(below, one));
  __m256 f = _mm256_sub_ps(_mm256_add_ps(m, _mm256_and_ps(below, m)), one);
  __m256 z = _mm256_mul_ps(f, f);
  __m256 p = _mm256_set1_ps(7.0376836292e-2f);
  p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(-1.1514610310e-1f));
  p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(1.1676998740e-1f));
  p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(-1.2420140846e-1f));
  p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(1.4249322787e-1f));
  p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(-1.6668057665e-1f));
  p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(2.0000714765e-1f));
  p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(-2.4999993993e-1f));
  p = _mm256_fmadd_ps(p, f, _mm256_set1_ps(3.3333331174e-1f));
  __m256 y = _mm256_mul_ps(_mm256_mul_ps(p, f), z);
  y = _mm256_fmadd_ps(e, _mm256_set1_ps(-2.12194440e-4f), y);
  y = _mm256_fmadd_ps(z, _mm256_set1_ps(-0.5f), y);
  __m256 r = _mm256_add_ps(f, y);
  r = _mm256_fmadd_ps(e, _mm256_set1_ps(0.693359375f), r);
  r = _mm256_blendv_ps(r, _mm256_set1_ps(INFINITY), _mm256_cmp_ps(x, _mm256_set1_ps(INFINITY), _CMP_EQ_OQ));
  r = _mm256_blendv_ps(r, _mm256_set1_ps(-INFINITY), _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_EQ_OQ));
  // x < 0 or NaN (not x >= 0, unordered counts as true)
  r = _mm256_blendv_ps(r, _mm256_set1_ps(NAN), _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_NGE_UQ));
  return r;
}

// tanh x. Cephes tanhf: an odd polynomial for |x| <= 0.625, else
// 1 - 2 / (e^{2|x|} + 1) with the sign of x (saturates to +-1).
static inline __m256 axon_tanh_ps256(__m256 x) {
  const __m256 sign_bit = _mm256_set1_ps(-0.0f);
  const __m256 one = _mm256_set1_ps(1.0f);
  __m256 ax = _mm256_andnot_ps(sign_bit, x);
  __m256 e = axon_exp_ps256(_mm256_add_ps(ax, ax));
  __m256 big = _mm256_sub_ps(one, _mm256_div_ps(_mm256_set1_ps(2.0f), _mm256_add_ps(e, one)));
  __m256 z = _mm256_mul_ps(x, x);
  __m256 p = _mm256_set1_ps(-5.70498872745e-3f);
  p = _mm256_fmadd_ps(p, z, _mm256_set1_ps(2.06390887954e-2f));
  p = _mm256_fmadd_ps(p, z, _mm256_set1_ps(-5.37397155531e-2f));
  p = _mm256_fmadd_ps(p, z, _mm256_set1_ps(1.33314422036e-1f));
  p = _mm256_fmadd_ps(p, z, _mm256_set1_ps(-3.33332819422e-1f));
  __m256 small = _mm256_fmadd_ps(_mm256_mul_ps(p, z), x, x);
  __m256 r = _mm256_blendv_ps(small, big, _mm256_cmp_ps(ax, _mm256_set1_ps(0.625f), _CMP_GT_OQ));
  // Both parts have the sign of x except big (made for |x|) and small at
  // x = -0 (which rounds to +0): set the sign bit of x.
  return _mm256_or_ps(r, _mm256_and_ps(sign_bit, x));
}

// 1 / sqrt(x): rsqrtps (rel. error <= 1.5 * 2^-12) and one Newton step.
// rsqrtps treats subnormal inputs as zero, so x < 2^-100 is scaled by 2^64
// (the result by 2^32); 0 and +inf keep the exact approximation (+inf, 0).
static inline __m256 axon_rsqrt_refined_ps256(__m256 x) {
  __m256 small = _mm256_cmp_ps(x, _mm256_set1_ps(7.88860905e-31f), _CMP_LT_OQ);  // 2^-100
  __m256 xs = _mm256_blendv_ps(x, _mm256_mul_ps(x, _mm256_set1_ps(18446744073709551616.0f)), small);
  __m256 scale = _mm256_blendv_ps(_mm256_set1_ps(1.0f), _mm256_set1_ps(4294967296.0f), small);
  __m256 y = _mm256_rsqrt_ps(xs);
  __m256 r = _mm256_fnmadd_ps(_mm256_mul_ps(xs, y), y, _mm256_set1_ps(1.0f));  // 1 - x y^2
  __m256 y1 = _mm256_fmadd_ps(_mm256_mul_ps(y, _mm256_set1_ps(0.5f)), r, y);   // y (1 + r / 2)
  __m256 special = _mm256_or_ps(_mm256_cmp_ps(xs, _mm256_setzero_ps(), _CMP_EQ_OQ),
                                _mm256_cmp_ps(xs, _mm256_set1_ps(INFINITY), _CMP_EQ_OQ));
  return _mm256_mul_ps(_mm256_blendv_ps(y1, y, special), scale);
}

// 1 / x: rcpps (rel. error <= 1.5 * 2^-12) and one Newton step. rcpps flushes
// subnormal inputs and results, so |x| < 2^-100 is scaled by 2^64 and
// |x| > 2^100 by 2^-64 (the result by the same factor); +-0 and +-inf keep the
// exact approximation (+-inf, +-0).
static inline __m256 axon_rcp_refined_ps256(__m256 x) {
  __m256 ax = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), x);
  __m256 scale = _mm256_blendv_ps(_mm256_set1_ps(1.0f), _mm256_set1_ps(18446744073709551616.0f),
                                  _mm256_cmp_ps(ax, _mm256_set1_ps(7.88860905e-31f), _CMP_LT_OQ));
  scale = _mm256_blendv_ps(scale, _mm256_set1_ps(5.42101086e-20f),  // 2^-64
                           _mm256_cmp_ps(ax, _mm256_set1_ps(1.2676506e30f), _CMP_GT_OQ));  // 2^100
  __m256 xs = _mm256_mul_ps(x, scale);
  __m256 y = _mm256_rcp_ps(xs);
  __m256 r = _mm256_fnmadd_ps(xs, y, _mm256_set1_ps(1.0f));  // 1 - x y
  __m256 y1 = _mm256_fmadd_ps(y, r, y);
  __m256 axs = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), xs);
  __m256 special = _mm256_or_ps(_mm256_cmp_ps(axs, _mm256_setzero_ps(), _CMP_EQ_OQ),
                                _mm256_cmp_ps(axs, _mm256_set1_ps(INFINITY), _CMP_EQ_OQ));
  return _mm256_mul_ps(_mm256_blendv_ps(y1, y, special), scale);
}

// Horizontal reductions to a scalar (pairwise order: halves, then quarters, ...).
// max/min follow x86 NaN rules (maxps/minps), like max_ps/min_ps.
static inline float axon_reduce_add_ps256(__m256 x) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(x), _mm256_extractf128_ps(x, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

static inline float axon_reduce_max_ps256(__m256 x) {
  __m128 s = _mm_max_ps(_mm256_castps256_ps128(x), _mm256_extractf128_ps(x, 1));
  s = _mm_max_ps(s, _mm_movehl_ps(s, s));
  s = _mm_max_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

static inline float axon_reduce_min_ps256(__m256 x) {
  __m128 s = _mm_min_ps(_mm256_castps256_ps128(x), _mm256_extractf128_ps(x, 1));
  s = _mm_min_ps(s, _mm_movehl_ps(s, s));
  s = _mm_min_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

// out[j][i] = in[i][j]; every read of in comes before the first write of out,
// so out may be in itself.
static inline void axon_transpose8x8(__m256 out[8], const __m256 in[8]) {
  __m256 t0 = _mm256_unpacklo_ps(in[0], in[1]);
  __m256 t1 = _mm256_unpackhi_ps(in[0], in[1]);
  __m256 t2 = _mm256_unpacklo_ps(in[2], in[3]);
  __m256 t3 = _mm256_unpackhi_ps(in[2], in[3]);
  __m256 t4 = _mm256_unpacklo_ps(in[4], in[5]);
  __m256 t5 = _mm256_unpackhi_ps(in[4], in[5]);
  __m256 t6 = _mm256_unpacklo_ps(in[6], in[7]);
  __m256 t7 = _mm256_unpackhi_ps(in[6], in[7]);
  __m256 u0 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0));
  __m256 u1 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));
  __m256 u2 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0));
  __m256 u3 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2));
  __m256 u4 = _mm256_shuffle_ps(t4, t6, _MM_SHUFFLE(1, 0, 1, 0));
  __m256 u5 = _mm256_shuffle_ps(t4, t6, _MM_SHUFFLE(3, 2, 3, 2));
  __m256 u6 = _mm256_shuffle_ps(t5, t7, _MM_SHUFFLE(1, 0, 1, 0));
  __m256 u7 = _mm256_shuffle_ps(t5, t7, _MM_SHUFFLE(3, 2, 3, 2));
  out[0] = _mm256_permute2f128_ps(u0, u4, 0x20);
  out[1] = _mm256_permute2f128_ps(u1, u5, 0x20);
  out[2] = _mm256_permute2f128_ps(u2, u6, 0x20);
  out[3] = _mm256_permute2f128_ps(u3, u7, 0x20);
  out[4] = _mm256_permute2f128_ps(u0, u4, 0x31);
  out[5] = _mm256_permute2f128_ps(u1, u5, 0x31);
  out[6] = _mm256_permute2f128_ps(u2, u6, 0x31);
  out[7] = _mm256_permute2f128_ps(u3, u7, 0x31);
}

// x[0], x[s], ..., x[7 s]: a gather. 32-bit indices (lane * s) while 7 s
// fits in an int32 (s <= 306783378), else two gathers with 64-bit indices.
// s is a constant in emitted code, so the branch folds away.
static inline __m256 axon_load_strided_ps256(const float* x, int64_t s) {
  if (s <= INT32_MAX / 7) {
    __m256i idx = _mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
                                     _mm256_set1_epi32(static_cast<int>(s)));
    return _mm256_i32gather_ps(x, idx, 4);
  }
  __m128 lo = _mm256_i64gather_ps(x, _mm256_setr_epi64x(0, s, 2 * s, 3 * s), 4);
  __m128 hi = _mm256_i64gather_ps(x, _mm256_setr_epi64x(4 * s, 5 * s, 6 * s, 7 * s), 4);
  return _mm256_set_m128(hi, lo);
}

// x[0], x[s], ..., x[(n - 1) s] in lanes i < n (n in [1, 8]), zero in the rest.
// A masked gather: memory of the inactive lanes is never read.
static inline __m256 axon_maskload_strided_ps256(const float* x, int64_t s, int n) {
  __m256 mask = _mm256_castsi256_ps(axon_tail_mask8(n));
  if (s <= INT32_MAX / 7) {
    __m256i idx = _mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
                                     _mm256_set1_epi32(static_cast<int>(s)));
    return _mm256_mask_i32gather_ps(_mm256_setzero_ps(), x, idx, mask, 4);
  }
  __m128 lo = _mm256_mask_i64gather_ps(_mm_setzero_ps(), x, _mm256_setr_epi64x(0, s, 2 * s, 3 * s),
                                       _mm256_castps256_ps128(mask), 4);
  __m128 hi = _mm256_mask_i64gather_ps(_mm_setzero_ps(), x, _mm256_setr_epi64x(4 * s, 5 * s, 6 * s, 7 * s),
                                       _mm256_extractf128_ps(mask, 1), 4);
  return _mm256_set_m128(hi, lo);
}

// Inclusive prefix sums of the 8 lanes (lane i = x[0] + ... + x[i]): two
// shift-and-add steps inside each 128-bit half, then the low half's total
// (its lane 3, in every lane) added to the high half.
static inline __m256 axon_prefix_sum_ps256(__m256 x) {
  x = _mm256_add_ps(x, _mm256_castsi256_ps(_mm256_slli_si256(_mm256_castps_si256(x), 4)));
  x = _mm256_add_ps(x, _mm256_castsi256_ps(_mm256_slli_si256(_mm256_castps_si256(x), 8)));
  const __m256 half_totals = _mm256_permute_ps(x, 0xFF);
  return _mm256_add_ps(x, _mm256_permute2f128_ps(half_totals, half_totals, 0x08));  // low half + 0, high + low's total
}

#endif  // AXON_X86_AVX2_PRELUDE_H
