#include "emit/cpu_walk.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <sstream>

#include "support/diag.h"

namespace axon::emit::detail {
namespace {

using tile::Access;
using tile::Combine;
using tile::LaneAccess;
using tile::Stage;

std::string float_literal(double v) {
  if (std::isinf(v)) return v > 0 ? "__builtin_inff()" : "(-__builtin_inff())";
  if (std::isnan(v)) return "__builtin_nanf(\"\")";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  std::string s = buf;
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s + "f";
}

std::string buffer_name(const tile::Plan& plan, int id) {
  const tile::Buffer& b = plan.buffers.at(static_cast<size_t>(id));
  switch (b.kind) {
    case tile::Buffer::Kind::Input: return "axon_in" + std::to_string(b.param);
    case tile::Buffer::Kind::Output: return "axon_out" + std::to_string(b.param);
    case tile::Buffer::Kind::Scratch: return "axon_t" + std::to_string(id);
  }
  return "?";
}

enum class Mode { Vec, Tail, Bcast, Lane1 };

// Refuses what the schedule may say but this walk does not yet print (see
// StageSchedule in cpu.h: no scheduler produces these values yet).
void check_implemented(const CpuSchedule& schedule, size_t stages) {
  AXON_CHECK(schedule.stages.size() == stages, "one StageSchedule per plan stage");
  for (size_t i = 0; i < stages; ++i) {
    const StageSchedule& s = schedule.stages[i];
    AXON_CHECK(s.results.size() == 1 && s.results[0] == i, "StageSchedule::results of stage " + std::to_string(i) +
                                                               ": a nest computing other stages is not printed yet");
    AXON_CHECK(s.fold == FoldKind::Plain,
               "StageSchedule::fold of stage " + std::to_string(i) + ": only FoldKind::Plain is printed yet");
    AXON_CHECK(s.order == LoopOrder::RegisterTiled || s.order == LoopOrder::KBlocked,
               "StageSchedule::order of stage " + std::to_string(i) +
                   ": only LoopOrder::RegisterTiled and LoopOrder::KBlocked are printed yet");
    AXON_CHECK((s.order == LoopOrder::KBlocked) == (s.k_block > 0) && s.k_block == s.tiling.params.k_block,
               "StageSchedule::k_block of stage " + std::to_string(i) +
                   ": blocks of the fold exactly under LoopOrder::KBlocked, as the stage's tiling says");
  }
}

// The steps of a fold that one pass of a tile covers: all of them, or one
// block of a KBlocked fold (one reduced loop from `begin` to `end`), which
// resumes from the partial sums in the output and leaves them there unless
// it is the last.
struct FoldPart {
  std::string begin, end;  // empty: every step
  bool resume = false;
  bool finish = true;
};

class Walker {
 public:
  Walker(const tile::Plan& plan, const ir::Function& fn, const CpuSchedule& schedule, const hw::Description& target,
         LoweringSource& source)
      : plan_(plan),
        fn_(fn),
        schedule_(schedule),
        target_(target),
        source_(source),
        shape_(schedule.shape),
        reg_(schedule.registers) {}

  KernelWalk run() {
    check_implemented(schedule_, plan_.stages.size());
    KernelWalk k;
    std::ostringstream body;
    const std::vector<fuse::RowGroup>& groups = schedule_.row_groups;
    size_t next_group = 0;
    for (size_t i = 0; i < plan_.stages.size(); ++i) {
      const fuse::RowGroup* group = next_group < groups.size() ? &groups[next_group] : nullptr;
      if (group && group->first == i) {
        body << open_rows(*group);
        for (const auto& [b, floats] : row_local_) k.row_local.insert(b);
      }
      out_.str("");
      listing_.clear();
      step_cost_.clear();
      stage_index_ = i;
      tile::TileParams p = schedule_.stages[i].tiling.params;
      bool grouped = group && group->first <= i && i <= group->last;
      if (!grouped) {
        emit_stage(plan_.stages[i], p, static_cast<int>(i));
      } else {
        p.threads = 1;  // the row loop is the parallel one
        if (p.rows_dim >= 0) {
          // Its register tiles cover the group's block of rows.
          bound_ = group->shared - 1;
          rows_from_group_ = true;
          emit_stage(plan_.stages[i], p, static_cast<int>(i));
          rows_from_group_ = false;
        } else if (group->block > 1) {
          // One row of the block at a time.
          int d = group->shared - 1;
          std::string var = "i" + std::to_string(d);
          int64_t extent = plan_.stages[i].extents[static_cast<size_t>(d)];
          line("for (int64_t " + var + " = " + group_r0_ + "; " + var + " < " + group_r0_ + " + " +
               std::to_string(group->block) + " && " + var + " < " + std::to_string(extent) + "; ++" + var + ") {");
          ++indent_;
          bound_ = group->shared;
          emit_stage(plan_.stages[i], p, static_cast<int>(i));
          close();
        } else {
          bound_ = group->shared;
          emit_stage(plan_.stages[i], p, static_cast<int>(i));
        }
      }
      bound_ = 0;
      body << out_.str();
      k.stages.push_back({listing_, step_cost_});
      if (grouped && group->last == i) {
        out_.str("");
        close();
        close();
        body << out_.str();
        ++next_group;
        AXON_CHECK(fence_indent_ < 0, "the fence of a row group's streaming stores was printed");
        row_local_.clear();
        group_shared_ = 0;
        group_block_ = 1;
      }
    }
    k.body = body.str();
    k.extra_scratch = extra_scratch_;
    return k;
  }

 private:
  const tile::Plan& plan_;
  const ir::Function& fn_;
  const CpuSchedule& schedule_;
  const hw::Description& target_;
  LoweringSource& source_;
  const tile::TargetShape& shape_;
  const std::string& reg_;
  size_t stage_index_ = 0;
  std::ostringstream out_;
  std::vector<std::string> listing_;
  std::map<std::string, double> step_cost_;
  double evaluation_cost_ = 0;    // the steps of the evaluation being printed
  const Stage* stage_ = nullptr;  // the stage being emitted, for its epilogue
  int vec_dim_ = -1;
  bool in_epilogue_ = false;
  int bound_ = 0;  // leading loops bound by an enclosing row group
  // The open row group's scratch buffers that live one row at a time in a
  // local array of the row loop (buffer -> floats per row).
  std::map<int, int64_t> row_local_;
  // The open row group's shared loops and block of rows; the expression of
  // the block's first row (of loop group_shared_ - 1).
  int group_shared_ = 0;
  int64_t group_block_ = 1;
  std::string group_r0_;
  bool rows_from_group_ = false;  // the stage's rows loop is the group's block
  // Streaming stores: whether the stage being walked stores its full output
  // vectors with them; the fence the next parallel loop opened (open_outer,
  // open_rows) must run on each of its threads after its share, and, once
  // that loop is open, the indent at which closing it prints the fence
  // (inside a parallel region of its own when the loop is shared).
  bool stream_ = false;
  std::string fence_;
  int fence_indent_ = -1;
  bool fence_region_ = false;
  int indent_ = 1;
  int next_var_ = 0;

  const isa::Lowering* hole(const std::string& name, bool required = true) {
    return source_.hole(stage_index_, name, required);
  }

  // ---- text helpers ----

  void line(const std::string& text) { out_ << std::string(static_cast<size_t>(2 * indent_), ' ') << text << "\n"; }
  std::string fresh(const std::string& prefix) { return prefix + std::to_string(next_var_++); }

