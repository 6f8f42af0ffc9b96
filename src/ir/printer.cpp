#include <set>
#include <sstream>
#include <unordered_map>

#include "ir/program.h"

namespace axon::ir {
namespace {

// The shortest text that reads back as the same double.
std::string number_text(double value) {
  std::string text;
  for (int precision = 6; precision <= 17; ++precision) {
    std::ostringstream out;
    out.precision(precision);
    out << value;
    text = out.str();
    if (std::stod(text) == value || value != value) break;
  }
  if (text.find_first_of(".eEn") == std::string::npos) text += ".0";  // keep floats looking like floats
  return text;
}

std::string ints_text(const std::vector<int64_t>& values) {
  std::ostringstream out;
  out << '[';
  for (size_t i = 0; i < values.size(); ++i) out << (i ? ", " : "") << values[i];
  out << ']';
  return out.str();
}

class Printer {
 public:
  explicit Printer(const Function& function) : function_(function) {}

  std::string run() {
    out_ << "kernel " << function_.name << '(';
    std::vector<std::string> params;
    for (const Param& p : function_.params) params.push_back(p.name + ": " + p.type.str());
    for (const Setting& s : function_.settings) params.push_back(s.name + "=" + s.value);
    for (size_t i = 0; i < params.size(); ++i) out_ << (i ? ", " : "") << params[i];
    out_ << ")\n";
    for (NodeRef node : topological_order(function_.outputs)) {
      if (inlined(node)) continue;
      std::string name = "%" + std::to_string(names_.size());
      std::string line = "  " + name + " = " + body(node);
      names_[node] = name;
      out_ << line << std::string(line.size() < 56 ? 56 - line.size() : 1, ' ') << ": " << node->type().str() << '\n';
    }
    out_ << "  return ";
    for (size_t i = 0; i < function_.outputs.size(); ++i) out_ << (i ? ", " : "") << ref(function_.outputs[i]);
    out_ << '\n';
    return out_.str();
  }

 private:
  // Leaves print in place: parameters by name, constants and sizes by value.
  static bool inlined(NodeRef node) { return op_kind(node->op()) == OpKind::Leaf; }

  std::string ref(NodeRef node) {
    switch (node->op()) {
      case Op::Input: return node->attrs().name;
      case Op::Const: return number_text(node->attrs().value);
      case Op::SizeValue: return "size(" + node->attrs().sizes[0].str() + ")";
      case Op::Neg:
      case Op::Exp:
      case Op::Log:
      case Op::Sqrt:
      case Op::Tanh:
      case Op::Abs:
      case Op::Recip:
      case Op::Pow:
      case Op::Add:
      case Op::Sub:
      case Op::Mul:
      case Op::Div:
      case Op::Max:
      case Op::Min:
      case Op::Select:
      case Op::ReduceSum:
      case Op::ReduceMax:
      case Op::ReduceMin:
      case Op::Cumsum:
      case Op::Contract:
      case Op::Transpose:
      case Op::Reshape:
      case Op::Broadcast:
      case Op::Slice:
      case Op::Concat: return names_.at(node);
    }
    throw InternalError(__FILE__, __LINE__, "unknown op");
  }

  std::string body(NodeRef node) {
    const Attrs& a = node->attrs();
    std::ostringstream out;
    out << op_name(node->op()) << '(';
    std::vector<std::string> args;
    if (node->op() == Op::Select) {
      args = {ref(node->input(0)) + " " + cmp_text(a.cmp) + " " + ref(node->input(1)), ref(node->input(2)),
              ref(node->input(3))};
    } else {
      if (node->op() == Op::Contract) args.push_back('"' + a.name + '"');
      for (NodeRef in : node->inputs()) args.push_back(ref(in));
    }
    switch (op_kind(node->op())) {
      case OpKind::Unary:
        if (node->op() == Op::Pow) args.push_back(number_text(a.value));
        break;
      case OpKind::Reduce:
        args.push_back("axes=" + ints_text(a.axes));
        if (a.keepdims) args.push_back("keepdims");
        break;
      case OpKind::Scan: args.push_back("axis=" + std::to_string(a.axes[0])); break;
      case OpKind::Layout:
        if (node->op() == Op::Transpose) args.push_back("axes=" + ints_text(a.axes));
        if (node->op() == Op::Reshape || node->op() == Op::Broadcast) args.push_back(shape_str(a.sizes));
        if (node->op() == Op::Concat) args.push_back("axis=" + std::to_string(a.axes[0]));
        if (node->op() == Op::Slice) args.push_back(slices(node));
        break;
      default: break;
    }
    for (size_t i = 0; i < args.size(); ++i) out << (i ? ", " : "") << args[i];
    out << ')';
    return out.str();
  }

  static std::string slices(NodeRef node) { return slice_text(node); }

 public:

  // Python slice notation, "[:, 2:N - 1, ::-1]"; bounds are exact (never clipped).
  static std::string slice_text(NodeRef node) {
    const Attrs& a = node->attrs();
    std::ostringstream out;
    out << '[';
    for (size_t k = 0; k < a.sizes.size(); ++k) {
      const Size& dim = node->input(0)->shape()[k];
      const Size& start = a.sizes[k];
      Size stop = start + a.extents[k] * a.axes[k];
      out << (k ? ", " : "");
      if (a.axes[k] > 0) {
        if (start != Size(0)) out << start.str();
        out << ':';
        if (stop != dim) out << stop.str();
      } else {
        if (start != dim - 1) out << start.str();
        out << ':';
        bool to_front = stop.is_constant() && *stop.constant() < 0;  // past index 0
        if (!to_front) out << stop.str();
      }
      if (a.axes[k] != 1) out << ':' << a.axes[k];
    }
    out << ']';
    return out.str();
  }

