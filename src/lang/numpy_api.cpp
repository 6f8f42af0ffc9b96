#include "lang/numpy_api.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numbers>
#include <set>

#include "ir/scalar.h"
#include "ir/shape.h"

namespace axon::lang {
namespace {

using ir::NodeRef;
using ir::Op;
using ir::Shape;
using ir::Size;
using K = Value::Kind;

[[noreturn]] void error(const SourceLoc& loc, const std::string& message) { throw UserError(loc, message); }

// np.<name> of an element-wise op comes from the op table (ops.def); these
// are the other spellings NumPy has for the same ops.
const std::map<std::string, Op> kAliases = {{"absolute", Op::Abs}};
std::optional<Op> elementwise_op(const std::string& name, ir::OpKind kind) {
  if (auto it = kAliases.find(name); it != kAliases.end() && ir::op_kind(it->second) == kind) return it->second;
  return ir::op_from_numpy(name, kind);
}
const std::map<std::string, Op> kReduce = {{"sum", Op::ReduceSum}, {"max", Op::ReduceMax}, {"amax", Op::ReduceMax},
                                           {"min", Op::ReduceMin}, {"amin", Op::ReduceMin}, {"mean", Op::ReduceSum}};
const std::set<std::string> kOther = {
    "square",      "where",       "var",         "std",          "clip",        "power",       "float32",
    "cumsum",      "matmul",      "einsum",      "transpose",    "swapaxes",    "reshape",     "broadcast_to",
    "concatenate", "split",       "array_split", "stack",        "hstack",      "vstack",      "squeeze",
    "expand_dims", "ravel",       "pad",         "prod",         "arange",      "tri",         "tril",
    "triu",        "ones",        "zeros",       "full",         "ones_like",   "zeros_like",  "full_like",
    "logical_and", "logical_or",  "logical_xor", "logical_not",  "bool_"};
const std::set<std::string> kMethods = {"sum",     "mean",    "max",       "min",      "var",    "std",
                                        "cumsum",  "reshape", "transpose", "swapaxes", "astype", "clip",
                                        "squeeze", "flatten", "ravel",     "prod"};
// The ufuncs whose .reduce the language has, and the reduction each is.
const std::map<std::string, std::string> kUfuncReduce = {
    {"add", "sum"}, {"maximum", "max"}, {"minimum", "min"}, {"multiply", "prod"}};
// NumPy names that stay out, each with what to write instead.
const std::map<std::string, std::string> kInstead = {
    {"float64", "Axon computes in the parameters' declared dtypes; declare the tensor f32 (np.float32 is accepted)"},
    {"float16", "declare the tensor f16 in its annotation"},
    {"sin", "the prover and the targets have no sine yet; pass a precomputed table (e.g. rotary sin/cos) as an input"},
    {"cos",
     "the prover and the targets have no cosine yet; pass a precomputed table (e.g. rotary sin/cos) as an input"},
    {"mod", "'%' on tensors is not supported; index arithmetic belongs in the shapes"},
    {"nan", "NaN has no place in a mask; fill with -np.inf or a large negative number such as -1e9"},
    {"isinf", "test against the fill value instead (x == -np.inf)"},
    {"isnan", "NaN tests are not supported; masks come from comparisons such as x > 0"},
    {"indices", "build index grids from np.arange(n)[:, None] and np.arange(m)[None, :]"},
    {"linspace", "only np.arange(n) and np.arange(start, stop) (unit step) are supported"},
};

Arg arg_of(const std::optional<Arg>& a) { return *a; }
bool given(const std::optional<Arg>& a) { return a && !a->value.is(K::None); }

int64_t normalize_axis(int64_t axis, int rank, const SourceLoc& loc) {
  if (axis < -rank || axis >= rank)
    error(loc, "axis " + std::to_string(axis) + " is out of bounds for a tensor of rank " + std::to_string(rank));
  return axis < 0 ? axis + rank : axis;
}

// axis=None (all), an integer, or a tuple of integers; sorted, distinct.
std::vector<int64_t> reduction_axes(Builder& b, const std::optional<Arg>& axis, int rank) {
  std::vector<int64_t> axes;
  if (!given(axis)) {
    for (int k = 0; k < rank; ++k) axes.push_back(k);
    return axes;
  }
  std::vector<Arg> items;
  if (axis->value.is(K::Tuple)) {
    for (const Value& v : axis->value.items) items.push_back({v, axis->loc});
  } else {
    items.push_back(*axis);
  }
  for (const Arg& item : items) {
    int64_t a = normalize_axis(b.constant_int(item, "an axis"), rank, item.loc);
    if (std::count(axes.begin(), axes.end(), a)) error(item.loc, "axis " + std::to_string(a) + " is repeated");
    axes.push_back(a);
  }
  std::sort(axes.begin(), axes.end());
  return axes;
}

// True or False, or an integer read as Python's bool() reads it (keepdims=1).
bool keepdims_flag(const std::optional<Arg>& keepdims) {
  if (!given(keepdims)) return false;
  const Value& v = keepdims->value;
  if (v.is(K::Int) && v.size.is_constant()) return *v.size.constant() != 0;
  if (!v.is(K::Bool))
    error(keepdims->loc, "keepdims must be True or False (or an integer such as 1), not " + v.describe());
  return v.number != 0;
}

// A shape argument: a tuple/list of integers, or one integer.
std::vector<Arg> shape_items(const Arg& shape) {
  std::vector<Arg> items;
  if (shape.value.is(K::Tuple)) {
    for (const Value& v : shape.value.items) items.push_back({v, shape.loc});
  } else {
    items.push_back(shape);
  }
  return items;
}

Value reduce(Builder& b, const std::string& name, const CallArgs& call) {
  auto args = bind_args(call, {"a", "axis", "keepdims"}, 1);
  NodeRef x = b.tensor(arg_of(args[0]), "the argument of " + call.callee);
  std::vector<int64_t> axes = reduction_axes(b, args[1], x->rank());
  ir::Attrs attrs;
  attrs.axes = axes;
  attrs.keepdims = keepdims_flag(args[2]);
  if (axes.empty()) return Value::tensor(x);  // nothing to reduce
  NodeRef result = b.graph().make(kReduce.at(name), {x}, attrs, call.loc);
  if (name != "mean") return Value::tensor(result);
  Size count = 1;
  for (int64_t a : axes) count = count * x->shape()[a];
  NodeRef n = b.tensor({Value::integer(count), call.loc}, "a count");
  return Value::tensor(b.graph().make(Op::Div, {result, n}, {}, call.loc));
}

// np.var and np.std with ddof=0: the mean of squared deviations from the
// mean (and its square root), as NumPy computes them.
Value variance(Builder& b, const std::string& name, const CallArgs& call) {
  auto args = bind_args(call, {"a", "axis", "dtype", "out", "ddof", "keepdims"}, 1);
  for (size_t i : {2, 3})
    if (given(args[i])) error(args[i]->loc, call.callee + ": only a, axis and keepdims are supported");
  if (given(args[4]) && b.constant_int(*args[4], "ddof") != 0)
    error(args[4]->loc, call.callee + ": only ddof=0 is supported; multiply by n / (n - ddof) yourself");
  CallArgs mean_call{call.callee, call.loc, {*args[0]}, {}};
  if (args[1]) mean_call.keywords.push_back({"axis", *args[1]});
  Value keep = Value::of(K::Bool);
  keep.number = 1;
  mean_call.keywords.push_back({"keepdims", {keep, call.loc}});
  Value mu = reduce(b, "mean", mean_call);
  Value deviation = b.binary("-", *args[0], {mu, call.loc}, call.loc);
  Value square = b.binary("*", {deviation, call.loc}, {deviation, call.loc}, call.loc);
  CallArgs outer{call.callee, call.loc, {{square, call.loc}}, {}};
  if (args[1]) outer.keywords.push_back({"axis", *args[1]});
  if (args[5]) outer.keywords.push_back({"keepdims", *args[5]});
  Value var = reduce(b, "mean", outer);
  if (name == "var") return var;
  return b.unary(Op::Sqrt, {var, call.loc}, call.loc);
}

// np.float32(x) and x.astype(np.float32): a number rounds to float32 now, as
// NumPy's does; on an f32 tensor it is the identity. Other conversions would
// need a rounding op the IR does not have yet.
Value convert(Builder& b, const Arg& x, const Value& dtype, const CallArgs& call) {
  bool to_bool = dtype.is(K::NpFunction) && (dtype.text == "bool_" || dtype.text == "builtin.bool");
  if (to_bool && x.value.is_boolean() && !x.value.is(K::Bool)) {
    ir::NodeRef m = b.tensor(x, "the argument of " + call.callee);
    return Value::mask(m);
  }
  if (to_bool) return b.logical("|", x, {Value::of(K::Bool), x.loc}, call.loc, true);  // x != 0
  if (!dtype.is(K::NpFunction) || dtype.text != "float32")
    error(call.loc, call.callee + ": only np.float32 and bool are supported as dtypes, not " + dtype.describe());
  if (auto number = x.value.known_number()) return Value::real(static_cast<double>(static_cast<float>(*number)));
  ir::NodeRef t = b.tensor(x, "the argument of " + call.callee);
  if (t->dtype() != ir::DType::F32)
    error(call.loc, call.callee + ": converting a " + t->type().str() +
                        " tensor to float32 is not supported yet (it would round); declare the parameter f32");
  return Value::tensor(t);
}

NodeRef transpose(Builder& b, NodeRef x, std::vector<int64_t> perm, const SourceLoc& loc) {
  bool identity = true;
  for (size_t k = 0; k < perm.size(); ++k) identity = identity && perm[k] == static_cast<int64_t>(k);
  if (identity && static_cast<int>(perm.size()) == x->rank()) return x;
  ir::Attrs attrs;
  attrs.axes = std::move(perm);
  return b.graph().make(Op::Transpose, {x}, attrs, loc);
}

NodeRef reversed_axes(Builder& b, NodeRef x, const SourceLoc& loc) {
  std::vector<int64_t> perm;
  for (int k = x->rank() - 1; k >= 0; --k) perm.push_back(k);
  return transpose(b, x, perm, loc);
}

// Axes of transpose: explicit integers, normalized; must be a permutation.
Value transpose_with(Builder& b, NodeRef x, const std::vector<Arg>& axes, const SourceLoc& loc) {
  if (axes.empty()) return Value::tensor(reversed_axes(b, x, loc));
  if (static_cast<int>(axes.size()) != x->rank())
    error(axes[0].loc, "transpose: " + std::to_string(axes.size()) + " axes given for a tensor of rank " +
                           std::to_string(x->rank()));
  std::vector<int64_t> perm;
  for (const Arg& a : axes) {
    int64_t axis = normalize_axis(b.constant_int(a, "an axis"), x->rank(), a.loc);
    if (std::count(perm.begin(), perm.end(), axis)) error(a.loc, "transpose: axis " + std::to_string(axis) + " repeated");
    perm.push_back(axis);
  }
  return Value::tensor(transpose(b, x, perm, loc));
}

NodeRef reshape_to(Builder& b, NodeRef x, Shape shape, const SourceLoc& loc) {
  if (shape == x->shape()) return x;
  ir::Attrs attrs;
  attrs.sizes = std::move(shape);
  return b.graph().make(Op::Reshape, {x}, attrs, loc);
}

Value reshape(Builder& b, NodeRef x, const std::vector<Arg>& dims, const SourceLoc& loc) {
  Shape shape;
  int inferred = -1;
  for (const Arg& d : dims) {
    Size s = b.size(d, "a reshape dimension");
    if (s == Size(-1)) {
      if (inferred >= 0) error(d.loc, "reshape: only one dimension can be -1");
      inferred = static_cast<int>(shape.size());
    } else if (s.is_constant() && *s.constant() < 0) {
      error(d.loc, "reshape: negative dimension " + s.str());
    }
    shape.push_back(s);
  }
  if (inferred >= 0) {
    Size known = 1;
    for (int k = 0; k < static_cast<int>(shape.size()); ++k)
      if (k != inferred) known = known * shape[k];
    std::optional<Size> rest = known == Size(0) ? std::nullopt : ir::num_elements(x->shape()).divide_exact(known);
    if (!rest) error(loc, "cannot reshape " + x->type().str() + " to " + ir::shape_str(shape) +
                              ": the -1 dimension is not a whole number of elements");
    shape[inferred] = *rest;
  }
  // C//4 with C symbolic is a floor; a reshape by it is exact only when 4 divides C,
  // which Axon cannot know for every C: say what to declare instead.
  if (ir::num_elements(shape) != ir::num_elements(x->shape()))
    for (const Size& d : shape)
      for (const auto& [monomial, coefficient] : d.terms())
        for (const auto& [atom, power] : monomial)
          if (!atom.is_name())
            error(loc, "cannot reshape " + x->type().str() + " to " + ir::shape_str(shape) + ": " + d.str() +
                           " is a floor division, exact only for some sizes; declare the divided dimension as a "
                           "product (such as \"f32[T, " +
                           std::to_string(atom.den) + "*D]\") so that the division is exact");
  return Value::tensor(reshape_to(b, x, shape, loc));
}

NodeRef broadcast_to(Builder& b, NodeRef x, const Shape& shape, const SourceLoc& loc) {
  if (x->shape() == shape) return x;
  ir::Attrs attrs;
  attrs.sizes = shape;
  return b.graph().make(Op::Broadcast, {x}, attrs, loc);
}

// ---- einsum ----

std::string canonical_labels(const std::vector<std::string>& operands, std::string& output) {
  std::map<char, char> rename;
  auto map_label = [&](char c) {
    auto it = rename.find(c);
    if (it != rename.end()) return it->second;
    char fresh = static_cast<char>(rename.size() < 26 ? 'a' + rename.size() : 'A' + (rename.size() - 26));
    rename[c] = fresh;
    return fresh;
  };
  std::string spec;
  for (size_t i = 0; i < operands.size(); ++i) {
    if (i) spec += ',';
    for (char c : operands[i]) spec += map_label(c);
  }
  spec += "->";
  for (char c : output) spec += map_label(c);
  return spec;
}

Value einsum(Builder& b, const CallArgs& call) {
  if (call.positional.empty() || !call.positional[0].value.is(K::String))
    error(call.loc, "np.einsum needs a subscripts string as its first argument");
  if (!call.keywords.empty()) error(call.keywords[0].second.loc, "np.einsum takes no keyword arguments here");
  const Arg& spec_arg = call.positional[0];
  SourceLoc spec_loc = spec_arg.loc;
  std::string spec;
  for (char c : spec_arg.value.text)
    if (c != ' ') spec += c;
  std::vector<NodeRef> operands;
  for (size_t i = 1; i < call.positional.size(); ++i)
    operands.push_back(b.tensor(call.positional[i], "an einsum operand"));
  if (operands.empty()) error(call.loc, "np.einsum needs at least one operand");

  ir::EinsumSpec parsed = ir::EinsumSpec::parse(spec);
  std::vector<std::string> terms = parsed.operands;
  std::optional<std::string> rhs;
  if (spec.find("->") != std::string::npos) rhs = parsed.output;
  if (terms.size() != operands.size())
    error(spec_loc, "einsum subscripts name " + std::to_string(terms.size()) + " operand(s) but " +
                        std::to_string(operands.size()) + " were given");
  std::set<char> used;
  auto check_term = [&](const std::string& term, bool allow_dots) {
    size_t dots = term.find("...");
    if (dots != std::string::npos && (!allow_dots || term.find("...", dots + 1) != std::string::npos))
      error(spec_loc, "einsum subscripts '" + term + "' use '...' more than once");
    for (size_t k = 0; k < term.size(); ++k) {
      if (dots != std::string::npos && k >= dots && k < dots + 3) continue;
      if (!std::isalpha(static_cast<unsigned char>(term[k])))
        error(spec_loc, std::string("invalid einsum subscript '") + term[k] + "' in '" + spec_arg.value.text + "'");
      used.insert(term[k]);
    }
  };
  for (const std::string& t : terms) check_term(t, true);
  if (rhs) check_term(*rhs, true);

  // The dims under "..." broadcast together and get fresh labels.
  Shape ellipsis_shape;
  std::vector<Shape> ellipsis_of(operands.size());
  bool any_dots = false;
  for (size_t i = 0; i < operands.size(); ++i) {
    size_t dots = terms[i].find("...");
    int named = static_cast<int>(terms[i].size()) - (dots == std::string::npos ? 0 : 3);
    if (dots == std::string::npos ? named != operands[i]->rank() : named > operands[i]->rank())
      error(spec_loc, "einsum subscripts '" + terms[i] + "' do not fit operand " + std::to_string(i) + " of shape " +
                          operands[i]->type().str());
    if (dots == std::string::npos) continue;
    any_dots = true;
    const Shape& s = operands[i]->shape();
    ellipsis_of[i] = Shape(s.begin() + dots, s.begin() + dots + (operands[i]->rank() - named));
    try {
      ellipsis_shape = ir::broadcast_shapes(ellipsis_shape, ellipsis_of[i]);
    } catch (const ir::ShapeError&) {
      error(spec_loc, "einsum: the '...' dims of the operands cannot be broadcast: " + ir::shape_str(ellipsis_shape) +
                          " and " + ir::shape_str(ellipsis_of[i]));
    }
  }
  std::string fresh;
  for (char c = 'A'; fresh.size() < ellipsis_shape.size() && c <= 'z'; ++c)
    if (std::isalpha(static_cast<unsigned char>(c)) && !used.count(c)) fresh += c;
  if (fresh.size() < ellipsis_shape.size()) error(spec_loc, "einsum: too many dimensions under '...'");
  std::vector<std::string> labels(operands.size());
  for (size_t i = 0; i < operands.size(); ++i) {
    size_t dots = terms[i].find("...");
    if (dots == std::string::npos) {
      labels[i] = terms[i];
      continue;
    }
    // Pad the operand's "..." part with 1s to the common rank, then broadcast it.
    const Shape& s = operands[i]->shape();
    Shape padded(s.begin(), s.begin() + dots), target = padded;
    for (size_t k = ellipsis_of[i].size(); k < ellipsis_shape.size(); ++k) padded.push_back(1);
    padded.insert(padded.end(), ellipsis_of[i].begin(), ellipsis_of[i].end());
    target.insert(target.end(), ellipsis_shape.begin(), ellipsis_shape.end());
    padded.insert(padded.end(), s.begin() + dots + ellipsis_of[i].size(), s.end());
    target.insert(target.end(), s.begin() + dots + ellipsis_of[i].size(), s.end());
    operands[i] = broadcast_to(b, reshape_to(b, operands[i], padded, call.loc), target, call.loc);
    labels[i] = terms[i].substr(0, dots) + fresh + terms[i].substr(dots + 3);
  }
  std::string output;
  if (rhs) {
    size_t dots = rhs->find("...");
    if (dots != std::string::npos) output = rhs->substr(0, dots) + fresh + rhs->substr(dots + 3);
    else if (any_dots && !ellipsis_shape.empty()) error(spec_loc, "einsum output must keep the '...' dims ('->...')");
    else output = *rhs;
  } else {
    // Implicit output: the "..." dims, then the labels used once, alphabetically.
    std::map<char, int> count;
    for (const std::string& t : terms)
      for (char c : t)
        if (c != '.') ++count[c];
    output = fresh;
    for (auto [c, n] : count)
      if (n == 1) output += c;
  }
  ir::Attrs attrs;
  attrs.name = ir::EinsumSpec{labels, output}.str();
  try {  // checked with the user's own subscripts, so messages name them
    ir::infer_type(Op::Contract, operands, attrs);
  } catch (const ir::ShapeError& e) {
    error(spec_loc, e.what());
  }
  attrs.name = canonical_labels(labels, output);
  return Value::tensor(b.graph().make(Op::Contract, operands, attrs, call.loc));
}

Value concatenate(Builder& b, const CallArgs& call) {
  auto args = bind_args(call, {"arrays", "axis"}, 1);
  const Arg& arrays = arg_of(args[0]);
  if (!arrays.value.is(K::Tuple) || arrays.value.items.empty())
    error(arrays.loc, "np.concatenate needs a non-empty list of tensors");
  std::vector<NodeRef> parts;
  for (const Value& v : arrays.value.items) parts.push_back(b.tensor({v, arrays.loc}, "a concatenated value"));
  int64_t axis = 0;
  if (given(args[1])) axis = normalize_axis(b.constant_int(*args[1], "axis"), parts[0]->rank(), args[1]->loc);
  if (parts.size() == 1) return Value::tensor(parts[0]);
  ir::Attrs attrs;
  attrs.axes = {axis};
  return Value::tensor(b.graph().make(Op::Concat, parts, attrs, call.loc));
}

Value where(Builder& b, const CallArgs& call) {
  auto args = bind_args(call, {"condition", "x", "y"}, 3);
  const Arg& cond = arg_of(args[0]);
  NodeRef t = b.tensor(arg_of(args[1]), "the x of np.where"), f = b.tensor(arg_of(args[2]), "the y of np.where");
  if (cond.value.is(K::Compare))
    return Value::tensor(b.select(cond.value.cmp, b.tensor({cond.value.items[0], cond.loc}, "a compared value"),
                                  b.tensor({cond.value.items[1], cond.loc}, "a compared value"), t, f, call.loc));
  // Any other condition is true where it is nonzero (a mask, a number, a tensor).
  NodeRef c = b.tensor(cond, "the condition of np.where");
  return Value::tensor(b.select(ir::Cmp::Ne, c, b.graph().constant(0.0, cond.loc), t, f, call.loc));
}

// ---- index-generated values: arange, tri, tril, triu; filled tensors ----

// np.arange(n) for a size n: 0, 1, ..., n-1, as the running sum of n ones
// less one. Exact in f32 below 2^24, and needs no op of its own: the
// interpreter, the prover (a scan) and the emitters already have cumsum.
NodeRef iota(Builder& b, const Size& n, const SourceLoc& loc) {
  ir::Attrs attrs;
  attrs.axes = {0};
  NodeRef ones = broadcast_to(b, b.graph().constant(1.0, loc), {n}, loc);
  NodeRef sum = b.graph().make(Op::Cumsum, {ones}, attrs, loc);
  return b.graph().make(Op::Sub, {sum, b.graph().constant(1.0, loc)}, {}, loc);
}

Value arange(Builder& b, const CallArgs& call) {
  auto args = bind_args(call, {"start", "stop", "step", "dtype"}, 1);
  if (given(args[2]) && !(args[2]->value.is(K::Int) && args[2]->value.size == Size(1)))
    error(args[2]->loc, "np.arange: only a unit step is supported; scale np.arange(n) instead (2 * np.arange(n))");
  if (given(args[3]) && !args[3]->value.is(K::NpFunction))
    error(args[3]->loc, "np.arange: dtype must be a NumPy dtype such as np.float32");
  Size start = 0, stop = 0;
  if (given(args[1])) {
    start = b.size(*args[0], "the start of np.arange");
    stop = b.size(*args[1], "the stop of np.arange");
  } else {
    if (!args[0]->value.is(K::Int))
      error(args[0]->loc, "np.arange needs an integer or a size (np.arange(S), np.arange(x.shape[0])), not " +
                              args[0]->value.describe());
    stop = args[0]->value.size;
  }
  Size n = stop - start;
  if (n.is_constant() && *n.constant() <= 0)
    error(call.loc, "np.arange(" + start.str() + ", " + stop.str() + ") is empty; Axon's tensors are not");
  NodeRef x = iota(b, n, call.loc);
  if (start != Size(0))
    x = b.graph().make(Op::Add, {x, b.tensor({Value::integer(start), call.loc}, "start")}, {}, call.loc);
  return Value::tensor(x);
}

// Where the element (row i, column j) of the last two axes has j - i <= k
// (tril, tri) or j - i >= k (triu): the select of `inside` or `outside`.
NodeRef triangle(Builder& b, bool lower, const Size& rows, const Size& cols, int64_t k, NodeRef inside, NodeRef outside,
                 const SourceLoc& loc) {
  NodeRef i = reshape_to(b, iota(b, rows, loc), {rows, 1}, loc);
  NodeRef j = reshape_to(b, iota(b, cols, loc), {1, cols}, loc);
  if (k != 0) i = b.graph().make(Op::Add, {i, b.graph().constant(static_cast<double>(k), loc)}, {}, loc);
  return lower ? b.select(ir::Cmp::Ge, i, j, inside, outside, loc) : b.select(ir::Cmp::Le, i, j, inside, outside, loc);
}

bool bool_dtype(const std::optional<Arg>& dtype) {
  if (!given(dtype)) return false;
  const Value& v = dtype->value;
  if (v.is(K::NpFunction) && v.text == "bool_") return true;
  if (v.is(K::NpFunction) && v.text == "float32") return false;
  if (v.is(K::NpFunction) && v.text == "builtin.bool") return true;
  error(dtype->loc, "dtype must be np.float32 or bool, not " + v.describe());
}

Value tril_triu(Builder& b, const std::string& name, const CallArgs& call) {
  auto args = bind_args(call, {"m", "k"}, 1);
  const Value& m = arg_of(args[0]).value;
  NodeRef x = b.tensor(*args[0], "the argument of " + call.callee);
  if (x->rank() < 2) error(args[0]->loc, call.callee + " needs at least two dimensions, not " + x->type().str());
  int64_t k = given(args[1]) ? b.constant_int(*args[1], "k of " + call.callee) : 0;
  const Shape& s = x->shape();
  NodeRef zero = b.graph().constant(0.0, call.loc);
  NodeRef y = triangle(b, name == "tril", s[s.size() - 2], s.back(), k, x, zero, call.loc);
  return m.is_boolean() ? Value::mask(y) : Value::tensor(y);
}

Value tri(Builder& b, const CallArgs& call) {
  auto args = bind_args(call, {"N", "M", "k", "dtype"}, 1);
  Size rows = b.size(*args[0], "N of np.tri");
  Size cols = given(args[1]) ? b.size(*args[1], "M of np.tri") : rows;
  int64_t k = given(args[2]) ? b.constant_int(*args[2], "k of np.tri") : 0;
  NodeRef y =
      triangle(b, true, rows, cols, k, b.graph().constant(1.0, call.loc), b.graph().constant(0.0, call.loc), call.loc);
  return bool_dtype(args[3]) ? Value::mask(y) : Value::tensor(y);
}

// np.ones, np.zeros, np.full and their _like forms: a number broadcast.
Value filled(Builder& b, const std::string& name, const CallArgs& call) {
  bool like = name.size() > 5 && name.substr(name.size() - 5) == "_like";
  std::string base = like ? name.substr(0, name.size() - 5) : name;
  std::vector<std::string> params = {like ? "a" : "shape"};
  if (base == "full") params.push_back("fill_value");
  params.push_back("dtype");
  auto args = bind_args(call, params, base == "full" ? 2 : 1);
  Shape shape;
  if (like) {
    shape = b.tensor(*args[0], "the argument of " + call.callee)->shape();
  } else {
    for (const Arg& d : shape_items(*args[0])) shape.push_back(b.size(d, "a dimension of " + call.callee));
  }
  double value = base == "ones" ? 1.0 : 0.0;
  if (base == "full") {
    auto v = args[1]->value.known_number();
    if (!v)
      error(args[1]->loc, call.callee + ": the fill value must be a number, not " + args[1]->value.describe() +
                              " (np.broadcast_to broadcasts a tensor)");
    value = *v;
  }
  bool mask = bool_dtype(args.back());
  if (mask && value != 0.0 && value != 1.0) value = 1.0;
  NodeRef y = broadcast_to(b, b.graph().constant(value, call.loc), shape, call.loc);
  return mask ? Value::mask(y) : Value::tensor(y);
}

Value cumsum(Builder& b, NodeRef x, const std::optional<Arg>& axis_arg, const SourceLoc& loc) {
  if (!given(axis_arg)) {  // NumPy flattens first
    x = reshape_to(b, x, {ir::num_elements(x->shape())}, loc);
  }
  int64_t axis = given(axis_arg) ? normalize_axis(b.constant_int(*axis_arg, "axis"), x->rank(), axis_arg->loc) : 0;
  if (x->rank() == 0) error(loc, "cumsum of a zero-dimensional tensor");
  ir::Attrs attrs;
  attrs.axes = {axis};
  return Value::tensor(b.graph().make(Op::Cumsum, {x}, attrs, loc));
}

// ---- splitting, stacking, padding and axes of size 1: all data movement,
// built from Slice, Reshape, Broadcast and Concat, so nothing downstream is new.

// x[..., start:start+extent, ...] on one axis.
NodeRef slice_along(Builder& b, NodeRef x, int64_t axis, const Size& start, const Size& extent, const SourceLoc& loc) {
  if (start == Size(0) && extent == x->shape()[axis]) return x;
  ir::Attrs attrs;
  for (int k = 0; k < x->rank(); ++k) {
    attrs.sizes.push_back(k == axis ? start : Size(0));
    attrs.axes.push_back(1);
    attrs.extents.push_back(k == axis ? extent : x->shape()[k]);
  }
  return b.graph().make(Op::Slice, {x}, attrs, loc);
}

// The shape with `axes` (sorted, of the result) inserted as size 1.
Shape with_unit_axes(const Shape& shape, const std::vector<int64_t>& axes) {
  Shape result;
  size_t from = 0;
  for (size_t k = 0; k < shape.size() + axes.size(); ++k)
    result.push_back(std::count(axes.begin(), axes.end(), static_cast<int64_t>(k)) ? Size(1) : shape[from++]);
  return result;
}

// np.split and np.array_split: a tuple of slices along the axis. Sections n
// must divide the length for np.split (known now: a constant, or a product
// such as 3*D); np.array_split gives the first L % n parts one more, as NumPy,
// written floor((L + n - 1 - i) / n) when L is symbolic. A list of indices
// cuts at those positions.
Value split(Builder& b, const std::string& name, const CallArgs& call) {
  auto args = bind_args(call, {"ary", "indices_or_sections", "axis"}, 2);
  NodeRef x = b.tensor(*args[0], "the argument of " + call.callee);
  if (x->rank() == 0) error(args[0]->loc, call.callee + " of a zero-dimensional tensor");
  int64_t axis = given(args[2]) ? normalize_axis(b.constant_int(*args[2], "axis"), x->rank(), args[2]->loc) : 0;
  const Size length = x->shape()[axis];
  std::vector<Size> cuts = {0};  // where each part starts
  std::vector<Size> extents;     // each part's length
  if (args[1]->value.is(K::Tuple)) {
    for (const Value& v : args[1]->value.items) {
      Size at = b.size({v, args[1]->loc}, "a split index");
      auto step = (at - cuts.back()).constant();
      if ((at.is_constant() && *at.constant() < 0) || (step && *step < 0))
        error(args[1]->loc, call.callee + ": split indices must be non-negative and in increasing order");
      if (auto over = (length - at).constant(); over && *over < 0)
        error(args[1]->loc, call.callee + ": split index " + at.str() + " is past the end of axis " +
                                std::to_string(axis) + " of size " + length.str());
      extents.push_back(at - cuts.back());
      cuts.push_back(at);
    }
    extents.push_back(length - cuts.back());
  } else {
    int64_t n = b.constant_int(*args[1], "the number of sections");
    if (n < 1)
      error(args[1]->loc, call.callee + ": the number of sections must be at least 1, not " + std::to_string(n));
    std::optional<Size> part = length.divide_exact(n);
    if (auto l = length.constant(); l && *l % n != 0) part.reset();
    if (!part && name == "split")
      error(call.loc,
            "np.split: axis " + std::to_string(axis) + " of size " + length.str() + " does not divide into " +
                std::to_string(n) + " equal parts" +
                (length.is_constant() ? ""
                                      : " (not known for a symbolic size; declare it as a product such as \"" +
                                            std::to_string(n) + "*D\")") +
                "; np.array_split allows unequal parts");
    for (int64_t i = 0; i + 1 < n; ++i) {
      extents.push_back(part ? *part : Size::floordiv(length + (n - 1 - i), n));
      cuts.push_back(cuts.back() + extents.back());
    }
    // The last part is what remains, so that the parts join back to `length`
    // itself ((N + 1)//2 + N//2 is N, but not structurally).
    extents.push_back(length - cuts.back());
  }
  std::vector<Value> parts;
  for (size_t i = 0; i < extents.size(); ++i)
    parts.push_back(Value::tensor(slice_along(b, x, axis, cuts[i], extents[i], call.loc)));
  return Value::tuple(parts);
}

// The tensors of a list or tuple argument.
std::vector<NodeRef> tensor_list(Builder& b, const Arg& arrays, const std::string& callee) {
  if (!arrays.value.is(K::Tuple) || arrays.value.items.empty())
    error(arrays.loc, callee + " needs a non-empty list of tensors, not " + arrays.value.describe());
  std::vector<NodeRef> parts;
  for (const Value& v : arrays.value.items) parts.push_back(b.tensor({v, arrays.loc}, "an item of " + callee));
  return parts;
}

NodeRef concat(Builder& b, const std::vector<NodeRef>& parts, int64_t axis, const SourceLoc& loc) {
  if (parts.size() == 1) return parts[0];
  ir::Attrs attrs;
  attrs.axes = {axis};
  return b.graph().make(Op::Concat, parts, attrs, loc);
}

// np.stack: each tensor gets a new axis of size 1, then they are concatenated
// along it. np.hstack and np.vstack: NumPy's atleast_1d / atleast_2d, then
// concatenation along axis 1 (0 for vectors) or 0.
Value stack(Builder& b, const std::string& name, const CallArgs& call) {
  auto args = bind_args(call, {name == "stack" ? "arrays" : "tup", "axis"}, 1);
  if (name != "stack" && args[1]) error(args[1]->loc, call.callee + "() takes no axis; np.stack and np.concatenate do");
  std::vector<NodeRef> parts = tensor_list(b, *args[0], call.callee);
  int64_t axis = 0;
  if (name == "stack") {
    for (NodeRef p : parts)
      if (p->shape() != parts[0]->shape())
        error(args[0]->loc, "np.stack: all tensors must have the same shape, not " + parts[0]->type().str() + " and " +
                                p->type().str());
    if (given(args[1])) axis = normalize_axis(b.constant_int(*args[1], "axis"), parts[0]->rank() + 1, args[1]->loc);
    for (NodeRef& p : parts) p = reshape_to(b, p, with_unit_axes(p->shape(), {axis}), call.loc);
  } else {
    int least = name == "vstack" ? 2 : 1;
    for (NodeRef& p : parts) {
      std::vector<int64_t> front;  // atleast_1d / atleast_2d put the new axes first
      for (int k = p->rank(); k < least; ++k) front.push_back(k - p->rank());
      p = reshape_to(b, p, with_unit_axes(p->shape(), front), call.loc);
    }
    axis = name == "hstack" && parts[0]->rank() > 1 ? 1 : 0;
  }
  try {
    ir::Attrs attrs;
    attrs.axes = {axis};
    if (parts.size() > 1) ir::infer_type(Op::Concat, parts, attrs);
  } catch (const ir::ShapeError& e) {
    error(args[0]->loc, call.callee + ": " + e.what());
  }
  return Value::tensor(concat(b, parts, axis, call.loc));
}

// np.squeeze / x.squeeze: the named axes must have size 1 (known now);
// without axes, every axis whose size is the constant 1 goes.
Value squeeze(Builder& b, const CallArgs& call) {
  auto args = bind_args(call, {"a", "axis"}, 1);
  NodeRef x = b.tensor(*args[0], "the argument of " + call.callee);
  Shape shape;
  std::vector<int64_t> axes;
  if (given(args[1])) axes = reduction_axes(b, args[1], x->rank());
  for (int k = 0; k < x->rank(); ++k) {
    const Size& d = x->shape()[k];
    bool named = std::count(axes.begin(), axes.end(), k) > 0;
    if (named && d != Size(1))
      error(args[1]->loc,
            call.callee + ": cannot squeeze axis " + std::to_string(k) + " of " + x->type().str() + ": its size is " +
                d.str() + ", not 1" +
                (d.is_constant() ? "" : " (a symbolic size is not known to be 1; write 1 in the annotation)"));
    if (named || (!given(args[1]) && d == Size(1))) continue;
    shape.push_back(d);
  }
  return Value::tensor(reshape_to(b, x, shape, call.loc));
}

Value expand_dims(Builder& b, const CallArgs& call) {
  auto args = bind_args(call, {"a", "axis"}, 2);
  NodeRef x = b.tensor(*args[0], "the argument of np.expand_dims");
  std::vector<Arg> items = shape_items(*args[1]);
  int rank = x->rank() + static_cast<int>(items.size());
  std::vector<int64_t> axes;
  for (const Arg& item : items) {
    int64_t a = normalize_axis(b.constant_int(item, "an axis"), rank, item.loc);
    if (std::count(axes.begin(), axes.end(), a)) error(item.loc, "axis " + std::to_string(a) + " is repeated");
    axes.push_back(a);
  }
  return Value::tensor(reshape_to(b, x, with_unit_axes(x->shape(), axes), call.loc));
}

// x.flatten(), x.ravel(), np.ravel(x): the row-major reading as one axis.
Value flatten(Builder& b, const CallArgs& call) {
  auto args = bind_args(call, {"a", "order"}, 1);
  NodeRef x = b.tensor(*args[0], "the argument of " + call.callee);
  if (given(args[1]) && !(args[1]->value.is(K::String) && args[1]->value.text == "C"))
    error(args[1]->loc, call.callee + ": only order='C' (row-major) is supported");
  return Value::tensor(reshape_to(b, x, {ir::num_elements(x->shape())}, call.loc));
}

// np.pad with mode='constant': along each axis, tensors filled with the
// constant (a broadcast number) are concatenated before and after.
Value pad(Builder& b, const CallArgs& call) {
  auto args = bind_args(call, {"array", "pad_width", "mode", "constant_values"}, 2);
  NodeRef x = b.tensor(*args[0], "the argument of np.pad");
  if (given(args[2]) && !(args[2]->value.is(K::String) && args[2]->value.text == "constant"))
    error(args[2]->loc, "np.pad: only mode='constant' is supported (reflect, edge and wrap padding are not)");
  double fill = 0;
  if (given(args[3])) {
    auto c = args[3]->value.known_number();
    if (!c) error(args[3]->loc, "np.pad: constant_values must be one number, not " + args[3]->value.describe());
    fill = *c;
  }
  // pad_width: n, (n,), (before, after), ((before, after),) or one pair per axis.
  auto pair_of = [&](const Value& v) -> std::pair<Size, Size> {
    if (!v.is(K::Tuple)) {
      Size n = b.size({v, args[1]->loc}, "a pad width");
      return {n, n};
    }
    if (v.items.size() == 1)
      return {b.size({v.items[0], args[1]->loc}, "a pad width"), b.size({v.items[0], args[1]->loc}, "a pad width")};
    if (v.items.size() != 2) error(args[1]->loc, "np.pad: each pad width is n or (before, after)");
    return {b.size({v.items[0], args[1]->loc}, "a pad width"), b.size({v.items[1], args[1]->loc}, "a pad width")};
  };
  const Value& widths = args[1]->value;
  std::vector<std::pair<Size, Size>> per_axis;
  bool nested = widths.is(K::Tuple) && !widths.items.empty() && widths.items[0].is(K::Tuple);
  if (nested && widths.items.size() == static_cast<size_t>(x->rank())) {
    for (const Value& v : widths.items) per_axis.push_back(pair_of(v));
  } else if (nested && widths.items.size() != 1) {
    error(args[1]->loc, "np.pad: " + std::to_string(widths.items.size()) + " pad widths given for a tensor of rank " +
                            std::to_string(x->rank()));
  } else {
    per_axis.assign(x->rank(), pair_of(nested ? widths.items[0] : widths));
  }
  NodeRef value = b.graph().constant(fill, call.loc);
  for (int k = 0; k < x->rank(); ++k) {
    std::vector<NodeRef> parts;
    for (int side = 0; side < 2; ++side) {
      const Size& width = side ? per_axis[k].second : per_axis[k].first;
      if (width.is_constant() && *width.constant() < 0)
        error(args[1]->loc, "np.pad: pad widths must be non-negative, not " + width.str());
      if (side) parts.push_back(x);
      if (width == Size(0)) continue;
      Shape filled = x->shape();
      filled[k] = width;
      parts.push_back(broadcast_to(b, value, filled, call.loc));
    }
    if (parts.size() > 1) x = concat(b, parts, k, call.loc);
  }
  return Value::tensor(x);
}

// np.prod, np.multiply.reduce: the IR has no product reduction, so a product
// over axes of constant length is unrolled into multiplications of slices.
constexpr int64_t kMaxUnrolledProduct = 64;

Value product(Builder& b, NodeRef x, const std::vector<int64_t>& axes, bool keepdims, const CallArgs& call) {
  NodeRef p = x;
  for (int64_t a : axes) {
    auto length = p->shape()[a].constant();
    if (!length || *length > kMaxUnrolledProduct)
      error(call.loc, call.callee + ": a product along axis " + std::to_string(a) + " of size " + p->shape()[a].str() +
                          " is not supported (Axon has no product reduction; products over constant axes of at most " +
                          std::to_string(kMaxUnrolledProduct) + " are unrolled); for positive values write " +
                          "np.exp(np.sum(np.log(x), axis=...))");
    Shape kept = p->shape();
    kept[a] = 1;
    NodeRef acc = *length == 0 ? broadcast_to(b, b.graph().constant(1.0, call.loc), kept, call.loc) : nullptr;
    for (int64_t i = 0; i < *length; ++i) {
      NodeRef item = slice_along(b, p, a, i, 1, call.loc);
      acc = acc ? b.graph().make(Op::Mul, {acc, item}, {}, call.loc) : item;
    }
    p = acc;
  }
  if (keepdims) return Value::tensor(p);
  Shape shape;
  for (int k = 0; k < x->rank(); ++k)
    if (!std::count(axes.begin(), axes.end(), k)) shape.push_back(x->shape()[k]);
  return Value::tensor(reshape_to(b, p, shape, call.loc));
}

Value prod(Builder& b, const CallArgs& call) {
  auto args = bind_args(call, {"a", "axis", "dtype", "out", "keepdims"}, 1);
  for (size_t i : {2, 3})
    if (given(args[i])) error(args[i]->loc, call.callee + ": only a, axis and keepdims are supported");
  NodeRef x = b.tensor(*args[0], "the argument of " + call.callee);
  return product(b, x, reduction_axes(b, args[1], x->rank()), keepdims_flag(args[4]), call);
}

// np.add.reduce(x, axis=0) and its kin: NumPy's ufunc reduce, whose axis
// defaults to 0 (not to all axes, as np.sum's does).
Value ufunc_reduce(Builder& b, const std::string& ufunc, const CallArgs& call) {
  auto args = bind_args(call, {"array", "axis", "dtype", "out", "keepdims"}, 1);
  for (size_t i : {2, 3})
    if (given(args[i])) error(args[i]->loc, call.callee + ": only array, axis and keepdims are supported");
  Arg axis = args[1] ? *args[1] : Arg{Value::integer(0), call.loc};
  CallArgs inner{call.callee, call.loc, {*args[0], axis}, {}};
  if (args[4]) inner.keywords.push_back({"keepdims", *args[4]});
  const std::string& reduction = kUfuncReduce.at(ufunc);
  if (reduction == "prod") return prod(b, inner);
  return reduce(b, reduction, inner);
}

// The method form x.name(...) and the function np.name(x, ...) share this.
Value call_tensor_function(Builder& b, const std::string& name, const CallArgs& call) {
  if (kReduce.count(name)) return reduce(b, name, call);
  if (name == "var" || name == "std") return variance(b, name, call);
  if (name == "clip") {
    auto args = bind_args(call, {"a", "a_min", "a_max"}, 3);
    Value x = arg_of(args[0]).value;
    if (given(args[1])) x = b.binary_op(Op::Max, {x, args[0]->loc}, *args[1], call.loc);
    if (given(args[2])) x = b.binary_op(Op::Min, {x, args[0]->loc}, *args[2], call.loc);
    return x;
  }
  if (name == "astype") {
    auto args = bind_args(call, {"a", "dtype"}, 2);
    return convert(b, *args[0], args[1]->value, call);
  }
  if (name == "cumsum") {
    auto args = bind_args(call, {"a", "axis"}, 1);
    return cumsum(b, b.tensor(arg_of(args[0]), "the argument of " + call.callee), args[1], call.loc);
  }
  if (name == "squeeze") return squeeze(b, call);
  if (name == "flatten" || name == "ravel") return flatten(b, call);
  if (name == "prod") return prod(b, call);
  if (name == "swapaxes") {
    auto args = bind_args(call, {"a", "axis1", "axis2"}, 3);
    NodeRef x = b.tensor(arg_of(args[0]), "the argument of " + call.callee);
    int64_t a1 = normalize_axis(b.constant_int(*args[1], "axis1"), x->rank(), args[1]->loc);
    int64_t a2 = normalize_axis(b.constant_int(*args[2], "axis2"), x->rank(), args[2]->loc);
    std::vector<int64_t> perm;
    for (int k = 0; k < x->rank(); ++k) perm.push_back(k);
    std::swap(perm[a1], perm[a2]);
    return Value::tensor(transpose(b, x, perm, call.loc));
  }
  throw InternalError(__FILE__, __LINE__, "no tensor function " + name);
}

}  // namespace

bool is_numpy_name(const std::string& name) {
  return name == "pi" || name == "e" || name == "inf" || elementwise_op(name, ir::OpKind::Unary) ||
         elementwise_op(name, ir::OpKind::Binary) || kReduce.count(name) || kOther.count(name);
}

Value numpy_attribute(const std::string& name, const SourceLoc& loc) {
  if (name == "pi") return Value::real(std::numbers::pi);
  if (name == "inf") return Value::real(std::numeric_limits<double>::infinity());
  if (name == "e") return Value::real(std::numbers::e);
  if (auto it = kInstead.find(name); it != kInstead.end())
    error(loc, "np." + name + " is not supported: " + it->second);
  if (!is_numpy_name(name)) {
    std::string hint = name == "float32" || name == "float64" || name == "astype"
                           ? " (dtypes come from the parameter annotations)"
                           : "";
    error(loc, "np." + name + " is not supported" + hint);
  }
  return Value::of(K::NpFunction, name);
}

Value ufunc_attribute(const std::string& ufunc, const std::string& name, const SourceLoc& loc) {
  if (name == "reduce" && kUfuncReduce.count(ufunc)) return Value::of(K::NpFunction, ufunc + ".reduce");
  std::string instead = name == "accumulate" && ufunc == "add" ? "; np.cumsum is np.add.accumulate"
                        : name == "reduce" ? "; np.add, np.multiply, np.maximum and np.minimum have .reduce"
                                           : "";
  error(loc, "np." + ufunc + "." + name + " is not supported" + instead);
}

Value call_numpy(Builder& b, const std::string& name, const CallArgs& call) {
  if (auto op = elementwise_op(name, ir::OpKind::Unary)) {
    auto args = bind_args(call, {"x"}, 1);
    return b.unary(*op, arg_of(args[0]), call.loc);
  }
  if (auto op = elementwise_op(name, ir::OpKind::Binary)) {
    auto args = bind_args(call, {"x1", "x2"}, 2);
    return b.binary_op(*op, *args[0], *args[1], call.loc);
  }
  if (name == "square") {
    auto args = bind_args(call, {"x"}, 1);
    return b.binary("*", *args[0], *args[0], call.loc);
  }
  if (name == "where") return where(b, call);
  if (name == "arange") return arange(b, call);
  if (name == "tri") return tri(b, call);
  if (name == "tril" || name == "triu") return tril_triu(b, name, call);
  if (name.rfind("ones", 0) == 0 || name.rfind("zeros", 0) == 0 || name.rfind("full", 0) == 0)
    return filled(b, name, call);
  if (name == "logical_not") {
    auto args = bind_args(call, {"x"}, 1);
    return b.logical_not(*args[0], call.loc, true);
  }
  if (name.rfind("logical_", 0) == 0) {
    auto args = bind_args(call, {"x1", "x2"}, 2);
    std::string op = name == "logical_and" ? "&" : name == "logical_or" ? "|" : "^";
    return b.logical(op, *args[0], *args[1], call.loc, true);
  }
  if (name == "bool_") error(call.loc, "np.bool_ is a dtype here (dtype=np.bool_); compare to make a mask (x != 0)");
  if (name == "power") {
    auto args = bind_args(call, {"x1", "x2"}, 2);
    if (!args[1]->value.known_number())
      error(args[1]->loc,
            "np.power needs a constant exponent (x ** 3 is the same); a tensor exponent is not supported");
    return b.binary("**", *args[0], *args[1], call.loc);
  }
  if (name == "float32") {
    auto args = bind_args(call, {"x"}, 1);
    return convert(b, *args[0], Value::of(K::NpFunction, "float32"), call);
  }
  if (name == "matmul") {
    auto args = bind_args(call, {"x1", "x2"}, 2);
    return Value::tensor(matmul(b, *args[0], *args[1], call.loc));
  }
  if (name == "einsum") return einsum(b, call);
  if (name == "concatenate") return concatenate(b, call);
  if (name == "split" || name == "array_split") return split(b, name, call);
  if (name == "stack" || name == "hstack" || name == "vstack") return stack(b, name, call);
  if (name == "expand_dims") return expand_dims(b, call);
  if (name == "pad") return pad(b, call);
  if (auto dot = name.find(".reduce"); dot != std::string::npos) return ufunc_reduce(b, name.substr(0, dot), call);
  if (name == "transpose") {
    auto args = bind_args(call, {"a", "axes"}, 1);
    NodeRef x = b.tensor(*args[0], "the argument of np.transpose");
    return transpose_with(b, x, given(args[1]) ? shape_items(*args[1]) : std::vector<Arg>{}, call.loc);
  }
  if (name == "reshape") {
    auto args = bind_args(call, {"a", "newshape"}, 2);
    return reshape(b, b.tensor(*args[0], "the argument of np.reshape"), shape_items(*args[1]), call.loc);
  }
  if (name == "broadcast_to") {
    auto args = bind_args(call, {"array", "shape"}, 2);
    NodeRef x = b.tensor(*args[0], "the argument of np.broadcast_to");
    Shape shape;
    for (const Arg& d : shape_items(*args[1])) shape.push_back(b.size(d, "a dimension"));
    return Value::tensor(broadcast_to(b, x, shape, call.loc));
  }
  return call_tensor_function(b, name, call);
}

Value math_attribute(const std::string& name, const SourceLoc& loc) {
  if (name == "pi") return Value::real(std::numbers::pi);
  if (name == "e") return Value::real(std::numbers::e);
  if (name == "tau") return Value::real(2 * std::numbers::pi);
  if (name == "inf") return Value::real(std::numeric_limits<double>::infinity());
  if (name == "sqrt" || name == "exp" || name == "log" || name == "tanh" || name == "fabs")
    return Value::of(K::NpFunction, "math." + name);
  error(loc, "math." + name +
                 " is not supported (math.pi, math.e, math.tau, math.inf, math.sqrt, math.exp, math.log, "
                 "math.tanh and math.fabs are)");
}

Value call_math(Builder& b, const std::string& name, const CallArgs& call) {
  auto args = bind_args(call, {"x"}, 1);
  auto x = args[0]->value.known_number();
  // A size known only when the kernel is bound (math.sqrt(q.shape[-1])) is
  // a number at run time: the same as np.sqrt of it.
  if (!x && args[0]->value.is(K::Int)) return call_numpy(b, name == "fabs" ? "abs" : name, call);
  if (!x)
    error(args[0]->loc, "math." + name + "() takes a number, not " + args[0]->value.describe() + "; use np." +
                            (name == "fabs" ? "abs" : name) + " on tensors");
  Op op = name == "fabs" ? Op::Abs : *ir::op_from_numpy(name, ir::OpKind::Unary);
  if ((name == "sqrt" && *x < 0) || (name == "log" && *x <= 0))
    error(args[0]->loc, "math domain error: math." + name + "() of " + std::to_string(*x));
  return Value::real(ir::scalar_unary(op, *x));
}

Value tensor_attribute(Builder& b, const Arg& tensor, const std::string& name, const SourceLoc& loc) {
  NodeRef x = tensor.value.node;
  if (name == "T") return Value::tensor(reversed_axes(b, x, loc));
  if (name == "shape") {
    std::vector<Value> dims;
    for (const Size& d : x->shape()) dims.push_back(Value::integer(d));
    return Value::tuple(dims);
  }
  if (name == "ndim") return Value::integer(x->rank());
  if (name == "mT") {  // the last two axes swapped (matrix transpose of a stack)
    if (x->rank() < 2) error(loc, "x.mT needs at least two dimensions, not " + x->type().str());
    std::vector<int64_t> perm;
    for (int k = 0; k < x->rank(); ++k) perm.push_back(k);
    std::swap(perm[x->rank() - 2], perm[x->rank() - 1]);
    return Value::tensor(transpose(b, x, perm, loc));
  }
  if (name == "size") return Value::integer(ir::num_elements(x->shape()));
  if (!kMethods.count(name)) error(loc, "tensors have no attribute '" + name + "' in Axon's NumPy subset");
  Value method = Value::of(K::Method, name);
  method.items.push_back(tensor.value);
  return method;
}

Value call_method(Builder& b, const Value& method, const CallArgs& call) {
  NodeRef x = method.items.at(0).node;
  const std::string& name = method.text;
  if (name == "reshape" || name == "transpose") {
    if (!call.keywords.empty()) error(call.keywords[0].second.loc, call.callee + "() takes no keyword arguments");
    std::vector<Arg> dims = call.positional;
    if (dims.size() == 1 && (dims[0].value.is(K::Tuple) || dims[0].value.is(K::None)))
      dims = dims[0].value.is(K::None) ? std::vector<Arg>{} : shape_items(dims[0]);
    if (name == "reshape") {
      if (dims.empty()) error(call.loc, "x.reshape() needs a shape");
      return reshape(b, x, dims, call.loc);
    }
    return transpose_with(b, x, dims, call.loc);
  }
  CallArgs with_self = call;
  with_self.positional.insert(with_self.positional.begin(), Arg{method.items[0], call.loc});
  return call_tensor_function(b, name, with_self);
}

ir::NodeRef matmul(Builder& b, const Arg& a_arg, const Arg& b_arg, const SourceLoc& loc) {
  NodeRef a = b.tensor(a_arg, "the left operand of matmul");
  NodeRef c = b.tensor(b_arg, "the right operand of matmul");
  if (a->rank() == 0 || c->rank() == 0)
    error(loc, "matmul: operands must have at least one dimension, got " + a->type().str() + " and " + c->type().str());
  // Labels: batch dims A.., then m, k, n.
  const Shape& sa = a->shape();
  const Shape& sc = c->shape();
  Size ka = sa.back(), kc = c->rank() == 1 ? sc[0] : sc[sc.size() - 2];
  if (ka != kc)
    error(loc, "matmul: shapes " + a->type().str() + " and " + c->type().str() + " do not align: " + ka.str() +
                   " vs " + kc.str());
  Shape batch_a(sa.begin(), sa.end() - std::min<size_t>(sa.size(), 2));
  Shape batch_c(sc.begin(), sc.end() - std::min<size_t>(sc.size(), 2));
  Shape batch;
  try {
    batch = ir::broadcast_shapes(batch_a, batch_c);
  } catch (const ir::ShapeError&) {
    error(loc, "matmul: batch dims of " + a->type().str() + " and " + c->type().str() + " cannot be broadcast");
  }
  std::string batch_labels;
  for (size_t k = 0; k < batch.size(); ++k) batch_labels += static_cast<char>('A' + k);
  if (batch.size() > 20) error(loc, "matmul: too many batch dimensions");
  std::string la, lc, out = batch_labels;
  if (a->rank() >= 2) {
    Shape target = batch;
    target.push_back(sa[sa.size() - 2]);
    target.push_back(ka);
    a = broadcast_to(b, a, target, loc);
    la = batch_labels + "mk";
    out += "m";
  } else {
    la = "k";
  }
  if (c->rank() >= 2) {
    Shape target = batch;
    target.push_back(kc);
    target.push_back(sc.back());
    c = broadcast_to(b, c, target, loc);
    lc = batch_labels + "kn";
    out += "n";
  } else {
    lc = "k";
  }
  ir::Attrs attrs;
  attrs.name = canonical_labels({la, lc}, out);
  return b.graph().make(Op::Contract, {a, c}, attrs, loc);
}

// ---- indexing ----

namespace {

struct AxisIndex {
  Size start, extent;
  int64_t step = 1;
  bool drop = false;  // an integer index removes the axis
};

// A bound given to a slice or an index: negative constants count from the end.
Size from_end(const Size& value, const Size& dim) {
  bool negative = value.is_constant() ? *value.constant() < 0
                                      : !value.provably_nonnegative() && (-value).provably_nonnegative();
  return negative ? dim + value : value;
}

int64_t clamp(int64_t v, int64_t lo, int64_t hi) { return std::max(lo, std::min(v, hi)); }

AxisIndex slice_axis(Builder& b, const Value& slice, const Size& dim, const SourceLoc& loc) {
  const Value &lo = slice.items[0], &hi = slice.items[1], &st = slice.items[2];
  AxisIndex r;
  if (!st.is(K::None)) r.step = b.constant_int({st, loc}, "a slice step");
  if (r.step == 0) error(loc, "slice step cannot be zero");
  if (r.step > (int64_t{1} << 62) || r.step < -(int64_t{1} << 62)) error(loc, "slice step is too large");
  auto bound = [&](const Value& v) { return from_end(b.size({v, loc}, "a slice bound"), dim); };
  std::optional<Size> start, stop;
  if (!lo.is(K::None)) start = bound(lo);
  if (!hi.is(K::None)) stop = bound(hi);
  std::optional<int64_t> d = dim.constant();
  bool concrete = d && (!start || start->is_constant()) && (!stop || stop->is_constant());
  if (concrete) {  // Python's clamping, exactly
    int64_t n = *d, s, e;
    if (r.step > 0) {
      s = start ? clamp(*start->constant(), 0, n) : 0;
      e = stop ? clamp(*stop->constant(), 0, n) : n;
      r.extent = e > s ? (e - s - 1) / r.step + 1 : 0;
    } else {
      s = start ? clamp(*start->constant(), -1, n - 1) : n - 1;
      e = stop ? clamp(*stop->constant(), -1, n - 1) : -1;
      r.extent = s > e ? (s - e - 1) / -r.step + 1 : 0;
    }
    r.start = r.extent == Size(0) ? Size(0) : Size(s);
    return r;
  }
  // Symbolic sizes: bounds must lie inside the axis (checked when sizes are known).
  if (r.step > 0) {
    r.start = start.value_or(0);
    Size span = stop.value_or(dim) - r.start;
    r.extent = r.step == 1 ? span : Size::floordiv(span - 1, r.step) + 1;  // ceil(span / step)
  } else {
    r.start = start.value_or(dim - 1);
    Size span = r.start - stop.value_or(-1);
    r.extent = Size::floordiv(span - 1, -r.step) + 1;
  }
  if (r.extent.is_constant() && *r.extent.constant() < 0) r.extent = 0;
  return r;
}

}  // namespace

Value index_tensor(Builder& b, const Arg& tensor, const Arg& index, const SourceLoc& loc) {
  NodeRef x = tensor.value.node;
  std::vector<Value> items = index.value.is(K::Tuple) ? index.value.items : std::vector<Value>{index.value};
  int consumed = 0, ellipses = 0;
  for (const Value& v : items) {
    if (v.is(K::Int) || v.is(K::Slice)) ++consumed;
    else if (v.is(K::Ellipsis)) ++ellipses;
    else if (v.is(K::Tensor)) error(index.loc, "indexing with a tensor is not supported (only integers, slices, None and ...)");
    else if (!v.is(K::None)) error(index.loc, "invalid index: " + v.describe());
  }
  if (ellipses > 1) error(index.loc, "an index can only have a single '...'");
  if (consumed > x->rank())
    error(index.loc, "too many indices: " + std::to_string(consumed) + " for a tensor " + x->type().str());
  // Expand "..." (or pad at the end) with full slices.
  Value full = Value::of(K::Slice);
  full.items = {Value::of(K::None), Value::of(K::None), Value::of(K::None)};
  std::vector<Value> expanded;
  for (const Value& v : items) {
    if (!v.is(K::Ellipsis)) {
      expanded.push_back(v);
      continue;
    }
    for (int k = consumed; k < x->rank(); ++k) expanded.push_back(full);
    consumed = x->rank();
  }
  for (int k = consumed; k < x->rank(); ++k) expanded.push_back(full);

  ir::Attrs attrs;
  Shape result_shape;
  bool any_slice = false;
  int axis = 0;
  for (const Value& v : expanded) {
    if (v.is(K::None)) {
      result_shape.push_back(1);
      continue;
    }
    const Size& dim = x->shape()[axis];
    AxisIndex ai;
    if (v.is(K::Int)) {
      ai.start = from_end(v.size, dim);
      ai.extent = 1;
      ai.drop = true;
      auto i = ai.start.constant();
      auto d = dim.constant();
      if ((i && *i < 0) || (i && d && *i >= *d))
        error(index.loc, "index " + v.size.str() + " is out of bounds for axis " + std::to_string(axis) +
                             " with size " + dim.str());
    } else {
      ai = slice_axis(b, v, dim, index.loc);
    }
    any_slice = any_slice || ai.start != Size(0) || ai.step != 1 || ai.extent != dim;
    attrs.sizes.push_back(ai.start);
    attrs.axes.push_back(ai.step);
    attrs.extents.push_back(ai.extent);
    if (!ai.drop) result_shape.push_back(ai.extent);
    ++axis;
  }
  NodeRef result = any_slice ? b.graph().make(Op::Slice, {x}, attrs, loc) : x;
  return Value::tensor(reshape_to(b, result, result_shape, loc));
}

}  // namespace axon::lang