  std::string pointer(const Access& a, const std::vector<std::string>& idx) {
    // A row-local buffer holds only the row the group's shared loops name.
    // (A block of rows: the row's place in the block.)
    bool local = row_local_.count(a.buffer) > 0;
    std::string text =
        (local ? row_buffer_name(a.buffer) : buffer_name(plan_, a.buffer)) + " + " + std::to_string(a.offset);
    for (size_t d = 0; d < a.strides.size(); ++d) {
      if (a.strides[d] == 0) continue;
      if (local && static_cast<int>(d) < group_shared_ - 1) continue;
      if (local && static_cast<int>(d) == group_shared_ - 1) {
        if (group_block_ > 1) text += " + " + std::to_string(a.strides[d]) + " * (" + idx.at(d) + " - " + group_r0_ + ")";
        continue;
      }
      text += " + " + std::to_string(a.strides[d]) + " * " + idx.at(d);
    }
    return "(" + text + ")";
  }

  static std::string row_buffer_name(int b) { return "axon_row_t" + std::to_string(b); }

  std::string apply(const std::string& hole_name, const std::string& arg, ir::Dims dims = {}) {
    return text_of(hole_name, hole(hole_name)->tree, {arg}, dims);
  }

  // ---- one value of the stage's step (or body) at `idx` ----

  // The stage's body over vector leaves, folded into an accumulator when
  // `combine` is given: the covered expression `key` of the stage.
  const CoveredTile& make_tile(const std::string& key, const Stage& s, Combine combine) {
    return source_.tile(stage_index_, key, [&] {
      CoveredTile t;
      ir::TensorType vec{ir::DType::F32, {ir::Size(shape_.lanes)}};
      for (size_t i = 0; i < s.leaves.size(); ++i)
        t.leaves.push_back(t.graph->input(static_cast<int64_t>(i), "l" + std::to_string(i), vec));
      ir::NodeRef body = isa::rebuild_over(s.body, *t.graph, t.leaves);
      if (body->rank() == 0) body = t.graph->make(ir::Op::Broadcast, {body}, attrs_broadcast());
      if (combine != Combine::None) {
        t.acc = t.graph->input(static_cast<int64_t>(s.leaves.size()), "acc", vec);
        ir::Op op = combine == Combine::Max ? ir::Op::Max : combine == Combine::Min ? ir::Op::Min : ir::Op::Add;
        body = t.graph->make(op, {t.acc, body}, {});
      }
      t.root = body;
      return t;
    });
  }

  ir::Attrs attrs_broadcast() {
    ir::Attrs a;
    a.sizes = {ir::Size(shape_.lanes)};
    return a;
  }

  // Loads the leaves at `idx` in `mode` and evaluates the tile; returns the variable.
  std::string evaluate(const Stage& s, const CoveredTile& t, int vec_dim, const std::vector<std::string>& idx,
                       Mode mode, int tail, const std::string& acc) {
    std::map<int, std::string> values;
    if (t.acc) values[t.acc->id()] = acc;
    for (size_t i = 0; i < s.leaves.size(); ++i) {
      if (!used_leaf(t, t.leaves[i])) continue;
      if (auto tr = transposed_.find({i, index_key(idx)}); tr != transposed_.end() && mode == Mode::Vec) {
        values[t.leaves[i]->id()] = tr->second;
        continue;
      }
      const Access& a = s.leaves[i];
      std::string p = pointer(a, idx);
      if (auto pk = packed_.find(i); pk != packed_.end() && vec_dim >= 0)
        p = pk->second.prefix + idx[static_cast<size_t>(pk->second.dim)] + " - " + pk->second.base + ")";
      values[t.leaves[i]->id()] = load(a, p, vec_dim, mode, tail);
    }
    return costed_node(t, values, "compute");
  }

  // Evaluates tile `t` once and notes the summed cost of its steps as
  // `role`'s step cost (the largest over the stage's evaluations).
  std::string costed_node(const CoveredTile& t, std::map<int, std::string>& values, const std::string& role) {
    evaluation_cost_ = 0;
    std::string v = emit_node(t, t.root, values);
    double& noted = step_cost_[role];
    noted = std::max(noted, evaluation_cost_);
    return v;
  }

  // Leaf `a` at address `p`: one vector (or its first `tail` lanes) along the vector loop.
  std::string load(const Access& a, const std::string& p, int vec_dim, Mode mode, int tail) {
    LaneAccess kind = tile::lane_access(a, vec_dim);
    std::string text;
    if (kind == LaneAccess::Broadcast || mode == Mode::Bcast)
      text = apply("load_bcast", p);
    else if (mode == Mode::Lane1)
      text = apply("load_tail", p, {{"R", 1}});
    else if (kind == LaneAccess::Contiguous)
      text = mode == Mode::Vec ? apply("load", p) : apply("load_tail", p, {{"R", tail}});
    else {
      int64_t stride = a.strides.at(static_cast<size_t>(vec_dim));
      text = mode == Mode::Vec ? apply("load_strided", p, {{"S", stride}})
                               : apply("load_strided_tail", p, {{"R", tail}, {"S", stride}});
    }
    std::string v = fresh("x");
    line("const auto " + v + " = " + text + ";");
    return v;
  }

  // The stage's epilogue over the folded `value` at `idx` (a fused consumer:
  // the value is stored through it).
  std::string epilogue(const Stage& s, const std::string& value, int vec_dim, const std::vector<std::string>& idx,
                       Mode mode, int tail) {
    const CoveredTile& t = source_.tile(stage_index_, "epilogue", [&] {
      CoveredTile e;
      ir::TensorType vec{ir::DType::F32, {ir::Size(shape_.lanes)}};
      for (size_t i = 0; i < s.epilogue_leaves.size(); ++i)
        e.leaves.push_back(e.graph->input(static_cast<int64_t>(i), "l" + std::to_string(i), vec));
      e.acc = e.leaves.at(static_cast<size_t>(s.epilogue_result));
      e.root = isa::rebuild_over(s.epilogue, *e.graph, e.leaves);
      if (e.root->rank() == 0) e.root = e.graph->make(ir::Op::Broadcast, {e.root}, attrs_broadcast());
      return e;
    });
    const std::vector<ir::NodeRef>& leaves = t.leaves;
    std::map<int, std::string> values{{t.acc->id(), value}};
    for (size_t i = 0; i < s.epilogue_leaves.size(); ++i) {
      if (static_cast<int>(i) == s.epilogue_result || !used_leaf(t, leaves[i])) continue;
      const Access& a = s.epilogue_leaves[i];
      values[leaves[i]->id()] = load(a, pointer(a, idx), vec_dim, mode, tail);
    }
    in_epilogue_ = true;  // its steps are listed (and costed) apart from the body's
    std::string result = costed_node(t, values, "epilogue");
    in_epilogue_ = false;
    return result;
  }

  bool used_leaf(const CoveredTile& t, ir::NodeRef leaf) {
    for (ir::NodeRef n : ir::topological_order({t.root}))
      if (n == leaf) return true;
    return false;
  }

  std::string emit_node(const CoveredTile& t, ir::NodeRef n, std::map<int, std::string>& values) {
    if (auto it = values.find(n->id()); it != values.end()) return it->second;
    std::string text;
    if (n->op() == ir::Op::Const) {
      text = text_of("splat", hole("splat")->tree, {float_literal(n->attrs().value)}, {});
    } else {
      const isa::CoverChoice& c = t.cover.at(n);
      std::vector<std::string> args;
      for (ir::NodeRef x : c.cut) args.push_back(emit_node(t, x, values));
      text = text_of(in_epilogue_ ? "epilogue" : "compute", c.tree, args, {});
    }
    std::string v = fresh("v");
    line("const auto " + v + " = " + text + ";");
    return values[n->id()] = v;
  }

