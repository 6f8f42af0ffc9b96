#include "smt/normalize.h"

namespace axon::smt {
namespace {

using sem::TermKind;
using sem::TermRef;

bool is_sum(const TermRef& t) { return t->kind == TermKind::Fold && t->op == ir::Op::ReduceSum; }
bool uses(const TermRef& t, const std::string& var) { return sem::free_names(t).count(var) > 0; }

TermRef rebuild(const TermRef& t, std::vector<TermRef> args) {
  auto copy = std::make_shared<sem::Term>(*t);
  copy->args = std::move(args);
  return copy;
}

TermRef normalize(const TermRef& t, int budget);

// sum_i f * g, with g pulled inside.
TermRef pull_in(const TermRef& sum, const TermRef& other, bool other_on_left, ir::Op op, int budget) {
  TermRef body = other_on_left ? sem::apply(op, {other, sum->args[0]}) : sem::apply(op, {sum->args[0], other});
  return normalize(sem::fold(ir::Op::ReduceSum, sum->var, sum->size, body), budget - 1);
}

TermRef normalize(const TermRef& t, int budget) {
  if (budget <= 0 || t->args.empty()) return t;
  std::vector<TermRef> args;
  for (const TermRef& a : t->args) args.push_back(normalize(a, budget - 1));
  TermRef n = rebuild(t, args);
  if (n->kind == TermKind::Apply && (n->op == ir::Op::Mul || n->op == ir::Op::Div)) {
    const TermRef &x = n->args[0], &y = n->args[1];
    if (is_sum(x) && !uses(y, x->var)) return pull_in(x, y, false, n->op, budget);
    if (n->op == ir::Op::Mul && is_sum(y) && !uses(x, y->var)) return pull_in(y, x, true, n->op, budget);
  }
  if (is_sum(n) && is_sum(n->args[0])) {
    const TermRef& inner = n->args[0];
    bool independent = !sem::free_names(sem::size_number(inner->size)).count(n->var) &&
                       !sem::free_names(sem::size_number(n->size)).count(inner->var);
    if (independent && inner->size.str() < n->size.str()) {
      TermRef swapped_inner = sem::fold(ir::Op::ReduceSum, n->var, n->size, inner->args[0]);
      return normalize(sem::fold(ir::Op::ReduceSum, inner->var, inner->size, swapped_inner), budget - 1);
    }
  }
  return n;
}

}  // namespace

TermRef sum_normal_form(const TermRef& term) { return normalize(term, 200); }

}  // namespace axon::smt
