// Operator propagation: the only source of algebraic variants (DESIGN.md §3).
//
// For every producer -> consumer edge of the nu-graph it proposes, from the
// index dependence of the two ops' semantics, every type-correct way to move
// an element-wise consumer across its producer (onto one input, or onto all
// of them) and an element-wise producer across its consumer (onto the
// consumer's result, or onto a sibling input); side operands are re-indexed
// (axes matched by their index variables, then transposed and reshaped).
// It also factors a common operand out of a sum, and lets two contractions
// of one input share it (operands concatenated, results sliced). There is no
// table of rewrites: each proposal is only an equation, and the prover
// decides. Proven proposals are merged; refuted and unknown ones are counted
// and dropped.
#pragma once

#include <string>
#include <vector>

#include "nugraph/nugraph.h"
#include "smt/prover.h"

namespace axon::algebra {

struct PropagationOptions {
  size_t max_iterations = 4;
  size_t max_proposals = 4000;
};

struct PropagationStats {
  size_t iterations = 0;
  size_t proposals = 0, proved = 0, refuted = 0, unknown = 0, merged = 0, ill_typed = 0;
  nugraph::StopReason stop = nugraph::StopReason::Saturated;
  double seconds = 0;
};

/// One proven equation that was merged, for reports.
struct UsedProof {
  std::string before, after;  // the local terms, NumPy-like
  std::string method;
};

/// Runs propagation on `graph` until saturation or a limit.
PropagationStats propagate(nugraph::NuGraph& graph, smt::Prover& prover, const PropagationOptions& options,
                           std::vector<UsedProof>* used = nullptr);

}  // namespace axon::algebra