  // `partial`: a fold's partial sum, kept in the output without the epilogue.
  void store(std::string value, const Access& out, const std::vector<std::string>& idx, Mode mode, int tail,
             bool partial = false) {
    if (stage_ && stage_->epilogue && !partial) value = epilogue(*stage_, value, vec_dim_, idx, mode, tail);
    std::string p = pointer(out, idx);
    // One element whose lanes are all equal: store lane 0 when the target can
    // (a masked store is slow on some machines).
    if ((mode == Mode::Lane1 || mode == Mode::Bcast) && hole("store_lane0", false)) {
      line(text_of("store_lane0", hole("store_lane0")->tree, {value}, {}, p) + ";");
      return;
    }
    if (mode == Mode::Vec)
      line(text_of("store", hole(stream_ && !partial ? "store_stream" : "store")->tree, {value}, {}, p) + ";");
    else
      line(text_of("store_tail", hole("store_tail")->tree, {value},
                   {{"R", mode == Mode::Vec || mode == Mode::Tail ? tail : 1}}, p) +
           ";");
  }

  // ---- the sketch: loops around the holes ----

  void open_loop(const std::string& var, int64_t extent) {
    line("for (int64_t " + var + " = 0; " + var + " < " + std::to_string(extent) + "; ++" + var + ") {");
    ++indent_;
  }
  void close() {
    --indent_;
    line("}");
    if (indent_ != fence_indent_) return;
    line(fence_ + ";  // each thread: its streaming stores reach memory before the others go on");
    if (fence_region_) {
      --indent_;
      line("}");
    }
    fence_.clear();
    fence_indent_ = -1;
    fence_region_ = false;
  }

  // Opens the loop a stage's (or row group's) threads share, `parts` of them:
  // one parallel loop, or, when its streaming stores need their fence, a
  // parallel region whose threads each run the fence after their share.
  void open_parallel_loop(const std::string& var, int64_t extent, int parts) {
    bool fence = !fence_.empty() && fence_indent_ < 0;
    if (parts > 1 && fence) {
      line("#pragma omp parallel num_threads(" + std::to_string(parts) + ")");
      line("{");
      ++indent_;
      line("#pragma omp for schedule(static) nowait");
      fence_region_ = true;
    } else if (parts > 1) {
      line("#pragma omp parallel for schedule(static) num_threads(" + std::to_string(parts) + ")");
    }
    if (fence) fence_indent_ = indent_;
    open_loop(var, extent);
  }

  // The fence of the target's streaming store, as its lowering names it.
  std::string stream_fence() {
    const isa::Lowering* l = hole("store_stream");
    std::function<std::string(const isa::InstrTree&)> find = [&](const isa::InstrTree& t) -> std::string {
      if (t.instr && t.instr->nontemporal) return t.instr->fence;
      for (const isa::InstrTree& a : t.args)
        if (std::string f = find(a); !f.empty()) return f;
      return "";
    };
    std::string f = find(l->tree);
    AXON_CHECK(!f.empty(), "a streaming store's lowering has a nontemporal instruction with a fence");
    return f;
  }

  // Whether stage `i` (the stage being walked) stores full vectors streaming.
  bool streams(size_t i) {
    const tile::TileParams& p = schedule_.stages[i].tiling.params;
    if (!p.stream || p.k_block > 0 || row_local_.count(plan_.stages[i].out.buffer)) return false;
    return source_.hole(i, "store_stream", false) != nullptr;
  }

  // One parallel loop over the product of `dims` (and `extra` outer blocks),
  // binding i<d> for each dim; returns with the loop open.
  // A row group: one loop over the shared leading loops, binding i0, i1, ...
  // for its members; returns the text that opens it.
  std::string open_rows(const fuse::RowGroup& g) {
    out_.str("");
    const Stage& s = plan_.stages[g.first];
    int threads = 1;
    for (size_t i = g.first; i <= g.last; ++i) threads = std::max(threads, schedule_.stages[i].tiling.params.threads);
    // The innermost shared loop in blocks of g.block rows.
    int inner = g.shared - 1;
    int64_t blocks = (s.extents[static_cast<size_t>(inner)] + g.block - 1) / g.block;
    int64_t total = blocks;
    for (int d = 0; d < inner; ++d) total *= s.extents[static_cast<size_t>(d)];
    line("{  // stages " + std::to_string(g.first) + "-" + std::to_string(g.last) + " fused over their first " +
         std::to_string(g.shared) + " loop(s)" +
         (g.block > 1 ? ", " + std::to_string(g.block) + " rows at a time" : std::string()) +
         ": each row stays in cache from one stage to the next");
    ++indent_;
    row_local_ = fuse::row_local_buffers(plan_, g);
    for (size_t i = g.first; i <= g.last && fence_.empty(); ++i)
      if (streams(i)) {
        size_t saved = stage_index_;
        stage_index_ = i;
        fence_ = stream_fence();
        stage_index_ = saved;
      }
    open_parallel_loop("row", total, threads > 1 && total > 1 ? threads : 1);
    line("int64_t row_rest = row;");
    group_shared_ = g.shared;
    group_block_ = g.block;
    for (int d = inner; d >= 0; --d) {
      int64_t e = d == inner ? blocks : s.extents[static_cast<size_t>(d)];
      std::string var = "i" + std::to_string(d);
      if (d == inner && g.block > 1) {
        var = "row_first";
        line("const int64_t " + var + " = row_rest % " + std::to_string(e) + " * " + std::to_string(g.block) + ";");
      } else {
        line("const int64_t " + var + " = row_rest % " + std::to_string(e) + ";");
      }
      if (d == inner) group_r0_ = var;
      line("row_rest /= " + std::to_string(e) + ";");
    }
    line("(void)row_rest;");
    for (const auto& [b, floats] : row_local_)
      line("alignas(64) float " + row_buffer_name(b) + "[" + std::to_string((floats * g.block + 15) / 16 * 16) +
           "];  // " + (g.block > 1 ? "the block's rows" : std::string("one row")) + " of " + buffer_name(plan_, b));
    return out_.str();
  }

  void open_outer(const Stage& s, std::vector<int> dims, int64_t extra, const std::string& extra_var, int threads) {
    dims.erase(std::remove_if(dims.begin(), dims.end(), [&](int d) { return d < bound_; }), dims.end());
    int64_t total = extra;
    for (int d : dims) total *= s.extents[static_cast<size_t>(d)];
    open_parallel_loop("blk", total, threads > 1 && total > 1 ? threads : 1);
    decode_blocks(s, dims, extra, extra_var);
  }

  // Binds `extra_var` (of `extra` values) and i<d> for each of `dims` from
  // blk. The blocks of the vector (and row) loops vary fastest, the outer
  // loops slowest: consecutive iterations of a thread touch neighbouring memory.
  void decode_blocks(const Stage& s, const std::vector<int>& dims, int64_t extra, const std::string& extra_var) {
    line("int64_t rest = blk;");
    if (!extra_var.empty()) {
      line("const int64_t " + extra_var + " = rest % " + std::to_string(extra) + ";");
      line("rest /= " + std::to_string(extra) + ";");
    }
    for (auto it = dims.rbegin(); it != dims.rend(); ++it) {
      int64_t e = s.extents[static_cast<size_t>(*it)];
      line("const int64_t i" + std::to_string(*it) + " = rest % " + std::to_string(e) + ";");
      line("rest /= " + std::to_string(e) + ";");
    }
    line("(void)rest;");
  }

