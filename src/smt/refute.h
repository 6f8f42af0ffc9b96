// Refutation by execution: both sides of an obligation run in the reference
// interpreter at small sizes on random inputs.
#pragma once

#include <optional>

#include "smt/prover.h"

namespace axon::smt {

/// The leaves (Input nodes) of two DAGs by index; an InternalError when an
/// index carries two types.
std::map<int64_t, ir::NodeRef> shared_inputs(ir::NodeRef lhs, ir::NodeRef rhs);

/// A concrete difference between lhs and rhs, if one shows at small sizes (1 to 9, and each size alone up to 70).
/// Results agree when every element is within 1e-7 relative (plus 1e-9
/// absolute) or both are the same non-finite value.
std::optional<Counterexample> find_difference(ir::NodeRef lhs, ir::NodeRef rhs, uint64_t seed);

/// Evaluates `root` on a counterexample's sizes and inputs.
eval::Tensor evaluate_at(ir::NodeRef root, const Counterexample& cex);

}  // namespace axon::smt
