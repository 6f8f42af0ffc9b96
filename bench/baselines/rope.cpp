// rope: x * cos + rotate_half(x) * sin, rotate_half(x) = concatenate([-x2, x1]) of the two
// halves of the last axis; cos and sin [S, D] broadcast over the heads. sizes: H, S, D (D even).
#include "common.h"

using namespace baseline;

extern "C" int axon_baseline(const long long* sizes, const float* const* inputs, float* const* outputs) {
  return guarded([&] {
    auto [H, S, D] = dims<3>(sizes);
    const float *x = inputs[0], *cos_table = inputs[1], *sin_table = inputs[2];
    float* out = outputs[0];
    long long half = D / 2;
    parallel_for(H * S, [&](long long row) {
      const float *xr = x + row * D, *c = cos_table + (row % S) * D, *s = sin_table + (row % S) * D;
      float* o = out + row * D;
      for_vectors(half, [&](long long i, int lanes) {
        __m256 x1 = load(xr + i, lanes), x2 = load(xr + half + i, lanes);
        store(o + i, _mm256_fnmadd_ps(x2, load(s + i, lanes), _mm256_mul_ps(x1, load(c + i, lanes))), lanes);
        store(o + half + i,
              _mm256_fmadd_ps(x1, load(s + half + i, lanes), _mm256_mul_ps(x2, load(c + half + i, lanes))), lanes);
      });
    });
  });
}