  std::vector<std::string> base_index(const Stage& s) {
    std::vector<std::string> idx;
    for (size_t d = 0; d < s.extents.size(); ++d) idx.push_back("i" + std::to_string(d));
    return idx;
  }

  void emit_stage(const Stage& s, const tile::TileParams& p, int number) {
    stage_ = &s;
    vec_dim_ = p.vec_dim;
    stream_ = streams(stage_index_);
    if (stream_ && bound_ == 0) fence_ = stream_fence();  // else the row group's loop runs it
    line("{  // stage " + std::to_string(number) + ": " + s.what + " over [" + extents_text(s) + "]" +
         (s.combine != Combine::None ? ", fold " + std::string(tile::combine_name(s.combine)) : "") +
         "; W=" + std::to_string(p.lanes) + " MR=" + std::to_string(p.mr) + " NV=" + std::to_string(p.nv) +
         " threads=" + std::to_string(p.threads) + (p.k_block > 0 ? " k_block=" + std::to_string(p.k_block) : "") +
         (p.transpose ? " transposed" : ""));
    ++indent_;
    int v = p.vec_dim;
    if (shape_.transposes && transposable(s, p))  // priced for every tiling of the stage (TileParams::transpose)
      if (const isa::Lowering* l = hole("transpose", false)) step_cost_["transpose"] = l->tree.cost;
    bool vec_reduced = v >= 0 && s.reduced[static_cast<size_t>(v)];
    bool backwards = false;
    for (const Access& a : s.leaves) backwards |= v >= 0 && a.strides[static_cast<size_t>(v)] < 0;
    if (scan_by_vectors(s, p))
      emit_scan_vectors(s, p);
    else if (v < 0 || (s.scan_dim >= 0 && s.scan_dim == v) || (backwards && s.combine == Combine::None))
      emit_lane1(s, p);
    else if (vec_reduced)
      emit_reduce_inner(s, p);
    else
      emit_vector_kept(s, p);
    close();
    AXON_CHECK(bound_ > 0 || (fence_.empty() && fence_indent_ < 0),
               "the fence of stage " + std::to_string(number) + "'s streaming stores was printed");
    stream_ = false;
  }

  std::string extents_text(const Stage& s) {
    std::string t;
    for (size_t d = 0; d < s.extents.size(); ++d)
      t += (d ? ", " : "") + std::to_string(s.extents[d]) + (s.reduced[d] ? "r" : "") +
           (static_cast<int>(d) == s.scan_dim ? "s" : "");
    return t;
  }

  // The latency of a tree's root instruction at these sizes (0 when its
  // formula needs a size that is not known here).
  static double latency_of(const isa::InstrTree& tree, const ir::Dims& dims) {
    ir::Dims at;
    for (const auto& [name, size] : tree.sizes)
      if (std::optional<int64_t> v = size.evaluate(dims)) at[name] = *v;
    try {
      return tree.instr->latency.at(at);
    } catch (const std::exception&) {
      return 0;
    }
  }

  // The emitted text of a lowering; its instruction tree is noted once per
  // stage for the report's instruction-level form.
  std::string text_of(const std::string& role, const isa::InstrTree& tree, const std::vector<std::string>& args,
                      const ir::Dims& dims, const std::string& result = "") {
    std::string entry = role + ": " + tree.str();
    if (std::find(listing_.begin(), listing_.end(), entry) == listing_.end()) listing_.push_back(entry);
    if (role == "compute" || role == "epilogue")
      evaluation_cost_ += tree.cost;  // one step of an evaluation, summed by costed_node
    else
      step_cost_[role] = tree.cost;
    if (role == "compute" && tree.instr) step_cost_["compute_latency"] = latency_of(tree, dims);
    return isa::emit_text(tree, args, dims, result);
  }

  // The vector loop is kept: register tiles of MR rows x NV vectors.
  void emit_vector_kept(const Stage& s, const tile::TileParams& p) {
    int v = p.vec_dim, r = p.rows_dim;
    int W = p.lanes;
    Combine step = s.combine == Combine::Scan ? Combine::Sum : s.combine;
    const CoveredTile& t = make_tile("body", s, step);
    CoveredTile first =
        (s.combine == Combine::Max || s.combine == Combine::Min) ? make_tile("first", s, Combine::None) : CoveredTile{};
    std::vector<int> outer, reduced;
    for (size_t d = 0; d < s.extents.size(); ++d) {
      int di = static_cast<int>(d);
      if (di == v || di == r || di == s.scan_dim) continue;
      (s.reduced[d] ? reduced : outer).push_back(di);
    }
    int64_t ext_v = s.extents[static_cast<size_t>(v)];
    int64_t block = int64_t{W} * p.nv;
    int64_t nvb = (ext_v + block - 1) / block;
    int64_t ext_r = r >= 0 ? s.extents[static_cast<size_t>(r)] : 1;
    // In a row group with a block of rows, the tile's rows are the block's.
    int64_t nrb = rows_from_group_ ? 1 : (ext_r + p.mr - 1) / p.mr;
    int64_t last = ext_v - (nvb - 1) * block;
    // One tile at (vb, rb), its partial blocks of vectors and rows switched on.
    auto tile_at = [&](const FoldPart& part) {
      line("const int64_t vb = outer_block / " + std::to_string(nrb) + ";");
      if (!rows_from_group_) line("const int64_t rb = outer_block % " + std::to_string(nrb) + ";");
      line("const int64_t v0 = vb * " + std::to_string(block) + ";");
      line("const int64_t r0 = " + (rows_from_group_ ? group_r0_ : "rb * " + std::to_string(p.mr)) + ";");
      line("(void)r0;");
      auto rows_switch = [&](int nvec, int tail) {
        int rem = static_cast<int>(ext_r % p.mr);
        if (r < 0 || rem == 0) {
          emit_tile_block(s, p, t, first, reduced, r < 0 ? 1 : p.mr, nvec, tail, part);
        } else {
          line("if (r0 + " + std::to_string(p.mr) + " <= " + std::to_string(ext_r) + ") {");
          ++indent_;
          emit_tile_block(s, p, t, first, reduced, p.mr, nvec, tail, part);
          --indent_;
          line("} else {");
          ++indent_;
          emit_tile_block(s, p, t, first, reduced, rem, nvec, tail, part);
          close();
        }
      };
      if (last == block) {
        rows_switch(p.nv, 0);
      } else if (nvb == 1) {
        rows_switch(static_cast<int>(last / W), static_cast<int>(last % W));
      } else {
        line("if (vb + 1 < " + std::to_string(nvb) + ") {");
        ++indent_;
        rows_switch(p.nv, 0);
        --indent_;
        line("} else {");
        ++indent_;
        rows_switch(static_cast<int>(last / W), static_cast<int>(last % W));
        close();
      }
    };
    if (schedule_.stages[stage_index_].order == LoopOrder::KBlocked) {
      emit_fold_blocks(s, p, reduced, outer, nvb * nrb, tile_at);
      return;
    }
    pack_panels(s, p, reduced, outer, nvb, block, last);
    open_outer(s, outer, nvb * nrb, "outer_block", p.threads);
    tile_at(FoldPart{});
    close();
    packed_.clear();
  }

