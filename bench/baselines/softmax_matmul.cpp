// softmax_matmul: softmax(s) @ v over the last axis of s [M, T]; v [T, D]. sizes: M, T, D.
// The unnormalized e^(s - max) go to a buffer with their row sums, one GEMM, then the [M, D]
// product's rows are divided by the sums (D columns instead of T).
#include "common.h"

using namespace baseline;

// The GEMM library, measured at bench sizes (2 threads, CPU ms, two sessions): oneDNN 15.7 and
// 16.4, OpenBLAS 16.4 and 17.8.
constexpr Blas kGemm = Blas::onednn;

namespace {

struct Scratch {
  Buffer e, sums;
  explicit Scratch(const std::array<long long, 3>& s) : e(allocate(s[0] * s[1])), sums(allocate(s[0])) {}
};

}  // namespace

extern "C" int axon_baseline(const long long* sizes, const float* const* inputs, float* const* outputs) {
  return guarded([&] {
    auto [M, T, D] = dims<3>(sizes);
    const float *s = inputs[0], *v = inputs[1];
    float* out = outputs[0];
    Scratch& scratch = cached<Scratch, 3>(sizes);
    float *e = scratch.e.get(), *sums = scratch.sums.get();
    parallel_for(M, [&](long long r) { sums[r] = exp_row(s + r * T, e + r * T, T); });
    gemm(kGemm, false, false, M, D, T, 1.0f, e, T, v, D, 0.0f, out, D);
    parallel_for(M, [&](long long r) { scale_row(out + r * D, 1.0f / sums[r], D); });
  });
}
