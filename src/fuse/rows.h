// Row fusion: consecutive loop nests that share their leading loops (the
// rows) run inside one loop over those rows, so a row's data and its
// statistics (a norm's sum of squares, a softmax's max and sum) are still in
// the cache when the next nest reads them: the row is read from memory once
// instead of once per nest.
#pragma once

#include <functional>
#include <map>
#include <vector>

#include "tile/plan.h"

namespace axon::fuse {

struct RowGroup {
  size_t first = 0, last = 0;  // stages first..last (inclusive), at least two
  int shared = 0;              // leading loops shared: loops 0..shared-1 of every member
  // Rows of the innermost shared loop that one iteration of the group's loop
  // runs: 1, or the register tile's rows of a contraction among the members
  // (each member then runs its part for `block` consecutive rows).
  int64_t block = 1;
};

/// The legal groups of `plan`, in stage order, not overlapping. Members keep
/// their leading `shared` loops unfolded (no reduction or scan along them,
/// equal extents), and a member reading what an earlier member wrote reads
/// only the same rows: the buffer is written whole by one member, densely,
/// row-major with the shared loops outermost, and read at offset 0 with the
/// same strides along the shared loops, within one row along the others.
/// `fusable(i)` says whether stage i may join a group at all (the emitter's
/// say: its tiling must keep the shared loops outer). With `accept`, a group
/// grows only while the emitter accepts it as it would become (a member that
/// would narrow the shared loops below what the emitter takes starts a new
/// group instead of spoiling this one). With `narrow`, a group the emitter
/// refuses at the loops its members share may share fewer of them instead
/// (a contraction whose rows loop is not the innermost loop it shares).
std::vector<RowGroup> row_groups(const tile::Plan& plan, const std::vector<bool>& fusable,
                                 const std::function<bool(const RowGroup&)>& accept = nullptr, bool narrow = false);

/// The most a row group keeps of one intermediate in an array of its row loop
/// (on the stack of the thread that runs the row, or the block of rows), and
/// of all of them together: well inside the smallest stack a thread gets by
/// default (2 MiB for glibc's threads with an unlimited stack rlimit).
inline constexpr int64_t kRowLocalBytes = 256 * 1024;
inline constexpr int64_t kRowLocalTotalBytes = 512 * 1024;

/// The scratch buffers of group `g` that only its members touch, with their
/// elements per row, up to kRowLocalBytes a block of g.block rows and
/// kRowLocalTotalBytes for all (the first in stage order): one member writes each whole,
/// row by row, and the members read only the row they run for (row_groups'
/// rules), so one row at a time suffices and the buffer need not exist whole.
std::map<int, int64_t> row_local_buffers(const tile::Plan& plan, const RowGroup& g);

}  // namespace axon::fuse
