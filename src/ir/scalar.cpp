#include "ir/scalar.h"

#include <cmath>

namespace axon::ir {
namespace {

double max_nan(double a, double b) { return (std::isnan(a) || std::isnan(b)) ? NAN : std::max(a, b); }
double min_nan(double a, double b) { return (std::isnan(a) || std::isnan(b)) ? NAN : std::min(a, b); }

[[noreturn]] double not_of_kind(Op op, OpKind wanted) {
  throw InternalError(__FILE__, __LINE__,
                      std::string(op_name(op)) + (wanted == OpKind::Unary ? " is not unary" : " is not binary"));
}

// One case per op, generated from the table: the op's scalar expression over
// x (unary; p its attribute) or a and b (binary), for an op of the wanted kind.
double evaluate(Op op, OpKind wanted, double x, double a, double b, double p) {
#define NOT_SCALAR not_of_kind(op, wanted)
  switch (op) {
#define AXON_OP(name, text, kind, numpy, scalar) \
  case Op::name:                                 \
    if (OpKind::kind != wanted) break;           \
    return scalar;
#include "ir/ops.def"
#undef AXON_OP
  }
#undef NOT_SCALAR
  (void)x, (void)a, (void)b, (void)p;
  not_of_kind(op, wanted);
}

}  // namespace

double scalar_unary(Op op, double x, double p) { return evaluate(op, OpKind::Unary, x, 0.0, 0.0, p); }

double scalar_binary(Op op, double a, double b) { return evaluate(op, OpKind::Binary, 0.0, a, b, 0.0); }

const char* numpy_name(Op op) {
  switch (op) {
#define AXON_OP(name, text, kind, numpy, scalar) \
  case Op::name:                                 \
    return numpy;
#include "ir/ops.def"
#undef AXON_OP
  }
  return "";
}

std::optional<Op> op_from_numpy(const std::string& name, OpKind kind) {
  static const Op kAll[] = {
#define AXON_OP(name, text, kind, numpy, scalar) Op::name,
#include "ir/ops.def"
#undef AXON_OP
  };
  if (name.empty()) return std::nullopt;
  for (Op op : kAll)
    if (op_kind(op) == kind && name == numpy_name(op)) return op;
  return std::nullopt;
}

}  // namespace axon::ir
