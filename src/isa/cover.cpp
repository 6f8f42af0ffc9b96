#include "isa/cover.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <set>

#include "ir/graph.h"

namespace axon::isa {
namespace {

constexpr size_t kMaxFrontiers = 48;
constexpr int kRegionDepth = 3;

bool is_leaf(ir::NodeRef n) {
  return n->op() == ir::Op::Input;
}

bool expandable_power(double k) {
  double m = std::fabs(k), whole = std::floor(m);
  return m <= 8.5 && m >= 0.5 && (m == whole || m - whole == 0.5);
}

ir::NodeRef expand_power(ir::Graph& graph, ir::NodeRef x, double k) {
  double m = std::fabs(k);
  int whole = static_cast<int>(std::floor(m));
  ir::NodeRef r = m - whole == 0.5 ? graph.make(ir::Op::Sqrt, {x}, {}) : nullptr;
  for (int i = 0; i < whole; ++i) r = r ? graph.make(ir::Op::Mul, {r, x}, {}) : x;
  return k > 0 ? r : graph.make(ir::Op::Recip, {r}, {});
}

class Coverer {
 public:
  Coverer(ir::NodeRef root, const std::string& space, Synthesizer& synth) : root_(root), space_(space), synth_(synth) {
    for (ir::NodeRef n : ir::topological_order({root}))
      for (ir::NodeRef i : n->inputs()) ++uses_[i];
  }

  // A frontier: the nodes a region stops at. A Const may stay inside a
  // region (an immediate of the instruction) or be a leaf (a broadcast vector).
  using Frontier = std::vector<ir::NodeRef>;

  std::vector<Frontier> frontiers(ir::NodeRef n, int depth) {
    std::vector<Frontier> result{{}};
    for (ir::NodeRef c : n->inputs()) {
      std::vector<Frontier> options;
      if (c->op() == ir::Op::Const) {
        options = {{c}, {}};
      } else if (is_leaf(c)) {
        options = {{c}};
      } else {
        options = {{c}};
        if (depth > 1 && uses_[c] == 1)
          for (Frontier& f : frontiers(c, depth - 1)) options.push_back(std::move(f));
      }
      std::vector<Frontier> next;
      for (const Frontier& a : result)
        for (const Frontier& b : options) {
          if (next.size() >= kMaxFrontiers) break;
          Frontier f = a;
          f.insert(f.end(), b.begin(), b.end());
          next.push_back(std::move(f));
        }
      result = std::move(next);
    }
    return result;
  }

  // The region of `n` above `frontier` as a spec over the frontier's distinct nodes.
  Spec region_spec(ir::NodeRef n, const Frontier& frontier, std::vector<ir::NodeRef>& cut, bool columns) {
    Spec spec;
    spec.result_space = space_;
    spec.ranges = ranges;
    std::map<ir::NodeRef, ir::NodeRef> mapped;
    for (ir::NodeRef f : frontier) {
      if (mapped.count(f)) continue;
      // A constant leaf is a tile of the region's own type (it broadcasts into
      // it), or a column of it (broadcast along the innermost dimension: a
      // per-row scalar operand, which a target may take as an immediate).
      ir::TensorType type = f->type();
      if (f->op() == ir::Op::Const) {
        type = n->type();
        if (columns && type.rank() >= 2) type.shape.back() = ir::Size(1);
      }
      mapped[f] = spec.leaf(type, space_);
      cut.push_back(f);
    }
    std::function<ir::NodeRef(ir::NodeRef)> copy = [&](ir::NodeRef x) -> ir::NodeRef {
      if (auto it = mapped.find(x); it != mapped.end()) return it->second;
      std::vector<ir::NodeRef> inputs;
      for (ir::NodeRef i : x->inputs()) inputs.push_back(copy(i));
      ir::NodeRef made = x->op() == ir::Op::Const ? spec.graph->constant(x->attrs().value)
                                                  : spec.graph->make(x->op(), std::move(inputs), x->attrs());
      return mapped[x] = made;
    };
    spec.root = copy(n);
    spec.what = ir::op_name(n->op());
    return spec;
  }

