// Values of the lowering evaluator (internal to src/lang).
//
// Lowering runs the program symbolically: names hold Values, and only tensor
// operations create IR nodes. Python numbers and sizes (x.shape[i]) fold at
// lowering time, as they would in NumPy, so `np.sqrt(2 / np.pi)` is a number.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "lang/ast.h"

namespace axon::lang {

struct Value {
  enum class Kind {
    Tensor,      // node
    Int,         // size: an integer, possibly symbolic (a literal, or from x.shape)
    Float,       // number
    Bool,        // number (0 or 1)
    None,
    Ellipsis,
    String,      // text
    Tuple,       // items (tuples and lists alike)
    Slice,       // items = {lower, upper, step}, None where absent
    Compare,     // items = {left, right}, cmp: only np.where takes it
    Module,      // numpy
    Function,    // text = a def in the file
    NpFunction,  // text = np.<name>
    Method,      // text = method name, items[0] = the tensor it is bound to
  };
  Kind kind = Kind::None;
  ir::NodeRef node = nullptr;
  ir::Size size;
  double number = 0.0;
  std::string text;
  std::vector<Value> items;
  ir::Cmp cmp = ir::Cmp::Lt;
  /// A Tensor of 0s and 1s that NumPy would hold as bool (a comparison, a
  /// logical op, np.tri): '&', '|', '^' and '~' take only these.
  bool boolean = false;

  static Value tensor(ir::NodeRef n) { return with(Kind::Tensor, [&](Value& v) { v.node = n; }); }
  static Value integer(const ir::Size& s) { return with(Kind::Int, [&](Value& v) { v.size = s; }); }
  static Value real(double x) { return with(Kind::Float, [&](Value& v) { v.number = x; }); }
  static Value tuple(std::vector<Value> items) { return with(Kind::Tuple, [&](Value& v) { v.items = std::move(items); }); }
  static Value mask(ir::NodeRef n) {
    return with(Kind::Tensor, [&](Value& v) { v.node = n, v.boolean = true; });
  }
  static Value of(Kind kind, std::string text = {}) { return with(kind, [&](Value& v) { v.text = std::move(text); }); }

  bool is(Kind k) const { return kind == k; }
  /// A number known now: a Float, a Bool, or a constant Int.
  std::optional<double> known_number() const;
  /// True for values NumPy holds as bool: True/False, comparisons, masks.
  bool is_boolean() const { return kind == Kind::Bool || kind == Kind::Compare || (kind == Kind::Tensor && boolean); }
  /// "a tensor f32[M, N]", "the number 2.5", "a tuple" ... for messages.
  std::string describe() const;

 private:
  template <typename F>
  static Value with(Kind kind, F&& fill) {
    Value v;
    v.kind = kind;
    fill(v);
    return v;
  }
};

/// One argument of a call, with where it was written.
struct Arg {
  Value value;
  SourceLoc loc;
};

struct CallArgs {
  std::string callee;  // "np.sum", "x.reshape", "rmsnorm"
  SourceLoc loc;
  std::vector<Arg> positional;
  std::vector<std::pair<std::string, Arg>> keywords;
};

/// Matches a call against parameter names (Python rules: positional first,
/// then keywords; no duplicates). Parameters from index `required` on are
/// optional. Unknown keywords, missing and surplus arguments are UserErrors.
std::vector<std::optional<Arg>> bind_args(const CallArgs& call, const std::vector<std::string>& params,
                                          size_t required);

/// Shared helpers for turning Values into IR; used by the lowering and the
/// NumPy API.
class Builder {
 public:
  explicit Builder(ir::Graph& graph) : graph_(graph) {}
  ir::Graph& graph() { return graph_; }

  /// A tensor from a tensor, a number or a size; anything else is an error naming `what`.
  ir::NodeRef tensor(const Arg& arg, const std::string& what);
  /// A Python integer known now (axis numbers, exponents of **).
  int64_t constant_int(const Arg& arg, const std::string& what);
  /// A size: an Int value (possibly symbolic).
  ir::Size size(const Arg& arg, const std::string& what);

  /// Arithmetic on any values: numbers fold, tensors make nodes.
  Value binary(const std::string& op, const Arg& left, const Arg& right, const SourceLoc& loc);
  Value unary(ir::Op op, const Arg& operand, const SourceLoc& loc);
  /// A comparison as a value: 1 where it holds, 0 elsewhere (a mask); a
  /// comparison of numbers is True or False.
  Value materialize(const Arg& compare);
  /// '&', '|', '^' on booleans (NumPy's bool operators); np.logical_* also
  /// take numbers and tensors (nonzero is true) when `any_values`.
  Value logical(const std::string& op, const Arg& left, const Arg& right, const SourceLoc& loc, bool any_values);
  /// '~' on a boolean; np.logical_not on anything when `any_values`.
  Value logical_not(const Arg& operand, const SourceLoc& loc, bool any_values);
  /// Select(a cmp b, t, f): np.where's node.
  ir::NodeRef select(ir::Cmp cmp, ir::NodeRef a, ir::NodeRef b, ir::NodeRef t, ir::NodeRef f, const SourceLoc& loc);
  /// A Binary op of the table (np.maximum, np.add ...): numbers fold, tensors make a node.
  Value binary_op(ir::Op op, const Arg& left, const Arg& right, const SourceLoc& loc);

 private:
  ir::Graph& graph_;
};

/// `x cmp y` on numbers, as Python compares them.
bool compare_numbers(ir::Cmp cmp, double x, double y);

}  // namespace axon::lang
