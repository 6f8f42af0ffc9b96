#include "tile/plan.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "eval/interpreter.h"
#include "ir/graph.h"

namespace axon::tile {
namespace {

// The most ops, element-wise and views, fused into one stage along any path
// of its body. Bodies are walked recursively from here to the emitted source
// (instruction covering, printing, the C++ compiler itself), so a chain of
// 100,000 element-wise ops becomes stages of this depth, each reading the
// buffer of the one before. Real kernels fuse a few dozen at most.
constexpr int kMaxFusedDepth = 64;

bool is_elementwise(ir::Op op) {
  ir::OpKind k = ir::op_kind(op);
  return k == ir::OpKind::Unary || k == ir::OpKind::Binary || k == ir::OpKind::Select;
}

bool is_view(ir::Op op) {
  return op == ir::Op::Transpose || op == ir::Op::Broadcast || op == ir::Op::Slice || op == ir::Op::Reshape;
}

// A node's index as affine forms over a stage's loops: axis a of the node is
// offset[a] + sum_d coef[a][d] * i_d.
struct IndexMap {
  std::vector<std::vector<int64_t>> coef;
  std::vector<int64_t> offset;
};

IndexMap identity_map(int rank, int loops) {
  IndexMap m;
  for (int a = 0; a < rank; ++a) {
    m.coef.emplace_back(static_cast<size_t>(loops), 0);
    m.coef.back()[static_cast<size_t>(a)] = 1;
    m.offset.push_back(0);
  }
  return m;
}

class Planner {
 public:
  Planner(const ir::Function& fn, const ir::Dims& dims, const PlanOptions& options)
      : fn_(fn), dims_(dims), options_(options) {}

  Plan run() {
    order_ = ir::topological_order(fn_.outputs);
    for (ir::NodeRef n : order_)
      for (ir::NodeRef i : n->inputs()) consumers_[i].push_back(n);
    for (ir::NodeRef o : fn_.outputs) consumers_[o].push_back(nullptr);
    for (size_t p = 0; p < fn_.params.size(); ++p) {
      Buffer b{Buffer::Kind::Input, static_cast<int>(p), shape_of(fn_.params[p].type.shape)};
      plan_.inputs.push_back(add_buffer(b));
    }
    for (ir::NodeRef n : order_)
      if (n->op() == ir::Op::Input) buffer_of_[n] = plan_.inputs.at(static_cast<size_t>(n->attrs().index));
    for (ir::NodeRef n : order_) decide(n);
    for (ir::NodeRef n : order_) {
      if (n->op() == ir::Op::Input || !materialized_.count(n)) continue;
      if (n->op() == ir::Op::Reshape) {  // a view of its (dense) input's buffer
        buffer_of_[n] = buffer_of_.at(n->input(0));
        continue;
      }
      int out = -1;
      for (size_t k = 0; k < fn_.outputs.size(); ++k)
        if (fn_.outputs[k] == n && !output_taken_.count(k)) {
          out = new_output(k, n);
          break;
        }
      if (out < 0) out = add_buffer({Buffer::Kind::Scratch, -1, shape_of(n->shape())});
      emit_stages(n, out);
      buffer_of_[n] = out;
    }
    // Results that are parameters, views or repeated results: copies.
    for (size_t k = 0; k < fn_.outputs.size(); ++k) {
      if (output_taken_.count(k)) continue;
      ir::NodeRef n = fn_.outputs[k];
      int out = new_output(k, n);
      Stage s = start_stage("copy", n->shape(), out);
      s.body = build(s, n, identity_map(n->rank(), n->rank()));
      plan_.stages.push_back(std::move(s));
    }
    forward_reshaped_results();
    return std::move(plan_);
  }

