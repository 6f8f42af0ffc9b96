#include "fuse/summary.h"

#include <functional>
#include <set>
#include <sstream>

namespace axon::fuse {
namespace {

std::string loop_name(size_t d) {
  static const char* const kNames[] = {"i", "j", "k", "l", "m", "n", "p", "q"};
  return d < 8 ? kNames[d] : "i" + std::to_string(d);
}

std::string buffer_name(const ir::Function& fn, const tile::Plan& plan, int id) {
  const tile::Buffer& b = plan.buffers.at(static_cast<size_t>(id));
  switch (b.kind) {
    case tile::Buffer::Kind::Input: return fn.params.at(static_cast<size_t>(b.param)).name;
    case tile::Buffer::Kind::Output: return "out" + std::to_string(b.param);
    case tile::Buffer::Kind::Scratch: return "t" + std::to_string(id);
  }
  return "?";
}

// An access as indices of its buffer: each loop with a stride that is a
// multiple of one dimension's row-major stride indexes that dimension; the
// offset splits the same way. A flat index when it does not decompose.
std::string access_text(const ir::Function& fn, const tile::Plan& plan, const tile::Access& a) {
  const tile::Buffer& b = plan.buffers.at(static_cast<size_t>(a.buffer));
  std::vector<int64_t> strides = tile::row_major_strides(b.shape);
  std::vector<std::string> terms(b.shape.size());
  auto add = [](std::string& t, const std::string& term) { t += (t.empty() ? "" : " + ") + term; };
  bool flat = false;
  for (size_t d = 0; d < a.strides.size() && !flat; ++d) {
    int64_t s = a.strides[d];
    if (s == 0) continue;
    bool placed = false;
    for (size_t k = 0; k < strides.size() && !placed; ++k) {
      if (s % strides[k] != 0 || s / strides[k] >= std::max<int64_t>(b.shape[k], 2)) continue;
      int64_t c = s / strides[k];
      add(terms[k], (c == 1 ? "" : std::to_string(c) + "*") + loop_name(d));
      placed = true;
    }
    flat = !placed;
  }
  int64_t offset = a.offset;
  for (size_t k = 0; k < strides.size() && !flat; ++k) {
    if (offset / strides[k] != 0) add(terms[k], std::to_string(offset / strides[k]));
    offset %= strides[k];
  }
  std::string t = buffer_name(fn, plan, a.buffer) + "[";
  if (flat) {
    std::string index = a.offset ? std::to_string(a.offset) : "";
    for (size_t d = 0; d < a.strides.size(); ++d)
      if (a.strides[d]) add(index, std::to_string(a.strides[d]) + "*" + loop_name(d));
    return t + (index.empty() ? "0" : index) + "]";
  }
  for (size_t k = 0; k < terms.size(); ++k) t += (k ? ", " : "") + (terms[k].empty() ? "0" : terms[k]);
  return t + "]";
}

struct BodyText {
  std::string text;
  int ops = 0;
};

// `root` over `leaves` (Input i reads leaves[i]; Input `result` reads as `result_text`).
BodyText body_text(const ir::Function& fn, const tile::Plan& plan, ir::NodeRef root,
                   const std::vector<tile::Access>& leaves, int result = -1, const std::string& result_text = "") {
  BodyText out;
  std::function<std::string(ir::NodeRef)> text = [&](ir::NodeRef n) -> std::string {
    const ir::Attrs& a = n->attrs();
    auto arg = [&](size_t i) { return text(n->input(i)); };
    switch (n->op()) {
      case ir::Op::Input:
        if (a.index == result) return result_text;
        return access_text(fn, plan, leaves.at(static_cast<size_t>(a.index)));
      case ir::Op::Const: {
        std::ostringstream v;
        v << a.value;
        return v.str();
      }
      case ir::Op::SizeValue: return a.sizes.at(0).str();
      case ir::Op::Neg:
      case ir::Op::Exp:
      case ir::Op::Log:
      case ir::Op::Sqrt:
      case ir::Op::Tanh:
      case ir::Op::Abs:
      case ir::Op::Recip:
      case ir::Op::Pow:
      case ir::Op::Add:
      case ir::Op::Sub:
      case ir::Op::Mul:
      case ir::Op::Div:
      case ir::Op::Max:
      case ir::Op::Min:
      case ir::Op::Select:
      case ir::Op::ReduceSum:
      case ir::Op::ReduceMax:
      case ir::Op::ReduceMin:
      case ir::Op::Cumsum:
      case ir::Op::Contract:
      case ir::Op::Transpose:
      case ir::Op::Reshape:
      case ir::Op::Broadcast:
      case ir::Op::Slice:
      case ir::Op::Concat: break;
    }
    ++out.ops;
    switch (n->op()) {
      case ir::Op::Add: return "(" + arg(0) + " + " + arg(1) + ")";
      case ir::Op::Sub: return "(" + arg(0) + " - " + arg(1) + ")";
      case ir::Op::Mul: return arg(0) + " * " + arg(1);
      case ir::Op::Div: return arg(0) + " / " + arg(1);
      case ir::Op::Neg: return "-" + arg(0);
      case ir::Op::Input:
      case ir::Op::Const:
      case ir::Op::SizeValue:
      case ir::Op::Exp:
      case ir::Op::Log:
      case ir::Op::Sqrt:
      case ir::Op::Tanh:
      case ir::Op::Abs:
      case ir::Op::Recip:
      case ir::Op::Pow:
      case ir::Op::Max:
      case ir::Op::Min:
      case ir::Op::Select:
      case ir::Op::ReduceSum:
      case ir::Op::ReduceMax:
      case ir::Op::ReduceMin:
      case ir::Op::Cumsum:
      case ir::Op::Contract:
      case ir::Op::Transpose:
      case ir::Op::Reshape:
      case ir::Op::Broadcast:
      case ir::Op::Slice:
      case ir::Op::Concat: break;
    }
    std::string t = std::string(ir::op_name(n->op())) + "(";
    for (size_t i = 0; i < n->inputs().size(); ++i) t += (i ? ", " : "") + arg(i);
    return t + ")";
  };
  out.text = root ? text(root) : "?";
  return out;
}

// The scratch buffers' bytes, but for those a row group holds a row at a time.
int64_t scratch_bytes(const tile::Plan& plan, const std::vector<RowGroup>& rows = {}) {
  std::set<int> local;
  for (const RowGroup& g : rows)
    for (const auto& [b, per_row] : row_local_buffers(plan, g)) local.insert(b);
  int64_t bytes = 0;
  for (size_t b = 0; b < plan.buffers.size(); ++b)
    if (plan.buffers[b].kind == tile::Buffer::Kind::Scratch && !local.count(static_cast<int>(b)))
      bytes += 4 * plan.buffers[b].elements();
  return bytes;
}

std::string bytes_text(int64_t bytes) {
  std::ostringstream t;
  t.precision(3);
  if (bytes >= (1 << 20))
    t << static_cast<double>(bytes) / (1 << 20) << " MiB";
  else if (bytes >= 1024)
    t << static_cast<double>(bytes) / 1024 << " KiB";
  else
    t << bytes << " B";
  return t.str();
}

}  // namespace

FusionSummary summarize_fusion(const ir::Function& fn, const tile::Plan& fused, const tile::Plan& unfused,
                               const std::vector<RowGroup>& rows) {
  FusionSummary summary;
  summary.rows = rows;
  for (const tile::Stage& s : fused.stages) {
    FusedNest nest;
    std::string folded;
    for (size_t d = 0; d < s.extents.size(); ++d) {
      nest.loops += (d ? ", " : "") + loop_name(d) + "=" + std::to_string(s.extents[d]);
      if (s.reduced[d]) folded += (folded.empty() ? "" : ", ") + loop_name(d);
    }
    const char* verb = s.combine == tile::Combine::Sum   ? "summed"
                       : s.combine == tile::Combine::Max ? "max-reduced"
                       : s.combine == tile::Combine::Min ? "min-reduced"
                                                         : "";
    if (!folded.empty()) nest.loops += " (" + folded + " " + verb + ")";
    if (s.combine == tile::Combine::Scan)
      nest.loops += " (prefix sums along " + loop_name(static_cast<size_t>(s.scan_dim)) + ")";
    BodyText body = body_text(fn, fused, s.body, s.leaves);
    if (s.epilogue) {  // out = epilogue(fold(body)): the fold's value never goes to memory
      std::string fold = s.combine == tile::Combine::Sum ? "sum" : s.combine == tile::Combine::Max ? "max" : "min";
      BodyText epilogue = body_text(fn, fused, s.epilogue, s.epilogue_leaves, s.epilogue_result,
                                    fold + "_" + folded + "(" + body.text + ")");
      nest.statement = access_text(fn, fused, s.out) + " = " + epilogue.text;
      nest.ops = body.ops + 1 + epilogue.ops;
      summary.fused_nests += 1;
      summary.epilogues += 1;
      summary.nests.push_back(std::move(nest));
      continue;
    }
    const char* assign = s.combine == tile::Combine::Sum || s.combine == tile::Combine::Scan ? " += "
                         : s.combine == tile::Combine::Max                                   ? " max= "
                         : s.combine == tile::Combine::Min                                   ? " min= "
                                                                                             : " = ";
    nest.statement = access_text(fn, fused, s.out) + assign + body.text;
    nest.ops = body.ops + (s.combine == tile::Combine::None ? 0 : 1);
    summary.fused_nests += nest.ops > 1;
    summary.nests.push_back(std::move(nest));
  }
  summary.nests_unfused = unfused.stages.size();
  summary.scratch_bytes = scratch_bytes(fused, rows);
  summary.scratch_bytes_unfused = scratch_bytes(unfused);
  return summary;
}

std::string fusion_markdown(const FusionSummary& summary) {
  std::ostringstream t;
  t << summary.nests.size() << " loop nest(s), " << summary.fused_nests
    << " of them computing several ops in one pass, " << summary.epilogues
    << " with a fused epilogue (an element-wise consumer applied as the fold's result is stored; "
    << "without fusion: " << summary.nests_unfused
    << " nests); intermediates written to memory: " << bytes_text(summary.scratch_bytes) << " (without fusion "
    << bytes_text(summary.scratch_bytes_unfused) << ").\n\n";
  for (const RowGroup& g : summary.rows) {
    t << "- nests " << g.first << "-" << g.last << " run inside one loop over their first " << g.shared << " loop(s) (";
    for (int d = 0; d < g.shared; ++d) t << (d ? ", " : "") << loop_name(static_cast<size_t>(d));
    t << "): each row is read from memory once, its statistics stay in cache\n";
  }
  for (size_t i = 0; i < summary.nests.size(); ++i)
    t << "- nest " << i << " over " << summary.nests[i].loops << ", " << summary.nests[i].ops
      << " op(s) per point:\n  `" << summary.nests[i].statement << "`\n";
  return t.str();
}

}  // namespace axon::fuse
