// The float64 reference interpreter: the ground truth every kernel is
// checked against. Straightforward loops over multi-indices, one op at a time.
//
// Beside each value it can carry a rounding bound E >= 0 per element: how far
// a kernel that computes the same program in the declared dtypes' arithmetic
// may plausibly be from the float64 value (see eval/rounding.h for the check
// and the constant that multiplies E). The rules, one per op, sit next to the
// op's evaluation in interpreter.cpp. u is the unit round-off of the value's
// declared dtype and tiny its smallest normal number (eval/rounding.h), added
// to every rounding below that names u|y|; |.| is the float64 magnitude:
//   inputs                    0 (the kernel sees exactly the values the reference sees)
//   constants, sizes          u|c| when c is not exact in the dtype, else 0
//   -x, |x|                   E(x)
//   max, min (element-wise)   max(E(a), E(b))
//   a + b, a - b              E(a) + E(b) + u|y|
//   a * b                     E(a)|b| + |a|E(b) + u|y|
//   a / b                     E(a)/|b| + |a|E(b)/b^2 + u|y|; at least |y| + u|y| when |b| + E(b) exceeds
//                             the dtype's largest value (b is infinite in the kernel, y there 0:
//                             x / (1 + exp(-x)) at x = -90 in float32)
//   1/x                       E(x)/x^2 + u|y|; at least |y| + u|y| when |x| + E(x) exceeds the largest value
//   exp x                     |y| E(x) + 4u|y|         (4u: libm and SIMD exp are not correctly rounded)
//   log x                     E(x)/|x| + 4u|y|
//   tanh x                    (1 - y^2) E(x) + 4u|y|
//   sqrt x                    min(E(x)/(2y), sqrt E(x)) + u|y|
//   x ** p                    |p| |x|^(p-1) E(x) + u|y| (p = 2), 4u|y| (other p)
//   where(a cmp b, t, f)      max(E(t), E(f)), plus |t - f| when |a - b| <= c (E(a) + E(b)) and
//                             E(a) + E(b) > 0: the comparison may go either way
//   exact integers            0 for a + b, a - b, a * b and each prefix of cumsum on no input whose operands
//                             are exact (E = 0) and whose value is an integer of at most 1/u
//                             (index grids: np.arange is a running count of ones)
//   a non-finite value        0: it must be matched exactly (a -inf mask fill); a NaN bound
//                             (0 times an infinite one) is infinite
//   sum of n terms x_k        sqrt(sum E(x_k)^2) + u sqrt(sum_{k>=2} s_k^2) (+ tiny), s_k the partial sums in
//   (reductions, einsum,      the reference's (sequential) order; an einsum term t = a*b*... has
//   each prefix of cumsum)    E(t) = sum_i E(a_i) prod_{j!=i} |a_j| + (operands - 1) u|t|
//   max, min over an axis     the largest E(x_k)
//   layout ops                E moves with its value
// The sums are the probabilistic model of Higham and Mary (rounding errors of
// different terms independent, mean zero): an error grows like the root of
// the sum of squares, not the sum, which keeps the bound within a small
// factor of real float32 errors at reduction lengths of 10^4 and more, while
// a sum of n positive terms still gets its sqrt(n) growth through s_k. It is
// a bound for kernels that add in any order whose partial sums are no larger
// than sequential ones (lanes, blocks, pairwise, FMA), on inputs whose terms
// are not adversarial (the random normals validation uses).
#pragma once

#include <vector>

#include "eval/tensor.h"
#include "ir/program.h"

namespace axon::eval {

/// Tensors larger than this many elements are refused (a clear error rather
/// than exhausting memory).
constexpr int64_t kMaxElements = int64_t{1} << 31;

/// Half of this machine's physical memory: the default of --max-memory.
int64_t default_max_memory();

struct EvalOptions {
  /// Refuse (a UserError before any work) an evaluation whose peak memory
  /// would exceed this many bytes.
  int64_t max_memory_bytes = default_max_memory();
  /// Also compute every result's rounding bound (twice the memory, and about
  /// three times the time of a contraction).
  bool bounds = false;
};

/// The results and, when asked for, their rounding bounds E (same shapes).
struct Evaluation {
  std::vector<Tensor> values;
  std::vector<Tensor> bounds;
};

/// Concrete dims of `shape`; a missing size or a negative dim is a UserError at `loc`.
std::vector<int64_t> concrete_shape(const ir::Shape& shape, const ir::Dims& dims, const SourceLoc& loc);

/// The peak number of bytes evaluate() holds for `fn` at `dims` (the caller's
/// inputs included), and the node being computed at that peak.
struct MemoryNeed {
  int64_t bytes = 0;
  ir::NodeRef at = nullptr;
};
MemoryNeed memory_needed(const ir::Function& fn, const ir::Dims& dims, bool bounds);

/// Runs `fn` on `inputs` (in parameter order, shapes already matching the
/// annotations at `dims`). Errors that depend on the sizes (a slice out of
/// range, a max over an empty axis, more memory than options.max_memory_bytes)
/// are UserErrors at the op's location.
Evaluation evaluate_bounded(const ir::Function& fn, const std::vector<Tensor>& inputs, const ir::Dims& dims,
                            const EvalOptions& options);
/// The values only.
std::vector<Tensor> evaluate(const ir::Function& fn, const std::vector<Tensor>& inputs, const ir::Dims& dims,
                             const EvalOptions& options = {});

}  // namespace axon::eval
