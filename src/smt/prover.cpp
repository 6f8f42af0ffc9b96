#include "smt/prover.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <sstream>
#include <unordered_map>

#include "sem/semantics.h"
#include "smt/encode.h"
#include "smt/expand.h"
#include "smt/facts.h"
#include "smt/lemmas.h"
#include "smt/normalize.h"
#include "smt/refute.h"
#include "support/process.h"

namespace axon::smt {
namespace {

using sem::Index;
using sem::TermKind;
using sem::TermRef;

// lo <= var < hi, for index and induction variables.
struct Range {
  std::string var;
  ir::Size lo, hi;
};

// lhs == rhs under the hypotheses and ranges.
struct Goal {
  TermRef lhs, rhs;
  std::vector<std::pair<TermRef, TermRef>> hypotheses;
  std::vector<Range> ranges;
  std::vector<ir::Size> nonnegative;  // every dim of the programs
};

struct FoldRef {
  TermRef term;
  std::string key;
};

// Folds not inside other folds, each distinct one once, in order of appearance.
void top_folds(const TermRef& t, std::vector<FoldRef>& out, std::set<std::string>& seen) {
  if (t->kind == TermKind::Fold) {
    std::string key = sem::canonical(t);
    if (seen.insert(key).second) out.push_back({t, key});
    return;
  }
  for (const TermRef& a : t->args) top_folds(a, out, seen);
}

// Keys of folds that occur inside the body of another fold.
void nested_fold_keys(const TermRef& t, bool inside, std::set<std::string>& out) {
  if (t->kind == TermKind::Fold) {
    if (inside) out.insert(sem::canonical(t));
    nested_fold_keys(t->args[0], true, out);
    return;
  }
  for (const TermRef& a : t->args) nested_fold_keys(a, inside, out);
}

// Replaces top-level folds by key; fold bodies are left alone.
TermRef replace_folds(const TermRef& t, const std::map<std::string, TermRef>& by_key) {
  if (t->kind == TermKind::Fold) {
    auto it = by_key.find(sem::canonical(t));
    return it == by_key.end() ? t : it->second;
  }
  if (t->args.empty()) return t;
  auto copy = std::make_shared<sem::Term>(*t);
  for (TermRef& a : copy->args) a = replace_folds(a, by_key);
  return copy;
}

TermRef body_at(const TermRef& fold, const Index& at) {
  return sem::substitute(fold->args[0], {{fold->var, at}});
}

TermRef combine(ir::Op op, const TermRef& acc, const TermRef& x) {
  ir::Op elementwise = op == ir::Op::ReduceSum ? ir::Op::Add : op == ir::Op::ReduceMax ? ir::Op::Max : ir::Op::Min;
  return sem::apply(elementwise, {acc, x});
}

class Induction {
 public:
  Induction(const ProverOptions& options, std::vector<std::string>& smtlib, bool isolate)
      : options_(options), smtlib_(smtlib), isolate_(isolate), start_(std::chrono::steady_clock::now()) {}

  // Whether checks may also assume the ground lemmas (lemmas.h).
  void use_lemmas(bool on) { lemmas_ = on; }

  // Where the proofs at the top level failed, in words, most recent last.
  const std::vector<std::string>& failures() const { return failures_; }

  // True once the obligation's budget is spent (its checks then answer unknown).
  bool out_of_time() const {
    return options_.budget_s > 0 &&
           std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count() > options_.budget_s;
  }

  // The method that proved the goal, or nullopt.
  // `checked`: the direct check of this goal already failed.
  std::optional<std::string> prove(const Goal& goal, int depth, bool checked = false) {
    if (!checked && check(goal)) return std::string("direct");
    if (depth >= options_.max_depth) return std::nullopt;
    std::vector<FoldRef> folds;
    std::set<std::string> seen;
    top_folds(goal.lhs, folds, seen);
    top_folds(goal.rhs, folds, seen);
    std::set<std::string> nested;
    nested_fold_keys(goal.lhs, false, nested);
    nested_fold_keys(goal.rhs, false, nested);
    auto groups = candidate_groups(folds, nested);
    if (depth == 0 && groups.empty()) failures_.push_back("a direct check (no fold to induct on)");
    for (const auto& group : groups) {
      size_t mark = smtlib_.size();
      if (auto how = induct(goal, group, depth)) return how;
      smtlib_.resize(mark);  // a failed attempt proves nothing
    }
    return std::nullopt;
  }

