#include "smt/sign.h"

#include <cmath>
#include <map>
#include <string>
#include <vector>

namespace axon::smt {
namespace {

using sem::TermKind;
using sem::TermRef;

bool sizes_only(const ir::Size& size) {
  for (const std::string& n : size.names())
    if (!n.empty() && n[0] == '$') return false;
  return true;
}

Sign of_number(double v) {
  Sign s;
  s.positive = v > 0;
  s.negative = v < 0;
  s.nonnegative = v >= 0;
  s.nonpositive = v <= 0;
  return s;
}

Sign complete(Sign s) {
  s.nonnegative = s.nonnegative || s.positive;
  s.nonpositive = s.nonpositive || s.negative;
  return s;
}

Sign negate(Sign a) {
  Sign s;
  s.positive = a.negative;
  s.negative = a.positive;
  s.nonnegative = a.nonpositive;
  s.nonpositive = a.nonnegative;
  return s;
}

// The sign of max(a, b).
Sign larger(Sign a, Sign b) {
  Sign s;
  s.positive = a.positive || b.positive;
  s.nonnegative = a.nonnegative || b.nonnegative;
  s.negative = a.negative && b.negative;
  s.nonpositive = a.nonpositive && b.nonpositive;
  return complete(s);
}

Sign product(Sign a, Sign b) {
  Sign s;
  s.positive = (a.positive && b.positive) || (a.negative && b.negative);
  s.negative = (a.positive && b.negative) || (a.negative && b.positive);
  s.nonnegative = (a.nonnegative && b.nonnegative) || (a.nonpositive && b.nonpositive);
  s.nonpositive = (a.nonnegative && b.nonpositive) || (a.nonpositive && b.nonnegative);
  return complete(s);
}

Sign sum(Sign a, Sign b) {
  Sign s;
  s.positive = (a.positive && b.nonnegative) || (a.nonnegative && b.positive);
  s.negative = (a.negative && b.nonpositive) || (a.nonpositive && b.negative);
  s.nonnegative = a.nonnegative && b.nonnegative;
  s.nonpositive = a.nonpositive && b.nonpositive;
  return complete(s);
}

// What holds for both of two values (either may be the result).
Sign join(Sign a, Sign b) {
  Sign s;
  s.positive = a.positive && b.positive;
  s.negative = a.negative && b.negative;
  s.nonnegative = a.nonnegative && b.nonnegative;
  s.nonpositive = a.nonpositive && b.nonpositive;
  return s;
}

// 1/x keeps the sign of a nonzero x; recip(0) is unknown, so nothing follows
// from "nonnegative" alone.
Sign reciprocal(Sign a) {
  Sign s;
  s.positive = a.positive;
  s.negative = a.negative;
  return complete(s);
}

void factors_of(const TermRef& t, std::vector<TermRef>& out) {
  if (t->kind == TermKind::Apply && t->op == ir::Op::Mul) {
    factors_of(t->args[0], out);
    factors_of(t->args[1], out);
  } else {
    out.push_back(t);
  }
}

// A product's factors grouped by their text: a factor taken an even number of
// times contributes a square (>= 0, and > 0 when the factor is nonzero).
Sign product_sign(const TermRef& t) {
  std::vector<TermRef> factors;
  factors_of(t, factors);
  std::map<std::string, std::pair<TermRef, int>> groups;
  for (const TermRef& f : factors) {
    auto& g = groups[sem::canonical(f)];
    g.first = f;
    ++g.second;
  }
  Sign result = of_number(1.0);
  for (const auto& [_, group] : groups) {
    Sign f = sign_of(group.first);
    if (group.second % 2 == 0) {
      Sign square;
      square.nonnegative = true;
      square.positive = f.nonzero();
      f = complete(square);
    }
    result = product(result, f);
  }
  return result;
}

Sign of_apply(const TermRef& t) {
  auto arg = [&](size_t k) { return sign_of(t->args[k]); };
  switch (t->op) {
    case ir::Op::Neg: return negate(arg(0));
    case ir::Op::Exp: return of_number(1.0);
    case ir::Op::Sqrt: {  // sqrt of a negative is NaN: no real value, nothing known
      Sign a = arg(0), s;
      s.positive = a.positive;
      s.nonnegative = a.nonnegative;
      return complete(s);
    }
    case ir::Op::Tanh: {  // tanh keeps the sign
      Sign a = arg(0);
      return complete(a);
    }
    case ir::Op::Abs: {
      Sign a = arg(0), s;
      s.nonnegative = true;
      s.positive = a.nonzero();
      return complete(s);
    }
    case ir::Op::Recip: return reciprocal(arg(0));
    case ir::Op::Pow: {
      double e = t->number;
      Sign a = arg(0);
      if (e == 0) return of_number(1.0);
      if (e == std::floor(e) && std::fabs(e) <= 8) {
        Sign p = a;
        for (int k = 1; k < static_cast<int>(std::fabs(e)); ++k) p = product(p, a);
        if (static_cast<int64_t>(e) % 2 == 0) {  // an even power: also x ** 2 of an unknown x
          p.nonnegative = true;
          p.positive = p.positive || a.nonzero();
          p = complete(p);
        }
        return e > 0 ? p : reciprocal(p);
      }
      Sign s;  // a fractional power is real only for a >= 0
      s.positive = a.positive;
      s.nonnegative = a.nonnegative && e > 0;
      return complete(s);
    }
    case ir::Op::Add: return sum(arg(0), arg(1));
    case ir::Op::Sub: return sum(arg(0), negate(arg(1)));
    case ir::Op::Mul: return product_sign(t);
    case ir::Op::Div: return product(arg(0), reciprocal(arg(1)));
    case ir::Op::Max: return larger(arg(0), arg(1));
    case ir::Op::Min: return negate(larger(negate(arg(0)), negate(arg(1))));  // min(a, b) = -max(-a, -b)
    case ir::Op::Log:
    case ir::Op::Input:
    case ir::Op::Const:
    case ir::Op::SizeValue:
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
  return {};
}

}  // namespace

bool evidently_nonnegative(const ir::Size& size) {
  return sizes_only(size) && size.provably_nonnegative();
}

bool evidently_positive(const ir::Size& size) {
  return sizes_only(size) && (size - ir::Size(1)).provably_nonnegative();
}

Sign sign_of(const TermRef& t) {
  switch (t->kind) {
    case TermKind::Number: return std::isfinite(t->number) ? of_number(t->number) : Sign{};
    case TermKind::SizeNum: {
      Sign s;
      s.positive = evidently_positive(t->size);
      s.nonnegative = evidently_nonnegative(t->size);
      return complete(s);
    }
    case TermKind::Read:
    case TermKind::Symbol: return {};
    case TermKind::Apply: return of_apply(t);
    case TermKind::Select: return join(sign_of(t->args[2]), sign_of(t->args[3]));
    case TermKind::IndexIf: return join(sign_of(t->args[0]), sign_of(t->args[1]));
    case TermKind::Fold: {
      // Every term of the fold has the body's sign (the body is read at
      // indices inside the range, where its sign analysis holds too).
      Sign body = sign_of(t->args[0]), s;
      bool nonempty = evidently_positive(t->size);
      if (t->op == ir::Op::ReduceSum) {
        s.nonnegative = body.nonnegative;
        s.nonpositive = body.nonpositive;
        s.positive = body.positive && nonempty;
        s.negative = body.negative && nonempty;
        return complete(s);
      }
      return nonempty ? body : Sign{};  // max and min over nothing have no value
    }
  }
  return {};
}

}  // namespace axon::smt