 private:
  // A result that is a reshape of an intermediate (att.reshape(H * T, T))
  // is a copy stage whose every element goes to the same flat position it
  // came from. Where nothing else reads that intermediate and nothing else
  // writes the result, the intermediate's stages write the result's buffer
  // directly (both are dense and row-major: only the shape differs), and
  // the copy and the intermediate's buffer go.
  void forward_reshaped_results() {
    for (size_t c = 0; c < plan_.stages.size(); ++c) {
      const Stage& copy = plan_.stages[c];
      if (copy.combine != Combine::None || copy.scan_dim >= 0 || copy.epilogue || copy.leaves.size() != 1 ||
          !copy.body || copy.body->op() != ir::Op::Input)
        continue;
      const Access& from = copy.leaves[0];
      int result = copy.out.buffer, inter = from.buffer;
      const Buffer& out = plan_.buffers[static_cast<size_t>(result)];
      const Buffer& in = plan_.buffers[static_cast<size_t>(inter)];
      if (out.kind != Buffer::Kind::Output || in.kind != Buffer::Kind::Scratch || from.offset != copy.out.offset ||
          from.strides != copy.out.strides || copy.out.offset != 0 || out.elements() != in.elements() ||
          copy.extents != out.shape || copy.out.strides != row_major_strides(out.shape))
        continue;
      bool alone = true;  // the copy is the only reader of `inter` and the only writer of `result`
      for (size_t t = 0; t < plan_.stages.size() && alone; ++t) {
        if (t == c) continue;
        const Stage& st = plan_.stages[t];
        alone = st.out.buffer != result;
        for (const std::vector<Access>* list : {&st.leaves, &st.epilogue_leaves})
          for (const Access& a : *list) alone = alone && a.buffer != inter;
      }
      if (!alone) continue;
      plan_.stages.erase(plan_.stages.begin() + static_cast<std::ptrdiff_t>(c));
      remove_buffer(inter, result);
      --c;
    }
  }

  // Buffer `gone` replaced by `by` in every access, then dropped (the ids
  // above it move down by one).
  void remove_buffer(int gone, int by) {
    auto renumber = [&](int& b) {
      if (b == gone) b = by;
      if (b > gone) --b;
    };
    for (Stage& st : plan_.stages) {
      renumber(st.out.buffer);
      for (std::vector<Access>* list : {&st.leaves, &st.epilogue_leaves})
        for (Access& a : *list) renumber(a.buffer);
    }
    for (std::vector<int>* ids : {&plan_.inputs, &plan_.outputs})
      for (int& b : *ids) renumber(b);
    plan_.buffers.erase(plan_.buffers.begin() + gone);
  }

  const ir::Function& fn_;
  const ir::Dims& dims_;
  PlanOptions options_;
  Plan plan_;
  std::vector<ir::NodeRef> order_;
  std::map<ir::NodeRef, std::vector<ir::NodeRef>> consumers_;  // nullptr = a kernel result
  std::set<ir::NodeRef> materialized_;
  std::map<ir::NodeRef, int> buffer_of_;
  std::set<size_t> output_taken_;
  std::map<ir::NodeRef, int> fused_depth_;

  std::vector<int64_t> shape_of(const ir::Shape& shape) { return eval::concrete_shape(shape, dims_, {}); }

  int add_buffer(Buffer b) {
    plan_.buffers.push_back(std::move(b));
    return static_cast<int>(plan_.buffers.size()) - 1;
  }

  int new_output(size_t k, ir::NodeRef n) {
    output_taken_.insert(k);
    int id = add_buffer({Buffer::Kind::Output, static_cast<int>(k), shape_of(n->shape())});
    if (plan_.outputs.size() <= k) plan_.outputs.resize(fn_.outputs.size(), -1);
    plan_.outputs[k] = id;
    return id;
  }

