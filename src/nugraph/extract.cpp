#include "nugraph/extract.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <unordered_map>
#include <unordered_set>

#include "support/diag.h"

namespace axon::nugraph {
namespace {

constexpr size_t kNone = std::numeric_limits<size_t>::max();

// The classes reachable from `root` through children, ascending, each with a
// dense slot number, and for each slot the slots of the classes using it.
struct Reachable {
  std::vector<ClassId> classes;
  std::unordered_map<ClassId, size_t> slot;
  std::vector<std::vector<size_t>> users;

  size_t slot_of(ClassId id) const { return slot.at(id); }
};

Reachable reachable_from(const NuGraph& graph, ClassId root) {
  Reachable reach;
  std::unordered_set<ClassId> seen{root};
  std::vector<ClassId> stack{root};
  while (!stack.empty()) {
    ClassId id = stack.back();
    stack.pop_back();
    reach.classes.push_back(id);
    for (const ENode& node : graph.nodes(id))
      for (ClassId child : node.children)
        if (seen.insert(child).second) stack.push_back(child);
  }
  std::sort(reach.classes.begin(), reach.classes.end());
  for (size_t i = 0; i < reach.classes.size(); ++i) reach.slot.emplace(reach.classes[i], i);
  reach.users.resize(reach.classes.size());
  for (size_t i = 0; i < reach.classes.size(); ++i)
    for (const ENode& node : graph.nodes(reach.classes[i]))
      for (ClassId child : node.children) reach.users[reach.slot_of(child)].push_back(i);
  for (std::vector<size_t>& users : reach.users) {
    std::sort(users.begin(), users.end());
    users.erase(std::unique(users.begin(), users.end()), users.end());
  }
  return reach;
}

void require_clean(const NuGraph& graph, const char* what) {
  AXON_CHECK(!graph.dirty(), std::string(what) + " on a dirty nu-graph: call rebuild() first");
}

// The IR node for `node` over built operands. Every e-node of a class has the
// class's type, so inference cannot fail here.
ir::NodeRef build_term(const ENode& node, const ClassData& data, std::vector<ir::NodeRef> inputs, ir::Graph& into) {
  ir::NodeRef term = nullptr;
  if (node.op == ir::Op::Input) {
    term = into.input(node.attrs.index, node.attrs.name, data.type);
  } else {
    try {
      term = into.make(node.op, std::move(inputs), node.attrs);
    } catch (const UserError& e) {
      AXON_CHECK(false, "nu-graph e-node " + node.str() + " fails shape inference: " + e.what());
    }
  }
  AXON_CHECK(term->type() == data.type,
             "e-node " + node.str() + " built as " + term->type().str() + " in a class of " + data.type.str());
  return term;
}

}  // namespace

double default_cost(const ENode& node, const ClassData&, const std::vector<double>& child_costs) {
  double own = 1.0;
  switch (ir::op_kind(node.op)) {
    case ir::OpKind::Leaf: own = 0.0; break;
    case ir::OpKind::Contract: own = 8.0; break;
    case ir::OpKind::Reduce:
    case ir::OpKind::Scan: own = 2.0; break;
    case ir::OpKind::Unary:
    case ir::OpKind::Binary:
    case ir::OpKind::Select:
    case ir::OpKind::Layout: own = 1.0; break;
  }
  for (double child : child_costs) own += child;
  return own;
}

// ---- The cheapest term ---------------------------------------------------------

ir::NodeRef extract_best(const NuGraph& graph, ClassId root, const CostFn& cost, ir::Graph& into) {
  require_clean(graph, "extract_best");
  root = graph.find(root);
  Reachable reach = reachable_from(graph, root);
  const size_t n = reach.classes.size();

  // A worklist fixpoint: a class is re-costed when a child's cost falls. A
  // class gets a cost only from children that have one, and costs only fall,
  // so the chosen e-nodes never form a cycle and the loop ends.
  std::vector<double> best_cost(n, std::numeric_limits<double>::infinity());
  std::vector<size_t> best_node(n, kNone);
  std::deque<size_t> queue;
  std::vector<bool> queued(n, true);
  for (size_t i = 0; i < n; ++i) queue.push_back(i);
  std::vector<double> child_costs;
  while (!queue.empty()) {
    size_t i = queue.front();
    queue.pop_front();
    queued[i] = false;
    const std::vector<ENode>& nodes = graph.nodes(reach.classes[i]);
    const ClassData& data = graph.data(reach.classes[i]);
    bool improved = false;
    for (size_t k = 0; k < nodes.size(); ++k) {
      child_costs.clear();
      for (ClassId child : nodes[k].children) {
        double child_cost = best_cost[reach.slot_of(child)];
        if (std::isinf(child_cost)) break;
        child_costs.push_back(child_cost);
      }
      if (child_costs.size() != nodes[k].children.size()) continue;
      double total = cost(nodes[k], data, child_costs);
      AXON_CHECK(!std::isnan(total), "cost function returned NaN for " + nodes[k].str());
      for (double child_cost : child_costs)
        AXON_CHECK(total >= child_cost, "cost function made " + nodes[k].str() + " cheaper than an operand");
      if (total < best_cost[i]) {
        best_cost[i] = total;
        best_node[i] = k;
        improved = true;
      }
    }
    if (!improved) continue;
    for (size_t user : reach.users[i])
      if (!queued[user]) {
        queued[user] = true;
        queue.push_back(user);
      }
  }

  // Build the chosen term bottom-up with an explicit stack.
  const size_t root_slot = reach.slot_of(root);
  AXON_CHECK(best_node[root_slot] != kNone, "class c" + std::to_string(root) + " has no term of finite cost");
  std::vector<ir::NodeRef> built(n, nullptr);
  std::vector<bool> opened(n, false);
  std::vector<size_t> stack{root_slot};
  while (!stack.empty()) {
    size_t i = stack.back();
    if (built[i]) {
      stack.pop_back();
      continue;
    }
    const ENode& node = graph.nodes(reach.classes[i])[best_node[i]];
    if (!opened[i]) {
      opened[i] = true;
      for (ClassId child : node.children) {
        size_t j = reach.slot_of(child);
        if (built[j]) continue;
        AXON_CHECK(!opened[j], "the cheapest e-nodes form a cycle through c" + std::to_string(child));
        stack.push_back(j);
      }
      continue;
    }
    std::vector<ir::NodeRef> inputs;
    inputs.reserve(node.children.size());
    for (ClassId child : node.children) inputs.push_back(built[reach.slot_of(child)]);
    built[i] = build_term(node, graph.data(reach.classes[i]), std::move(inputs), into);
    stack.pop_back();
  }
  return built[root_slot];
}

// ---- Enumeration -----------------------------------------------------------------

namespace {

struct Variant {
  ir::NodeRef term;
  double cost;
};

// Semi-naive bottom-up enumeration: in round r a class combines only child
// variants known at the end of round r-1, and each combination is tried in
// exactly one round -- the first in which all its parts are known.
class Enumerator {
 public:
  Enumerator(const NuGraph& graph, ClassId root, size_t limit, ir::Graph& into)
      : graph_(graph),
        reach_(reachable_from(graph, root)),
        limit_(limit),
        into_(into),
        variants_(reach_.classes.size()),
        seen_(reach_.classes.size()),
        stable_(reach_.classes.size(), 0),
        visible_(reach_.classes.size(), 0) {}

