#include "nugraph/enode.h"

#include <sstream>

namespace axon::nugraph {
namespace {

size_t mix(size_t seed, size_t value) {
  return seed ^ (value + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2));
}

std::string ints_text(const std::vector<int64_t>& values) {
  std::ostringstream out;
  out << '(';
  for (size_t i = 0; i < values.size(); ++i) out << (i ? ", " : "") << values[i];
  out << (values.size() == 1 ? ",)" : ")");
  return out.str();
}

std::string sizes_text(const std::vector<ir::Size>& sizes) {
  std::ostringstream out;
  out << '[';
  for (size_t i = 0; i < sizes.size(); ++i) out << (i ? ", " : "") << sizes[i].str();
  out << ']';
  return out.str();
}

std::string number_text(double value) {
  std::ostringstream out;
  out.precision(17);
  out << value;
  return out.str();
}

}  // namespace

size_t ENode::hash() const {
  size_t h = mix(static_cast<size_t>(op) * 0x9e3779b97f4a7c15ULL, attrs.hash());
  for (ClassId child : children) h = mix(h, child);
  return h;
}

std::string ENode::label() const {
  std::string text = ir::op_name(op);
  switch (op) {
    case ir::Op::Input: return text + " " + attrs.name + " #" + std::to_string(attrs.index);
    case ir::Op::Const:
    case ir::Op::Pow: return text + " " + number_text(attrs.value);
    case ir::Op::SizeValue: return text + " " + sizes_text(attrs.sizes);
    case ir::Op::ReduceSum:
    case ir::Op::ReduceMax:
    case ir::Op::ReduceMin: return text + " axes=" + ints_text(attrs.axes) + (attrs.keepdims ? " keepdims" : "");
    case ir::Op::Cumsum:
    case ir::Op::Concat: return text + " axis=" + std::to_string(attrs.axes.empty() ? 0 : attrs.axes[0]);
    case ir::Op::Transpose: return text + " " + ints_text(attrs.axes);
    case ir::Op::Reshape:
    case ir::Op::Broadcast: return text + " " + sizes_text(attrs.sizes);
    case ir::Op::Slice:
      return text + " starts=" + sizes_text(attrs.sizes) + " steps=" + ints_text(attrs.axes) +
             " extents=" + sizes_text(attrs.extents);
    case ir::Op::Contract: return text + " " + attrs.name;
    case ir::Op::Select: return text + " " + ir::cmp_text(attrs.cmp);
    case ir::Op::Neg:
    case ir::Op::Exp:
    case ir::Op::Log:
    case ir::Op::Sqrt:
    case ir::Op::Tanh:
    case ir::Op::Abs:
    case ir::Op::Recip:
    case ir::Op::Add:
    case ir::Op::Sub:
    case ir::Op::Mul:
    case ir::Op::Div:
    case ir::Op::Max:
    case ir::Op::Min: break;
  }
  return text;
}

std::string ENode::str() const {
  std::string text = label();
  if (children.empty()) return text;
  text += '(';
  for (size_t i = 0; i < children.size(); ++i) text += (i ? ", c" : "c") + std::to_string(children[i]);
  return text + ')';
}

}  // namespace axon::nugraph
