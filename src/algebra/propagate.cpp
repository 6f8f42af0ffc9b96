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
      n = graph_.input(index, "in" + std::to_string(index), g_.data(c).type);
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

// An index `scale * v + rest` in one index variable v (the semantics' "$"
// names), `rest` free of index variables (sizes only).
struct Linear {
  std::string var;
  int64_t scale = 0;
  ir::Size rest;
};

bool is_index_variable(const std::string& name) { return !name.empty() && name[0] == '$'; }

std::optional<Linear> linear(const Index& i) {
  if (!i.is_poly()) return std::nullopt;
  std::optional<std::string> var;
  for (const std::string& n : i.poly.names()) {
    if (!is_index_variable(n)) continue;
    if (var) return std::nullopt;
    var = n;
  }
  if (!var) return std::nullopt;
  Linear l{*var, 0, 0};
  for (const auto& [monomial, coefficient] : i.poly.terms())
    if (monomial.size() == 1 && monomial[0].first.is_name() && monomial[0].first.name == *var && monomial[0].second == 1)
      l.scale = coefficient;
  l.rest = i.poly - ir::Size(l.scale) * ir::Size::name(*var);
  for (const std::string& n : l.rest.names())
    if (is_index_variable(n)) return std::nullopt;  // v inside a product or a floor division
  return l;
}

// True only when `s` >= 0 for all sizes >= 1: Size's own test, and failing
// that with each floor(n/d) that appears alone in a term replaced by its
// bound on the safe side (n/d above, (n - d + 1)/d below), all times d.
bool nonnegative(const ir::Size& s, int depth = 0) {
  if (s.provably_nonnegative()) return true;
  if (depth > 3) return false;
  for (const auto& [monomial, coefficient] : s.terms()) {
    if (monomial.size() != 1 || monomial[0].second != 1 || monomial[0].first.is_name()) continue;
    const ir::Size::Atom& atom = monomial[0].first;
    ir::Size floor = ir::Size::floordiv(*atom.numerator, atom.den);
    ir::Size bound = coefficient < 0 ? *atom.numerator : *atom.numerator - ir::Size(atom.den - 1);
    ir::Size scaled = ir::Size(atom.den) * (s - ir::Size(coefficient) * floor) + ir::Size(coefficient) * bound;
    return nonnegative(scaled, depth + 1);
  }
  return false;
}

// `s`, broadcast into a space whose axes are indexed by `from` (right-aligned),
// re-expressed in the space of shape `space` indexed by `to`: each non-1 axis
// of s goes where `to` reads the same index variable, and every other axis of
// the result is 1. Where the two spaces are offset or strided against each
// other along an axis (one part of a concatenation, a slice), s is sliced to
// the elements the new space reads: an axis of s read at `k*v + f` in the old
// space goes to an axis b of the new space read at `v + t`, so element u of
// axis b reads s at f - k*t + k*u. The slice stays inside s (checked for all
// sizes), so it reads only what the old space read.
std::optional<NodeRef> reindex(ir::Graph& graph, NodeRef s, const std::vector<Index>& from,
                               const std::vector<Index>& to, const ir::Shape& space) {
  if (s->rank() > static_cast<int>(from.size()) || space.size() != to.size()) return std::nullopt;
  size_t offset = from.size() - s->rank();
  std::vector<std::pair<size_t, size_t>> kept;  // (position in to, axis of s)
  ir::Attrs cut;
  bool sliced = false;
  for (int a = 0; a < s->rank(); ++a) {
    const ir::Size& n = s->shape()[a];
    cut.sizes.push_back(0);
    cut.axes.push_back(1);
    cut.extents.push_back(n);
    if (n == ir::Size(1)) continue;
    std::optional<Linear> e = linear(from[offset + a]);
    if (!e || e->scale < 1) return std::nullopt;
    std::optional<size_t> at;
    ir::Size t;
    for (size_t b = 0; b < to.size(); ++b) {
      std::optional<Linear> l = linear(to[b]);
      if (l && l->var == e->var && l->scale == 1) at = b, t = l->rest;
    }
    if (!at) return std::nullopt;
    ir::Size start = e->rest - ir::Size(e->scale) * t;
    const ir::Size& length = space[*at];
    if (length == ir::Size(1)) return std::nullopt;  // (an axis of one would not keep its place below)
    if (start != ir::Size(0) || e->scale != 1 || length != n) {
      if (!nonnegative(start) || !nonnegative(n - start - ir::Size(e->scale) * (length - 1) - 1))
        return std::nullopt;
      cut.sizes.back() = start;
      cut.axes.back() = e->scale;
      cut.extents.back() = length;
      sliced = true;
    }
    kept.push_back({*at, static_cast<size_t>(a)});
  }
  if (sliced) s = graph.make(Op::Slice, {s}, cut);
  std::sort(kept.begin(), kept.end());
  ir::Shape target(to.size(), ir::Size(1));
  for (const auto& [b, a] : kept) target[b] = s->shape()[a];
  if (kept.empty()) target.clear();  // a scalar broadcasts anywhere
  std::vector<int64_t> squeezed_axes;
  for (int a = 0; a < s->rank(); ++a)
    if (s->shape()[a] != ir::Size(1)) squeezed_axes.push_back(a);
  std::vector<int64_t> perm;
  for (const auto& [b, a] : kept)
    perm.push_back(std::find(squeezed_axes.begin(), squeezed_axes.end(), static_cast<int64_t>(a)) - squeezed_axes.begin());
  bool in_order = std::is_sorted(perm.begin(), perm.end());
  auto reshape = [&](NodeRef x, const ir::Shape& shape) {
    if (x->shape() == shape) return x;
    ir::Attrs attrs;
    attrs.sizes = shape;
    return graph.make(Op::Reshape, {x}, attrs);
  };
  if (in_order) return reshape(s, target);  // only 1s move
  ir::Shape squeezed;
  for (int64_t a : squeezed_axes) squeezed.push_back(s->shape()[a]);
  ir::Attrs attrs;
  attrs.axes = perm;
  return reshape(graph.make(Op::Transpose, {reshape(s, squeezed)}, attrs), target);
}

