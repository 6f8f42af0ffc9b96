#include "ir/node.h"

#include <cstring>
#include <sstream>

namespace axon::ir {
namespace {

size_t mix(size_t seed, size_t value) {
  return seed ^ (value + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2));
}

uint64_t bits_of(double value) {
  uint64_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

}  // namespace

const char* op_name(Op op) {
  switch (op) {
#define AXON_OP(name, text, kind, numpy, scalar) \
  case Op::name:                                 \
    return text;
#include "ir/ops.def"
#undef AXON_OP
  }
  return "?";
}

OpKind op_kind(Op op) {
  switch (op) {
#define AXON_OP(name, text, kind, numpy, scalar) \
  case Op::name:                                 \
    return OpKind::kind;
#include "ir/ops.def"
#undef AXON_OP
  }
  return OpKind::Leaf;
}

const char* cmp_text(Cmp cmp) {
  switch (cmp) {
    case Cmp::Lt: return "<";
    case Cmp::Le: return "<=";
    case Cmp::Gt: return ">";
    case Cmp::Ge: return ">=";
    case Cmp::Eq: return "==";
    case Cmp::Ne: return "!=";
  }
  return "?";
}

EinsumSpec EinsumSpec::parse(const std::string& spec) {
  EinsumSpec result;
  size_t arrow = spec.find("->");
  std::string lhs = spec.substr(0, arrow);
  for (size_t begin = 0;;) {
    size_t comma = lhs.find(',', begin);
    result.operands.push_back(lhs.substr(begin, comma == std::string::npos ? std::string::npos : comma - begin));
    if (comma == std::string::npos) break;
    begin = comma + 1;
  }
  if (arrow != std::string::npos) result.output = spec.substr(arrow + 2);
  return result;
}

std::string EinsumSpec::str() const {
  std::string spec;
  for (size_t i = 0; i < operands.size(); ++i) spec += (i ? "," : "") + operands[i];
  return spec + "->" + output;
}

std::string shape_str(const Shape& shape) {
  std::ostringstream out;
  out << '[';
  for (size_t i = 0; i < shape.size(); ++i) out << (i ? ", " : "") << shape[i].str();
  out << ']';
  return out.str();
}

std::string shape_str(const std::vector<int64_t>& dims) {
  return shape_str(Shape(dims.begin(), dims.end()));
}

std::string TensorType::str() const {
  return dtype_name(dtype) + shape_str(shape);
}

// Constants compare by bit pattern so that 0.0 and -0.0 (and NaNs) stay apart.
bool Attrs::operator==(const Attrs& other) const {
  return index == other.index && name == other.name && bits_of(value) == bits_of(other.value) && axes == other.axes &&
         keepdims == other.keepdims && cmp == other.cmp && sizes == other.sizes && extents == other.extents;
}

size_t Attrs::hash() const {
  size_t h = std::hash<int64_t>()(index);
  h = mix(h, std::hash<std::string>()(name));
  h = mix(h, std::hash<uint64_t>()(bits_of(value)));
  for (int64_t axis : axes) h = mix(h, std::hash<int64_t>()(axis));
  h = mix(h, keepdims);
  h = mix(h, static_cast<size_t>(cmp));
  for (const Size& s : sizes) h = mix(h, s.hash());
  for (const Size& s : extents) h = mix(h, s.hash() * 31);
  return h;
}

}  // namespace axon::ir
