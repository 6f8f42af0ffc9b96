// Checking a kernel's results against the reference within a bound on
// float rounding that the reference computes itself (interpreter.h lists the
// rules that propagate the bound E through each op).
//
// A result element is valid when |got - want| <= c * E, with c =
// kBoundFactor; both non-finite values must then be equal (NaN matches NaN).
// c covers what the rules leave out: the tail of the probabilistic sums (over
// millions of elements, the largest of them reaches about 2 of E at the
// root-mean-square level), accumulation orders whose partial sums are larger
// than the reference's, and the few units of round-off of the kernels'
// exp/tanh/rsqrt helpers beyond what the rules allow. It is measured in
// tests/eval/rounding_check.py: NumPy float32 evaluations stay below 0.25 of
// the bound, and every mutant (an index off by one, a dropped term, a
// constant times 1.001, swapped operands, a wrong axis) exceeds it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "eval/interpreter.h"
#include "ir/dtype.h"

namespace axon::eval {

/// The c of |got - want| <= c * E.
constexpr double kBoundFactor = 8;

/// Half the distance between 1 and the next number of the dtype, the u of
/// round-to-nearest: f32 2^-24, f16 2^-11, bf16 2^-8. Every value's bound
/// uses the u of its declared dtype, although a kernel may compute a bf16 or
/// f16 program's intermediate values in float32 (then it is more accurate
/// than its bound asks, never less).
double unit_roundoff(ir::DType dtype);

/// The smallest normal number of the dtype (f32, bf16 2^-126, f16 2^-14): an
/// absolute error every rounded result may carry, for results that underflow.
double underflow_floor(ir::DType dtype);

/// The largest finite number of the dtype (f32 and bf16 about 3.4e38, f16
/// 65504): a value beyond it is infinite in a kernel.
double largest_finite(ir::DType dtype);

/// x rounded to the nearest value of the dtype (ties to even): what a kernel
/// whose parameter is declared so sees.
double round_to(double x, ir::DType dtype);

/// The outcome of a check: whether every element is within its bound, and
/// the worst element (the largest |got - want| / (c E)).
struct BoundCheck {
  bool ok = true;
  double worst = 0;  // the largest |got - want| / (c E) over elements; inf for a non-finite mismatch
  size_t result = 0, element = 0;
  double got = 0, want = 0, bound = 0;  // at the worst element; bound = c E
  bool any = false;                     // an element was compared

  /// "result 0 element 17: got 1.25, expected 1.2500003: |error| 3e-07 is 0.41 of its bound 7.3e-07"
  std::string text() const;
};

/// Checks `got` (one array per result, each the result's size) against
/// `want` (an evaluation with bounds).
BoundCheck check_within_bound(const std::vector<std::vector<float>>& got, const Evaluation& want);
BoundCheck check_within_bound(const std::vector<Tensor>& got, const Evaluation& want);

}  // namespace axon::eval