  std::vector<Variant> run(ClassId root) {
    std::vector<size_t> candidates(reach_.classes.size());
    for (size_t i = 0; i < candidates.size(); ++i) candidates[i] = i;
    std::vector<size_t> changed_before;
    for (round_ = 0; !candidates.empty(); ++round_) {
      std::vector<size_t> changed;
      for (size_t i : candidates) {
        size_t before = variants_[i].size();
        for (const ENode& node : graph_.nodes(reach_.classes[i])) {
          if (full(i)) break;
          expand(i, node);
        }
        if (variants_[i].size() > before) changed.push_back(i);
      }
      for (size_t i : changed_before) stable_[i] = visible_[i];
      for (size_t i : changed) {
        stable_[i] = visible_[i];
        visible_[i] = variants_[i].size();
      }
      candidates.clear();
      for (size_t i : changed) candidates.insert(candidates.end(), reach_.users[i].begin(), reach_.users[i].end());
      std::sort(candidates.begin(), candidates.end());
      candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
      changed_before = std::move(changed);
    }
    // A variant takes one term per class: a value the program uses twice is
    // computed once (x - max(x) never takes x in two forms), and a class
    // inside its own term (through a cycle: mul(x, 1) for x) is itself.
    std::vector<Variant> found;
    std::unordered_set<ir::NodeRef> listed;
    for (const Variant& v : variants_[reach_.slot_of(root)]) {
      ir::NodeRef term = one_term_per_class(v.term);
      if (listed.insert(term).second) found.push_back({term, v.cost});
    }
    return found;
  }

