#include "isa/synth.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <set>
#include <sstream>

#include "eval/interpreter.h"
#include "ir/graph.h"
#include "lang/load.h"

namespace axon::isa {
namespace {

using Binding = std::map<std::string, ir::Size>;

// The single size name `size` is, if it is exactly one (read in place: this
// runs for every operand of every candidate the synthesizer enumerates).
const std::string* lone_name(const ir::Size& size) {
  const ir::Size::Terms& terms = size.terms();
  if (terms.size() != 1) return nullptr;
  const auto& [monomial, coefficient] = *terms.begin();
  if (coefficient != 1 || monomial.size() != 1 || monomial[0].second != 1 || !monomial[0].first.is_name())
    return nullptr;
  return &monomial[0].first.name;
}

// Binds the instruction's size names so that its type `formal` equals
// `actual`, within the instruction's limits and the spec's ranges: the names
// `binding` lacks are appended to `added` (nothing is changed on failure, so a
// candidate that does not fit costs no copy of the binding).
bool unify(const hw::Instruction& instr, const ir::TensorType& formal, const ir::TensorType& actual, const Spec& spec,
           const Binding& binding, std::vector<std::pair<const std::string*, const ir::Size*>>& added) {
  if (formal.rank() != actual.rank()) return false;
  size_t first_added = added.size();
  auto fail = [&] {
    added.resize(first_added);
    return false;
  };
  for (int d = 0; d < formal.rank(); ++d) {
    const ir::Size& f = formal.shape[d];
    const ir::Size& a = actual.shape[d];
    if (f.is_constant()) {
      if (f != a) return fail();
      continue;
    }
    const std::string* name = lone_name(f);
    if (!name) return fail();
    if (auto bound = binding.find(*name); bound != binding.end()) {
      if (bound->second != a) return fail();
      continue;
    }
    auto earlier = std::find_if(added.begin() + static_cast<std::ptrdiff_t>(first_added), added.end(),
                                [&](const auto& entry) { return *entry.first == *name; });
    if (earlier != added.end()) {
      if (*earlier->second != a) return fail();
      continue;
    }
    // The actual size must lie within the instruction's limit.
    int64_t lo = 1, hi = int64_t{1} << 40;
    if (auto it = instr.limits.find(*name); it != instr.limits.end()) std::tie(lo, hi) = it->second;
    if (std::optional<int64_t> c = a.constant()) {
      if (*c < lo || *c > hi) return fail();
    } else {
      const std::string* spec_name = lone_name(a);
      if (!spec_name) return fail();
      auto range = spec.ranges.find(*spec_name);
      if (range == spec.ranges.end() || range->second.first < lo || range->second.second > hi) return fail();
    }
    added.emplace_back(name, &a);
  }
  return true;
}

// `unify` into `binding` itself.
bool unify(const hw::Instruction& instr, const ir::TensorType& formal, const ir::TensorType& actual, const Spec& spec,
           Binding& binding) {
  std::vector<std::pair<const std::string*, const ir::Size*>> added;
  if (!unify(instr, formal, actual, spec, binding, added)) return false;
  for (const auto& [name, size] : added) binding.emplace(*name, *size);
  return true;
}

// The instruction's result type under `binding`, when every size is bound.
std::optional<ir::TensorType> bound_result(const hw::Instruction& instr, const Binding& binding) {
  ir::TensorType type = instr.result.type;
  for (ir::Size& d : type.shape) {
    if (d.is_constant()) continue;
    const std::string* name = lone_name(d);
    if (!name) return std::nullopt;
    auto bound = binding.find(*name);
    if (bound == binding.end()) return std::nullopt;
    d = bound->second;
  }
  return type;
}

// Whether the semantics' attributes name sizes (a slice at x.shape[0], ...):
// such an instruction is only instantiated with its own size names.
bool attrs_name_sizes(const hw::Instruction& instr) {
  for (ir::NodeRef n : ir::topological_order(instr.semantics.kernel.outputs))
    for (const auto* list : {&n->attrs().sizes, &n->attrs().extents})
      for (const ir::Size& s : *list)
        if (!s.is_constant()) return true;
  return false;
}

bool binding_is_own(const Binding& binding) {
  for (const auto& [name, size] : binding)
    if (!size.is_constant() && size != ir::Size::name(name)) return false;
  return true;
}

// The ops that no algebra can make appear or vanish: a candidate must use
// exactly the spec's multiset of them (a cheap filter before evaluation).
using Signature = std::map<ir::Op, int>;

Signature signature_of(const std::vector<ir::NodeRef>& roots, const std::set<ir::NodeRef>& stop = {}) {
  Signature sig;
  for (ir::NodeRef n : ir::topological_order(roots)) {
    if (stop.count(n)) continue;
    switch (n->op()) {
      case ir::Op::Exp:
      case ir::Op::Log:
      case ir::Op::Tanh:
      case ir::Op::Sqrt:
      case ir::Op::ReduceSum:
      case ir::Op::ReduceMax:
      case ir::Op::ReduceMin:
      case ir::Op::Contract:
      case ir::Op::Cumsum:
      case ir::Op::Select: ++sig[n->op()]; break;
      case ir::Op::Div:  // a / b is a * recip(b) to the prover
      case ir::Op::Recip: ++sig[ir::Op::Recip]; break;
      case ir::Op::Input:
      case ir::Op::Const:
      case ir::Op::SizeValue:
      case ir::Op::Neg:
      case ir::Op::Abs:
      case ir::Op::Pow:
      case ir::Op::Add:
      case ir::Op::Sub:
      case ir::Op::Mul:
      case ir::Op::Max:
      case ir::Op::Min:
      case ir::Op::Transpose:
      case ir::Op::Reshape:
      case ir::Op::Broadcast:
      case ir::Op::Slice:
      case ir::Op::Concat: break;
    }
  }
  return sig;
}

bool within(const Signature& part, const Signature& whole) {
  for (const auto& [op, count] : part)
    if (!whole.count(op) || whole.at(op) < count) return false;
  return true;
}

void add_signature(Signature& into, const Signature& more) {
  for (const auto& [op, count] : more) into[op] += count;
}

// A candidate operand: a spec leaf, or a conversion (an instruction with at
// most one operand that changes type or space) applied to one.
struct Option {
  InstrTree tree;
  ir::TensorType type;
  std::string space;
  std::set<int> leaves;
};

double reciprocal_throughput(const hw::Instruction& instr, const Binding& binding, const Spec& spec) {
  ir::Dims dims;
  for (const auto& [name, range] : spec.ranges) dims[name] = range.second;
  ir::Dims at;
  for (const auto& [name, size] : binding) at[name] = size.evaluate(dims).value_or(1);
  for (const auto& [name, limit] : instr.limits)
    if (!at.count(name)) at[name] = limit.second;
  double throughput = 1;
  try {
    throughput = instr.throughput.at(at);
  } catch (const UserError&) {
  }
  return throughput > 0 ? 1.0 / throughput : 1e9;
}

ir::NodeRef build(const InstrTree& tree, const Spec& spec) {
  if (!tree.instr && tree.constant) return spec.graph->constant(*tree.constant);
  if (!tree.instr) return spec.leaves.at(tree.leaf);
  std::vector<ir::NodeRef> args;
  for (const InstrTree& a : tree.args) args.push_back(build(a, spec));
  return instantiate(*tree.instr, *spec.graph, args);
}

ir::Function spec_function(const Spec& spec, std::vector<ir::NodeRef> outputs) {
  ir::Function fn;
  fn.name = "spec";
  for (size_t i = 0; i < spec.leaves.size(); ++i)
    fn.params.push_back({"l" + std::to_string(i), spec.leaves[i]->type(), {}, {}});
  fn.outputs = std::move(outputs);
  return fn;
}

// Do both sides agree on random inputs at a few sizes? A cheap filter before the prover.
bool agrees_numerically(const Spec& spec, ir::NodeRef candidate) {
  ir::Function fn = spec_function(spec, {spec.root, candidate});
  for (int trial = 0; trial < 2; ++trial) {
    ir::Dims dims;
    for (const auto& [name, range] : spec.ranges)
      dims[name] = std::min(range.second, std::max<int64_t>(range.first, trial == 0 ? 3 : 7));
    std::mt19937_64 rng(7 + trial);
    std::normal_distribution<double> normal;
    std::uniform_real_distribution<double> positive(0.5, 2.0);
    std::vector<eval::Tensor> inputs;
    try {
      for (ir::NodeRef leaf : spec.leaves) {
        eval::Tensor t = eval::Tensor::zeros(eval::concrete_shape(leaf->shape(), dims, {}));
        for (double& v : t.data) v = trial == 0 ? normal(rng) : positive(rng);
        inputs.push_back(std::move(t));
      }
      std::vector<eval::Tensor> out = eval::evaluate(fn, inputs, dims);
      if (out[0].shape != out[1].shape) return false;
      for (size_t i = 0; i < out[0].data.size(); ++i) {
        double a = out[0].data[i], b = out[1].data[i];
        if (std::isnan(a) && std::isnan(b)) continue;
        if (!(std::fabs(a - b) <= 1e-9 * std::max({1.0, std::fabs(a), std::fabs(b)}))) return false;
      }
    } catch (const std::exception&) {
      return false;
    }
  }
  return true;
}

// The spec as one NumPy-like expression over l0, l1, ... with the leaves' types and spaces.
std::string spec_text(const Spec& spec) {
  std::function<std::string(ir::NodeRef)> text = [&](ir::NodeRef n) -> std::string {
    const ir::Attrs& a = n->attrs();
    auto arg = [&](size_t i) { return text(n->input(i)); };
    auto list = [](const std::vector<int64_t>& v) {
      std::string t;
      for (size_t i = 0; i < v.size(); ++i) t += (i ? ", " : "") + std::to_string(v[i]);
      return t;
    };
    switch (n->op()) {
      case ir::Op::Input: return "l" + std::to_string(a.index);
      case ir::Op::Const: {
        std::ostringstream v;
        v << a.value;
        return v.str();
      }
      case ir::Op::Add: return "(" + arg(0) + " + " + arg(1) + ")";
      case ir::Op::Sub: return "(" + arg(0) + " - " + arg(1) + ")";
      case ir::Op::Mul: return arg(0) + " * " + arg(1);
      case ir::Op::Div: return arg(0) + " / " + arg(1);
      case ir::Op::Neg: return "-" + arg(0);
      case ir::Op::Pow: {
        std::ostringstream v;
        v << a.value;
        return arg(0) + " ** " + v.str();
      }
      case ir::Op::Select:
        return std::string("np.where(") + arg(0) + " " + ir::cmp_text(a.cmp) + " " + arg(1) + ", " + arg(2) + ", " +
               arg(3) + ")";
      case ir::Op::Transpose: return arg(0) + ".transpose(" + list(a.axes) + ")";
      case ir::Op::Contract: {
        std::string t = "np.einsum('" + a.name + "'";
        for (size_t i = 0; i < n->inputs().size(); ++i) t += ", " + arg(i);
        return t + ")";
      }
      case ir::Op::Broadcast:
      case ir::Op::Reshape:
      case ir::Op::Slice: return std::string(ir::op_name(n->op())) + "(" + arg(0) + ", " + n->type().str() + ")";
      case ir::Op::SizeValue:
      case ir::Op::Exp:
      case ir::Op::Log:
      case ir::Op::Sqrt:
      case ir::Op::Tanh:
      case ir::Op::Abs:
      case ir::Op::Recip:
      case ir::Op::Max:
      case ir::Op::Min:
      case ir::Op::ReduceSum:
      case ir::Op::ReduceMax:
      case ir::Op::ReduceMin:
      case ir::Op::Cumsum:
      case ir::Op::Concat: break;
    }
    std::string t = std::string("np.") + ir::op_name(n->op()) + "(";
    for (size_t i = 0; i < n->inputs().size(); ++i) t += (i ? ", " : "") + arg(i);
    if (ir::op_kind(n->op()) == ir::OpKind::Reduce) t += ", axis=(" + list(a.axes) + ")";
    return t + ")";
  };
  std::string t = text(spec.root) + "  where ";
  for (size_t i = 0; i < spec.leaves.size(); ++i)
    t += (i ? ", " : "") + std::string("l") + std::to_string(i) + ": " + spec.leaves[i]->type().str() + " in " +
         spec.leaf_spaces[i];
  if (spec.leaves.empty()) t += "no leaves";
  return t + "; result in " + spec.result_space;
}

std::string spec_key(const Spec& spec) {
  std::string key = ir::print_function(spec_function(spec, {spec.root})) + "->" + spec.result_space;
  for (const std::string& s : spec.leaf_spaces) key += "|" + s;
  for (const auto& [name, range] : spec.ranges)
    key += "|" + name + ":" + std::to_string(range.first) + "-" + std::to_string(range.second);
  for (const std::string& e : spec.engines) key += "|on:" + e;
  if (spec.nontemporal) key += "|nontemporal";
  return key;
}

}  // namespace

Spec spec_from_source(const std::string& what, const std::string& text, const std::vector<std::string>& spaces,
                      const std::string& result_space, std::map<std::string, std::pair<int64_t, int64_t>> ranges) {
  auto file = std::make_shared<SourceFile>();
  file->path = "<" + what + " hole>";
  file->text = "import numpy as np\n" + text + "\n";
  ir::Program program = lang::compile_source(file);
  Spec spec;
  spec.graph = program.graph;
  for (size_t i = 0; i < program.kernel.params.size(); ++i) {
    const ir::Param& p = program.kernel.params[i];
    spec.leaves.push_back(spec.graph->input(static_cast<int64_t>(i), p.name, p.type));
    spec.leaf_spaces.push_back(spaces.at(i));
  }
  spec.root = program.kernel.outputs.at(0);
  spec.result_space = result_space;
  spec.ranges = std::move(ranges);
  spec.what = what;
  return spec;
}

ir::NodeRef Spec::leaf(const ir::TensorType& type, const std::string& space) {
  ir::NodeRef n = graph->input(static_cast<int64_t>(leaves.size()), "l" + std::to_string(leaves.size()), type);
  leaves.push_back(n);
  leaf_spaces.push_back(space);
  return n;
}

ir::NodeRef instantiate(const hw::Instruction& instr, ir::Graph& into, const std::vector<ir::NodeRef>& args) {
  std::map<ir::NodeRef, ir::NodeRef> mapped;
  for (ir::NodeRef n : ir::topological_order(instr.semantics.kernel.outputs)) {
    if (n->op() == ir::Op::Input) {
      mapped[n] = args.at(static_cast<size_t>(n->attrs().index));
      continue;
    }
    std::vector<ir::NodeRef> inputs;
    for (ir::NodeRef i : n->inputs()) inputs.push_back(mapped.at(i));
    mapped[n] = into.make(n->op(), std::move(inputs), n->attrs());
  }
  return mapped.at(instr.semantics.kernel.outputs.at(0));
}

std::string InstrTree::str() const {
  if (!instr && constant) {
    std::ostringstream v;
    v << *constant;
    return v.str();
  }
  if (!instr) return "l" + std::to_string(leaf);
  std::string text = instr->name + "(";
  for (size_t i = 0; i < args.size(); ++i) text += (i ? ", " : "") + args[i].str();
  for (const auto& [name, size] : sizes)
    if (!size.is_constant() || args.empty()) text += (args.empty() ? "" : ", ") + name + "=" + size.str();
  return text + ")";
}

std::optional<Lowering> Synthesizer::lower(const Spec& spec) {
  std::string key = spec_key(spec);
  if (auto it = cache_.find(key); it != cache_.end()) return it->second;

  std::map<const hw::Instruction*, Signature> instr_sig;
  for (const hw::Instruction& instr : target_.instructions)
    instr_sig[&instr] = signature_of(instr.semantics.kernel.outputs);
  Signature spec_sig = signature_of({spec.root});

  // Operand options: the leaves, then conversions of single leaves (loads,
  // broadcasts, transposes), and unary instructions whose primitive ops the
  // spec has (a reciprocal feeding a multiply, say).
  std::vector<Option> options;
  for (size_t i = 0; i < spec.leaves.size(); ++i)
    options.push_back({InstrTree{nullptr, static_cast<int>(i), {}, {}, 0},
                       spec.leaves[i]->type(),
                       spec.leaf_spaces[i],
                       {static_cast<int>(i)}});
  size_t num_leaf_options = options.size();
  // Neutral numbers an immediate or column operand may take (never a spec leaf).
  std::vector<Option> immediates;
  for (double c : {1.0, 0.0, -1.0}) {
    InstrTree t;
    t.constant = c;
    t.cost = 1e-3;  // on a tie, the tree that needs no invented number
    immediates.push_back({t, ir::TensorType{}, "", {}});
  }
  auto allowed = [&](const hw::Instruction& instr) {
    if (instr.nontemporal != (spec.nontemporal && instr.result.space == spec.result_space)) return false;
    return spec.engines.empty() || spec.engines.count(instr.engine) > 0;
  };
  for (const hw::Instruction& conv : target_.instructions) {
    if (conv.operands.size() > 1 || !allowed(conv) || !conv.fuses.empty()) continue;
    bool own_only = attrs_name_sizes(conv);
    if (conv.operands.empty()) {
      Binding binding;
      if (std::optional<ir::TensorType> type = bound_result(conv, binding))
        options.push_back(
            {InstrTree{&conv, -1, {}, {}, reciprocal_throughput(conv, binding, spec)}, *type, conv.result.space, {}});
      continue;
    }
    for (size_t i = 0; i < num_leaf_options; ++i) {
      const Option& leaf = options[i];
      Binding binding;
      if (conv.operands[0].space != leaf.space || !unify(conv, conv.operands[0].type, leaf.type, spec, binding))
        continue;
      if (own_only && !binding_is_own(binding)) continue;
      std::optional<ir::TensorType> type = bound_result(conv, binding);
      if (!type) continue;
      bool converts = !(*type == leaf.type && conv.result.space == leaf.space);
      // A unary instruction that keeps the leaf's type is an option when its
      // primitive ops are the spec's (a reciprocal feeding a multiply), or
      // when it has none and the leaf is narrower than the result (a column
      // negated to become an activation's bias: cheap beside the tile).
      bool narrow = leaf.type.rank() == spec.root->type().rank() && leaf.type != spec.root->type();
      if (!converts && !(instr_sig[&conv].empty() ? narrow : within(instr_sig[&conv], spec_sig))) continue;
      options.push_back({InstrTree{&conv, -1, {leaf.tree}, binding, reciprocal_throughput(conv, binding, spec)}, *type,
                         conv.result.space, leaf.leaves});
    }
  }

  // Top instructions over the options; numerically plausible ones by cost.
  struct Candidate {
    InstrTree tree;
    ir::NodeRef root;
  };
  std::vector<Candidate> plausible;
  std::set<std::string> seen;
  std::function<Signature(const InstrTree&)> tree_sig = [&](const InstrTree& t) {
    Signature sig;
    if (!t.instr) return sig;
    sig = instr_sig[t.instr];
    for (const InstrTree& a : t.args) add_signature(sig, tree_sig(a));
    return sig;
  };
  auto consider = [&](InstrTree tree) {
    if (tree_sig(tree) != spec_sig) return;
    std::string text = tree.str();
    if (!seen.insert(text).second) return;
    ++tried_;
    ir::NodeRef root = nullptr;
    try {
      root = build(tree, spec);
    } catch (const std::exception&) {
      return;  // ill-typed once instantiated
    }
    if (root->type() != spec.root->type() || !agrees_numerically(spec, root)) return;
    plausible.push_back({std::move(tree), root});
  };
  // A lone option can already be the answer (a conversion of a leaf).
  for (size_t i = num_leaf_options; i < options.size(); ++i)
    if (options[i].space == spec.result_space && options[i].type == spec.root->type() &&
        options[i].leaves.size() == spec.leaves.size())
      consider(options[i].tree);
  // Signatures only grow as operands are chosen and a tree must match the
  // spec's exactly, so a partial choice already over it is cut at once
  // (a four-operand instruction would otherwise try options^4 trees).
  std::vector<Signature> option_sig;
  for (const Option& o : options) option_sig.push_back(tree_sig(o.tree));
  for (const hw::Instruction& instr : target_.instructions) {
    if (instr.result.space != spec.result_space || !allowed(instr) || !instr.fuses.empty()) continue;
    if (!within(instr_sig[&instr], spec_sig)) continue;
    bool own_only = attrs_name_sizes(instr);
    size_t k = instr.operands.size();
    std::vector<const Option*> chosen(k);
    std::vector<Signature> partial(k + 1);
    partial[0] = instr_sig[&instr];
    std::vector<std::pair<const std::string*, const ir::Size*>> added;  // reused by every unify below
    std::vector<char> leaf_used;
    std::function<void(size_t, const Binding&)> fill = [&](size_t p, const Binding& binding) {
      if (p == k) {
        // Every leaf of the spec used (a few small indices: a flag each).
        leaf_used.assign(spec.leaves.size(), 0);
        size_t used = 0;
        bool any_leaf = false;
        for (const Option* o : chosen) {
          for (int l : o->leaves)
            if (l >= 0 && static_cast<size_t>(l) < leaf_used.size() && !leaf_used[static_cast<size_t>(l)]++) ++used;
          any_leaf |= !o->tree.constant;
        }
        if (used != spec.leaves.size() || !any_leaf) return;
        if (own_only && !binding_is_own(binding)) return;
        std::optional<ir::TensorType> type = bound_result(instr, binding);
        if (!type || *type != spec.root->type()) return;
        InstrTree tree{&instr, -1, {}, binding, reciprocal_throughput(instr, binding, spec)};
        for (const Option* o : chosen) {
          tree.args.push_back(o->tree);
          tree.cost += o->tree.cost;
        }
        consider(std::move(tree));
        return;
      }
      // An immediate, or a [P, 1] column (a per-partition operand the
      // emitter makes once as a constant column), may be a neutral number.
      const ir::TensorType& formal = instr.operands[p].type;
      bool column = formal.rank() == 2 && formal.shape[1] == ir::Size(1) && instr.result.type.rank() == 2 &&
                    instr.result.type.shape[1] != ir::Size(1);
      if (instr.operands[p].immediate || column)
        for (const Option& c : immediates) {
          partial[p + 1] = partial[p];
          chosen[p] = &c;
          fill(p + 1, binding);
        }
      for (size_t i = 0; i < options.size(); ++i) {
        const Option& o = options[i];
        if (o.space != instr.operands[p].space) continue;
        partial[p + 1] = partial[p];
        add_signature(partial[p + 1], option_sig[i]);
        if (!within(partial[p + 1], spec_sig)) continue;
        added.clear();
        if (!unify(instr, instr.operands[p].type, o.type, spec, binding, added)) continue;
        chosen[p] = &o;
        if (added.empty()) {
          fill(p + 1, binding);
          continue;
        }
        Binding next = binding;
        for (const auto& [name, size] : added) next.emplace(*name, *size);
        fill(p + 1, next);
      }
    };
    if (k > 0) fill(0, {});
  }
  std::stable_sort(plausible.begin(), plausible.end(),
                   [](const Candidate& a, const Candidate& b) { return a.tree.cost < b.tree.cost; });

  std::optional<Lowering> result;
  for (const Candidate& c : plausible) {
    smt::ProofResult proof = prover_.prove_equal(spec.root, c.root);
    if (proof.verdict != smt::Verdict::Proved) continue;
    ++proved_;
    result = Lowering{c.tree, spec_text(spec), proof};
    used_.push_back(*result);
    break;
  }
  cache_[key] = result;
  return result;
}

std::optional<Lowering> Synthesizer::prove_fusion(const hw::Instruction& fused, const hw::Instruction& first,
                                                  const hw::Instruction& then) {
  std::string key = "fusion|" + fused.name + "|" + first.name + "|" + then.name;
  if (auto it = cache_.find(key); it != cache_.end()) return it->second;
  Spec spec;
  spec.what = fused.name + " for " + first.name + " then " + then.name;
  spec.ranges = first.limits;
  spec.result_space = then.result.space;
  std::optional<Lowering> result;
  try {
    for (const hw::Operand& o : first.operands) spec.leaf(o.type, o.space);
    spec.root = instantiate(then, *spec.graph, {instantiate(first, *spec.graph, spec.leaves)});
    ir::NodeRef candidate = instantiate(fused, *spec.graph, spec.leaves);
    if (candidate->type() == spec.root->type()) {
      smt::ProofResult proof = prover_.prove_equal(spec.root, candidate);
      if (proof.verdict == smt::Verdict::Proved) {
        InstrTree tree{&fused, -1, {}, {}, 0};
        for (size_t i = 0; i < spec.leaves.size(); ++i) tree.args.push_back(InstrTree{nullptr, static_cast<int>(i), {}, {}, 0});
        result = Lowering{tree, spec_text(spec), proof};
        ++proved_;
        used_.push_back(*result);
      }
    }
  } catch (const std::exception&) {
    result.reset();  // operands that do not fit each other: no fusion
  }
  cache_[key] = result;
  return result;
}

std::string emit_text(const InstrTree& tree, const std::vector<std::string>& leaf_text, const ir::Dims& dims,
                      const std::string& result) {
  if (!tree.instr && tree.constant) return tree.str();
  if (!tree.instr) return leaf_text.at(static_cast<size_t>(tree.leaf));
  std::map<std::string, std::string> fill;
  for (size_t i = 0; i < tree.args.size(); ++i)
    fill[tree.instr->operands[i].name] = emit_text(tree.args[i], leaf_text, dims);
  for (const auto& [name, size] : tree.sizes) {
    std::optional<int64_t> value = size.evaluate(dims);
    if (!value)
      throw InternalError(__FILE__, __LINE__, "size " + size.str() + " unknown when emitting " + tree.instr->name);
    fill[name] = std::to_string(*value);
  }
  fill["result"] = result;
  return fill_emit(tree.instr->emit, fill);
}

std::string fill_emit(const std::string& pattern, const std::map<std::string, std::string>& fill) {
  std::string text;
  for (size_t i = 0; i < pattern.size(); ++i) {
    size_t close = pattern[i] == '{' ? pattern.find('}', i) : std::string::npos;
    if (close != std::string::npos) {
      auto it = fill.find(pattern.substr(i + 1, close - i - 1));
      if (it != fill.end()) {
        text += it->second;
        i = close;
        continue;
      }
    }
    text += pattern[i];
  }
  return text;
}

}  // namespace axon::isa
