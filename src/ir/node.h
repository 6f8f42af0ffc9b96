// IR nodes: immutable, hash-consed tensor operations.
//
// A Node is created only through Graph::make, which infers and checks its type
// and returns the existing node when an equal one (same op, inputs and
// attributes) exists, so pointer equality is structural equality.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/dtype.h"
#include "ir/size.h"
#include "support/diag.h"

namespace axon::ir {

enum class Op : uint8_t {
#define AXON_OP(name, text, kind, numpy, scalar) name,
#include "ir/ops.def"
#undef AXON_OP
};

enum class OpKind : uint8_t { Leaf, Unary, Binary, Select, Reduce, Scan, Contract, Layout };

const char* op_name(Op op);
OpKind op_kind(Op op);

enum class Cmp : uint8_t { Lt, Le, Gt, Ge, Eq, Ne };
const char* cmp_text(Cmp cmp);  // "<", "<=", ...

/// A Contract's spec "ab,bc->ac" taken apart; the one place that parses it.
struct EinsumSpec {
  std::vector<std::string> operands;  // subscripts per operand
  std::string output;
  static EinsumSpec parse(const std::string& spec);  // no "->" is a ShapeError-free empty output
  std::string str() const;
};

using Shape = std::vector<Size>;
std::string shape_str(const Shape& shape);                // "[M, 4]"
std::string shape_str(const std::vector<int64_t>& dims);  // "[7, 4]"

struct TensorType {
  DType dtype = DType::F32;
  Shape shape;
  int rank() const { return static_cast<int>(shape.size()); }
  std::string str() const;  // "f32[M, 4]"
  friend bool operator==(const TensorType&, const TensorType&) = default;
};

/// Op parameters. Which fields an op uses is stated in ops.def; the others
/// stay default so that equality and hashing can look at all of them.
struct Attrs {
  int64_t index = 0;          // Input: parameter position
  std::string name;           // Input: parameter name; Contract: einsum spec
  double value = 0.0;         // Const: the value; Pow: the exponent
  std::vector<int64_t> axes;  // Reduce*: axes; Transpose: permutation; Cumsum, Concat: {axis}; Slice: steps
  bool keepdims = false;      // Reduce*
  Cmp cmp = Cmp::Lt;          // Select
  std::vector<Size> sizes;    // Reshape, Broadcast: target shape; SizeValue: {value}; Slice: starts
  std::vector<Size> extents;  // Slice: result length per axis

  bool operator==(const Attrs& other) const;
  size_t hash() const;
};

class Node;
using NodeRef = const Node*;

class Node {
 public:
  Op op() const { return op_; }
  const std::vector<NodeRef>& inputs() const { return inputs_; }
  NodeRef input(size_t i) const { return inputs_.at(i); }
  const Attrs& attrs() const { return attrs_; }
  const TensorType& type() const { return type_; }
  DType dtype() const { return type_.dtype; }
  const Shape& shape() const { return type_.shape; }
  int rank() const { return type_.rank(); }
  /// Where the node was first written; equal nodes made elsewhere share it.
  const SourceLoc& loc() const { return loc_; }
  /// Creation order within its graph: a deterministic key for maps and sorting.
  int id() const { return id_; }
  /// True for rank-0 constants (literal numbers and sizes), which take part in
  /// arithmetic without deciding the result's dtype (like Python scalars in NumPy).
  bool is_weak_scalar() const { return op_ == Op::Const || op_ == Op::SizeValue; }

 private:
  friend class Graph;
  Node(Op op, std::vector<NodeRef> inputs, Attrs attrs, TensorType type, SourceLoc loc, int id)
      : op_(op),
        inputs_(std::move(inputs)),
        attrs_(std::move(attrs)),
        type_(std::move(type)),
        loc_(std::move(loc)),
        id_(id) {}

  Op op_;
  std::vector<NodeRef> inputs_;
  Attrs attrs_;
  TensorType type_;
  SourceLoc loc_;
  int id_;
};

}  // namespace axon::ir
