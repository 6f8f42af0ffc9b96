// lora: x @ w + (x @ a) @ b. sizes: M, K, N, R.
// out = x @ w, then the rank-R update accumulated into it (beta = 1) from the small x @ a.
#include "common.h"

using namespace baseline;

// The GEMM library, measured at bench sizes (2 threads, CPU ms): OpenBLAS 49.5, oneDNN 55.8.
constexpr Blas kGemm = Blas::openblas;

namespace {

struct Scratch {
  Buffer xa;
  explicit Scratch(const std::array<long long, 4>& s) : xa(allocate(s[0] * s[3])) {}
};

}  // namespace

extern "C" int axon_baseline(const long long* sizes, const float* const* inputs, float* const* outputs) {
  return guarded([&] {
    auto [M, K, N, R] = dims<4>(sizes);
    const float *x = inputs[0], *w = inputs[1], *a = inputs[2], *b = inputs[3];
    float *out = outputs[0], *xa = cached<Scratch, 4>(sizes).xa.get();
    gemm(kGemm, false, false, M, N, K, 1.0f, x, K, w, N, 0.0f, out, N);
    gemm(kGemm, false, false, M, R, K, 1.0f, x, K, a, R, 0.0f, xa, R);
    gemm(kGemm, false, false, M, N, R, 1.0f, xa, R, b, N, 1.0f, out, N);
  });
}
