// Shape inference: the result type of every op, or why there is none.
#pragma once

#include <stdexcept>
#include <vector>

#include "ir/node.h"

namespace axon::ir {

/// A type or shape error; the message names the shapes involved. Graph::make
/// turns it into a UserError at the node's source location.
class ShapeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// What shape inference needs to know of an input.
struct Operand {
  TensorType type;
  bool weak = false;  // a literal or size scalar: does not decide the result dtype
  int rank() const { return type.rank(); }
  const Shape& shape() const { return type.shape; }
  DType dtype() const { return type.dtype; }
  bool is_weak_scalar() const { return weak; }
};

/// The type of `op(inputs; attrs)`. Not for Input (whose type is declared).
TensorType infer_type(Op op, const std::vector<NodeRef>& inputs, const Attrs& attrs);
TensorType infer_type(Op op, const std::vector<Operand>& inputs, const Attrs& attrs);

/// NumPy broadcasting of two shapes: dims are aligned from the right; equal
/// dims stay, a dim of constant 1 stretches. Symbolic dims must be equal as
/// expressions (M and N never broadcast, even if equal at run time).
Shape broadcast_shapes(const Shape& a, const Shape& b);

/// The product of the dims (1 for a scalar).
Size num_elements(const Shape& shape);

}  // namespace axon::ir
