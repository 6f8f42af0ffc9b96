// Helpers shared by the prover tests (tests/smt/*_test.cpp): kernels from
// source text, a pair of kernels proved output by output, and the replay of a
// counterexample in the reference interpreter.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "eval/interpreter.h"
#include "lang/load.h"
#include "smt/prover.h"
#include "smt/refute.h"

namespace axon::smt::smttest {

/// A kernel `f(params)` whose body is `body`: one expression (returned), or
/// several lines separated by '\n' whose last is a return statement.
inline std::string kernel_source(const std::string& params, const std::string& body) {
  std::string text = "import numpy as np\n\n\ndef f(" + params + "):\n";
  if (body.find('\n') == std::string::npos && body.rfind("return ", 0) != 0) return text + "    return " + body + "\n";
  std::istringstream lines(body);
  for (std::string line; std::getline(lines, line);) text += "    " + line + "\n";
  return text;
}

inline ir::Program compile(const std::string& path, const std::string& text) {
  return lang::compile_source(std::make_shared<const SourceFile>(SourceFile{path, text}));
}

/// The verdict of a pair of kernels, combined over their outputs as `axon
/// verify` does: refuted if any output is refuted, else unknown if any is
/// unknown, else proved.
struct PairOutcome {
  Verdict verdict = Verdict::Unknown;
  std::vector<ProofResult> results;  // one per output
  double seconds = 0;                // wall time of all prove_equal calls
  std::string error;                 // an exception escaped (a bug): its message

  std::string how() const {
    if (!error.empty()) return "exception: " + error;
    std::string text;
    for (const ProofResult& r : results) {
      if (!text.empty()) text += "; ";
      text += r.verdict == Verdict::Unknown ? r.detail : r.method;
    }
    return text;
  }
};

inline PairOutcome prove_pair(const ir::Program& a, const ir::Program& b, ProverOptions options = {}) {
  PairOutcome outcome;
  auto start = std::chrono::steady_clock::now();
  try {
    if (a.kernel.outputs.size() != b.kernel.outputs.size()) throw std::runtime_error("different numbers of outputs");
    if (a.kernel.params.size() != b.kernel.params.size()) throw std::runtime_error("different numbers of parameters");
    for (size_t i = 0; i < a.kernel.params.size(); ++i)
      if (a.kernel.params[i].type != b.kernel.params[i].type) throw std::runtime_error("parameter types differ");
    Prover prover(options);
    outcome.verdict = Verdict::Proved;
    for (size_t i = 0; i < a.kernel.outputs.size(); ++i) {
      outcome.results.push_back(prover.prove_equal(a.kernel.outputs[i], b.kernel.outputs[i]));
      Verdict v = outcome.results.back().verdict;
      if (v == Verdict::Refuted) outcome.verdict = v;
      else if (v == Verdict::Unknown && outcome.verdict == Verdict::Proved) outcome.verdict = v;
    }
  } catch (const std::exception& e) {
    outcome.error = e.what();
    outcome.verdict = Verdict::Unknown;
  }
  outcome.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return outcome;
}

/// The refuter's notion of agreement (src/smt/refute.cpp): within 1e-7
/// relative plus 1e-9 absolute, or the same non-finite value.
inline bool values_agree(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  if (std::isinf(a) || std::isinf(b)) return a == b;
  return std::fabs(a - b) <= 1e-7 * std::max(std::fabs(a), std::fabs(b)) + 1e-9;
}

inline bool same_value(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

inline std::string index_text(const std::vector<int64_t>& index) {
  std::string s = "(";
  for (size_t k = 0; k < index.size(); ++k) s += (k ? ", " : "") + std::to_string(index[k]);
  return s + ")";
}

/// The inputs of `fn` at the counterexample: its tensors by parameter
/// position; a parameter neither program reads (only its shape was used) gets
/// zeros of its shape.
inline std::vector<eval::Tensor> replay_inputs(const ir::Function& fn, const Counterexample& cex) {
  std::vector<eval::Tensor> inputs;
  for (size_t i = 0; i < fn.params.size(); ++i) {
    std::vector<int64_t> shape = eval::concrete_shape(fn.params[i].type.shape, cex.dims, {});
    if (i < cex.inputs.size() && cex.inputs[i].shape == shape) inputs.push_back(cex.inputs[i]);
    else inputs.push_back(eval::Tensor::zeros(shape));
  }
  return inputs;
}

/// Replays a counterexample for output `k` of `a` and `b`: both kernels run in
/// the interpreter (eval::evaluate) and through smt::evaluate_at on the
/// counterexample's sizes and inputs. Returns "" when the results really differ
/// at cex.index (and match cex.lhs / cex.rhs), else what went wrong.
inline std::string replay_problem(const ir::Program& a, const ir::Program& b, size_t k, const Counterexample& cex) {
  try {
    eval::Tensor ea = eval::evaluate(a.kernel, replay_inputs(a.kernel, cex), cex.dims).at(k);
    eval::Tensor eb = eval::evaluate(b.kernel, replay_inputs(b.kernel, cex), cex.dims).at(k);
    eval::Tensor sa = evaluate_at(a.kernel.outputs[k], cex), sb = evaluate_at(b.kernel.outputs[k], cex);
    if (sa.shape != ea.shape || sb.shape != eb.shape) return "smt::evaluate_at and eval::evaluate disagree on shapes";
    for (size_t i = 0; i < ea.data.size(); ++i)
      if (!same_value(ea.data[i], sa.data[i])) return "smt::evaluate_at and eval::evaluate disagree (lhs)";
    for (size_t i = 0; i < eb.data.size(); ++i)
      if (!same_value(eb.data[i], sb.data[i])) return "smt::evaluate_at and eval::evaluate disagree (rhs)";
    if (cex.index.empty() && std::isnan(cex.lhs) && std::isnan(cex.rhs) && ea.shape != eb.shape) return "";
    if (ea.shape != eb.shape) return "the shapes differ but the counterexample names an index";
    if (cex.index.size() != ea.shape.size()) return "the counterexample index has the wrong rank";
    int64_t flat = 0;
    for (size_t d = 0; d < cex.index.size(); ++d) {
      if (cex.index[d] < 0 || cex.index[d] >= ea.shape[d]) return "the counterexample index is out of range";
      flat = flat * ea.shape[d] + cex.index[d];
    }
    double va = ea.data.at(static_cast<size_t>(flat)), vb = eb.data.at(static_cast<size_t>(flat));
    std::ostringstream out;
    out.precision(17);
    if (values_agree(va, vb))
      out << "the results agree at " << index_text(cex.index) << ": " << va << " and " << vb;
    else if (!same_value(va, cex.lhs) || !same_value(vb, cex.rhs))
      out << "replayed values " << va << ", " << vb << " are not the reported " << cex.lhs << ", " << cex.rhs;
    return out.str();
  } catch (const std::exception& e) {
    return std::string("replay threw: ") + e.what();
  }
}

}  // namespace axon::smt::smttest
