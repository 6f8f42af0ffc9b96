// The prover: decides whether two tensor programs are equal for all sizes
// and all inputs.
//
// 1. Refute: both sides run in the reference interpreter at several small
//    sizes on random inputs; a difference is a counterexample (concrete sizes
//    and inputs, already replayed).
// 2. Prove: both sides become Terms at fresh symbolic output indices; Z3
//    checks the equality with folds abstracted as uninterpreted functions,
//    and otherwise by induction on the length of the outermost folds, all
//    folds of one length advancing in lockstep (base case, then the step from
//    the hypothesis at n to n + 1), nested up to a depth.
// 3. Otherwise the answer is unknown, which callers treat as "not equal".
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "eval/tensor.h"
#include "ir/program.h"

namespace axon::smt {

enum class Verdict { Proved, Refuted, Unknown };
const char* verdict_name(Verdict verdict);  // "proved", "refuted", "unknown"

struct Counterexample {
  ir::Dims dims;
  std::vector<eval::Tensor> inputs;  // by Input index
  std::vector<int64_t> index;        // where the results differ most
  double lhs = 0, rhs = 0;           // the two results there (NaN when the shapes differ)

  /// |lhs - rhs| / max(|lhs|, |rhs|): near 1e-7 a rounding difference, near 1
  /// or above a real one (2 when the signs differ). NaN when either is
  /// non-finite or the shapes differ; 0 when both are 0.
  double relative_difference() const;
};

struct ProofResult {
  Verdict verdict = Verdict::Unknown;
  std::string method;  // how it was decided
  std::string detail;  // for unknown: what was not decided
  std::optional<Counterexample> counterexample;
  /// Each obligation of the proof as a complete SMT-LIB2 script that z3
  /// alone checks: every one must answer "unsat".
  std::vector<std::string> smtlib;
  bool cached = false;
  double seconds = 0;
};

/// The largest program the prover reasons about: each side, unfolded into a
/// tree (a value used twice counted twice), may have at most this many ops.
/// Index expressions, Z3's terms and the (recursive) walks over them grow with
/// that tree, exponentially in the length of a chain of values each used twice;
/// beyond the limit the verdict is unknown (a refutation is still tried).
/// Real kernels unfold to a few hundred ops at most.
constexpr int64_t kMaxProofOps = 1000;

struct ProverOptions {
  unsigned rlimit = 2'000'000;     // Z3's deterministic resource limit per quantifier-free check
  unsigned facts_rlimit = 50'000;   // ... per check that also uses the facts (quantified, so costlier)
  // A wall-clock backstop per check, in milliseconds: Z3 does not charge every
  // step to the rlimit (nonlinear arithmetic over a program of square roots
  // and sums was seen to run for minutes past it). A check stopped by it is
  // unknown, like one stopped by the rlimit; 0 means none.
  unsigned timeout_ms = 20'000;
  // Goals whose larger side unfolds to at least this many ops are checked in
  // a forked child, killed at timeout_ms (a fork costs milliseconds, so the
  // small local rewrites of the algebra, thousands per search, stay in process).
  int64_t isolate_ops = 12;
  // Seconds one obligation may take in all, its inductions included; once
  // spent, the rest of its checks answer unknown at once. 0: no limit.
  double budget_s = 0;
  int max_depth = 3;            // nested inductions
  uint64_t seed = 1;            // random inputs for refutation
};

struct ProverStats {
  int obligations = 0, proved = 0, refuted = 0, unknown = 0, cache_hits = 0;
  std::vector<double> seconds;         // per obligation decided (not cache hits)
  std::vector<double> proof_seconds;   // ... of those proved
};

class Prover {
 public:
  explicit Prover(ProverOptions options = {}) : options_(options) {}

  /// Are `lhs` and `rhs` equal? Their Input nodes are shared leaves: equal
  /// indices must carry equal types. Verdicts are cached by a canonical key.
  ProofResult prove_equal(ir::NodeRef lhs, ir::NodeRef rhs);

  const ProverStats& stats() const { return stats_; }

 private:
  ProofResult decide(ir::NodeRef lhs, ir::NodeRef rhs);

  ProverOptions options_;
  ProverStats stats_;
  std::map<std::string, ProofResult> cache_;
};

/// A canonical text of the obligation lhs == rhs (symmetric): the cache key.
std::string obligation_key(ir::NodeRef lhs, ir::NodeRef rhs);

}  // namespace axon::smt
