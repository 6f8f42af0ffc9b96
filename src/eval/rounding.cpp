#include "eval/rounding.h"

#include <cmath>
#include <cstring>
#include <iomanip>
#include <limits>
#include <sstream>

#include "eval/npy.h"

namespace axon::eval {

double unit_roundoff(ir::DType dtype) {
  switch (dtype) {
    case ir::DType::F32: return 0x1p-24;
    case ir::DType::BF16: return 0x1p-8;
    case ir::DType::F16: return 0x1p-11;
  }
  throw InternalError(__FILE__, __LINE__, "unknown dtype");
}

double underflow_floor(ir::DType dtype) {
  switch (dtype) {
    case ir::DType::F32:
    case ir::DType::BF16: return 0x1p-126;
    case ir::DType::F16: return 0x1p-14;
  }
  throw InternalError(__FILE__, __LINE__, "unknown dtype");
}

double largest_finite(ir::DType dtype) {
  switch (dtype) {
    case ir::DType::F32: return static_cast<double>(std::numeric_limits<float>::max());
    case ir::DType::BF16: return 0x1.FEp127;
    case ir::DType::F16: return 65504.0;
  }
  throw InternalError(__FILE__, __LINE__, "unknown dtype");
}

double round_to(double x, ir::DType dtype) {
  float f = static_cast<float>(x);
  switch (dtype) {
    case ir::DType::F32: return f;
    case ir::DType::F16: return round_to_half(x);  // by hand: clang 14 has no _Float16 on x86-64
    case ir::DType::BF16: {
      if (std::isnan(f)) return f;
      uint32_t bits;
      std::memcpy(&bits, &f, 4);
      bits += 0x7FFF + ((bits >> 16) & 1);  // to nearest, ties to even (an overflow becomes inf)
      bits &= 0xFFFF0000u;
      std::memcpy(&f, &bits, 4);
      return f;
    }
  }
  throw InternalError(__FILE__, __LINE__, "unknown dtype");
}

namespace {

// Accumulates the worst element over every result; `at(k, i)` is got's element.
template <typename Got>
BoundCheck check(const Got& at, const Evaluation& want) {
  AXON_CHECK(want.bounds.size() == want.values.size(), "the reference was evaluated with bounds");
  BoundCheck c;
  auto note = [&](double ratio, size_t k, size_t i, double g, double w, double b) {
    if (c.any && !(ratio > c.worst)) return;
    c.any = true;
    c.worst = ratio, c.result = k, c.element = i, c.got = g, c.want = w, c.bound = b;
  };
  for (size_t k = 0; k < want.values.size(); ++k) {
    const std::vector<double>& w = want.values[k].data;
    const std::vector<double>& e = want.bounds[k].data;
    for (size_t i = 0; i < w.size(); ++i) {
      double g = at(k, i);
      double bound = kBoundFactor * (std::isnan(e[i]) ? INFINITY : e[i]);
      if (!std::isfinite(w[i]) || !std::isfinite(g)) {
        bool same = (std::isnan(w[i]) && std::isnan(g)) || g == w[i];
        if (!same) c.ok = false;
        note(same ? 0 : INFINITY, k, i, g, w[i], bound);
        continue;
      }
      double err = std::fabs(g - w[i]);
      double ratio = err == 0 ? 0 : err / bound;  // inf when the bound is 0 and the error is not
      if (!(err <= bound)) c.ok = false;
      note(ratio, k, i, g, w[i], bound);
    }
  }
  return c;
}

}  // namespace

std::string BoundCheck::text() const {
  std::ostringstream t;
  t << std::setprecision(9) << "result " << result << " element " << element << ": got " << got << ", expected " << want
    << std::setprecision(3) << ": |error| " << std::fabs(got - want) << " is " << worst << " of its bound " << bound;
  return t.str();
}

BoundCheck check_within_bound(const std::vector<std::vector<float>>& got, const Evaluation& want) {
  AXON_CHECK(got.size() == want.values.size(), "one array per result");
  for (size_t k = 0; k < got.size(); ++k)
    AXON_CHECK(got[k].size() == want.values[k].data.size(), "each array the result's size");
  return check([&](size_t k, size_t i) { return static_cast<double>(got[k][i]); }, want);
}

BoundCheck check_within_bound(const std::vector<Tensor>& got, const Evaluation& want) {
  AXON_CHECK(got.size() == want.values.size(), "one array per result");
  for (size_t k = 0; k < got.size(); ++k)
    AXON_CHECK(got[k].data.size() == want.values[k].data.size(), "each array the result's size");
  return check([&](size_t k, size_t i) { return got[k].data[i]; }, want);
}

}  // namespace axon::eval
