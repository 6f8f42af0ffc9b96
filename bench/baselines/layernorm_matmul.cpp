// layernorm_matmul: layernorm(x, g, b, eps 1e-5) @ w. sizes: M, K, N.
// The rows are normalized into a buffer, then one GEMM.
#include "common.h"

using namespace baseline;

// The GEMM library, measured at bench sizes (2 threads, CPU ms, two sessions): OpenBLAS 49 and 52,
// oneDNN 47 and 57.
constexpr Blas kGemm = Blas::openblas;

extern "C" int axon_baseline(const long long* sizes, const float* const* inputs, float* const* outputs) {
  return guarded([&] {
    auto [M, K, N] = dims<3>(sizes);
    const float *x = inputs[0], *w = inputs[1], *g = inputs[2], *b = inputs[3];
    float* xn = cached<NormalizedRows, 3>(sizes).normalized.get();
    parallel_for(M, [&](long long r) { layernorm_row(x + r * K, g, b, xn + r * K, K, 1e-5f); });
    gemm(kGemm, false, false, M, N, K, 1.0f, xn, K, w, N, 0.0f, outputs[0], N);
  });
}
