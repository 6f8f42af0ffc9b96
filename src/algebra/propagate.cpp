#include "algebra/propagate.h"

#include <chrono>
#include <map>
#include <optional>

#include "ir/shape.h"
#include "sem/semantics.h"

namespace axon::algebra {
namespace {

using ir::NodeRef;
using ir::Op;
using nugraph::ClassId;
using nugraph::ENode;
using sem::Index;

bool is_elementwise(Op op) {
  ir::OpKind k = ir::op_kind(op);
  return k == ir::OpKind::Unary || k == ir::OpKind::Binary;
}

// A proposal is built in a small graph of its own whose leaves stand for
// nu-graph classes (literal scalars are kept as themselves).
class Local {
 public:
  explicit Local(const nugraph::NuGraph& g) : g_(g) {}

  ir::Graph& graph() { return graph_; }

  NodeRef leaf(ClassId c) {
    c = g_.find(c);
    if (auto it = leaves_.find(c); it != leaves_.end()) return it->second;
    NodeRef n = nullptr;
    for (const ENode& e : g_.nodes(c))
      if (e.op == Op::Const || e.op == Op::SizeValue) n = graph_.make(e.op, {}, e.attrs);
    if (!n) {
      int64_t index = static_cast<int64_t>(classes_.size());
      n = graph_.input(index, "t" + std::to_string(index), g_.data(c).type);
      classes_.push_back(c);
    }
    leaves_[c] = n;
    return n;
  }

  NodeRef node(const ENode& e, std::vector<NodeRef> children) { return graph_.make(e.op, std::move(children), e.attrs); }
  NodeRef node(const ENode& e) {
    std::vector<NodeRef> children;
    for (ClassId c : e.children) children.push_back(leaf(c));
    return node(e, children);
  }

  // Adds a local term to the nu-graph; its leaves map back to their classes.
  ClassId insert(NodeRef root, nugraph::NuGraph& g) {
    std::map<NodeRef, ClassId> done;
    for (NodeRef n : ir::topological_order({root})) {
      if (n->op() == Op::Input) {
        done[n] = classes_.at(n->attrs().index);
        continue;
      }
      ENode e;
      e.op = n->op();
      e.attrs = n->attrs();
      for (NodeRef in : n->inputs()) e.children.push_back(done.at(in));
      done[n] = g.add(std::move(e));
    }
    return done.at(root);
  }

