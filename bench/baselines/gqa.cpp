// gqa: grouped-query attention, q [B, H, S, D], k and v [B, T, D] shared by the H query heads of
// a batch: softmax(q @ k^T / sqrt(D)) @ v. sizes: B, H, S, T, D.
// The H heads of a batch are one [H*S, D] matrix against that batch's k and v.
#include "common.h"

using namespace baseline;

extern "C" int axon_baseline(const long long* sizes, const float* const* inputs, float* const* outputs) {
  return guarded([&] {
    auto [B, H, S, T, D] = dims<5>(sizes);
    attention(inputs[0], inputs[1], inputs[2], outputs[0], B, H * S, T, D, 1.0f / std::sqrt(float(D)));
  });
}
