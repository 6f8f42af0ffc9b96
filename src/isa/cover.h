// Instruction selection for an element-wise expression: cover the expression
// DAG with synthesized instructions. Each region (a node and up to two more
// levels of single-use operands below it) is a hole; the synthesizer fills it
// with a proved instruction tree; dynamic programming keeps the cheapest
// cover. A fused instruction added to a description covers a larger region
// and wins on cost, with no code change.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "isa/synth.h"

namespace axon::isa {

struct CoverChoice {
  InstrTree tree;
  std::vector<ir::NodeRef> cut;  // the region's leaves, in the tree's leaf order
  double cost = 0;
};

struct Cover {
  std::map<int, CoverChoice> choice;  // by node id, for every covered node
  const CoverChoice& at(ir::NodeRef n) const { return choice.at(n->id()); }
};

/// Covers the expression at `root` (in a graph whose Input nodes are vector
/// values in `space` and whose Const nodes are scalars that a cover may take as
/// a broadcast leaf). Throws a UserError (at `loc`) naming the op when no
/// instruction of the target computes some node.
/// `ranges` bounds the symbolic sizes of the leaf types (tile sizes).
Cover cover_expression(ir::NodeRef root, const std::string& space, Synthesizer& synth, const SourceLoc& loc,
                       const std::map<std::string, std::pair<int64_t, int64_t>>& ranges = {});

/// How a cover may spread its instructions over engines: each region is also
/// filled on each engine of `engines` alone, and every filling is weighed by
/// `weigh` (its cost where the cheapest cover wants tree.cost: a load-aware
/// cost, say) instead of its throughput alone.
struct EngineChoice {
  std::vector<std::string> engines;
  std::function<double(const InstrTree&)> weigh;
  /// Told each node's choice as the cover makes it (in topological order), so
  /// that `weigh` can count the load the expression's earlier nodes add.
  std::function<void(const InstrTree&)> chosen;
};
Cover cover_expression(ir::NodeRef root, const std::string& space, Synthesizer& synth, const SourceLoc& loc,
                       const std::map<std::string, std::pair<int64_t, int64_t>>& ranges, const EngineChoice& choice);

/// A stage body (a scalar expression over Input leaves) rebuilt in `into`
/// over `leaves` (Input i becomes leaves[i]), constants kept, and x ** k
/// written with the products, square roots and reciprocals that define it in
/// the semantics (smt/encode.cpp: |k| an integer or half-integer up to 8.5),
/// so that a target's arithmetic can cover it.
ir::NodeRef rebuild_over(ir::NodeRef body, ir::Graph& into, const std::vector<ir::NodeRef>& leaves);

}  // namespace axon::isa