// Rebuilds element-wise `e` with its operand `main` replaced and every other
// operand re-indexed from `from` to `to`.
std::optional<NodeRef> reapply(Local& local, NodeRef e, size_t main, NodeRef new_main, const std::vector<Index>& from,
                               const std::vector<Index>& to, const ir::Shape& space) {
  std::vector<NodeRef> operands;
  for (size_t j = 0; j < e->inputs().size(); ++j) {
    if (j == main) {
      operands.push_back(new_main);
      continue;
    }
    auto side = reindex(local.graph(), e->input(j), from, to, space);
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

// A transpose moved across a contraction: into its subscripts, from an
// operand (c is the contraction, p = transpose at `slot`) or from the result
// (c is the transpose of contraction p).
void layout_across(Local& local, NodeRef c, size_t slot, NodeRef p, std::vector<Proposal>& out) {
  if (c->op() == Op::Contract && p->op() == Op::Transpose) {
    ir::EinsumSpec spec = ir::EinsumSpec::parse(c->attrs().name);
    std::string& labels = spec.operands[slot];
    std::string moved(labels.size(), '?');
    for (size_t k = 0; k < labels.size(); ++k) moved[p->attrs().axes[k]] = labels[k];
    labels = moved;
    ir::Attrs attrs = c->attrs();
    attrs.name = spec.str();
    std::vector<NodeRef> inputs = c->inputs();
    inputs[slot] = p->input(0);
    out.push_back({c, local.graph().make(Op::Contract, inputs, attrs)});
  }
  if (c->op() == Op::Transpose && p->op() == Op::Contract) {
    ir::EinsumSpec spec = ir::EinsumSpec::parse(p->attrs().name);
    std::string permuted;
    for (int64_t axis : c->attrs().axes) permuted += spec.output[axis];
    spec.output = permuted;
    ir::Attrs attrs = p->attrs();
    attrs.name = spec.str();
    out.push_back({c, local.graph().make(Op::Contract, p->inputs(), attrs)});
  }
}

// Consumer `c` (element-wise, its operand `slot` is `p`) moved across
// producer `p`: onto each input of p, and onto all of them at once.
void consumer_across(Local& local, NodeRef c, size_t slot, NodeRef p, std::vector<Proposal>& out) {
  if (c->shape() != p->shape() || ir::op_kind(p->op()) == ir::OpKind::Leaf) return;
  Reads r = reads_of(p);
  std::vector<NodeRef> moved(p->inputs().size(), nullptr);
  for (size_t i = 0; i < p->inputs().size(); ++i) {
    if (p->input(i)->is_weak_scalar()) continue;
    if (auto m = reapply(local, c, slot, p->input(i), r.out, r.inputs[i], p->input(i)->shape())) {
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
    if (auto moved = reapply(local, p, main, inner, r.inputs[slot], r.out, c->shape())) out.push_back({c, *moved});
    for (size_t t = 0; t < c->inputs().size(); ++t) {
      if (t == slot || c->input(t)->is_weak_scalar()) continue;
      auto side = reapply(local, p, main, c->input(t), r.inputs[slot], r.inputs[t], c->input(t)->shape());
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
      if ((consumer.op == Op::Add || consumer.op == Op::Sub) && !factor(cls, consumer)) return false;
    }
    // Sharing is offered between the program's own contractions (first pass
    // only): offered again on its own results it would only nest concatenations.
    if (stats_.iterations == 1)
      for (ClassId c : g_.classes())
        if (!share_input(c)) return false;
    return true;
  }

  // a*c + b*c: the common operand factored out of a sum (or difference).
  bool factor(ClassId cls, const ENode& sum) {
    std::vector<ENode> lefts = g_.nodes(g_.find(sum.children[0]));
    std::vector<ENode> rights = g_.nodes(g_.find(sum.children[1]));
    for (const ENode& l : lefts) {
      for (const ENode& r : rights) {
        if (l.op != r.op || (l.op != Op::Mul && l.op != Op::Div) || l.attrs != r.attrs) continue;
        for (size_t keep = 0; keep < 2; ++keep) {
          if (l.op == Op::Div && keep == 0) continue;  // (a/c + b/c) only: the divisor is common
          if (g_.find(l.children[keep]) != g_.find(r.children[keep])) continue;
          size_t other = 1 - keep;
          Local local(g_);
          Proposal proposal;
          try {
            NodeRef a = local.leaf(l.children[other]), b = local.leaf(r.children[other]), c = local.leaf(l.children[keep]);
            proposal.before = local.node(sum, {local.node(l), local.node(r)});
            NodeRef inner = local.graph().make(sum.op, {a, b}, sum.attrs);
            proposal.after = local.graph().make(l.op, keep == 1 ? std::vector<NodeRef>{inner, c} : std::vector<NodeRef>{c, inner}, l.attrs);
          } catch (const UserError&) {
            ++stats_.ill_typed;
            continue;
          }
          if (!decide(cls, local, proposal)) return false;
        }
      }
    }
    return true;
  }

  // Two contractions of one input x with operands w1 and w2 that differ along
  // one output axis: both read from one contraction with concatenate([w1, w2]).
  bool share_input(ClassId x) {
    std::vector<std::pair<ENode, ClassId>> users;
    for (const auto& [e, c] : g_.parents(x))
      if (e.op == Op::Contract && e.children.size() == 2) users.push_back({e, g_.find(c)});
    for (size_t i = 0; i < users.size(); ++i) {
      for (size_t j = i + 1; j < users.size(); ++j) {
        const auto& [p1, c1] = users[i];
        const auto& [p2, c2] = users[j];
        if (c1 == c2 || p1.attrs != p2.attrs) continue;
        for (size_t slot = 0; slot < 2; ++slot) {
          if (g_.find(p1.children[slot]) != g_.find(x) || g_.find(p2.children[slot]) != g_.find(x)) continue;
          if (!share(x, p1, c1, p2, c2, slot)) return false;
        }
      }
    }
    return true;
  }

  bool share(ClassId x, const ENode& p1, ClassId c1, const ENode& p2, ClassId c2, size_t slot) {
    size_t other = 1 - slot;
    const ir::TensorType t1 = g_.data(p1.children[other]).type;  // copies: merges below may move class data
    const ir::TensorType t2 = g_.data(p2.children[other]).type;
    if (t1.rank() != t2.rank() || g_.find(p1.children[other]) == g_.find(p2.children[other])) return true;
    Local local(g_);
    NodeRef xs = local.leaf(x), w1 = local.leaf(p1.children[other]), w2 = local.leaf(p2.children[other]);
    NodeRef before1 = local.node(p1), before2 = local.node(p2);
    Reads r = reads_of(before1);
    for (int a = 0; a < t1.rank(); ++a) {
      bool rest_equal = true;
      for (int k = 0; k < t1.rank(); ++k) rest_equal = rest_equal && (k == a || t1.shape[k] == t2.shape[k]);
      if (!rest_equal) continue;
      // The axis must reach the output (an output index reads it) and not be read from x.
      std::optional<size_t> out_axis;
      for (size_t o = 0; o < r.out.size(); ++o)
        if (r.inputs[other][a].str() == r.out[o].str()) out_axis = o;
      if (!out_axis) continue;
      Proposal first, second;
      try {
        ir::Attrs cat;
        cat.axes = {a};
        NodeRef w = local.graph().make(Op::Concat, {w1, w2}, cat);
        std::vector<NodeRef> operands(2);
        operands[slot] = xs;
        operands[other] = w;
        NodeRef y = local.graph().make(Op::Contract, operands, p1.attrs);
        auto part = [&](const ir::Size& start, const ir::Size& length) {
          ir::Attrs s;
          for (int k = 0; k < y->rank(); ++k) {
            bool cut = static_cast<size_t>(k) == *out_axis;
            s.sizes.push_back(cut ? start : ir::Size(0));
            s.axes.push_back(1);
            s.extents.push_back(cut ? length : y->shape()[k]);
          }
          return local.graph().make(Op::Slice, {y}, s);
        };
        first = {before1, part(0, t1.shape[a])};
        second = {before2, part(t1.shape[a], t2.shape[a])};
      } catch (const UserError&) {
        ++stats_.ill_typed;
        continue;
      }
      if (!decide(c1, local, first) || !decide(c2, local, second)) return false;
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
      layout_across(local, c, slot, p, proposals);
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
