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

namespace axon::cli {
namespace {

// What distinguishes variants for people: which heavy ops (contractions,
// reductions, scans, concatenations) feed which. Variants that differ only
// in the order of element-wise ops share a signature. Each distinct heavy
// op with its feeding set is numbered once in `ids`, shared by all variants,
// so that a chain of n reductions costs n steps, not n^2 characters.
class Signatures {
 public:
  std::vector<int> of(ir::NodeRef root) {
    std::unordered_map<ir::NodeRef, std::vector<int>> feeds;  // sorted, distinct
    for (ir::NodeRef n : ir::topological_order({root})) {
      std::vector<int> in;
      for (ir::NodeRef i : n->inputs()) in.insert(in.end(), feeds[i].begin(), feeds[i].end());
      std::sort(in.begin(), in.end());
      in.erase(std::unique(in.begin(), in.end()), in.end());
      ir::OpKind k = ir::op_kind(n->op());
      if (k == ir::OpKind::Contract || k == ir::OpKind::Reduce || k == ir::OpKind::Scan || n->op() == ir::Op::Concat) {
        auto key = std::make_pair(std::string(ir::op_name(n->op())) + n->attrs().name, std::move(in));
        auto [it, fresh] = ids_.try_emplace(std::move(key), static_cast<int>(ids_.size()));
        feeds[n] = {it->second};
      } else {
        feeds[n] = std::move(in);
      }
    }
    return feeds[root];
  }

 private:
  std::map<std::pair<std::string, std::vector<int>>, int> ids_;
};

// Up to `count` variants, one per signature first, cheapest first within each.
std::vector<ir::NodeRef> distinct_variants(const nugraph::NuGraph& graph, nugraph::ClassId root, size_t count,
                                           ir::Graph& out) {
  std::vector<ir::NodeRef> all = nugraph::enumerate_variants(graph, root, std::max<size_t>(count * 25, 200), out);
  std::vector<ir::NodeRef> chosen, rest;
  Signatures signatures;
  std::set<std::vector<int>> seen;
  for (ir::NodeRef v : all) (seen.insert(signatures.of(v)).second ? chosen : rest).push_back(v);
  chosen.insert(chosen.end(), rest.begin(), rest.end());
  if (chosen.size() > count) chosen.resize(count);
  return chosen;
}

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
    std::vector<ir::NodeRef> variants = distinct_variants(graph, graph.find(roots[r]), count, out);
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

Variants program_variants(const ir::Program& program, size_t count, size_t iterations) {
  Variants v;
  v.functions.push_back(program.kernel);
  if (count <= 1 || program.kernel.outputs.size() != 1) return v;
  nugraph::Limits limits;
  limits.max_nodes = 2000;
  nugraph::NuGraph graph(limits);
  std::vector<nugraph::ClassId> roots = graph.add_terms(program.kernel.outputs);
  algebra::PropagationOptions options;
  options.max_iterations = iterations;
  smt::Prover prover;
  algebra::PropagationStats stats = algebra::propagate(graph, prover, options, nullptr);
  v.proved = static_cast<int>(stats.proved);
  v.seconds = stats.seconds;
  v.graph = std::make_shared<ir::Graph>();
  for (ir::NodeRef root : distinct_variants(graph, graph.find(roots[0]), count, *v.graph)) {
    if (ir::print_numpy(ir::Function{"", {}, {root}, false, std::nullopt, {}}) ==
        ir::print_numpy(ir::Function{"", {}, program.kernel.outputs, false, std::nullopt, {}}))
      continue;  // the original
    ir::Function f = program.kernel;
    f.outputs = {root};
    v.functions.push_back(std::move(f));
    if (v.functions.size() >= count) break;
  }
  return v;
}

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
