#include "eval/interpreter.h"

#include <unistd.h>

#include <cmath>
#include <iomanip>
#include <limits>
#include <map>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "eval/rounding.h"
#include "ir/scalar.h"

namespace axon::eval {
namespace {

using ir::NodeRef;
using ir::Op;
using Index = std::vector<int64_t>;
using Bound = std::vector<double>;  // one rounding bound per element of a value

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

// Element-wise ops compute with the one scalar semantics of the op table.
double apply_unary(Op op, double x, double exponent) {
  return ir::scalar_unary(op, x, exponent);
}
double apply_binary(Op op, double a, double b) {
  return ir::scalar_binary(op, a, b);
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

// ---- The rounding bound rules (interpreter.h lists them) ------------------------
// Each gives the bound of y = op(x...) from the inputs' values and bounds; u
// is y's unit round-off. Ops of the other kinds are listed too, so that a new
// op in ops.def is a compile error here rather than a silent default.

constexpr double kTranscendental = 4;  // units of u that exp, log, tanh and pow may be off by

// One rounding to the dtype: a relative u, and an absolute `tiny` for the
// results that underflow (flushed to zero by some kernels) or for the values
// the dtype cannot hold that become harmless downstream (1 / (1 + exp(100))).
struct Rounding {
  double u, tiny, largest;
  double of(double y) const { return u * std::fabs(y) + tiny; }
  // Whether the kernel's value of x (E(x) away from x) may exceed the dtype:
  // it is then infinite there (1 + exp(90) in float32).
  bool may_overflow(double x, double ex) const { return std::fabs(x) + ex > largest; }
};

double unary_bound(Op op, double x, double ex, double y, double exponent, const Rounding& r) {
  double u = r.u, ay = std::fabs(y), t = r.tiny;
  switch (op) {
    case Op::Neg:
    case Op::Abs: return ex;
    case Op::Exp: return ay * ex + kTranscendental * u * ay + t;
    case Op::Log: return ex / std::fabs(x) + kTranscendental * u * ay + t;
    case Op::Sqrt: return std::min(ex / (2 * ay), std::sqrt(ex)) + u * ay + t;
    case Op::Tanh: return (1 - y * y) * ex + kTranscendental * u * ay + t;
    case Op::Recip:  // of an overflowed x: 0 in the kernel, anything between 0 and y
      return std::max(ex / (x * x), r.may_overflow(x, ex) ? ay : 0.0) + u * ay + t;
    case Op::Pow:
      return (ex == 0 ? 0 : std::fabs(exponent) * std::pow(std::fabs(x), exponent - 1) * ex) +
             (exponent == 2.0 ? 1 : kTranscendental) * u * ay + t;
    case Op::Input:
    case Op::Const:
    case Op::SizeValue:
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
    case Op::Contract:
    case Op::Transpose:
    case Op::Reshape:
    case Op::Broadcast:
    case Op::Slice:
    case Op::Concat: break;
  }
  throw InternalError(__FILE__, __LINE__, "not a unary op");
}

// An integer of at most 1/u from exact operands has no rounding error. Taken
// only for values made of constants and sizes alone (index grids), so that
// the bounds of computations on data keep their general rules.
bool exact_integer(double y, double ea, double eb, const Rounding& r) {
  return ea == 0 && eb == 0 && y == std::nearbyint(y) && std::fabs(y) * r.u <= 1;
}

double binary_bound(Op op, double a, double ea, double b, double eb, double y, const Rounding& r, bool index) {
  if (index && (op == Op::Add || op == Op::Sub || op == Op::Mul) && exact_integer(y, ea, eb, r)) return 0;
  double local = r.of(y);
  switch (op) {
    case Op::Add:
    case Op::Sub: return ea + eb + local;
    case Op::Mul: return ea * std::fabs(b) + std::fabs(a) * eb + local;
    case Op::Div:  // by an overflowed b: 0 in the kernel, anything between 0 and y
      return std::max(ea / std::fabs(b) + std::fabs(a) * eb / (b * b), r.may_overflow(b, eb) ? std::fabs(y) : 0.0) +
             local;
    case Op::Max:
    case Op::Min: return std::max(ea, eb);
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
    case Op::Select:
    case Op::ReduceSum:
    case Op::ReduceMax:
    case Op::ReduceMin:
    case Op::Cumsum:
    case Op::Contract:
    case Op::Transpose:
    case Op::Reshape:
    case Op::Broadcast:
    case Op::Slice:
    case Op::Concat: break;
  }
  throw InternalError(__FILE__, __LINE__, "not a binary op");
}

// where(a cmp b, t, f): two rounded values within c times their bounds of
// each other may compare either way; exact ones (index grids, constants)
// compare as the reference does, even when equal.
double select_bound(double a, double ea, double b, double eb, double t, double et, double f, double ef) {
  double e = std::max(et, ef);
  if (ea + eb > 0 && std::fabs(a - b) <= kBoundFactor * (ea + eb)) e += std::fabs(t - f);
  return e;
}

// An infinite value (a -inf mask fill, exp(-inf) = 0 downstream) must be
// matched exactly, so its bound is 0; a bound that is NaN (0 times an
// infinite bound) allows anything, as its infinite input bound did.
double settled(double y, double e) {
  if (!std::isfinite(y)) return 0;
  return std::isnan(e) ? std::numeric_limits<double>::infinity() : e;
}

// A sum's bound from its running totals: q = the sum of the terms' E^2, ss =
// the sum of the squared partial sums after the first term.
double sum_bound(double q, double ss, const Rounding& r) {
  return std::sqrt(q) + r.u * std::sqrt(ss) + (ss > 0 ? r.tiny : 0);
}

// A constant or a size as the kernel holds it: exact, or rounded once.
double constant_bound(double c, ir::DType dtype) {
  return round_to(c, dtype) == c ? 0 : unit_roundoff(dtype) * std::fabs(c);
}

// An einsum term t = a_0 * a_1 * ...: sum_i E(a_i) prod_{j!=i} |a_j| + (n - 1) u|t|.
double product_bound(const double* a, const double* e, size_t n, const Rounding& r) {
  double t = 1, sum = 0;
  for (size_t i = 0; i < n; ++i) t *= a[i];
  for (size_t i = 0; i < n; ++i) {
    if (e[i] == 0) continue;
    double others = 1;
    for (size_t j = 0; j < n; ++j)
      if (j != i) others *= std::fabs(a[j]);
    sum += e[i] * others;
  }
  return sum + static_cast<double>(n - 1) * r.of(t);
}

class Interpreter {
 public:
  Interpreter(const ir::Dims& dims, bool bounds) : dims_(dims), bounds_on_(bounds) {}

  Evaluation run(const ir::Function& fn, const std::vector<Tensor>& inputs) {
    AXON_CHECK(inputs.size() == fn.params.size(), "one tensor per parameter");
    std::vector<NodeRef> order = ir::topological_order(fn.outputs);
    // Free each intermediate after its last use, so large kernels fit.
    std::unordered_map<NodeRef, size_t> last_use;
    for (size_t i = 0; i < order.size(); ++i)
      for (NodeRef in : order[i]->inputs()) last_use[in] = i;
    for (NodeRef out : fn.outputs) last_use[out] = order.size();
    for (NodeRef node : order) {  // no kernel input flows into it (an index grid, a constant)
      bool free = node->op() != Op::Input;
      for (NodeRef in : node->inputs()) free = free && input_free_.count(in);
      if (free) input_free_.insert(node);
    }
    for (size_t i = 0; i < order.size(); ++i) {
      NodeRef node = order[i];
      Bound e;
      if (node->op() == Op::Input) {
        values_[node] = inputs.at(node->attrs().index);
        if (bounds_on_) e.assign(values_[node].data.size(), 0.0);
      } else {
        values_[node] = compute(node, e);
      }
      if (bounds_on_) bounds_[node] = std::move(e);
      for (NodeRef in : node->inputs())
        if (last_use[in] == i) values_.erase(in), bounds_.erase(in);
    }
    Evaluation result;
    for (NodeRef out : fn.outputs) {
      result.values.push_back(values_.at(out));
      if (!bounds_on_) continue;
      Tensor e;
      e.shape = result.values.back().shape;
      e.data = bounds_.at(out);
      result.bounds.push_back(std::move(e));
    }
    return result;
  }

 private:
  const Tensor& value(NodeRef node) const { return values_.at(node); }
  const Bound& bound(NodeRef node) const { return bounds_.at(node); }
  static Rounding rounding_of(NodeRef node) {
    return {unit_roundoff(node->dtype()), underflow_floor(node->dtype()), largest_finite(node->dtype())};
  }

  Tensor result_tensor(NodeRef node) {
    Index shape = concrete_shape(node->shape(), dims_, node->loc());
    return Tensor::zeros(shape);
  }

  Tensor compute(NodeRef node, Bound& e) {
    try {
      return compute_unchecked(node, e);
    } catch (const std::overflow_error&) {
      error(node->loc(), "size arithmetic overflows 64-bit integers at these sizes");
    }
  }

  Tensor compute_unchecked(NodeRef node, Bound& e) {
    switch (ir::op_kind(node->op())) {
      case ir::OpKind::Leaf: return leaf(node, e);
      case ir::OpKind::Unary: return unary(node, e);
      case ir::OpKind::Binary:
      case ir::OpKind::Select: return elementwise(node, e);
      case ir::OpKind::Reduce: return reduce(node, e);
      case ir::OpKind::Scan: return cumsum(node, e);
      case ir::OpKind::Contract: return contract(node, e);
      case ir::OpKind::Layout: return layout(node, e);
    }
    throw InternalError(__FILE__, __LINE__, "unknown op kind");
  }

  Tensor leaf(NodeRef node, Bound& e) {
    Tensor t = Tensor::zeros({});
    if (node->op() == Op::Const) {
      t.data[0] = node->attrs().value;
    } else {
      auto n = node->attrs().sizes[0].evaluate(dims_);
      if (!n) error(node->loc(), "size " + node->attrs().sizes[0].str() + " is not known");
      t.data[0] = static_cast<double>(*n);
    }
    if (bounds_on_) e = {constant_bound(t.data[0], node->dtype())};
    return t;
  }

  Tensor unary(NodeRef node, Bound& e) {
    const Tensor& in = value(node->input(0));
    Tensor t = in;
    double exponent = node->attrs().value;
    for (double& x : t.data) x = apply_unary(node->op(), x, exponent);
    if (bounds_on_) {
      const Bound& ein = bound(node->input(0));
      Rounding u = rounding_of(node);
      e.resize(t.data.size());
      for (size_t i = 0; i < e.size(); ++i)
        e[i] = settled(t.data[i], unary_bound(node->op(), in.data[i], ein[i], t.data[i], exponent, u));
    }
    return t;
  }

  Tensor elementwise(NodeRef node, Bound& e) {
    Tensor out = result_tensor(node);
    std::vector<Index> strides;
    for (NodeRef in : node->inputs()) strides.push_back(broadcast_strides(value(in).shape, out.shape));
    std::vector<const double*> data, bounds;
    for (NodeRef in : node->inputs()) {
      data.push_back(value(in).data.data());
      if (bounds_on_) bounds.push_back(bound(in).data());
    }
    if (bounds_on_) e.resize(out.data.size());
    Rounding u = rounding_of(node);
    bool index_grid = bounds_on_ && input_free(node);
    size_t n = node->inputs().size();
    int64_t flat = 0;
    Index at(n);
    for_each_index(out.shape, [&](const Index& index) {
      for (size_t k = 0; k < n; ++k) at[k] = dot(index, strides[k]);
      double a = data[0][at[0]], b = data[1][at[1]];
      if (node->op() == Op::Select) {
        int pick = compare(node->attrs().cmp, a, b) ? 2 : 3;
        out.data[flat] = data[pick][at[pick]];
        if (bounds_on_)
          e[flat] = settled(out.data[flat], select_bound(a, bounds[0][at[0]], b, bounds[1][at[1]], data[2][at[2]],
                                                         bounds[2][at[2]], data[3][at[3]], bounds[3][at[3]]));
      } else {
        double y = out.data[flat] = apply_binary(node->op(), a, b);
        if (bounds_on_)
          e[flat] = settled(y, binary_bound(node->op(), a, bounds[0][at[0]], b, bounds[1][at[1]], y, u, index_grid));
      }
      ++flat;
    });
    return out;
  }

  Tensor reduce(NodeRef node, Bound& e) {
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
    bool sum = node->op() == Op::ReduceSum;
    // The bound's running totals: for a sum, q (terms' E^2) and ss (partial
    // sums^2); for max and min, q is the largest E.
    const Bound* ein = bounds_on_ ? &bound(node->input(0)) : nullptr;
    Bound q(bounds_on_ ? out.data.size() : 0), ss(bounds_on_ && sum ? out.data.size() : 0);
    std::vector<bool> seen(out.data.size(), false);
    int64_t flat = 0;
    for_each_index(in.shape, [&](const Index& index) {
      double x = in.data[flat];
      double ex = ein ? (*ein)[flat] : 0;
      ++flat;
      int64_t o = dot(index, out_strides);
      if (!seen[o]) {
        out.data[o] = x;
        seen[o] = true;
        if (ein) q[o] = sum ? ex * ex : ex;
      } else if (sum) {
        out.data[o] += x;
        if (ein) q[o] += ex * ex, ss[o] += out.data[o] * out.data[o];
      } else {
        out.data[o] = ir::scalar_binary(node->op() == Op::ReduceMax ? Op::Max : Op::Min, out.data[o], x);
        if (ein) q[o] = std::max(q[o], ex);
      }
    });
    if (bounds_on_) {
      Rounding u = rounding_of(node);
      e.resize(out.data.size());
      for (size_t o = 0; o < e.size(); ++o) e[o] = sum ? sum_bound(q[o], ss[o], u) : q[o];
    }
    return out;
  }

  Tensor cumsum(NodeRef node, Bound& e) {
    Tensor t = value(node->input(0));
    int64_t axis = node->attrs().axes[0];
    int64_t stride = strides_of(t.shape)[axis];
    int64_t length = t.shape[axis];
    Bound q, ss;
    if (bounds_on_) {
      q = bound(node->input(0));
      for (double& x : q) x *= x;
      ss.assign(q.size(), 0.0);
    }
    for (int64_t i = 0; i < t.numel(); ++i) {
      int64_t position = (i / stride) % length;
      if (position == 0) continue;
      t.data[i] += t.data[i - stride];
      if (bounds_on_) q[i] += q[i - stride], ss[i] = ss[i - stride] + t.data[i] * t.data[i];
    }
    if (bounds_on_) {
      Rounding u = rounding_of(node);
      bool index_grid = input_free(node);
      e.resize(q.size());
      for (size_t i = 0; i < e.size(); ++i) {
        int64_t position = (static_cast<int64_t>(i) / stride) % length;
        bool exact =
            index_grid && q[i] == 0 && (position == 0 || e[i - stride] == 0) && exact_integer(t.data[i], 0, 0, u);
        e[i] = exact ? 0 : sum_bound(q[i], ss[i], u);
      }
    }
    return t;
  }

  Tensor contract(NodeRef node, Bound& e) {
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
    Rounding u = rounding_of(node);
    std::vector<const double*> data, bounds;
    for (size_t i = 0; i < operands.size(); ++i) {
      data.push_back(value(node->input(i)).data.data());
      if (bounds_on_) bounds.push_back(bound(node->input(i)).data());
    }
    if (bounds_on_) e.assign(out.data.size(), 0.0);
    // The innermost loop runs along the last output label (unit stride in
    // the result), else the last summed label; it is a tight strided loop.
    if (labels.empty() || out.data.empty()) {
      if (labels.empty()) {
        std::vector<double> a, ea;
        for (size_t i = 0; i < operands.size(); ++i) {
          a.push_back(data[i][0]);
          ea.push_back(bounds_on_ ? bounds[i][0] : 0);
        }
        out.data[0] = 1.0;
        for (double x : a) out.data[0] *= x;
        if (bounds_on_) e[0] = product_bound(a.data(), ea.data(), a.size(), u);
      }
      return out;
    }
    size_t inner = output.empty() ? labels.size() - 1 : output.size() - 1;
    int64_t n = loop_shape[inner];
    if (n == 0) return out;
    Index outer_shape = loop_shape;
    outer_shape[inner] = 1;
    // The bound's running totals per output element (see reduce()).
    Bound q(bounds_on_ ? out.data.size() : 0), ss(q.size());
    std::vector<double> a(operands.size()), ea(operands.size());
    for_each_index(outer_shape, [&](const Index& index) {
      std::vector<int64_t> base(operands.size());
      for (size_t i = 0; i < operands.size(); ++i) base[i] = dot(index, strides[i]);
      int64_t at = dot(index, out_strides);
      double* o = out.data.data() + at;
      int64_t so = out_strides[inner];
      if (!bounds_on_ && operands.size() == 2) {
        const double* a0 = data[0] + base[0];
        const double* b0 = data[1] + base[1];
        int64_t sa = strides[0][inner], sb = strides[1][inner];
        for (int64_t j = 0; j < n; ++j) o[j * so] += a0[j * sa] * b0[j * sb];
        return;
      }
      if (!bounds_on_) {
        for (int64_t j = 0; j < n; ++j) {
          double product = 1.0;
          for (size_t i = 0; i < operands.size(); ++i) product *= data[i][base[i] + j * strides[i][inner]];
          o[j * so] += product;
        }
        return;
      }
      // The first term of each output element is no rounded addition.
      bool first = true;
      for (size_t k = output.size(); k < labels.size(); ++k)
        if (k != inner && index[k] != 0) first = false;
      double* qo = q.data() + at;
      double* sso = ss.data() + at;
      if (operands.size() == 2) {  // product_bound for two operands, inlined
        const double *a0 = data[0] + base[0], *b0 = data[1] + base[1];
        const double *ea0 = bounds[0] + base[0], *eb0 = bounds[1] + base[1];
        int64_t sa = strides[0][inner], sb = strides[1][inner];
        for (int64_t j = 0; j < n; ++j) {
          double x = a0[j * sa], y = b0[j * sb], t = x * y;
          double et = ea0[j * sa] * std::fabs(y) + std::fabs(x) * eb0[j * sb] + u.of(t);
          double& acc = o[j * so];
          acc += t;
          qo[j * so] += et * et;
          if (!(first && (inner < output.size() || j == 0))) sso[j * so] += acc * acc;
        }
        return;
      }
      for (int64_t j = 0; j < n; ++j) {
        for (size_t i = 0; i < operands.size(); ++i) {
          int64_t offset = base[i] + j * strides[i][inner];
          a[i] = data[i][offset];
          ea[i] = bounds[i][offset];
        }
        double product = 1.0;
        for (double x : a) product *= x;
        double et = product_bound(a.data(), ea.data(), a.size(), u);
        o[j * so] += product;
        qo[j * so] += et * et;
        bool first_term = first && (inner < output.size() || j == 0);
        if (!first_term) sso[j * so] += o[j * so] * o[j * so];
      }
    });
    if (bounds_on_)
      for (size_t k = 0; k < e.size(); ++k) e[k] = sum_bound(q[k], ss[k], u);
    return out;
  }

  Tensor layout(NodeRef node, Bound& e) {
    Tensor out = result_tensor(node);
    std::vector<const std::vector<double>*> in;
    for (NodeRef part : node->inputs()) in.push_back(&value(part).data);
    move_elements(node, in, out.shape, out.data);
    if (bounds_on_) {
      std::vector<const std::vector<double>*> in_bounds;
      for (NodeRef part : node->inputs()) in_bounds.push_back(&bound(part));
      e.assign(out.data.size(), 0.0);
      move_elements(node, in_bounds, out.shape, e);
    }
    return out;
  }

  // The data movement of a layout op, from the inputs' elements `in` (values,
  // or their bounds) to `out` (of shape `out_shape`).
  void move_elements(NodeRef node, const std::vector<const std::vector<double>*>& in, const Index& out_shape,
                     std::vector<double>& out) {
    const ir::Attrs& a = node->attrs();
    const Index& in_shape = value(node->input(0)).shape;
    const std::vector<double>& src = *in[0];
    switch (node->op()) {
      case Op::Reshape: out = src; return;
      case Op::Broadcast: {
        Index strides = broadcast_strides(in_shape, out_shape);
        int64_t flat = 0;
        for_each_index(out_shape, [&](const Index& index) { out[flat++] = src[dot(index, strides)]; });
        return;
      }
      case Op::Transpose: {
        Index in_strides = strides_of(in_shape), strides;
        for (int64_t axis : a.axes) strides.push_back(in_strides[axis]);
        int64_t flat = 0;
        for_each_index(out_shape, [&](const Index& index) { out[flat++] = src[dot(index, strides)]; });
        return;
      }
      case Op::Slice: return slice(node, in_shape, src, out_shape, out);
      case Op::Concat: {
        int64_t axis = a.axes[0];
        int64_t offset = 0;
        Index out_strides = strides_of(out_shape);
        for (size_t i = 0; i < node->inputs().size(); ++i) {
          const Index& shape = value(node->input(i)).shape;
          const std::vector<double>& part = *in[i];
          int64_t flat = 0;
          for_each_index(shape, [&](const Index& index) {
            out[dot(index, out_strides) + offset * out_strides[axis]] = part[flat++];
          });
          offset += shape[axis];
        }
        return;
      }
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
      case Op::Contract: throw InternalError(__FILE__, __LINE__, "not a layout op");
    }
  }

  void slice(NodeRef node, const Index& in_shape, const std::vector<double>& in, const Index& out_shape,
             std::vector<double>& out) {
    const ir::Attrs& a = node->attrs();
    Index in_strides = strides_of(in_shape);
    int64_t base = 0;
    Index strides;
    for (size_t k = 0; k < in_shape.size(); ++k) {
      auto start = a.sizes[k].evaluate(dims_);
      AXON_CHECK(start.has_value(), "slice start not known");
      int64_t step = a.axes[k], length = out_shape[k];
      int64_t last = *start + (length - 1) * step;
      if (length > 0 && (*start < 0 || *start >= in_shape[k] || last < 0 || last >= in_shape[k]))
        error(node->loc(), "slice reads outside axis " + std::to_string(k) + " of size " + std::to_string(in_shape[k]) +
                               " (from " + std::to_string(*start) + " to " + std::to_string(last) +
                               "); Axon does not clip slices of symbolic sizes");
      base += *start * in_strides[k];
      strides.push_back(step * in_strides[k]);
    }
    int64_t flat = 0;
    for_each_index(out_shape, [&](const Index& index) { out[flat++] = in[base + dot(index, strides)]; });
  }

  const ir::Dims& dims_;
  bool bounds_on_;
  std::unordered_map<NodeRef, Tensor> values_;
  std::unordered_map<NodeRef, Bound> bounds_;
  std::unordered_set<NodeRef> input_free_;
  bool input_free(NodeRef node) const { return input_free_.count(node) > 0; }
};

std::string bytes_text(int64_t bytes) {
  std::ostringstream t;
  t << std::fixed << std::setprecision(1);
  double b = static_cast<double>(bytes);
  if (b >= 0x1p30)
    t << b / 0x1p30 << " GiB";
  else if (b >= 0x1p20)
    t << b / 0x1p20 << " MiB";
  else
    t << b / 0x1p10 << " KiB";
  return t.str();
}

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

int64_t default_max_memory() {
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0) return int64_t{4} << 30;
  return static_cast<int64_t>(pages) * page / 2;
}

// Mirrors Interpreter::run: the caller's inputs, every value from its
// computation to its last use (with its bound), the running totals of a
// bounded reduction, and the copies of the results at the end.
MemoryNeed memory_needed(const ir::Function& fn, const ir::Dims& dims, bool bounds) {
  std::vector<NodeRef> order = ir::topological_order(fn.outputs);
  std::unordered_map<NodeRef, size_t> last_use;
  for (size_t i = 0; i < order.size(); ++i)
    for (NodeRef in : order[i]->inputs()) last_use[in] = i;
  for (NodeRef out : fn.outputs) last_use[out] = order.size();
  auto elements = [&](NodeRef node) {
    int64_t n = 1;
    for (int64_t d : concrete_shape(node->shape(), dims, node->loc())) n *= d;
    return n;
  };
  const int64_t per_element = bounds ? 16 : 8;
  MemoryNeed need;
  int64_t live = 0;
  for (const ir::Param& p : fn.params) {
    int64_t n = 1;
    for (int64_t d : concrete_shape(p.type.shape, dims, p.annotation_loc)) n *= d;
    live += 8 * n;
  }
  std::unordered_map<NodeRef, int64_t> held;
  for (size_t i = 0; i < order.size(); ++i) {
    NodeRef node = order[i];
    int64_t bytes = per_element * elements(node);
    ir::OpKind kind = ir::op_kind(node->op());
    bool totals = bounds && (kind == ir::OpKind::Reduce || kind == ir::OpKind::Scan || kind == ir::OpKind::Contract);
    live += bytes;
    held[node] = bytes;
    if (live + (totals ? bytes : 0) > need.bytes) need = {live + (totals ? bytes : 0), node};
    for (NodeRef in : node->inputs())
      if (last_use[in] == i) live -= held[in];
  }
  for (NodeRef out : fn.outputs) live += held[out];
  if (live > need.bytes) need = {live, fn.outputs.empty() ? nullptr : fn.outputs.back()};
  return need;
}

Evaluation evaluate_bounded(const ir::Function& fn, const std::vector<Tensor>& inputs, const ir::Dims& dims,
                            const EvalOptions& options) {
  MemoryNeed need = memory_needed(fn, dims, options.bounds);
  if (need.bytes > options.max_memory_bytes) {
    SourceLoc loc = need.at && need.at->loc().known() ? need.at->loc() : fn.loc;
    error(loc, "evaluating '" + fn.name + "' at these sizes needs " + bytes_text(need.bytes) +
                   " of memory (its peak, at this op) but the limit is " + bytes_text(options.max_memory_bytes) +
                   " (--max-memory)");
  }
  return Interpreter(dims, options.bounds).run(fn, inputs);
}

std::vector<Tensor> evaluate(const ir::Function& fn, const std::vector<Tensor>& inputs, const ir::Dims& dims,
                             const EvalOptions& options) {
  EvalOptions values_only = options;
  values_only.bounds = false;
  return evaluate_bounded(fn, inputs, dims, values_only).values;
}

}  // namespace axon::eval