 private:
  // Groups of folds of one length to advance together: all of them, all but
  // those also used inside other folds, and each pair.
  std::vector<std::vector<FoldRef>> candidate_groups(const std::vector<FoldRef>& folds,
                                                     const std::set<std::string>& nested) {
    std::map<std::string, std::vector<FoldRef>> by_length;
    for (const FoldRef& f : folds) by_length[f.term->size.str()].push_back(f);
    std::vector<std::vector<FoldRef>> groups;
    std::set<std::vector<std::string>> tried;
    auto add = [&](std::vector<FoldRef> g) {
      if (g.empty()) return;
      std::vector<std::string> keys;
      for (const FoldRef& f : g) keys.push_back(f.key);
      if (tried.insert(keys).second) groups.push_back(std::move(g));
    };
    for (const auto& [_, same] : by_length) {
      std::vector<FoldRef> outer;
      for (const FoldRef& f : same)
        if (!nested.count(f.key)) outer.push_back(f);
      add(outer);
      add(same);
      for (size_t i = 0; i < same.size(); ++i)
        for (size_t j = i + 1; j < same.size(); ++j) add({same[i], same[j]});
      for (const FoldRef& f : same) add({f});
    }
    if (groups.size() > 12) groups.resize(12);
    return groups;
  }

  std::optional<std::string> induct(const Goal& goal, const std::vector<FoldRef>& group, int depth) {
    const ir::Size length = group[0].term->size;
    bool from_one = false;
    for (const FoldRef& f : group) from_one = from_one || f.term->op != ir::Op::ReduceSum;
    std::string n = "$n" + std::to_string(depth) + "_" + std::to_string(counter_++);

    // Base: every fold at its first value.
    std::map<std::string, TermRef> initial;
    for (const FoldRef& f : group) initial[f.key] = from_one ? body_at(f.term, Index(0)) : sem::number(0.0);
    Goal base = goal;
    base.lhs = replace_folds(goal.lhs, initial);
    base.rhs = replace_folds(goal.rhs, initial);
    std::string what = "induction on the length " + length.str() + " of " + group_text(group);
    if (from_one && !at_least_one(goal, length)) {
      note(depth, what + ": the length is not evidently at least 1");
      return std::nullopt;
    }
    auto base_how = prove(base, depth + 1);
    if (!base_how) {
      note(depth, what + ": its base case (" + (from_one ? "each fold at its first term" : "each fold empty") + ")");
      return std::nullopt;
    }

    // Step: from the goal at n (hypothesis) to the goal at n + 1.
    std::map<std::string, TermRef> at_n, at_next;
    for (size_t k = 0; k < group.size(); ++k) {
      const FoldRef& f = group[k];
      TermRef acc = sem::symbol("acc" + std::to_string(depth) + "_" + std::to_string(counter_) + "_" + std::to_string(k));
      at_n[f.key] = acc;
      at_next[f.key] = combine(f.term->op, acc, body_at(f.term, Index::var(n)));
    }
    Goal step = goal;
    step.hypotheses.push_back({replace_folds(goal.lhs, at_n), replace_folds(goal.rhs, at_n)});
    step.lhs = replace_folds(goal.lhs, at_next);
    step.rhs = replace_folds(goal.rhs, at_next);
    step.ranges.push_back({n, from_one ? 1 : 0, length});
    auto step_how = prove(step, depth + 1);
    if (!step_how) {
      note(depth, what + ": its step from length n to n + 1");
      return std::nullopt;
    }
    std::string kinds;
    for (const FoldRef& f : group)
      kinds += std::string(kinds.empty() ? "" : ", ") + ir::op_name(f.term->op);
    return "induction on the length " + length.str() + " of " + std::to_string(group.size()) + " fold(s) (" + kinds +
           ")";
  }

