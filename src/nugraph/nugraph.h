// NuGraph: the e-graph of proven-equal Axon terms (DESIGN.md §3).
//
// Each e-class holds e-nodes whose terms are equal; e-nodes are hash-consed,
// so an operation over given classes exists at most once. Every term of a
// class has the class's one type, found by shape inference when the class's
// first e-node is added. As in egg, merge() only records a union and marks the
// graph dirty; rebuild() restores the invariants (every e-node's children are
// canonical ids, equal e-nodes are one, congruent classes are merged). A
// search of a dirty graph -- nodes(), classes(), parents(), lookup(),
// extraction, DOT -- is an internal error: call rebuild() first.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ir/graph.h"
#include "ir/shape.h"
#include "nugraph/enode.h"
#include "nugraph/union_find.h"

namespace axon::nugraph {

/// What every term of a class shares.
struct ClassData {
  ir::TensorType type;
  /// A rank-0 literal or size (Const, SizeValue): it joins arithmetic without
  /// deciding the dtype. Part of the type for merging, since parents' types
  /// depend on it.
  bool weak_scalar = false;
  /// A size-independent lower bound on the ops of any term of the class:
  /// leaves count 0, every other op 1. Kept up to date by rebuild().
  double cost_lower_bound = 0.0;
};

/// Sizes past which a search should stop; the graph itself never refuses an
/// add, the runner asks over_limit().
struct Limits {
  size_t max_nodes = 20000;
  size_t max_classes = 10000;
};

/// Why a search over the graph (the propagation runner) stopped.
enum class StopReason { Saturated, NodeLimit, IterationLimit, ProposalLimit };
const char* stop_reason_name(StopReason reason);  // "saturated", "node limit", ...

class NuGraph {
 public:
  explicit NuGraph(Limits limits = {}) : limits_(limits) {}

  /// The class of `node` (children are canonicalized first), added if new.
  /// Its type is inferred from the children's types; an ir::ShapeError
  /// propagates and leaves the graph unchanged. An Input e-node must already
  /// exist: inputs are added by add_input. Allowed on a dirty graph.
  ClassId add(ENode node);
  /// The leaf for kernel parameter `index`; adding it again with another type
  /// is an internal error.
  ClassId add_input(int64_t index, const std::string& name, const ir::TensorType& type);
  /// Adds every node of an IR DAG (iteratively, each NodeRef once) and
  /// returns the class of `root`.
  ClassId add_term(ir::NodeRef root);
  std::vector<ClassId> add_terms(const std::vector<ir::NodeRef>& roots);

  /// Records that two classes are equal; false if they already are. Both must
  /// have the same type and weak_scalar (an internal error otherwise). Marks
  /// the graph dirty until rebuild().
  bool merge(ClassId a, ClassId b);
  /// Restores hash-consing and congruence after merges (egg's deferred
  /// rebuilding) and updates cost lower bounds. Cheap when clean.
  void rebuild();
  bool dirty() const { return dirty_; }

  /// The canonical id of `id`'s class. Allowed on a dirty graph.
  ClassId find(ClassId id) const { return union_find_.find(id); }
  /// The class's data. Allowed on a dirty graph (cost bounds may lag until rebuild).
  const ClassData& data(ClassId id) const;

  // Searches: each requires a clean graph.
  /// The class's e-nodes (children canonical), in the order they were added.
  const std::vector<ENode>& nodes(ClassId id) const;
  /// Every canonical class id, ascending.
  std::vector<ClassId> classes() const;
  /// The e-nodes that use the class as a child, each once, with their
  /// classes, in e-node creation order: the producer -> consumer edges.
  std::vector<std::pair<ENode, ClassId>> parents(ClassId id) const;
  /// The class holding `node` (children canonicalized), if there is one.
  std::optional<ClassId> lookup(const ENode& node) const;

  /// Distinct e-nodes (after rebuild) and classes.
  size_t num_nodes() const { return memo_.size(); }
  size_t num_classes() const { return num_classes_; }
  const Limits& limits() const { return limits_; }
  bool over_limit() const { return num_nodes() > limits_.max_nodes || num_classes() > limits_.max_classes; }

 private:
  // Every e-node added gets an id, which is also the id of the class created
  // for it; a later merge may leave it in another class (find(id)).
  using NodeId = ClassId;

  struct EClass {
    std::vector<NodeId> members;  // live e-nodes of the class, in order
    std::vector<ENode> nodes;     // their canonical forms, for nodes()
    std::vector<NodeId> parents;  // e-nodes using this class (may hold dead ones)
    ClassData data;
  };

  Limits limits_;
  UnionFind union_find_;
  std::vector<EClass> classes_;             // by id; only roots are meaningful
  std::vector<ENode> enodes_;               // by NodeId: the current form
  std::vector<bool> dead_;                  // by NodeId: found congruent to another e-node
  std::unordered_map<ENode, NodeId> memo_;  // current form -> live e-node
  size_t num_classes_ = 0;
  bool dirty_ = false;
  std::vector<NodeId> pending_;           // e-nodes whose children were merged
  std::vector<NodeId> analysis_pending_;  // e-nodes whose children's bounds fell
  std::vector<ClassId> touched_;          // classes whose members need refreshing

  void require_clean(const char* what) const;
  ENode canonical(const ENode& node);
  ClassId create(ENode node, ClassData data);
  double node_bound(const ENode& node) const;
  ClassId union_classes(ClassId a, ClassId b);
  void repair(NodeId id);
  void update_bound(NodeId id);
  void refresh_class(ClassId id);
};

}  // namespace axon::nugraph