 private:
  const nugraph::NuGraph& g_;
  ir::Graph graph_;
  std::map<ClassId, NodeRef> leaves_;
  std::vector<ClassId> classes_;
};

// The index expressions of an op's reads: its output indices and, for each
// input, the index it reads at (from the op's one semantics).
struct Reads {
  std::vector<Index> out;
  std::vector<std::vector<Index>> inputs;
};

Reads reads_of(NodeRef node) {
  Reads r;
  sem::VarSupply vars;
  r.out = sem::fresh_indices(node->shape(), vars);
  r.inputs.resize(node->inputs().size());
  sem::element(node, r.out,
               [&](size_t i, const std::vector<Index>& index) {
                 r.inputs[i] = index;
                 return sem::number(0.0);
               },
               vars);
  return r;
}

bool is_variable(const Index& i) {
  return i.is_poly() && i.poly.names().size() == 1 && i.poly == ir::Size::name(i.poly.names()[0]);
}

// `s`, broadcast into a space whose axes are indexed by `from` (right-aligned),
// re-expressed in the space indexed by `to`: each non-1 axis of s goes where
// the same index variable is; every other axis of the result is 1.
std::optional<NodeRef> reindex(ir::Graph& graph, NodeRef s, const std::vector<Index>& from,
                               const std::vector<Index>& to) {
  if (s->rank() > static_cast<int>(from.size())) return std::nullopt;
  size_t offset = from.size() - s->rank();
  std::vector<std::pair<size_t, size_t>> kept;  // (position in to, axis of s)
  for (int a = 0; a < s->rank(); ++a) {
    if (s->shape()[a] == ir::Size(1)) continue;
    const Index& e = from[offset + a];
    if (!is_variable(e)) return std::nullopt;
    std::optional<size_t> at;
    for (size_t b = 0; b < to.size(); ++b)
      if (is_variable(to[b]) && to[b].poly == e.poly) at = b;
    if (!at) return std::nullopt;
    kept.push_back({*at, static_cast<size_t>(a)});
  }
  std::sort(kept.begin(), kept.end());
  ir::Shape squeezed, target(to.size(), ir::Size(1));
  std::vector<int64_t> squeezed_axes;
  for (int a = 0; a < s->rank(); ++a)
    if (s->shape()[a] != ir::Size(1)) squeezed_axes.push_back(a);
  for (int64_t a : squeezed_axes) squeezed.push_back(s->shape()[a]);
  NodeRef r = s;
  if (squeezed != s->shape()) {
    ir::Attrs attrs;
    attrs.sizes = squeezed;
    r = graph.make(Op::Reshape, {r}, attrs);
  }
  std::vector<int64_t> perm;
  for (const auto& [b, a] : kept) {
    perm.push_back(std::find(squeezed_axes.begin(), squeezed_axes.end(), static_cast<int64_t>(a)) - squeezed_axes.begin());
    target[b] = s->shape()[a];
  }
  bool identity = true;
  for (size_t k = 0; k < perm.size(); ++k) identity = identity && perm[k] == static_cast<int64_t>(k);
  if (!identity) {
    ir::Attrs attrs;
    attrs.axes = perm;
    r = graph.make(Op::Transpose, {r}, attrs);
  }
  if (target != r->shape() && !kept.empty()) {
    ir::Attrs attrs;
    attrs.sizes = target;
    r = graph.make(Op::Reshape, {r}, attrs);
  }
  return r;
}

// Rebuilds element-wise `e` with its operand `main` replaced and every other
// operand re-indexed from `from` to `to`.
std::optional<NodeRef> reapply(Local& local, NodeRef e, size_t main, NodeRef new_main, const std::vector<Index>& from,
                               const std::vector<Index>& to) {
  std::vector<NodeRef> operands;
  for (size_t j = 0; j < e->inputs().size(); ++j) {
    if (j == main) {
      operands.push_back(new_main);
      continue;
    }
    auto side = reindex(local.graph(), e->input(j), from, to);
    if (!side) return std::nullopt;
    operands.push_back(*side);
  }
  return local.graph().make(e->op(), operands, e->attrs());
}

NodeRef replace_input(Local& local, NodeRef n, size_t i, NodeRef with) {
  std::vector<NodeRef> inputs = n->inputs();
  inputs[i] = with;
  return local.graph().make(n->op(), inputs, n->attrs());
}

struct Proposal {
  NodeRef before, after;
};

// Consumer `c` (element-wise, its operand `slot` is `p`) moved across
// producer `p`: onto each input of p, and onto all of them at once.
void consumer_across(Local& local, NodeRef c, size_t slot, NodeRef p, std::vector<Proposal>& out) {
  if (c->shape() != p->shape() || ir::op_kind(p->op()) == ir::OpKind::Leaf) return;
  Reads r = reads_of(p);
  std::vector<NodeRef> moved(p->inputs().size(), nullptr);
  for (size_t i = 0; i < p->inputs().size(); ++i) {
    if (p->input(i)->is_weak_scalar()) continue;
    if (auto m = reapply(local, c, slot, p->input(i), r.out, r.inputs[i])) {
      moved[i] = *m;
      out.push_back({c, replace_input(local, p, i, *m)});
    }
  }
  if (p->inputs().size() < 2) return;
  std::vector<NodeRef> all = p->inputs();
  for (size_t i = 0; i < all.size(); ++i) {
    if (!moved[i]) return;
    all[i] = moved[i];
  }
  out.push_back({c, local.graph().make(p->op(), all, p->attrs())});
}

// Producer `p` (element-wise, operand `slot` of consumer `c`) moved across c:
// onto c's result, or onto a sibling input of c.
void producer_across(Local& local, NodeRef c, size_t slot, NodeRef p, std::vector<Proposal>& out) {
  Reads r = reads_of(c);
  for (size_t main = 0; main < p->inputs().size(); ++main) {
    NodeRef m = p->input(main);
    if (m->shape() != p->shape() || m->is_weak_scalar()) continue;
    NodeRef inner = replace_input(local, c, slot, m);
    if (auto moved = reapply(local, p, main, inner, r.inputs[slot], r.out)) out.push_back({c, *moved});
    for (size_t t = 0; t < c->inputs().size(); ++t) {
      if (t == slot || c->input(t)->is_weak_scalar()) continue;
      auto side = reapply(local, p, main, c->input(t), r.inputs[slot], r.inputs[t]);
      if (side && (*side)->shape() == c->input(t)->shape()) out.push_back({c, replace_input(local, inner, t, *side)});
    }
  }
}

}  // namespace

namespace {

class Runner {
 public:
  Runner(nugraph::NuGraph& g, smt::Prover& prover, const PropagationOptions& options, std::vector<UsedProof>* used)
      : g_(g), prover_(prover), options_(options), used_(used) {}

