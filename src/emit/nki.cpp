#include "emit/nki.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>
#include <iomanip>
#include <optional>
#include <regex>
#include <set>
#include <sstream>

#include "algebra/propagate.h"
#include "ir/scalar.h"
#include "isa/cover.h"
#include "nugraph/extract.h"
#include "support/diag.h"

namespace axon::emit {

double NkiCounts::busiest() const {
  double most = 0;
  for (const auto& [engine, n] : instructions)
    if (engine != "dma") most = std::max(most, n);
  return most;
}

std::string NkiCounts::busiest_engine() const {
  std::string name;
  double most = -1;
  for (const auto& [engine, n] : instructions)
    if (engine != "dma" && n > most) most = n, name = engine;
  return name;
}

namespace {

using tile::Access;
using tile::Combine;
using tile::Stage;
using Ranges = std::map<std::string, std::pair<int64_t, int64_t>>;

// An access that cannot read or write a scratch buffer in place in SBUF.
struct NotResident {
  int buffer = -1;
};

// SBUF bytes per partition that one stage's tiles may take (of 192 KiB),
// leaving room for the rest of a row group and for the constant columns.
constexpr int64_t kTileBudgetBytes = 96 * 1024;

std::string number(double v) {
  if (std::isinf(v)) return v > 0 ? "np.inf" : "-np.inf";
  if (std::isnan(v)) return "np.nan";
  std::ostringstream s;
  s << std::setprecision(9) << v;
  std::string t = s.str();
  if (t.find_first_of(".en") == std::string::npos) t += ".0";
  return t;
}

// The value of a constant scalar expression, where every op of it is one the
// semantics evaluate as a number here; nullopt otherwise.
std::optional<double> fold(ir::NodeRef n) {
  auto arg = [&](size_t i) { return fold(n->inputs().at(i)); };
  switch (ir::op_kind(n->op())) {
    case ir::OpKind::Leaf:
      if (n->op() == ir::Op::Const) return n->attrs().value;
      return std::nullopt;
    case ir::OpKind::Unary: {
      std::optional<double> x = arg(0);
      if (!x) return std::nullopt;
      return ir::scalar_unary(n->op(), *x, n->attrs().value);
    }
    case ir::OpKind::Binary: {
      std::optional<double> a = arg(0), b = arg(1);
      if (!a || !b) return std::nullopt;
      return ir::scalar_binary(n->op(), *a, *b);
    }
    case ir::OpKind::Select:
    case ir::OpKind::Reduce:
    case ir::OpKind::Scan:
    case ir::OpKind::Contract:
    case ir::OpKind::Layout: return std::nullopt;
  }
  return std::nullopt;
}

// The description's tile limits: partitions, the free size of an SBUF
// result, and the free size of a PSUM result (one bank).
struct Limits {
  int64_t partitions = 1, free = 1, psum_free = 1, moving = 1, stationary = 1;
};

int64_t upper(const hw::Instruction& ins, const ir::Size& dim) {
  if (std::optional<int64_t> c = dim.constant()) return *c;
  std::vector<std::string> names = dim.names();
  if (names.size() != 1) return 1;
  auto it = ins.limits.find(names[0]);
  return it == ins.limits.end() ? 1 : it->second.second;
}

Limits limits_of(const hw::Description& target, const std::string& hbm) {
  Limits t;
  for (const hw::Instruction& ins : target.instructions) {
    for (const hw::Operand& o : ins.operands)
      if (o.space != hbm && o.type.rank() == 2) t.partitions = std::max(t.partitions, upper(ins, o.type.shape[0]));
    if (ins.result.type.rank() != 2 || ins.result.space == hbm) continue;
    int64_t free = upper(ins, ins.result.type.shape[1]);
    if (ins.result.space == "psum")
      t.psum_free = std::max(t.psum_free, free);
    else
      t.free = std::max(t.free, free);
  }
  // The Tensor engine's operand limits, from the contraction instruction.
  for (const hw::Instruction& ins : target.instructions)
    if (ins.result.space == "psum" && ins.operands.size() == 2 && ins.limits.count("M") && ins.limits.count("N")) {
      t.stationary = ins.limits.at("M").second;
      t.moving = ins.limits.at("N").second;
    }
  t.stationary = std::max<int64_t>(t.stationary, 1);
  t.moving = std::max<int64_t>(t.moving, 1);
  return t;
}

// A loop of a stage as one tile block sees it: the first index of the tile
// along it, and whether it is the tile's partition axis, its free axis, or a
// single index (an outer loop).
struct Axis {
  enum Role { Scalar, Partition, Free } role = Scalar;
  std::string start = "0";
  std::string tile = "0";  // along a tiled loop: which tile (the loop variable, or a number)
};

struct Block {
  std::vector<Axis> axes;  // one per stage loop
  int64_t P = 1, F = 1;    // tile sizes
  std::string pvar = "ip", fvar = "jf";  // the aranges along the partition and free axes
  double trips = 1;        // how many times the block runs
};

// Python text of `base + index` without noise.
std::string plus(const std::string& base, const std::string& index) {
  if (base == "0") return index;
  if (index.empty() || index == "0") return base;
  return base + " + " + index;
}

class NkiEmitter {
 public:
  NkiEmitter(const tile::Plan& plan, const ir::Function& fn, const hw::Description& target, isa::Synthesizer& synth,
             const NkiOptions& options, const std::set<int>& not_resident, const std::set<int>& no_column)
      : plan_(plan),
        fn_(fn),
        target_(target),
        synth_(synth),
        options_(options),
        not_resident_(not_resident),
        no_column_(no_column) {
    hbm_ = target.memories.at(0).name;
    limits_ = limits_of(target, hbm_);
    for (const hw::Engine& e : target.engines) counts_.instructions[e.name] = 0;
  }

  NkiKernel run() {
    NkiKernel k;
    k.entry = fn_.name;
    for (int b : plan_.inputs) {
      k.input_names.push_back(buffer_name(b));
      const tile::Buffer& buf = plan_.buffers.at(static_cast<size_t>(b));
      ir::DType t = fn_.params.at(static_cast<size_t>(buf.param)).type.dtype;
      k.input_dtypes.push_back(t == ir::DType::BF16 ? "bf16" : t == ir::DType::F16 ? "f16" : "f32");
    }
    // Which stages run as one row group, and which scratch buffers then stay on chip.
    std::vector<bool> fusable(plan_.stages.size(), false);
    if (options_.fuse_rows)
      for (size_t i = 0; i < plan_.stages.size(); ++i) fusable[i] = row_fusable(plan_.stages[i]);
    // The emitter's own condition: every member is the shared rows and one
    // free loop, the partition loop the innermost shared one. (Members that
    // share their free loop too, element-wise stages of one shape, share it
    // as rows: each takes its whole row in turn, and a member that reads
    // only what the same iteration of all loops wrote reads its own row.)
    auto accept = [&](const fuse::RowGroup& g) {
      int rank = static_cast<int>(plan_.stages[g.first].extents.size());
      if (g.shared < 1 || (rank != g.shared + 1 && rank != g.shared)) return false;
      for (size_t i = g.first; i <= g.last; ++i) {
        const Stage& s = plan_.stages[i];
        int D = static_cast<int>(s.extents.size());
        if (D != rank || free_loop(s) != D - 1 || partition_loop(s, D - 1) != D - 2) return false;
      }
      return true;
    };
    std::vector<fuse::RowGroup> groups =
        options_.fuse_rows ? fuse::row_groups(plan_, fusable, accept) : std::vector<fuse::RowGroup>{};
    std::erase_if(groups, [&](const fuse::RowGroup& g) { return !accept(g); });
    for (fuse::RowGroup& g : groups) g.shared = static_cast<int>(plan_.stages[g.first].extents.size()) - 1;
    for (const fuse::RowGroup& g : groups) on_chip_buffers(g);
    k.groups = groups;
    // A contraction right after a group, reading the group's rows as its
    // stationary side, runs inside the group's row blocks.
    // And a contraction right before a group, writing the rows the group
    // reads, runs there too, its output tiles left in SBUF as those rows.
    std::map<size_t, int> feeds, fed;  // group's first stage -> the buffer handed over in SBUF
    if (options_.fuse_rows) {
      std::set<size_t> taken;  // contractions already run inside the group before them
      for (const fuse::RowGroup& g : groups)
        if (auto b = feeds_contraction(g)) feeds[g.first] = *b, taken.insert(g.last + 1);
      for (const fuse::RowGroup& g : groups)
        if (auto b = fed_by_contraction(g, taken)) fed[g.first] = *b;
      for (auto& kv : feeds) on_chip_.insert(kv.second);
      for (auto& kv : fed) on_chip_.insert(kv.second);
    }
    // Adjacent contractions over the same rows, not taken by a row group,
    // run in one nest when an intermediate of theirs can then stay in SBUF.
    std::map<size_t, ContractionRun> runs;
    if (options_.fuse_rows) {
      std::set<size_t> used;
      for (const fuse::RowGroup& g : groups) {
        for (size_t i = g.first; i <= g.last; ++i) used.insert(i);
        if (feeds.count(g.first)) used.insert(g.last + 1);
        if (fed.count(g.first)) used.insert(g.first - 1);
      }
      for (const ContractionRun& r : contraction_runs(used)) {
        runs[r.first] = r;
        for (int b : r.held) on_chip_.insert(b);
      }
    }

    choose_resident();

    body_.depth = 1;
    size_t next_group = 0;
    for (size_t i = 0; i < plan_.stages.size(); ++i) {
      while (next_group < groups.size() && groups[next_group].first < i) ++next_group;
      if (next_group < groups.size() && fed.count(groups[next_group].first) && groups[next_group].first == i + 1) {
        const fuse::RowGroup& g = groups[next_group++];
        row_chain(g, true, feeds.count(g.first) ? feeds.at(g.first) : -1);
        i = g.last + (feeds.count(g.first) ? 1 : 0);
        continue;
      }
      if (next_group < groups.size() && groups[next_group].first == i) {
        const fuse::RowGroup& g = groups[next_group++];
        if (feeds.count(g.first)) {
          row_chain(g, false, feeds.at(g.first));
          i = g.last + 1;
          continue;
        }
        rows(g.first, g.last);
        i = g.last;
        continue;
      }
      if (auto r = runs.find(i); r != runs.end()) {
        contraction_run(r->second);
        i = r->second.last;
        continue;
      }
      if (tensor_shape(plan_.stages[i]))
        contraction(i);
      else
        rows(i, i);
    }

    std::ostringstream src;
    src << "# " << fn_.name << ": NKI kernel for " << target_.name << " (NeuronCore-v2, NKI Beta 1), emitted by Axon.\n";
    src << "# Every instruction is a proved lowering from " << target_.path.substr(target_.path.rfind('/') + 1)
        << "; partial tiles are peeled, not masked.\n";
    src << "import numpy as np\n";
    src << "from neuronxcc import nki\n";
    src << "import neuronxcc.nki.isa as nisa\n";
    src << "import neuronxcc.nki.language as nl\n\n\n";
    src << "@nki.jit\n";
    src << "def " << fn_.name << "(";
    for (size_t i = 0; i < plan_.inputs.size(); ++i) src << (i ? ", " : "") << buffer_name(plan_.inputs[i]);
    src << "):\n";
    for (int b : plan_.outputs)
      src << "    " << buffer_name(b) << " = nl.ndarray(" << shape_text(plan_.buffers[static_cast<size_t>(b)].shape)
          << ", dtype=nl.float32, buffer=nl.shared_hbm)\n";
    for (size_t b = 0; b < plan_.buffers.size(); ++b)
      if (plan_.buffers[b].kind == tile::Buffer::Kind::Scratch && !on_chip_.count(static_cast<int>(b)) &&
          plan_.buffers[b].elements() > 0) {
        const std::vector<int64_t>& shape = plan_.buffers[b].shape;
        if (!resident_.count(static_cast<int>(b))) {
          src << "    " << buffer_name(static_cast<int>(b)) << " = nl.ndarray(" << shape_text(shape)
              << ", dtype=nl.float32, buffer=nl.hbm)\n";
          continue;
        }
        // In SBUF for the whole kernel: its next-to-last dimension on the
        // partitions, in blocks of a partition tile when it is longer.
        const std::vector<int64_t>& shape_in_sbuf = resident_shape(static_cast<int>(b));
        std::string dims;
        for (size_t d = 0; d + 2 < shape_in_sbuf.size(); ++d) dims += std::to_string(shape_in_sbuf[d]) + ", ";
        int64_t rows = shape_in_sbuf[shape_in_sbuf.size() - 2];
        if (rows > limits_.partitions)
          dims += std::to_string((rows + limits_.partitions - 1) / limits_.partitions) + ", nl.par_dim(" +
                  std::to_string(limits_.partitions) + ")";
        else
          dims += shape_in_sbuf.size() > 2 ? "nl.par_dim(" + std::to_string(rows) + ")" : std::to_string(rows);
        dims += ", " + std::to_string(shape_in_sbuf.back());
        src << "    " << buffer_name(static_cast<int>(b)) << " = nl.ndarray((" << dims
            << "), dtype=nl.float32, buffer=nl.sbuf)  # an intermediate kept in SBUF\n";
      }
    src << views_.str();
    src << constants_.str();
    src << body_.str();
    src << "    return ";
    if (plan_.outputs.size() == 1) {
      src << buffer_name(plan_.outputs[0]) << "\n";
    } else {
      for (size_t i = 0; i < plan_.outputs.size(); ++i) src << (i ? ", " : "") << buffer_name(plan_.outputs[i]);
      src << "\n";
    }
    k.source = src.str();
    k.resident = static_cast<int>(resident_.size());
    k.counts = counts_;
    k.counts.busy_ns = busy_ns_;
    k.tilings = tilings_;
    return k;
  }

  // Whether scratch buffer `b` was given the column layout (its last
  // dimension on the partitions), which emit_nki tries once.
  bool laid_out_as_column(int b) const { return column_layout_.count(b) > 0; }

 private:
  // A value inside a block: a tile variable, or a compile-time number.
  struct Value {
    std::string text;
    std::optional<double> constant;
    bool column = false;  // [P, 1]
  };

