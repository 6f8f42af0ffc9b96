// add_rmsnorm: rmsnorm(x + r) * g, eps 1e-6. sizes: M, N.
// The sum row is kept in a per-thread cache-resident buffer between its two passes.
#include "common.h"

using namespace baseline;

extern "C" int axon_baseline(const long long* sizes, const float* const* inputs, float* const* outputs) {
  return guarded([&] {
    auto [M, N] = dims<2>(sizes);
    const float *x = inputs[0], *res = inputs[1], *g = inputs[2];
    float* out = outputs[0];
    bool stream = streams(out, N, M * N);
    parallel_ranges(M, [&](long long begin, long long end) {
      float* sum = thread_scratch(N);
      for (long long r = begin; r < end; ++r) {
        float squares = sum_vectors(N, [&](long long i, int lanes) {
          __m256 s = _mm256_add_ps(load(x + r * N + i, lanes), load(res + r * N + i, lanes));
          store(sum + i, s, lanes);
          return _mm256_mul_ps(s, s);
        });
        scale_by_gain(sum, 1.0f / std::sqrt(squares / float(N) + 1e-6f), g, out + r * N, N, stream);
      }
    });
  });
}
