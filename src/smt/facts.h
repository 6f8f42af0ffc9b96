// The declared facts about primitive functions: the only knowledge the
// prover has of exp, log, sqrt, tanh and the reciprocal beyond their being
// functions. Each is a universally quantified axiom; each is tested
// numerically (tests/smt/facts_test.cpp) so that no false fact slips in.
// Their ground instances at the terms of a goal, chosen by the sign analysis,
// are lemmas.h; the identities of exp that the expanded normal form uses
// (expand.h) follow from exp_add, exp_zero, exp_positive and recip_inverse.
#pragma once

#include <z3++.h>

#include <functional>
#include <string>
#include <vector>

#include "smt/encode.h"

namespace axon::smt {

struct Fact {
  std::string name;
  std::string statement;  // for people, e.g. "exp(a + b) = exp(a) * exp(b)"
  std::function<z3::expr(z3::context&, Encoder&)> axiom;
  /// The fact on doubles at (a, b): true when the precondition fails or the
  /// claim holds to rounding.
  std::function<bool(double a, double b)> holds;
};

const std::vector<Fact>& primitive_facts();

}  // namespace axon::smt
