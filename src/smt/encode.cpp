#include "smt/encode.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <set>

namespace axon::smt {
namespace {

using sem::Index;
using sem::TermKind;
using sem::TermRef;

bool is_index_var(const std::string& name) { return !name.empty() && name[0] == '$'; }

void ordered_names(const Index& i, std::vector<std::string>& out, std::set<std::string>& seen,
                   const std::set<std::string>& bound) {
  for (const std::string& n : i.poly.names())
    if (!bound.count(n) && seen.insert(n).second) out.push_back(n);
  for (const auto& a : i.args) ordered_names(*a, out, seen, bound);
}

void ordered_names(const TermRef& t, std::vector<std::string>& out, std::set<std::string>& seen,
                   std::set<std::string> bound) {
  if (t->kind == TermKind::SizeNum || t->kind == TermKind::IndexIf || t->kind == TermKind::Fold)
    ordered_names(Index(t->size), out, seen, bound);
  for (const Index& i : t->index) ordered_names(i, out, seen, bound);
  if (t->kind == TermKind::Fold) bound.insert(t->var);
  for (const TermRef& a : t->args) ordered_names(a, out, seen, bound);
}

}  // namespace

std::vector<std::string> ordered_free_names(const TermRef& term) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  ordered_names(term, out, seen, {});
  return out;
}

Encoder::Encoder(z3::context& ctx)
    : exp_fn(ctx.function("exp", ctx.real_sort(), ctx.real_sort())),
      log_fn(ctx.function("log", ctx.real_sort(), ctx.real_sort())),
      sqrt_fn(ctx.function("sqrt", ctx.real_sort(), ctx.real_sort())),
      tanh_fn(ctx.function("tanh", ctx.real_sort(), ctx.real_sort())),
      recip_fn(ctx.function("recip", ctx.real_sort(), ctx.real_sort())),
      ctx_(ctx) {}

z3::expr Encoder::integer(const std::string& name) {
  auto it = integers_.find(name);
  if (it != integers_.end()) return it->second;
  // Z3 symbols cannot start with '$' in SMT-LIB output without quoting; keep them readable.
  std::string symbol = is_index_var(name) ? "i" + name.substr(1) : "size_" + name;
  z3::expr e = ctx_.int_const(symbol.c_str());
  integers_.emplace(name, e);
  return e;
}

std::vector<z3::expr> Encoder::size_constraints() const {
  std::vector<z3::expr> result;
  for (const auto& [name, e] : integers_)
    if (!is_index_var(name)) result.push_back(e >= 1);
  return result;
}

z3::expr Encoder::index(const Index& i) {
  switch (i.kind) {
    case Index::Kind::Poly: {
      z3::expr sum = ctx_.int_val(0);
      bool first = true;
      for (const auto& [monomial, coefficient] : i.poly.terms()) {
        z3::expr product = ctx_.int_val(static_cast<int64_t>(coefficient));
        for (const auto& [atom, power] : monomial) {
          z3::expr factor = atom.is_name() ? integer(atom.name)
                                           : z3::expr(index(Index(*atom.numerator)) / ctx_.int_val(atom.den));
          for (int64_t p = 0; p < power; ++p) product = product * factor;
        }
        sum = first ? product : sum + product;
        first = false;
      }
      return sum;
    }
    case Index::Kind::Div: return index(*i.args[0]) / size(i.poly);
    case Index::Kind::Mod: return z3::mod(index(*i.args[0]), size(i.poly));
    case Index::Kind::Add: return index(*i.args[0]) + index(*i.args[1]);
    case Index::Kind::Mul: return index(*i.args[0]) * index(*i.args[1]);
  }
  throw InternalError(__FILE__, __LINE__, "unknown index kind");
}

// Doubles are exact binary fractions: encode them exactly.
z3::expr Encoder::real(double value) {
  AXON_CHECK(std::isfinite(value), "finite constants only");
  int exponent = 0;
  double mantissa = std::frexp(value, &exponent);
  int64_t m = static_cast<int64_t>(std::ldexp(mantissa, 53));
  exponent -= 53;
  while (m != 0 && m % 2 == 0 && exponent < 0) {
    m /= 2;
    ++exponent;
  }
  std::string num = std::to_string(m);
  if (exponent >= 0) {
    z3::expr r = ctx_.real_val(num.c_str());
    for (int k = 0; k < exponent; ++k) r = r * 2;
    return r.simplify();
  }
  std::string den = "1";
  // 2^-exponent as a decimal string.
  for (int k = 0; k < -exponent; ++k) {
    int carry = 0;
    for (auto it = den.rbegin(); it != den.rend(); ++it) {
      int d = (*it - '0') * 2 + carry;
      *it = static_cast<char>('0' + d % 10);
      carry = d / 10;
    }
    if (carry) den.insert(den.begin(), static_cast<char>('0' + carry));
  }
  return ctx_.real_val((num + "/" + den).c_str());
}

