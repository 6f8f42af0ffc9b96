#include "smt/expand.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "smt/sign.h"

namespace axon::smt {
namespace {

using sem::Index;
using sem::TermKind;
using sem::TermRef;

// Multiplying out stops past this many monomials (the product stays a factor).
constexpr size_t kMaxMonomials = 32;
constexpr int64_t kMaxUnroll = 4;

struct Monomial {
  double coefficient = 1.0;
  std::vector<TermRef> factors;
};
using Poly = std::vector<Monomial>;

// Coefficients are doubles standing for exact reals: two are combined only
// when the double result is exact (else the normal form would differ from the
// term by a rounding error, and a false identity could be proved).
std::optional<double> exact_sum(double a, double b) {
  double s = a + b, bb = s - a;
  if ((a - (s - bb)) + (b - bb) != 0 || !std::isfinite(s)) return std::nullopt;
  return s;
}

std::optional<double> exact_product(double a, double b) {
  double p = a * b;
  if (std::fma(a, b, -p) != 0 || !std::isfinite(p)) return std::nullopt;
  return p;
}

bool uses(const TermRef& t, const std::string& var) {
  return sem::free_names(t).count(var) > 0;
}

ir::Op combining_op(ir::Op fold_op) {
  return fold_op == ir::Op::ReduceSum ? ir::Op::Add : fold_op == ir::Op::ReduceMax ? ir::Op::Max : ir::Op::Min;
}

bool is_arithmetic(const TermRef& t) {
  if (t->kind == TermKind::Number) return true;
  if (t->kind != TermKind::Apply) return false;
  ir::Op op = t->op;
  if (op == ir::Op::Pow) return t->number == std::floor(t->number) && t->number >= 1 && t->number <= kMaxUnroll;
  return op == ir::Op::Add || op == ir::Op::Sub || op == ir::Op::Neg || op == ir::Op::Mul || op == ir::Op::Div;
}

class Expander {
 public:
  TermRef term(const TermRef& t) {
    auto it = memo_.find(t.get());
    if (it != memo_.end()) return it->second.second;
    TermRef result = compute(t);
    memo_.emplace(t.get(), std::make_pair(t, result));
    memo_.emplace(result.get(), std::make_pair(result, result));  // a normal form is its own
    return result;
  }

 private:
  TermRef compute(const TermRef& t) {
    if (is_arithmetic(t)) return build(poly(t));
    if (t->args.empty()) return t;
    auto copy = std::make_shared<sem::Term>(*t);
    for (TermRef& a : copy->args) a = term(a);
    if (t->kind == TermKind::Fold) return fold(copy);
    if (t->kind == TermKind::Apply && t->op == ir::Op::Exp) return exp(copy->args[0], copy);
    return copy;
  }

  // exp of a sum as the product of exps; a negative term's exp as a reciprocal.
  TermRef exp(const TermRef& arg, const TermRef& unchanged) {
    Poly p = poly(arg);
    if (p.empty()) return sem::number(1.0);
    if (p.size() == 1 && p[0].coefficient > 0) return unchanged;
    Monomial result;
    for (Monomial m : p) {
      bool negative = m.coefficient < 0;
      m.coefficient = std::fabs(m.coefficient);
      TermRef e = sem::apply(ir::Op::Exp, {build({m})});
      result.factors.push_back(negative ? sem::apply(ir::Op::Recip, {e}) : e);
    }
    return build({result});
  }

  Poly poly(const TermRef& t) {
    if (t->kind == TermKind::Number) return t->number == 0 ? Poly{} : Poly{{t->number, {}}};
    if (!is_arithmetic(t)) return {{1.0, {term(t)}}};
    ir::Op op = t->op;
    if (op == ir::Op::Add || op == ir::Op::Sub) {
      Poly a = poly(t->args[0]), b = poly(t->args[1]);
      if (op == ir::Op::Sub) b = scaled(b, -1.0);
      a.insert(a.end(), b.begin(), b.end());
      return a;
    }
    if (op == ir::Op::Neg) return scaled(poly(t->args[0]), -1.0);
    if (op == ir::Op::Mul) return product(poly(t->args[0]), poly(t->args[1]));
    if (op == ir::Op::Div)
      return product(poly(t->args[0]), {{1.0, {sem::apply(ir::Op::Recip, {divisor(t->args[1])})}}});
    Poly base = poly(t->args[0]), result = base;  // an integer power
    for (int k = 1; k < static_cast<int>(t->number); ++k) result = product(result, base);
    return result;
  }

