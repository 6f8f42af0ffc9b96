#include "ir/shape.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

namespace axon::ir {
namespace {

[[noreturn]] void fail(const std::string& message) {
  throw ShapeError(message);
}

std::string axes_str(const std::vector<int64_t>& axes) {
  std::ostringstream out;
  out << '(';
  for (size_t i = 0; i < axes.size(); ++i) out << (i ? ", " : "") << axes[i];
  out << (axes.size() == 1 ? ",)" : ")");
  return out.str();
}

// The dtype of an element-wise result: decided by the tensor operands, with
// weak scalars (literals, sizes) joining only when nothing else is there.
DType result_dtype(const std::vector<const Operand*>& inputs) {
  std::optional<DType> dtype;
  for (const Operand* in : inputs)
    if (!in->is_weak_scalar()) dtype = dtype ? promote(*dtype, in->dtype()) : in->dtype();
  return dtype.value_or(DType::F32);
}

TensorType elementwise(const std::vector<const Operand*>& inputs) {
  Shape shape;
  for (const Operand* in : inputs) {
    try {
      shape = broadcast_shapes(shape, in->shape());
    } catch (const ShapeError&) {
      std::ostringstream out;
      out << "cannot broadcast shapes";
      for (size_t i = 0; i < inputs.size(); ++i) out << (i ? " and " : " ") << inputs[i]->type.str();
      fail(out.str());
    }
  }
  return {result_dtype(inputs), shape};
}

void check_axis(int64_t axis, int rank, const char* what) {
  if (axis < 0 || axis >= rank)
    fail(std::string(what) + ": axis " + std::to_string(axis) + " is out of range for a tensor of rank " +
         std::to_string(rank));
}

TensorType reduce(const Operand* x, const Attrs& attrs, const char* what) {
  std::set<int64_t> seen;
  for (int64_t axis : attrs.axes) {
    check_axis(axis, x->rank(), what);
    if (!seen.insert(axis).second) fail(std::string(what) + ": axis " + std::to_string(axis) + " repeated");
  }
  if (!std::is_sorted(attrs.axes.begin(), attrs.axes.end())) fail(std::string(what) + ": axes must be sorted");
  Shape shape;
  for (int k = 0; k < x->rank(); ++k) {
    if (!seen.count(k))
      shape.push_back(x->shape()[k]);
    else if (attrs.keepdims)
      shape.push_back(1);
  }
  return {x->dtype(), shape};
}

TensorType contract(const std::vector<const Operand*>& inputs, const Attrs& attrs) {
  if (attrs.name.find("->") == std::string::npos) fail("einsum spec '" + attrs.name + "' has no '->'");
  EinsumSpec spec = EinsumSpec::parse(attrs.name);
  const std::vector<std::string>& operands = spec.operands;
  const std::string& output = spec.output;
  if (operands.size() != inputs.size())
    fail("einsum spec '" + attrs.name + "' names " + std::to_string(operands.size()) + " operands but " +
         std::to_string(inputs.size()) + " were given");
  std::map<char, Size> dims;
  std::map<char, std::string> first_seen;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::string& labels = operands[i];
    if (static_cast<int>(labels.size()) != inputs[i]->rank())
      fail("einsum operand " + std::to_string(i) + " has shape " + inputs[i]->type.str() + " but subscripts '" +
           labels + "' name " + std::to_string(labels.size()) + " axes");
    for (size_t k = 0; k < labels.size(); ++k) {
      char label = labels[k];
      const Size& dim = inputs[i]->shape()[k];
      auto [it, fresh] = dims.emplace(label, dim);
      if (fresh) {
        first_seen[label] = inputs[i]->type.str();
      } else if (it->second != dim) {
        fail(std::string("einsum subscript '") + label + "' has size " + it->second.str() + " in " + first_seen[label] +
             " but " + dim.str() + " in " + inputs[i]->type.str());
      }
    }
  }
  Shape shape;
  std::set<char> out_seen;
  for (char label : output) {
    if (!dims.count(label)) fail(std::string("einsum output subscript '") + label + "' is not in any operand");
    if (!out_seen.insert(label).second) fail(std::string("einsum output subscript '") + label + "' repeated");
    shape.push_back(dims[label]);
  }
  return {result_dtype(inputs), shape};
}

TensorType transpose(const Operand* x, const Attrs& attrs) {
  std::vector<int64_t> sorted = attrs.axes;
  std::sort(sorted.begin(), sorted.end());
  bool is_perm = static_cast<int>(sorted.size()) == x->rank();
  for (size_t k = 0; is_perm && k < sorted.size(); ++k) is_perm = sorted[k] == static_cast<int64_t>(k);
  if (!is_perm)
    fail("transpose: axes " + axes_str(attrs.axes) + " are not a permutation of the axes of " + x->type.str());
  Shape shape;
  for (int64_t axis : attrs.axes) shape.push_back(x->shape()[axis]);
  return {x->dtype(), shape};
}

TensorType reshape(const Operand* x, const Attrs& attrs) {
  if (num_elements(x->shape()) != num_elements(attrs.sizes))
    fail("cannot reshape " + x->type.str() + " (" + num_elements(x->shape()).str() + " elements) to " +
         shape_str(attrs.sizes) + " (" + num_elements(attrs.sizes).str() + " elements)");
  return {x->dtype(), attrs.sizes};
}

TensorType broadcast(const Operand* x, const Attrs& attrs) {
  Shape result;
  try {
    result = broadcast_shapes(x->shape(), attrs.sizes);
  } catch (const ShapeError&) {
    fail("cannot broadcast " + x->type.str() + " to " + shape_str(attrs.sizes));
  }
  if (result != attrs.sizes) fail("cannot broadcast " + x->type.str() + " to " + shape_str(attrs.sizes));
  return {x->dtype(), attrs.sizes};
}

TensorType slice(const Operand* x, const Attrs& attrs) {
  size_t rank = x->shape().size();
  if (attrs.sizes.size() != rank || attrs.axes.size() != rank || attrs.extents.size() != rank)
    fail("slice of " + x->type.str() + " needs a start, step and length for each axis");
  for (size_t k = 0; k < rank; ++k) {
    if (attrs.axes[k] == 0) fail("slice step cannot be zero");
    if (attrs.extents[k].is_constant() && *attrs.extents[k].constant() < 0) fail("slice length is negative");
  }
  return {x->dtype(), attrs.extents};
}

TensorType concat(const std::vector<const Operand*>& inputs, const Attrs& attrs) {
  if (inputs.empty()) fail("concatenate needs at least one tensor");
  int rank = inputs[0]->rank();
  if (rank == 0) fail("concatenate: zero-dimensional tensors cannot be concatenated");
  int64_t axis = attrs.axes.at(0);
  check_axis(axis, rank, "concatenate");
  Shape shape = inputs[0]->shape();
  shape[axis] = 0;
  for (const Operand* in : inputs) {
    if (in->rank() != rank)
      fail("concatenate: the tensors must have the same rank, but " + inputs[0]->type.str() + " has rank " +
           std::to_string(rank) + " and " + in->type.str() + " has rank " + std::to_string(in->rank()));
    bool fits = true;
    for (int k = 0; fits && k < rank; ++k) fits = k == axis || in->shape()[k] == inputs[0]->shape()[k];
    if (!fits)
      fail("concatenate along axis " + std::to_string(axis) + ": shapes " + inputs[0]->type.str() + " and " +
           in->type.str() + " differ in another axis");
    shape[axis] = shape[axis] + in->shape()[axis];
  }
  return {result_dtype(inputs), shape};
}

void check_arity(Op op, const std::vector<const Operand*>& inputs, size_t arity) {
  if (inputs.size() != arity)
    throw InternalError(
        __FILE__, __LINE__,
        std::string(op_name(op)) + " takes " + std::to_string(arity) + " inputs, got " + std::to_string(inputs.size()));
}

}  // namespace

