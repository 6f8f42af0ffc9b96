// Equivalence of two programs for all sizes and inputs: what `axon verify`
// and the Python package's axon.verify() call.
//
// Both programs are loaded, their kernels' signatures matched (parameters by
// position with equal annotations, the same number of results; a mismatch is
// a UserError at the second program), and every result pair handed to the
// prover (smt/prover.h). The overall verdict is refuted when any pair is
// refuted, else unknown when any is unknown, else proved.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ir/program.h"
#include "smt/prover.h"

namespace axon::search {

struct VerifyRequest {
  std::string file_a, file_b;
  std::optional<std::string> text_a, text_b;    // the programs' text when not the whole files (search/api.h)
  std::optional<std::string> entry_a, entry_b;  // default: each file's last def
  SourceLoc entry_a_loc, entry_b_loc;           // where the entries were named, for errors
  smt::ProverOptions prover;
};

struct VerifyResult {
  smt::Verdict verdict = smt::Verdict::Unknown;
  ir::Program a, b;
  /// One per result of the kernels, in order (the counterexample, when a pair
  /// is refuted, is in its ProofResult).
  std::vector<smt::ProofResult> results;

  /// The first refuted pair's counterexample, if any.
  const smt::Counterexample* counterexample() const;
  /// Which result it is about (an index into `results`); -1 when none.
  int counterexample_result() const;
  /// For unknown: what was not proved, each undecided pair's detail prefixed
  /// with "result I: " when there are several results; empty otherwise.
  std::string unproved() const;
  /// Every obligation of every pair as a complete SMT-LIB2 script, in order.
  std::vector<std::string> proof_scripts() const;
};

/// Loads both programs and decides whether they are equal. Bad programs and
/// mismatched signatures are UserErrors; "not equal" is a verdict, not an error.
VerifyResult verify(const VerifyRequest& request);

}  // namespace axon::search
