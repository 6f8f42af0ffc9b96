// The rounding bounds the reference carries (the rules of eval/interpreter.h),
// the check against them (eval/rounding.h) and the memory refusal: rows of
// (program, inputs, expected bound of every result element) that print all
// three on failure.
#include "eval/rounding.h"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "lang/load.h"

namespace axon::eval {
namespace {

const double u = 0x1p-24;  // float32

ir::Program compile(const std::string& body, const std::string& params) {
  std::string text = "import numpy as np\n\ndef k(" + params + "):\n    return " + body + "\n";
  auto file = std::make_shared<const SourceFile>(SourceFile{"t.py", text});
  return lang::compile_source(file);
}

std::string show(const std::vector<double>& v) {
  std::ostringstream out;
  out.precision(6);
  out << "[";
  for (size_t i = 0; i < v.size(); ++i) out << (i ? ", " : "") << v[i];
  return out.str() + "]";
}

struct Row {
  std::string body, params;
  std::vector<Tensor> inputs;
  std::vector<double> bound;  // of result 0, in units of u
};

TEST(RoundingBound, Rules) {
  const double e = std::exp(1.0), t = std::tanh(0.5);
  const std::vector<Row> rows = {
      // inputs are exact; a copy or a layout op carries no error
      {"x", "x: 'f32[2]'", {{{2}, {1.5, -2}}}, {0, 0}},
      {"-x.T", "x: 'f32[2, 1]'", {{{2, 1}, {1.5, -2}}}, {0, 0}},
      {"np.maximum(x, y)", "x: 'f32[1]', y: 'f32[1]'", {{{1}, {1}}, {{1}, {2}}}, {0}},
      // one rounding: u|y|
      {"x + y", "x: 'f32[1]', y: 'f32[1]'", {{{1}, {1}}, {{1}, {-3}}}, {2}},
      {"x * y", "x: 'f32[1]', y: 'f32[1]'", {{{1}, {1.5}}, {{1}, {-3}}}, {4.5}},
      {"x / y", "x: 'f32[1]', y: 'f32[1]'", {{{1}, {3}}, {{1}, {4}}}, {0.75}},
      // through a second op: E(a)|b| + |a|E(b) + u|y|, with E(x + y) = u|x + y|
      {"(x + y) * y", "x: 'f32[1]', y: 'f32[1]'", {{{1}, {1}}, {{1}, {2}}}, {3 * 2 + 6}},
      // exp: |y| E(x) + 4u|y|; a constant not exact in float32 costs u|c|
      {"np.exp(x * 0.1)", "x: 'f32[1]'", {{{1}, {10}}}, {6 * e}},  // E(x * 0.1) = 10 u 0.1 + u
      {"np.tanh(x)", "x: 'f32[1]'", {{{1}, {0.5}}}, {4 * t}},
      // sqrt: min(E/(2y), sqrt E) + u|y|
      {"np.sqrt(x + y)", "x: 'f32[1]', y: 'f32[1]'", {{{1}, {2}}, {{1}, {2}}}, {4.0 / (2 * 2) + 2}},
      {"x ** 2", "x: 'f32[1]'", {{{1}, {3}}}, {9}},
      // a sum: sqrt(sum E_k^2) + u sqrt(sum_{k>=2} s_k^2): partial sums 3, 6 after the first term 1
      {"x.sum()", "x: 'f32[3]'", {{{3}, {1, 2, 3}}}, {std::sqrt(9.0 + 36.0)}},
      // one term: no addition at all
      {"x.sum(axis=-1)", "x: 'f32[2, 1]'", {{{2, 1}, {1, 2}}}, {0, 0}},
      // a dot product: each term's product rounded (u|t|), then the sum
      {"x @ y", "x: 'f32[2]', y: 'f32[2]'", {{{2}, {1, 2}}, {{2}, {3, 4}}}, {std::sqrt(9.0 + 64.0) + 11}},
      // cumsum: each prefix as a sum
      {"np.cumsum(x)", "x: 'f32[3]'", {{{3}, {1, 2, 3}}}, {0, 3, std::sqrt(9.0 + 36.0)}},
      // max over an axis: the largest E of the terms
      {"(x * y).max(axis=-1)", "x: 'f32[2]', y: 'f32[2]'", {{{2}, {1, 2}}, {{2}, {3, 5}}}, {10}},
      // where: a comparison within the bounds may flip, adding |t - f|
      {"np.where(x * y > 6.0, x, y)", "x: 'f32[1]', y: 'f32[1]'", {{{1}, {2}}, {{1}, {3}}}, {1 / u}},
      {"np.where(x * y > 1.0, x, y)", "x: 'f32[1]', y: 'f32[1]'", {{{1}, {2}}, {{1}, {3}}}, {0}},
  };
  for (const Row& row : rows) {
    ir::Program p = compile(row.body, row.params);
    ir::Dims dims;
    EvalOptions options;
    options.bounds = true;
    Evaluation ev = evaluate_bounded(p.kernel, row.inputs, dims, options);
    std::vector<double> got;
    for (double b : ev.bounds.at(0).data) got.push_back(b / u);
    bool same = got.size() == row.bound.size();
    for (size_t i = 0; same && i < got.size(); ++i)
      same = std::fabs(got[i] - row.bound[i]) <= 1e-9 * std::max(1.0, std::fabs(row.bound[i]));
    EXPECT_TRUE(same) << row.body << ": expected " << show(row.bound) << " u, got " << show(got) << " u";
  }
}

TEST(RoundingBound, UnitRoundoffAndRounding) {
  EXPECT_EQ(unit_roundoff(ir::DType::F32), 0x1p-24);
  EXPECT_EQ(unit_roundoff(ir::DType::F16), 0x1p-11);
  EXPECT_EQ(unit_roundoff(ir::DType::BF16), 0x1p-8);
  EXPECT_EQ(round_to(1 + 0x1p-9, ir::DType::BF16), 1.0);             // a tie... below half: down
  EXPECT_EQ(round_to(1 + 3 * 0x1p-9, ir::DType::BF16), 1 + 0x1p-7);  // above half: up
  EXPECT_EQ(round_to(1 + 0x1p-8, ir::DType::BF16), 1.0);             // a tie: to even
  EXPECT_EQ(round_to(1 + 0x1p-11, ir::DType::F16), 1.0);
  EXPECT_EQ(round_to(1 + 0x1p-10, ir::DType::F16), 1 + 0x1p-10);
  EXPECT_EQ(round_to(0.1, ir::DType::F32), static_cast<double>(0.1f));
}

// A bf16 value's rounding uses bf16's u.
TEST(RoundingBound, DeclaredDtype) {
  ir::Program p = compile("x + y", "x: 'bf16[1]', y: 'bf16[1]'");
  EvalOptions options;
  options.bounds = true;
  Evaluation ev = evaluate_bounded(p.kernel, {{{1}, {1}}, {{1}, {2}}}, {}, options);
  EXPECT_EQ(ev.bounds[0].data[0], 3 * 0x1p-8);
}

TEST(BoundCheck, WithinAndOutside) {
  ir::Program p = compile("x * y", "x: 'f32[2]', y: 'f32[2]'");
  EvalOptions options;
  options.bounds = true;
  Evaluation want = evaluate_bounded(p.kernel, {{{2}, {1.5, 2}}, {{2}, {3, 1}}}, {}, options);
  // the bounds: c u 4.5 and c u 2
  BoundCheck ok = check_within_bound(std::vector<std::vector<float>>{{4.5f, 2.0f}}, want);
  EXPECT_TRUE(ok.ok) << ok.text();
  EXPECT_EQ(ok.worst, 0);
  BoundCheck near = check_within_bound(std::vector<Tensor>{{{2}, {4.5 + 4.5 * u, 2}}}, want);
  EXPECT_TRUE(near.ok) << near.text();
  EXPECT_NEAR(near.worst, 1 / kBoundFactor, 1e-12);
  BoundCheck bad = check_within_bound(std::vector<Tensor>{{{2}, {4.5, 2 + 1e-6}}}, want);
  EXPECT_FALSE(bad.ok);
  EXPECT_EQ(bad.element, 1u);
  BoundCheck far = check_within_bound(std::vector<Tensor>{{{2}, {4.5 * 1.001, 2}}}, want);
  EXPECT_FALSE(far.ok);
  EXPECT_GT(far.worst, 100) << far.text();
  BoundCheck nan = check_within_bound(std::vector<Tensor>{{{2}, {NAN, 2}}}, want);
  EXPECT_FALSE(nan.ok);
  EXPECT_TRUE(std::isinf(nan.worst));
}

// x / (1 + exp(-x)) at x = -90: 1 + exp(90) is beyond float32, so a float32
// kernel (and NumPy in float32) divides by inf and gets -0 where the
// reference has -7.4e-38, a normal float, and -8.1e-36 after a product
// (gated_mlp at bench sizes). The quotient may be anything between 0 and
// its value (times the check's factor); one far larger is still refused.
TEST(BoundCheck, QuotientsByOverflowedDivisors) {
  for (const char* body : {"x / (1.0 + np.exp(-x)) * y", "np.reciprocal(1.0 + np.exp(-x)) * x * y"}) {
    ir::Program p = compile(body, "x: 'f32[2]', y: 'f32[2]'");
    EvalOptions options;
    options.bounds = true;
    Evaluation want = evaluate_bounded(p.kernel, {{{2}, {-90, -80}}, {{2}, {109, 109}}}, {}, options);
    double y0 = want.values[0].data[0], y1 = want.values[0].data[1];
    ASSERT_LT(y0, -1e-36) << body;
    BoundCheck zero = check_within_bound(std::vector<Tensor>{{{2}, {-0.0, y1}}}, want);
    EXPECT_TRUE(zero.ok) << body << ": " << zero.text();
    BoundCheck exact = check_within_bound(std::vector<Tensor>{{{2}, {y0, y1}}}, want);
    EXPECT_TRUE(exact.ok) << body << ": " << exact.text();
    if (std::string(body).rfind("x /", 0) == 0) {  // (1/(1 + exp(90)) underflows: the absolute floor allows more)
      BoundCheck large = check_within_bound(std::vector<Tensor>{{{2}, {20 * y0, y1}}}, want);
      EXPECT_FALSE(large.ok) << body;
    }
    // exp(80) fits: there the quotient's bound stays relative
    BoundCheck off = check_within_bound(std::vector<Tensor>{{{2}, {y0, y1 * 1.1}}}, want);
    EXPECT_FALSE(off.ok) << body;
  }
}

TEST(MemoryLimit, RefusedBeforeStarting) {
  ir::Program p = compile("x @ x.T", "x: 'f32[M, K]'");
  ir::Dims dims{{"M", 1000}, {"K", 1000}};
  // x (8 MB, the caller's and the interpreter's copy), x.T, and the 8 MB result (and its copy)
  MemoryNeed need = memory_needed(p.kernel, dims, false);
  EXPECT_GE(need.bytes, 3 * 8'000'000);
  EXPECT_LE(need.bytes, 6 * 8'000'000);
  EXPECT_GT(memory_needed(p.kernel, dims, true).bytes, need.bytes);
  EvalOptions options;
  options.max_memory_bytes = 1 << 20;
  try {
    evaluate(p.kernel, {Tensor::zeros({1000, 1000})}, dims, options);
    FAIL() << "no refusal";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("MiB of memory"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("limit is 1.0 MiB (--max-memory)"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace axon::eval