  PropagationStats run() {
    auto start = std::chrono::steady_clock::now();
    g_.rebuild();
    stats_.stop = nugraph::StopReason::IterationLimit;
    for (size_t it = 0; it < options_.max_iterations; ++it) {
      ++stats_.iterations;
      size_t merged_before = stats_.merged;
      bool stopped = !iteration();
      g_.rebuild();
      if (stopped) break;
      if (stats_.merged == merged_before) {
        stats_.stop = nugraph::StopReason::Saturated;
        break;
      }
    }
    stats_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return stats_;
  }

 private:
  // One pass over every edge of the graph as it was at the start of the pass.
  bool iteration() {
    std::vector<std::pair<ClassId, ENode>> edges;
    for (ClassId c : g_.classes())
      for (const ENode& e : g_.nodes(c)) edges.push_back({c, e});
    for (const auto& [cls, consumer] : edges) {
      for (size_t slot = 0; slot < consumer.children.size(); ++slot) {
        std::vector<ENode> producers = g_.nodes(g_.find(consumer.children[slot]));
        for (const ENode& producer : producers) {
          if (ir::op_kind(producer.op) == ir::OpKind::Leaf) continue;
          if (!edge(cls, consumer, slot, producer)) return false;
        }
      }
    }
    return true;
  }

  // Proposals for one edge; false when a limit stops the search.
  bool edge(ClassId cls, const ENode& consumer, size_t slot, const ENode& producer) {
    Local local(g_);
    std::vector<Proposal> proposals;
    try {
      std::vector<NodeRef> children;
      for (size_t k = 0; k < consumer.children.size(); ++k)
        children.push_back(k == slot ? local.node(producer) : local.leaf(consumer.children[k]));
      NodeRef c = local.node(consumer, children);
      NodeRef p = c->input(slot);
      if (is_elementwise(consumer.op)) consumer_across(local, c, slot, p, proposals);
      if (is_elementwise(producer.op)) producer_across(local, c, slot, p, proposals);
    } catch (const UserError&) {
      ++stats_.ill_typed;  // a proposal that does not type-check is not one
    }
    for (const Proposal& proposal : proposals) {
      if (!decide(cls, local, proposal)) return false;
    }
    return true;
  }

  bool decide(ClassId cls, Local& local, const Proposal& proposal) {
    if (stats_.proposals >= options_.max_proposals) {
      stats_.stop = nugraph::StopReason::ProposalLimit;
      return false;
    }
    if (g_.over_limit()) {
      stats_.stop = nugraph::StopReason::NodeLimit;
      return false;
    }
    if (proposal.before == proposal.after) return true;
    ++stats_.proposals;
    smt::ProofResult result = prover_.prove_equal(proposal.before, proposal.after);
    if (result.verdict == smt::Verdict::Refuted) ++stats_.refuted;
    if (result.verdict == smt::Verdict::Unknown) ++stats_.unknown;
    if (result.verdict != smt::Verdict::Proved) return true;
    ++stats_.proved;
    ClassId added = local.insert(proposal.after, g_);
    if (g_.merge(cls, added)) {
      g_.rebuild();  // later proposals of this pass search the graph
      ++stats_.merged;
      if (used_) used_->push_back({proposal_text(proposal.before), proposal_text(proposal.after), result.method});
    }
    return true;
  }

  static std::string proposal_text(NodeRef root) {
    ir::Function f;
    f.outputs = {root};
    return ir::print_numpy(f);
  }

  nugraph::NuGraph& g_;
  smt::Prover& prover_;
  const PropagationOptions& options_;
  std::vector<UsedProof>* used_;
  PropagationStats stats_;
};

}  // namespace

PropagationStats propagate(nugraph::NuGraph& graph, smt::Prover& prover, const PropagationOptions& options,
                           std::vector<UsedProof>* used) {
  return Runner(graph, prover, options, used).run();
}

}  // namespace axon::algebra
