// ntrans: rms(x + alpha * (rms(h) + x)), rms(v) = v / sqrt(mean(v^2) + 1e-6), alpha per element.
// sizes: M, N.
// Per row: one pass for rms(h), one computing the update into a cache-resident buffer while
// summing its squares, one scaling it out.
#include "common.h"

using namespace baseline;

extern "C" int axon_baseline(const long long* sizes, const float* const* inputs, float* const* outputs) {
  return guarded([&] {
    auto [M, N] = dims<2>(sizes);
    const float *h = inputs[0], *x = inputs[1], *alpha = inputs[2];
    float* out = outputs[0];
    bool stream = streams(out, N, M * N);
    parallel_ranges(M, [&](long long begin, long long end) {
      float* y = thread_scratch(N);
      for (long long r = begin; r < end; ++r) {
        const float *hr = h + r * N, *xr = x + r * N, *ar = alpha + r * N;
        __m256 h_scale = _mm256_set1_ps(rms_scale(hr, N, 1e-6f));
        float squares = sum_vectors(N, [&](long long i, int lanes) {
          __m256 xv = load(xr + i, lanes);
          __m256 inner = _mm256_fmadd_ps(load(hr + i, lanes), h_scale, xv);
          __m256 v = _mm256_fmadd_ps(load(ar + i, lanes), inner, xv);
          store(y + i, v, lanes);
          return _mm256_mul_ps(v, v);
        });
        scale_row(y, 1.0f / std::sqrt(squares / float(N) + 1e-6f), N, out + r * N, stream);
      }
    });
  });
}