  // Which values get a buffer. Views stay accesses; a reshape needs a dense
  // input; contractions read buffers so that the inner loop recomputes nothing.
  void decide(ir::NodeRef n) {
    ir::Op op = n->op();
    const std::vector<ir::NodeRef>& users = consumers_[n];
    bool result = false, feeds_reshape = false, feeds_view = false, feeds_heavy = false;
    for (ir::NodeRef u : users) {
      if (!u) {
        result = true;
        continue;
      }
      feeds_reshape |= u->op() == ir::Op::Reshape && !reshape_is_view(u);
      feeds_view |= is_view(u->op());
      feeds_heavy |= u->op() == ir::Op::Contract;
    }
    bool yes = false;
    int depth = 0;  // of the fused expression n heads, were n not materialized
    if (op != ir::Op::Input && op != ir::Op::Const && op != ir::Op::SizeValue) {
      for (ir::NodeRef i : n->inputs())
        if (!materialized_.count(i)) depth = std::max(depth, fused_depth_[i]);
      ++depth;
    }
    if (op == ir::Op::Input)
      yes = true;
    else if (op == ir::Op::Const || op == ir::Op::SizeValue)
      yes = false;
    else if (op == ir::Op::Reshape)
      yes = !reshape_is_view(n);  // a view, but it names a buffer (unless it only moves axes of one)
    else if (is_view(op))
      yes = result || feeds_reshape || (op == ir::Op::Transpose && options_.transposes_as_stages);
    else if (is_elementwise(op))
      yes = result || users.size() > 1 || feeds_view || feeds_heavy || !options_.fuse_elementwise;
    else
      yes = true;  // reductions, scans, contractions, concatenations
    // A longer chain is cut: every later pass walks a body recursively.
    if (depth >= kMaxFusedDepth) yes = true;
    if (yes) materialized_.insert(n);
    fused_depth_[n] = yes ? 0 : depth;
    if (op == ir::Op::Reshape && yes && n->input(0)->op() != ir::Op::Input) materialize_dense(n->input(0));
  }

  // A reshape that only inserts or drops axes of length one, read by
  // element-wise ops and views other than reshapes, is an index map like a
  // transpose: its input need not be dense, and it names no buffer.
  bool reshape_is_view(ir::NodeRef n) {
    if (n->op() != ir::Op::Reshape) return false;
    for (ir::NodeRef u : consumers_[n])
      if (!u || u->op() == ir::Op::Reshape) return false;
    return non_unit_axes(n->shape()) == non_unit_axes(n->input(0)->shape());
  }

  std::vector<int64_t> non_unit_axes(const ir::Shape& shape) {
    std::vector<int64_t> kept;
    for (int64_t e : shape_of(shape))
      if (e != 1) kept.push_back(e);
    return kept;
  }

  // A reshape's input must be a dense buffer: the input itself, or (when it is
  // a view that is not a reshape) a copy of it.
  void materialize_dense(ir::NodeRef n) {
    if (n->op() == ir::Op::Reshape || n->op() == ir::Op::Input) return;
    materialized_.insert(n);
  }

  Stage start_stage(const std::string& what, const ir::Shape& loops, int out_buffer) {
    Stage s;
    s.what = what;
    s.extents = shape_of(loops);
    s.reduced.assign(s.extents.size(), false);
    s.graph = std::make_shared<ir::Graph>();
    s.out.buffer = out_buffer;
    std::vector<int64_t> strides = row_major_strides(plan_.buffers[static_cast<size_t>(out_buffer)].shape);
    s.out.strides = strides.size() == s.extents.size() ? strides : std::vector<int64_t>(s.extents.size(), 0);
    return s;
  }

  void emit_stages(ir::NodeRef n, int out) {
    ir::Op op = n->op();
    const std::string name = ir::op_name(op);
    if (is_elementwise(op) || is_view(op)) {
      Stage s = start_stage(name, n->shape(), out);
      s.body = build(s, n, identity_map(n->rank(), n->rank()));
      finish(std::move(s));
    } else if (op == ir::Op::ReduceSum || op == ir::Op::ReduceMax || op == ir::Op::ReduceMin) {
      ir::NodeRef x = n->input(0);
      Stage s = start_stage(name, x->shape(), out);
      std::set<int64_t> axes(n->attrs().axes.begin(), n->attrs().axes.end());
      std::vector<int64_t> out_strides = row_major_strides(plan_.buffers[static_cast<size_t>(out)].shape);
      size_t k = 0;
      for (size_t d = 0; d < s.extents.size(); ++d) {
        s.reduced[d] = axes.count(static_cast<int64_t>(d)) > 0;
        if (s.reduced[d]) {
          s.out.strides[d] = 0;
          if (n->attrs().keepdims) ++k;
        } else {
          s.out.strides[d] = out_strides.at(k++);
        }
      }
      s.combine = op == ir::Op::ReduceSum ? Combine::Sum : op == ir::Op::ReduceMax ? Combine::Max : Combine::Min;
      s.body = build(s, x, identity_map(x->rank(), x->rank()));
      finish(std::move(s));
    } else if (op == ir::Op::Cumsum) {
      ir::NodeRef x = n->input(0);
      Stage s = start_stage(name, x->shape(), out);
      s.scan_dim = static_cast<int>(n->attrs().axes.at(0));
      s.combine = Combine::Scan;
      s.body = build(s, x, identity_map(x->rank(), x->rank()));
      finish(std::move(s));
    } else if (op == ir::Op::Contract) {
      emit_contract(n, out);
    } else if (op == ir::Op::Concat) {
      int64_t axis = n->attrs().axes.at(0);
      std::vector<int64_t> strides = row_major_strides(plan_.buffers[static_cast<size_t>(out)].shape);
      int64_t start = 0;
      for (ir::NodeRef part : n->inputs()) {
        Stage s = start_stage(name, part->shape(), out);
        s.out.strides = strides;
        s.out.offset = start * strides.at(static_cast<size_t>(axis));
        start += shape_of(part->shape()).at(static_cast<size_t>(axis));
        s.body = build(s, part, identity_map(part->rank(), part->rank()));
        finish(std::move(s));
      }
    } else {
      throw InternalError(__FILE__, __LINE__, std::string("no plan for op ") + name);
    }
  }

