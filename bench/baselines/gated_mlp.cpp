// gated_mlp: silu(x @ w1) * (x @ w2). sizes: M, K, N.
// Two GEMMs into buffers, then one fused silu-times pass.
#include "common.h"

using namespace baseline;

// The GEMM library, measured at bench sizes (2 threads, CPU ms): OpenBLAS 16.1, oneDNN 31.7,
// oneDNN matmul with swish and binary-mul post-ops (no separate pass) 34.0; oneDNN's gemm is
// slow for few rows.
constexpr Blas kGemm = Blas::openblas;

namespace {

struct Scratch {
  Buffer h1, h2;  // x @ w1, x @ w2
  explicit Scratch(const std::array<long long, 3>& s) : h1(allocate(s[0] * s[2])), h2(allocate(s[0] * s[2])) {}
};

}  // namespace

extern "C" int axon_baseline(const long long* sizes, const float* const* inputs, float* const* outputs) {
  return guarded([&] {
    auto [M, K, N] = dims<3>(sizes);
    const float *x = inputs[0], *w1 = inputs[1], *w2 = inputs[2];
    Scratch& scratch = cached<Scratch, 3>(sizes);
    float *h1 = scratch.h1.get(), *h2 = scratch.h2.get();
    gemm(kGemm, false, false, M, N, K, 1.0f, x, K, w1, N, 0.0f, h1, N);
    gemm(kGemm, false, false, M, N, K, 1.0f, x, K, w2, N, 0.0f, h2, N);
    map_elements(outputs[0], M * N, [&](long long i, int lanes) {
      return _mm256_mul_ps(vsilu(load(h1 + i, lanes)), load(h2 + i, lanes));
    });
  });
}
