#include "eval/interpreter.h"

#include <cmath>
#include <limits>
#include <map>
#include <unordered_map>

namespace axon::eval {
namespace {

using ir::NodeRef;
using ir::Op;
using Index = std::vector<int64_t>;

[[noreturn]] void error(const SourceLoc& loc, const std::string& message) {
  throw UserError(loc, message);
}

Index strides_of(const Index& shape) {
  Index strides(shape.size(), 1);
  for (int k = static_cast<int>(shape.size()) - 2; k >= 0; --k) strides[k] = strides[k + 1] * shape[k + 1];
  return strides;
}

// Advances a row-major multi-index; false after the last one.
bool next_index(Index& index, const Index& shape) {
  for (int k = static_cast<int>(shape.size()) - 1; k >= 0; --k) {
    if (++index[k] < shape[k]) return true;
    index[k] = 0;
  }
  return false;
}

template <typename F>
void for_each_index(const Index& shape, F&& body) {
  for (int64_t d : shape)
    if (d == 0) return;
  Index index(shape.size(), 0);
  do body(index);
  while (next_index(index, shape));
}

// Strides that read `in` (right-aligned, broadcast dims read index 0) at an
// index of `out_shape`.
Index broadcast_strides(const Index& in_shape, const Index& out_shape) {
  Index strides = strides_of(in_shape), result(out_shape.size(), 0);
  size_t offset = out_shape.size() - in_shape.size();
  for (size_t k = 0; k < in_shape.size(); ++k) result[offset + k] = in_shape[k] == 1 ? 0 : strides[k];
  return result;
}

int64_t dot(const Index& index, const Index& strides) {
  int64_t offset = 0;
  for (size_t k = 0; k < index.size(); ++k) offset += index[k] * strides[k];
  return offset;
}

double max_nan(double a, double b) {
  return (std::isnan(a) || std::isnan(b)) ? NAN : std::max(a, b);
}
double min_nan(double a, double b) {
  return (std::isnan(a) || std::isnan(b)) ? NAN : std::min(a, b);
}

double apply_unary(Op op, double x, double exponent) {
  switch (op) {
    case Op::Neg: return -x;
    case Op::Exp: return std::exp(x);
    case Op::Log: return std::log(x);
    case Op::Sqrt: return std::sqrt(x);
    case Op::Tanh: return std::tanh(x);
    case Op::Abs: return std::fabs(x);
    case Op::Recip: return 1.0 / x;
    case Op::Pow: return exponent == 2.0 ? x * x : std::pow(x, exponent);
    default: throw InternalError(__FILE__, __LINE__, "not a unary op");
  }
}

double apply_binary(Op op, double a, double b) {
  switch (op) {
    case Op::Add: return a + b;
    case Op::Sub: return a - b;
    case Op::Mul: return a * b;
    case Op::Div: return a / b;
    case Op::Max: return max_nan(a, b);
    case Op::Min: return min_nan(a, b);
    default: throw InternalError(__FILE__, __LINE__, "not a binary op");
  }
}

bool compare(ir::Cmp cmp, double a, double b) {
  switch (cmp) {
    case ir::Cmp::Lt: return a < b;
    case ir::Cmp::Le: return a <= b;
    case ir::Cmp::Gt: return a > b;
    case ir::Cmp::Ge: return a >= b;
    case ir::Cmp::Eq: return a == b;
    case ir::Cmp::Ne: return a != b;
  }
  return false;
}

class Interpreter {
 public:
  explicit Interpreter(const ir::Dims& dims) : dims_(dims) {}