  // out[output letters] = sum over the other letters of the product of the operands.
  void emit_contract(ir::NodeRef n, int out) {
    ir::EinsumSpec spec = ir::EinsumSpec::parse(n->attrs().name);
    std::vector<char> letters(spec.output.begin(), spec.output.end());
    std::map<char, int64_t> extent;
    for (size_t i = 0; i < spec.operands.size(); ++i) {
      std::vector<int64_t> shape = shape_of(n->input(i)->shape());
      for (size_t a = 0; a < spec.operands[i].size(); ++a) {
        char c = spec.operands[i][a];
        extent[c] = shape.at(a);
        if (std::find(letters.begin(), letters.end(), c) == letters.end()) letters.push_back(c);
      }
    }
    Stage s;
    s.what = "einsum " + n->attrs().name;
    s.graph = std::make_shared<ir::Graph>();
    for (char c : letters) {
      s.extents.push_back(extent.at(c));
      s.reduced.push_back(spec.output.find(c) == std::string::npos);
    }
    s.combine = Combine::Sum;
    s.out.buffer = out;
    std::vector<int64_t> out_strides = row_major_strides(plan_.buffers[static_cast<size_t>(out)].shape);
    s.out.strides.assign(letters.size(), 0);
    for (size_t a = 0; a < spec.output.size(); ++a) s.out.strides[a] = out_strides.at(a);
    ir::NodeRef body = nullptr;
    bool sums = std::find(s.reduced.begin(), s.reduced.end(), true) != s.reduced.end();
    for (size_t i = 0; i < spec.operands.size(); ++i) {
      if (sums && spec.operands.size() >= 2) {
        if (std::optional<Access> packed = transposed_operand(s, spec, i, n->input(i), letters)) {
          ir::NodeRef factor = leaf(s, *packed);
          body = body ? s.graph->make(ir::Op::Mul, {body, factor}, {}) : factor;
          continue;
        }
      }
      IndexMap m;
      for (char c : spec.operands[i]) {
        m.coef.emplace_back(letters.size(), 0);
        size_t d = static_cast<size_t>(std::find(letters.begin(), letters.end(), c) - letters.begin());
        m.coef.back()[d] = 1;
        m.offset.push_back(0);
      }
      ir::NodeRef factor = build(s, n->input(i), m);
      body = body ? s.graph->make(ir::Op::Mul, {body, factor}, {}) : factor;
    }
    s.body = body;
    finish(std::move(s));
  }

