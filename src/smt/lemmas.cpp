#include "smt/lemmas.h"

#include <set>
#include <string>

#include "smt/sign.h"

namespace axon::smt {
namespace {

using sem::TermKind;
using sem::TermRef;

// Enough for real kernels; a bound keeps a pathological goal cheap.
constexpr size_t kMaxLemmas = 400;

void factors_of(const TermRef& t, std::vector<TermRef>& out) {
  if (t->kind == TermKind::Apply && t->op == ir::Op::Mul) {
    factors_of(t->args[0], out);
    factors_of(t->args[1], out);
  } else if (t->kind == TermKind::Apply && t->op == ir::Op::Div) {
    factors_of(t->args[0], out);
    out.push_back(sem::apply(ir::Op::Recip, {t->args[1]}));
  } else {
    out.push_back(t);
  }
}

class Collector {
 public:
  explicit Collector(Encoder& enc) : enc_(enc) {}

  void walk(const TermRef& t) {
    if (lemmas_.size() >= kMaxLemmas) return;
    if (t->kind == TermKind::Fold) {  // its body is hidden from the solver
      if (seen_.insert("fold " + sem::canonical(t)).second) sign_lemma(t);
      return;
    }
    for (const TermRef& a : t->args) walk(a);
    if (t->kind != TermKind::Apply) return;
    if (t->op == ir::Op::Exp && seen_.insert("exp " + sem::canonical(t)).second) lemmas_.push_back(enc_.term(t) > 0);
    if (t->op == ir::Op::Sqrt && sign_of(t->args[0]).nonnegative && seen_.insert("sqrt " + sem::canonical(t)).second) {
      z3::expr root = enc_.term(t);
      lemmas_.push_back(root >= 0 && root * root == enc_.term(t->args[0]));
    }
    if (t->op == ir::Op::Recip) divisor(t->args[0]);
    if (t->op == ir::Op::Div) divisor(t->args[1]);
  }

  std::vector<z3::expr> take() { return std::move(lemmas_); }

 private:
  void sign_lemma(const TermRef& t) {
    Sign s = sign_of(t);
    z3::expr e = enc_.term(t);
    if (s.positive)
      lemmas_.push_back(e > 0);
    else if (s.nonnegative)
      lemmas_.push_back(e >= 0);
    if (s.negative)
      lemmas_.push_back(e < 0);
    else if (s.nonpositive)
      lemmas_.push_back(e <= 0);
  }

  void divisor(const TermRef& d) {
    if (lemmas_.size() >= kMaxLemmas || !seen_.insert("recip " + sem::canonical(d)).second) return;
    if (!sign_of(d).nonzero()) return;
    z3::expr value = enc_.term(d), inverse = enc_.recip_fn(value);
    lemmas_.push_back(value * inverse == 1);
    sign_lemma(d);
    std::vector<TermRef> factors;
    factors_of(d, factors);
    if (factors.size() < 2) return;
    z3::expr split = enc_.ctx().real_val(1);
    for (size_t k = 0; k < factors.size(); ++k) {
      if (!sign_of(factors[k]).nonzero()) return;
      z3::expr r = enc_.recip_fn(enc_.term(factors[k]));
      split = k == 0 ? r : split * r;
    }
    lemmas_.push_back(inverse == split);
    for (const TermRef& f : factors) divisor(f);
  }

  Encoder& enc_;
  std::set<std::string> seen_;
  std::vector<z3::expr> lemmas_;
};

}  // namespace

std::vector<z3::expr> ground_lemmas(const std::vector<TermRef>& terms, Encoder& enc) {
  Collector collector(enc);
  for (const TermRef& t : terms) collector.walk(t);
  return collector.take();
}

}  // namespace axon::smt