  std::vector<Tensor> run(const ir::Function& fn, const std::vector<Tensor>& inputs) {
    AXON_CHECK(inputs.size() == fn.params.size(), "one tensor per parameter");
    std::vector<NodeRef> order = ir::topological_order(fn.outputs);
    // Free each intermediate after its last use, so large kernels fit.
    std::unordered_map<NodeRef, size_t> last_use;
    for (size_t i = 0; i < order.size(); ++i)
      for (NodeRef in : order[i]->inputs()) last_use[in] = i;
    for (NodeRef out : fn.outputs) last_use[out] = order.size();
    for (size_t i = 0; i < order.size(); ++i) {
      NodeRef node = order[i];
      values_[node] = node->op() == Op::Input ? inputs.at(node->attrs().index) : compute(node);
      for (NodeRef in : node->inputs())
        if (last_use[in] == i) values_.erase(in);
    }
    std::vector<Tensor> results;
    for (NodeRef out : fn.outputs) results.push_back(values_.at(out));
    return results;
  }

 private:
  const Tensor& value(NodeRef node) const { return values_.at(node); }

  Tensor result_tensor(NodeRef node) {
    Index shape = concrete_shape(node->shape(), dims_, node->loc());
    return Tensor::zeros(shape);
  }

  Tensor compute(NodeRef node) {
    try {
      return compute_unchecked(node);
    } catch (const std::overflow_error&) {
      error(node->loc(), "size arithmetic overflows 64-bit integers at these sizes");
    }
  }

  Tensor compute_unchecked(NodeRef node) {
    switch (ir::op_kind(node->op())) {
      case ir::OpKind::Leaf: return leaf(node);
      case ir::OpKind::Unary: return unary(node);
      case ir::OpKind::Binary:
      case ir::OpKind::Select: return elementwise(node);
      case ir::OpKind::Reduce: return reduce(node);
      case ir::OpKind::Scan: return cumsum(node);
      case ir::OpKind::Contract: return contract(node);
      case ir::OpKind::Layout: return layout(node);
    }
    throw InternalError(__FILE__, __LINE__, "unknown op kind");
  }

  Tensor leaf(NodeRef node) {
    Tensor t = Tensor::zeros({});
    if (node->op() == Op::Const) {
      t.data[0] = node->attrs().value;
    } else {
      auto n = node->attrs().sizes[0].evaluate(dims_);
      if (!n) error(node->loc(), "size " + node->attrs().sizes[0].str() + " is not known");
      t.data[0] = static_cast<double>(*n);
    }
    return t;
  }

  Tensor unary(NodeRef node) {
    Tensor t = value(node->input(0));
    for (double& x : t.data) x = apply_unary(node->op(), x, node->attrs().value);
    return t;
  }

  Tensor elementwise(NodeRef node) {
    Tensor out = result_tensor(node);
    std::vector<Index> strides;
    for (NodeRef in : node->inputs()) strides.push_back(broadcast_strides(value(in).shape, out.shape));
    std::vector<const double*> data;
    for (NodeRef in : node->inputs()) data.push_back(value(in).data.data());
    int64_t flat = 0;
    for_each_index(out.shape, [&](const Index& index) {
      if (node->op() == Op::Select) {
        bool holds = compare(node->attrs().cmp, data[0][dot(index, strides[0])], data[1][dot(index, strides[1])]);
        int pick = holds ? 2 : 3;
        out.data[flat++] = data[pick][dot(index, strides[pick])];
      } else {
        out.data[flat++] = apply_binary(node->op(), data[0][dot(index, strides[0])], data[1][dot(index, strides[1])]);
      }
    });
    return out;
  }

  Tensor reduce(NodeRef node) {
    const Tensor& in = value(node->input(0));
    Tensor out = result_tensor(node);
    std::vector<bool> reduced(in.shape.size(), false);
    for (int64_t axis : node->attrs().axes) {
      reduced[axis] = true;
      if (in.shape[axis] == 0 && node->op() != Op::ReduceSum)
        error(node->loc(), std::string(ir::op_name(node->op())) + " over axis " + std::to_string(axis) +
                               " of length 0 has no identity");
    }
    // Output strides over the input's axes: 0 along reduced axes.
    Index kept;
    for (size_t k = 0; k < in.shape.size(); ++k) kept.push_back(reduced[k] ? 1 : in.shape[k]);
    Index out_strides = strides_of(kept);
    for (size_t k = 0; k < in.shape.size(); ++k)
      if (reduced[k]) out_strides[k] = 0;
    std::vector<bool> seen(out.data.size(), false);
    int64_t flat = 0;
    for_each_index(in.shape, [&](const Index& index) {
      double x = in.data[flat++];
      int64_t o = dot(index, out_strides);
      if (!seen[o]) {
        out.data[o] = x;
        seen[o] = true;
      } else if (node->op() == Op::ReduceSum) {
        out.data[o] += x;
      } else {
        out.data[o] = node->op() == Op::ReduceMax ? max_nan(out.data[o], x) : min_nan(out.data[o], x);
      }
    });
    return out;
  }