  // A divisor keeps its factors apart (multiplied out, the reciprocal of a
  // product could no longer be split into the factors' reciprocals).
  TermRef divisor(const TermRef& t) {
    std::vector<TermRef> pending = {t}, factors;
    double coefficient = 1.0;
    while (!pending.empty()) {
      TermRef f = pending.back();
      pending.pop_back();
      if (f->kind == TermKind::Apply && f->op == ir::Op::Mul) {
        pending.push_back(f->args[0]);
        pending.push_back(f->args[1]);
        continue;
      }
      TermRef n = term(f);
      Poly p = poly(n);
      if (p.size() == 1) {
        if (auto c = exact_product(coefficient, p[0].coefficient))
          coefficient = *c;
        else
          factors.push_back(sem::number(p[0].coefficient));
        factors.insert(factors.end(), p[0].factors.begin(), p[0].factors.end());
      } else {
        factors.push_back(n);
      }
    }
    std::sort(factors.begin(), factors.end(),
              [](const TermRef& x, const TermRef& y) { return sem::canonical(x) < sem::canonical(y); });
    TermRef result = coefficient == 1.0 && !factors.empty() ? nullptr : sem::number(coefficient);
    for (const TermRef& f : factors) result = result ? sem::apply(ir::Op::Mul, {result, f}) : f;
    return result;
  }

  // f * recip(f) = 1 where f != 0 is evident: both leave the monomial.
  static void cancel(std::vector<std::pair<std::string, TermRef>>& keyed) {
    for (size_t k = 0; k < keyed.size(); ++k) {
      const TermRef& r = keyed[k].second;
      if (r->kind != TermKind::Apply || r->op != ir::Op::Recip || !sign_of(r->args[0]).nonzero()) continue;
      std::string inner = sem::canonical(r->args[0]);
      for (size_t j = 0; j < keyed.size(); ++j) {
        if (j == k || keyed[j].first != inner) continue;
        keyed.erase(keyed.begin() + static_cast<std::ptrdiff_t>(std::max(j, k)));
        keyed.erase(keyed.begin() + static_cast<std::ptrdiff_t>(std::min(j, k)));
        k = static_cast<size_t>(-1);  // start over
        break;
      }
    }
  }

  static Poly scaled(Poly p, double c) {
    for (Monomial& m : p) m.coefficient *= c;
    return p;
  }

  Poly product(const Poly& a, const Poly& b) {
    if (a.empty() || b.empty()) return {};
    if (a.size() * b.size() > kMaxMonomials) return {{1.0, {build(a), build(b)}}};
    Poly result;
    for (const Monomial& x : a)
      for (const Monomial& y : b) {
        Monomial m{x.coefficient, x.factors};
        if (auto c = exact_product(x.coefficient, y.coefficient))
          m.coefficient = *c;
        else
          m.factors.push_back(sem::number(y.coefficient));
        m.factors.insert(m.factors.end(), y.factors.begin(), y.factors.end());
        result.push_back(std::move(m));
      }
    return result;
  }

