// rmsnorm_matmul: (x / sqrt(mean(x^2) + 1e-6) * g) @ w. sizes: M, K, N.
// The rows are normalized into a buffer, then one GEMM.
#include "common.h"

using namespace baseline;

// The GEMM library, measured at bench sizes (2 threads, CPU ms): OpenBLAS 17.7, oneDNN 31.6;
// oneDNN's gemm is slow for few rows.
constexpr Blas kGemm = Blas::openblas;

extern "C" int axon_baseline(const long long* sizes, const float* const* inputs, float* const* outputs) {
  return guarded([&] {
    auto [M, K, N] = dims<3>(sizes);
    const float *x = inputs[0], *w = inputs[1], *g = inputs[2];
    float* xn = cached<NormalizedRows, 3>(sizes).normalized.get();
    parallel_for(M, [&](long long r) { scale_by_gain(x + r * K, rms_scale(x + r * K, K, 1e-6f), g, xn + r * K, K); });
    gemm(kGemm, false, false, M, N, K, 1.0f, xn, K, w, N, 0.0f, outputs[0], N);
  });
}
