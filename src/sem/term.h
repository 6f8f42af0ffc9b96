// The index-expression language: what an element of a tensor is, as a
// scalar expression over elements of other tensors. Each IR op's one
// definition (semantics.h) is written in it; the prover reads it.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "ir/node.h"

namespace axon::sem {

/// An integer index: a polynomial over sizes and index variables (names
/// starting with '$'), kept as one ir::Size whenever possible; floor division
/// and remainder by a positive size (reshape) and sums and products involving
/// them form a small tree.
struct Index {
  enum class Kind : uint8_t { Poly, Div, Mod, Add, Mul };
  Kind kind = Kind::Poly;
  ir::Size poly;                                  // Poly: the value; Div/Mod: the divisor
  std::vector<std::shared_ptr<const Index>> args;  // Div/Mod: {dividend}; Add/Mul: the operands

  Index() = default;
  Index(ir::Size p) : poly(std::move(p)) {}  // NOLINT: indices read as math
  Index(int64_t c) : poly(c) {}              // NOLINT
  static Index var(const std::string& name) { return Index(ir::Size::name(name)); }
  static Index div(const Index& a, const ir::Size& d);
  static Index mod(const Index& a, const ir::Size& d);
  friend Index operator+(const Index& a, const Index& b);
  friend Index operator*(const Index& a, const Index& b);
  bool is_poly() const { return kind == Kind::Poly; }
  std::string str() const;
};

struct Term;
using TermRef = std::shared_ptr<const Term>;

enum class TermKind : uint8_t {
  Number,   // number
  SizeNum,  // size, an integer, read as a real
  Read,     // tensor[index...]
  Apply,    // op(args): an element-wise op of ops.def (Neg..Pow, Add..Min); Pow uses number as exponent
  Select,   // (args[0] cmp args[1]) ? args[2] : args[3]
  IndexIf,  // (index[0] < size) ? args[0] : args[1]
  Fold,     // op over var in [0, size) of args[0]; op is ReduceSum, ReduceMax or ReduceMin
  Symbol,   // a real unknown named var (the prover's accumulators)
};

struct Term {
  TermKind kind = TermKind::Number;
  double number = 0.0;
  ir::Size size;
  int tensor = -1;
  std::vector<Index> index;
  ir::Op op = ir::Op::Add;
  ir::Cmp cmp = ir::Cmp::Lt;
  std::string var;
  std::vector<TermRef> args;
};

TermRef number(double value);
TermRef size_number(const ir::Size& size);
TermRef read(int tensor, std::vector<Index> index);
TermRef apply(ir::Op op, std::vector<TermRef> args, double exponent = 0.0);
TermRef select(ir::Cmp cmp, TermRef a, TermRef b, TermRef t, TermRef f);
TermRef index_if(const Index& lhs, const ir::Size& bound, TermRef then, TermRef otherwise);
TermRef fold(ir::Op op, const std::string& var, const ir::Size& length, TermRef body);
TermRef symbol(const std::string& name);

/// Replaces index variables (and sizes) by index expressions.
using Substitution = std::map<std::string, Index>;
Index substitute(const Index& index, const Substitution& subst);
TermRef substitute(const TermRef& term, const Substitution& subst);

/// Text in which bound variables are renamed by nesting depth, so two
/// alpha-equivalent terms print the same: a canonical key.
std::string canonical(const TermRef& term);
/// Readable text.
std::string str(const TermRef& term);

/// Names (sizes and index variables) a term depends on, bound ones excluded.
std::set<std::string> free_names(const TermRef& term);
std::set<std::string> free_names(const Index& index);

/// Fresh index variable names, "$0", "$1", ...
class VarSupply {
 public:
  std::string fresh() { return "$" + std::to_string(next_++); }

 private:
  int next_ = 0;
};

}  // namespace axon::sem