  // Like monomials merged, factors and monomials in a canonical order.
  TermRef build(const Poly& p) {
    std::map<std::vector<std::string>, std::vector<std::pair<double, std::vector<TermRef>>>> merged;
    for (const Monomial& m : p) {
      std::vector<std::pair<std::string, TermRef>> keyed;
      for (const TermRef& f : m.factors) keyed.push_back({sem::canonical(f), f});
      cancel(keyed);
      std::sort(keyed.begin(), keyed.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
      std::vector<std::string> key;
      std::vector<TermRef> factors;
      for (auto& [k, f] : keyed) {
        key.push_back(k);
        factors.push_back(f);
      }
      auto& entries = merged[key];
      bool added = false;
      for (auto& entry : entries)
        if (auto c = exact_sum(entry.first, m.coefficient)) {
          entry.first = *c;
          added = true;
          break;
        }
      if (!added) entries.push_back({m.coefficient, factors});
    }
    TermRef sum;
    for (const auto& [key, entries] : merged)
      for (const auto& [coefficient, factors] : entries) {
        if (coefficient == 0) continue;
        TermRef product;
        for (const TermRef& f : factors) product = product ? sem::apply(ir::Op::Mul, {product, f}) : f;
        if (!product)
          product = sem::number(coefficient);
        else if (coefficient != 1.0)
          product = sem::apply(ir::Op::Mul, {sem::number(coefficient), product});
        sum = sum ? sem::apply(ir::Op::Add, {sum, product}) : product;
      }
    return sum ? sum : sem::number(0.0);
  }

  // A fold whose body is in normal form.
  TermRef fold(const TermRef& f) {
    const std::string& var = f->var;
    const TermRef& body = f->args[0];
    ir::Op op = f->op;
    if (auto c = f->size.constant(); c && *c >= 0 && *c <= kMaxUnroll) {
      if (*c == 0) return op == ir::Op::ReduceSum ? sem::number(0.0) : f;
      TermRef all;
      for (int64_t k = 0; k < *c; ++k) {
        TermRef at = sem::substitute(body, {{var, Index(k)}});
        all = all ? sem::apply(combining_op(op), {all, at}) : at;
      }
      return term(all);
    }
    if (body->kind == TermKind::IndexIf)
      if (auto parts = split(f)) return term(*parts);
    bool nonempty = evidently_positive(f->size);
    if (op != ir::Op::ReduceSum) {
      if (!nonempty) return f;
      if (!uses(body, var)) return body;
      Poly outside, inside;
      for (const Monomial& m : poly(body)) (depends(m, var) ? inside : outside).push_back(m);
      if (outside.empty() || inside.empty()) return f;
      outside.push_back({1.0, {sem::fold(op, var, f->size, build(inside))}});
      return build(outside);
    }
    Poly p = poly(body);
    if (p.size() == 1 && p[0].coefficient == 1.0) {
      bool all_dependent = true;
      for (const TermRef& x : p[0].factors) all_dependent = all_dependent && uses(x, var);
      if (all_dependent) return f;  // no law applies
    }
    // L * c is the sum only for L >= 0 (a fold over a negative length is
    // empty): without evidence the fold stays as it is.
    if (!evidently_nonnegative(f->size))
      for (const Monomial& m : p)
        if (!depends(m, var)) return f;
    Poly result;
    for (const Monomial& m : p) {
      Monomial out{m.coefficient, {}};
      std::vector<TermRef> dependent;
      for (const TermRef& x : m.factors) (uses(x, var) ? dependent : out.factors).push_back(x);
      if (dependent.empty()) {
        out.factors.push_back(sem::size_number(f->size));
      } else {
        TermRef inner = build({{1.0, dependent}});
        out.factors.push_back(fold(sem::fold(op, var, f->size, inner)));
      }
      result.push_back(std::move(out));
    }
    return build(result);
  }

  static bool depends(const Monomial& m, const std::string& var) {
    for (const TermRef& x : m.factors)
      if (uses(x, var)) return true;
    return false;
  }

  // A fold over "i + r < B ? T : E" as a fold over [0, S) of T and one over
  // [0, L - S) of E shifted by S, S = B - r; nullopt unless the split point
  // evidently lies in range.
  std::optional<TermRef> split(const TermRef& f) {
    const TermRef& body = f->args[0];
    const Index& at = body->index[0];
    if (!at.is_poly()) return std::nullopt;
    ir::Size rest = at.poly - ir::Size::name(f->var);
    for (const std::string& n : rest.names())
      if (n == f->var) return std::nullopt;  // i's coefficient is not 1
    ir::Size first = body->size - rest, second = f->size - first;
    bool sum = f->op == ir::Op::ReduceSum;
    if (sum ? !(evidently_nonnegative(first) && evidently_nonnegative(second))
            : !(evidently_positive(first) && evidently_positive(second)))
      return std::nullopt;
    TermRef head = sem::fold(f->op, f->var, first, body->args[0]);
    TermRef shifted = sem::substitute(body->args[1], {{f->var, Index::var(f->var) + Index(first)}});
    TermRef tail = sem::fold(f->op, f->var, second, shifted);
    return sem::apply(combining_op(f->op), {head, tail});
  }

  std::map<const sem::Term*, std::pair<TermRef, TermRef>> memo_;
};

}  // namespace

TermRef expanded_normal_form(const TermRef& term) {
  return Expander().term(term);
}

}  // namespace axon::smt
