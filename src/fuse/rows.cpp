#include "fuse/rows.h"

#include <cstdlib>

namespace axon::fuse {
namespace {

// Leading loops of `s` that are plain (not folded, not scanned).
int plain_prefix(const tile::Stage& s) {
  int n = 0;
  while (static_cast<size_t>(n) < s.extents.size() && !s.reduced[static_cast<size_t>(n)] && s.scan_dim != n) ++n;
  return n;
}

int common_prefix(const tile::Stage& a, const tile::Stage& b) {
  int n = std::min(plain_prefix(a), plain_prefix(b));
  int k = 0;
  while (k < n && a.extents[static_cast<size_t>(k)] == b.extents[static_cast<size_t>(k)]) ++k;
  return k;
}

std::vector<const tile::Access*> reads_of(const tile::Stage& s) {
  std::vector<const tile::Access*> r;
  for (const tile::Access& a : s.leaves) r.push_back(&a);
  for (size_t i = 0; i < s.epilogue_leaves.size(); ++i)
    if (static_cast<int>(i) != s.epilogue_result) r.push_back(&s.epilogue_leaves[i]);
  return r;
}

// Writer `w` fills buffer `b` whole, densely, row-major over its unfolded
// loops, the `shared` loops outermost.
bool writes_rows(const tile::Plan& plan, const tile::Stage& w, int shared) {
  const tile::Buffer& b = plan.buffers.at(static_cast<size_t>(w.out.buffer));
  if (w.out.offset != 0 || static_cast<int>(b.shape.size()) < shared) return false;
  std::vector<int64_t> kept;
  for (size_t d = 0; d < w.extents.size(); ++d) {
    if (w.reduced[d]) {
      if (w.out.strides[d] != 0) return false;
      continue;
    }
    kept.push_back(w.extents[d]);
  }
  int64_t elements = 1;
  for (int64_t e : kept) elements *= e;
  if (elements != b.elements()) return false;
  std::vector<int64_t> strides = tile::row_major_strides(kept);
  size_t k = 0;
  for (size_t d = 0; d < w.extents.size(); ++d) {
    if (w.reduced[d]) continue;
    if (kept[k] > 1 && w.out.strides[d] != strides[k]) return false;
    ++k;
  }
  for (int d = 0; d < shared; ++d)
    if (w.reduced[static_cast<size_t>(d)]) return false;
  return true;
}

// Reader access `a` of a member reads only row i of a buffer written by
// `w` when it runs for row i.
bool reads_own_row(const tile::Plan& plan, const tile::Stage& r, const tile::Access& a, const tile::Stage& w,
                   int shared) {
  if (a.offset != 0) return false;
  int64_t row = plan.buffers.at(static_cast<size_t>(a.buffer)).elements();
  for (int d = 0; d < shared; ++d) {
    size_t u = static_cast<size_t>(d);
    if (a.strides[u] != w.out.strides[u]) return false;
    row /= w.extents[u];
  }
  int64_t reach = 0;
  for (size_t d = static_cast<size_t>(shared); d < r.extents.size(); ++d) {
    if (a.strides[d] < 0) return false;
    reach += a.strides[d] * (r.extents[d] - 1);
  }
  return reach < row;
}

bool legal(const tile::Plan& plan, size_t first, size_t last, int shared) {
  for (size_t j = first + 1; j <= last; ++j)
    for (const tile::Access* a : reads_of(plan.stages[j]))
      for (size_t i = first; i < j; ++i) {
        const tile::Stage& w = plan.stages[i];
        if (w.out.buffer != a->buffer) continue;
        if (!writes_rows(plan, w, shared) || !reads_own_row(plan, plan.stages[j], *a, w, shared)) return false;
      }
  // One writer per buffer that the group reads; a buffer that no member reads
  // (a result, or one read after the group) may be written in parts by
  // several members, such as a concatenation's, as long as no stage outside
  // the group writes it too.
  for (size_t i = first; i <= last; ++i) {
    int b = plan.stages[i].out.buffer;
    bool read = false;
    for (size_t j = first; j <= last; ++j)
      for (const tile::Access* a : reads_of(plan.stages[j])) read = read || a->buffer == b;
    for (size_t k = 0; k < plan.stages.size(); ++k) {
      if (k == i || plan.stages[k].out.buffer != b) continue;
      if (read || k < first || k > last) return false;
    }
  }
  return true;
}

}  // namespace

std::vector<RowGroup> row_groups(const tile::Plan& plan, const std::vector<bool>& fusable,
                                 const std::function<bool(const RowGroup&)>& accept, bool narrow) {
  std::vector<RowGroup> groups;
  size_t i = 0;
  while (i < plan.stages.size()) {
    RowGroup g{i, i, fusable.at(i) ? plain_prefix(plan.stages[i]) : 0};
    while (g.shared > 0 && g.last + 1 < plan.stages.size() && fusable.at(g.last + 1)) {
      int shared = std::min(g.shared, common_prefix(plan.stages[g.last], plan.stages[g.last + 1]));
      auto takes = [&](int n) {
        return n > 0 && legal(plan, g.first, g.last + 1, n) && (!accept || accept(RowGroup{g.first, g.last + 1, n}));
      };
      while (narrow && shared > 1 && !takes(shared)) --shared;
      if (!takes(shared)) break;
      g.shared = shared;
      ++g.last;
    }
    if (g.last > g.first) groups.push_back(g);
    i = g.last + 1;
  }
  return groups;
}

std::map<int, int64_t> row_local_buffers(const tile::Plan& plan, const RowGroup& g) {
  std::map<int, int64_t> local;
  int64_t rows = 1, total = 0;
  for (int d = 0; d < g.shared; ++d) rows *= plan.stages[g.first].extents[static_cast<size_t>(d)];
  for (size_t i = g.first; i <= g.last; ++i) {
    int b = plan.stages[i].out.buffer;
    const tile::Buffer& buffer = plan.buffers.at(static_cast<size_t>(b));
    if (buffer.kind != tile::Buffer::Kind::Scratch || buffer.elements() % rows != 0) continue;
    int64_t bytes = buffer.elements() / rows * g.block * 4;
    if (bytes > kRowLocalBytes || total + bytes > kRowLocalTotalBytes) continue;
    bool outside = false;
    for (size_t k = 0; k < plan.stages.size(); ++k) {
      if (k >= g.first && k <= g.last) continue;
      const tile::Stage& other = plan.stages[k];
      outside |= other.out.buffer == b;
      for (const tile::Access& a : other.leaves) outside |= a.buffer == b;
      for (const tile::Access& a : other.epilogue_leaves) outside |= a.buffer == b;
    }
    if (!outside) local[b] = buffer.elements() / rows, total += bytes;
  }
  return local;
}

}  // namespace axon::fuse
