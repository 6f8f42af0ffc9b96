// attention: softmax(q @ k^T / sqrt(D)) @ v per head. sizes: H, S, T, D.
#include "common.h"

using namespace baseline;

extern "C" int axon_baseline(const long long* sizes, const float* const* inputs, float* const* outputs) {
  return guarded([&] {
    auto [H, S, T, D] = dims<4>(sizes);
    attention(inputs[0], inputs[1], inputs[2], outputs[0], H, S, T, D, 1.0f / std::sqrt(float(D)));
  });
}
