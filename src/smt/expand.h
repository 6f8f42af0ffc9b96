// Expanded normal form: the prover's third try, after the goal as written and
// its sum normal form (normalize.h). Products are flattened and expanded,
// and folds are taken apart by laws of finite folds, so that a fold the two
// sides share becomes one uninterpreted term and the rest is ring arithmetic.
//
// Every law is an identity over the reals for all sizes, and for every
// reciprocal that agrees with 1/x away from 0 (the encoding leaves recip(0)
// unconstrained, so no law may depend on its value):
//   products:   a / b = a * recip(b); x ** k = x * ... * x (integer 2 <= k <= 4);
//               products are flattened, factors sorted, and multiplied out
//               over sums (while the expansion stays small)
//   exp:        exp(a + b) = exp(a) * exp(b); exp(-a) = recip(exp(a))
//               (exp(a) > 0, so its recip is the true reciprocal)
//   linearity:  sum_i (f + g) = sum_i f + sum_i g; sum_i c * f = c * sum_i f
//               when c does not use i
//   constants:  sum_{i<L} c = L * c when L >= 0; max_{i<L} c = min_{i<L} c = c
//               when L >= 1 (both evident from the sizes)
//   shifts:     max_i (f + c) = max_i f + c and min likewise, when L >= 1
//   unrolling:  a fold of constant length 1 to 4 is its terms combined
//   splitting:  fold_{i<L} (i + r < B ? T(i) : E(i)) =
//                 fold_{i<S} T(i) (+) fold_{i<L-S} E(i + S), S = B - r,
//               when 0 <= S <= L is evident from the sizes (1 <= S <= L - 1 for
//               max and min, which have no value over nothing)
#pragma once

#include "sem/term.h"

namespace axon::smt {

sem::TermRef expanded_normal_form(const sem::TermRef& term);

}  // namespace axon::smt