  Tensor cumsum(NodeRef node) {
    Tensor t = value(node->input(0));
    int64_t axis = node->attrs().axes[0];
    int64_t stride = strides_of(t.shape)[axis];
    int64_t length = t.shape[axis];
    for (int64_t i = 0; i < t.numel(); ++i) {
      int64_t position = (i / stride) % length;
      if (position > 0) t.data[i] += t.data[i - stride];
    }
    return t;
  }

  Tensor contract(NodeRef node) {
    ir::EinsumSpec spec = ir::EinsumSpec::parse(node->attrs().name);
    const std::vector<std::string>& operands = spec.operands;
    const std::string& output = spec.output;
    // Loop over every label: output labels first, then the summed ones.
    std::string labels = output;
    std::map<char, int64_t> extent;
    for (size_t i = 0; i < operands.size(); ++i) {
      const Tensor& t = value(node->input(i));
      for (size_t k = 0; k < operands[i].size(); ++k) {
        extent[operands[i][k]] = t.shape[k];
        if (labels.find(operands[i][k]) == std::string::npos) labels += operands[i][k];
      }
    }
    Index loop_shape;
    for (char c : labels) loop_shape.push_back(extent[c]);
    // For each operand, the stride of every loop label (diagonals add up).
    std::vector<Index> strides(operands.size(), Index(labels.size(), 0));
    for (size_t i = 0; i < operands.size(); ++i) {
      Index s = strides_of(value(node->input(i)).shape);
      for (size_t k = 0; k < operands[i].size(); ++k) strides[i][labels.find(operands[i][k])] += s[k];
    }
    Index out_strides(labels.size(), 0);
    Index os = strides_of(concrete_shape(node->shape(), dims_, node->loc()));
    for (size_t k = 0; k < output.size(); ++k) out_strides[k] = os[k];
    Tensor out = result_tensor(node);
    // The innermost loop runs along the last output label (unit stride in
    // the result), else the last summed label; it is a tight strided loop.
    if (labels.empty() || out.data.empty()) {
      if (labels.empty()) {
        double product = 1.0;
        for (size_t i = 0; i < operands.size(); ++i) product *= value(node->input(i)).data[0];
        out.data[0] = product;
      }
      return out;
    }
    size_t inner = output.empty() ? labels.size() - 1 : output.size() - 1;
    int64_t n = loop_shape[inner];
    if (n == 0) return out;
    std::vector<const double*> data;
    for (size_t i = 0; i < operands.size(); ++i) data.push_back(value(node->input(i)).data.data());
    Index outer_shape = loop_shape;
    outer_shape[inner] = 1;
    for_each_index(outer_shape, [&](const Index& index) {
      std::vector<int64_t> base(operands.size());
      for (size_t i = 0; i < operands.size(); ++i) base[i] = dot(index, strides[i]);
      double* o = out.data.data() + dot(index, out_strides);
      int64_t so = out_strides[inner];
      if (operands.size() == 2) {
        const double* a = data[0] + base[0];
        const double* b = data[1] + base[1];
        int64_t sa = strides[0][inner], sb = strides[1][inner];
        for (int64_t j = 0; j < n; ++j) o[j * so] += a[j * sa] * b[j * sb];
        return;
      }
      for (int64_t j = 0; j < n; ++j) {
        double product = 1.0;
        for (size_t i = 0; i < operands.size(); ++i) product *= data[i][base[i] + j * strides[i][inner]];
        o[j * so] += product;
      }
    });
    return out;
  }