z3::expr Encoder::term(const TermRef& t) {
  switch (t->kind) {
    case TermKind::Number:
      if (!std::isfinite(t->number)) {
        // inf and nan have no real value: each distinct one is an unknown constant.
        std::string name = std::isnan(t->number) ? "nan_value" : t->number > 0 ? "pos_inf" : "neg_inf";
        return ctx_.real_const(name.c_str());
      }
      return real(t->number);
    case TermKind::SizeNum: return z3::to_real(size(t->size));
    case TermKind::Symbol: {
      auto it = symbols_.find(t->var);
      if (it == symbols_.end()) it = symbols_.emplace(t->var, ctx_.real_const(t->var.c_str())).first;
      return it->second;
    }
    case TermKind::Read: {
      auto it = tensors_.find(t->tensor);
      if (it == tensors_.end()) {
        z3::sort_vector domain(ctx_);
        for (size_t k = 0; k < t->index.size(); ++k) domain.push_back(ctx_.int_sort());
        std::string name = "t" + std::to_string(t->tensor);
        it = tensors_.emplace(t->tensor, ctx_.function(name.c_str(), domain, ctx_.real_sort())).first;
      }
      z3::expr_vector args(ctx_);
      for (const Index& i : t->index) args.push_back(index(i));
      return it->second(args);
    }
    case TermKind::Apply: return apply(t);
    case TermKind::Select: {
      z3::expr a = term(t->args[0]), b = term(t->args[1]);
      z3::expr cond = t->cmp == ir::Cmp::Lt   ? a < b
                      : t->cmp == ir::Cmp::Le ? a <= b
                      : t->cmp == ir::Cmp::Gt ? a > b
                      : t->cmp == ir::Cmp::Ge ? a >= b
                      : t->cmp == ir::Cmp::Eq ? a == b
                                              : a != b;
      return z3::ite(cond, term(t->args[2]), term(t->args[3]));
    }
    case TermKind::IndexIf: return z3::ite(index(t->index[0]) < size(t->size), term(t->args[0]), term(t->args[1]));
    case TermKind::Fold: return fold(t);
  }
  throw InternalError(__FILE__, __LINE__, "unknown term kind");
}

z3::expr Encoder::apply(const TermRef& t) {
  std::vector<z3::expr> a;
  for (const TermRef& arg : t->args) a.push_back(term(arg));
  static const ir::Op kPrimitive[] = {ir::Op::Exp, ir::Op::Log, ir::Op::Sqrt, ir::Op::Tanh, ir::Op::Recip, ir::Op::Div,
                                      ir::Op::Pow};
  for (ir::Op op : kPrimitive) uses_primitives = uses_primitives || t->op == op;
  switch (t->op) {
    case ir::Op::Neg: return -a[0];
    case ir::Op::Exp: return exp_fn(a[0]);
    case ir::Op::Log: return log_fn(a[0]);
    case ir::Op::Sqrt: return sqrt_fn(a[0]);
    case ir::Op::Tanh: return tanh_fn(a[0]);
    case ir::Op::Abs: return z3::ite(a[0] >= 0, a[0], -a[0]);
    case ir::Op::Recip: return recip_fn(a[0]);
    case ir::Op::Pow: {
      double e = t->number;
      if (e == std::floor(e) && std::fabs(e) <= 8) {
        z3::expr r = ctx_.real_val(1);
        for (int k = 0; k < static_cast<int>(std::fabs(e)); ++k) r = k == 0 ? a[0] : r * a[0];
        return e >= 0 ? r : recip_fn(r);
      }
      if (std::fabs(e) - std::floor(std::fabs(e)) == 0.5 && std::fabs(e) <= 8.5) {
        // x ^ (n + 1/2) = x^n * sqrt(x): both sides are undefined (NaN) for x < 0.
        z3::expr r = sqrt_fn(a[0]);
        for (int k = 0; k < static_cast<int>(std::floor(std::fabs(e))); ++k) r = r * a[0];
        return e > 0 ? r : recip_fn(r);
      }
      char exact[64];  // the exponent's exact value names the function: distinct exponents never share one
      std::snprintf(exact, sizeof exact, "%a", e);
      std::string name = std::string("pow_") + exact;
      for (char& c : name)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
      auto it = powers_.find(name);
      if (it == powers_.end()) it = powers_.emplace(name, ctx_.function(name.c_str(), ctx_.real_sort(), ctx_.real_sort())).first;
      return it->second(a[0]);
    }
    case ir::Op::Add: return a[0] + a[1];
    case ir::Op::Sub: return a[0] - a[1];
    case ir::Op::Mul: return a[0] * a[1];
    case ir::Op::Div: return a[0] * recip_fn(a[1]);
    case ir::Op::Max: return z3::ite(a[0] >= a[1], a[0], a[1]);
    case ir::Op::Min: return z3::ite(a[0] <= a[1], a[0], a[1]);
    case ir::Op::Input:
    case ir::Op::Const:
    case ir::Op::SizeValue:
    case ir::Op::Select:
    case ir::Op::ReduceSum:
    case ir::Op::ReduceMax:
    case ir::Op::ReduceMin:
    case ir::Op::Cumsum:
    case ir::Op::Contract:
    case ir::Op::Transpose:
    case ir::Op::Reshape:
    case ir::Op::Broadcast:
    case ir::Op::Slice:
    case ir::Op::Concat: break;
  }
  throw InternalError(__FILE__, __LINE__, std::string("not element-wise: ") + ir::op_name(t->op));
}

// A fold is an uninterpreted function of its free names; folds that are the
// same up to renaming of those names share it.
z3::expr Encoder::fold(const TermRef& t) {
  std::vector<std::string> names = ordered_free_names(t);
  sem::Substitution placeholders;
  for (size_t k = 0; k < names.size(); ++k) placeholders[names[k]] = Index::var("@" + std::to_string(k));
  std::string key = sem::canonical(sem::substitute(t, placeholders));
  auto it = folds_.find(key);
  if (it == folds_.end()) {
    z3::sort_vector domain(ctx_);
    for (size_t k = 0; k < names.size(); ++k) domain.push_back(ctx_.int_sort());
    std::string name = "fold" + std::to_string(folds_.size());
    it = folds_.emplace(key, ctx_.function(name.c_str(), domain, ctx_.real_sort())).first;
  }
  z3::expr_vector args(ctx_);
  for (const std::string& n : names) args.push_back(integer(n));
  return it->second(args);
}

}  // namespace axon::smt
