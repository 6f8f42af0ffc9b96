// transpose: the result is x.T [N, M], row-major. sizes: M, N.
// 8x8 blocks are transposed in registers. A tile of kTileRows x kTileCols is walked down each
// 8-column strip, so every output row of the strip is written in one contiguous run; strips of
// kTileCols columns (distinct output rows) are spread across the threads. Measured (1 thread,
// 4096^2): 64x256 tiles 11-12 ms, square 64x64 13-17 ms; streaming stores did not help reliably.
#include "common.h"

using namespace baseline;

namespace {

constexpr long long kTileRows = 64, kTileCols = 256;

// out[c][r] = in[r][c] for an 8x8 block; in has row stride ld_in, out has ld_out.
inline void transpose8x8(const float* in, long long ld_in, float* out, long long ld_out) {
  __m256 r0 = _mm256_loadu_ps(in + 0 * ld_in), r1 = _mm256_loadu_ps(in + 1 * ld_in);
  __m256 r2 = _mm256_loadu_ps(in + 2 * ld_in), r3 = _mm256_loadu_ps(in + 3 * ld_in);
  __m256 r4 = _mm256_loadu_ps(in + 4 * ld_in), r5 = _mm256_loadu_ps(in + 5 * ld_in);
  __m256 r6 = _mm256_loadu_ps(in + 6 * ld_in), r7 = _mm256_loadu_ps(in + 7 * ld_in);
  __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1);
  __m256 t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3);
  __m256 t4 = _mm256_unpacklo_ps(r4, r5), t5 = _mm256_unpackhi_ps(r4, r5);
  __m256 t6 = _mm256_unpacklo_ps(r6, r7), t7 = _mm256_unpackhi_ps(r6, r7);
  __m256 s0 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(1, 0, 1, 0)),
         s1 = _mm256_shuffle_ps(t0, t2, _MM_SHUFFLE(3, 2, 3, 2));
  __m256 s2 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(1, 0, 1, 0)),
         s3 = _mm256_shuffle_ps(t1, t3, _MM_SHUFFLE(3, 2, 3, 2));
  __m256 s4 = _mm256_shuffle_ps(t4, t6, _MM_SHUFFLE(1, 0, 1, 0)),
         s5 = _mm256_shuffle_ps(t4, t6, _MM_SHUFFLE(3, 2, 3, 2));
  __m256 s6 = _mm256_shuffle_ps(t5, t7, _MM_SHUFFLE(1, 0, 1, 0)),
         s7 = _mm256_shuffle_ps(t5, t7, _MM_SHUFFLE(3, 2, 3, 2));
  _mm256_storeu_ps(out + 0 * ld_out, _mm256_permute2f128_ps(s0, s4, 0x20));
  _mm256_storeu_ps(out + 1 * ld_out, _mm256_permute2f128_ps(s1, s5, 0x20));
  _mm256_storeu_ps(out + 2 * ld_out, _mm256_permute2f128_ps(s2, s6, 0x20));
  _mm256_storeu_ps(out + 3 * ld_out, _mm256_permute2f128_ps(s3, s7, 0x20));
  _mm256_storeu_ps(out + 4 * ld_out, _mm256_permute2f128_ps(s0, s4, 0x31));
  _mm256_storeu_ps(out + 5 * ld_out, _mm256_permute2f128_ps(s1, s5, 0x31));
  _mm256_storeu_ps(out + 6 * ld_out, _mm256_permute2f128_ps(s2, s6, 0x31));
  _mm256_storeu_ps(out + 7 * ld_out, _mm256_permute2f128_ps(s3, s7, 0x31));
}

// Transposes rows [r0, r1) x columns [c0, c1) of x [M, N] into out [N, M].
void transpose_tile(const float* x, float* out, long long M, long long N, long long r0, long long r1, long long c0,
                    long long c1) {
  long long r8 = r0 + (r1 - r0) / 8 * 8, c8 = c0 + (c1 - c0) / 8 * 8;
  for (long long c = c0; c < c8; c += 8)
    for (long long r = r0; r < r8; r += 8) transpose8x8(x + r * N + c, N, out + c * M + r, M);
  for (long long c = c0; c < c1; ++c)  // the ragged edges, element by element
    for (long long r = (c < c8 ? r8 : r0); r < r1; ++r) out[c * M + r] = x[r * N + c];
}

}  // namespace

extern "C" int axon_baseline(const long long* sizes, const float* const* inputs, float* const* outputs) {
  return guarded([&] {
    auto [M, N] = dims<2>(sizes);
    const float* x = inputs[0];
    float* out = outputs[0];
    parallel_for((N + kTileCols - 1) / kTileCols, [&](long long tile) {
      long long c0 = tile * kTileCols, c1 = std::min(N, c0 + kTileCols);
      for (long long r0 = 0; r0 < M; r0 += kTileRows)
        transpose_tile(x, out, M, N, r0, std::min(M, r0 + kTileRows), c0, c1);
    });
  });
}
