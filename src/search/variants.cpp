#include "search/variants.h"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "nugraph/extract.h"
#include "smt/prover.h"

namespace axon::search {
namespace {

// What distinguishes variants for people: which heavy ops (contractions,
// reductions, scans, concatenations) feed which. Variants that differ only
// in the order of element-wise ops share a signature. Each distinct heavy
// op with its feeding set is numbered once in `ids`, shared by all variants,
// so that a chain of n reductions costs n steps, not n^2 characters.
// Besides, the signature ends with how many values must be buffers of their
// own because of what reads them (as -1 - count): a concatenation that
// element-wise ops read (one that is the result, or that a heavy op reads, is
// only its parts written side by side), and an element-wise value that a
// view (slice, transpose, broadcast, reshape) reads. So element-wise ops moved
// across a concatenation or a slice make variants of their own.
class Signatures {
 public:
  std::vector<int> of(ir::NodeRef root) {
    std::unordered_map<ir::NodeRef, std::vector<int>> feeds;  // sorted, distinct
    std::set<ir::NodeRef> buffers;
    for (ir::NodeRef n : ir::topological_order({root})) {
      ir::OpKind kind = ir::op_kind(n->op());
      bool elementwise = kind == ir::OpKind::Unary || kind == ir::OpKind::Binary || kind == ir::OpKind::Select;
      for (ir::NodeRef i : n->inputs()) {
        ir::OpKind k = ir::op_kind(i->op());
        bool produced = k == ir::OpKind::Unary || k == ir::OpKind::Binary || k == ir::OpKind::Select;
        bool view = kind == ir::OpKind::Layout && n->op() != ir::Op::Concat;
        if ((elementwise && i->op() == ir::Op::Concat) || (view && produced)) buffers.insert(i);
      }
      std::vector<int> in;
      for (ir::NodeRef i : n->inputs()) in.insert(in.end(), feeds[i].begin(), feeds[i].end());
      std::sort(in.begin(), in.end());
      in.erase(std::unique(in.begin(), in.end()), in.end());
      if (kind == ir::OpKind::Contract || kind == ir::OpKind::Reduce || kind == ir::OpKind::Scan || n->op() == ir::Op::Concat) {
        auto key = std::make_pair(std::string(ir::op_name(n->op())) + n->attrs().name, std::move(in));
        auto [it, fresh] = ids_.try_emplace(std::move(key), static_cast<int>(ids_.size()));
        feeds[n] = {it->second};
      } else {
        feeds[n] = std::move(in);
      }
    }
    std::vector<int> signature = feeds[root];
    signature.push_back(-1 - static_cast<int>(buffers.size()));
    return signature;
  }

 private:
  std::map<std::pair<std::string, std::vector<int>>, int> ids_;
};

}  // namespace

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
  algebra::PropagationStats stats = algebra::propagate(graph, prover, options, &v.merged);
  v.proved = static_cast<int>(stats.proved);
  v.seconds = stats.seconds;
  v.graph = std::make_shared<ir::Graph>();
  for (ir::NodeRef root : distinct_variants(graph, graph.find(roots[0]), count, *v.graph)) {
    if (ir::print_numpy(ir::Function{"", {}, {root}, false, std::nullopt, {}, {}}) ==
        ir::print_numpy(ir::Function{"", {}, program.kernel.outputs, false, std::nullopt, {}, {}}))
      continue;  // the original
    ir::Function f = program.kernel;
    f.outputs = {root};
    v.functions.push_back(std::move(f));
    if (v.functions.size() >= count) break;
  }
  return v;
}

}  // namespace axon::search