  // A KBlocked fold: each thread takes a contiguous share of the tiles; for
  // each block of the fold it runs all of them, resuming from and leaving
  // partial sums in the output, the last block storing through the epilogue.
  // A block's tiles read k_block rows of the wide operand side by side.
  void emit_fold_blocks(const Stage& s, const tile::TileParams& p, const std::vector<int>& reduced,
                        const std::vector<int>& outer, int64_t blocks,
                        const std::function<void(const FoldPart&)>& tile_at) {
    AXON_CHECK(reduced.size() == 1 && bound_ == 0 && s.combine == Combine::Sum,
               "a KBlocked stage folds one loop by a sum, outside any row group");
    int k = reduced[0];
    int64_t K = s.extents[static_cast<size_t>(k)], kc = schedule_.stages[stage_index_].k_block;
    int64_t nkb = (K + kc - 1) / kc;
    int64_t total = blocks;
    for (int d : outer) total *= s.extents[static_cast<size_t>(d)];
    int parts = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(p.threads, total)));
    if (parts > 1) line("#pragma omp parallel for schedule(static) num_threads(" + std::to_string(parts) + ")");
    open_loop("share", parts);
    line("const int64_t first_tile = share * " + std::to_string(total) + " / " + std::to_string(parts) + ";");
    line("const int64_t end_tile = (share + 1) * " + std::to_string(total) + " / " + std::to_string(parts) + ";");
    auto pass = [&](const FoldPart& part) {
      line("for (int64_t blk = first_tile; blk < end_tile; ++blk) {");
      ++indent_;
      decode_blocks(s, outer, blocks, "outer_block");
      tile_at(part);
      close();
    };
    std::string kcs = std::to_string(kc);
    if (nkb == 1) {
      pass(FoldPart{});
    } else {
      pass(FoldPart{"0", kcs, false, false});
      if (nkb > 2) {
        open_loop("kb_rest", nkb - 2);
        line("const int64_t kb = kb_rest + 1;");
        pass(FoldPart{"kb * " + kcs, "kb * " + kcs + " + " + kcs, true, false});
        close();
      }
      pass(FoldPart{std::to_string((nkb - 1) * kc), std::to_string(K), true, true});
    }
    close();
  }

  // The row-shared operand of a contraction whose rows are far apart in
  // memory (a wide matrix read down its columns) is first copied into
  // contiguous panels, one per block of the vector loop: the tile then reads
  // one stream instead of touching a new page at every step of the fold.
  void pack_panels(const Stage& s, const tile::TileParams& p, const std::vector<int>& reduced,
                   const std::vector<int>& outer, int64_t nvb, int64_t block, int64_t last) {
    // Inside a row group the tile runs once per block of rows: nothing to share.
    if (s.combine != Combine::Sum || reduced.size() != 1 || p.rows_dim < 0 || rows_from_group_) return;
    int v = p.vec_dim, k = reduced[0], W = p.lanes;
    int64_t K = s.extents[static_cast<size_t>(k)];
    int64_t ext_r = s.extents[static_cast<size_t>(p.rows_dim)];
    int64_t nrb = (ext_r + p.mr - 1) / p.mr;
    pack_rows(s, p, k, outer, nvb);
    // A panel is read once per block of rows: with one block the copy only costs.
    if (nrb < 2) return;
    for (size_t i = 0; i < s.leaves.size(); ++i) {
      const Access& a = s.leaves[i];
      if (tile::lane_access(a, v) != LaneAccess::Contiguous || a.strides[static_cast<size_t>(p.rows_dim)] != 0)
        continue;
      if (std::abs(a.strides[static_cast<size_t>(k)]) < 256) continue;
      bool moves = false;
      for (int d : outer) moves |= a.strides[static_cast<size_t>(d)] != 0;
      if (moves) continue;
      std::string pack = "axon_pack" + std::to_string(extra_scratch_.size());
      extra_scratch_.push_back({pack, nvb * K * block});
      std::string kv = "i" + std::to_string(k);
      line("// pack " + std::to_string(i) + ": panels of " + std::to_string(block) + " columns, " + pack + "[vb][" +
           kv + "][" + std::to_string(block) + "]");
      if (p.threads > 1 && nvb > 1)
        line("#pragma omp parallel for schedule(static) num_threads(" + std::to_string(p.threads) + ")");
      open_loop("vb", nvb);
      line("const int64_t v0 = vb * " + std::to_string(block) + ";");
      open_loop(kv, K);
      auto copy = [&](int nvec, int tail) {
        std::vector<std::string> idx = base_index(s);
        for (int j = 0; j < nvec + (tail > 0 ? 1 : 0); ++j) {
          idx[static_cast<size_t>(v)] = "(v0 + " + std::to_string(j * W) + ")";
          std::string from = pointer(a, idx);
          std::string x = fresh("x");
          line("const auto " + x + " = " + (j < nvec ? apply("load", from) : apply("load_tail", from, {{"R", tail}})) +
               ";");
          std::string to = "(" + pack + " + vb * " + std::to_string(K * block) + " + " + kv + " * " +
                           std::to_string(block) + " + " + std::to_string(j * W) + ")";
          line(text_of("store", hole("store")->tree, {x}, {}, to) + ";");
        }
      };
      if (last == block) {
        copy(p.nv, 0);
      } else {
        line("if (vb + 1 < " + std::to_string(nvb) + ") {");
        ++indent_;
        copy(p.nv, 0);
        --indent_;
        line("} else {");
        ++indent_;
        copy(static_cast<int>(last / W), static_cast<int>(last % W));
        close();
      }
      close();
      close();
      packed_[i] = {
          "(" + pack + " + vb * " + std::to_string(K * block) + " + " + kv + " * " + std::to_string(block) + " + ", v,
          "v0"};
    }
  }
  // The per-row operand (a[m, k] broadcast along the vector loop) when its
  // rows are far apart along the fold (a.T @ b): copied into panels of MR
  // rows, pack[rb][k][MR], one element at a time.
  void pack_rows(const Stage& s, const tile::TileParams& p, int k, const std::vector<int>& outer, int64_t nvb) {
    int r = p.rows_dim;
    int64_t K = s.extents[static_cast<size_t>(k)], ext_r = s.extents[static_cast<size_t>(r)];
    int64_t nrb = (ext_r + p.mr - 1) / p.mr;
    if (nvb < 8 || p.mr < 2) return;
    for (size_t i = 0; i < s.leaves.size(); ++i) {
      const Access& a = s.leaves[i];
      if (tile::lane_access(a, p.vec_dim) != LaneAccess::Broadcast || a.strides[static_cast<size_t>(r)] == 0) continue;
      if (std::abs(a.strides[static_cast<size_t>(k)]) < 256) continue;
      bool moves = false;
      for (int d : outer) moves |= a.strides[static_cast<size_t>(d)] != 0;
      if (moves) continue;
      std::string pack = "axon_pack" + std::to_string(extra_scratch_.size());
      extra_scratch_.push_back({pack, nrb * K * p.mr});
      std::string kv = "i" + std::to_string(k), rv = "i" + std::to_string(r);
      line("// pack " + std::to_string(i) + ": panels of " + std::to_string(p.mr) + " rows, " + pack + "[rb][" + kv +
           "][" + std::to_string(p.mr) + "]");
      if (p.threads > 1)
        line("#pragma omp parallel for schedule(static) num_threads(" + std::to_string(p.threads) + ")");
      open_loop(kv, K);
      open_loop(rv, ext_r);
      std::vector<std::string> idx = base_index(s);
      std::string x = fresh("x");
      line("const auto " + x + " = " + apply("load_bcast", pointer(a, idx)) + ";");
      std::string to = "(" + pack + " + (" + rv + " / " + std::to_string(p.mr) + ") * " + std::to_string(K * p.mr) +
                       " + " + kv + " * " + std::to_string(p.mr) + " + " + rv + " % " + std::to_string(p.mr) + ")";
      line(text_of("store_lane0", hole("store_lane0")->tree, {x}, {}, to) + ";");
      close();
      close();
      packed_[i] = {
          "(" + pack + " + rb * " + std::to_string(K * p.mr) + " + " + kv + " * " + std::to_string(p.mr) + " + ", r,
          "r0"};
    }
  }

