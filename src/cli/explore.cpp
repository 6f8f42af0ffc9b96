// axon explore: the nu-graph of a program: every proven variant.
#include <algorithm>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <unordered_map>
#include <vector>

#include "algebra/propagate.h"
#include "cli/commands.h"
#include "lang/load.h"
#include "nugraph/dot.h"
#include "nugraph/extract.h"
#include "search/variants.h"

namespace axon::cli {
namespace {

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int explore(const Word& command, const ParsedArgs& args) {
  const Word& file = program_file(args, command);
  const Word* entry = args.last("--entry");
  ir::Program program = lang::load_program(file.text, option_text(args, "--entry"), entry ? entry->loc : SourceLoc{});
  nugraph::Limits limits;
  limits.max_nodes = static_cast<size_t>(int_option(args, "--limit").value_or(2000));
  nugraph::NuGraph graph(limits);
  std::vector<nugraph::ClassId> roots = graph.add_terms(program.kernel.outputs);
  algebra::PropagationOptions options;
  options.max_iterations = static_cast<size_t>(int_option(args, "--iterations").value_or(4));
  smt::Prover prover;
  std::vector<algebra::UsedProof> used;
  algebra::PropagationStats stats = algebra::propagate(graph, prover, options, &used);
  const smt::ProverStats& ps = prover.stats();

  std::cout << "kernel " << program.kernel.name << ": " << graph.num_classes() << " classes, " << graph.num_nodes()
            << " e-nodes after " << stats.iterations << " iteration(s) (" << nugraph::stop_reason_name(stats.stop)
            << ")\n"
            << "proposals " << stats.proposals << ": proved " << stats.proved << " (" << stats.merged
            << " new), refuted " << stats.refuted << ", unknown " << stats.unknown << "; ill-typed " << stats.ill_typed
            << "\n"
            << "prover: " << ps.seconds.size() << " obligations decided (median " << median(ps.seconds) << " s), "
            << ps.proof_seconds.size() << " proved (median " << median(ps.proof_seconds) << " s), " << ps.cache_hits
            << " cache hits; explore time " << stats.seconds << " s\n";
  if (args.has("--proofs"))
    for (const algebra::UsedProof& p : used)
      std::cout << "\nproved (" << p.method << "):\n" << p.before << "  ==\n" << p.after;

  size_t count = static_cast<size_t>(int_option(args, "--variants").value_or(8));
  for (size_t r = 0; r < roots.size(); ++r) {
    ir::Graph out;
    std::vector<ir::NodeRef> variants = search::distinct_variants(graph, graph.find(roots[r]), count, out);
    std::cout << "\n"
              << (roots.size() > 1 ? "result " + std::to_string(r) + ": " : "") << variants.size()
              << " variant(s) shown (--variants N for more)\n";
    for (size_t i = 0; i < variants.size(); ++i) {
      ir::Function f;
      f.outputs = {variants[i]};
      std::cout << "\n# variant " << i + 1 << "\n" << ir::print_numpy(f);
    }
  }
  if (const Word* dot = args.last("--dot")) {
    std::ofstream out(dot->text);
    out << nugraph::to_dot(graph);
    if (!out) throw UserError(dot->loc, "cannot write '" + dot->text + "'");
    std::cout << "\nwrote " << dot->text << '\n';
  }
  return 0;
}

}  // namespace

const Command& explore_command() {
  static const Command command{
      "explore",
      "find every proven variant of a program (the nu-graph)",
      "usage: axon explore FILE [--entry NAME] [--limit N] [--iterations N] [--variants N] [--dot FILE] [--proofs]\n\n"
      "Runs operator propagation: every way of moving an op across its neighbour is proposed and\n"
      "kept only when proved equal for all sizes. Prints statistics and distinct variants as NumPy code.\n",
      {{"--entry", "NAME", "the kernel to use (default: the last def in the file)"},
       {"--limit", "N", "stop when the nu-graph has N e-nodes (default 2000)"},
       {"--iterations", "N", "propagation rounds at most (default 4)"},
       {"--variants", "N", "how many variants to print (default 8)"},
       {"--dot", "FILE", "write the nu-graph as Graphviz DOT"},
       {"--proofs", "", "list every proven equation that was merged"},
       {"--help", "", "show this help"}},
      explore};
  return command;
}

}  // namespace axon::cli
