#include "lang/value.h"

#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <sstream>

#include "ir/scalar.h"
#include "lang/numpy_api.h"

namespace axon::lang {
namespace {

[[noreturn]] void error(const SourceLoc& loc, const std::string& message) { throw UserError(loc, message); }

double python_floor_div(double a, double b) { return std::floor(a / b); }
double python_mod(double a, double b) {
  double r = std::fmod(a, b);
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

ir::Op operator_op(const std::string& op, const SourceLoc& loc) {
  if (op == "+") return ir::Op::Add;
  if (op == "-") return ir::Op::Sub;
  if (op == "*") return ir::Op::Mul;
  if (op == "/") return ir::Op::Div;
  if (op == "//" || op == "%") error(loc, "operator '" + op + "' is not supported on tensors");
  error(loc, "operator '" + op + "' is not supported");
}

Value boolean_number(bool b) {
  Value v = Value::of(Value::Kind::Bool);
  v.number = b ? 1 : 0;
  return v;
}

}  // namespace

bool compare_numbers(ir::Cmp cmp, double x, double y) {
  switch (cmp) {
    case ir::Cmp::Lt: return x < y;
    case ir::Cmp::Le: return x <= y;
    case ir::Cmp::Gt: return x > y;
    case ir::Cmp::Ge: return x >= y;
    case ir::Cmp::Eq: return x == y;
    case ir::Cmp::Ne: return x != y;
  }
  return false;
}

std::optional<double> Value::known_number() const {
  if (kind == Kind::Float || kind == Kind::Bool) return number;
  if (kind == Kind::Int && size.is_constant()) return static_cast<double>(*size.constant());
  return std::nullopt;
}

std::string Value::describe() const {
  switch (kind) {
    case Kind::Tensor: return "a tensor " + node->type().str();
    case Kind::Int: return "the integer " + size.str();
    case Kind::Float: {
      std::ostringstream text;
      text << number;
      return "the number " + text.str();
    }
    case Kind::Bool: return number ? "True" : "False";
    case Kind::None: return "None";
    case Kind::Ellipsis: return "'...'";
    case Kind::String: return "a string";
    case Kind::Tuple: return "a tuple of " + std::to_string(items.size());
    case Kind::Slice: return "a slice";
    case Kind::Compare: return "a comparison";
    case Kind::Module: return "the module " + text;
    case Kind::Function: return "the function '" + text + "'";
    case Kind::NpFunction: return "the function np." + text;
    case Kind::Method: return "the method ." + text;
  }
  return "a value";
}

std::vector<std::optional<Arg>> bind_args(const CallArgs& call, const std::vector<std::string>& params,
                                          size_t required) {
  std::vector<std::optional<Arg>> bound(params.size());
  if (call.positional.size() > params.size()) {
    const Arg& extra = call.positional[params.size()];
    error(extra.loc, call.callee + "() takes " + std::to_string(params.size()) + " positional argument" +
                         (params.size() == 1 ? "" : "s") + " but " + std::to_string(call.positional.size()) +
                         " were given");
  }
  for (size_t i = 0; i < call.positional.size(); ++i) bound[i] = call.positional[i];
  for (const auto& [name, arg] : call.keywords) {
    size_t i = 0;
    while (i < params.size() && params[i] != name) ++i;
    if (i == params.size()) error(arg.loc, call.callee + "() got an unexpected keyword argument '" + name + "'");
    if (bound[i]) error(arg.loc, call.callee + "() got multiple values for argument '" + name + "'");
    bound[i] = arg;
  }
  for (size_t i = 0; i < required; ++i)
    if (!bound[i]) error(call.loc, call.callee + "() missing required argument '" + params[i] + "'");
  return bound;
}

ir::NodeRef Builder::tensor(const Arg& arg, const std::string& what) {
  const Value& v = arg.value;
  if (v.is(Value::Kind::Tensor)) return v.node;
  if (v.is(Value::Kind::Int)) {
    if (auto c = v.size.constant()) return graph_.constant(static_cast<double>(*c), arg.loc);
    return graph_.size_value(v.size, arg.loc);
  }
  if (auto x = v.known_number()) return graph_.constant(*x, arg.loc);
  if (v.is(Value::Kind::Compare)) return tensor({materialize(arg), arg.loc}, what);
  error(arg.loc, what + " must be a tensor or a number, not " + v.describe());
}

int64_t Builder::constant_int(const Arg& arg, const std::string& what) {
  if (arg.value.is(Value::Kind::Int) && arg.value.size.is_constant()) return *arg.value.size.constant();
  if (arg.value.is(Value::Kind::Int)) error(arg.loc, what + " must be a constant integer, not the size " + arg.value.size.str());
  error(arg.loc, what + " must be an integer, not " + arg.value.describe());
}

ir::Size Builder::size(const Arg& arg, const std::string& what) {
  if (arg.value.is(Value::Kind::Int)) return arg.value.size;
  error(arg.loc, what + " must be an integer, not " + arg.value.describe());
}

Value Builder::binary(const std::string& op, const Arg& left, const Arg& right, const SourceLoc& loc) {
  const Value& a = left.value;
  const Value& b = right.value;
  if (op == "@") return Value::tensor(matmul(*this, left, right, loc));
  if (op == "&" || op == "|" || op == "^") return logical(op, left, right, loc, false);
  using K = Value::Kind;
  // NumPy's bool arithmetic: + is or, * is and, - is an error.
  bool mask_operand =
      a.is(K::Compare) || b.is(K::Compare) || (a.is(K::Tensor) && a.boolean) || (b.is(K::Tensor) && b.boolean);
  if (mask_operand && a.is_boolean() && b.is_boolean()) {
    if (op == "+") return logical("|", left, right, loc, false);
    if (op == "*") return logical("&", left, right, loc, false);
    if (op == "-")
      error(loc,
            "NumPy does not subtract booleans; write (a ^ b) for the difference of masks, or convert one "
            "with .astype(np.float32)");
  }
  // Integer arithmetic stays exact and symbolic: sizes are integers.
  if (a.is(K::Int) && b.is(K::Int)) {
    try {
      if (op == "+") return Value::integer(a.size + b.size);
      if (op == "-") return Value::integer(a.size - b.size);
      if (op == "*") return Value::integer(a.size * b.size);
      if (op == "//" || op == "%") {
        auto d = b.size.constant();
        if (!d && op == "//") {  // C // H with C declared as H*D: exact, so the quotient is D
          if (auto q = a.size.divide_exact(b.size)) return Value::integer(*q);
          error(right.loc, "'" + a.size.str() + " // " + b.size.str() +
                               "': a symbolic divisor must divide the size exactly as a product (declare the "
                               "dimension as " +
                               b.size.str() + "*D), or be a constant");
        }
        if (!d) error(right.loc, "the divisor of '" + op + "' must be a constant, not " + b.size.str());
        if (*d == 0) error(right.loc, "integer division by zero");
        if (op == "%") {
          auto n = a.size.constant();
          if (!n) error(left.loc, "'%' needs constant operands");
          return Value::integer(static_cast<int64_t>(python_mod(static_cast<double>(*n), static_cast<double>(*d))));
        }
        if (*d < 0 && !a.size.is_constant()) error(right.loc, "the divisor of '//' must be positive");
        if (*d < 0) {  // exact integer floor division, as Python
          int64_t n = *a.size.constant();
          if (n == std::numeric_limits<int64_t>::min() && *d == -1) throw std::overflow_error("floor division");
          int64_t q = n / *d;
          if ((n % *d != 0) && ((n < 0) != (*d < 0))) --q;
          return Value::integer(q);
        }
        return Value::integer(ir::Size::floordiv(a.size, *d));
      }
      if (op == "**" && a.size.is_constant() && b.size.is_constant() && *b.size.constant() >= 0 &&
          *b.size.constant() < 64) {
        ir::Size result = 1;
        for (int64_t i = 0; i < *b.size.constant(); ++i) result = result * a.size;
        return Value::integer(result);
      }
    } catch (const std::overflow_error&) {
      error(loc, "integer overflow in '" + op + "'");
    }
  }
  auto x = a.known_number(), y = b.known_number();
  if (x && y) {
    if ((op == "/" || op == "//" || op == "%") && *y == 0) error(right.loc, "division by zero");
    if (op == "//") return Value::real(python_floor_div(*x, *y));
    if (op == "%") return Value::real(python_mod(*x, *y));
    if (op == "**") return Value::real(ir::scalar_unary(ir::Op::Pow, *x, *y));
    return Value::real(ir::scalar_binary(operator_op(op, loc), *x, *y));
  }
  if (op == "**") {
    ir::NodeRef base = tensor(left, "the base of '**'");
    if (!y) error(right.loc, "the exponent of '**' must be a constant number, not " + b.describe());
    ir::Attrs attrs;
    attrs.value = *y;
    return Value::tensor(graph_.make(ir::Op::Pow, {base}, attrs, loc));
  }
  ir::Op ir_op = operator_op(op, loc);
  ir::NodeRef l = tensor(left, "the left operand of '" + op + "'");
  ir::NodeRef r = tensor(right, "the right operand of '" + op + "'");
  return Value::tensor(graph_.make(ir_op, {l, r}, {}, loc));
}

Value Builder::binary_op(ir::Op op, const Arg& left, const Arg& right, const SourceLoc& loc) {
  auto a = left.value.known_number(), b = right.value.known_number();
  if (a && b) return Value::real(ir::scalar_binary(op, *a, *b));
  std::string name = std::string("np.") + ir::numpy_name(op);
  ir::NodeRef l = tensor(left, "x1 of " + name), r = tensor(right, "x2 of " + name);
  return Value::tensor(graph_.make(op, {l, r}, {}, loc));
}

namespace {

// Integers made from sizes, integer constants and running counts (np.arange):
// their differences are exact, so comparing them is comparing the difference to 0.
bool index_valued(ir::NodeRef n) {
  switch (ir::op_kind(n->op())) {
    case ir::OpKind::Leaf:
      return n->op() == ir::Op::SizeValue ||
             (n->op() == ir::Op::Const && n->attrs().value == std::nearbyint(n->attrs().value) &&
              std::fabs(n->attrs().value) < (1 << 24));
    case ir::OpKind::Binary:
      return (n->op() == ir::Op::Add || n->op() == ir::Op::Sub) && index_valued(n->input(0)) &&
             index_valued(n->input(1));
    case ir::OpKind::Scan:
    case ir::OpKind::Layout: return n->op() != ir::Op::Concat && index_valued(n->input(0));
    case ir::OpKind::Unary: return n->op() == ir::Op::Neg && index_valued(n->input(0));
    case ir::OpKind::Select:
    case ir::OpKind::Reduce:
    case ir::OpKind::Contract: return false;
  }
  return false;
}

}  // namespace

ir::NodeRef Builder::select(ir::Cmp cmp, ir::NodeRef a, ir::NodeRef b, ir::NodeRef t, ir::NodeRef f,
                            const SourceLoc& loc) {
  // Index grids compare as their difference against 0: one full grid and a
  // number, which every target selects on (two broadcast comparands, a
  // column against a row, are not an instruction on trn1).
  bool zero = b->op() == ir::Op::Const && b->attrs().value == 0.0;
  if (!zero && index_valued(a) && index_valued(b) && (a->rank() > 0 || b->rank() > 0)) {
    a = graph_.make(ir::Op::Sub, {a, b}, {}, loc);
    b = graph_.constant(0.0, loc);
  }
  ir::Attrs attrs;
  attrs.cmp = cmp;
  return graph_.make(ir::Op::Select, {a, b, t, f}, attrs, loc);
}

// NumPy holds a comparison as bool; used as a number it is 1 or 0, which is
// what the select makes (the dtype is f32, as for any literal-only result).
Value Builder::materialize(const Arg& compare) {
  const Value& c = compare.value;
  auto x = c.items[0].known_number(), y = c.items[1].known_number();
  if (x && y) return boolean_number(compare_numbers(c.cmp, *x, *y));
  ir::NodeRef a = tensor({c.items[0], compare.loc}, "a compared value");
  ir::NodeRef b = tensor({c.items[1], compare.loc}, "a compared value");
  return Value::mask(
      select(c.cmp, a, b, graph_.constant(1.0, compare.loc), graph_.constant(0.0, compare.loc), compare.loc));
}

namespace {

std::string bitwise_hint(const std::string& op) {
  if (op == "~")
    return "NumPy's '~' on float tensors is a bitwise operation with no meaning for floats; it negates masks "
           "such as ~(x > 0), or use np.logical_not (nonzero is true)";
  return "NumPy's '" + op +
         "' on float tensors is a bitwise operation with no meaning for floats; it combines masks "
         "such as (x > 0) " +
         op + " (y < 1), or use np.logical_" +
         (op == "&"   ? "and"
          : op == "|" ? "or"
                      : "xor") +
         " (nonzero is true)";
}

}  // namespace

Value Builder::logical(const std::string& op, const Arg& left, const Arg& right, const SourceLoc& loc,
                       bool any_values) {
  // Each side as 0/1: a Python bool or number stays a number, a tensor
  // that is not a mask becomes (x != 0).
  auto as_mask = [&](const Arg& side) -> Value {
    const Value& v = side.value;
    if (!any_values && !v.is_boolean())
      error(side.loc, "'" + op + "' needs booleans, not " + v.describe() + ": " + bitwise_hint(op));
    if (v.is(Value::Kind::Compare)) return materialize(side);
    if (auto n = v.known_number()) return boolean_number(*n != 0);
    if (v.is(Value::Kind::Tensor) && v.boolean) return v;
    ir::NodeRef t = tensor(side, "an operand of '" + op + "'");
    return Value::mask(select(ir::Cmp::Ne, t, graph_.constant(0.0, side.loc), graph_.constant(1.0, side.loc),
                              graph_.constant(0.0, side.loc), side.loc));
  };
  Value a = as_mask(left), b = as_mask(right);
  auto x = a.known_number(), y = b.known_number();
  if (x && y) {
    bool p = *x != 0, q = *y != 0;
    return boolean_number(op == "&" ? (p && q) : op == "|" ? (p || q) : (p != q));
  }
  ir::NodeRef l = tensor({a, left.loc}, "an operand of '" + op + "'");
  ir::NodeRef r = tensor({b, right.loc}, "an operand of '" + op + "'");
  // On 0/1 values: and is the product, or the maximum, xor the inequality.
  if (op == "&") return Value::mask(graph_.make(ir::Op::Mul, {l, r}, {}, loc));
  if (op == "|") return Value::mask(graph_.make(ir::Op::Max, {l, r}, {}, loc));
  if (op == "^")
    return Value::mask(select(ir::Cmp::Ne, l, r, graph_.constant(1.0, loc), graph_.constant(0.0, loc), loc));
  error(loc, "operator '" + op + "' is not supported");
}

Value Builder::logical_not(const Arg& operand, const SourceLoc& loc, bool any_values) {
  const Value& v = operand.value;
  if (!any_values && !v.is_boolean()) {
    if (v.is(Value::Kind::Int)) error(operand.loc, "'~' on integers (bitwise not) is not supported; write -n - 1");
    error(operand.loc, "'~' needs a boolean, not " + v.describe() + ": " + bitwise_hint("~"));
  }
  if (auto n = v.known_number()) return boolean_number(*n == 0);
  Arg mask = operand;
  if (v.is(Value::Kind::Compare)) mask.value = materialize(operand);
  if (auto n = mask.value.known_number()) return boolean_number(*n == 0);
  ir::NodeRef m = tensor(mask, "the operand of '~'");
  ir::NodeRef zero = graph_.constant(0.0, loc), one = graph_.constant(1.0, loc);
  if (!mask.value.boolean) return Value::mask(select(ir::Cmp::Eq, m, zero, one, zero, loc));
  return Value::mask(graph_.make(ir::Op::Sub, {one, m}, {}, loc));  // exact on 0/1
}

Value Builder::unary(ir::Op op, const Arg& operand, const SourceLoc& loc) {
  if (op == ir::Op::Neg && operand.value.is(Value::Kind::Int)) return Value::integer(-operand.value.size);
  if (auto x = operand.value.known_number()) return Value::real(ir::scalar_unary(op, *x));
  ir::NodeRef in = tensor(operand, std::string("the argument of ") + ir::op_name(op));
  return Value::tensor(graph_.make(op, {in}, {}, loc));
}

}  // namespace axon::lang
