// The float64 reference interpreter: the ground truth every kernel is
// checked against. Straightforward loops over multi-indices, one op at a time.
#pragma once

#include <vector>

#include "eval/tensor.h"
#include "ir/program.h"

namespace axon::eval {

/// Tensors larger than this many elements are refused (a clear error rather
/// than exhausting memory).
constexpr int64_t kMaxElements = int64_t{1} << 31;

/// Concrete dims of `shape`; a missing size or a negative dim is a UserError at `loc`.
std::vector<int64_t> concrete_shape(const ir::Shape& shape, const ir::Dims& dims, const SourceLoc& loc);

/// Runs `fn` on `inputs` (in parameter order, shapes already matching the
/// annotations at `dims`). Errors that depend on the sizes (a slice out of
/// range, a max over an empty axis) are UserErrors at the op's location.
std::vector<Tensor> evaluate(const ir::Function& fn, const std::vector<Tensor>& inputs, const ir::Dims& dims);

}  // namespace axon::eval
