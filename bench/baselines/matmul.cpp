// matmul: a @ b. sizes: M, K, N.
#include "common.h"

using namespace baseline;

// The GEMM library, measured at bench sizes (2 threads, CPU ms): OpenBLAS 190, oneDNN 201.
constexpr Blas kGemm = Blas::openblas;

extern "C" int axon_baseline(const long long* sizes, const float* const* inputs, float* const* outputs) {
  return guarded([&] {
    auto [M, K, N] = dims<3>(sizes);
    gemm(kGemm, false, false, M, N, K, 1.0f, inputs[0], K, inputs[1], N, 0.0f, outputs[0], N);
  });
}
