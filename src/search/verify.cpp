#include "search/verify.h"

#include "lang/load.h"
#include "search/api.h"

namespace axon::search {
namespace {

// The kernels must take the same parameters (by position, same annotations)
// and return as many tensors: otherwise "equal" has no meaning.
void check_signatures(const ir::Function& fa, const std::string& file_a, const ir::Function& fb) {
  if (fa.params.size() != fb.params.size())
    throw UserError(fb.loc, "'" + fb.name + "' takes " + std::to_string(fb.params.size()) + " parameters but '" +
                                fa.name + "' in " + file_a + " takes " + std::to_string(fa.params.size()));
  for (size_t i = 0; i < fa.params.size(); ++i)
    if (fa.params[i].type != fb.params[i].type)
      throw UserError(fb.params[i].annotation_loc, "parameter " + std::to_string(i + 1) + " '" + fb.params[i].name +
                                                       "' is " + fb.params[i].type.str() + " here but '" +
                                                       fa.params[i].name + "' is " + fa.params[i].type.str() + " in " +
                                                       file_a);
  if (fa.outputs.size() != fb.outputs.size())
    throw UserError(fb.loc, "'" + fb.name + "' returns " + std::to_string(fb.outputs.size()) + " tensor(s) but '" +
                                fa.name + "' returns " + std::to_string(fa.outputs.size()));
}

}  // namespace

const smt::Counterexample* VerifyResult::counterexample() const {
  int i = counterexample_result();
  return i < 0 ? nullptr : &*results[static_cast<size_t>(i)].counterexample;
}

int VerifyResult::counterexample_result() const {
  for (size_t i = 0; i < results.size(); ++i)
    if (results[i].counterexample) return static_cast<int>(i);
  return -1;
}

std::string VerifyResult::unproved() const {
  if (verdict != smt::Verdict::Unknown) return "";
  std::string text;
  for (size_t i = 0; i < results.size(); ++i) {
    if (results[i].verdict != smt::Verdict::Unknown) continue;
    if (!text.empty()) text += "\n";
    if (results.size() > 1) text += "result " + std::to_string(i) + ": ";
    text += results[i].detail;
  }
  return text;
}

std::vector<std::string> VerifyResult::proof_scripts() const {
  std::vector<std::string> scripts;
  for (const smt::ProofResult& r : results) scripts.insert(scripts.end(), r.smtlib.begin(), r.smtlib.end());
  return scripts;
}

VerifyResult verify(const VerifyRequest& request) {
  VerifyResult out;
  out.a = load_program(request.file_a, request.text_a, request.entry_a, request.entry_a_loc);
  out.b = load_program(request.file_b, request.text_b, request.entry_b, request.entry_b_loc);
  const ir::Function &fa = out.a.kernel, &fb = out.b.kernel;
  check_signatures(fa, request.file_a, fb);
  smt::Prover prover(request.prover);
  out.verdict = smt::Verdict::Proved;
  for (size_t i = 0; i < fa.outputs.size(); ++i) {
    out.results.push_back(prover.prove_equal(fa.outputs[i], fb.outputs[i]));
    smt::Verdict v = out.results.back().verdict;
    if (v == smt::Verdict::Refuted)
      out.verdict = v;
    else if (v == smt::Verdict::Unknown && out.verdict == smt::Verdict::Proved)
      out.verdict = v;
  }
  return out;
}

}  // namespace axon::search
