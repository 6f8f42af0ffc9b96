// Sum normal form: two laws of finite sums, applied before induction so that
// differently nested sums line up. Both are equivalences over the reals:
//   linearity: (sum_i f(i)) * g = sum_i f(i) * g   when g does not use i
//              (also g * sum, and sum / g)
//   exchange:  sum_i sum_j f(i, j) = sum_j sum_i f(i, j)  when neither range
//              depends on the other's variable; nested sums are put in a
//              canonical order (by the text of their lengths).
// The prover trusts these two laws; everything after them is checked by Z3.
#pragma once

#include "sem/term.h"

namespace axon::smt {

sem::TermRef sum_normal_form(const sem::TermRef& term);

}  // namespace axon::smt