  static std::string group_text(const std::vector<FoldRef>& group) {
    std::string text;
    for (const FoldRef& f : group) {
      std::string one = sem::str(f.term);
      if (one.size() > 80) one = one.substr(0, 77) + "...";
      text += (text.empty() ? "" : ", ") + one;
    }
    return text;
  }

  void note(int depth, const std::string& failure) {
    if (depth == 0) failures_.push_back(failure);
  }

  bool at_least_one(const Goal& goal, const ir::Size& length) {
    z3::context ctx;
    Encoder enc(ctx);
    z3::solver solver = make_solver(ctx, options_.rlimit);
    z3::expr l = enc.size(length);
    add_context(goal, enc, solver, false);
    solver.add(l < 1);
    return run(solver);
  }

  z3::solver make_solver(z3::context& ctx, unsigned rlimit) {
    z3::solver solver(ctx);
    z3::params p(ctx);
    p.set("rlimit", rlimit);
    if (options_.timeout_ms > 0) p.set("timeout", options_.timeout_ms);
    solver.set(p);
    return solver;
  }

  enum class Knowledge { Plain, Lemmas, Facts };

  void add_context(const Goal& goal, Encoder& enc, z3::solver& solver, bool with_facts, bool with_lemmas = false) {
    for (const Range& r : goal.ranges) {
      z3::expr v = enc.index(Index::var(r.var));
      solver.add(v >= enc.size(r.lo));
      solver.add(v < enc.size(r.hi));
    }
    for (const ir::Size& d : goal.nonnegative) solver.add(enc.size(d) >= 0);
    for (const auto& [a, b] : goal.hypotheses) solver.add(enc.term(a) == enc.term(b));
    for (const z3::expr& c : enc.size_constraints()) solver.add(c);
    if (with_facts)
      for (const Fact& f : primitive_facts()) solver.add(f.axiom(solver.ctx(), enc));
    if (with_lemmas) {
      std::vector<TermRef> terms = {goal.lhs, goal.rhs};
      for (const auto& [a, b] : goal.hypotheses) terms.insert(terms.end(), {a, b});
      for (const z3::expr& lemma : ground_lemmas(terms, enc)) solver.add(lemma);
    }
  }

  // Unsat of the negated goal: the goal holds. The script is kept. Cheap
  // first: without the facts the check is quantifier-free and quick.
 public:
  // Quantifier-free only: plain (unless `plain_failed`), then with the ground lemmas.
  bool check_with_lemmas(const Goal& goal, bool plain_failed) {
    bool uses_primitives = true;
    if (!plain_failed && attempt(goal, Knowledge::Plain, options_.rlimit, uses_primitives)) return true;
    bool saved = lemmas_;
    lemmas_ = true;
    bool proved = uses_primitives && attempt(goal, Knowledge::Lemmas, options_.rlimit, uses_primitives);
    lemmas_ = saved;
    return proved;
  }

  // With lemmas, a quantifier-free check with them comes second.
  bool check(const Goal& goal) {
    bool uses_primitives = false;
    if (attempt(goal, Knowledge::Plain, options_.rlimit, uses_primitives)) return true;
    if (lemmas_ && uses_primitives && attempt(goal, Knowledge::Lemmas, options_.rlimit, uses_primitives)) return true;
    return uses_primitives && attempt(goal, Knowledge::Facts, options_.facts_rlimit, uses_primitives);
  }

 private:
  bool attempt(const Goal& goal, Knowledge knowledge, unsigned rlimit, bool& uses_primitives) {
    try {
      z3::context ctx;
      Encoder enc(ctx);
      z3::solver solver = make_solver(ctx, rlimit);
      z3::expr l = enc.term(goal.lhs), r = enc.term(goal.rhs);
      add_context(goal, enc, solver, knowledge == Knowledge::Facts, lemmas_ && knowledge != Knowledge::Plain);
      uses_primitives = enc.uses_primitives;
      solver.add(l != r);
      return run(solver);
    } catch (const z3::exception&) {
      return false;  // the solver gave up: not proved
    }
  }

