// transpose_matmul: a.T @ b, a [K, M], b [K, N]. sizes: K, M, N.
#include "common.h"

using namespace baseline;

// The GEMM library, measured at bench sizes (2 threads, CPU ms): OpenBLAS 186, oneDNN 199.
constexpr Blas kGemm = Blas::openblas;

extern "C" int axon_baseline(const long long* sizes, const float* const* inputs, float* const* outputs) {
  return guarded([&] {
    auto [K, M, N] = dims<3>(sizes);
    gemm(kGemm, true, false, M, N, K, 1.0f, inputs[0], M, inputs[1], N, 0.0f, outputs[0], N);
  });
}
