#include "nugraph/nugraph.h"

#include <algorithm>

#include "support/diag.h"

namespace axon::nugraph {
namespace {

bool is_weak_scalar_op(ir::Op op) {
  return op == ir::Op::Const || op == ir::Op::SizeValue;
}

std::string class_text(ClassId id, const ClassData& data) {
  return "c" + std::to_string(id) + " (" + data.type.str() + (data.weak_scalar ? ", weak scalar" : "") + ")";
}

}  // namespace

const char* stop_reason_name(StopReason reason) {
  switch (reason) {
    case StopReason::Saturated: return "saturated";
    case StopReason::NodeLimit: return "node limit";
    case StopReason::IterationLimit: return "iteration limit";
    case StopReason::ProposalLimit: return "proposal limit";
  }
  return "?";
}

// ---- Adding ----------------------------------------------------------------

ClassId NuGraph::add(ENode node) {
  node = canonical(node);
  if (auto it = memo_.find(node); it != memo_.end()) return union_find_.find_compress(it->second);
  AXON_CHECK(node.op != ir::Op::Input, "inputs are added by add_input");
  std::vector<ir::Operand> operands;
  operands.reserve(node.children.size());
  for (ClassId child : node.children) {
    const ClassData& child_data = classes_[child].data;
    operands.push_back({child_data.type, child_data.weak_scalar});
  }
  ClassData data;
  data.type = ir::infer_type(node.op, operands, node.attrs);  // may throw: nothing has changed yet
  data.weak_scalar = is_weak_scalar_op(node.op);
  data.cost_lower_bound = node_bound(node);
  return create(std::move(node), std::move(data));
}

ClassId NuGraph::add_input(int64_t index, const std::string& name, const ir::TensorType& type) {
  ENode node;
  node.op = ir::Op::Input;
  node.attrs.index = index;
  node.attrs.name = name;
  if (auto it = memo_.find(node); it != memo_.end()) {
    ClassId id = union_find_.find_compress(it->second);
    AXON_CHECK(classes_[id].data.type == type, "input #" + std::to_string(index) + " '" + name + "' added as " +
                                                   classes_[id].data.type.str() + " and as " + type.str());
    return id;
  }
  return create(std::move(node), ClassData{type, false, 0.0});
}

ClassId NuGraph::add_term(ir::NodeRef root) {
  return add_terms({root}).front();
}

std::vector<ClassId> NuGraph::add_terms(const std::vector<ir::NodeRef>& roots) {
  std::unordered_map<ir::NodeRef, ClassId> class_of;
  for (ir::NodeRef node : ir::topological_order(roots)) {
    ClassId id;
    if (node->op() == ir::Op::Input) {
      id = add_input(node->attrs().index, node->attrs().name, node->type());
    } else {
      ENode enode{node->op(), node->attrs(), {}};
      enode.children.reserve(node->inputs().size());
      for (ir::NodeRef in : node->inputs()) enode.children.push_back(class_of.at(in));
      id = add(std::move(enode));
    }
    AXON_CHECK(classes_[id].data.type == node->type(),
               "IR node of type " + node->type().str() + " landed in " + class_text(id, classes_[id].data));
    class_of.emplace(node, id);
  }
  std::vector<ClassId> result;
  result.reserve(roots.size());
  for (ir::NodeRef root : roots) result.push_back(find(class_of.at(root)));
  return result;
}

ENode NuGraph::canonical(const ENode& node) {
  ENode result = node;
  for (ClassId& child : result.children) child = union_find_.find_compress(child);
  return result;
}

ClassId NuGraph::create(ENode node, ClassData data) {
  ClassId id = union_find_.make_set();
  AXON_CHECK(id == classes_.size() && id == enodes_.size(), "class and e-node ids out of step");
  EClass eclass;
  eclass.members = {id};
  eclass.nodes = {node};
  eclass.data = std::move(data);
  classes_.push_back(std::move(eclass));
  enodes_.push_back(node);
  dead_.push_back(false);
  for (size_t i = 0; i < node.children.size(); ++i) {
    ClassId child = node.children[i];
    // An e-node that uses a class twice (mul(x, x)) is its parent once.
    if (std::find(node.children.begin(), node.children.begin() + i, child) == node.children.begin() + i)
      classes_[child].parents.push_back(id);
  }
  memo_.emplace(std::move(node), id);
  ++num_classes_;
  return id;
}

double NuGraph::node_bound(const ENode& node) const {
  if (ir::op_kind(node.op) == ir::OpKind::Leaf) return 0.0;
  double bound = 1.0;
  for (ClassId child : node.children) bound += classes_[find(child)].data.cost_lower_bound;
  return bound;
}

// ---- Merging and rebuilding --------------------------------------------------

bool NuGraph::merge(ClassId a, ClassId b) {
  a = union_find_.find_compress(a);
  b = union_find_.find_compress(b);
  if (a == b) return false;
  const ClassData& data_a = classes_[a].data;
  const ClassData& data_b = classes_[b].data;
  AXON_CHECK(data_a.type == data_b.type && data_a.weak_scalar == data_b.weak_scalar,
             "merging " + class_text(a, data_a) + " with " + class_text(b, data_b));
  union_classes(a, b);
  return true;
}

ClassId NuGraph::union_classes(ClassId a, ClassId b) {
  ClassId root = union_find_.unite(a, b);
  ClassId other = root == a ? b : a;
  EClass absorbed = std::move(classes_[other]);
  classes_[other] = EClass{};
  EClass& kept = classes_[root];
  // The parents of the side whose bound fell may get cheaper too.
  if (absorbed.data.cost_lower_bound < kept.data.cost_lower_bound) {
    kept.data.cost_lower_bound = absorbed.data.cost_lower_bound;
    analysis_pending_.insert(analysis_pending_.end(), kept.parents.begin(), kept.parents.end());
  } else if (kept.data.cost_lower_bound < absorbed.data.cost_lower_bound) {
    analysis_pending_.insert(analysis_pending_.end(), absorbed.parents.begin(), absorbed.parents.end());
  }
  // The absorbed class's parents now name a non-canonical child.
  pending_.insert(pending_.end(), absorbed.parents.begin(), absorbed.parents.end());
  kept.members.insert(kept.members.end(), absorbed.members.begin(), absorbed.members.end());
  kept.parents.insert(kept.parents.end(), absorbed.parents.begin(), absorbed.parents.end());
  touched_.push_back(root);
  --num_classes_;
  dirty_ = true;
  return root;
}

void NuGraph::rebuild() {
  if (!dirty_ && pending_.empty() && analysis_pending_.empty()) return;
  while (!pending_.empty() || !analysis_pending_.empty()) {
    while (!pending_.empty()) {
      std::vector<NodeId> batch = std::move(pending_);
      pending_.clear();
      for (NodeId id : batch) repair(id);
    }
    while (!analysis_pending_.empty()) {
      std::vector<NodeId> batch = std::move(analysis_pending_);
      analysis_pending_.clear();
      for (NodeId id : batch) update_bound(id);
    }
  }
  union_find_.compress_all();
  for (ClassId& id : touched_) id = find(id);
  std::sort(touched_.begin(), touched_.end());
  touched_.erase(std::unique(touched_.begin(), touched_.end()), touched_.end());
  for (ClassId id : touched_) refresh_class(id);
  touched_.clear();
  dirty_ = false;
}

// Re-canonicalizes one e-node; if it now equals another e-node, the two are
// one (this one dies) and their classes are congruent, so they merge.
void NuGraph::repair(NodeId id) {
  if (dead_[id]) return;
  ENode canon = canonical(enodes_[id]);
  if (!(canon == enodes_[id])) {
    if (auto it = memo_.find(enodes_[id]); it != memo_.end() && it->second == id) memo_.erase(it);
    enodes_[id] = canon;
    touched_.push_back(union_find_.find_compress(id));
  }
  auto [it, inserted] = memo_.try_emplace(std::move(canon), id);
  if (inserted || it->second == id) return;
  dead_[id] = true;
  ClassId survivor_class = union_find_.find_compress(it->second);
  ClassId own_class = union_find_.find_compress(id);
  touched_.push_back(own_class);
  if (survivor_class == own_class) return;
  // Congruent classes have equal types: inference is a function of the children's.
  AXON_CHECK(classes_[survivor_class].data.type == classes_[own_class].data.type,
             "congruent classes with different types");
  union_classes(survivor_class, own_class);
}

void NuGraph::update_bound(NodeId id) {
  if (dead_[id]) return;
  EClass& eclass = classes_[union_find_.find_compress(id)];
  double bound = node_bound(enodes_[id]);
  if (bound >= eclass.data.cost_lower_bound) return;
  eclass.data.cost_lower_bound = bound;
  analysis_pending_.insert(analysis_pending_.end(), eclass.parents.begin(), eclass.parents.end());
}

void NuGraph::refresh_class(ClassId id) {
  EClass& eclass = classes_[id];
  std::erase_if(eclass.members, [&](NodeId member) { return dead_[member]; });
  eclass.nodes.clear();
  eclass.nodes.reserve(eclass.members.size());
  for (NodeId member : eclass.members) eclass.nodes.push_back(enodes_[member]);
  std::sort(eclass.parents.begin(), eclass.parents.end());
  eclass.parents.erase(std::unique(eclass.parents.begin(), eclass.parents.end()), eclass.parents.end());
  std::erase_if(eclass.parents, [&](NodeId parent) { return dead_[parent]; });
}

// ---- Queries -------------------------------------------------------------------

void NuGraph::require_clean(const char* what) const {
  AXON_CHECK(!dirty_, std::string(what) + " searched a dirty nu-graph: call rebuild() first");
}

const ClassData& NuGraph::data(ClassId id) const {
  return classes_[find(id)].data;
}

const std::vector<ENode>& NuGraph::nodes(ClassId id) const {
  require_clean("nodes()");
  return classes_[find(id)].nodes;
}

std::vector<ClassId> NuGraph::classes() const {
  require_clean("classes()");
  std::vector<ClassId> result;
  result.reserve(num_classes_);
  for (ClassId id = 0; id < union_find_.size(); ++id)
    if (union_find_.is_root(id)) result.push_back(id);
  return result;
}

std::vector<std::pair<ENode, ClassId>> NuGraph::parents(ClassId id) const {
  require_clean("parents()");
  std::vector<NodeId> ids = classes_[find(id)].parents;
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  std::vector<std::pair<ENode, ClassId>> result;
  result.reserve(ids.size());
  for (NodeId parent : ids)
    if (!dead_[parent]) result.emplace_back(enodes_[parent], find(parent));
  return result;
}

std::optional<ClassId> NuGraph::lookup(const ENode& node) const {
  require_clean("lookup()");
  ENode canon = node;
  for (ClassId& child : canon.children) child = find(child);
  auto it = memo_.find(canon);
  if (it == memo_.end()) return std::nullopt;
  return find(it->second);
}

}  // namespace axon::nugraph
