// DOT export of the nu-graph, for people (`axon explore --dot`).
#pragma once

#include <string>

#include "nugraph/nugraph.h"

namespace axon::nugraph {

/// The graph in Graphviz DOT: one cluster per class ("c3: f32[M, N]"), one box
/// per e-node (its op and key attributes), and an edge from each e-node to
/// each child class (drawn to the cluster's border; numbered when the op has
/// several operands). Classes and e-nodes appear in id order, so equal graphs
/// give equal text. Needs a clean graph.
std::string to_dot(const NuGraph& graph);

}  // namespace axon::nugraph
