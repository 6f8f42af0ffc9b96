// Sign analysis of Terms: what is evident about a value's sign from its form
// alone (exp is positive, x * x is nonnegative, a sum of positive terms over
// a nonempty range is positive, ...). Sound for the real meaning of every op
// and for every value of recip(0): a flag is set only when it holds for all
// inputs, so the prover may assume it (lemmas.h) and divide by what is nonzero.
#pragma once

#include "ir/size.h"
#include "sem/term.h"

namespace axon::smt {

struct Sign {
  bool positive = false;     // > 0
  bool negative = false;     // < 0
  bool nonnegative = false;  // >= 0
  bool nonpositive = false;  // <= 0
  bool nonzero() const { return positive || negative; }
};

Sign sign_of(const sem::TermRef& term);

/// For every value >= 1 of the sizes it names (index variables excluded:
/// a size naming one is never evident).
bool evidently_nonnegative(const ir::Size& size);
bool evidently_positive(const ir::Size& size);

}  // namespace axon::smt