  // An operand that moves along the result's last index but not as its own
  // last axis (k in q @ k.T) is first copied with that axis last, so that the
  // contraction's vector loop reads it contiguously instead of gathering.
  std::optional<Access> transposed_operand(const Stage& s, const ir::EinsumSpec& spec, size_t i, ir::NodeRef operand,
                                           const std::vector<char>& letters) {
    if (spec.output.empty()) return std::nullopt;
    char last = spec.output.back();
    std::string sub = spec.operands[i];
    size_t pos = sub.find(last);
    if (pos == std::string::npos || pos + 1 == sub.size()) return std::nullopt;
    for (char c : sub)
      if (std::count(sub.begin(), sub.end(), c) > 1) return std::nullopt;  // diagonals stay as they are
    std::string order = sub;
    order.erase(pos, 1);
    order.push_back(last);
    std::vector<int64_t> shape = shape_of(operand->shape()), packed_shape;
    for (char c : order) packed_shape.push_back(shape.at(sub.find(c)));
    // Letters are positions: the same operand in the same order is copied once.
    std::string layout;
    for (char c : order) layout += static_cast<char>('0' + sub.find(c));
    auto [known, fresh] = transposed_.try_emplace({operand->id(), layout}, -1);
    if (fresh) known->second = add_buffer({Buffer::Kind::Scratch, -1, packed_shape});
    int buffer = known->second;
    Access a;
    a.buffer = buffer;
    a.strides.assign(letters.size(), 0);
    std::vector<int64_t> strides = row_major_strides(packed_shape);
    for (size_t q = 0; q < order.size(); ++q)
      a.strides[static_cast<size_t>(std::find(letters.begin(), letters.end(), order[q]) - letters.begin())] +=
          strides[q];
    if (!fresh) return a;
    Stage copy;
    copy.what = "layout for " + s.what;
    copy.extents = packed_shape;
    copy.reduced.assign(packed_shape.size(), false);
    copy.graph = std::make_shared<ir::Graph>();
    copy.out.buffer = buffer;
    copy.out.strides = row_major_strides(packed_shape);
    IndexMap m;
    for (char c : sub) {
      m.coef.emplace_back(order.size(), 0);
      m.coef.back()[order.find(c)] = 1;
      m.offset.push_back(0);
    }
    copy.body = build(copy, operand, m);
    finish(std::move(copy));
    return a;
  }
  std::map<std::pair<int, std::string>, int> transposed_;  // (operand, axis order) -> buffer

  // The body's leaf that reads `a` (one per distinct access).
  ir::NodeRef leaf(Stage& s, const Access& a) {
    for (size_t i = 0; i < s.leaves.size(); ++i)
      if (!(s.leaves[i] < a) && !(a < s.leaves[i]))
        return s.graph->input(static_cast<int64_t>(i), "l" + std::to_string(i), {});
    s.leaves.push_back(a);
    return s.graph->input(static_cast<int64_t>(s.leaves.size() - 1), "l" + std::to_string(s.leaves.size() - 1), {});
  }

  void finish(Stage s) {
    int64_t points = 1;
    for (int64_t e : s.extents) points *= e;
    plan_.flops += points;
    plan_.stages.push_back(std::move(s));
  }