  Cover run(const SourceLoc& loc) {
    Cover cover;
    for (ir::NodeRef n : ir::topological_order({root_})) {
      if (is_leaf(n) || n->op() == ir::Op::Const) continue;
      CoverChoice best;
      best.cost = std::numeric_limits<double>::infinity();
      for (const Frontier& f : frontiers(n, kRegionDepth)) {
        bool constants = std::any_of(f.begin(), f.end(), [](ir::NodeRef x) { return x->op() == ir::Op::Const; });
        // Column constants first: on a tie they win (a scalar operand
        // instead of a whole tile of one value).
        for (bool columns : {true, false}) {
          if (columns && (!constants || n->type().rank() < 2)) continue;
          std::vector<ir::NodeRef> cut;
          Spec spec = region_spec(n, f, cut, columns);
          std::vector<std::set<std::string>> restrictions{{}};
          for (const std::string& e : choice.engines) restrictions.push_back({e});
          for (const std::set<std::string>& engines : restrictions) {
            spec.engines = engines;
            std::optional<Lowering> lowering = synth_.lower(spec);
            if (!lowering) continue;
            double cost = choice.weigh ? choice.weigh(lowering->tree) : lowering->tree.cost;
            for (ir::NodeRef c : cut)
              if (cover.choice.count(c->id())) cost += cover.choice.at(c->id()).cost;
            if (cost < best.cost) best = CoverChoice{lowering->tree, cut, cost};
          }
        }
      }
      if (!best.tree.instr && best.tree.leaf < 0)
        throw UserError(loc, std::string("the target has no instruction that computes '") + ir::op_name(n->op()) +
                                 "' here (no proved lowering of " + ir::op_name(n->op()) + " on " + n->type().str() +
                                 " tiles)");
      if (choice.chosen) choice.chosen(best.tree);
      cover.choice[n->id()] = std::move(best);
    }
    return cover;
  }

  std::map<std::string, std::pair<int64_t, int64_t>> ranges;
  EngineChoice choice;

 private:
  ir::NodeRef root_;
  std::string space_;
  Synthesizer& synth_;
  std::map<ir::NodeRef, int> uses_;
};

}  // namespace

Cover cover_expression(ir::NodeRef root, const std::string& space, Synthesizer& synth, const SourceLoc& loc,
                       const std::map<std::string, std::pair<int64_t, int64_t>>& ranges) {
  Coverer coverer(root, space, synth);
  coverer.ranges = ranges;
  return coverer.run(loc);
}

Cover cover_expression(ir::NodeRef root, const std::string& space, Synthesizer& synth, const SourceLoc& loc,
                       const std::map<std::string, std::pair<int64_t, int64_t>>& ranges, const EngineChoice& choice) {
  Coverer coverer(root, space, synth);
  coverer.ranges = ranges;
  coverer.choice = choice;
  return coverer.run(loc);
}

ir::NodeRef rebuild_over(ir::NodeRef body, ir::Graph& into, const std::vector<ir::NodeRef>& leaves) {
  std::map<ir::NodeRef, ir::NodeRef> mapped;
  std::function<ir::NodeRef(ir::NodeRef)> copy = [&](ir::NodeRef n) -> ir::NodeRef {
    if (auto it = mapped.find(n); it != mapped.end()) return it->second;
    ir::NodeRef made;
    if (n->op() == ir::Op::Input) {
      made = leaves.at(static_cast<size_t>(n->attrs().index));
    } else if (n->op() == ir::Op::Const) {
      made = into.constant(n->attrs().value);
    } else if (n->op() == ir::Op::Pow && expandable_power(n->attrs().value)) {
      made = expand_power(into, copy(n->input(0)), n->attrs().value);
    } else {
      std::vector<ir::NodeRef> inputs;
      for (ir::NodeRef i : n->inputs()) inputs.push_back(copy(i));
      made = into.make(n->op(), std::move(inputs), n->attrs());
    }
    return mapped[n] = made;
  };
  return copy(body);
}

}  // namespace axon::isa