 private:
  const Function& function_;
  std::ostringstream out_;
  std::unordered_map<NodeRef, std::string> names_;
};

class NumpyPrinter {
 public:
  std::string run(const Function& function) {
    for (NodeRef node : topological_order(function.outputs)) {
      if (op_kind(node->op()) == OpKind::Leaf) continue;
      std::string name = "t" + std::to_string(names_.size());
      out_ << name << " = " << expression(node) << '\n';
      names_[node] = name;
    }
    out_ << "return ";
    for (size_t i = 0; i < function.outputs.size(); ++i) out_ << (i ? ", " : "") << ref(function.outputs[i]);
    out_ << '\n';
    return out_.str();
  }

 private:
  std::string ref(NodeRef node) {
    switch (node->op()) {
      case Op::Input: return node->attrs().name;
      case Op::Const: return number_text(node->attrs().value);
      case Op::SizeValue: return node->attrs().sizes[0].str();
      case Op::Neg:
      case Op::Exp:
      case Op::Log:
      case Op::Sqrt:
      case Op::Tanh:
      case Op::Abs:
      case Op::Recip:
      case Op::Pow:
      case Op::Add:
      case Op::Sub:
      case Op::Mul:
      case Op::Div:
      case Op::Max:
      case Op::Min:
      case Op::Select:
      case Op::ReduceSum:
      case Op::ReduceMax:
      case Op::ReduceMin:
      case Op::Cumsum:
      case Op::Contract:
      case Op::Transpose:
      case Op::Reshape:
      case Op::Broadcast:
      case Op::Slice:
      case Op::Concat: return names_.at(node);
    }
    throw InternalError(__FILE__, __LINE__, "unknown op");
  }

  static std::string tuple(const std::vector<std::string>& items) {
    std::string text = "(";
    for (size_t i = 0; i < items.size(); ++i) text += (i ? ", " : "") + items[i];
    return text + (items.size() == 1 ? ",)" : ")");
  }

  std::string expression(NodeRef n) {
    const Attrs& a = n->attrs();
    auto in = [&](size_t i) { return ref(n->input(i)); };
    std::vector<std::string> ints;
    for (int64_t x : a.axes) ints.push_back(std::to_string(x));
    std::vector<std::string> dims;
    for (const Size& d : a.sizes) dims.push_back(d.str());
    switch (n->op()) {
      case Op::Neg: return "-" + in(0);
      case Op::Recip: return "np.reciprocal(" + in(0) + ")";
      case Op::Pow: return in(0) + " ** " + number_text(a.value);
      case Op::Exp: case Op::Log: case Op::Sqrt: case Op::Tanh: case Op::Abs:
        return std::string("np.") + op_name(n->op()) + "(" + in(0) + ")";
      case Op::Add: return in(0) + " + " + in(1);
      case Op::Sub: return in(0) + " - " + in(1);
      case Op::Mul: return in(0) + " * " + in(1);
      case Op::Div: return in(0) + " / " + in(1);
      case Op::Max: return "np.maximum(" + in(0) + ", " + in(1) + ")";
      case Op::Min: return "np.minimum(" + in(0) + ", " + in(1) + ")";
      case Op::Select:
        return "np.where(" + in(0) + " " + cmp_text(a.cmp) + " " + in(1) + ", " + in(2) + ", " + in(3) + ")";
      case Op::ReduceSum: case Op::ReduceMax: case Op::ReduceMin:
        return std::string("np.") + op_name(n->op()) + "(" + in(0) + ", axis=" + tuple(ints) +
               (a.keepdims ? ", keepdims=True)" : ")");
      case Op::Cumsum: return "np.cumsum(" + in(0) + ", axis=" + ints[0] + ")";
      case Op::Contract: {
        std::string text = "np.einsum(\"" + a.name + "\"";
        for (size_t i = 0; i < n->inputs().size(); ++i) text += ", " + in(i);
        return text + ")";
      }
      case Op::Transpose: return "np.transpose(" + in(0) + ", " + tuple(ints) + ")";
      case Op::Reshape: return in(0) + ".reshape" + tuple(dims);
      case Op::Broadcast: return "np.broadcast_to(" + in(0) + ", " + tuple(dims) + ")";
      case Op::Slice: return in(0) + Printer::slice_text(n);
      case Op::Concat: {
        std::vector<std::string> parts;
        for (size_t i = 0; i < n->inputs().size(); ++i) parts.push_back(in(i));
        std::string list = tuple(parts);
        return "np.concatenate([" + list.substr(1, list.size() - (parts.size() == 1 ? 3 : 2)) + "], axis=" + ints[0] + ")";
      }
      case Op::Input:
      case Op::Const:
      case Op::SizeValue: return op_name(n->op());
    }
    throw InternalError(__FILE__, __LINE__, "unknown op");
  }

  std::ostringstream out_;
  std::unordered_map<NodeRef, std::string> names_;
};

}  // namespace

std::string print_function(const Function& function) { return Printer(function).run(); }
std::string print_numpy(const Function& function) { return NumpyPrinter().run(function); }

std::vector<std::string> Program::size_names() const {
  std::set<std::string> names;
  for (const Param& p : kernel.params)
    for (const Size& dim : p.type.shape)
      for (const std::string& n : dim.names()) names.insert(n);
  return {names.begin(), names.end()};
}

}  // namespace axon::ir