  // The body expression of `n` read at index `m`, creating leaves for buffers.
  ir::NodeRef build(Stage& s, ir::NodeRef n, const IndexMap& m) {
    size_t loops = s.extents.size();
    if (buffer_of_.count(n)) {
      const Buffer& b = plan_.buffers[static_cast<size_t>(buffer_of_.at(n))];
      // A reshape view reads its buffer with its own (dense) shape's strides.
      std::vector<int64_t> strides = row_major_strides(shape_of(n->shape()));
      (void)b;
      Access a;
      a.buffer = buffer_of_.at(n);
      a.strides.assign(loops, 0);
      for (size_t ax = 0; ax < strides.size(); ++ax) {
        a.offset += strides[ax] * m.offset[ax];
        for (size_t d = 0; d < loops; ++d) a.strides[d] += strides[ax] * m.coef[ax][d];
      }
      return leaf(s, a);
    }
    switch (n->op()) {
      case ir::Op::Const: return s.graph->constant(n->attrs().value);
      case ir::Op::SizeValue: {
        std::optional<int64_t> v = n->attrs().sizes.at(0).evaluate(dims_);
        if (!v) throw InternalError(__FILE__, __LINE__, "unbound size in a size value");
        return s.graph->constant(static_cast<double>(*v));
      }
      case ir::Op::Transpose: {
        // y axis k is x axis perm[k].
        IndexMap x;
        const std::vector<int64_t>& perm = n->attrs().axes;
        x.coef.resize(perm.size());
        x.offset.resize(perm.size());
        for (size_t k = 0; k < perm.size(); ++k) {
          x.coef[static_cast<size_t>(perm[k])] = m.coef[k];
          x.offset[static_cast<size_t>(perm[k])] = m.offset[k];
        }
        return build(s, n->input(0), x);
      }
      case ir::Op::Broadcast: return build(s, n->input(0), align(n->input(0), n, m));
      case ir::Op::Reshape: {  // only axes of one move (reshape_is_view): the others pair up in order
        ir::NodeRef x = n->input(0);
        std::vector<int64_t> xs = shape_of(x->shape()), ys = shape_of(n->shape());
        IndexMap r;
        size_t k = 0;
        for (int64_t e : xs) {
          while (k < ys.size() && ys[k] == 1) ++k;
          if (e == 1 || k >= ys.size()) {
            r.coef.emplace_back(s.extents.size(), 0);
            r.offset.push_back(0);
            continue;
          }
          r.coef.push_back(m.coef[k]);
          r.offset.push_back(m.offset[k]);
          ++k;
        }
        return build(s, x, r);
      }
      case ir::Op::Slice: {
        IndexMap x = m;
        for (size_t a = 0; a < x.coef.size(); ++a) {
          int64_t start = n->attrs().sizes.at(a).evaluate(dims_).value_or(0);
          int64_t step = n->attrs().axes.at(a);
          x.offset[a] = start + step * m.offset[a];
          for (int64_t& c : x.coef[a]) c *= step;
        }
        return build(s, n->input(0), x);
      }
      case ir::Op::Input:
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
      case ir::Op::Concat: break;
    }
    if (!is_elementwise(n->op()))
      throw InternalError(__FILE__, __LINE__, std::string("unplanned input ") + ir::op_name(n->op()));
    std::vector<ir::NodeRef> args;
    bool constant = true;
    for (ir::NodeRef i : n->inputs()) {
      args.push_back(build(s, i, align(i, n, m)));
      constant = constant && args.back()->op() == ir::Op::Const;
    }
    ir::NodeRef made = s.graph->make(n->op(), std::move(args), n->attrs());
    if (!constant) return made;
    // Folded here, in float64 like the reference: sizes arithmetic, constants.
    ir::Function scalar;
    scalar.outputs = {made};
    return s.graph->constant(eval::evaluate(scalar, {}, {}).at(0).data.at(0));
  }

  // The index map of operand `x` of `y` under NumPy broadcasting.
  IndexMap align(ir::NodeRef x, ir::NodeRef y, const IndexMap& m) {
    IndexMap r;
    int shift = y->rank() - x->rank();
    std::vector<int64_t> xs = shape_of(x->shape()), ys = shape_of(y->shape());
    for (int a = 0; a < x->rank(); ++a) {
      size_t ya = static_cast<size_t>(a + shift);
      bool stretched = xs[static_cast<size_t>(a)] == 1 && ys[ya] != 1;
      r.coef.push_back(stretched ? std::vector<int64_t>(m.coef[ya].size(), 0) : m.coef[ya]);
      r.offset.push_back(stretched ? 0 : m.offset[ya]);
    }
    return r;
  }
};

}  // namespace

int64_t Buffer::elements() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

bool Access::operator<(const Access& other) const {
  return std::tie(buffer, offset, strides) < std::tie(other.buffer, other.offset, other.strides);
}

const char* combine_name(Combine combine) {
  switch (combine) {
    case Combine::None: return "none";
    case Combine::Sum: return "sum";
    case Combine::Max: return "max";
    case Combine::Min: return "min";
    case Combine::Scan: return "scan";
  }
  return "?";
}

std::vector<int64_t> row_major_strides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;) strides[d - 1] = strides[d] * shape[d];
  return strides;
}

void check_plan_size(const ir::Function& fn) {
  size_t ops = 0;
  for (ir::NodeRef n : ir::topological_order(fn.outputs))
    ops += n->op() != ir::Op::Input && n->op() != ir::Op::Const && n->op() != ir::Op::SizeValue;
  if (ops > kMaxPlannedOps)
    throw UserError(fn.loc, "the kernel has " + std::to_string(ops) + " ops, more than the limit of " +
                                std::to_string(kMaxPlannedOps) + " that optimize and lower take");
}

Plan plan_function(const ir::Function& fn, const ir::Dims& dims, const PlanOptions& options) {
  return Planner(fn, dims, options).run();
}

}  // namespace axon::tile
