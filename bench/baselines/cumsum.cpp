// cumsum: inclusive prefix sum along the last axis. sizes: M, N.
// Each vector's prefix is computed in registers (shifts within 128-bit lanes, then the low lane's
// total added to the high lane); only one add per vector is on the carried dependency chain.
#include "common.h"

using namespace baseline;

namespace {

// Inclusive prefix sum of the 8 lanes of x.
__m256 prefix8(__m256 x) {
  x = _mm256_add_ps(x, _mm256_castsi256_ps(_mm256_slli_si256(_mm256_castps_si256(x), 4)));
  x = _mm256_add_ps(x, _mm256_castsi256_ps(_mm256_slli_si256(_mm256_castps_si256(x), 8)));
  __m256 lane_totals = _mm256_shuffle_ps(x, x, _MM_SHUFFLE(3, 3, 3, 3));
  return _mm256_add_ps(x, _mm256_permute2f128_ps(lane_totals, lane_totals, 0x08));  // 0 | low total
}

// The last lane of x in every lane.
__m256 broadcast_last(__m256 x) {
  __m256 lane_totals = _mm256_shuffle_ps(x, x, _MM_SHUFFLE(3, 3, 3, 3));
  return _mm256_permute2f128_ps(lane_totals, lane_totals, 0x11);
}

}  // namespace

extern "C" int axon_baseline(const long long* sizes, const float* const* inputs, float* const* outputs) {
  return guarded([&] {
    auto [M, N] = dims<2>(sizes);
    const float* x = inputs[0];
    float* out = outputs[0];
    bool stream = streams(out, N, M * N);
    parallel_for(M, [&](long long r) {
      __m256 carry = _mm256_setzero_ps();
      for_vectors(N, [&](long long i, int lanes) {
        __m256 p = prefix8(load(x + r * N + i, lanes));
        store(out + r * N + i, _mm256_add_ps(p, carry), lanes, stream);
        carry = _mm256_add_ps(carry, broadcast_last(p));
      });
    });
  });
}