  Tensor layout(NodeRef node) {
    Tensor out = result_tensor(node);
    const Tensor& in = value(node->input(0));
    const ir::Attrs& a = node->attrs();
    switch (node->op()) {
      case Op::Reshape: out.data = in.data; return out;
      case Op::Broadcast: {
        Index strides = broadcast_strides(in.shape, out.shape);
        int64_t flat = 0;
        for_each_index(out.shape, [&](const Index& index) { out.data[flat++] = in.data[dot(index, strides)]; });
        return out;
      }
      case Op::Transpose: {
        Index in_strides = strides_of(in.shape), strides;
        for (int64_t axis : a.axes) strides.push_back(in_strides[axis]);
        int64_t flat = 0;
        for_each_index(out.shape, [&](const Index& index) { out.data[flat++] = in.data[dot(index, strides)]; });
        return out;
      }
      case Op::Slice: return slice(node, in, std::move(out));
      case Op::Concat: {
        int64_t axis = a.axes[0];
        int64_t offset = 0;
        Index out_strides = strides_of(out.shape);
        for (NodeRef part : node->inputs()) {
          const Tensor& t = value(part);
          int64_t flat = 0;
          for_each_index(t.shape, [&](const Index& index) {
            out.data[dot(index, out_strides) + offset * out_strides[axis]] = t.data[flat++];
          });
          offset += t.shape[axis];
        }
        return out;
      }
      default: throw InternalError(__FILE__, __LINE__, "not a layout op");
    }
  }

  Tensor slice(NodeRef node, const Tensor& in, Tensor out) {
    const ir::Attrs& a = node->attrs();
    Index in_strides = strides_of(in.shape);
    int64_t base = 0;
    Index strides;
    for (size_t k = 0; k < in.shape.size(); ++k) {
      auto start = a.sizes[k].evaluate(dims_);
      AXON_CHECK(start.has_value(), "slice start not known");
      int64_t step = a.axes[k], length = out.shape[k];
      int64_t last = *start + (length - 1) * step;
      if (length > 0 && (*start < 0 || *start >= in.shape[k] || last < 0 || last >= in.shape[k]))
        error(node->loc(), "slice reads outside axis " + std::to_string(k) + " of size " + std::to_string(in.shape[k]) +
                               " (from " + std::to_string(*start) + " to " + std::to_string(last) +
                               "); Axon does not clip slices of symbolic sizes");
      base += *start * in_strides[k];
      strides.push_back(step * in_strides[k]);
    }
    int64_t flat = 0;
    for_each_index(out.shape, [&](const Index& index) { out.data[flat++] = in.data[base + dot(index, strides)]; });
    return out;
  }

  const ir::Dims& dims_;
  std::unordered_map<NodeRef, Tensor> values_;
};

}  // namespace

std::vector<int64_t> concrete_shape(const ir::Shape& shape, const ir::Dims& dims, const SourceLoc& loc) {
  std::vector<int64_t> result;
  __int128 elements = 1;
  for (const ir::Size& dim : shape) {
    std::optional<int64_t> n;
    try {
      n = dim.evaluate(dims);
    } catch (const std::overflow_error&) {
      error(loc, "size " + dim.str() + " overflows");
    }
    if (!n) {
      std::string missing;
      for (const std::string& name : dim.names())
        if (!dims.count(name)) missing = name;
      error(loc, "size '" + missing + "' is not given; pass --dims " + missing + "=...");
    }
    if (*n < 0) error(loc, "dimension " + dim.str() + " is negative (" + std::to_string(*n) + ") at these sizes");
    elements *= *n;
    if (elements > kMaxElements)
      error(loc, "a tensor of shape " + ir::shape_str(shape) + " is too large for the reference interpreter");
    result.push_back(*n);
  }
  return result;
}

std::vector<Tensor> evaluate(const ir::Function& fn, const std::vector<Tensor>& inputs, const ir::Dims& dims) {
  return Interpreter(dims).run(fn, inputs);
}

}  // namespace axon::eval
