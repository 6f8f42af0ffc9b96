#include "emit/trn1.h"

#include <algorithm>
#include <functional>
#include <set>
#include <sstream>

#include "isa/cover.h"

namespace axon::emit {
namespace {

using tile::Access;
using tile::Combine;
using tile::Stage;
using Ranges = std::map<std::string, std::pair<int64_t, int64_t>>;

// The tile limits, read from the description's instruction limits: the
// largest partition count any on-chip operand takes, the largest free size of
// an SBUF result, and the largest free size of a PSUM result (one bank).
struct TileLimits {
  int64_t partitions = 1, free = 1, psum_free = 1;
};

int64_t upper_limit(const hw::Instruction& ins, const ir::Size& dim) {
  if (std::optional<int64_t> c = dim.constant()) return *c;
  std::vector<std::string> names = dim.names();
  if (names.size() != 1) return 1;
  auto it = ins.limits.find(names[0]);
  return it == ins.limits.end() ? 1 : it->second.second;
}

TileLimits tile_limits(const hw::Description& target, const std::string& hbm) {
  TileLimits t;
  for (const hw::Instruction& ins : target.instructions) {
    for (const hw::Operand& o : ins.operands)
      if (o.space != hbm && o.type.rank() == 2)
        t.partitions = std::max(t.partitions, upper_limit(ins, o.type.shape[0]));
    if (ins.result.type.rank() != 2 || ins.result.space == hbm) continue;
    int64_t free = upper_limit(ins, ins.result.type.shape[1]);
    if (ins.result.space == "psum")
      t.psum_free = std::max(t.psum_free, free);
    else
      t.free = std::max(t.free, free);
  }
  return t;
}

class Trn1Lowering {
 public:
  Trn1Lowering(const tile::Plan& plan, const ir::Function& fn, const hw::Description& target, isa::Synthesizer& synth)
      : plan_(plan), fn_(fn), target_(target), synth_(synth) {
    hbm_ = target.memories.at(0).name;
    limits_ = tile_limits(target, hbm_);
  }

  std::string run() {
    out_ << "# " << fn_.name << " for " << target_.name << " (" << target_.path << ")\n";
    for (size_t b = 0; b < plan_.buffers.size(); ++b) {
      const tile::Buffer& buf = plan_.buffers[b];
      out_ << "#   " << name(static_cast<int>(b)) << ": f32" << ir::shape_str(buf.shape) << " in " << hbm_
           << (buf.kind == tile::Buffer::Kind::Scratch ? " (scratch)" : "") << "\n";
    }
    for (size_t i = 0; i < plan_.stages.size(); ++i) stage(plan_.stages[i], static_cast<int>(i));
    out_ << "\n# proved lowerings (hole = instructions)\n";
    std::set<std::string> seen;
    for (const isa::Lowering& l : synth_.used()) {
      std::string row = "#   " + l.spec_text + "\n#       = " + l.tree.str() + "   [" +
                        smt::verdict_name(l.proof.verdict) + ", " + l.proof.method + "]\n";
      if (seen.insert(row).second) out_ << row;
    }
    return out_.str();
  }

 private:
  const tile::Plan& plan_;
  const ir::Function& fn_;
  const hw::Description& target_;
  isa::Synthesizer& synth_;
  std::string hbm_;
  TileLimits limits_;
  std::ostringstream out_;
  int next_ = 0;

  std::string name(int buffer) {
    const tile::Buffer& b = plan_.buffers.at(static_cast<size_t>(buffer));
    if (b.kind == tile::Buffer::Kind::Input) return fn_.params.at(static_cast<size_t>(b.param)).name;
    if (b.kind == tile::Buffer::Kind::Output) return "out" + std::to_string(b.param);
    return "t" + std::to_string(buffer);
  }
  std::string access(const Access& a, const std::vector<std::string>& loops) {
    std::string t = name(a.buffer) + "[" + std::to_string(a.offset);
    for (size_t d = 0; d < a.strides.size(); ++d)
      if (a.strides[d]) t += " + " + std::to_string(a.strides[d]) + "*" + loops[d];
    return t + "]";
  }
  std::string fresh() { return "v" + std::to_string(next_++); }

  isa::Lowering require(const isa::Spec& spec) {
    std::optional<isa::Lowering> l = synth_.lower(spec);
    if (!l)
      throw UserError(fn_.loc, "trn1: no proved instruction sequence for the '" + spec.what + "' step (" +
                                   spec.root->type().str() + ")");
    return *l;
  }

  // The instruction tree as calls over the argument names.
  static std::string call(const isa::InstrTree& t, const std::vector<std::string>& args) {
    if (!t.instr) return args.at(static_cast<size_t>(t.leaf));
    std::string s = t.instr->name + "(";
    for (size_t i = 0; i < t.args.size(); ++i) s += (i ? ", " : "") + call(t.args[i], args);
    return s + ")";
  }
  static std::string call(const isa::Lowering& l, const std::vector<std::string>& args) { return call(l.tree, args); }