Size num_elements(const Shape& shape) {
  Size n = 1;
  for (const Size& dim : shape) n = n * dim;
  return n;
}

Shape broadcast_shapes(const Shape& a, const Shape& b) {
  size_t rank = std::max(a.size(), b.size());
  Shape result(rank);
  for (size_t k = 0; k < rank; ++k) {
    // Align from the right; a missing dim acts as 1.
    std::optional<Size> da, db;
    if (k + a.size() >= rank) da = a[k + a.size() - rank];
    if (k + b.size() >= rank) db = b[k + b.size() - rank];
    if (!da)
      result[k] = *db;
    else if (!db)
      result[k] = *da;
    else if (*da == *db)
      result[k] = *da;
    else if (*da == Size(1))
      result[k] = *db;
    else if (*db == Size(1))
      result[k] = *da;
    else
      fail("cannot broadcast shapes " + shape_str(a) + " and " + shape_str(b));
  }
  return result;
}

TensorType infer_type(Op op, const std::vector<Operand>& operands, const Attrs& attrs) {
  std::vector<const Operand*> inputs;
  for (const Operand& o : operands) inputs.push_back(&o);
  switch (op_kind(op)) {
    case OpKind::Leaf:
      AXON_CHECK(op != Op::Input, "input types are declared, not inferred");
      check_arity(op, inputs, 0);
      if (op == Op::SizeValue) AXON_CHECK(attrs.sizes.size() == 1, "size node needs one size");
      return {DType::F32, {}};
    case OpKind::Unary: check_arity(op, inputs, 1); return inputs[0]->type;
    case OpKind::Binary: check_arity(op, inputs, 2); return elementwise(inputs);
    case OpKind::Select: {  // the shape broadcasts all four; the dtype is the branches' (NumPy)
      check_arity(op, inputs, 4);
      TensorType type = elementwise(inputs);
      type.dtype = result_dtype({inputs[2], inputs[3]});
      return type;
    }
    case OpKind::Reduce: check_arity(op, inputs, 1); return reduce(inputs[0], attrs, op_name(op));
    case OpKind::Scan:
      check_arity(op, inputs, 1);
      check_axis(attrs.axes.at(0), inputs[0]->rank(), op_name(op));
      return inputs[0]->type;
    case OpKind::Contract: return contract(inputs, attrs);
    case OpKind::Layout:
      if (op == Op::Concat) return concat(inputs, attrs);
      check_arity(op, inputs, 1);
      if (op == Op::Transpose) return transpose(inputs[0], attrs);
      if (op == Op::Reshape) return reshape(inputs[0], attrs);
      if (op == Op::Broadcast) return broadcast(inputs[0], attrs);
      return slice(inputs[0], attrs);
  }
  throw InternalError(__FILE__, __LINE__, "unknown op kind");
}

TensorType infer_type(Op op, const std::vector<NodeRef>& inputs, const Attrs& attrs) {
  std::vector<Operand> operands;
  for (NodeRef in : inputs) operands.push_back({in->type(), in->is_weak_scalar()});
  return infer_type(op, operands, attrs);
}

}  // namespace axon::ir
