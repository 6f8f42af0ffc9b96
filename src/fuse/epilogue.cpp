#include "fuse/epilogue.h"

#include <algorithm>
#include <optional>

namespace axon::fuse {
namespace {

bool reads(const tile::Stage& s, int buffer) {
  for (const tile::Access& a : s.leaves)
    if (a.buffer == buffer) return true;
  for (const tile::Access& a : s.epilogue_leaves)
    if (a.buffer == buffer) return true;
  return false;
}

// The stage that writes `buffer`, when exactly one does.
std::optional<size_t> only_writer(const tile::Plan& plan, int buffer) {
  std::optional<size_t> writer;
  for (size_t i = 0; i < plan.stages.size(); ++i) {
    if (plan.stages[i].out.buffer != buffer) continue;
    if (writer) return std::nullopt;
    writer = i;
  }
  return writer;
}

// For each loop of T (over B's shape, row-major), the loop of S that walks
// the same dimension of B; -1 for a dimension of extent 1. Empty when S's
// output does not map onto T's loops one to one.
std::vector<int> loop_map(const tile::Stage& s, const tile::Stage& t, const std::vector<int64_t>& shape) {
  std::vector<int64_t> strides = tile::row_major_strides(shape);
  if (t.extents != shape || s.out.offset != 0) return {};
  std::vector<int> map(shape.size(), -1);
  std::vector<bool> used(s.extents.size(), false);
  for (size_t k = 0; k < shape.size(); ++k) {
    if (shape[k] == 1) continue;
    for (size_t d = 0; d < s.extents.size(); ++d) {
      if (used[d] || s.reduced[d] || s.out.strides[d] != strides[k] || s.extents[d] != shape[k]) continue;
      map[k] = static_cast<int>(d);
      used[d] = true;
      break;
    }
    if (map[k] < 0) return {};
  }
  for (size_t d = 0; d < s.extents.size(); ++d)  // every kept loop of S must be one of B's dimensions
    if (!s.reduced[d] && !used[d] && s.extents[d] != 1) return {};
  return map;
}

// `a` (over T's loops) as an access over S's loops.
tile::Access over_fold(const tile::Access& a, const tile::Stage& s, const std::vector<int>& map) {
  tile::Access r;
  r.buffer = a.buffer;
  r.offset = a.offset;
  r.strides.assign(s.extents.size(), 0);
  for (size_t k = 0; k < map.size(); ++k)
    if (map[k] >= 0) r.strides[static_cast<size_t>(map[k])] = a.strides[k];
  return r;
}

// Moves the stages between `si` and `ti` that write an operand of stage
// `ti` (other than `skip`) to just before `si`, where they do not depend on
// what runs there: stage order is free between independent stages. Returns
// the new position of the stage that was at `si`.
size_t hoist_operands(tile::Plan& plan, size_t si, size_t ti, int skip) {
  for (size_t k = si + 1; k < ti; ++k) {
    const tile::Stage& candidate = plan.stages[k];
    bool operand = false;
    for (const tile::Access& a : plan.stages[ti].leaves)
      operand |= a.buffer == candidate.out.buffer && a.buffer != skip;
    if (!operand || only_writer(plan, candidate.out.buffer) != k) continue;
    bool independent = true;
    for (size_t j = si; j < k; ++j)
      independent = independent && !reads(candidate, plan.stages[j].out.buffer) &&
                    !reads(plan.stages[j], candidate.out.buffer) && plan.stages[j].out.buffer != candidate.out.buffer;
    if (!independent) continue;
    std::rotate(plan.stages.begin() + static_cast<long>(si), plan.stages.begin() + static_cast<long>(k),
                plan.stages.begin() + static_cast<long>(k + 1));
    ++si;
  }
  return si;
}

// Fuses stage `ti` into the fold `si` that writes its operand `li` (buffer
// `b`), in `trial`, a copy of the plan: true when every condition holds.
bool fuse_into(tile::Plan& trial, size_t si, size_t ti, size_t li, int b) {
  const std::vector<int64_t>& shape = trial.buffers.at(static_cast<size_t>(b)).shape;
  size_t at = hoist_operands(trial, si, ti, b);  // stage `ti` stays where it is
  const tile::Stage& s = trial.stages[at];
  const tile::Stage& t = trial.stages[ti];
  std::vector<int> map = loop_map(s, t, shape);
  for (size_t k = 0; k < trial.stages.size(); ++k)
    if (k != ti && reads(trial.stages[k], b)) return false;  // B has other readers
  for (size_t j = 0; j < t.leaves.size(); ++j) {
    if (j == li) continue;
    int other = t.leaves[j].buffer;
    if (other == b) return false;  // B read at another position too
    for (size_t k = at; k < trial.stages.size(); ++k)
      if (trial.stages[k].out.buffer == other) return false;  // not ready when S runs
  }
  tile::Stage fused = s;
  fused.what = s.what + " + " + t.what;
  fused.epilogue_graph = t.graph;
  fused.epilogue = t.body;
  fused.epilogue_result = static_cast<int>(li);
  for (const tile::Access& a : t.leaves) fused.epilogue_leaves.push_back(over_fold(a, s, map));
  fused.out = over_fold(t.out, s, map);
  trial.stages[at] = std::move(fused);
  trial.stages.erase(trial.stages.begin() + static_cast<long>(ti));
  trial.buffers[static_cast<size_t>(b)].shape = {0};
  return true;
}

// One fusion; false when no stage can be fused any more. Each success
// removes a stage, so repeating it ends.
bool fuse_one(tile::Plan& plan) {
  for (size_t ti = 0; ti < plan.stages.size(); ++ti) {
    const tile::Stage& t = plan.stages[ti];
    if (t.combine != tile::Combine::None || t.epilogue) continue;
    for (size_t li = 0; li < t.leaves.size(); ++li) {
      int b = t.leaves[li].buffer;
      const tile::Buffer& buffer = plan.buffers.at(static_cast<size_t>(b));
      if (buffer.kind != tile::Buffer::Kind::Scratch) continue;
      std::optional<size_t> si = only_writer(plan, b);
      if (!si || *si >= ti) continue;
      const tile::Stage& s = plan.stages[*si];
      if (s.combine == tile::Combine::None || s.combine == tile::Combine::Scan || s.epilogue) continue;
      if (t.leaves[li].offset != 0 || t.leaves[li].strides != tile::row_major_strides(buffer.shape)) continue;
      if (loop_map(s, t, buffer.shape).empty()) continue;
      tile::Plan trial = plan;
      if (!fuse_into(trial, *si, ti, li, b)) continue;
      plan = std::move(trial);
      return true;
    }
  }
  return false;
}

}  // namespace

int fuse_epilogues(tile::Plan& plan) {
  int fused = 0;
  while (fuse_one(plan)) ++fused;
  return fused;
}

}  // namespace axon::fuse
