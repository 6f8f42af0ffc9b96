#include "sem/semantics.h"

#include <algorithm>
#include <map>

namespace axon::sem {
namespace {

using ir::NodeRef;
using ir::Op;
using ir::Shape;
using ir::Size;

// NumPy broadcasting as an index map: `in_shape` is right-aligned against the
// result; a dim of constant 1 reads index 0.
std::vector<Index> broadcast_index(const Shape& in_shape, const Shape& out_shape, const std::vector<Index>& out) {
  std::vector<Index> index;
  size_t offset = out_shape.size() - in_shape.size();
  for (size_t k = 0; k < in_shape.size(); ++k) index.push_back(in_shape[k] == Size(1) ? Index(0) : out[offset + k]);
  return index;
}

std::vector<Index> strides(const Shape& shape) {
  std::vector<Index> result(shape.size(), Index(1));
  for (int k = static_cast<int>(shape.size()) - 2; k >= 0; --k) result[k] = Index(shape[k + 1]) * result[k + 1];
  return result;
}

// Reshape: both shapes list the same non-1 dims in order, so axes map one to
// one; otherwise the row-major flat position is recomputed with div and mod.
std::vector<Index> reshape_index(const Shape& in_shape, const Shape& out_shape, const std::vector<Index>& out) {
  std::vector<size_t> in_axes, out_axes;
  for (size_t k = 0; k < in_shape.size(); ++k)
    if (in_shape[k] != Size(1)) in_axes.push_back(k);
  for (size_t k = 0; k < out_shape.size(); ++k)
    if (out_shape[k] != Size(1)) out_axes.push_back(k);
  bool same = in_axes.size() == out_axes.size();
  for (size_t i = 0; same && i < in_axes.size(); ++i) same = in_shape[in_axes[i]] == out_shape[out_axes[i]];
  std::vector<Index> index(in_shape.size(), Index(0));
  if (same) {
    for (size_t i = 0; i < in_axes.size(); ++i) index[in_axes[i]] = out[out_axes[i]];
    return index;
  }
  std::vector<Index> out_strides = strides(out_shape), in_strides = strides(in_shape);
  Index flat(0);
  for (size_t k = 0; k < out.size(); ++k) flat = flat + out[k] * out_strides[k];
  for (size_t k = 0; k < in_shape.size(); ++k) {
    if (in_shape[k] == Size(1)) continue;
    AXON_CHECK(in_strides[k].is_poly(), "strides are polynomials");
    Index q = Index::div(flat, in_strides[k].poly);
    index[k] = k == 0 ? q : Index::mod(q, in_shape[k]);
  }
  return index;
}

TermRef reduce(NodeRef node, const std::vector<Index>& out, const ReadInput& read, VarSupply& vars) {
  const Shape& in_shape = node->input(0)->shape();
  const auto& axes = node->attrs().axes;
  std::vector<Index> index;
  std::vector<std::pair<std::string, Size>> loops;
  size_t next = 0;
  for (size_t k = 0; k < in_shape.size(); ++k) {
    bool reduced = std::find(axes.begin(), axes.end(), static_cast<int64_t>(k)) != axes.end();
    if (reduced) {
      std::string v = vars.fresh();
      loops.push_back({v, in_shape[k]});
      index.push_back(Index::var(v));
      if (node->attrs().keepdims) ++next;
    } else {
      index.push_back(out[next++]);
    }
  }
  TermRef body = read(0, index);
  for (auto it = loops.rbegin(); it != loops.rend(); ++it) body = fold(node->op(), it->first, it->second, body);
  return body;
}

TermRef contract(NodeRef node, const std::vector<Index>& out, const ReadInput& read, VarSupply& vars) {
  ir::EinsumSpec spec = ir::EinsumSpec::parse(node->attrs().name);
  const std::vector<std::string>& operands = spec.operands;
  const std::string& output = spec.output;
  std::map<char, Index> label_index;
  for (size_t k = 0; k < output.size(); ++k) label_index[output[k]] = out[k];
  std::vector<std::pair<std::string, Size>> loops;
  for (size_t i = 0; i < operands.size(); ++i) {
    for (size_t k = 0; k < operands[i].size(); ++k) {
      char label = operands[i][k];
      if (label_index.count(label)) continue;
      std::string v = vars.fresh();
      label_index[label] = Index::var(v);
      loops.push_back({v, node->input(i)->shape()[k]});
    }
  }
  TermRef body;
  for (size_t i = 0; i < operands.size(); ++i) {
    std::vector<Index> index;
    for (char label : operands[i]) index.push_back(label_index.at(label));
    TermRef r = read(i, index);
    body = body ? apply(Op::Mul, {body, r}) : r;
  }
  for (auto it = loops.rbegin(); it != loops.rend(); ++it) body = fold(Op::ReduceSum, it->first, it->second, body);
  return body;
}

TermRef concat(NodeRef node, const std::vector<Index>& out, const ReadInput& read) {
  size_t axis = static_cast<size_t>(node->attrs().axes[0]);
  // Later parts first, so each test is "index < end of the parts before".
  std::vector<Size> offsets;
  Size offset = 0;
  for (NodeRef in : node->inputs()) {
    offsets.push_back(offset);
    offset = offset + in->shape()[axis];
  }
  TermRef result;
  for (size_t i = node->inputs().size(); i-- > 0;) {
    std::vector<Index> index = out;
    index[axis] = out[axis] + Index(-offsets[i]);
    TermRef part = read(i, index);
    result = result ? index_if(out[axis], offsets[i + 1], part, result) : part;
  }
  return result;
}

}  // namespace

std::vector<Index> fresh_indices(const Shape& shape, VarSupply& vars) {
  std::vector<Index> index;
  for (size_t k = 0; k < shape.size(); ++k) index.push_back(Index::var(vars.fresh()));
  return index;
}

TermRef element(NodeRef node, const std::vector<Index>& out, const ReadInput& read, VarSupply& vars) {
  const ir::Attrs& a = node->attrs();
  switch (ir::op_kind(node->op())) {
    case ir::OpKind::Leaf:
      AXON_CHECK(node->op() != Op::Input, "input elements come from the caller");
      return node->op() == Op::Const ? number(a.value) : size_number(a.sizes[0]);
    case ir::OpKind::Unary: return apply(node->op(), {read(0, out)}, a.value);
    case ir::OpKind::Binary:
    case ir::OpKind::Select: {
      std::vector<TermRef> args;
      for (size_t i = 0; i < node->inputs().size(); ++i)
        args.push_back(read(i, broadcast_index(node->input(i)->shape(), node->shape(), out)));
      if (node->op() == Op::Select) return select(a.cmp, args[0], args[1], args[2], args[3]);
      return apply(node->op(), args);
    }
    case ir::OpKind::Reduce: return reduce(node, out, read, vars);
    case ir::OpKind::Scan: {  // cumsum: y[..i..] = sum over j < i + 1 of x[..j..]
      size_t axis = static_cast<size_t>(a.axes[0]);
      std::string v = vars.fresh();
      std::vector<Index> index = out;
      index[axis] = Index::var(v);
      if (out[axis].is_poly()) return fold(Op::ReduceSum, v, out[axis].poly + 1, read(0, index));
      // i is not a polynomial (it came through a reshape): the same sum over
      // the whole axis, each term x[j] taken only when j <= i (i + 1 - j >= 1).
      Index past = out[axis] + Index(1) + Index(-1) * Index::var(v);
      return fold(Op::ReduceSum, v, node->input(0)->shape()[axis], index_if(past, 1, number(0.0), read(0, index)));
    }
    case ir::OpKind::Contract: return contract(node, out, read, vars);
    case ir::OpKind::Layout:
      switch (node->op()) {
        case Op::Transpose: {
          std::vector<Index> index(out.size());
          for (size_t k = 0; k < out.size(); ++k) index[a.axes[k]] = out[k];
          return read(0, index);
        }
        case Op::Reshape: return read(0, reshape_index(node->input(0)->shape(), node->shape(), out));
        case Op::Broadcast: return read(0, broadcast_index(node->input(0)->shape(), node->shape(), out));
        case Op::Slice: {
          std::vector<Index> index;
          for (size_t k = 0; k < out.size(); ++k) index.push_back(Index(a.sizes[k]) + out[k] * Index(a.axes[k]));
          return read(0, index);
        }
        case Op::Concat: return concat(node, out, read);
        case Op::Input:
        case Op::Const:
        case Op::SizeValue:
        case Op::Neg:
        case Op::Exp:
        case Op::Log:
        case Op::Sqrt:
        case Op::Tanh:
        case Op::Abs:
        case Op::Recip:
        case Op::Pow:
        case Op::Add:
        case Op::Sub:
        case Op::Mul:
        case Op::Div:
        case Op::Max:
        case Op::Min:
        case Op::Select:
        case Op::ReduceSum:
        case Op::ReduceMax:
        case Op::ReduceMin:
        case Op::Cumsum:
        case Op::Contract: break;
      }
  }
  throw InternalError(__FILE__, __LINE__, std::string("no semantics for ") + ir::op_name(node->op()));
}

TermRef element_of_dag(NodeRef root, const std::vector<Index>& out, const LeafFn& leaf_tensor, VarSupply& vars) {
  int tensor = leaf_tensor(root);
  if (tensor >= 0) return read(tensor, out);
  AXON_CHECK(root->op() != Op::Input, "every input is a leaf tensor");
  ReadInput read_input = [&](size_t i, const std::vector<Index>& index) {
    return element_of_dag(root->input(i), index, leaf_tensor, vars);
  };
  return element(root, out, read_input, vars);
}

}  // namespace axon::sem
