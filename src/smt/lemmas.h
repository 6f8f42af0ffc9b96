// Ground lemmas: instances of the declared facts (facts.h) at the terms of
// one goal, chosen by the sign analysis (sign.h), so that the check that uses
// them stays quantifier-free. For each term t of the goal (outside fold
// bodies, which the encoding hides) and each reciprocal it creates:
//   exp(a) > 0                                       (exp_positive)
//   d * recip(d) = 1, when d is evidently nonzero     (recip_inverse)
//   recip(a1 * ... * ak) = recip(a1) * ... * recip(ak), when every ai is
//                                                     (recip_product)
//   t > 0 (or >= 0, < 0, <= 0) when t divides and its sign is evident
//   sqrt(a) >= 0 and sqrt(a) * sqrt(a) = a, when a >= 0 is evident (sqrt_square)
// The reciprocal of 0 stays unconstrained: a lemma about recip(d) is added
// only where d != 0 is evident, so x / x is still not 1.
#pragma once

#include <z3++.h>

#include <vector>

#include "sem/term.h"
#include "smt/encode.h"

namespace axon::smt {

std::vector<z3::expr> ground_lemmas(const std::vector<sem::TermRef>& terms, Encoder& enc);

}  // namespace axon::smt