  struct Packed {
    std::string prefix;  // the pointer up to the offset within the panel
    int dim;             // the loop whose offset from `base` indexes the panel
    std::string base;
  };
  std::map<size_t, Packed> packed_;  // leaf -> its panels
  // (leaf, index) -> the transposed row that holds its vector (transpose_leaves)
  std::map<std::pair<size_t, std::string>, std::string> transposed_;
  std::vector<std::pair<std::string, int64_t>> extra_scratch_;

  void emit_tile_block(const Stage& s, const tile::TileParams& p, const CoveredTile& t, const CoveredTile& first,
                       const std::vector<int>& reduced, int rows, int nvec, int tail, const FoldPart& part = {}) {
    if (tail > 0 && !shape_.has_tail)
      throw UserError(fn_.loc, "target " + target_.name + " has no masked loads and stores, and a loop of length " +
                                   std::to_string(s.extents[static_cast<size_t>(p.vec_dim)]) +
                                   " does not divide into vectors of " + std::to_string(p.lanes));
    struct Entry {
      std::vector<std::string> idx;
      Mode mode;
      std::string acc;
    };
    std::vector<Entry> entries;
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < nvec + (tail > 0 ? 1 : 0); ++j) {
        Entry e{base_index(s), j < nvec ? Mode::Vec : Mode::Tail, fresh("acc")};
        e.idx[static_cast<size_t>(p.vec_dim)] = "(v0 + " + std::to_string(j * p.lanes) + ")";
        if (p.rows_dim >= 0) e.idx[static_cast<size_t>(p.rows_dim)] = "(r0 + " + std::to_string(i) + ")";
        entries.push_back(e);
      }
    bool folds = s.combine != Combine::None;
    if (!folds) {
      if (p.transpose && rows == p.lanes && tail == 0 && !rows_from_group_) transpose_leaves(s, p, t, nvec);
      for (Entry& e : entries) store(evaluate(s, t, p.vec_dim, e.idx, e.mode, tail, ""), s.out, e.idx, e.mode, tail);
      transposed_.clear();
      return;
    }
    // Initial accumulators: zero, or the body at the first reduction index,
    // or the partial sums an earlier block of the fold left.
    for (Entry& e : entries) {
      if (part.resume) {
        line("auto " + e.acc + " = " + load(s.out, pointer(s.out, e.idx), p.vec_dim, e.mode, tail) + ";");
      } else if (s.combine == Combine::Max || s.combine == Combine::Min) {
        std::vector<std::string> idx0 = e.idx;
        for (int d : reduced) idx0[static_cast<size_t>(d)] = "0";
        line("auto " + e.acc + " = " + evaluate(s, first, p.vec_dim, idx0, e.mode, tail, "") + ";");
      } else {
        line("auto " + e.acc + " = " + text_of("zero", hole("zero")->tree, {}, {}) + ";");
      }
    }
    std::vector<int> loops = reduced;
    if (s.scan_dim >= 0) loops.insert(loops.begin(), s.scan_dim);
    for (int d : loops) {
      std::string var = "i" + std::to_string(d);
      if (part.begin.empty()) {
        open_loop(var, s.extents[static_cast<size_t>(d)]);
      } else {
        line("for (int64_t " + var + " = " + part.begin + "; " + var + " < " + part.end + "; ++" + var + ") {");
        ++indent_;
      }
    }
    for (Entry& e : entries) line(e.acc + " = " + evaluate(s, t, p.vec_dim, e.idx, e.mode, tail, e.acc) + ";");
    if (s.scan_dim >= 0)
      for (Entry& e : entries) store(e.acc, s.out, e.idx, e.mode, tail);
    for (size_t k = 0; k < loops.size(); ++k) close();
    if (s.scan_dim < 0)
      for (Entry& e : entries) store(e.acc, s.out, e.idx, e.mode, tail, !part.finish);
  }

  // A full tile of W rows: each leaf gathered along the vector loop but
  // contiguous along the rows loop is loaded as W vectors down the rows (one
  // per lane of the tile's vector) and transposed in registers; row i's
  // vector is then the transpose's row i (TileParams::transpose).
  void transpose_leaves(const Stage& s, const tile::TileParams& p, const CoveredTile& t, int nvec) {
    const size_t v = static_cast<size_t>(p.vec_dim), r = static_cast<size_t>(p.rows_dim);
    for (size_t i = 0; i < s.leaves.size(); ++i) {
      const Access& a = s.leaves[i];
      if (!used_leaf(t, t.leaves[i]) || packed_.count(i) || !gathered_down_rows(a, p)) continue;
      for (int j = 0; j < nvec; ++j) {
        std::vector<std::string> lanes;
        for (int q = 0; q < p.lanes; ++q) {
          std::vector<std::string> idx = base_index(s);
          idx[v] = "(v0 + " + std::to_string(j * p.lanes + q) + ")";
          idx[r] = "(r0 + 0)";
          lanes.push_back(fresh("tq"));
          line("auto " + lanes.back() + " = " + apply("load", pointer(a, idx)) + ";");
        }
        std::string in = fresh("tin"), out = fresh("tout");
        std::string all;
        for (const std::string& q : lanes) all += (all.empty() ? "" : ", ") + q;
        line("decltype(" + lanes[0] + ") " + in + "[" + std::to_string(p.lanes) + "] = {" + all + "};");
        line("decltype(" + lanes[0] + ") " + out + "[" + std::to_string(p.lanes) + "];");
        line(text_of("transpose", hole("transpose")->tree, {in}, {}, out) + ";");
        for (int row = 0; row < p.lanes; ++row) {
          std::vector<std::string> idx = base_index(s);
          idx[v] = "(v0 + " + std::to_string(j * p.lanes) + ")";
          idx[r] = "(r0 + " + std::to_string(row) + ")";
          transposed_[{i, index_key(idx)}] = out + "[" + std::to_string(row) + "]";
        }
      }
    }
  }

  // A leaf gathered along the vector loop but contiguous along the rows loop:
  // what transpose_leaves reads as transposes (and the cost model prices so).
  static bool gathered_down_rows(const Access& a, const tile::TileParams& p) {
    return p.vec_dim >= 0 && p.rows_dim >= 0 && tile::lane_access(a, p.vec_dim) == LaneAccess::Strided &&
           a.strides[static_cast<size_t>(p.rows_dim)] == 1;
  }

  static bool transposable(const Stage& s, const tile::TileParams& p) {
    for (const Access& a : s.leaves)
      if (gathered_down_rows(a, p)) return true;
    return false;
  }

  static std::string index_key(const std::vector<std::string>& idx) {
    std::string k;
    for (const std::string& x : idx) k += x + ",";
    return k;
  }

  // The vector loop is reduced: NV vector accumulators, a masked tail merged
  // in, then a horizontal reduction to one scalar per output element.
  void emit_reduce_inner(const Stage& s, const tile::TileParams& p) {
    int v = p.vec_dim, W = p.lanes;
    const CoveredTile& t = make_tile("body", s, s.combine);
    bool idempotent = s.combine == Combine::Max || s.combine == Combine::Min;
    CoveredTile first = idempotent ? make_tile("first", s, Combine::None) : CoveredTile{};
    std::vector<int> outer, reduced;
    for (size_t d = 0; d < s.extents.size(); ++d) {
      int di = static_cast<int>(d);
      if (di != v) (s.reduced[d] ? reduced : outer).push_back(di);
    }
    int64_t ext_v = s.extents[static_cast<size_t>(v)];
    int64_t block = int64_t{W} * p.nv;
    int64_t nblocks = ext_v / block;
    int64_t rest_vectors = (ext_v % block) / W;
    int tail = static_cast<int>(ext_v % W);
    if (tail > 0 && !shape_.has_tail)
      throw UserError(fn_.loc, "target " + target_.name + " has no masked loads, and a reduction of length " +
                                   std::to_string(ext_v) + " does not divide into vectors of " + std::to_string(W));
    open_outer(s, outer, 1, "", p.threads);
    std::vector<std::string> idx = base_index(s);
    std::vector<std::string> accs;
    for (int j = 0; j < p.nv; ++j) {
      accs.push_back(fresh("acc"));
      if (idempotent) {
        std::vector<std::string> idx0 = idx;
        for (int d : reduced) idx0[static_cast<size_t>(d)] = "0";
        idx0[static_cast<size_t>(v)] = "0";
        line("auto " + accs.back() + " = " + evaluate(s, first, v, idx0, Mode::Bcast, 0, "") + ";");
      } else {
        line("auto " + accs.back() + " = " + text_of("zero", hole("zero")->tree, {}, {}) + ";");
      }
    }
    for (int d : reduced) open_loop("i" + std::to_string(d), s.extents[static_cast<size_t>(d)]);
    if (nblocks > 0) {
      open_loop("vb", nblocks);
      for (int j = 0; j < p.nv; ++j) {
        idx[static_cast<size_t>(v)] = "(vb * " + std::to_string(block) + " + " + std::to_string(j * W) + ")";
        line(accs[static_cast<size_t>(j)] + " = " + evaluate(s, t, v, idx, Mode::Vec, 0, accs[static_cast<size_t>(j)]) +
             ";");
      }
      close();
    }
    for (int64_t j = 0; j < rest_vectors; ++j) {
      idx[static_cast<size_t>(v)] = std::to_string(nblocks * block + j * W);
      const std::string& acc = accs[static_cast<size_t>(j)];
      line(acc + " = " + evaluate(s, t, v, idx, Mode::Vec, 0, acc) + ";");
    }
    if (tail > 0) {
      idx[static_cast<size_t>(v)] = std::to_string(ext_v - tail);
      std::string stepped = evaluate(s, t, v, idx, Mode::Tail, tail, accs[0]);
      line(accs[0] + " = " + text_of("merge_tail", hole("merge_tail")->tree, {accs[0], stepped}, {{"R", tail}}) + ";");
    }
    for (size_t k = 0; k < reduced.size(); ++k) close();
    // Combine the accumulators, then reduce across lanes.
    for (int j = 1; j < p.nv; ++j) line(accs[0] + " = " + combined(s, accs[0], accs[static_cast<size_t>(j)]) + ";");
    std::string hname = s.combine == Combine::Max ? "max" : s.combine == Combine::Min ? "min" : "sum";
    std::string total = fresh("s");
    line("const auto " + total + " = " + apply(hname, accs[0]) + ";");
    idx[static_cast<size_t>(v)] = "0";
    for (int d : reduced) idx[static_cast<size_t>(d)] = "0";
    if (s.epilogue)  // one element: the epilogue on a splat of it, lane 0 stored
      store(text_of("splat", hole("splat")->tree, {total}, {}), s.out, idx, Mode::Bcast, 1);
    else
      line(text_of("store_scalar", hole("store_scalar")->tree, {total}, {}, pointer(s.out, idx)) + ";");
    close();
  }

  // Two partial results of the stage's fold combined, lane by lane (a scan's: added).
  std::string combined(const Stage& s, const std::string& a_value, const std::string& b_value) {
    const CoveredTile& combine = source_.tile(stage_index_, "combine", [&] {
      CoveredTile c;
      ir::TensorType vec{ir::DType::F32, {ir::Size(shape_.lanes)}};
      c.leaves = {c.graph->input(0, "a", vec), c.graph->input(1, "b", vec)};
      ir::Op op = s.combine == Combine::Max ? ir::Op::Max : s.combine == Combine::Min ? ir::Op::Min : ir::Op::Add;
      c.root = c.graph->make(op, c.leaves, {});
      return c;
    });
    std::map<int, std::string> values{{combine.leaves.at(0)->id(), a_value}, {combine.leaves.at(1)->id(), b_value}};
    return emit_node(combine, combine.root, values);
  }

  // A scan along the vector loop, a vector at a time: the prefix sums of the
  // vector's lanes plus the total carried from the vectors before it, whose
  // last lane, in every lane, is the next carry. Needs the 'prefix' and
  // 'last' holes, every leaf contiguous or broadcast along the loop, and
  // masked loads and stores.
  bool scan_by_vectors(const Stage& s, const tile::TileParams& p) {
    int v = p.vec_dim;
    if (!p.vector_scan || shape_.lanes < 2 || v < 0 || s.scan_dim != v || s.combine != Combine::Scan) return false;
    if (!shape_.has_tail) return false;  // the first vector's worth goes a lane at a time
    if (s.out.strides[static_cast<size_t>(v)] != 1) return false;
    for (const Access& a : s.leaves)
      if (tile::lane_access(a, v) == LaneAccess::Strided) return false;
    return hole("prefix", false) && hole("last", false);
  }

  // The first vector's worth of each row is summed one lane at a time in the
  // reference's order: there the sums are short, and the rounding bound
  // (eval/interpreter.h) follows the reference's partial sums closely; from
  // there on the carried total dominates both.
  void emit_scan_vectors(const Stage& s, const tile::TileParams& p) {
    int v = p.vec_dim, W = p.lanes;
    const CoveredTile& element = make_tile("element", s, Combine::None);
    const CoveredTile& running = make_tile("body", s, Combine::Sum);
    std::vector<int> outer;
    for (size_t d = 0; d < s.extents.size(); ++d)
      if (static_cast<int>(d) != v) outer.push_back(static_cast<int>(d));
    int64_t ext_v = s.extents[static_cast<size_t>(v)];
    int64_t head = std::min<int64_t>(W, ext_v);
    int64_t full = (ext_v - head) / W;
    int tail = static_cast<int>((ext_v - head) % W);
    open_outer(s, outer, 1, "", p.threads);
    std::vector<std::string> idx = base_index(s);
    scan_lanes(s, running, idx, head, Mode::Lane1);
    if (ext_v == head) {
      close();
      return;
    }
    idx[static_cast<size_t>(v)] = std::to_string(head - 1);
    std::string carry = fresh("carry");
    line("auto " + carry + " = " + apply("load_bcast", pointer(s.out, idx)) + ";");
    auto step = [&](Mode mode) {
      std::string x = evaluate(s, element, v, idx, mode, tail, "");
      std::string prefix = fresh("p");
      line("const auto " + prefix + " = " + apply("prefix", x) + ";");
      std::string sum = combined(s, prefix, carry);
      store(sum, s.out, idx, mode, tail);
      // Lanes past a tail hold the element function of zeros: after the tail's
      // lanes, so they change nothing stored, and no carry is needed after it.
      if (mode == Mode::Vec) line(carry + " = " + apply("last", sum) + ";");
    };
    if (full > 0) {
      open_loop("vb", full);
      idx[static_cast<size_t>(v)] = "(" + std::to_string(head) + " + vb * " + std::to_string(W) + ")";
      step(Mode::Vec);
      close();
    }
    if (tail > 0) {
      idx[static_cast<size_t>(v)] = std::to_string(ext_v - tail);
      step(Mode::Tail);
    }
    close();
  }

  // The first `steps` elements of a scan along its own loop, one at a time in
  // the reference's order: `running` is the body added to the accumulator.
  void scan_lanes(const Stage& s, const CoveredTile& running, const std::vector<std::string>& idx, int64_t steps,
                  Mode mode) {
    std::string acc = fresh("acc");
    line("auto " + acc + " = " + text_of("zero", hole("zero")->tree, {}, {}) + ";");
    open_loop("i" + std::to_string(s.scan_dim), steps);
    line(acc + " = " + evaluate(s, running, -1, idx, mode, 1, acc) + ";");
    store(acc, s.out, idx, mode, 1);
    close();
  }

  // One element at a time (a scan along its own loop, or a rank-0 stage): masked single-lane vectors.
  void emit_lane1(const Stage& s, const tile::TileParams& p) {
    if (!shape_.has_tail && shape_.lanes > 1)
      throw UserError(fn_.loc, "target " + target_.name + " has no masked loads, needed for " + s.what);
    int v = p.vec_dim;
    bool scan = s.scan_dim >= 0;
    const CoveredTile& t = make_tile("body", s, scan ? Combine::Sum : s.combine);
    std::vector<int> outer;
    for (size_t d = 0; d < s.extents.size(); ++d)
      if (static_cast<int>(d) != s.scan_dim) outer.push_back(static_cast<int>(d));
    v = -1;  // every leaf is read one element at a time
    open_outer(s, outer, 1, "", p.threads);
    std::vector<std::string> idx = base_index(s);
    Mode mode = shape_.lanes > 1 ? Mode::Lane1 : Mode::Vec;
    if (scan) {
      scan_lanes(s, t, idx, s.extents[static_cast<size_t>(s.scan_dim)], mode);
    } else {
      if (s.combine != Combine::None) throw InternalError(__FILE__, __LINE__, "a fold without a vector loop");
      store(evaluate(s, t, v, idx, mode, 1, ""), s.out, idx, mode, 1);
    }
    close();
  }
};

}  // namespace

