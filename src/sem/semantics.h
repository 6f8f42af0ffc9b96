// The one definition of every IR op's meaning: the element of the op's
// result at given indices, as a Term over elements of its inputs.
// The prover and the lowering read this, and nothing else restates it.
#pragma once

#include <functional>
#include <vector>

#include "sem/term.h"

namespace axon::sem {

/// Supplies the element of input `i` of the op at `index`.
using ReadInput = std::function<TermRef(size_t i, const std::vector<Index>& index)>;

/// The element of `node` at `out` (one index per axis of its result). Not for
/// Input nodes, whose elements are whatever the caller says they are.
TermRef element(ir::NodeRef node, const std::vector<Index>& out, const ReadInput& read, VarSupply& vars);

/// The element of a whole DAG at `out`: leaves for which `leaf_tensor` returns
/// a number >= 0 become Reads of that tensor; Input nodes must be such leaves.
using LeafFn = std::function<int(ir::NodeRef)>;
TermRef element_of_dag(ir::NodeRef root, const std::vector<Index>& out, const LeafFn& leaf_tensor, VarSupply& vars);

/// Fresh index variables for every axis of `shape`.
std::vector<Index> fresh_indices(const ir::Shape& shape, VarSupply& vars);

}  // namespace axon::sem
