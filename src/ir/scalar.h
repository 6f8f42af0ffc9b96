// The one scalar semantics of the element-wise ops, and their NumPy names,
// both read from the op table (ops.def). Constant folding in src/lang and the
// reference interpreter in src/eval call these, so a number folded while a
// kernel is built and the same number computed at run time always agree.
#pragma once

#include <optional>
#include <string>

#include "ir/node.h"

namespace axon::ir {

/// y = op(x) in float64 for a Unary op (p: its attrs.value, Pow's exponent).
/// Any other op is an InternalError.
double scalar_unary(Op op, double x, double p = 0.0);
/// y = op(a, b) in float64 for a Binary op; NaN wins max and min, as in NumPy.
double scalar_binary(Op op, double a, double b);

/// np.<name> for the op, or "" when no NumPy function makes it directly.
const char* numpy_name(Op op);
/// The op of kind `kind` that np.<name> makes, if the table spells one so.
std::optional<Op> op_from_numpy(const std::string& name, OpKind kind);

}  // namespace axon::ir
