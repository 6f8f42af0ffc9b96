// qknorm_gqa: gqa on RMS-normalized queries and keys (eps 1e-6, gains gq and gk over D).
// q [B, H, S, D], k and v [B, T, D]. sizes: B, H, S, T, D.
// q and k are normalized into buffers, then the H heads of a batch run as one [H*S, D] matrix.
#include "common.h"

using namespace baseline;

namespace {

struct Normalized {
  Buffer q, k;
  explicit Normalized(const std::array<long long, 5>& s)
      : q(allocate(s[0] * s[1] * s[2] * s[4])), k(allocate(s[0] * s[3] * s[4])) {}
};

}  // namespace

extern "C" int axon_baseline(const long long* sizes, const float* const* inputs, float* const* outputs) {
  return guarded([&] {
    auto [B, H, S, T, D] = dims<5>(sizes);
    const float *q = inputs[0], *k = inputs[1], *v = inputs[2], *gq = inputs[3], *gk = inputs[4];
    Normalized& n = cached<Normalized, 5>(sizes);
    long long q_rows = B * H * S;
    parallel_for(q_rows + B * T, [&](long long r) {
      bool is_q = r < q_rows;
      long long at = (is_q ? r : r - q_rows) * D;
      const float* src = (is_q ? q : k) + at;
      scale_by_gain(src, rms_scale(src, D, 1e-6f), is_q ? gq : gk, (is_q ? n.q : n.k).get() + at, D);
    });
    attention(n.q.get(), n.k.get(), v, outputs[0], B, H * S, T, D, 1.0f / std::sqrt(float(D)));
  });
}