 private:
  const NuGraph& graph_;
  Reachable reach_;
  size_t limit_;
  ir::Graph& into_;
  std::vector<std::vector<Variant>> variants_;
  std::vector<std::unordered_set<ir::NodeRef>> seen_;
  // Per class: variants [0, stable) were known before the last round, and
  // [stable, visible) were found in it.
  std::vector<size_t> stable_;
  std::vector<size_t> visible_;
  std::unordered_map<ir::NodeRef, size_t> class_of_;  // every term built -> its class slot
  size_t round_ = 0;

  bool full(size_t i) const { return variants_[i].size() >= limit_; }

  // `term` with every class's occurrences replaced by the class's first term
  // in topological order (inputs before users). Iterative.
  ir::NodeRef one_term_per_class(ir::NodeRef term) {
    std::unordered_map<size_t, ir::NodeRef> chosen;  // class slot -> its term in the result
    std::unordered_map<ir::NodeRef, ir::NodeRef> rebuilt;
    for (ir::NodeRef n : ir::topological_order({term})) {
      std::vector<ir::NodeRef> inputs;
      bool same = true;
      for (ir::NodeRef x : n->inputs()) {
        inputs.push_back(rebuilt.at(x));
        same = same && inputs.back() == x;
      }
      ir::NodeRef m = same ? n : into_.make(n->op(), std::move(inputs), n->attrs());
      if (auto c = class_of_.find(n); c != class_of_.end()) m = chosen.emplace(c->second, m).first->second;
      rebuilt[n] = m;
    }
    return rebuilt.at(term);
  }

  // Tries every combination of child variants that uses at least one found in
  // the last round: position j is the first such part.
  void expand(size_t i, const ENode& node) {
    const size_t arity = node.children.size();
    if (arity == 0) {
      if (round_ == 0) add(i, node, {});
      return;
    }
    std::vector<size_t> slots(arity);
    for (size_t p = 0; p < arity; ++p) slots[p] = reach_.slot_of(node.children[p]);
    std::vector<size_t> lo(arity), hi(arity), index(arity);
    for (size_t j = 0; j < arity; ++j) {
      bool empty = false;
      for (size_t p = 0; p < arity; ++p) {
        lo[p] = p == j ? stable_[slots[p]] : 0;
        hi[p] = p < j ? stable_[slots[p]] : visible_[slots[p]];
        empty = empty || lo[p] >= hi[p];
      }
      if (empty) continue;
      index = lo;
      while (true) {
        std::vector<const Variant*> parts(arity);
        for (size_t p = 0; p < arity; ++p) parts[p] = &variants_[slots[p]][index[p]];
        add(i, node, parts);
        if (full(i)) return;
        size_t p = arity;
        while (p > 0 && ++index[p - 1] == hi[p - 1]) {
          index[p - 1] = lo[p - 1];
          --p;
        }
        if (p == 0) break;
      }
    }
  }

  void add(size_t i, const ENode& node, const std::vector<const Variant*>& parts) {
    std::vector<ir::NodeRef> inputs;
    std::vector<double> child_costs;
    for (const Variant* part : parts) {
      inputs.push_back(part->term);
      child_costs.push_back(part->cost);
    }
    const ClassData& data = graph_.data(reach_.classes[i]);
    ir::NodeRef term = build_term(node, data, std::move(inputs), into_);
    if (seen_[i].insert(term).second) {
      variants_[i].push_back({term, default_cost(node, data, child_costs)});
      class_of_.emplace(term, i);
    }
  }
};

}  // namespace

std::vector<ir::NodeRef> enumerate_variants(const NuGraph& graph, ClassId root, size_t limit, ir::Graph& into) {
  require_clean(graph, "enumerate_variants");
  if (limit == 0) return {};
  root = graph.find(root);
  std::vector<Variant> found = Enumerator(graph, root, limit, into).run(root);
  std::stable_sort(found.begin(), found.end(), [](const Variant& a, const Variant& b) {
    if (a.cost != b.cost) return a.cost < b.cost;
    return a.term->id() < b.term->id();
  });
  std::vector<ir::NodeRef> result;
  result.reserve(found.size());
  for (const Variant& variant : found) result.push_back(variant.term);
  return result;
}

}  // namespace axon::nugraph
