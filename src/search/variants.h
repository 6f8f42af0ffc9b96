// The algebra stage of the search: the nu-graph of a program after operator
// propagation, and the distinct variants extracted from it.
#pragma once

#include <memory>
#include <vector>

#include "algebra/propagate.h"
#include "ir/program.h"
#include "nugraph/nugraph.h"

namespace axon::search {

/// Up to `count` variants of the kernel's first result from the nu-graph
/// after propagation: structurally distinct ones first.
struct Variants {
  std::vector<ir::Function> functions;     // the original first
  std::shared_ptr<ir::Graph> graph;        // owns their nodes
  int proved = 0;                          // proposals proved during propagation
  std::vector<algebra::UsedProof> merged;  // the proven equations merged into the nu-graph
  double seconds = 0;
};
Variants program_variants(const ir::Program& program, size_t count, size_t iterations);

/// Up to `count` variants of class `root`, one per signature (which heavy
/// ops feed which) first, cheapest first within each; their nodes go to `out`.
std::vector<ir::NodeRef> distinct_variants(const nugraph::NuGraph& graph, nugraph::ClassId root, size_t count,
                                           ir::Graph& out);

}  // namespace axon::search