  std::string load(const std::string& type, const std::string& from, Ranges ranges) {
    isa::Spec spec =
        isa::spec_from_source("dma load", "def h(x: '" + type + "'):\n    return x", {hbm_}, "sbuf", ranges);
    return call(require(spec), {from});
  }
  std::string store(const std::string& type, const std::string& space, const std::string& value, Ranges ranges) {
    isa::Spec spec =
        isa::spec_from_source("dma store", "def h(v: '" + type + "'):\n    return v", {space}, hbm_, ranges);
    return call(require(spec), {value});
  }

  void stage(const Stage& s, int number) {
    out_ << "\n# stage " << number << ": " << s.what << " over " << ir::shape_str(s.extents)
         << (s.combine != Combine::None ? std::string(", fold ") + tile::combine_name(s.combine) : "") << "\n";
    if (s.what.rfind("einsum", 0) == 0)
      contraction(s);
    else
      rows(s);
  }

  // Rows on partitions, the innermost loop along the free dimension; an
  // innermost reduction ends in a tensor_reduce to one value per partition.
  void rows(const Stage& s) {
    if (s.scan_dim >= 0) throw UserError(fn_.loc, "trn1 lowering of scans is not built yet (" + s.what + ")");
    int D = static_cast<int>(s.extents.size());
    int f = D - 1;
    for (int d = 0; d < D - 1; ++d)
      if (s.reduced[static_cast<size_t>(d)])
        throw UserError(fn_.loc, "trn1 lowering reduces along the free (innermost) dimension only (" + s.what + ")");
    int p = -1;
    for (int d = D - 2; d >= 0 && p < 0; --d) p = d;
    int64_t F = f >= 0 ? s.extents[static_cast<size_t>(f)] : 1;
    if (F > limits_.free)
      throw UserError(fn_.loc, "trn1: a free dimension of " + std::to_string(F) + " is over the " +
                                   std::to_string(limits_.free) + " an SBUF instruction takes");
    Ranges ranges{{"P", {1, limits_.partitions}}, {"F", {1, limits_.free}}};
    std::vector<std::string> loops;
    for (int d = 0; d < D; ++d) loops.push_back(d == p ? "p0" : d == f ? "0" : "i" + std::to_string(d));
    std::string indent = "  ";
    for (int d = 0; d < D; ++d) {
      if (d == f) continue;
      if (d == p)
        out_ << indent << "for p0 in range(0, " << s.extents[static_cast<size_t>(d)] << ", " << limits_.partitions
             << "):  # P = min(" << limits_.partitions << ", " << s.extents[static_cast<size_t>(d)]
             << " - p0) partitions\n";
      else
        out_ << indent << "for i" << d << " in range(" << s.extents[static_cast<size_t>(d)] << "):\n";
      indent += "  ";
    }
    // The body over tiles: a column (f32[P, 1]) for leaves that do not move along the free dimension.
    ir::Graph& g = *(graph_ = std::make_shared<ir::Graph>());
    std::vector<ir::NodeRef> leaves;
    std::vector<std::string> values;
    for (size_t i = 0; i < s.leaves.size(); ++i) {
      bool column = f < 0 || s.leaves[i].strides[static_cast<size_t>(f)] == 0;
      std::string type = column ? "f32[P, 1]" : "f32[P, F]";
      ir::TensorType t{ir::DType::F32, {ir::Size::name("P"), column ? ir::Size(1) : ir::Size::name("F")}};
      leaves.push_back(g.input(static_cast<int64_t>(i), "l" + std::to_string(i), t));
      std::string v = fresh();
      out_ << indent << v << " = " << load(type, access(s.leaves[i], loops), ranges) << "  # " << type
           << (column ? ", broadcast along the free dimension" : "") << "\n";
      values.push_back(v);
    }
    ir::NodeRef root = isa::rebuild_over(s.body, g, leaves);
    std::string result;
    if (root->op() == ir::Op::Input) {
      result = values.at(static_cast<size_t>(root->attrs().index));
    } else {
      isa::Cover cover = isa::cover_expression(root, "sbuf", synth_, fn_.loc, ranges);
      std::map<int, std::string> done;
      for (size_t i = 0; i < leaves.size(); ++i) done[leaves[i]->id()] = values[i];
      std::function<std::string(ir::NodeRef)> emit = [&](ir::NodeRef n) -> std::string {
        if (auto it = done.find(n->id()); it != done.end()) return it->second;
        if (n->op() == ir::Op::Const) return done[n->id()] = "const(" + std::to_string(n->attrs().value) + ")";
        const isa::CoverChoice& c = cover.at(n);
        std::vector<std::string> args;
        for (ir::NodeRef x : c.cut) args.push_back(emit(x));
        std::string v = fresh();
        out_ << indent << v << " = " << call(c.tree, args) << "  # " << n->type().str() << "\n";
        return done[n->id()] = v;
      };
      result = emit(root);
    }
    std::string type = root->shape().size() == 2 && root->shape()[1] == ir::Size(1) ? "f32[P, 1]" : "f32[P, F]";
    if (s.combine != Combine::None) {
      std::string fn = s.combine == Combine::Sum ? "sum" : s.combine == Combine::Max ? "max" : "min";
      isa::Spec spec = isa::spec_from_source(
          "reduce along the free dimension",
          "def h(x: 'f32[P, F]'):\n    return np." + fn + "(x, axis=1, keepdims=True)", {"sbuf"}, "sbuf", ranges);
      std::string v = fresh();
      out_ << indent << v << " = " << call(require(spec), {result}) << "  # f32[P, 1]\n";
      result = v;
      type = "f32[P, 1]";
    }
    out_ << indent << store(type, "sbuf", result, ranges) << " -> " << access(s.out, loops) << "\n";
  }