KernelWalk walk_cpu(const tile::Plan& plan, const ir::Function& fn, const CpuSchedule& schedule,
                    const hw::Description& target, LoweringSource& source) {
  return Walker(plan, fn, schedule, target, source).run();
}

isa::Spec hole_spec(const std::string& name, int lanes, const std::string& memory, const std::string& registers) {
  std::string W = std::to_string(lanes);
  std::map<std::string, std::pair<int64_t, int64_t>> tail{{"R", {1, std::max(1, lanes - 1)}}};
  std::map<std::string, std::pair<int64_t, int64_t>> strided{{"S", {2, int64_t{1} << 30}}};
  std::optional<isa::Spec> spec;
  const std::string& m = memory;
  const std::string& r = registers;
  if (name == "load")
    spec = isa::spec_from_source(name, "def h(x: 'f32[" + W + "]'):\n    return x", {m}, r, {});
  else if (name == "load_tail")
    spec = isa::spec_from_source(name, "def h(x: 'f32[R]'):\n    return x", {m}, r, tail);
  else if (name == "load_bcast")
    spec = isa::spec_from_source(name, "def h(s: 'f32[]'):\n    return np.broadcast_to(s, (" + W + ",))", {m}, r, {});
  else if (name == "load_strided")
    spec = isa::spec_from_source(name, "def h(x: 'f32[" + W + ", S]'):\n    return x[:, 0]", {m}, r, strided);
  else if (name == "load_strided_tail") {
    auto ranges = tail;
    ranges.insert(strided.begin(), strided.end());
    spec = isa::spec_from_source(name, "def h(x: 'f32[R, S]'):\n    return x[:, 0]", {m}, r, ranges);
  } else if (name == "store")
    spec = isa::spec_from_source(name, "def h(v: 'f32[" + W + "]'):\n    return v", {r}, m, {});
  else if (name == "store_stream") {
    spec = isa::spec_from_source("streaming store", "def h(v: 'f32[" + W + "]'):\n    return v", {r}, m, {});
    spec->nontemporal = true;
  }
  else if (name == "store_tail")
    spec = isa::spec_from_source(name, "def h(v: 'f32[R]'):\n    return v", {r}, m, tail);
  else if (name == "store_lane0")
    spec = isa::spec_from_source(name, "def h(v: 'f32[" + W + "]'):\n    return v[0]", {r}, m, {});
  else if (name == "store_scalar")
    spec = isa::spec_from_source(name, "def h(v: 'f32[]'):\n    return v", {r}, m, {});
  else if (name == "splat")
    spec = isa::spec_from_source(name, "def h(s: 'f32[]'):\n    return np.broadcast_to(s, (" + W + ",))", {r}, r, {});
  else if (name == "zero")
    spec = isa::spec_from_source(name, "def h():\n    return np.broadcast_to(0.0, (" + W + ",))", {}, r, {});
  else if (name == "merge_tail")
    spec = isa::spec_from_source(
        name, "def h(src: 'f32[" + W + "]', x: 'f32[R]'):\n    return np.concatenate([x, src[x.shape[0]:]])", {r, r}, r,
        tail);
  else if (name == "transpose")
    spec = isa::spec_from_source("a transpose of W vectors",
                                 "def h(x: 'f32[" + W + ", " + W + "]'):\n    return x.T", {r}, r, {});
  else if (name == "prefix")
    spec = isa::spec_from_source("prefix sums of the lanes",
                                 "def h(x: 'f32[" + W + "]'):\n    return np.cumsum(x, axis=0)", {r}, r, {});
  else if (name == "last")
    spec = isa::spec_from_source(
        "the last lane in every lane",
        "def h(x: 'f32[" + W + "]'):\n    return np.broadcast_to(x[" + std::to_string(lanes - 1) + "], (" + W + ",))",
        {r}, r, {});
  else if (name == "sum" || name == "max" || name == "min")
    spec = isa::spec_from_source("horizontal " + name, "def h(x: 'f32[" + W + "]'):\n    return np." + name + "(x)",
                                 {r}, r, {});
  else
    throw InternalError(__FILE__, __LINE__, "unknown hole " + name);
  return *spec;
}

void throw_unproved_hole(const ir::Function& fn, const hw::Description& target, const std::string& name) {
  throw UserError(fn.loc, "target " + target.name + " (" + target.path + "): no instruction sequence proved for the '" +
                              name + "' step of a vector loop");
}

}  // namespace axon::emit::detail
