#include "tile/tiling.h"

#include <algorithm>
#include <cstdlib>
#include <map>

namespace axon::tile {
namespace {

// The vector loop: the one along which most leaves are contiguous and none
// needs a gather, the output contiguous (or the loop reduced). A scan's own
// loop is a last resort: it then runs a vector at a time by prefix sums of
// the lanes where the target has them, else one lane at a time.
int choose_vec_dim(const Stage& s) {
  int best = -1;
  int64_t best_score = INT64_MIN;
  for (size_t d = 0; d < s.extents.size(); ++d) {
    bool reduced = s.reduced[d];
    if (!reduced && s.out.strides[d] != 1) continue;  // no scatters
    int64_t score = 0;
    for (const Access& a : s.leaves) {
      LaneAccess k = lane_access(a, static_cast<int>(d));
      score += k == LaneAccess::Contiguous ? 4 : k == LaneAccess::Strided ? -6 : 0;
    }
    if (static_cast<int>(d) == s.scan_dim) score -= 100;
    if (!reduced) score += 1;
    if (s.extents[d] == 1) score -= 50;
    score = score * 64 + static_cast<int64_t>(d);  // later loops break ties
    if (score > best_score) best_score = score, best = static_cast<int>(d);
  }
  return best;
}

const int kRowChoices[] = {1, 2, 3, 4, 6, 8};
const int kVectorChoices[] = {1, 2, 3, 4};

bool satisfies(const TileChoice& choice, int mr, int nv) {
  ir::Dims at{{"MR", mr}, {"NV", nv}, {"W", choice.params.lanes}};
  for (const TileConstraint& c : choice.constraints)
    if (c.lhs.evaluate(at).value_or(0) > c.bound) return false;
  return true;
}

// The steps of a stage's fold outside its vector loop (the `red` of the
// reduction panel constraint).
int64_t reduction_steps(const Stage& s, const TileParams& p) {
  int64_t red = 1;
  for (size_t d = 0; d < s.extents.size(); ++d)
    if (s.reduced[d] && static_cast<int>(d) != p.vec_dim) red *= s.extents[d];
  return red;
}

// Every point of the stage's loop nest.
int64_t points_of(const Stage& s) {
  int64_t points = 1;
  for (int64_t e : s.extents) points *= e;
  return points;
}

// What the emitter's loop skeletons support: rows only where they are
// reused or gathered, one vector along a scan's own loop, one thread where
// there is a single outer block.
void normalize(const Stage& s, bool gathers, TileParams& p) {
  bool folds = false;
  for (bool r : s.reduced) folds |= r;
  if (s.combine == Combine::None && !folds && !gathers) p.mr = 1;
  if (s.scan_dim == p.vec_dim && s.scan_dim >= 0) p.nv = 1;
}

}  // namespace

LaneAccess lane_access(const Access& access, int vec_dim) {
  if (vec_dim < 0) return LaneAccess::Broadcast;
  int64_t stride = access.strides.at(static_cast<size_t>(vec_dim));
  return stride == 0 ? LaneAccess::Broadcast : stride == 1 ? LaneAccess::Contiguous : LaneAccess::Strided;
}

TileChoice choose_tiling(const Stage& s, const TargetShape& target, TilingPolicy policy) {
  TileChoice choice;
  TileParams& p = choice.params;
  p.lanes = target.lanes;
  p.vec_dim = choose_vec_dim(s);
  bool vec_reduced = p.vec_dim >= 0 && s.reduced[static_cast<size_t>(p.vec_dim)];
  bool folds = false;
  for (bool r : s.reduced) folds |= r;
  // Register blocking pays when some leaf does not move along a kept loop:
  // the innermost such loop becomes the rows of the register tile.
  if (folds && !vec_reduced && s.scan_dim < 0) {
    for (int d = static_cast<int>(s.extents.size()) - 1; d >= 0; --d) {
      if (d == p.vec_dim || s.reduced[static_cast<size_t>(d)] || s.extents[static_cast<size_t>(d)] < 2) continue;
      bool reuse = false;
      for (const Access& a : s.leaves) reuse |= a.strides[static_cast<size_t>(d)] == 0;
      if (reuse) p.rows_dim = d;
      break;
    }
  }
  // A gathered leaf (strided along the vector loop) that is contiguous along
  // another loop: blocking that loop as rows makes the rows of a tile read
  // neighbouring elements of the same cache lines and pages.
  bool gathers = false;
  if (!folds && p.vec_dim >= 0 && s.scan_dim < 0) {
    for (const Access& a : s.leaves) {
      if (lane_access(a, p.vec_dim) != LaneAccess::Strided) continue;
      for (size_t d = 0; d < s.extents.size(); ++d)
        if (static_cast<int>(d) != p.vec_dim && a.strides[d] == 1 && s.extents[d] > 1)
          p.rows_dim = static_cast<int>(d), gathers = true;
    }
  }
  ir::Size MR = ir::Size::name("MR"), NV = ir::Size::name("NV"), W = ir::Size::name("W");
  int64_t vec_extent = p.vec_dim >= 0 ? s.extents[static_cast<size_t>(p.vec_dim)] : 1;
  int64_t red = reduction_steps(s, p);
  choice.constraints = {
      // MR * NV accumulators, NV vectors of the row-shared operand, one broadcast at a time.
      {"accumulators and operands fit in the vector registers", MR * NV + NV + 1, target.registers},
      {"a register tile does not exceed the vector loop", (NV - 1) * W, std::max<int64_t>(vec_extent - 1, 0)},
      {"the reduction panel of one register tile stays in L2", 4 * ir::Size(red) * (MR + NV * W), target.l2_bytes / 2},
  };
  if (gathers)
    choice.constraints[0] = {"the gathered rows of a tile fit in the vector registers", MR * NV + 1, target.registers};
  if (p.rows_dim >= 0)
    choice.constraints.push_back(
        {"a register tile does not exceed the row loop", MR - 1, s.extents[static_cast<size_t>(p.rows_dim)] - 1});
  else
    choice.constraints.push_back({"no row blocking without reuse", MR, 1});
  // Enumerate, keep the valid assignment with the most accumulators (reuse),
  // then the most vectors (fewer loads of shared leaves).
  int best_mr = 1, best_nv = 1;
  for (int mr : kRowChoices) {
    for (int nv : kVectorChoices) {
      ++choice.enumerated;
      if (!satisfies(choice, mr, nv)) continue;
      ++choice.valid;
      bool better = gathers ? (mr > best_mr || (mr == best_mr && nv > best_nv))
                            : (mr * nv > best_mr * best_nv || (mr * nv == best_mr * best_nv && nv > best_nv));
      if (better && policy == TilingPolicy::Search) best_mr = mr, best_nv = nv;
    }
  }
  p.mr = best_mr;
  p.nv = best_nv;
  p.threads = points_of(s) >= 32768 ? target.cores : 1;
  normalize(s, gathers, p);
  return choice;
}

namespace {

// The one loop a register-tiled sum folds, where the emitter can split it
// into blocks that keep partial sums in the output (which no operand
// aliases), else -1.
int blockable_fold(const Stage& s, const TileParams& p) {
  if (s.combine != Combine::Sum || p.rows_dim < 0 || p.vec_dim < 0 || s.epilogue_leaves.size() > 8) return -1;
  int k = -1;
  for (size_t d = 0; d < s.extents.size(); ++d) {
    if (!s.reduced[d]) continue;
    if (k >= 0 || static_cast<int>(d) == p.vec_dim) return -1;
    k = static_cast<int>(d);
  }
  for (const Access& a : s.leaves)
    if (a.buffer == s.out.buffer) return -1;
  for (const Access& a : s.epilogue_leaves)
    if (a.buffer == s.out.buffer) return -1;
  return k;
}

}  // namespace

std::vector<int> fold_blocks(const Stage& s, const TileParams& p) {
  int k = blockable_fold(s, p);
  if (k < 0) return {};
  int64_t K = s.extents[static_cast<size_t>(k)];
  if (s.extents[static_cast<size_t>(p.rows_dim)] > 4 * p.mr || K < 128) return {};  // at most 4 blocks of rows
  bool wide = false;
  for (const Access& a : s.leaves) wide |= read_down_wide_matrix(s, a, p);
  if (!wide) return {};
  return {8, 32};
}

bool read_down_wide_matrix(const Stage& s, const Access& a, const TileParams& p) {
  if (lane_access(a, p.vec_dim) != LaneAccess::Contiguous) return false;
  for (size_t d = 0; d < s.extents.size(); ++d)
    if (s.reduced[d] && std::abs(a.strides[d]) >= 1024) return true;
  return false;
}

bool may_stream(const Stage& s, const TileParams& p, const TargetShape& target) {
  if (!target.streaming_stores || p.vec_dim < 0 || p.k_block > 0) return false;
  if (lane_access(s.out, p.vec_dim) != LaneAccess::Contiguous) return false;
  if (s.scan_dim >= 0 && s.scan_dim == p.vec_dim && !p.vector_scan) return false;  // one lane at a time
  // The stage's working set: each buffer it writes or reads once, at its
  // widest access (the elements an access touches: the extents it moves along).
  std::map<int, double> footprint;
  auto touch = [&](const Access& a) {
    double bytes = 4;
    for (size_t d = 0; d < s.extents.size(); ++d)
      if (a.strides[d] != 0) bytes *= static_cast<double>(s.extents[d]);
    footprint[a.buffer] = std::max(footprint[a.buffer], bytes);
  };
  touch(s.out);
  for (const Access& a : s.leaves) touch(a);
  for (const Access& a : s.epilogue_leaves) touch(a);
  double bytes = 0;
  for (const auto& [buffer, b] : footprint) bytes += b;
  return bytes > static_cast<double>(target.last_cache_bytes);
}

std::vector<TileParams> tiling_options(const Stage& s, const TargetShape& target) {
  TileChoice choice = choose_tiling(s, target, TilingPolicy::Search);
  bool gathers = choice.constraints[0].what.rfind("the gathered", 0) == 0;
  std::vector<TileParams> options;
  for (int mr : kRowChoices) {
    for (int nv : kVectorChoices) {
      if (!satisfies(choice, mr, nv)) continue;
      for (int threads : {1, target.cores}) {
        TileParams p = choice.params;
        p.mr = mr, p.nv = nv, p.threads = threads;
        normalize(s, gathers, p);
        std::vector<int> blocks = fold_blocks(s, p);
        blocks.insert(blocks.begin(), 0);
        for (int k_block : blocks) {
          for (bool vector_scan : {true, false}) {
            if (!vector_scan && (s.scan_dim < 0 || s.scan_dim != p.vec_dim)) continue;
            p.k_block = k_block;
            p.vector_scan = vector_scan;
            for (bool stream : {false, true}) {
              p.stream = stream;
              if (stream && !may_stream(s, p, target)) continue;
              if (std::find(options.begin(), options.end(), p) == options.end()) options.push_back(p);
            }
          }
        }
      }
    }
  }
  // Register tiles whose reduction panel would not stay in L2 over the whole
  // fold, with the fold in blocks over which it does: the largest power of
  // two of at least 64 steps (partial sums kept in the output between blocks).
  if (int k = blockable_fold(s, choice.params); k >= 0 && choice.constraints.size() > 2) {
    int64_t K = s.extents[static_cast<size_t>(k)];
    const TileConstraint& panel = choice.constraints[2];
    for (int mr : kRowChoices) {
      for (int nv : kVectorChoices) {
        if (satisfies(choice, mr, nv)) continue;
        TileChoice blocked = choice;
        int64_t per_step = panel.lhs.evaluate({{"MR", mr}, {"NV", nv}, {"W", choice.params.lanes}}).value_or(0) /
                           std::max<int64_t>(1, reduction_steps(s, choice.params));
        int64_t kb = 1024;
        while (kb >= 64 && (kb >= K || kb * per_step > panel.bound)) kb /= 2;
        if (kb < 64) continue;
        blocked.constraints[2].lhs = ir::Size(kb * per_step);
        if (!satisfies(blocked, mr, nv)) continue;
        for (int threads : {1, target.cores}) {
          TileParams p = choice.params;
          p.mr = mr, p.nv = nv, p.threads = threads, p.k_block = static_cast<int>(kb);
          normalize(s, gathers, p);
          if (std::find(options.begin(), options.end(), p) == options.end()) options.push_back(p);
        }
      }
    }
  }
  // Gathers as W x W transposes: W rows of one vector.
  if (gathers && target.transposes && target.lanes > 1 && choice.params.rows_dim >= 0 &&
      s.extents[static_cast<size_t>(choice.params.rows_dim)] >= target.lanes) {
    for (int threads : {1, target.cores}) {
      TileParams p = choice.params;
      p.mr = target.lanes, p.nv = 1, p.threads = threads, p.transpose = true;
      for (bool stream : {false, true}) {
        p.stream = stream;
        if (stream && !may_stream(s, p, target)) continue;
        if (std::find(options.begin(), options.end(), p) == options.end()) options.push_back(p);
      }
    }
  }
  return options;
}

}  // namespace axon::tile