  struct Py {
    std::vector<std::pair<int, std::string>> lines;  // indentation depth, text
    int depth = 1;
    void line(const std::string& s) { lines.emplace_back(depth, s); }
    std::string str() const {
      std::string out;
      for (size_t i = 0; i < lines.size(); ++i) {
        const auto& [d, s] = lines[i];
        // An index range that the next line assigns again (a tile's width
        // set, then the widened load's) is never read: not printed.
        size_t eq = s.find(" = nl.arange(");
        bool named = eq != std::string::npos && eq > 0 &&
                     std::all_of(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(eq),
                                 [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
        if (named && i + 1 < lines.size() && lines[i + 1].first == d && lines[i + 1].second.rfind(s.substr(0, eq + 3), 0) == 0)
          continue;
        out += std::string(static_cast<size_t>(4 * d), ' ') + s + "\n";
      }
      return out;
    }
  };

  // A tile that one instruction tree made, where its statement is: what an
  // instruction fusion rewrites.
  struct Produced {
    isa::InstrTree tree;
    std::vector<Value> leaves;
    Block blk;
    size_t line = 0;
  };

  const tile::Plan& plan_;
  const ir::Function& fn_;
  const hw::Description& target_;
  isa::Synthesizer& synth_;
  NkiOptions options_;
  std::string hbm_;
  Limits limits_;
  NkiCounts counts_;
  std::map<std::string, double> busy_ns_;  // each engine's time so far, by the description's costs
  Py body_;
  std::map<std::string, Produced> produced_;  // tile variable -> the statement that made it
  bool tally_ = true;                          // whether render counts what it emits
  std::ostringstream views_, constants_;
  std::map<std::string, std::string> columns_;  // value -> the kernel's constant column
  std::vector<std::vector<std::string>> block_tiles_;  // the tiles each open block made
  std::map<std::pair<int, std::string>, std::string> view_names_;
  std::set<int> on_chip_;                 // scratch buffers a row group keeps in SBUF
  std::map<int, std::string> tile_of_;    // on-chip buffer -> its tile variable in the current block
  std::set<int> sliced_;                  // on-chip buffers held as whole rows [P, N], read a block's columns at a time
  std::set<int> not_resident_;            // scratch buffers that an access showed cannot live in SBUF
  std::set<int> no_column_;               // and those that cannot as a column (their last dimension on the partitions)
  std::set<int> column_layout_;           // the resident ones laid out as such a column
  std::set<int> resident_;                // scratch buffers in SBUF for the whole kernel
  std::map<int, std::vector<int64_t>> resident_shape_;  // a one-dimensional one's layout: [1, N] or [N, 1]
  std::map<const Stage*, std::string> hoisted_;  // contraction -> its stationary K tiles of the current m block
  std::map<std::pair<Access, std::string>, std::string> loaded_;  // loads of the current block, reused
  // Loads of a row group's block that come from one wider load: the access,
  // its first column in that load, and that load's width.
  struct Widened {
    Access whole;
    int64_t column = 0, width = 0;
  };
  std::map<Access, Widened> widened_;
  // Results of a row group's members that land side by side in one row of
  // an HBM buffer: each member writes its columns of one SBUF tile, and the
  // last one stores the tile.
  struct Joined {
    Access whole;
    int64_t column = 0, width = 0;
    std::string tile;
    bool last = false;
  };
  std::map<const Stage*, Joined> joined_;
  std::string tilings_;
  int next_ = 0, next_loop_ = 0;
  // The nest loops open around the current block, outermost first: where
  // each one's `for` line is, and the tiles hoisted above it (deleted after it).
  struct OpenLoop {
    size_t line = 0;
    int depth = 0;
    std::string var;
    int64_t extent = 1;
    std::vector<std::string> hoisted;
  };
  std::vector<OpenLoop> open_loops_;

  std::string fresh(const std::string& prefix = "t") {
    std::string name = prefix + std::to_string(next_++);
    if (!block_tiles_.empty()) block_tiles_.back().push_back(name);
    return name;
  }

  std::string buffer_name(int b) const {
    const tile::Buffer& buf = plan_.buffers.at(static_cast<size_t>(b));
    if (buf.kind == tile::Buffer::Kind::Input) return fn_.params.at(static_cast<size_t>(buf.param)).name;
    if (buf.kind == tile::Buffer::Kind::Output) return "out" + std::to_string(buf.param);
    return "scratch" + std::to_string(b);
  }

  static std::string shape_text(const std::vector<int64_t>& shape) {
    std::string t = "(";
    for (size_t i = 0; i < shape.size(); ++i) t += (i ? ", " : "") + std::to_string(shape[i]);
    return t + (shape.size() == 1 ? ",)" : ")");
  }

  [[noreturn]] void fail(const std::string& what) const { throw UserError(fn_.loc, "trn1: " + what); }

  void count(const std::string& engine, double n = 1) { counts_.instructions[engine] += n; }

  // ---- HBM access as an NKI view and index ----

  // `access` of its buffer as an index into a row-major reshape of the
  // buffer, each stage loop of the block on a view axis of its own stride;
  // the tile's partition axis and free axis always appear (a size-1 axis for
  // one the access does not move along), so the indexed value is a
  // [P or 1, F or 1] tile.
  std::string hbm_index(const Access& a, const Block& blk) {
    try {
      return view_index(a, blk);
    } catch (const UserError&) {
      return flat_index(a, blk);
    }
  }

  // Any affine access (a diagonal, overlapping windows) as one index
  // expression into the buffer viewed flat.
  std::string flat_index(const Access& a, const Block& blk) {
    const tile::Buffer& buf = plan_.buffers.at(static_cast<size_t>(a.buffer));
    std::string view = view_name(a.buffer, {buf.elements()});
    std::string ix = std::to_string(a.offset);
    bool has_p = false, has_f = false;
    for (size_t d = 0; d < a.strides.size(); ++d) {
      if (a.strides[d] == 0) continue;
      const Axis& ax = blk.axes[d];
      std::string along = ax.role == Axis::Partition ? plus(ax.start, blk.pvar) : ax.role == Axis::Free ? plus(ax.start, blk.fvar) : ax.start;
      has_p |= ax.role == Axis::Partition;
      has_f |= ax.role == Axis::Free;
      ix += " + " + std::to_string(a.strides[d]) + " * (" + along + ")";
    }
    if (!has_p) ix += " + 0 * zp";
    if (!has_f) ix += " + 0 * zf";
    return view + "[" + ix + "]";
  }

  std::string view_index(const Access& a, const Block& blk) {
    const tile::Buffer& buf = plan_.buffers.at(static_cast<size_t>(a.buffer));
    int64_t total = buf.elements();
    struct Dim {
      int64_t size = 1;
      int loop = -1;  // the stage loop on it, or -1
      bool negative = false;
      std::string fixed;  // "zp" / "zf" for a size-1 tile axis
    };
    std::vector<std::pair<int64_t, int>> moving;
    for (size_t d = 0; d < a.strides.size(); ++d)
      if (a.strides[d] != 0) moving.push_back({std::llabs(a.strides[d]), static_cast<int>(d)});
    std::sort(moving.begin(), moving.end());
    std::vector<Dim> dims;  // innermost first
    int64_t stride = 1;
    for (size_t i = 0; i < moving.size(); ++i) {
      auto [s, d] = moving[i];
      if (i > 0 && s == moving[i - 1].first) fail("two loops of one access move by the same stride (" + buffer_name(a.buffer) + ")");
      if (s % stride != 0) fail("an access of " + buffer_name(a.buffer) + " is not a row-major view");
      if (s > stride) dims.push_back({s / stride, -1, false, ""}), stride = s;
      int64_t next = i + 1 < moving.size() ? moving[i + 1].first : total;
      if (next % s != 0) fail("an access of " + buffer_name(a.buffer) + " is not a row-major view");
      Dim dim;
      dim.size = std::max<int64_t>(next / s, 1);
      dim.loop = d;
      dim.negative = a.strides[static_cast<size_t>(d)] < 0;
      dims.push_back(dim);
      stride = s * dim.size;
    }
    if (stride < total) {
      if (total % stride != 0) fail("an access of " + buffer_name(a.buffer) + " is not a row-major view");
      dims.push_back({total / stride, -1, false, ""});
    }
    // Digits of the offset, innermost first.
    std::vector<int64_t> digit(dims.size());
    int64_t rest = a.offset;
    for (size_t j = 0; j < dims.size(); ++j) {
      digit[j] = rest % dims[j].size;
      rest /= dims[j].size;
    }
    if (rest != 0) fail("an access of " + buffer_name(a.buffer) + " starts outside it");
    std::reverse(dims.begin(), dims.end());
    std::reverse(digit.begin(), digit.end());
    bool has_p = false, has_f = false;
    for (const Dim& d : dims)
      if (d.loop >= 0) {
        Axis::Role r = blk.axes[static_cast<size_t>(d.loop)].role;
        has_p |= r == Axis::Partition;
        has_f |= r == Axis::Free;
      }
    if (!has_p) dims.insert(dims.begin(), Dim{1, -1, false, "zp"}), digit.insert(digit.begin(), 0);
    if (!has_f) dims.push_back(Dim{1, -1, false, "zf"}), digit.push_back(0);
    std::vector<int64_t> shape;
    for (const Dim& d : dims) shape.push_back(d.size);
    std::string view = view_name(a.buffer, shape);
    std::string index;
    for (size_t j = 0; j < dims.size(); ++j) {
      const Dim& d = dims[j];
      std::string ix;
      if (!d.fixed.empty()) {
        ix = d.fixed;
      } else if (d.loop < 0) {
        ix = std::to_string(digit[j]);
      } else {
        const Axis& ax = blk.axes[static_cast<size_t>(d.loop)];
        std::string along = ax.role == Axis::Partition ? plus(ax.start, blk.pvar) : ax.role == Axis::Free ? plus(ax.start, blk.fvar) : ax.start;
        if (d.negative)
          ix = std::to_string(digit[j]) + " - (" + along + ")";
        else
          ix = plus(digit[j] ? std::to_string(digit[j]) : "0", along);
      }
      index += (j ? ", " : "") + ix;
    }
    return view + "[" + index + "]";
  }

  std::string view_name(int buffer, const std::vector<int64_t>& shape) {
    const tile::Buffer& buf = plan_.buffers.at(static_cast<size_t>(buffer));
    if (shape == buf.shape) return buffer_name(buffer);
    auto key = std::make_pair(buffer, shape_text(shape));
    auto it = view_names_.find(key);
    if (it != view_names_.end()) return it->second;
    std::string name = buffer_name(buffer) + "_v" + std::to_string(view_names_.size());
    views_ << "    " << name << " = " << buffer_name(buffer) << ".reshape(" << shape_text(shape) << ")\n";
    return view_names_[key] = name;
  }

  // ---- proved instructions ----

  isa::Lowering require(const isa::Spec& spec) {
    std::optional<isa::Lowering> l = synth_.lower(spec);
    if (!l)
      fail("no proved instruction sequence for the '" + spec.what + "' step (" + spec.root->type().str() + ")");
    return *l;
  }


  // The text of an instruction tree over `leaves`, with subtrees over
  // constants evaluated, and counted `trips` times.
  Value render(const isa::InstrTree& t, const std::vector<Value>& leaves, const Block& blk, const std::string& result = "") {
    if (!t.instr && t.constant) return Value{number(*t.constant), t.constant, false};
    if (!t.instr) return leaves.at(static_cast<size_t>(t.leaf));
    std::vector<Value> args;
    bool all_constant = true;
    for (const isa::InstrTree& a : t.args) {
      args.push_back(render(a, leaves, blk));
      all_constant &= args.back().constant.has_value();
    }
    if (all_constant && result.empty()) {
      // Evaluate the instruction's semantics on the numbers.
      auto g = std::make_shared<ir::Graph>();
      std::vector<ir::NodeRef> consts;
      for (const Value& v : args) consts.push_back(g->constant(*v.constant));
      std::optional<double> v = fold(isa::instantiate(*t.instr, *g, consts));
      if (v) return Value{number(*v), v, false};
    }
    std::map<std::string, std::string> fill;
    for (size_t i = 0; i < args.size(); ++i) {
      const hw::Operand& o = t.instr->operands[i];
      const Value& v = args[i];
      if (v.constant && !o.immediate) {
        // A constant tile of the operand's shape at this instance's sizes.
        ir::Dims at{{"P", blk.P}, {"F", blk.F}};
        std::vector<int64_t> dims;
        for (const ir::Size& d : o.type.shape) {
          std::optional<int64_t> n = d.constant();
          std::vector<std::string> names = d.names();
          if (!n && names.size() == 1 && t.sizes.count(names[0])) n = t.sizes.at(names[0]).evaluate(at);
          if (!n) fail("a constant operand of " + t.instr->name + " whose size is unknown");
          dims.push_back(*n);
        }
        fill[o.name] = constant_tile(dims, *v.constant, blk);
      } else {
        fill[o.name] = v.text;
      }
    }
    ir::Dims sizes{{"P", blk.P}, {"F", blk.F}};
    for (const auto& [name, size] : t.sizes) {
      std::optional<int64_t> value = size.evaluate(sizes);
      if (value) fill[name] = std::to_string(*value);
    }
    fill["result"] = result;
    if (tally_) {
      count(t.instr->engine, blk.trips);
      busy_ns_[t.instr->engine] += step_ns(t, blk);
    }
    std::string text = isa::fill_emit(t.instr->emit, fill);
    bool column = t.instr->result.type.rank() == 2 && t.instr->result.type.shape[1] == ir::Size(1);
    return Value{text, std::nullopt, column};
  }

  // A tile of one value: a [P, 1] column is made once for the whole kernel
  // (128 partitions, sliced to P); a wider one in the block that uses it.
  std::string constant_tile(const std::vector<int64_t>& dims, double value, const Block& blk) {
    if (dims.size() == 2 && dims[1] == 1 && dims[0] <= limits_.partitions) {
      std::string key = number(value);
      auto it = columns_.find(key);
      if (it == columns_.end()) {
        std::string name = "const" + std::to_string(columns_.size());
        constants_ << "    " << name << " = nl.full((" << limits_.partitions << ", 1), " << key
                   << ", dtype=nl.float32)\n";
        count("vector");
        it = columns_.emplace(key, name).first;
      }
      return it->second + "[0:" + std::to_string(dims[0]) + ", 0:1]";
    }
    std::string shape;
    for (int64_t d : dims) shape += (shape.empty() ? "" : ", ") + std::to_string(d);
    count("vector", blk.trips);  // the memset that makes it
    return "nl.full((" + shape + "), " + number(value) + ", dtype=nl.float32)";
  }

  // Emits `tree` as one statement and names its tile.
  Value assign(const isa::InstrTree& tree, const std::vector<Value>& leaves, const Block& blk) {
    Value v = render(tree, leaves, blk);
    if (v.constant) return v;
    std::string name = fresh();
    produced_[name] = Produced{tree, leaves, blk, body_.lines.size()};
    body_.line(name + " = " + v.text);
    return Value{name, std::nullopt, v.column};
  }

  // Inserts `lines` before line `at` of the body, keeping the places the
  // emitter remembers (open loops, producing statements) on their lines.
  void insert_lines(size_t at, const std::vector<std::pair<int, std::string>>& lines) {
    body_.lines.insert(body_.lines.begin() + static_cast<std::ptrdiff_t>(at), lines.begin(), lines.end());
    for (OpenLoop& o : open_loops_)
      if (o.line >= at) o.line += lines.size();
    for (auto& [name, q] : produced_)
      if (q.line >= at) q.line += lines.size();
  }

  // ---- instruction fusion ----

  // `reduce` (one instruction over the tile `v`) fused into the instruction
  // that made `v`, where the description has a fused instruction for the
  // pair and the prover proves it: that statement becomes the fused one,
  // which also writes the reduction into a new [P, 1] tile (an activation
  // with its free-axis sum). Nullopt where none applies.
  std::optional<Value> fuse_into_producer(const Value& v, const isa::InstrTree& reduce) {
    if (!options_.fuse_rows || v.constant || !reduce.instr || reduce.args.size() != 1 || reduce.args[0].instr ||
        reduce.args[0].leaf != 0)
      return std::nullopt;
    auto it = produced_.find(v.text);
    if (it == produced_.end() || !it->second.tree.instr) return std::nullopt;
    Produced& p = it->second;
    // Only in the producer's own block, at its depth (once per its execution).
    int depth = body_.lines.at(p.line).first;
    if (body_.depth != depth) return std::nullopt;
    for (size_t l = p.line; l < body_.lines.size(); ++l)
      if (body_.lines[l].first < depth) return std::nullopt;
    std::optional<isa::InstrTree> tree = fused_pair(p.tree, reduce, {{"P", p.blk.P}, {"F", p.blk.F}});
    if (!tree) return std::nullopt;
    std::string sums = fresh();
    tally_ = false;
    std::string text = render(*tree, p.leaves, p.blk, sums).text;
    tally_ = true;
    body_.lines[p.line].second = v.text + " = " + text;
    // The entry is dropped before the insertion (which moves the remembered
    // lines), so everything it holds is copied out first.
    size_t line = p.line;
    std::string alloc = sums + " = nl.ndarray((" + std::to_string(p.blk.P) + ", 1), dtype=nl.float32, buffer=nl.sbuf)";
    produced_.erase(it);
    insert_lines(line, {{depth, alloc}});
    // The fused call costs its engine about what the activation did; the
    // reduction's own instruction is not emitted.
    return Value{sums, std::nullopt, true};
  }

  // The description's fused instruction for `first` then `then` (each one
  // instruction over the previous result), where the prover proves it equal
  // to the pair and `sizes` lie within its limits: `first`'s tree with the
  // fused instruction at its top. Nullopt where none applies.
  std::optional<isa::InstrTree> fused_pair(const isa::InstrTree& first, const isa::InstrTree& then,
                                           const ir::Dims& sizes) {
    if (!first.instr || !then.instr) return std::nullopt;
    for (const hw::Instruction& ins : target_.instructions) {
      if (ins.fuses != std::vector<std::string>{first.instr->name, then.instr->name}) continue;
      bool fits = true;
      for (const auto& [name, range] : ins.limits) {
        auto it = sizes.find(name);
        fits &= it != sizes.end() && it->second >= range.first && it->second <= range.second;
      }
      if (!fits || !synth_.prove_fusion(ins, *first.instr, *then.instr)) continue;
      isa::InstrTree tree = first;
      tree.instr = &ins;
      return tree;
    }
    return std::nullopt;
  }

  Ranges tile_ranges() const {
    return {{"P", {1, limits_.partitions}}, {"F", {1, limits_.free}}};
  }

  // Covers `root` (over `leaf_nodes`, whose tiles are `leaves`) in SBUF.
  Value compute(ir::NodeRef root, const std::vector<ir::NodeRef>& leaf_nodes, const std::vector<Value>& leaves,
                const Block& blk) {
    std::map<int, Value> done;
    for (size_t i = 0; i < leaf_nodes.size(); ++i) done[leaf_nodes[i]->id()] = leaves[i];
    if (auto it = done.find(root->id()); it != done.end()) return it->second;
    if (std::optional<double> c = fold(root)) return Value{number(*c), c, false};
    isa::Cover cover = best_cover(root, done, blk);
    if (options_.repropagate) {
      // The second round of operator propagation, on the lowered step.
      if (std::optional<Variant> v = propagated(root, done, blk, busiest_compute(cover_load(cover, root, done, blk)))) {
        body_.line("# this step's expression as operator propagation rewrote it (each rewrite proved): " + v->text);
        ++counts_.repropagated;
        root = v->root;
        done = std::move(v->done);
        cover = std::move(v->cover);
      }
    }
    std::function<Value(ir::NodeRef)> emit = [&](ir::NodeRef n) -> Value {
      if (auto it = done.find(n->id()); it != done.end()) return it->second;
      if (std::optional<double> c = fold(n)) return done[n->id()] = Value{number(*c), c, false};
      const isa::CoverChoice& c = cover.at(n);
      std::vector<Value> args;
      for (ir::NodeRef x : c.cut) args.push_back(emit(x));
      return done[n->id()] = assign(c.tree, args, blk);
    };
    return emit(root);
  }

  // The cheapest cover of `root`, or the spread one where that leaves the
  // busiest compute engine less to do (the spread cover is greedy).
  isa::Cover best_cover(ir::NodeRef root, const std::map<int, Value>& done, const Block& blk) {
    isa::Cover cover = isa::cover_expression(root, "sbuf", synth_, fn_.loc, tile_ranges());
    if (options_.engines == NkiOptions::Engines::Spread) {
      isa::Cover spread_cover = isa::cover_expression(root, "sbuf", synth_, fn_.loc, tile_ranges(), spread(blk));
      if (busiest_compute(cover_load(spread_cover, root, done, blk)) < busiest_compute(cover_load(cover, root, done, blk)))
        cover = std::move(spread_cover);
    }
    return cover;
  }

  // A proved variant of a step's expression, with its leaves' tiles.
  struct Variant {
    ir::NodeRef root;
    std::map<int, Value> done;
    isa::Cover cover;
    std::string text;
  };

  // Operator propagation on the expression of one lowered step (its leaves
  // are the step's tiles): every rewrite proved for all sizes of the tiles,
  // as at the program level. The program-level round cannot see these
  // expressions whole: lowering made them, fusing an epilogue into a fold's
  // step or a row group's members into one block. Of the variants, the one
  // whose cover leaves the busiest compute engine least to do, when that is
  // less than `busiest` (the expression as it came), or nullopt. Each variant
  // is weighed by its cheapest cover; with the engines spread, the few best
  // are covered again that way.
  std::optional<Variant> propagated(ir::NodeRef root, const std::map<int, Value>& done, const Block& blk, double busiest) {
    size_t ops = op_count(root);
    // Covering is the cost (each node's regions are looked up among the
    // proved lowerings), so the round takes steps of a few ops only.
    if (ops < 2 || ops > kMaxPropagatedOps) return std::nullopt;
    std::map<int64_t, std::pair<std::string, Value>> leaf_of;  // by input index: its name, its tile
    for (ir::NodeRef n : ir::topological_order({root}))
      if (n->op() == ir::Op::Input) {
        auto it = done.find(n->id());
        if (it == done.end()) return std::nullopt;
        leaf_of[n->attrs().index] = {n->attrs().name, it->second};
      }
    const StepVariants::Entry& entry = step_variants(root, leaf_of, blk);
    // The variants by what their cheapest covers leave on the busiest engine.
    std::vector<std::pair<double, size_t>> ranked;
    for (size_t i = 0; i < entry.variants.size(); ++i) {
      std::map<std::string, double> load = busy_ns_;
      for (const auto& [engine, ns] : entry.variants[i].second) load[engine] += ns;
      ranked.push_back({busiest_compute(load), i});
    }
    std::stable_sort(ranked.begin(), ranked.end());
    const size_t tries = options_.engines == NkiOptions::Engines::Spread ? 4 : 1;
    std::optional<Variant> best;
    double most = busiest;
    for (size_t r = 0; r < ranked.size() && r < tries; ++r) {
      ir::NodeRef v = entry.variants[ranked[r].second].first;
      std::map<int, Value> vdone = tiles_of(v, leaf_of);
      isa::Cover cover = best_cover(v, vdone, blk);
      double load = busiest_compute(cover_load(cover, v, vdone, blk));
      if (load < most * (1 - 1e-9)) {
        most = load;
        ir::Function f;
        f.outputs = {v};
        best = Variant{v, std::move(vdone), std::move(cover), one_line(f, leaf_of)};
      }
    }
    return best;
  }

  // The proved variants of a step's expression with the time each one's
  // cheapest cover adds per engine, from the search's store or found now.
  const StepVariants::Entry& step_variants(ir::NodeRef root,
                                           const std::map<int64_t, std::pair<std::string, Value>>& leaf_of,
                                           const Block& blk) {
    ir::Function expression;
    expression.outputs = {root};
    std::ostringstream key;
    key << ir::print_numpy(expression) << "|P=" << blk.P << " F=" << blk.F << " trips=" << blk.trips;
    for (const auto& [index, leaf] : leaf_of)
      key << "|" << index << (leaf.second.column ? " column" : " tile")
          << (leaf.second.constant ? " = " + number(*leaf.second.constant) : "");
    StepVariants& store = options_.step_variants ? *options_.step_variants : own_step_variants_;
    auto [it, fresh] = store.by_step.try_emplace(key.str());
    if (!fresh) return it->second;
    StepVariants::Entry& entry = it->second;
    const size_t ops = op_count(root);
    entry.graph = std::make_shared<ir::Graph>();
    nugraph::Limits limits;
    limits.max_nodes = 400;
    limits.max_classes = 200;
    nugraph::NuGraph graph(limits);
    nugraph::ClassId c = graph.add_term(root);
    algebra::PropagationOptions po;
    po.max_iterations = 2;
    po.max_proposals = 120;
    algebra::propagate(graph, synth_.prover(), po);
    const int start = synth_.candidates_tried();
    for (ir::NodeRef v : nugraph::enumerate_variants(graph, graph.find(c), 64, *entry.graph)) {
      // A variant's regions that no earlier cover met are synthesized now
      // (new constants make new specs): the round stops at a budget of
      // candidate instruction trees, so that its cost stays bounded.
      if (synth_.candidates_tried() - start > kSynthesisBudget) break;
      std::map<int, Value> vdone = tiles_of(v, leaf_of);
      // A variant with more ops than the expression is not covered: more
      // instructions, in all but rare cases, and a slower cover.
      if (fold(v) || op_count(v) > ops) continue;
      try {
        isa::Cover cover = isa::cover_expression(v, "sbuf", synth_, fn_.loc, tile_ranges());
        std::map<std::string, double> added;
        for (const auto& [engine, ns] : cover_load(cover, v, vdone, blk, std::map<std::string, double>{})) added[engine] += ns;
        entry.variants.push_back({v, std::move(added)});
      } catch (const UserError&) {
        // a variant with an op no instruction computes
      }
    }
    return entry;
  }
  StepVariants own_step_variants_;

  // The tiles of a variant's leaves, by node, from its step's leaves by input index.
  static std::map<int, Value> tiles_of(ir::NodeRef v, const std::map<int64_t, std::pair<std::string, Value>>& leaf_of) {
    std::map<int, Value> tiles;
    for (ir::NodeRef n : ir::topological_order({v}))
      if (n->op() == ir::Op::Input) tiles[n->id()] = leaf_of.at(n->attrs().index).second;
    return tiles;
  }
  static constexpr size_t kMaxPropagatedOps = 12;
  static constexpr int kSynthesisBudget = 12000;  // per step expression

  static size_t op_count(ir::NodeRef root) {
    size_t ops = 0;
    for (ir::NodeRef n : ir::topological_order({root})) ops += ir::op_kind(n->op()) != ir::OpKind::Leaf;
    return ops;
  }


  // A step's expression on one comment line: its temporaries renamed so that
  // they are not taken for the kernel's tiles, its leaves named by them.
  static std::string one_line(const ir::Function& f, const std::map<int64_t, std::pair<std::string, Value>>& leaf_of) {
    std::string text;
    std::istringstream lines(std::regex_replace(ir::print_numpy(f), std::regex("\\bt([0-9]+)\\b"), "v$1"));
    for (std::string line; std::getline(lines, line);)
      if (!line.empty()) text += (text.empty() ? "" : "; ") + line;
    std::string leaves;
    for (const auto& [index, leaf] : leaf_of)
      leaves += (leaves.empty() ? "" : ", ") + leaf.first + " = " +
                (leaf.second.constant ? number(*leaf.second.constant) : leaf.second.text);
    return text + " (" + leaves + ")";
  }

  // The most time any compute engine (not DMA, which runs beside them) has.
  static double busiest_compute(const std::map<std::string, double>& m) {
    double most = 0;
    for (const auto& [engine, ns] : m)
      if (engine != "dma") most = std::max(most, ns);
    return most;
  }

  // Each engine's time after the instructions of `cover` that compute `root`
  // (the nodes in `done` are there already) are added to the kernel's so far.
  // `base` (by default each engine's time so far) plus what the cover adds.
  std::map<std::string, double> cover_load(const isa::Cover& cover, ir::NodeRef root, const std::map<int, Value>& done,
                                           const Block& blk, std::optional<std::map<std::string, double>> base = std::nullopt) const {
    std::map<std::string, double> load = base ? *base : busy_ns_;
    std::set<int> seen;
    std::function<void(const isa::InstrTree&)> tree = [&](const isa::InstrTree& t) {
      if (!t.instr) return;
      load[t.instr->engine] += step_ns(t, blk);
      for (const isa::InstrTree& a : t.args) tree(a);
    };
    std::function<void(ir::NodeRef)> walk = [&](ir::NodeRef n) {
      if (done.count(n->id()) || fold(n) || !seen.insert(n->id()).second || !cover.choice.count(n->id())) return;
      const isa::CoverChoice& c = cover.at(n);
      tree(c.tree);
      for (ir::NodeRef x : c.cut) walk(x);
    };
    walk(root);
    return load;
  }

  // Engine spreading: every engine may take a step's instructions, and a
  // filling weighs what it adds to the busiest engine's time so far (the
  // kernel's time if the engines overlap perfectly), its own time breaking
  // ties. "So far" counts the expression's nodes already covered (a node that
  // a larger region later takes in is counted too: a heuristic, which is why
  // compute() keeps the result only where it beats the cheapest cover).
  isa::EngineChoice spread(const Block& blk) {
    auto busy = std::make_shared<std::map<std::string, double>>(busy_ns_);
    auto add = [this, blk](std::map<std::string, double>& into, const isa::InstrTree& t) {
      double own = 0;
      std::function<void(const isa::InstrTree&)> walk = [&](const isa::InstrTree& x) {
        if (!x.instr) return;
        double ns = step_ns(x, blk);
        into[x.instr->engine] += ns;
        own += ns;
        for (const isa::InstrTree& a : x.args) walk(a);
      };
      walk(t);
      return own;
    };
    isa::EngineChoice c;
    for (const hw::Engine& e : target_.engines) c.engines.push_back(e.name);
    c.weigh = [busy, add](const isa::InstrTree& t) {
      std::map<std::string, double> after = *busy;
      double own = add(after, t);
      return (busiest_compute(after) - busiest_compute(*busy)) + 1e-3 * own;
    };
    c.chosen = [busy, add](const isa::InstrTree& t) { add(*busy, t); };
    return c;
  }

  // ---- loads and stores ----

  // A leaf of a body as a tile: [P, F], or a [P, 1] column when it does not
  // move along the free axis. A leaf that does not move along the partition
  // axis is loaded once per partition row and broadcast.
  Value load(const Access& a, const Block& blk, int free_loop, int part_loop, bool broadcast_free) {
    bool moves_f = free_loop >= 0 && a.strides[static_cast<size_t>(free_loop)] != 0;
    bool moves_p = part_loop >= 0 && a.strides[static_cast<size_t>(part_loop)] != 0;
    if (auto it = tile_of_.find(a.buffer); it != tile_of_.end()) {
      // An on-chip intermediate of this row group: already a tile of these rows.
      // Whole rows that a contraction of a run left: the block's columns of them.
      if (sliced_.count(a.buffer))
        return Value{it->second + "[ip, " + plus(blk.axes[static_cast<size_t>(free_loop)].start, "jf") + "]",
                     std::nullopt, false};
      return Value{it->second, std::nullopt, !moves_f};
    }
    if (resident_.count(a.buffer)) {
      const std::vector<int64_t>& rshape = resident_shape(a.buffer);
      if (moves_p && !moves_f && a.strides[static_cast<size_t>(part_loop)] == 1 && rshape.back() > 1 &&
          blk.P <= limits_.partitions) {
        // A column along one partition's row (a one-partition row, or a row
        // of a wider buffer, which a DMA first brings to partition 0): its
        // [1, P] slice, transposed on the Tensor engine into a [P, 1] column.
        Block rb = blk;
        rb.axes[static_cast<size_t>(part_loop)].role = Axis::Free;
        rb.fvar = "jk";
        rb.F = blk.P, rb.P = 1;
        body_.line("jk = nl.arange(" + std::to_string(blk.P) + ")[None, :]");
        std::string slice = resident_index_or_copy(a, rb, 1, blk.P);
        Block cb = blk;
        cb.F = 1;
        Value column = transposed_slice(slice, cb);
        if (broadcast_free && blk.F > 1) return Value{broadcast(column.text, blk.P, blk.F), std::nullopt, false};
        return Value{column.text, std::nullopt, true};
      }
      if (!reads_transposed(a, free_loop, part_loop)) {
        // A row (one partition) read by every partition of the block, or a
        // column read along the free axis where a whole tile is wanted: broadcast.
        std::string ix = resident_index_or_copy(a, blk, moves_p ? blk.P : 1, moves_f ? blk.F : 1);
        bool column = !moves_f && !broadcast_free;
        if ((!moves_p && blk.P > 1) || (!moves_f && broadcast_free && blk.F > 1))
          return Value{broadcast(ix, blk.P, column ? 1 : blk.F), std::nullopt, column};
        return Value{ix, std::nullopt, column};
      }
      // Its rows along the tile's free axis, its columns on the partitions:
      // the [F, P] slice as SBUF holds it, transposed on the Tensor engine.
      if (blk.F > limits_.partitions || blk.P > limits_.partitions) throw NotResident{a.buffer};
      Block rb = blk;
      rb.axes[static_cast<size_t>(free_loop)].role = Axis::Partition;
      rb.axes[static_cast<size_t>(part_loop)].role = Axis::Free;
      std::swap(rb.P, rb.F);
      rb.pvar = "ir", rb.fvar = "jk";
      body_.line("ir = nl.arange(" + std::to_string(rb.P) + ")[:, None]");
      body_.line("jk = nl.arange(" + std::to_string(rb.F) + ")[None, :]");
      std::string slice = resident_index_or_copy(a, rb, rb.P, rb.F);
      return transposed_slice(slice, blk);
    }
    if (auto w = widened_.find(a); w != widened_.end() && moves_f && moves_p && !broadcast_free) {
      // Its columns of the wider tile the group's members share. (An access
      // names no width: the wider one may be a part's too, so it is loaded
      // with the parts set aside.)
      Widened wide = w->second;
      Block wb = blk;
      wb.F = wide.width;
      std::map<Access, Widened> parts;
      std::swap(parts, widened_);
      std::string wide_range = blk.fvar + " = nl.arange(" + std::to_string(wide.width) + ")[None, :]";
      body_.line(wide_range);
      Value whole = load(wide.whole, wb, free_loop, part_loop, false);
      if (body_.lines.back().second == wide_range)
        body_.lines.pop_back();  // loaded already, or above the loops
      else
        body_.line(blk.fvar + " = nl.arange(" + std::to_string(blk.F) + ")[None, :]");
      std::swap(parts, widened_);
      if (wide.column == 0 && blk.F == wide.width) return whole;
      return Value{whole.text + "[:, " + std::to_string(wide.column) + ":" + std::to_string(wide.column + blk.F) + "]",
                   std::nullopt, false};
    }
    int64_t p = moves_p ? blk.P : 1, f = moves_f ? blk.F : 1;
    std::string index = hbm_index(a, blk);
    auto key = std::make_pair(a, index + "/" + std::to_string(blk.P) + "x" + std::to_string(blk.F) + (broadcast_free ? "/F" : ""));
    if (auto it = loaded_.find(key); it != loaded_.end()) return Value{it->second, std::nullopt, !moves_f && !broadcast_free};
    // A kernel input that is the same in every iteration of the innermost
    // loops is loaded (and broadcast) once, above them.
    size_t hoist = plan_.buffers.at(static_cast<size_t>(a.buffer)).kind == tile::Buffer::Kind::Input && options_.fuse_rows
                       ? invariant_loops(index)
                       : 0;
    Block once = blk;
    for (size_t k = 0; k < hoist; ++k) once.trips /= static_cast<double>(open_loops_[open_loops_.size() - 1 - k].extent);
    size_t from = body_.lines.size();
    std::vector<std::string> tiles;
    std::string name = dma_load(a, once, p, f).text;
    tiles.push_back(name);
    bool column = !moves_f && !broadcast_free;
    if ((!moves_p && blk.P > 1) || (!moves_f && broadcast_free && blk.F > 1)) {
      name = broadcast(name, blk.P, column ? 1 : blk.F);
      tiles.push_back(name);
    }
    if (hoist > 0) hoist_lines(from, open_loops_.size() - hoist, blk, tiles);
    loaded_[key] = name;
    return Value{name, std::nullopt, column};
  }

  // `src` broadcast to a new [P, W] tile.
  std::string broadcast(const std::string& src, int64_t P, int64_t W) {
    std::string b = fresh();
    body_.line(b + " = nl.broadcast_to(" + src + ", shape=(" + std::to_string(P) + ", " + std::to_string(W) + "))");
    return b;
  }

  // The description's proved HBM -> SBUF copy of a [p, f] tile of `a`.
  Value dma_load(const Access& a, const Block& blk, int64_t p, int64_t f) {
    isa::Spec spec = isa::spec_from_source("dma load", "def h(x: 'f32[P, F]'):\n    return x", {hbm_}, "sbuf",
                                           tile_ranges());
    Block sized = blk;
    sized.P = p, sized.F = f;
    const tile::Buffer& buf = plan_.buffers.at(static_cast<size_t>(a.buffer));
    ir::DType dtype = buf.kind == tile::Buffer::Kind::Input ? fn_.params.at(static_cast<size_t>(buf.param)).type.dtype
                                                            : ir::DType::F32;
    counts_.hbm_read_bytes += blk.trips * static_cast<double>(p * f * (dtype == ir::DType::F32 ? 4 : 2));
    Value v = render(require(spec).tree, {Value{hbm_index(a, blk), std::nullopt, false}}, sized);
    // A bf16 or f16 parameter is that type in HBM: the DMA widens it to f32.
    if (dtype != ir::DType::F32 && !v.text.empty() && v.text.back() == ')')
      v.text.insert(v.text.size() - 1, ", dtype=nl.float32");
    std::string name = fresh();
    body_.line(name + " = " + v.text);
    return Value{name, std::nullopt, false};
  }

  void store(const Access& out, const Value& v, const Block& blk, int64_t f) {
    std::string value = v.text;
    if (v.constant) {
      value = fresh();
      body_.line(value + " = nl.full((" + std::to_string(blk.P) + ", " + std::to_string(f) + "), " +
                 number(*v.constant) + ", dtype=nl.float32)");
      count("vector", blk.trips);
    }
    if (resident_.count(out.buffer)) {
      Block sized = blk;
      sized.F = f;
      const std::vector<int64_t>& rshape = resident_shape(out.buffer);
      int part = -1;
      bool moves_f = false;
      for (size_t l = 0; l < out.strides.size(); ++l) {
        if (out.strides[l] == 0) continue;
        if (blk.axes[l].role == Axis::Partition) part = static_cast<int>(l);
        if (blk.axes[l].role == Axis::Free && f > 1) moves_f = true;  // (one column does not move)
      }
      if (part >= 0 && out.strides[static_cast<size_t>(part)] == 1 && rshape.back() > 1 && blk.P > 1 &&
          blk.P <= limits_.partitions && !moves_f && f == 1) {
        // A column along one partition's row: transposed on the Tensor
        // engine into a [1, P] row, which lands along the row's free axis
        // (by DMA where that row is not partition 0's).
        Block rb = blk;
        for (Axis& ax : rb.axes)
          if (ax.role == Axis::Free) ax.role = Axis::Scalar;  // (its one column)
        rb.axes[static_cast<size_t>(part)].role = Axis::Free;
        rb.fvar = "jk";
        rb.F = blk.P, rb.P = 1;
        body_.line("jk = nl.arange(" + std::to_string(blk.P) + ")[None, :]");
        write_resident(out, transposed_slice(value, rb), rb);
        return;
      }
      if (rshape.size() == 2 && rshape[0] > 1 && rshape[1] == 1 && part < 0 && blk.P == 1 && moves_f &&
          f <= limits_.partitions) {
        // A row written into a column: transposed on the Tensor engine into
        // an [F, 1] column, which lands along the partitions.
        Block cb = sized;
        for (Axis& ax : cb.axes)
          if (ax.role == Axis::Free) ax.role = Axis::Partition;
        cb.pvar = "ir";
        cb.P = f, cb.F = 1;
        body_.line("ir = nl.arange(" + std::to_string(f) + ")[:, None]");
        write_resident(out, transposed_slice(value, cb), cb);
        return;
      }
      write_resident(out, Value{value, std::nullopt, false}, sized);
      return;
    }
    isa::Spec spec = isa::spec_from_source("dma store", "def h(v: 'f32[P, F]'):\n    return v", {"sbuf"}, hbm_,
                                           tile_ranges());
    Block sized = blk;
    sized.F = f;
    body_.line(render(require(spec).tree, {Value{value, std::nullopt, false}}, sized, hbm_index(out, blk)).text);
    counts_.hbm_write_bytes += blk.trips * static_cast<double>(blk.P * f * 4);
  }

  // ---- loop nests ----

  // A loop of the nest: an outer loop (each index alone) or a tiled one.
  struct Level {
    int loop = -1;
    int64_t extent = 1, tile = 1;
    Axis::Role role = Axis::Scalar;
  };

  // The index ranges of a [P, F] block: ip and jf along its partition and
  // free axes, zp and zf of length 1.
  static std::vector<std::string> tile_range_lines(int64_t P, int64_t F) {
    return {"ip = nl.arange(" + std::to_string(P) + ")[:, None]", "jf = nl.arange(" + std::to_string(F) + ")[None, :]",
            "zp = nl.arange(1)[:, None]", "zf = nl.arange(1)[None, :]"};
  }

  void open_loop(const std::string& var, int64_t extent) {
    open_loops_.push_back(OpenLoop{body_.lines.size(), body_.depth, var, extent, {}});
    body_.line("for " + var + " in nl.affine_range(" + std::to_string(extent) + "):");
    ++body_.depth;
  }

  void close_loop() {
    --body_.depth;
    OpenLoop l = std::move(open_loops_.back());
    open_loops_.pop_back();
    if (l.hoisted.empty()) return;
    std::string names;
    for (const std::string& n : l.hoisted) names += (names.empty() ? "" : ", ") + n;
    body_.line("del " + names + "  # loaded once for the loop");
  }

  // How many of the innermost open loops a load at `index` does not depend
  // on (its tile is the same in each of their iterations). None where the
  // index names anything but the tensor, the block's tile ranges (ip, jf,
  // zp, zf) and the open loops' variables (a loop of the block's own, a
  // contraction's ranges: it stays where it is).
  size_t invariant_loops(const std::string& index) const {
    size_t open = index.find('[');
    if (open == std::string::npos) return 0;
    std::set<std::string> named;
    auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
    for (size_t i = open; i < index.size(); ++i) {
      if (!word(index[i]) || std::isdigit(static_cast<unsigned char>(index[i]))) continue;
      size_t j = i;
      while (j < index.size() && word(index[j])) ++j;
      named.insert(index.substr(i, j - i));
      i = j;
    }
    std::set<std::string> known{"ip", "jf", "zp", "zf"};
    for (const OpenLoop& l : open_loops_) known.insert(l.var);
    for (const std::string& n : named)
      if (!known.count(n)) return 0;
    size_t k = 0;
    while (k < open_loops_.size() && !named.count(open_loops_[open_loops_.size() - 1 - k].var)) ++k;
    return k;
  }

  // Moves the lines from `from` to the end (a load and its broadcast, just
  // emitted) to above the open loop `loop`, defining the block's index
  // ranges there first; the tiles they make live until that loop ends.
  void hoist_lines(size_t from, size_t loop, const Block& blk, const std::vector<std::string>& tiles) {
    OpenLoop& l = open_loops_[loop];
    std::vector<std::pair<int, std::string>> moved;
    for (const std::string& r : tile_range_lines(blk.P, blk.F)) moved.emplace_back(l.depth, r);
    for (size_t i = from; i < body_.lines.size(); ++i) moved.emplace_back(l.depth, body_.lines[i].second);
    body_.lines.resize(from);
    insert_lines(l.line, moved);
    for (const std::string& t : tiles) {
      std::vector<std::string>& made = block_tiles_.back();
      made.erase(std::remove(made.begin(), made.end(), t), made.end());
      l.hoisted.push_back(t);
    }
  }

  // Emits the nest over `levels` (outermost first), the tiled ones peeled
  // into full tiles and a remainder, and calls `body` in each innermost block.
  void nest(const std::vector<Level>& levels, size_t at, Block blk, const std::function<void(const Block&)>& body) {
    if (at == levels.size()) {
      // A tile lives in its block: nothing loaded in one is reused in another.
      loaded_.clear();
      block_tiles_.emplace_back();
      body(blk);
      loaded_.clear();
      // A block's tiles would live to the end of the enclosing loop
      // iteration, or of the kernel (several blocks of one iteration would
      // hold PSUM banks together): they are released at the block's end.
      std::vector<std::string> made = std::move(block_tiles_.back());
      block_tiles_.pop_back();
      if (!made.empty()) {
        std::string names;
        for (const std::string& n : made) names += (names.empty() ? "" : ", ") + n;
        body_.line("del " + names + "  # the block's tiles end here");
      }
      return;
    }
    const Level& l = levels[at];
    Axis& ax = blk.axes[static_cast<size_t>(l.loop)];
    ax.role = l.role;
    if (l.role == Axis::Scalar) {
      if (l.extent == 1) {
        ax.start = "0";
        nest(levels, at + 1, blk, body);
        return;
      }
      std::string v = "i" + std::to_string(next_loop_++);
      open_loop(v, l.extent);
      ax.start = v;
      blk.trips *= static_cast<double>(l.extent);
      nest(levels, at + 1, blk, body);
      close_loop();
      return;
    }
    int64_t full = l.extent / l.tile, rem = l.extent % l.tile;
    if (full > 0) {
      Block b = blk;
      (l.role == Axis::Partition ? b.P : b.F) = l.tile;
      if (full == 1) {
        b.axes[static_cast<size_t>(l.loop)].start = "0";
        b.axes[static_cast<size_t>(l.loop)].tile = "0";
        nest(levels, at + 1, b, body);
      } else {
        std::string v = (l.role == Axis::Partition ? "p" : "f") + std::to_string(next_loop_++);
        open_loop(v, full);
        b.axes[static_cast<size_t>(l.loop)].start = v + " * " + std::to_string(l.tile);
        b.axes[static_cast<size_t>(l.loop)].tile = v;
        b.trips *= static_cast<double>(full);
        nest(levels, at + 1, b, body);
        close_loop();
      }
    }
    if (rem > 0) {
      Block b = blk;
      (l.role == Axis::Partition ? b.P : b.F) = rem;
      b.axes[static_cast<size_t>(l.loop)].start = std::to_string(full * l.tile);
      b.axes[static_cast<size_t>(l.loop)].tile = std::to_string(full);
      if (full > 0) body_.line("# the last " + std::string(l.role == Axis::Partition ? "partition" : "free") +
                               " tile: " + std::to_string(rem) + " of " + std::to_string(l.tile));
      nest(levels, at + 1, b, body);
    }
  }

  // ---- element-wise, reduction and scan stages ----

  // The free loop of a row stage: its scan or fold dimension, else the innermost.
  static int free_loop(const Stage& s) {
    if (s.scan_dim >= 0) return s.scan_dim;
    for (int d = static_cast<int>(s.extents.size()) - 1; d >= 0; --d)
      if (s.reduced[static_cast<size_t>(d)]) return d;
    return static_cast<int>(s.extents.size()) - 1;
  }
  // Its partition loop: the innermost other loop that is not folded.
  static int partition_loop(const Stage& s, int f) {
    for (int d = static_cast<int>(s.extents.size()) - 1; d >= 0; --d)
      if (d != f && !s.reduced[static_cast<size_t>(d)] && d != s.scan_dim) return d;
    return -1;
  }

  static bool is_contraction(const Stage& s) {
    if (s.combine != Combine::Sum || s.scan_dim >= 0) return false;
    return s.what.rfind("einsum", 0) == 0;
  }

  static int folded_loops(const Stage& s) {
    int n = 0;
    for (bool r : s.reduced) n += r;
    return n;
  }

  // A stage may join a row group when it is a row stage whose loops are the
  // shared rows and one free loop, its last.
  bool row_fusable(const Stage& s) const {
    if (is_contraction(s) || s.extents.empty()) return false;
    int f = free_loop(s);
    if (f != static_cast<int>(s.extents.size()) - 1) return false;
    if (folded_loops(s) > (s.reduced[static_cast<size_t>(f)] ? 1 : 0)) return false;
    return s.extents[static_cast<size_t>(f)] * 4 * 4 <= kTileBudgetBytes;
  }

  // The scratch buffers a group writes and only it reads, each at the
  // position its writer wrote: they stay in SBUF as the writer's tile.
  void on_chip_buffers(const fuse::RowGroup& g) {
    for (size_t w = g.first; w <= g.last; ++w) {
      const Stage& writer = plan_.stages[w];
      int b = writer.out.buffer;
      if (plan_.buffers[static_cast<size_t>(b)].kind != tile::Buffer::Kind::Scratch) continue;
      bool ok = true, read = false;
      for (size_t r = 0; r < plan_.stages.size() && ok; ++r) {
        const Stage& s = plan_.stages[r];
        auto check = [&](const std::vector<Access>& leaves) {
          for (const Access& a : leaves)
            if (a.buffer == b) {
              read = true;
              if (r <= w || r > g.last || a.offset != writer.out.offset || a.strides != writer.out.strides) ok = false;
            }
        };
        check(s.leaves);
        check(s.epilogue_leaves);
      }
      if (ok && read) on_chip_.insert(b);
    }
  }

  // The free tile of a row stage: the whole row when it is folded or
  // scanned (one tile holds the row), else as much of it as the budget
  // gives the body's tiles.
  int64_t free_tile(const Stage& s, int f) const {
    if (f < 0) return 1;
    int64_t extent = s.extents[static_cast<size_t>(f)];
    int64_t tiles = static_cast<int64_t>(s.leaves.size()) + 4;
    if (s.body) tiles += 2;
    int64_t fit = std::max<int64_t>(kTileBudgetBytes / (tiles * 4), 64);
    if (s.reduced[static_cast<size_t>(f)] || s.scan_dim == f) {
      // The whole row in every tile of the body: its row-long leaves and the
      // result of each of its ops stay live to the end of the block.
      int64_t live = 0;
      for (const Access& a : s.leaves) live += a.strides[static_cast<size_t>(f)] != 0;
      if (s.body)
        for (ir::NodeRef n : ir::topological_order({s.body}))
          live += n->op() != ir::Op::Input && n->op() != ir::Op::Const;
      if (extent * 4 * std::max<int64_t>(live, 1) > 184 * 1024)
        fail("a row of " + std::to_string(extent) + " elements to fold or scan does not fit in one SBUF partition "
             "(" + s.what + "); folding across free tiles is not built yet");
      return extent;
    }
    return std::min({extent, fit, limits_.free});
  }

  // How stages first..last (a row group, or one stage) tile their rows.
  struct RowsPlan {
    std::vector<Level> levels;
    int D = 0, f = -1, p = -1;
    int64_t F = 1;
    bool group = false;
  };

  // `interchange`: an outer loop along which some kernel input's row tiles
  // do not move runs inside the partition loop, so that those tiles are
  // loaded once per row tile, above it (rope's cos and sin, the same for
  // every head).
  RowsPlan rows_plan(size_t first, size_t last, bool interchange = false) {
    const Stage& lead = plan_.stages[first];
    RowsPlan r;
    r.D = static_cast<int>(lead.extents.size());
    r.f = free_loop(lead);
    r.p = partition_loop(lead, r.f);
    auto reloaded_along = [&](int d) {
      if (!interchange || !options_.fuse_rows || r.p < 0) return false;
      for (size_t i = first; i <= last; ++i)
        for (const Access& a : plan_.stages[i].leaves)
          if (plan_.buffers.at(static_cast<size_t>(a.buffer)).kind == tile::Buffer::Kind::Input &&
              a.strides[static_cast<size_t>(d)] == 0 && a.strides[static_cast<size_t>(r.p)] != 0)
            return true;
      return false;
    };
    std::vector<Level> inner;
    for (int d = 0; d < r.D; ++d)
      if (d != r.f && d != r.p && !lead.reduced[static_cast<size_t>(d)])
        (reloaded_along(d) ? inner : r.levels).push_back({d, lead.extents[static_cast<size_t>(d)], 1, Axis::Scalar});
    if (r.p >= 0)
      r.levels.push_back({r.p, lead.extents[static_cast<size_t>(r.p)],
                          std::min(limits_.partitions, lead.extents[static_cast<size_t>(r.p)]), Axis::Partition});
    r.levels.insert(r.levels.end(), inner.begin(), inner.end());
    r.F = r.f >= 0 ? free_tile(lead, r.f) : 1;
    // A resident buffer read transposed goes through the Tensor engine, a
    // partition tile of its rows at a time.
    // (Not a fold's or a scan's row, which one tile must hold whole.)
    if (first == last && r.f >= 0 && r.p >= 0 && !lead.reduced[static_cast<size_t>(r.f)] && lead.scan_dim != r.f)
      for (const Access& a : lead.leaves)
        if (resident_.count(a.buffer) && reads_transposed(a, r.f, r.p)) r.F = std::min(r.F, limits_.partitions);
    for (size_t i = first + 1; i <= last; ++i) r.F = std::min(r.F, free_tile(plan_.stages[i], r.f));
    r.group = first != last;
    if (r.f >= 0 && !r.group) r.levels.push_back({r.f, lead.extents[static_cast<size_t>(r.f)], r.F, Axis::Free});
    int64_t P = std::min(limits_.partitions, r.p >= 0 ? lead.extents[static_cast<size_t>(r.p)] : 1);
    tilings_ += (tilings_.empty() ? "" : " ") + std::to_string(P) + "x" + std::to_string(r.F);
    return r;
  }

  // Stages first..last (a row group, or one stage) over their shared row tiles.
  void rows(size_t first, size_t last) {
    RowsPlan r = rows_plan(first, last, true);
    body_.line("# " + std::string(first == last ? "stage " + std::to_string(first) + ": " + plan_.stages[first].what
                                                 : "stages " + std::to_string(first) + "-" + std::to_string(last) +
                                                       " as one row group, intermediates in SBUF"));
    Block blk;
    blk.axes.resize(static_cast<size_t>(r.D));
    nest(r.levels, 0, blk, [&](const Block& b) {
      tile_of_.clear();
      rows_block(first, last, r, b);
      tile_of_.clear();
      loaded_.clear();
    });
  }

  // The loops of a row group (D loops, free f, partition p) and of a
  // contraction beside it other than rows and row: each one's outer loops, in
  // order (they must pair up one to one).
  // m and n are the contraction's output loops.
  static std::pair<std::vector<int>, std::vector<int>> outer_loops(int D, int f, int p, const Stage& con, int m, int n) {
    std::vector<int> group, contraction;
    for (int d = 0; d < D; ++d)
      if (d != f && d != p) group.push_back(d);
    for (int d = 0; d < static_cast<int>(con.extents.size()); ++d)
      if (!con.reduced[static_cast<size_t>(d)] && d != m && d != n) contraction.push_back(d);
    return {group, contraction};
  }

  // The buffer a row group hands to the contraction right after it, in SBUF:
  // the group writes it whole, row by row (rows on the contraction's m,
  // along the free axis its k), nothing else reads it, and the contraction
  // reads it only on its stationary side, at the very positions written.
  std::optional<int> feeds_contraction(const fuse::RowGroup& g) const {
    size_t c = g.last + 1;
    if (c >= plan_.stages.size()) return std::nullopt;
    const Stage& con = plan_.stages[c];
    std::optional<TensorShape> shape = tensor_shape(con);
    if (!shape || shape->m < 0 || shape->n < 0) return std::nullopt;
    const Stage& lead = plan_.stages[g.first];
    int D = static_cast<int>(lead.extents.size());
    int f = free_loop(lead), p = partition_loop(lead, f);
    if (p < 0 || f < 0) return std::nullopt;
    std::optional<int> handed;
    for (size_t i = 0; i < con.leaves.size(); ++i) {
      int b = con.leaves[i].buffer;
      bool written = false;
      for (size_t w = g.first; w <= g.last; ++w) written |= plan_.stages[w].out.buffer == b;
      if (!written) continue;
      if (handed && *handed != b) return std::nullopt;  // one buffer only
      if (!shape->la.count(static_cast<int>(i))) return std::nullopt;
      handed = b;
    }
    if (!handed || plan_.buffers[static_cast<size_t>(*handed)].kind != tile::Buffer::Kind::Scratch) return std::nullopt;
    const Stage* writer = nullptr;
    for (size_t w = g.first; w <= g.last; ++w)
      if (plan_.stages[w].out.buffer == *handed) writer = &plan_.stages[w];
    const Access& out = writer->out;
    // Read nowhere else; inside the group only where it was written.
    for (size_t r = 0; r < plan_.stages.size(); ++r) {
      if (r == c) continue;
      const Stage& st = plan_.stages[r];
      for (const std::vector<Access>* leaves : {&st.leaves, &st.epilogue_leaves})
        for (const Access& a : *leaves)
          if (a.buffer == *handed &&
              (r < g.first || r > g.last || a.offset != out.offset || a.strides != out.strides))
            return std::nullopt;
    }
    // The same elements: rows (p) on m, the row (f) on k, the outer loops in order.
    auto extent = [](const Stage& st, int d) { return st.extents[static_cast<size_t>(d)]; };
    auto stride = [](const Access& a, int d) { return a.strides[static_cast<size_t>(d)]; };
    auto [outer_g, outer_c] = outer_loops(D, f, p, con, shape->m, shape->n);
    if (outer_g.size() != outer_c.size()) return std::nullopt;
    for (size_t i = 0; i < con.leaves.size(); ++i) {
      const Access& a = con.leaves[i];
      if (a.buffer != *handed) continue;
      if (a.offset != out.offset || stride(a, shape->n) != 0) return std::nullopt;
      if (stride(a, shape->m) != stride(out, p) || stride(a, shape->k) != stride(out, f)) return std::nullopt;
      for (size_t o = 0; o < outer_g.size(); ++o)
        if (stride(a, outer_c[o]) != stride(out, outer_g[o])) return std::nullopt;
    }
    if (extent(con, shape->m) != extent(lead, p) || extent(con, shape->k) != extent(lead, f)) return std::nullopt;
    for (size_t o = 0; o < outer_g.size(); ++o)
      if (extent(con, outer_c[o]) != extent(lead, outer_g[o])) return std::nullopt;
    // The group's row tile is the contraction's m tile.
    int64_t rows = std::min(limits_.partitions, extent(lead, p));
    if (rows != std::min(extent(con, shape->m), std::min(limits_.stationary, limits_.partitions))) return std::nullopt;
    return handed;
  }

  // The buffer the contraction right before a row group hands it in SBUF:
  // the contraction's output rows (m on the group's partitions, n along its
  // free axis), read by nothing but the group, at the very positions written,
  // and not already the rows a contraction before it leaves.
  std::optional<int> fed_by_contraction(const fuse::RowGroup& g, const std::set<size_t>& taken) const {
    if (g.first == 0 || taken.count(g.first - 1)) return std::nullopt;
    size_t c = g.first - 1;
    const Stage& con = plan_.stages[c];
    std::optional<TensorShape> shape = tensor_shape(con);
    if (!shape || shape->m < 0 || shape->n < 0) return std::nullopt;
    int handed = con.out.buffer;
    if (plan_.buffers[static_cast<size_t>(handed)].kind != tile::Buffer::Kind::Scratch) return std::nullopt;
    const Stage& lead = plan_.stages[g.first];
    int D = static_cast<int>(lead.extents.size());
    int f = free_loop(lead), p = partition_loop(lead, f);
    if (p < 0 || f < 0) return std::nullopt;
    auto extent = [](const Stage& st, int d) { return st.extents[static_cast<size_t>(d)]; };
    auto stride = [](const Access& a, int d) { return a.strides[static_cast<size_t>(d)]; };
    auto [outer_g, outer_c] = outer_loops(D, f, p, con, shape->m, shape->n);
    if (outer_g.size() != outer_c.size()) return std::nullopt;
    const Access& out = con.out;
    bool read = false;
    for (size_t r = 0; r < plan_.stages.size(); ++r) {
      const Stage& st = plan_.stages[r];
      for (const std::vector<Access>* leaves : {&st.leaves, &st.epilogue_leaves})
        for (const Access& a : *leaves) {
          if (a.buffer != handed) continue;
          if (r < g.first || r > g.last || a.offset != out.offset) return std::nullopt;
          if (stride(a, p) != stride(out, shape->m) || stride(a, f) != stride(out, shape->n)) return std::nullopt;
          for (size_t o = 0; o < outer_g.size(); ++o)
            if (stride(a, outer_g[o]) != stride(out, outer_c[o])) return std::nullopt;
          read = true;
        }
    }
    if (!read) return std::nullopt;
    if (extent(con, shape->m) != extent(lead, p) || extent(con, shape->n) != extent(lead, f)) return std::nullopt;
    for (size_t o = 0; o < outer_g.size(); ++o)
      if (extent(con, outer_c[o]) != extent(lead, outer_g[o])) return std::nullopt;
    int64_t rows = std::min(limits_.partitions, extent(lead, p));
    if (rows != std::min(extent(con, shape->m), std::min(limits_.stationary, limits_.partitions))) return std::nullopt;
    return handed;
  }

  // A row group with the contraction before it (`with_before`: its output
  // rows made in SBUF, as the group's input) and the one after it (`handed`
  // >= 0: the group's rows multiplied in SBUF as its stationary side, K tiles
  // transposed on the Tensor engine), all in one nest over the group's rows.
  void row_chain(const fuse::RowGroup& g, bool with_before, int handed) {
    RowsPlan r = rows_plan(g.first, g.last);
    std::string what = "stages " + std::to_string(g.first) + "-" + std::to_string(g.last) +
                       " as one row group, intermediates in SBUF";
    if (with_before)
      what = "stage " + std::to_string(g.first - 1) + " (" + plan_.stages[g.first - 1].what +
             " on the Tensor engine) leaving its rows in SBUF for " + what;
    if (handed >= 0)
      what += ", its rows multiplied in SBUF by stage " + std::to_string(g.last + 1) + ": " +
              plan_.stages[g.last + 1].what + " on the Tensor engine";
    body_.line("# " + what);
    auto plan_contraction = [&](size_t c) {
      const Stage& con = plan_.stages[c];
      TensorShape shape = *tensor_shape(con);
      int64_t N = con.extents[static_cast<size_t>(shape.n)];
      int64_t tn = std::min(N, std::min(limits_.moving, limits_.psum_free));
      return std::make_pair(shape, tn);
    };
    for (size_t c : {g.first - 1, g.last + 1}) {
      if ((c == g.first - 1 && !with_before) || (c == g.last + 1 && handed < 0)) continue;
      const Stage& con = plan_.stages[c];
      auto [shape, tn] = plan_contraction(c);
      tilings_ += " " + std::to_string(std::min(limits_.partitions, con.extents[static_cast<size_t>(shape.m)])) + "x" +
                  std::to_string(tn) + "x" +
                  std::to_string(std::min(con.extents[static_cast<size_t>(shape.k)], limits_.partitions));
    }
    // The contraction's block at the group's block: m on its rows, the
    // outer loops in order, n (its own loop) left to the caller.
    auto block_of = [&](size_t c, const TensorShape& shape, const Block& b) {
      const Stage& con = plan_.stages[c];
      auto [outer_g, outer_c] = outer_loops(r.D, r.f, r.p, con, shape.m, shape.n);
      Block cb;
      cb.axes.resize(con.extents.size());
      cb.axes[static_cast<size_t>(shape.m)] = b.axes[static_cast<size_t>(r.p)];
      cb.axes[static_cast<size_t>(shape.m)].role = Axis::Partition;
      for (size_t o = 0; o < outer_g.size(); ++o)
        cb.axes[static_cast<size_t>(outer_c[o])] = Axis{Axis::Scalar, b.axes[static_cast<size_t>(outer_g[o])].start};
      cb.P = b.P;
      cb.trips = b.trips;
      return cb;
    };
    Block blk;
    blk.axes.resize(static_cast<size_t>(r.D));
    nest(r.levels, 0, blk, [&](const Block& b) {
      tile_of_.clear();
      if (with_before) {
        size_t c = g.first - 1;
        const Stage& con = plan_.stages[c];
        auto [shape, tn] = plan_contraction(c);
        int64_t N = con.extents[static_cast<size_t>(shape.n)];
        Block cb = block_of(c, shape, b);
        Value rows;
        if (N <= tn) {
          nest({Level{shape.n, N, tn, Axis::Free}}, 0, cb, [&](const Block& outb) {
            rows = contraction_block(con, shape, outb, true);
            block_tiles_.back().erase(std::remove(block_tiles_.back().begin(), block_tiles_.back().end(), rows.text),
                                      block_tiles_.back().end());
            if (!block_tiles_.empty() && block_tiles_.size() > 1) block_tiles_[block_tiles_.size() - 2].push_back(rows.text);
          });
        } else {
          std::string name = fresh("rows");
          body_.line(name + " = nl.ndarray((" + std::to_string(b.P) + ", " + std::to_string(N) +
                     "), dtype=nl.float32, buffer=nl.sbuf)");
          nest({Level{shape.n, N, tn, Axis::Free}}, 0, cb,
               [&](const Block& outb) { contraction_block(con, shape, outb, true, name); });
          rows = Value{name, std::nullopt, false};
        }
        // The epilogue on the whole rows.
        Block wb = cb;
        wb.F = N;
        wb.axes[static_cast<size_t>(shape.n)] = Axis{Axis::Free, "0"};
        if (con.epilogue) {
          for (const std::string& r : tile_range_lines(wb.P, wb.F)) body_.line(r);
          loaded_.clear();
          rows = contraction_epilogue(con, shape, rows, wb);
        }
        tile_of_[con.out.buffer] = rows.text;
      }
      rows_block(g.first, g.last, r, b);
      if (handed >= 0) {
        AXON_CHECK(tile_of_.count(handed), "the row group left its rows in SBUF");
        size_t c = g.last + 1;
        const Stage& con = plan_.stages[c];
        auto [shape, tn] = plan_contraction(c);
        Block cb = block_of(c, shape, b);
        nest({Level{shape.n, con.extents[static_cast<size_t>(shape.n)], tn, Axis::Free}}, 0, cb,
             [&](const Block& outb) { contraction_block(con, shape, outb); });
      }
      tile_of_.clear();
      loaded_.clear();
    });
  }

  // One block of rows: each stage's tiles, the on-chip ones left in tile_of_.
  // Column runs of one buffer's rows: accesses with the same buffer and
  // strides, in one row (same start row, no wrap), grouped where their
  // columns [first, first + width) touch or overlap. Each run of several
  // accesses that fits one tile gives (access, its first column in the run)
  // and the run's access and width.
  struct Run {
    Access whole;
    int64_t width = 0;
    std::vector<std::pair<Access, int64_t>> parts;
  };
  std::vector<Run> column_runs(const std::vector<std::pair<Access, int64_t>>& accesses) const {
    std::map<std::pair<int, std::vector<int64_t>>, std::vector<std::pair<Access, int64_t>>> by_rows;
    for (const auto& [a, F] : accesses) by_rows[{a.buffer, a.strides}].push_back({a, F});
    std::vector<Run> runs;
    for (auto& [rows, parts] : by_rows) {
      int64_t L = plan_.buffers.at(static_cast<size_t>(rows.first)).shape.back();
      std::vector<std::tuple<int64_t, int64_t, Access>> cols;  // first column, width, access
      for (const auto& [a, F] : parts) {
        if (a.offset / L != parts[0].first.offset / L || a.offset % L + F > L) {
          cols.clear();
          break;
        }
        cols.push_back({a.offset % L, F, a});
      }
      std::sort(cols.begin(), cols.end(), [](const auto& x, const auto& y) { return std::get<0>(x) < std::get<0>(y); });
      for (size_t k = 0; k < cols.size();) {
        size_t e = k + 1;
        int64_t lo = std::get<0>(cols[k]), hi = lo + std::get<1>(cols[k]);
        while (e < cols.size() && std::get<0>(cols[e]) <= hi)
          hi = std::max(hi, std::get<0>(cols[e]) + std::get<1>(cols[e])), ++e;
        bool several = false;
        for (size_t j = k + 1; j < e; ++j)
          several = several || std::get<2>(cols[k]) < std::get<2>(cols[j]) || std::get<2>(cols[j]) < std::get<2>(cols[k]);
        if (several && hi - lo <= limits_.free) {
          Run run;
          run.whole = std::get<2>(cols[k]);
          run.whole.offset = run.whole.offset - run.whole.offset % L + lo;
          run.width = hi - lo;
          for (size_t j = k; j < e; ++j) run.parts.push_back({std::get<2>(cols[j]), std::get<0>(cols[j]) - lo});
          runs.push_back(std::move(run));
        }
        k = e;
      }
    }
    return runs;
  }

  // A row group's members that read one kernel input at the same rows but
  // other columns (the two halves of each row, as rotate-half RoPE does
  // after its element-wise ops moved across the concatenation) share one
  // load of the columns they cover together, when those are contiguous and
  // fit one tile: one DMA of whole rows instead of one per part. Likewise
  // members whose results land side by side in a row of an HBM buffer (the
  // parts of a concatenation) write one SBUF tile, stored once.
  void join_columns(size_t first, size_t last, const RowsPlan& r, int64_t P) {
    widened_.clear();
    joined_.clear();
    if (r.f < 0 || r.p < 0) return;
    size_t f = static_cast<size_t>(r.f), p = static_cast<size_t>(r.p);
    std::vector<std::pair<Access, int64_t>> reads, writes;
    std::map<Access, std::vector<const Stage*>> writers;
    for (size_t i = first; i <= last; ++i) {
      const Stage& s = plan_.stages[i];
      for (const Access& a : s.leaves) {
        const tile::Buffer& b = plan_.buffers.at(static_cast<size_t>(a.buffer));
        if (b.kind == tile::Buffer::Kind::Input && a.strides[f] == 1 && a.strides[p] != 0) reads.push_back({a, s.extents[f]});
      }
      const Access& o = s.out;
      if (!s.reduced[f] && o.strides[f] == 1 && o.strides[p] != 0 && !resident_.count(o.buffer) && !on_chip_.count(o.buffer)) {
        writes.push_back({o, s.extents[f]});
        writers[o].push_back(&s);
      }
    }
    for (const Run& run : column_runs(reads))
      for (const auto& [a, column] : run.parts) widened_[a] = Widened{run.whole, column, run.width};
    for (const Run& run : column_runs(writes)) {
      std::string tile = fresh("y");
      body_.line(tile + " = nl.ndarray((" + std::to_string(P) + ", " + std::to_string(run.width) +
                 "), dtype=nl.float32, buffer=nl.sbuf)");
      const Stage* last_writer = nullptr;
      for (const auto& [a, column] : run.parts)
        for (const Stage* w : writers[a]) {
          joined_[w] = Joined{run.whole, column, run.width, tile, false};
          if (!last_writer || w > last_writer) last_writer = w;
        }
      joined_[last_writer].last = true;
    }
  }

  void rows_block(size_t first, size_t last, const RowsPlan& r, const Block& b) {
    widened_.clear();
    joined_.clear();
    body_.line("ip = nl.arange(" + std::to_string(b.P) + ")[:, None]");
    if (r.group) join_columns(first, last, r, b.P);
    if (!r.group) body_.line("jf = nl.arange(" + std::to_string(b.F) + ")[None, :]");
    body_.line("zp = nl.arange(1)[:, None]");
    body_.line("zf = nl.arange(1)[None, :]");
    loaded_.clear();
    for (size_t i = first; i <= last; ++i) {
      if (!r.group) {
        row_stage(plan_.stages[i], b, r.f, r.p);
        continue;
      }
      // A member of a row group takes its whole row along the free axis.
      Block mb = b;
      mb.F = plan_.stages[i].extents[static_cast<size_t>(r.f)];
      mb.axes[static_cast<size_t>(r.f)] = Axis{Axis::Free, "0"};
      body_.line("jf = nl.arange(" + std::to_string(mb.F) + ")[None, :]");
      row_stage(plan_.stages[i], mb, r.f, r.p);
    }
  }

  void row_stage(const Stage& s, const Block& outer, int f, int p) {
    bool folded = f >= 0 && s.reduced[static_cast<size_t>(f)];
    bool scanned = f >= 0 && s.scan_dim == f;
    // Folds along loops other than the free one run as sequential loops
    // around the tile's own fold, combined into a [P, 1] accumulator.
    Block blk = outer;
    std::string acc;
    int opened = 0;
    std::string combine_fn = s.combine == Combine::Sum ? "sum" : s.combine == Combine::Max ? "max" : "min";
    for (size_t d = 0; d < s.extents.size(); ++d) {
      if (!s.reduced[d] || static_cast<int>(d) == f) continue;
      if (acc.empty()) {
        acc = fresh("acc");
        std::string init = s.combine == Combine::Sum ? "0.0" : s.combine == Combine::Max ? "-np.inf" : "np.inf";
        body_.line(acc + " = nl.full((" + std::to_string(blk.P) + ", 1), " + init + ", dtype=nl.float32)");
        count("vector", blk.trips);
      }
      std::string v = "r" + std::to_string(next_loop_++);
      body_.line("for " + v + " in nl.sequential_range(" + std::to_string(s.extents[d]) + "):");
      ++body_.depth, ++opened;
      blk.axes[d] = Axis{Axis::Scalar, v};
      blk.trips *= static_cast<double>(s.extents[d]);
    }
    ir::Graph g;
    std::vector<ir::NodeRef> nodes;
    std::vector<Value> tiles;
    for (size_t i = 0; i < s.leaves.size(); ++i) {
      bool moves_f = f >= 0 && s.leaves[i].strides[static_cast<size_t>(f)] != 0;
      // A leaf that does not move along the free axis is a [P, 1] column
      // (an operand of tensor_scalar and of activation's scale and bias).
      Value v = load(s.leaves[i], blk, f, p, false);
      ir::TensorType t{ir::DType::F32, {ir::Size::name("P"), moves_f ? ir::Size::name("F") : ir::Size(1)}};
      nodes.push_back(g.input(static_cast<int64_t>(i), "l" + std::to_string(i), t));
      tiles.push_back(v);
    }
    ir::NodeRef root = isa::rebuild_over(s.body, g, nodes);
    Value v = compute(root, nodes, tiles, blk);
    bool column = v.column;
    if (v.constant || (column && !folded && !scanned && f >= 0 && s.out.strides[static_cast<size_t>(f)] != 0)) {
      // A column (or number) that the stage writes along the free axis.
      std::string src = v.constant ? "nl.full((" + std::to_string(blk.P) + ", 1), " + number(*v.constant) + ", dtype=nl.float32)" : v.text;
      v = Value{broadcast(src, blk.P, blk.F), std::nullopt, false};
      column = false;
    }
    if (folded) {
      isa::Spec spec = isa::spec_from_source("reduce along the free dimension",
                                             "def h(x: 'f32[P, F]'):\n    return np." + combine_fn + "(x, axis=1, keepdims=True)",
                                             {"sbuf"}, "sbuf", tile_ranges());
      isa::InstrTree reduce = require(spec).tree;
      std::optional<Value> fused = fuse_into_producer(v, reduce);
      v = fused ? *fused : assign(reduce, {v}, blk);
      v.column = column = true;
    } else if (scanned) {
      isa::Spec spec = isa::spec_from_source("scan along the free dimension",
                                             "def h(x: 'f32[P, F]'):\n    return np.cumsum(x, axis=1)", {"sbuf"},
                                             "sbuf", tile_ranges());
      v = assign(require(spec).tree, {v}, blk);
    }
    if (!acc.empty()) {
      std::string op = s.combine == Combine::Sum ? "a + b" : "np." + std::string(s.combine == Combine::Max ? "maximum" : "minimum") + "(a, b)";
      isa::Spec spec = isa::spec_from_source("combine partial folds", "def h(a: 'f32[P, 1]', b: 'f32[P, 1]'):\n    return " + op,
                                             {"sbuf", "sbuf"}, "sbuf", tile_ranges());
      if (v.constant) fail("a constant fold");
      body_.line(acc + "[...] = " + render(require(spec).tree, {Value{acc, std::nullopt, true}, v}, blk).text);
      body_.depth -= opened;
      v = Value{acc, std::nullopt, true};
      column = true;
      loaded_.clear();
    }
    blk = outer;
    if (s.epilogue) {
      ir::Graph eg;
      std::vector<ir::NodeRef> enodes;
      std::vector<Value> etiles;
      for (size_t i = 0; i < s.epilogue_leaves.size(); ++i) {
        ir::TensorType t{ir::DType::F32, {ir::Size::name("P"), column ? ir::Size(1) : ir::Size::name("F")}};
        enodes.push_back(eg.input(static_cast<int64_t>(i), "e" + std::to_string(i), t));
        etiles.push_back(static_cast<int>(i) == s.epilogue_result ? v
                                                                   : load(s.epilogue_leaves[i], blk, f, p, !column));
      }
      ir::NodeRef eroot = isa::rebuild_over(s.epilogue, eg, enodes);
      v = compute(eroot, enodes, etiles, blk);
      if (v.constant) fail("a constant epilogue");
    }
    if (on_chip_.count(s.out.buffer)) {
      tile_of_[s.out.buffer] = v.text;
      return;
    }
    if (auto j = joined_.find(&s); j != joined_.end() && !column && !v.constant && blk.P > 1) {
      // Its columns of the tile that the members writing this row share.
      const Joined& join = j->second;
      body_.line(join.tile + "[:, " + std::to_string(join.column) + ":" + std::to_string(join.column + blk.F) + "] = " + v.text);
      if (!join.last) return;
      Block wb = blk;
      wb.F = join.width;
      body_.line(blk.fvar + " = nl.arange(" + std::to_string(join.width) + ")[None, :]");
      store(join.whole, Value{join.tile, std::nullopt, false}, wb, join.width);
      return;
    }
    store(s.out, v, blk, column ? 1 : blk.F);
  }

  // ---- contractions on the Tensor engine ----

  // out[.., m, n] = sum_k A[k, m] B[k, n]: K on partitions for both
  // operands, the stationary A with M <= 128 columns, the moving B with
  // N <= 512, accumulated over K tiles in one PSUM bank, then copied to SBUF
  // (with the epilogue, if any) and stored.
  // How a contraction maps onto the Tensor engine: its contracted loop k,
  // the output's loops m (stationary free) and n (moving free), and its body
  // as the product of a side that does not move along n and one that does not
  // move along m. Nullopt when it does not (it then runs as a row stage).
  struct TensorShape {
    int k = -1, m = -1, n = -1;
    ir::NodeRef sa = nullptr, sb = nullptr;
    std::set<int> la, lb;
  };
  static std::optional<TensorShape> tensor_shape(const Stage& s) {
    if (!is_contraction(s)) return std::nullopt;
    int D = static_cast<int>(s.extents.size());
    std::vector<int> kept, folded;
    for (int d = 0; d < D; ++d) (s.reduced[static_cast<size_t>(d)] ? folded : kept).push_back(d);
    if (folded.size() != 1 || !s.body || s.body->op() != ir::Op::Mul) return std::nullopt;
    TensorShape t;
    t.k = folded[0];
    for (auto it = kept.rbegin(); it != kept.rend(); ++it)
      if (s.out.strides[static_cast<size_t>(*it)] != 0) {
        if (t.n < 0)
          t.n = *it;
        else if (t.m < 0)
          t.m = *it;
      }
    auto leaves_of = [&](ir::NodeRef r) {
      std::set<int> out;
      std::function<void(ir::NodeRef)> walk = [&](ir::NodeRef x) {
        if (x->op() == ir::Op::Input) out.insert(static_cast<int>(x->attrs().index));
        for (ir::NodeRef i : x->inputs()) walk(i);
      };
      walk(r);
      return out;
    };
    auto moves = [&](const std::set<int>& leaves, int d) {
      if (d < 0) return false;
      for (int i : leaves)
        if (s.leaves[static_cast<size_t>(i)].strides[static_cast<size_t>(d)] != 0) return true;
      return false;
    };
    t.sa = s.body->inputs()[0], t.sb = s.body->inputs()[1];
    t.la = leaves_of(t.sa), t.lb = leaves_of(t.sb);
    if (moves(t.la, t.n) || moves(t.lb, t.m)) std::swap(t.sa, t.sb), std::swap(t.la, t.lb);
    if (moves(t.la, t.n) || moves(t.lb, t.m)) return std::nullopt;
    // The contracted loop must move both sides (else it is a plain sum).
    if (!moves(t.la, t.k) || !moves(t.lb, t.k)) return std::nullopt;
    return t;
  }

  void contraction(size_t index) {
    const Stage& s = plan_.stages[index];
    int D = static_cast<int>(s.extents.size());
    TensorShape shape = *tensor_shape(s);
    int m = shape.m, n = shape.n;
    std::vector<int> kept;
    for (int d = 0; d < D; ++d)
      if (!s.reduced[static_cast<size_t>(d)]) kept.push_back(d);
    int64_t M = m >= 0 ? s.extents[static_cast<size_t>(m)] : 1;
    int64_t N = n >= 0 ? s.extents[static_cast<size_t>(n)] : 1;
    int64_t tm = std::min(M, std::min(limits_.stationary, limits_.partitions));
    int64_t tn = std::min(N, std::min(limits_.moving, limits_.psum_free));
    body_.line("# stage " + std::to_string(index) + ": " + s.what + " on the Tensor engine, K tiles accumulated in PSUM");
    tilings_ += (tilings_.empty() ? "" : " ") + std::to_string(tm) + "x" + std::to_string(tn) + "x" +
                std::to_string(std::min(s.extents[static_cast<size_t>(shape.k)], limits_.partitions));
    std::vector<Level> levels;
    for (int d : kept)
      if (d != m && d != n) levels.push_back({d, s.extents[static_cast<size_t>(d)], 1, Axis::Scalar});
    // m on the output tile's partitions, n along its free axis.
    if (m >= 0) levels.push_back({m, M, tm, Axis::Partition});
    Block blk;
    blk.axes.resize(static_cast<size_t>(D));
    nest(levels, 0, blk, [&](const Block& mb) {
      // Several n tiles: the stationary K tiles made once per m block.
      std::map<std::string, std::string> shared;
      int64_t budget = kHoistBytes;
      if (n >= 0 && N > tn) hoist_stationary(s, shape, mb, shared, budget);
      if (n >= 0)
        nest({Level{n, N, tn, Axis::Free}}, 0, mb, [&](const Block& outb) { contraction_block(s, shape, outb); });
      else
        contraction_block(s, shape, mb);
      hoisted_.erase(&s);
    });
  }

  // SBUF bytes per partition that the hoisted stationary tiles of one m block may take.
  static constexpr int64_t kHoistBytes = 32 * 1024;

  // The stationary side of contraction `s` for every K tile of the m block
  // `mb` (m on partitions, its outer loops set), made once in SBUF as
  // [K tiles, K tile, m tile] and read by each n tile's K loop. A side that
  // is one leaf read the same way by another contraction of the block is
  // shared through `shared`. Nothing is hoisted past `budget`.
  void hoist_stationary(const Stage& s, const TensorShape& shape, const Block& mb,
                        std::map<std::string, std::string>& shared, int64_t& budget) {
    int k = shape.k, m = shape.m;
    int64_t K = s.extents[static_cast<size_t>(k)];
    int64_t tk = std::min(K, limits_.partitions);
    int64_t nk = (K + tk - 1) / tk;
    // The signature of a side that is one leaf: its buffer and where its
    // elements are at this block, along k.
    std::string key;
    if (shape.sa->op() == ir::Op::Input && shape.la.size() == 1) {
      const Access& a = s.leaves[static_cast<size_t>(*shape.la.begin())];
      key = std::to_string(a.buffer) + "@" + std::to_string(a.offset) + "/k" + std::to_string(a.strides[static_cast<size_t>(k)]) +
            "x" + std::to_string(K) + "/m" + std::to_string(a.strides[static_cast<size_t>(m)]) + "+" +
            mb.axes[static_cast<size_t>(m)].start;
      for (size_t d = 0; d < a.strides.size(); ++d)
        if (static_cast<int>(d) != k && static_cast<int>(d) != m && a.strides[d] != 0)
          key += "/" + std::to_string(a.strides[d]) + "*" + mb.axes[d].start;
      if (auto it = shared.find(key); it != shared.end()) {
        hoisted_[&s] = it->second;
        return;
      }
    }
    int64_t bytes = nk * mb.P * 4;
    if (bytes > budget) return;
    budget -= bytes;
    std::string name = fresh("stat");
    body_.line(name + " = nl.ndarray((" + std::to_string(nk) + ", nl.par_dim(" + std::to_string(tk) + "), " +
               std::to_string(mb.P) + "), dtype=nl.float32, buffer=nl.sbuf)  # the stationary K tiles, hoisted");
    nest({Level{k, K, tk, Axis::Partition}}, 0, mb, [&](const Block& b) {
      Block st = b;
      st.F = mb.P;
      st.fvar = "jm";
      st.axes[static_cast<size_t>(m)].role = Axis::Free;
      if (shape.n >= 0) st.axes[static_cast<size_t>(shape.n)].role = Axis::Scalar;
      body_.line("ip = nl.arange(" + std::to_string(b.P) + ")[:, None]");
      body_.line("jm = nl.arange(" + std::to_string(st.F) + ")[None, :]");
      body_.line("zp = nl.arange(1)[:, None]");
      body_.line("zf = nl.arange(1)[None, :]");
      Value a = operand(s, shape.sa, shape.la, st, k, m, "stationary");
      body_.line(name + "[" + b.axes[static_cast<size_t>(k)].tile + ", ip, jm] = " + a.text);
    });
    hoisted_[&s] = name;
    if (!key.empty()) shared[key] = name;
  }

  // One output tile [m, n] of a contraction: K tiles accumulated in PSUM,
  // then out of PSUM through the epilogue to HBM.
  // With `hand_over`, the tile stays in SBUF (in `into`, at its columns, when
  // given) without epilogue or store, and is returned.
  Value contraction_block(const Stage& s, const TensorShape& shape, const Block& outb, bool hand_over = false,
                          const std::string& into = "") {
    int k = shape.k, m = shape.m, n = shape.n;
    ir::NodeRef sa = shape.sa, sb = shape.sb;
    const std::set<int>&la = shape.la, &lb = shape.lb;
    int64_t K = s.extents[static_cast<size_t>(k)];
    int64_t tk = std::min(K, limits_.partitions);
    std::string acc = fresh("acc");
    body_.line(acc + " = nl.zeros((" + std::to_string(outb.P) + ", " + std::to_string(outb.F) +
               "), dtype=nl.float32, buffer=nl.psum)");
    // The K loop: operand blocks with k on partitions.
    Block kb = outb;
    std::vector<Level> klevels{{k, K, tk, Axis::Partition}};
    // Inside the K loop the stationary tile is [K, M] (m along its free
    // axis) and the moving one [K, N] (n along its free axis): two blocks.
    nest(klevels, 0, kb, [&](const Block& b) {
      Block st = b, mv = b;
      st.F = outb.P, mv.F = outb.F;
      st.fvar = "jm", mv.fvar = "jn";
      if (m >= 0) st.axes[static_cast<size_t>(m)].role = Axis::Free;
      if (n >= 0) st.axes[static_cast<size_t>(n)].role = Axis::Scalar;
      if (n >= 0) mv.axes[static_cast<size_t>(n)].role = Axis::Free;
      if (m >= 0) mv.axes[static_cast<size_t>(m)].role = Axis::Scalar;
      body_.line("ip = nl.arange(" + std::to_string(b.P) + ")[:, None]");
      body_.line("jm = nl.arange(" + std::to_string(st.F) + ")[None, :]");
      body_.line("jn = nl.arange(" + std::to_string(mv.F) + ")[None, :]");
      body_.line("zp = nl.arange(1)[:, None]");
      body_.line("zf = nl.arange(1)[None, :]");
      auto h = hoisted_.find(&s);
      Value a = h != hoisted_.end() ? Value{h->second + "[" + b.axes[static_cast<size_t>(k)].tile + ", ip, jm]", std::nullopt, false}
                                    : operand(s, sa, la, st, k, m, "stationary");
      Value bm = operand(s, sb, lb, mv, k, n, "moving");
      isa::Spec more = isa::spec_from_source(
          "contraction, accumulated",
          "def h(acc: 'f32[M, N]', st: 'f32[K, M]', mv: 'f32[K, N]'):\n    return acc + np.einsum('km,kn->mn', st, mv)",
          {"psum", "sbuf", "sbuf"}, "psum",
          {{"K", {1, limits_.partitions}}, {"M", {1, limits_.stationary}}, {"N", {1, limits_.moving}}});
      isa::Lowering l = require(more);
      Block tb = b;
      tb.P = outb.P, tb.F = outb.F;
      Value r = render(l.tree, {Value{acc, std::nullopt, false}, a, bm}, tb, acc);
      body_.line(r.text);
    });
    // Out of PSUM, the epilogue, the store.
    Block ob = outb;
    for (const std::string& r : tile_range_lines(ob.P, ob.F)) body_.line(r);
    isa::Spec evacuate = isa::spec_from_source("psum to sbuf", "def h(x: 'f32[P, F]'):\n    return x", {"psum"}, "sbuf",
                                               {{"P", {1, limits_.partitions}}, {"F", {1, limits_.psum_free}}});
    if (hand_over) {
      // Rows for a row group after it: out of PSUM into SBUF, where the
      // group reads them (the epilogue follows once the rows are whole).
      if (into.empty()) return assign(require(evacuate).tree, {Value{acc, std::nullopt, false}}, ob);
      Value r = render(require(evacuate).tree, {Value{acc, std::nullopt, false}}, ob);
      body_.line(into + "[ip, " + plus(ob.axes[static_cast<size_t>(n)].start, "jf") + "] = " + r.text);
      return Value{into, std::nullopt, false};
    }
    if (!into.empty()) {
      // Rows kept in SBUF for later contractions of a run: the epilogue,
      // then written at the tile's columns of `into` (no store).
      std::string at = into + "[ip, " + plus(ob.axes[static_cast<size_t>(n)].start, "jf") + "]";
      if (!s.epilogue) {
        Value r = render(require(evacuate).tree, {Value{acc, std::nullopt, false}}, ob);
        body_.line(at + " = " + r.text);
      } else {
        Value v = assign(require(evacuate).tree, {Value{acc, std::nullopt, false}}, ob);
        v = contraction_epilogue(s, shape, v, ob);
        body_.line(at + " = " + (v.constant ? number(*v.constant) : v.text));
      }
      return Value{into, std::nullopt, false};
    }
    Value v = assign(require(evacuate).tree, {Value{acc, std::nullopt, false}}, ob);
    v = contraction_epilogue(s, shape, v, ob);
    store(s.out, v, ob, ob.F);
    return v;
  }

  // ---- runs of contractions over the same rows ----

  // Adjacent contractions (first..last) over the same rows: one nest over
  // their outer loops and m tiles, each contraction's n tiles inside it.
  // `held`: the buffers one of them writes and only later ones read, at the
  // rows written, kept in SBUF as whole rows [P, N] of the m tile.
  struct ContractionRun {
    size_t first = 0, last = 0;
    std::set<int> held;
  };

  // A contraction's loops other than k, m and n, in order.
  static std::vector<int> outer_of(const Stage& s, const TensorShape& t) {
    std::vector<int> out;
    for (int d = 0; d < static_cast<int>(s.extents.size()); ++d)
      if (!s.reduced[static_cast<size_t>(d)] && d != t.m && d != t.n) out.push_back(d);
    return out;
  }

  // Whether contractions a and b tile the same rows: the same m extent and
  // outer loops of the same extents, in order.
  static bool same_rows(const Stage& a, const TensorShape& ta, const Stage& b, const TensorShape& tb) {
    auto extent = [](const Stage& st, int d) { return st.extents[static_cast<size_t>(d)]; };
    if (extent(a, ta.m) != extent(b, tb.m)) return false;
    std::vector<int> oa = outer_of(a, ta), ob = outer_of(b, tb);
    if (oa.size() != ob.size()) return false;
    for (size_t i = 0; i < oa.size(); ++i)
      if (extent(a, oa[i]) != extent(b, ob[i])) return false;
    return true;
  }

  // Whether `a`, read by contraction `reader`, reads the output rows of
  // contraction `writer` at the very elements written: as an epilogue leaf
  // (the writer's n on the reader's n), or as the reader's stationary side
  // (the writer's n on the reader's contracted k).
  static bool reads_rows(const Stage& writer, const TensorShape& ws, const Stage& reader, const TensorShape& rs,
                         const Access& a, bool stationary) {
    auto extent = [](const Stage& st, int d) { return st.extents[static_cast<size_t>(d)]; };
    auto stride = [](const Access& x, int d) { return x.strides[static_cast<size_t>(d)]; };
    const Access& o = writer.out;
    if (a.offset != o.offset || stride(a, rs.m) != stride(o, ws.m)) return false;
    int along = stationary ? rs.k : rs.n;
    if (stride(a, along) != stride(o, ws.n) || extent(reader, along) != extent(writer, ws.n)) return false;
    if (stride(a, stationary ? rs.n : rs.k) != 0) return false;
    std::vector<int> ow = outer_of(writer, ws), orr = outer_of(reader, rs);
    for (size_t i = 0; i < ow.size(); ++i)
      if (stride(a, orr[i]) != stride(o, ow[i])) return false;
    return true;
  }

  // SBUF bytes per partition that a run's held rows may take.
  static constexpr int64_t kHeldRowsBytes = 64 * 1024;

  // The buffers stages first..last hold on chip, or nullopt when the run is
  // not sound: a later member reads a buffer an earlier one writes in a way
  // that cannot stay on chip (one nest would reorder it through HBM), or
  // the held rows do not fit.
  std::optional<std::set<int>> run_holds(size_t first, size_t last) const {
    std::set<int> held;
    int64_t bytes = 0;
    for (size_t w = first; w < last; ++w) {
      const Stage& writer = plan_.stages[w];
      int b = writer.out.buffer;
      TensorShape ws = *tensor_shape(writer);
      bool read_in_run = false, holdable = plan_.buffers[static_cast<size_t>(b)].kind == tile::Buffer::Kind::Scratch;
      for (size_t r = 0; r < plan_.stages.size(); ++r) {
        const Stage& st = plan_.stages[r];
        if (r != w && st.out.buffer == b) holdable = false;  // written twice
        bool reads = false;
        for (const std::vector<Access>* leaves : {&st.leaves, &st.epilogue_leaves})
          for (const Access& a : *leaves) reads |= a.buffer == b;
        if (!reads) continue;
        if (r > w && r <= last) read_in_run = true;
        if (r <= w || r > last) {
          holdable = false;
          continue;
        }
        TensorShape rs = *tensor_shape(st);
        for (size_t i = 0; i < st.leaves.size(); ++i)
          if (st.leaves[i].buffer == b && (!rs.la.count(static_cast<int>(i)) || !reads_rows(writer, ws, st, rs, st.leaves[i], true)))
            holdable = false;
        for (const Access& a : st.epilogue_leaves)
          if (a.buffer == b && !reads_rows(writer, ws, st, rs, a, false)) holdable = false;
      }
      if (!read_in_run) continue;
      if (!holdable) return std::nullopt;
      held.insert(b);
      bytes += writer.extents[static_cast<size_t>(ws.n)] * 4;
    }
    if (bytes > kHeldRowsBytes) return std::nullopt;
    return held;
  }

  std::vector<ContractionRun> contraction_runs(const std::set<size_t>& used) const {
    std::vector<ContractionRun> runs;
    auto joins = [&](size_t s) {
      if (used.count(s)) return false;
      std::optional<TensorShape> t = tensor_shape(plan_.stages[s]);
      return t && t->m >= 0 && t->n >= 0;
    };
    size_t i = 0;
    while (i < plan_.stages.size()) {
      if (!joins(i)) {
        ++i;
        continue;
      }
      TensorShape ti = *tensor_shape(plan_.stages[i]);
      size_t end = i;
      while (end + 1 < plan_.stages.size() && joins(end + 1) &&
             same_rows(plan_.stages[i], ti, plan_.stages[end + 1], *tensor_shape(plan_.stages[end + 1])))
        ++end;
      // The longest sound run from i that keeps something on chip.
      size_t last = end;
      std::optional<std::set<int>> held;
      for (; last > i; --last)
        if ((held = run_holds(i, last)) && !held->empty()) break;
      if (last > i) {
        runs.push_back(ContractionRun{i, last, *held});
        i = last + 1;
      } else {
        ++i;
      }
    }
    return runs;
  }

  void contraction_run(const ContractionRun& run) {
    const Stage& lead = plan_.stages[run.first];
    TensorShape ls = *tensor_shape(lead);
    body_.line("# stages " + std::to_string(run.first) + "-" + std::to_string(run.last) +
               ": contractions over the same rows in one nest on the Tensor engine, intermediates in SBUF");
    std::vector<int> louter = outer_of(lead, ls);
    std::vector<Level> levels;
    for (int d : louter) levels.push_back({d, lead.extents[static_cast<size_t>(d)], 1, Axis::Scalar});
    int64_t M = lead.extents[static_cast<size_t>(ls.m)];
    int64_t tm = std::min(M, std::min(limits_.stationary, limits_.partitions));
    levels.push_back({ls.m, M, tm, Axis::Partition});
    for (size_t c = run.first; c <= run.last; ++c) {
      const Stage& con = plan_.stages[c];
      TensorShape shape = *tensor_shape(con);
      int64_t N = con.extents[static_cast<size_t>(shape.n)];
      tilings_ += (tilings_.empty() ? "" : " ") + std::to_string(tm) + "x" +
                  std::to_string(std::min(N, std::min(limits_.moving, limits_.psum_free))) + "x" +
                  std::to_string(std::min(con.extents[static_cast<size_t>(shape.k)], limits_.partitions));
    }
    Block blk;
    blk.axes.resize(lead.extents.size());
    nest(levels, 0, blk, [&](const Block& b) {
      tile_of_.clear();
      std::map<std::string, std::string> shared;
      int64_t budget = kHoistBytes;
      for (size_t c = run.first; c <= run.last; ++c) {
        const Stage& con = plan_.stages[c];
        TensorShape shape = *tensor_shape(con);
        int64_t N = con.extents[static_cast<size_t>(shape.n)];
        int64_t tn = std::min(N, std::min(limits_.moving, limits_.psum_free));
        Block cb;
        cb.axes.resize(con.extents.size());
        cb.axes[static_cast<size_t>(shape.m)] = b.axes[static_cast<size_t>(ls.m)];
        cb.axes[static_cast<size_t>(shape.m)].role = Axis::Partition;
        std::vector<int> couter = outer_of(con, shape);
        for (size_t o = 0; o < couter.size(); ++o)
          cb.axes[static_cast<size_t>(couter[o])] = Axis{Axis::Scalar, b.axes[static_cast<size_t>(louter[o])].start};
        cb.P = b.P;
        cb.trips = b.trips;
        std::string rows;
        if (run.held.count(con.out.buffer)) {
          rows = fresh("rows");
          body_.line(rows + " = nl.ndarray((" + std::to_string(b.P) + ", " + std::to_string(N) +
                     "), dtype=nl.float32, buffer=nl.sbuf)");
        }
        hoist_stationary(con, shape, cb, shared, budget);
        nest({Level{shape.n, N, tn, Axis::Free}}, 0, cb,
             [&](const Block& outb) { contraction_block(con, shape, outb, false, rows); });
        hoisted_.erase(&con);
        if (!rows.empty()) tile_of_[con.out.buffer] = rows, sliced_.insert(con.out.buffer);
      }
      tile_of_.clear();
      loaded_.clear();
    });
  }

  // The element-wise consumer fused into a contraction, on its output tile.
  Value contraction_epilogue(const Stage& s, const TensorShape& shape, Value v, const Block& ob) {
    if (!s.epilogue) return v;
    ir::Graph eg;
    std::vector<ir::NodeRef> enodes;
    std::vector<Value> etiles;
    int f = shape.n, p = shape.m;
    for (size_t i = 0; i < s.epilogue_leaves.size(); ++i) {
      ir::TensorType t{ir::DType::F32, {ir::Size::name("P"), ir::Size::name("F")}};
      bool moves_f = f >= 0 && s.epilogue_leaves[i].strides[static_cast<size_t>(f)] != 0;
      if (static_cast<int>(i) != s.epilogue_result && !moves_f)
        t = ir::TensorType{ir::DType::F32, {ir::Size::name("P"), ir::Size(1)}};
      enodes.push_back(eg.input(static_cast<int64_t>(i), "e" + std::to_string(i), t));
      etiles.push_back(static_cast<int>(i) == s.epilogue_result ? v : load(s.epilogue_leaves[i], ob, f, p, false));
    }
    ir::NodeRef eroot = isa::rebuild_over(s.epilogue, eg, enodes);
    return compute(eroot, enodes, etiles, ob);
  }

  // One side of a contraction inside the K loop, as a [K, X] tile in SBUF.
  Value operand(const Stage& s, ir::NodeRef side, const std::set<int>& leaves, const Block& b, int k, int x,
                const std::string& what) {
    ir::Graph g;
    std::vector<ir::NodeRef> nodes;
    std::vector<Value> tiles;
    std::vector<int> order(leaves.begin(), leaves.end());
    std::vector<ir::NodeRef> inputs(s.leaves.size(), nullptr);
    for (int i : order) {
      const Access& a = s.leaves[static_cast<size_t>(i)];
      bool moves_x = x >= 0 && a.strides[static_cast<size_t>(x)] != 0;
      bool moves_k = a.strides[static_cast<size_t>(k)] != 0;
      Value v = transposed_load(a, b, k, x, moves_k, moves_x);
      ir::TensorType t{ir::DType::F32, {ir::Size::name("P"), moves_x ? ir::Size::name("F") : ir::Size(1)}};
      inputs[static_cast<size_t>(i)] = g.input(i, "l" + std::to_string(i), t);
      nodes.push_back(inputs[static_cast<size_t>(i)]);
      tiles.push_back(v);
    }
    for (auto& in : inputs)
      if (!in) in = g.constant(0);  // not read by this side
    ir::NodeRef root = isa::rebuild_over(side, g, inputs);
    Value v = compute(root, nodes, tiles, b);
    if (v.constant || v.column) {
      std::string name = fresh();
      std::string src = v.constant ? "nl.full((" + std::to_string(b.P) + ", 1), " + number(*v.constant) + ", dtype=nl.float32)" : v.text;
      body_.line(name + " = nl.broadcast_to(" + src + ", shape=(" + std::to_string(b.P) + ", " + std::to_string(b.F) + "))  # " + what);
      v = Value{name, std::nullopt, false};
    }
    return v;
  }

  // A [K, X] operand tile of `a`. When HBM holds it with k innermost (the
  // DMA would read one element per descriptor), and the options say so, it
  // is loaded as [X, K] rows and transposed on the Tensor engine.
  Value transposed_load(const Access& a, const Block& b, int k, int x, bool moves_k, bool moves_x) {
    if (auto it = tile_of_.find(a.buffer); it != tile_of_.end() && moves_k && moves_x)
      return transposed_rows(it->second, b, k);
    bool strided = moves_k && moves_x && std::llabs(a.strides[static_cast<size_t>(k)]) == 1 &&
                   std::llabs(a.strides[static_cast<size_t>(x)]) > 1;
    if (strided && b.F <= limits_.partitions && resident_.count(a.buffer)) {
      // Rows of x on partitions, k along the free axis, as SBUF holds them.
      Block rb = b;
      rb.axes[static_cast<size_t>(k)].role = Axis::Free;
      rb.axes[static_cast<size_t>(x)].role = Axis::Partition;
      std::swap(rb.P, rb.F);
      rb.pvar = "ir", rb.fvar = "jk";
      body_.line("ir = nl.arange(" + std::to_string(rb.P) + ")[:, None]");
      body_.line("jk = nl.arange(" + std::to_string(rb.F) + ")[None, :]");
      return transposed_slice(resident_index(a, rb), b);
    }
    if (!strided || b.F > limits_.partitions || tile_of_.count(a.buffer)) return load(a, b, x, k, false);
    // Rows of x on partitions, k along the free axis: the tile as HBM holds it.
    Block rb = b;
    rb.axes[static_cast<size_t>(k)].role = Axis::Free;
    rb.axes[static_cast<size_t>(x)].role = Axis::Partition;
    std::swap(rb.P, rb.F);
    rb.pvar = "ir", rb.fvar = "jk";
    Ranges square{{"P", {1, limits_.partitions}}, {"F", {1, limits_.partitions}}};
    isa::Lowering load_rows = require(
        isa::spec_from_source("dma load", "def h(x: 'f32[P, F]'):\n    return x", {hbm_}, "sbuf", tile_ranges()));
    isa::Lowering on_chip = require(
        isa::spec_from_source("transpose on chip", "def h(x: 'f32[P, F]'):\n    return x.T", {"sbuf"}, "psum", square));
    isa::Lowering evacuate = require(isa::spec_from_source(
        "psum to sbuf", "def h(x: 'f32[P, F]'):\n    return x", {"psum"}, "sbuf",
        {{"P", {1, limits_.partitions}}, {"F", {1, limits_.psum_free}}}));
    ir::Dims rows{{"P", rb.P}, {"F", rb.F}}, cols{{"P", rb.F}, {"F", rb.P}};
    // The transposing DMA: the description's fusion of the load and the
    // on-chip transpose (into SBUF, no PSUM copy), proved equal to the pair.
    std::optional<isa::InstrTree> by_dma = fused_pair(load_rows.tree, on_chip.tree, rows);
    double tensor_ns = nanoseconds(load_rows.tree, rows) + nanoseconds(on_chip.tree, rows) + nanoseconds(evacuate.tree, cols);
    bool dma = by_dma && (options_.transpose == NkiOptions::Transpose::Dma ||
                          (options_.transpose == NkiOptions::Transpose::Cheaper && nanoseconds(*by_dma, rows) < tensor_ns));
    body_.line("ir = nl.arange(" + std::to_string(rb.P) + ")[:, None]");
    body_.line("jk = nl.arange(" + std::to_string(rb.F) + ")[None, :]");
    if (dma) {
      counts_.hbm_read_bytes += b.trips * static_cast<double>(rb.P * rb.F * 4);
      return assign(*by_dma, {Value{hbm_index(a, rb), std::nullopt, false}}, rb);
    }
    Value tile_rows = dma_load(a, rb, rb.P, rb.F);
    Value t = assign(on_chip.tree, {tile_rows}, rb);
    return assign(evacuate.tree, {t}, b);
  }

  // A [K, X] operand tile cut from rows already in SBUF ([X, K], x on
  // partitions, the whole of k along the free axis): its K tile, transposed
  // on the Tensor engine through PSUM.
  Value transposed_rows(const std::string& rows, const Block& b, int k) {
    body_.line("ir = nl.arange(" + std::to_string(b.F) + ")[:, None]");
    body_.line("jk = nl.arange(" + std::to_string(b.P) + ")[None, :]");
    return transposed_slice(rows + "[ir, " + plus(b.axes[static_cast<size_t>(k)].start, "jk") + "]", b);
  }

  // The [K, X] operand tile of an [X, K] slice of SBUF (x on partitions,
  // indexed by ir and jk), transposed on the Tensor engine through PSUM.
  // `a` of a resident buffer as an index into it where engines can read it
  // in place; else (its rows at a partition offset) a [p, f] tile at
  // partition 0 that a DMA fills from there.
  std::string resident_index_or_copy(const Access& a, const Block& blk, int64_t p, int64_t f) {
    try {
      return resident_index(a, blk);
    } catch (const NotResident&) {
      std::string index = resident_index(a, blk, true);
      std::string tile = fresh();
      body_.line(tile + " = nl.ndarray((" + std::to_string(p) + ", " + std::to_string(f) +
                 "), dtype=nl.float32, buffer=nl.sbuf)");
      Block sized = blk;
      sized.P = p, sized.F = f;
      copy_within_sbuf(Value{index, std::nullopt, false}, sized, tile);
      return tile;
    }
  }

  // `v` written as `out` of a resident buffer in `blk`: in place, or, at a
  // partition offset where a compute engine cannot write, by a DMA.
  void write_resident(const Access& out, const Value& v, const Block& blk) {
    std::string index;
    try {
      index = resident_index(out, blk);
    } catch (const NotResident&) {
      copy_within_sbuf(v, blk, resident_index(out, blk, true));
      return;
    }
    body_.line(index + " = " + v.text);
  }

  // The description's proved SBUF -> SBUF copy on a DMA queue of `from`
  // into `to` (both [P, F] of `blk`).
  void copy_within_sbuf(const Value& from, const Block& blk, const std::string& to) {
    isa::Spec spec = isa::spec_from_source("copy by dma", "def h(x: 'f32[P, F]'):\n    return x", {"sbuf"}, "sbuf",
                                           tile_ranges());
    spec.engines = {"dma"};
    body_.line(render(require(spec).tree, {from}, blk, to).text);
  }

  Value transposed_slice(const std::string& slice, const Block& b) {
    Block rb = b;
    rb.P = b.F, rb.F = b.P;
    Ranges square{{"P", {1, limits_.partitions}}, {"F", {1, limits_.partitions}}};
    isa::Lowering on_chip = require(
        isa::spec_from_source("transpose on chip", "def h(x: 'f32[P, F]'):\n    return x.T", {"sbuf"}, "psum", square));
    isa::Lowering evacuate = require(isa::spec_from_source(
        "psum to sbuf", "def h(x: 'f32[P, F]'):\n    return x", {"psum"}, "sbuf",
        {{"P", {1, limits_.partitions}}, {"F", {1, limits_.psum_free}}}));
    Value t = assign(on_chip.tree, {Value{slice, std::nullopt, false}}, rb);
    return assign(evacuate.tree, {t}, b);
  }

  // ---- scratch buffers in SBUF for the whole kernel ----

  // SBUF bytes per partition that kernel-long intermediates may take.
  static constexpr int64_t kResidentBytes = 64 * 1024;

  // The scratch buffers that HBM would otherwise hold and that fit in SBUF
  // as (outer..., partitions, free): the next-to-last dimension at most the
  // partition count. Whether each access can read them in place shows only
  // when it is emitted (emit_nki retries without one that cannot).
  void choose_resident() {
    if (!options_.fuse_rows) return;
    int64_t bytes = 0;
    for (size_t b = 0; b < plan_.buffers.size(); ++b) {
      const tile::Buffer& buf = plan_.buffers[b];
      int id = static_cast<int>(b);
      if (buf.kind != tile::Buffer::Kind::Scratch || on_chip_.count(id) || not_resident_.count(id)) continue;
      if (!options_.resident || buf.elements() <= 0) continue;
      // Dimensions of size one take no room and no index: SBUF holds the
      // buffer without them (the row-major offsets are the same).
      std::vector<int64_t> squeezed;
      for (int64_t d : buf.shape)
        if (d > 1) squeezed.push_back(d);
      // Whether a tile's free axis moves along it at all, and whether its
      // partition axis walks the last dimension (the one of stride one).
      bool along_free = false, along_partitions = false, last_on_partitions = false;
      for (const Stage& st : plan_.stages) {
        int f = free_loop(st), p = partition_loop(st, f);
        auto note = [&](const Access& a) {
          if (a.buffer != id) return;
          if (f >= 0 && a.strides[static_cast<size_t>(f)] != 0) along_free = true;
          if (p >= 0 && a.strides[static_cast<size_t>(p)] != 0) along_partitions = true;
          if (p >= 0 && a.strides[static_cast<size_t>(p)] == 1) last_on_partitions = true;
        };
        note(st.out);
        for (const std::vector<Access>* leaves : {&st.leaves, &st.epilogue_leaves})
          for (const Access& a : *leaves) note(a);
      }
      if (squeezed.empty()) {
        // One number: one partition's one element, every read a broadcast of it.
        resident_shape_[id] = {1, 1};
      } else if (squeezed.size() == 1) {
        // One dimension: a row on one partition where an access walks it
        // along a tile's free axis (a read down the partitions transposes
        // its slice on the Tensor engine, in load()), else a column.
        if (!along_free && !along_partitions) continue;
        resident_shape_[id] = along_free ? std::vector<int64_t>{1, squeezed[0]} : std::vector<int64_t>{squeezed[0], 1};
      } else if (last_on_partitions && !along_free && !no_column_.count(id)) {
        // Its last dimension on the partitions and no free axis along it:
        // that dimension is the partition one, with a free axis of one.
        squeezed.push_back(1);
        resident_shape_[id] = squeezed;
        column_layout_.insert(id);
      } else if (squeezed.size() < buf.shape.size()) {
        resident_shape_[id] = squeezed;
      }
      auto in_place = [&] {
        bool all = true;
        for (const Stage& st : plan_.stages) {
          if (st.out.buffer == id) all &= walks_dims(st.out, st);
          for (const std::vector<Access>* leaves : {&st.leaves, &st.epilogue_leaves})
            for (const Access& a : *leaves)
              if (a.buffer == id) all &= walks_dims(a, st);
        }
        return all;
      };
      if (!in_place()) {
        // A loop walks several of its dimensions as one (the program
        // reshaped it): rows and columns of merged dimensions, split
        // before the first dimension where that lets every loop walk it.
        const std::vector<int64_t> dims = resident_shape(id);
        bool found = false;
        for (size_t k = 1; k < dims.size() && !found && dims.size() > 2; ++k) {
          int64_t rows = 1, cols = 1;
          for (size_t d = 0; d < dims.size(); ++d) (d < k ? rows : cols) *= dims[d];
          resident_shape_[id] = {rows, cols};
          found = in_place();
        }
        if (!found) {
          resident_shape_.erase(id);
          column_layout_.erase(id);
          continue;
        }
      }
      const std::vector<int64_t>& shape = resident_shape(id);
      int64_t rows = shape[shape.size() - 2];
      int64_t blocks = (rows + limits_.partitions - 1) / limits_.partitions;
      int64_t per_partition = buf.elements() / rows * blocks * 4;
      if (bytes + per_partition > kResidentBytes) {
        resident_shape_.erase(id);
        continue;
      }
      bytes += per_partition;
      resident_.insert(id);
    }
  }

  // A scratch buffer's shape as SBUF holds it: a one-dimensional one as one
  // partition's row [1, N] or as a column [N, 1], as its accesses read it.
  const std::vector<int64_t>& resident_shape(int b) const {
    auto it = resident_shape_.find(b);
    return it != resident_shape_.end() ? it->second : plan_.buffers.at(static_cast<size_t>(b)).shape;
  }

  // The row-major strides of `a`'s buffer, and its offset as one index per dimension.
  std::pair<std::vector<int64_t>, std::vector<int64_t>> row_major(const Access& a) const {
    const std::vector<int64_t>& shape = resident_shape(a.buffer);
    size_t r = shape.size();
    std::vector<int64_t> stride(r, 1);
    for (size_t d = r - 1; d > 0; --d) stride[d - 1] = stride[d] * shape[d];
    std::vector<int64_t> digit(r);
    int64_t rest = a.offset;
    for (size_t d = 0; d < r; ++d) digit[d] = rest / stride[d], rest %= stride[d];
    return {stride, digit};
  }

  // Whether every loop of `s` that moves `a` walks one dimension of its
  // buffer, a dimension of its own, within it (not several merged ones).
  bool walks_dims(const Access& a, const Stage& s) const {
    const std::vector<int64_t>& shape = resident_shape(a.buffer);
    auto [stride, digit] = row_major(a);
    std::vector<int64_t> last = digit;  // the last index along each dimension
    for (size_t l = 0; l < a.strides.size(); ++l) {
      if (a.strides[l] == 0 || s.extents[l] == 1) continue;  // a loop of one step does not move it
      auto [dim, steps] = dimension_of(a.strides[l], shape, stride);
      if (dim == shape.size()) return false;
      last[dim] += (s.extents[l] - 1) * steps;
    }
    for (size_t d = 0; d < shape.size(); ++d)
      if (last[d] >= shape[d]) return false;
    return true;
  }

  // The dimension a loop of `step` elements walks in a buffer of `shape`
  // (row-major `stride`), and by how many of its indices each step moves:
  // the dimension whose stride divides the step and that the step stays
  // within. {rank, 0} where none does.
  static std::pair<size_t, int64_t> dimension_of(int64_t step, const std::vector<int64_t>& shape,
                                                 const std::vector<int64_t>& stride) {
    for (size_t d = 0; d < shape.size(); ++d) {
      if (shape[d] == 1 || step < stride[d]) continue;
      if (step % stride[d] == 0 && step / stride[d] < shape[d]) return {d, step / stride[d]};
      break;
    }
    return {shape.size(), 0};
  }

  // Whether `a` reads its resident buffer across its layout: the tile's
  // partition loop along the buffer's last dimension, its free loop along
  // the rows (the next-to-last).
  bool reads_transposed(const Access& a, int free_loop, int part_loop) const {
    if (free_loop < 0 || part_loop < 0) return false;
    const std::vector<int64_t>& shape = resident_shape(a.buffer);
    if (shape.size() < 2) return false;
    return a.strides[static_cast<size_t>(part_loop)] == 1 && shape.back() > 1 &&
           a.strides[static_cast<size_t>(free_loop)] == shape.back() && shape[shape.size() - 2] > 1;
  }

  // `a` of a resident buffer as an index into it: the block's partition
  // loop on its next-to-last dimension from partition 0, its free loop on
  // the last, every other loop on one outer dimension. Otherwise the buffer
  // cannot stay in SBUF: NotResident.
  std::string resident_index(const Access& a, const Block& blk, bool by_dma = false) const {
    const std::vector<int64_t>& shape = resident_shape(a.buffer);
    size_t r = shape.size();
    auto [stride, digit] = row_major(a);
    std::vector<std::string> along(r);
    bool has_p = false, has_f = false;
    for (size_t l = 0; l < a.strides.size(); ++l) {
      int64_t st = a.strides[l];
      if (st == 0) continue;
      const Axis& ax = blk.axes[l];
      // An axis of one element from the start does not move it: where its
      // step fits no dimension, a tile axis indexes the dimension of its
      // role at the access's own offset, and an outer loop nothing.
      bool still = ax.start == "0" && (ax.role == Axis::Partition ? blk.P == 1 : ax.role == Axis::Free ? blk.F == 1 : true);
      size_t dim = r;
      std::string term;  // this axis's part of the index along `dim`
      if (ax.role == Axis::Partition) {
        // From a partition tile's first row: tile t of the loop starts at row t * 128.
        bool tiled = shape[r - 2] > limits_.partitions;
        bool aligned = ax.start == "0" || ax.start == ax.tile + " * " + std::to_string(limits_.partitions) ||
                       (ax.tile.find_first_not_of("0123456789") == std::string::npos &&
                        ax.start == std::to_string(std::stoll(ax.tile) * limits_.partitions));
        term = blk.pvar;
        if (st == stride[r - 2] && digit[r - 2] == 0 && blk.P <= std::min(shape[r - 2], limits_.partitions) &&
            (tiled ? aligned : ax.start == "0"))
          dim = r - 2;
        else if (by_dma && st == stride[r - 2] && !tiled)
          dim = r - 2, term = plus(ax.start, blk.pvar);  // a DMA reaches any partition
        if (dim != r && !along[dim].empty()) dim = r;  // alone on the partitions
        has_p = true;
      } else if (ax.role == Axis::Free) {
        if (st == 1 && shape[r - 1] > 1) dim = r - 1;
        term = plus(ax.start, blk.fvar);
        has_f = true;
      } else {
        // An outer loop: along an outer dimension, or as an offset along
        // the free one (a dimension the program split), never the partitions.
        auto [d, steps] = dimension_of(st, shape, stride);
        if (d + 2 < r || d == r - 1) dim = d;
        bool number = ax.start.find_first_not_of("0123456789") == std::string::npos;
        term = steps == 1 ? ax.start
               : number   ? std::to_string(steps * std::stoll(ax.start))
                          : std::to_string(steps) + " * " + (ax.start.find(' ') == std::string::npos ? ax.start : "(" + ax.start + ")");
      }
      if (dim == r && still) {
        if (ax.role == Axis::Scalar) continue;
        if (ax.role == Axis::Free) dim = r - 1;
        if (ax.role == Axis::Partition && (digit[r - 2] == 0 || by_dma) && along[r - 2].empty()) dim = r - 2;
      }
      if (by_dma && dim == r && ax.role == Axis::Scalar && shape[r - 2] <= limits_.partitions && st % stride[r - 2] == 0 &&
          st / stride[r - 2] < shape[r - 2] && along[r - 2].empty() && !has_p) {
        // An outer loop picking one row: a DMA reads that one partition.
        dim = r - 2;
        term = plus(term, "zp");
        has_p = true;
      }
      if (dim == r || (dim == r - 2 && ax.role != Axis::Partition && !by_dma)) throw NotResident{a.buffer};
      along[dim] = along[dim].empty() ? term : plus(term, along[dim]);
    }
    // A buffer one partition high (a row) is read on partition 0, one
    // element wide (a column) at column 0: zp and zf, the block's [1] ranges.
    if (!has_p && (shape[r - 2] == 1 || (by_dma && shape[r - 2] <= limits_.partitions)) && along[r - 2].empty())
      along[r - 2] = "zp", has_p = true;  // by DMA, one row at any partition
    if (!has_f && shape[r - 1] == 1 && along[r - 1].empty()) along[r - 1] = "zf", has_f = true;
    // One element of a row that outer loops pick: a [.., 1] tile at that column.
    if (!has_f && !along[r - 1].empty()) along[r - 1] = plus(along[r - 1], "zf"), has_f = true;
    if (!has_p || !has_f) throw NotResident{a.buffer};
    std::string index;
    for (size_t d = 0; d < r; ++d) {
      std::string ix = along[d].empty() ? std::to_string(digit[d])
                                        : plus(digit[d] ? std::to_string(digit[d]) : "0", along[d]);
      if (d == r - 2 && shape[d] > limits_.partitions) {
        // The partition loop's tile is the block.
        for (size_t l = 0; l < a.strides.size(); ++l)
          if (a.strides[l] != 0 && blk.axes[l].role == Axis::Partition) ix = blk.axes[l].tile + ", " + blk.pvar;
      }
      index += (d ? ", " : "") + ix;
    }
    return buffer_name(a.buffer) + "[" + index + "]";
  }

  // The time of an instruction tree at `sizes` by the description's costs:
  // each instruction's initiation interval in its engine's cycles.
  double nanoseconds(const isa::InstrTree& t, const ir::Dims& sizes) const {
    if (!t.instr) return 0;
    double ns = instruction_ns(t, sizes);
    for (const isa::InstrTree& a : t.args) ns += nanoseconds(a, sizes);
    return ns;
  }

  // The top instruction of `t` in every run of `blk`: its engine's time,
  // shared among the engine's units.
  double step_ns(const isa::InstrTree& t, const Block& blk) const {
    return instruction_ns(t, {{"P", blk.P}, {"F", blk.F}}) * blk.trips / units(t.instr->engine);
  }

  // How many instructions an engine runs at once (DMA queues).
  double units(const std::string& engine) const {
    for (const hw::Engine& e : target_.engines)
      if (e.name == engine) return std::max(1, e.units);
    return 1;
  }

  // The time of a tree's top instruction alone.
  double instruction_ns(const isa::InstrTree& t, const ir::Dims& sizes) const {
    if (!t.instr) return 0;
    ir::Dims at;
    for (const auto& [name, size] : t.sizes) at[name] = size.evaluate(sizes).value_or(1);
    double cycles = 1e9;
    try {
      double throughput = t.instr->throughput.at(at);
      if (throughput > 0) cycles = 1.0 / throughput;
    } catch (const UserError&) {
    }
    double ghz = 1;
    for (const hw::Engine& e : target_.engines)
      if (e.name == t.instr->engine) ghz = e.clock_ghz;
    return cycles / ghz;
  }
};

}  // namespace

NkiKernel emit_nki(const tile::Plan& plan, const ir::Function& fn, const hw::Description& target,
                   isa::Synthesizer& synth, const NkiOptions& options) {
  // A scratch buffer is first tried in SBUF; one that an access cannot read
  // or write in place there goes back to HBM, and the kernel is emitted again.
  // One laid out as a column is first tried again in the plain layout.
  std::set<int> not_resident, no_column;
  while (true) {
    NkiEmitter emitter(plan, fn, target, synth, options, not_resident, no_column);
    try {
      return emitter.run();
    } catch (const NotResident& e) {
      bool retried = emitter.laid_out_as_column(e.buffer) ? no_column.insert(e.buffer).second
                                                          : not_resident.insert(e.buffer).second;
      if (!retried) throw;
    }
  }
}

}  // namespace axon::emit
