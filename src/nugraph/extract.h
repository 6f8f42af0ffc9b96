// Extraction: terms out of the nu-graph, as IR.
//
// extract_best picks the cheapest term of a class under a pluggable cost;
// enumerate_variants lists distinct terms. Both need a clean graph, build into
// an ir::Graph (which hash-conses, so equal terms are the same NodeRef), and
// are iterative and cycle-safe: a class only gets a term from children that
// already have one, so only finite terms come out.
#pragma once

#include <functional>
#include <vector>

#include "ir/graph.h"
#include "nugraph/nugraph.h"

namespace axon::nugraph {

/// The cost of a term whose top is `node` (in a class with `data`) and whose
/// operands cost `child_costs`. It must be at least every child's cost (so
/// that a cycle never pays); finite for a usable term.
using CostFn = std::function<double(const ENode& node, const ClassData& data, const std::vector<double>& child_costs)>;

/// A placeholder until the tuner's model: leaves 0, contractions 8,
/// reductions and scans 2, every other op 1, plus the children's costs.
double default_cost(const ENode& node, const ClassData& data, const std::vector<double>& child_costs);

/// The cheapest term of `root`'s class under `cost`, built into `into`
/// (inputs via Graph::input with the class type). Ties are broken
/// deterministically: a class keeps the first term found at its lowest cost.
ir::NodeRef extract_best(const NuGraph& graph, ClassId root, const CostFn& cost, ir::Graph& into);

/// Up to `limit` distinct terms of `root`'s class, built into `into`. Terms
/// are found in rounds of increasing depth, each class keeping at most
/// `limit`; each is then made to take one term per class (every occurrence of
/// a class becomes its first term in topological order, so a value used twice
/// is computed once, and a class inside its own term is that term), and the
/// distinct results are ordered cheapest first (default_cost of the term as
/// found), then by creation order in `into`. Deterministic.
std::vector<ir::NodeRef> enumerate_variants(const NuGraph& graph, ClassId root, size_t limit, ir::Graph& into);

}  // namespace axon::nugraph