  // out[m, n] = sum_k a[m, k] b[k, n] on the tensor engine: K and M of the
  // stationary operand on partitions (loaded transposed by the DMA), N of the
  // moving operand up to one PSUM bank, K tiles accumulated in PSUM.
  void contraction(const Stage& s) {
    int D = static_cast<int>(s.extents.size());
    std::vector<int> kept, reduced;
    for (int d = 0; d < D; ++d) (s.reduced[static_cast<size_t>(d)] ? reduced : kept).push_back(d);
    if (reduced.size() != 1 || kept.empty() || s.leaves.size() != 2)
      throw UserError(fn_.loc, "trn1 lowering handles two-operand contractions over one index only (" + s.what + ")");
    int k = reduced[0], n = kept.back();
    int m = kept.size() >= 2 ? kept[kept.size() - 2] : -1;
    // Which leaf is stationary (moves with m, not n) and which moving.
    int a = -1, b = -1;
    for (int i = 0; i < 2; ++i) {
      const Access& x = s.leaves[static_cast<size_t>(i)];
      bool with_n = x.strides[static_cast<size_t>(n)] != 0;
      (with_n ? b : a) = i;
    }
    if (a < 0 || b < 0)
      throw UserError(fn_.loc, "trn1: both operands of " + s.what + " move along its last output index");
    Ranges ranges{{"K", {1, limits_.partitions}}, {"M", {1, limits_.partitions}}, {"N", {1, limits_.psum_free}}};
    std::vector<std::string> loops;
    for (int d = 0; d < D; ++d)
      loops.push_back(d == k ? "k0" : d == n ? "n0" : d == m ? "m0" : "i" + std::to_string(d));
    std::string indent = "  ";
    for (int d : kept) {
      int64_t e = s.extents[static_cast<size_t>(d)];
      if (d == n)
        out_ << indent << "for n0 in range(0, " << e << ", " << limits_.psum_free << "):  # N = min("
             << limits_.psum_free << ", " << e << " - n0)\n";
      else if (d == m)
        out_ << indent << "for m0 in range(0, " << e << ", " << limits_.partitions << "):  # M = min("
             << limits_.partitions << ", " << e << " - m0)\n";
      else
        out_ << indent << "for i" << d << " in range(" << e << "):\n";
      indent += "  ";
    }
    int64_t K = s.extents[static_cast<size_t>(k)];
    out_ << indent << "for k0 in range(0, " << K << ", " << limits_.partitions << "):  # K = min(" << limits_.partitions
         << ", " << K << " - k0) partitions\n";
    std::string inner = indent + "  ";
    out_ << inner << "st = " << load("f32[K, M]", access(s.leaves[static_cast<size_t>(a)], loops), ranges)
         << "  # stationary f32[K, M]: the DMA reads the tile with K on partitions\n";
    out_ << inner << "mv = " << load("f32[K, N]", access(s.leaves[static_cast<size_t>(b)], loops), ranges)
         << "  # moving f32[K, N]\n";
    const std::string product = "np.einsum('km,kn->mn', st, mv)";
    isa::Spec first =
        isa::spec_from_source("contraction", "def h(st: 'f32[K, M]', mv: 'f32[K, N]'):\n    return " + product,
                              {"sbuf", "sbuf"}, "psum", ranges);
    isa::Spec more =
        isa::spec_from_source("contraction, accumulated",
                              "def h(acc: 'f32[M, N]', st: 'f32[K, M]', mv: 'f32[K, N]'):\n    return acc + " + product,
                              {"psum", "sbuf", "sbuf"}, "psum", ranges);
    out_ << inner << "acc = " << call(require(first), {"st", "mv"}) << " if k0 == 0 else "
         << call(require(more), {"acc", "st", "mv"}) << "  # f32[M, N] in one PSUM bank\n";
    isa::Spec evacuate =
        isa::spec_from_source("psum to sbuf", "def h(x: 'f32[M, N]'):\n    return x", {"psum"}, "sbuf", ranges);
    out_ << indent << "c = " << call(require(evacuate), {"acc"}) << "\n";
    out_ << indent << store("f32[M, N]", "sbuf", "c", ranges) << " -> " << access(s.out, loops) << "\n";
  }

  std::shared_ptr<ir::Graph> graph_;
};

}  // namespace

std::string lower_trn1(const tile::Plan& plan, const ir::Function& fn, const hw::Description& target,
                       isa::Synthesizer& synth) {
  return Trn1Lowering(plan, fn, target, synth).run();
}

}  // namespace axon::emit
