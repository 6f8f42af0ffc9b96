// axon verify: are two programs equal for all sizes and inputs?
#include "search/verify.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/commands.h"
#include "smt/prover.h"

namespace axon::cli {
namespace {

constexpr int kRefuted = 3;
constexpr int kUnknown = 4;

std::string tensor_text(const eval::Tensor& t) {
  std::ostringstream out;
  out.precision(6);
  out << t.shape_str() << " [";
  size_t shown = std::min<size_t>(t.data.size(), 24);
  for (size_t i = 0; i < shown; ++i) out << (i ? ", " : "") << t.data[i];
  out << (t.data.size() > shown ? ", ...]" : "]");
  return out.str();
}

void print_counterexample(const smt::Counterexample& cex, const ir::Function& a, const std::string& a_name,
                          const std::string& b_name) {
  std::cout << "counterexample (replayed in the reference interpreter):\n  sizes:";
  for (const auto& [name, value] : cex.dims) std::cout << ' ' << name << '=' << value;
  if (cex.dims.empty()) std::cout << " (none)";
  std::cout << '\n';
  for (size_t i = 0; i < cex.inputs.size() && i < a.params.size(); ++i)
    std::cout << "  " << a.params[i].name << " = " << tensor_text(cex.inputs[i]) << '\n';
  if (std::isnan(cex.lhs) && std::isnan(cex.rhs) && cex.index.empty()) {
    std::cout << "  the results have different shapes\n";
    return;
  }
  std::cout << "  at index (";
  for (size_t k = 0; k < cex.index.size(); ++k) std::cout << (k ? ", " : "") << cex.index[k];
  std::cout << "): " << a_name << " gives " << cex.lhs << ", " << b_name << " gives " << cex.rhs << '\n';
  std::cout << "  relative difference |a - b| / max(|a|, |b|) = " << cex.relative_difference()
            << " (rounding alone gives about 1e-7 or less)\n";
}

void write_proofs(const std::string& dir, const std::vector<std::string>& scripts, const Word& where) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw UserError(where.loc, "cannot create directory '" + dir + "': " + ec.message());
  for (size_t i = 0; i < scripts.size(); ++i) {
    std::string path = dir + "/obligation_" + std::to_string(i) + ".smt2";
    std::ofstream out(path);
    out << scripts[i];
    if (!out) throw UserError(where.loc, "cannot write '" + path + "'");
  }
}

int verify(const Word& command, const ParsedArgs& args) {
  auto loc_of = [&](const char* name) { return args.last(name) ? args.last(name)->loc : SourceLoc{}; };
  search::VerifyRequest request;
  request.file_a = program_file(args, command, 0, 2).text;
  request.file_b = program_file(args, command, 1, 2).text;
  request.entry_a = option_text(args, "--entry-a");
  request.entry_b = option_text(args, "--entry-b");
  request.entry_a_loc = loc_of("--entry-a");
  request.entry_b_loc = loc_of("--entry-b");
  if (auto r = int_option(args, "--rlimit"))
    request.prover.rlimit = static_cast<unsigned>(std::min<int64_t>(*r, 1u << 31));
  search::VerifyResult verified = search::verify(request);
  const std::vector<smt::ProofResult>& results = verified.results;
  std::cout << smt::verdict_name(verified.verdict) << '\n';
  for (size_t i = 0; i < results.size(); ++i) {
    const smt::ProofResult& r = results[i];
    std::string which = results.size() > 1 ? "result " + std::to_string(i) + ": " : "";
    std::cout << which << smt::verdict_name(r.verdict) << " ("
              << (r.verdict == smt::Verdict::Unknown ? r.detail : r.method) << "; " << r.seconds << " s)\n";
    if (r.verdict == smt::Verdict::Proved) std::cout << "  " << r.smtlib.size() << " SMT obligation(s), each unsat\n";
    if (r.counterexample) print_counterexample(*r.counterexample, verified.a.kernel, request.file_a, request.file_b);
  }
  if (const Word* dir = args.last("--emit-proofs")) {
    std::vector<std::string> scripts = verified.proof_scripts();
    write_proofs(dir->text, scripts, *dir);
    std::cout << "wrote " << scripts.size() << " SMT-LIB2 file(s) to " << dir->text << " (check each with: z3 FILE)\n";
  }
  smt::Verdict overall = verified.verdict;
  return overall == smt::Verdict::Proved ? 0 : overall == smt::Verdict::Refuted ? kRefuted : kUnknown;
}

}  // namespace

const Command& verify_command() {
  static const Command command{
      "verify",
      "prove two programs equal for all sizes, or refute with a counterexample",
      "usage: axon verify A.py B.py [--entry-a F] [--entry-b G] [--emit-proofs DIR] [--rlimit N]\n\n"
      "Decides whether the two kernels compute the same result for every size and every input (over the\n"
      "reals; transcendentals are uninterpreted apart from a short list of declared facts). Parameters\n"
      "are matched by position and their annotations must agree. The first line of output is one word:\n"
      "proved, refuted (a counterexample follows, replayed in the reference interpreter) or unknown.\n"
      "A program of more than " +
          std::to_string(smt::kMaxProofOps) +
          " ops, once values used several times are unfolded, is refuted or unknown\n"
          "(the prover's size limit). Exit status: 0 proved, 3 refuted, 4 unknown, 1 bad input.\n",
      {{"--entry-a", "F", "the kernel in A.py (default: its last def)"},
       {"--entry-b", "G", "the kernel in B.py (default: its last def)"},
       {"--emit-proofs", "DIR", "write each proof obligation as an SMT-LIB2 file that z3 re-checks"},
       {"--rlimit", "N",
        "Z3's deterministic resource limit per check (default " + std::to_string(smt::ProverOptions{}.rlimit) +
            "; each check also stops after " + std::to_string(smt::ProverOptions{}.timeout_ms / 1000) + " s)"},
       {"--help", "", "show this help"}},
      verify};
  return command;
}

}  // namespace axon::cli