  bool run(z3::solver& solver) {
    if (out_of_time()) return false;
    auto start = std::chrono::steady_clock::now();
    if (const char* dir = std::getenv("AXON_SMT_DUMP")) {
      static int dumped = 0;
      std::string path = std::string(dir) + "/check_" + std::to_string(dumped++) + ".smt2";
      if (FILE* f = std::fopen(path.c_str(), "w")) {
        std::fputs(solver.to_smt2().c_str(), f);
        std::fclose(f);
      }
    }
    // A large goal is checked in a child process with a deadline: Z3 4.8 was
    // seen to run for minutes on one (a program of square roots and sums
    // against its rewrite), heedless of both its rlimit and its timeout.
    auto decide = [&] {
      try {
        z3::check_result v = solver.check();
        return v == z3::unsat ? 0 : v == z3::sat ? 1 : 2;
      } catch (const z3::exception&) {
        return 2;  // the solver gave up
      }
    };
    int answer = isolate_ && options_.timeout_ms > 0 ? run_forked(decide, options_.timeout_ms / 1000.0) : decide();
    z3::check_result verdict = answer == 0 ? z3::unsat : answer == 1 ? z3::sat : z3::unknown;
    if (std::getenv("AXON_DEBUG"))
      std::fprintf(stderr, "smt check: %s in %.3f s\n", verdict == z3::unsat ? "unsat" : verdict == z3::sat ? "sat" : "unknown",
                   std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    if (verdict != z3::unsat) return false;
    smtlib_.push_back("; axon obligation: z3 must answer unsat\n" + solver.to_smt2());
    return true;
  }

  const ProverOptions& options_;
  std::vector<std::string>& smtlib_;
  bool isolate_;
  std::chrono::steady_clock::time_point start_;
  int counter_ = 0;
  bool lemmas_ = false;
  std::vector<std::string> failures_;
};

std::string attrs_text(const ir::Attrs& a) {
  std::ostringstream out;
  out << a.index << '|' << a.name << '|';
  out.precision(17);
  out << a.value << '|' << a.keepdims << '|' << static_cast<int>(a.cmp) << '|';
  for (int64_t x : a.axes) out << x << ',';
  out << '|';
  for (const ir::Size& s : a.sizes) out << s.str() << ',';
  out << '|';
  for (const ir::Size& s : a.extents) out << s.str() << ',';
  return out.str();
}

std::string dag_text(ir::NodeRef root) {
  std::ostringstream out;
  std::map<ir::NodeRef, size_t> ids;
  for (ir::NodeRef n : ir::topological_order({root})) {
    ids[n] = ids.size();
    out << ir::op_name(n->op()) << '(' << attrs_text(n->attrs());
    if (n->op() == ir::Op::Input) out << '|' << n->type().str();
    for (ir::NodeRef in : n->inputs()) out << ' ' << ids.at(in);
    out << ");";
  }
  return out.str();
}

// Ops of `root` unfolded into a tree, a shared value counted at each use;
// counting stops just past `cap`.
int64_t unfolded_ops(ir::NodeRef root, int64_t cap) {
  std::unordered_map<ir::NodeRef, int64_t> ops;
  for (ir::NodeRef n : ir::topological_order({root})) {
    int64_t count = 1;
    for (ir::NodeRef in : n->inputs()) count = std::min(cap + 1, count + ops.at(in));
    ops[n] = count;
  }
  return ops.at(root);
}

std::set<std::string> folds_of(const Goal& goal) {
  std::vector<FoldRef> folds;
  std::set<std::string> keys;
  top_folds(goal.lhs, folds, keys);
  top_folds(goal.rhs, folds, keys);
  return keys;
}

bool lemmas_may_apply(const TermRef& t) {
  if (t->kind == TermKind::Fold) return false;  // hidden from the solver
  if (t->kind == TermKind::Apply) {
    ir::Op op = t->op;
    if (op == ir::Op::Recip || op == ir::Op::Div || op == ir::Op::Exp || op == ir::Op::Sqrt) return true;
  }
  for (const TermRef& a : t->args)
    if (lemmas_may_apply(a)) return true;
  return false;
}

std::string shortened(const std::string& text, size_t limit) {
  return text.size() <= limit ? text : text.substr(0, limit - 3) + "...";
}

// The obligation left unproved, in words: the element compared, both sides
// in the last normal form tried, and where the last attempts failed.
std::string obligation_text(const std::vector<Index>& out, const Goal& goal, const std::vector<std::string>& failures) {
  std::string at;
  for (size_t k = 0; k < out.size(); ++k) at += (k ? ", " : "") + out[k].str();
  std::string text = "unproved obligation: the element [" + at + "] of both results is equal, " +
                     shortened(sem::str(goal.lhs), 300) + " == " + shortened(sem::str(goal.rhs), 300) +
                     " (tK reads parameter K, counting from 0; $-names are symbolic indices)";
  if (failures.empty()) return text + " (the direct check failed)";
  text += "; not proved: ";
  size_t first = failures.size() > 3 ? failures.size() - 3 : 0;
  for (size_t k = first; k < failures.size(); ++k) text += (k > first ? "; " : "") + failures[k];
  return text;
}

}  // namespace

double Counterexample::relative_difference() const {
  if (!std::isfinite(lhs) || !std::isfinite(rhs)) return NAN;
  double scale = std::max(std::fabs(lhs), std::fabs(rhs));
  return scale == 0 ? 0.0 : std::fabs(lhs - rhs) / scale;
}

const char* verdict_name(Verdict verdict) {
  switch (verdict) {
    case Verdict::Proved: return "proved";
    case Verdict::Refuted: return "refuted";
    case Verdict::Unknown: return "unknown";
  }
  return "?";
}

std::string obligation_key(ir::NodeRef lhs, ir::NodeRef rhs) {
  std::string a = dag_text(lhs), b = dag_text(rhs);
  return a < b ? a + " == " + b : b + " == " + a;
}

ProofResult Prover::prove_equal(ir::NodeRef lhs, ir::NodeRef rhs) {
  ++stats_.obligations;
  std::string key = obligation_key(lhs, rhs);
  if (auto it = cache_.find(key); it != cache_.end()) {
    ++stats_.cache_hits;
    ProofResult cached = it->second;
    cached.cached = true;
    return cached;
  }
  auto start = std::chrono::steady_clock::now();
  ProofResult result = decide(lhs, rhs);
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  stats_.seconds.push_back(result.seconds);
  if (result.verdict == Verdict::Proved) stats_.proof_seconds.push_back(result.seconds);
  (result.verdict == Verdict::Proved ? stats_.proved : result.verdict == Verdict::Refuted ? stats_.refuted : stats_.unknown)++;
  cache_[key] = result;
  return result;
}

ProofResult Prover::decide(ir::NodeRef lhs, ir::NodeRef rhs) {
  ProofResult result;
  shared_inputs(lhs, rhs);  // checks the leaves agree
  if (auto cex = find_difference(lhs, rhs, options_.seed)) {
    result.verdict = Verdict::Refuted;
    result.method = "counterexample found by the reference interpreter";
    result.counterexample = std::move(cex);
    return result;
  }
  for (ir::NodeRef n : ir::topological_order({lhs, rhs})) {
    if (n->op() == ir::Op::Const && !std::isfinite(n->attrs().value)) {
      result.detail = "the programs use a non-finite constant, which has no real value to reason about";
      return result;
    }
  }
  if (lhs->shape() != rhs->shape()) {
    result.detail = "the result shapes " + lhs->type().str() + " and " + rhs->type().str() +
                    " are not the same expression, and no size tried tells them apart";
    return result;
  }
  int64_t largest = 0;
  for (ir::NodeRef side : {lhs, rhs}) {
    largest = std::max(largest, unfolded_ops(side, kMaxProofOps));
    if (unfolded_ops(side, kMaxProofOps) > kMaxProofOps) {
      result.detail = "a side has more than " + std::to_string(kMaxProofOps) +
                      " ops once values used several times are unfolded (the prover's size limit), "
                      "and no counterexample at small sizes";
      return result;
    }
  }
  sem::VarSupply vars;
  std::vector<Index> out = sem::fresh_indices(lhs->shape(), vars);
  auto leaf = [](ir::NodeRef n) { return n->op() == ir::Op::Input ? static_cast<int>(n->attrs().index) : -1; };
  Goal goal;
  goal.lhs = sem::element_of_dag(lhs, out, leaf, vars);
  goal.rhs = sem::element_of_dag(rhs, out, leaf, vars);
  for (size_t k = 0; k < out.size(); ++k) goal.ranges.push_back({out[k].poly.names()[0], 0, lhs->shape()[k]});
  std::set<std::string> dims;
  for (ir::NodeRef n : ir::topological_order({lhs, rhs}))
    for (const ir::Size& d : n->shape())
      if (!d.is_constant() && dims.insert(d.str()).second) goal.nonnegative.push_back(d);
  Induction induction(options_, result.smtlib, largest >= options_.isolate_ops);
  // Cheap first: the goal as written, then its expanded normal form, each by
  // a check without induction; inductions only after both.
  if (induction.check(goal)) {
    result.verdict = Verdict::Proved;
    result.method = "direct";
    return result;
  }
  Goal expanded = goal;
  expanded.lhs = expanded_normal_form(goal.lhs);
  expanded.rhs = expanded_normal_form(goal.rhs);
  const std::string kExpanded = "expanded normal form (fold laws, products multiplied out) with ground lemmas, then ";
  bool unchanged = sem::canonical(expanded.lhs) == sem::canonical(goal.lhs) &&
                   sem::canonical(expanded.rhs) == sem::canonical(goal.rhs);
  // Worth a check before the inductions only when a fold law fired (the
  // folds differ) or the goal divides or uses exp or sqrt (lemmas may apply):
  // otherwise the goal's own inductions come first, as before.
  bool promising =
      folds_of(expanded) != folds_of(goal) || lemmas_may_apply(expanded.lhs) || lemmas_may_apply(expanded.rhs);
  if (promising && induction.check_with_lemmas(expanded, unchanged)) {
    result.verdict = Verdict::Proved;
    result.method = kExpanded + "direct";
    return result;
  }
  result.smtlib.clear();
  if (auto how = induction.prove(goal, 0, true)) {
    result.verdict = Verdict::Proved;
    result.method = *how;
    return result;
  }
  Goal normal = goal;
  normal.lhs = sum_normal_form(goal.lhs);
  normal.rhs = sum_normal_form(goal.rhs);
  if (sem::canonical(normal.lhs) != sem::canonical(goal.lhs) || sem::canonical(normal.rhs) != sem::canonical(goal.rhs)) {
    result.smtlib.clear();
    if (auto how = induction.prove(normal, 0)) {
      result.verdict = Verdict::Proved;
      result.method = "sum normal form (linearity, exchange), then " + *how;
      return result;
    }
  }
  result.smtlib.clear();
  induction.use_lemmas(true);
  if (auto how = induction.prove(expanded, 0, true)) {
    result.verdict = Verdict::Proved;
    result.method = kExpanded + *how;
    return result;
  }
  result.smtlib.clear();
  std::string obligation = obligation_text(out, expanded, induction.failures());
  if (induction.out_of_time()) {
    result.detail = "no proof within the time budget of " + std::to_string(static_cast<int>(options_.budget_s)) +
                    " s, and no counterexample at small sizes; " + obligation;
    return result;
  }
  result.detail = "no proof within the resource limit (rlimit " + std::to_string(options_.rlimit) + ", induction depth " +
                  std::to_string(options_.max_depth) + "), and no counterexample at small sizes; " + obligation;
  return result;
}

}  // namespace axon::smt
