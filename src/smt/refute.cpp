#include "smt/refute.h"

#include <cmath>
#include <random>
#include <set>

#include "eval/bind.h"
#include "eval/interpreter.h"

namespace axon::smt {
namespace {

ir::Function function_of(ir::NodeRef root, const std::map<int64_t, ir::NodeRef>& inputs) {
  ir::Function fn;
  fn.name = "obligation";
  int64_t count = inputs.empty() ? 0 : inputs.rbegin()->first + 1;
  for (int64_t i = 0; i < count; ++i) {
    auto it = inputs.find(i);
    ir::Param p;
    p.name = "t" + std::to_string(i);
    if (it != inputs.end()) p.type = it->second->type();
    fn.params.push_back(p);
  }
  fn.outputs = {root};
  return fn;
}

bool agree(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  if (std::isinf(a) || std::isinf(b)) return a == b;
  return std::fabs(a - b) <= 1e-7 * std::max(std::fabs(a), std::fabs(b)) + 1e-9;
}

std::vector<ir::Dims> size_assignments(const std::vector<std::string>& names, uint64_t seed) {
  std::vector<ir::Dims> result;
  for (int64_t all : {2, 3, 1, 9}) {
    ir::Dims d;
    for (const std::string& n : names) d[n] = all;
    result.push_back(d);
  }
  std::mt19937_64 rng(seed);
  for (int round = 0; round < 2; ++round) {
    ir::Dims d;
    for (const std::string& n : names) d[n] = 1 + static_cast<int64_t>(rng() % 5);
    result.push_back(d);
  }
  // One size at a time large (slices with constants past 5), the others 2,
  // so the work stays small.
  for (const std::string& large : names) {
    ir::Dims d;
    for (const std::string& n : names) d[n] = n == large ? 6 + static_cast<int64_t>(rng() % 65) : 2;
    result.push_back(d);
  }
  return result;
}

}  // namespace

std::map<int64_t, ir::NodeRef> shared_inputs(ir::NodeRef lhs, ir::NodeRef rhs) {
  std::map<int64_t, ir::NodeRef> inputs;
  for (ir::NodeRef n : ir::topological_order({lhs, rhs})) {
    if (n->op() != ir::Op::Input) continue;
    auto [it, fresh] = inputs.emplace(n->attrs().index, n);
    AXON_CHECK(fresh || it->second->type() == n->type(), "inputs with one index share one type");
  }
  return inputs;
}

eval::Tensor evaluate_at(ir::NodeRef root, const Counterexample& cex) {
  std::map<int64_t, ir::NodeRef> inputs = shared_inputs(root, root);
  ir::Function fn = function_of(root, inputs);
  std::vector<eval::Tensor> args = cex.inputs;
  args.resize(fn.params.size());
  return eval::evaluate(fn, args, cex.dims).at(0);
}

std::optional<Counterexample> find_difference(ir::NodeRef lhs, ir::NodeRef rhs, uint64_t seed) {
  std::map<int64_t, ir::NodeRef> inputs = shared_inputs(lhs, rhs);
  std::set<std::string> name_set;
  for (const auto& [_, node] : inputs)
    for (const ir::Size& d : node->shape())
      for (const std::string& n : d.names()) name_set.insert(n);
  for (ir::NodeRef n : ir::topological_order({lhs, rhs}))  // sizes used only inside (e.g. by a broadcast)
    for (const ir::Size& d : n->shape())
      for (const std::string& name : d.names()) name_set.insert(name);
  std::vector<std::string> names(name_set.begin(), name_set.end());
  ir::Function fl = function_of(lhs, inputs), fr = function_of(rhs, inputs);
  uint64_t round = 0;
  for (const ir::Dims& dims : size_assignments(names, seed)) {
    ++round;
    Counterexample cex;
    cex.dims = dims;
    try {
      for (size_t i = 0; i < fl.params.size(); ++i) {
        auto shape = eval::concrete_shape(fl.params[i].type.shape, dims, {});
        cex.inputs.push_back(eval::random_normal(shape, seed * 7919 + round, i));
      }
      eval::Tensor a = eval::evaluate(fl, cex.inputs, dims).at(0);
      eval::Tensor b = eval::evaluate(fr, cex.inputs, dims).at(0);
      if (a.shape != b.shape) {
        cex.lhs = cex.rhs = NAN;
        return cex;
      }
      for (size_t k = 0; k < a.data.size(); ++k) {
        if (agree(a.data[k], b.data[k])) continue;
        int64_t flat = static_cast<int64_t>(k);
        cex.index.assign(a.shape.size(), 0);
        for (size_t d = a.shape.size(); d-- > 0;) {
          cex.index[d] = flat % a.shape[d];
          flat /= a.shape[d];
        }
        cex.lhs = a.data[k];
        cex.rhs = b.data[k];
        return cex;
      }
    } catch (const UserError&) {
      continue;  // these sizes are outside the programs' domain (e.g. a slice past the end)
    }
  }
  return std::nullopt;
}

}  // namespace axon::smt
