// The float64 reference interpreter and the binding of inputs to sizes: small
// programs from source, run at concrete sizes, against hand-computed results.
#include "eval/interpreter.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "eval/bind.h"
#include "lang/load.h"

namespace axon::eval {
namespace {

const std::string kImport = "import numpy as np\n";

ir::Program compile(const std::string& text) {
  auto file = std::make_shared<const SourceFile>(SourceFile{"t.py", text});
  return lang::compile_source(file);
}

Tensor tensor(std::vector<int64_t> shape, std::vector<double> data) {
  return Tensor{std::move(shape), std::move(data)};
}

std::string show(const Tensor& t) {
  std::ostringstream out;
  out.precision(17);
  out << t.shape_str() << " [";
  for (size_t i = 0; i < t.data.size(); ++i) out << (i ? ", " : "") << t.data[i];
  out << "]";
  return out.str();
}

std::string show(const std::vector<Tensor>& ts) {
  std::string text;
  for (size_t i = 0; i < ts.size(); ++i) text += (i ? "; " : "") + show(ts[i]);
  return text;
}

// Equal shapes, values within a tight relative tolerance, NaNs in the same places.
bool close(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].shape != b[i].shape || a[i].data.size() != b[i].data.size()) return false;
    for (size_t k = 0; k < a[i].data.size(); ++k) {
      const double x = a[i].data[k], y = b[i].data[k];
      if (std::isnan(x) || std::isnan(y)) {
        if (std::isnan(x) != std::isnan(y)) return false;
        continue;
      }
      if (std::fabs(x - y) > 1e-12 * std::max(1.0, std::fabs(y))) return false;
    }
  }
  return true;
}

struct EvalRow {
  std::string input;
  std::string body;  // the kernel, after the import
  ir::Dims dims;
  std::vector<Tensor> inputs;
  std::vector<Tensor> expected;
};

std::string outcome_text(const EvalRow& row, std::vector<Tensor>& actual) {
  try {
    ir::Program p = compile(kImport + row.body);
    actual = evaluate(p.kernel, row.inputs, row.dims);
    return show(actual);
  } catch (const UserError& e) {
    return "error: " + e.format();
  } catch (const std::exception& e) {
    return std::string("unexpected exception: ") + e.what();
  }
}

void check_rows(const std::vector<EvalRow>& rows) {
  for (const EvalRow& row : rows) {
    std::vector<Tensor> actual;
    const std::string text = outcome_text(row, actual);
    EXPECT_TRUE(close(actual, row.expected))
        << "input:    " << row.input << "\n"
        << row.body << "  expected: " << show(row.expected) << "\n  actual:   " << text;
  }
}

const double kLn2 = std::log(2.0);
const double kLn3 = std::log(3.0);
const double kNaN = std::numeric_limits<double>::quiet_NaN();

TEST(InterpreterTest, ContractionsAndReductions) {
  const Tensor a22 = tensor({2, 2}, {1, 2, 3, 4});
  check_rows({
      {"matmul 2x2",
       "def f(x: \"f32[M, K]\", w: \"f32[K, N]\"):\n    return x @ w\n",
       {{"M", 2}, {"K", 2}, {"N", 2}},
       {a22, tensor({2, 2}, {5, 6, 7, 8})},
       {tensor({2, 2}, {19, 22, 43, 50})}},
      {"matmul 2x3 by 3x1",
       "def f(x: \"f32[2, 3]\", w: \"f32[3, 1]\"):\n    return x @ w\n",
       {},
       {tensor({2, 3}, {1, 2, 3, 4, 5, 6}), tensor({3, 1}, {1, 0, -1})},
       {tensor({2, 1}, {-2, -2})}},
      {"matrix by vector",
       "def f(x: \"f32[2, 2]\", v: \"f32[2]\"):\n    return x @ v\n",
       {},
       {a22, tensor({2}, {1, -1})},
       {tensor({2}, {-1, -1})}},
      {"batched matmul",
       "def f(a: \"f32[B, 1, 2]\", b: \"f32[B, 2, 1]\"):\n    return a @ b\n",
       {{"B", 2}},
       {tensor({2, 1, 2}, {1, 2, 3, 4}), tensor({2, 2, 1}, {5, 6, 7, 8})},
       {tensor({2, 1, 1}, {17, 53})}},
      {"einsum trace",
       "def f(x: \"f32[N, N]\"):\n    return np.einsum(\"ii\", x), np.einsum(\"ii->i\", x)\n",
       {{"N", 2}},
       {a22},
       {tensor({}, {5}), tensor({2}, {1, 4})}},
      {"einsum outer",
       "def f(a: \"f32[2]\", b: \"f32[3]\"):\n    return np.einsum(\"i,j->ij\", a, b)\n",
       {},
       {tensor({2}, {1, 2}), tensor({3}, {1, 10, 100})},
       {tensor({2, 3}, {1, 10, 100, 2, 20, 200})}},
      {"einsum transposed output",
       "def f(x: \"f32[2, 3]\"):\n    return np.einsum(\"ij->ji\", x)\n",
       {},
       {tensor({2, 3}, {1, 2, 3, 4, 5, 6})},
       {tensor({3, 2}, {1, 4, 2, 5, 3, 6})}},
      {"reduce max with keepdims",
       "def f(x: \"f32[M, N]\"):\n    return x.max(axis=1, keepdims=True), np.max(x, axis=0), x.max()\n",
       {{"M", 2}, {"N", 3}},
       {tensor({2, 3}, {1, 5, 3, 4, 2, 6})},
       {tensor({2, 1}, {5, 6}), tensor({3}, {4, 5, 6}), tensor({}, {6})}},
      {"reduce min over two axes",
       "def f(x: \"f32[2, 2, 2]\"):\n    return x.min(axis=(0, 2))\n",
       {},
       {tensor({2, 2, 2}, {8, 7, 6, 5, 4, 3, 2, 1})},
       {tensor({2}, {3, 1})}},
      {"sum keepdims",
       "def f(x: \"f32[2, 3]\"):\n    return x.sum(axis=-1, keepdims=True)\n",
       {},
       {tensor({2, 3}, {1, 2, 3, 4, 5, 6})},
       {tensor({2, 1}, {6, 15})}},
      {"mean",
       "def f(x: \"f32[M, N]\"):\n    return x.mean(axis=0), np.mean(x), x.mean(axis=1, keepdims=True)\n",
       {{"M", 2}, {"N", 2}},
       {tensor({2, 2}, {1, 2, 3, 5})},
       {tensor({2}, {2, 3.5}), tensor({}, {2.75}), tensor({2, 1}, {1.5, 4})}},
      {"max propagates NaN",
       "def f(x: \"f32[3]\"):\n    return x.max(), np.maximum(x, 0.0)\n",
       {},
       {tensor({3}, {1, kNaN, 2})},
       {tensor({}, {kNaN}), tensor({3}, {1, kNaN, 2})}},
  });
}

TEST(InterpreterTest, ElementwiseAndScans) {
  check_rows({
      {"softmax of a row",
       "def f(x: \"f32[M, N]\"):\n    m = x.max(axis=-1, keepdims=True)\n    e = np.exp(x - m)\n"
       "    return e / e.sum(axis=-1, keepdims=True)\n",
       {{"M", 1}, {"N", 3}},
       {tensor({1, 3}, {0, kLn2, kLn3})},
       {tensor({1, 3}, {1.0 / 6, 2.0 / 6, 3.0 / 6})}},
      {"softmax of two rows with a shift",
       "def f(x: \"f32[2, 2]\"):\n    e = np.exp(x)\n    return e / e.sum(axis=1, keepdims=True)\n",
       {},
       {tensor({2, 2}, {0, 0, 100, 100 + kLn3})},
       {tensor({2, 2}, {0.5, 0.5, 0.25, 0.75})}},
      {"cumsum of a vector",
       "def f(x: \"f32[N]\"):\n    return np.cumsum(x)\n",
       {{"N", 4}},
       {tensor({4}, {1, 2, 3, 4})},
       {tensor({4}, {1, 3, 6, 10})}},
      {"cumsum along each axis",
       "def f(x: \"f32[2, 3]\"):\n    return x.cumsum(axis=0), x.cumsum(axis=1), np.cumsum(x)\n",
       {},
       {tensor({2, 3}, {1, 2, 3, 4, 5, 6})},
       {tensor({2, 3}, {1, 2, 3, 5, 7, 9}), tensor({2, 3}, {1, 3, 6, 4, 9, 15}), tensor({6}, {1, 3, 6, 10, 15, 21})}},
      {"where",
       "def f(x: \"f32[N]\"):\n    return np.where(x > 0, x, 0.5 * x), np.where(x <= 0, 1.0, -1.0)\n",
       {{"N", 3}},
       {tensor({3}, {-1, 0, 2})},
       {tensor({3}, {-0.5, 0, 2}), tensor({3}, {1, 1, -1})}},
      {"where with a broadcast condition",
       "def f(x: \"f32[2, 2]\", t: \"f32[2]\"):\n    return np.where(x >= t, x, t)\n",
       {},
       {tensor({2, 2}, {1, 5, 3, 0}), tensor({2}, {2, 2})},
       {tensor({2, 2}, {2, 5, 3, 2})}},
      {"broadcasting",
       "def f(a: \"f32[2, 1]\", b: \"f32[3]\"):\n    return a + b, a * b - 1\n",
       {},
       {tensor({2, 1}, {10, 20}), tensor({3}, {1, 2, 3})},
       {tensor({2, 3}, {11, 12, 13, 21, 22, 23}), tensor({2, 3}, {9, 19, 29, 19, 39, 59})}},
      {"unary functions",
       "def f(x: \"f32[2]\"):\n    return np.sqrt(x), np.abs(-x), np.reciprocal(x), x ** 3, np.square(x)\n",
       {},
       {tensor({2}, {4, 9})},
       {tensor({2}, {2, 3}), tensor({2}, {4, 9}), tensor({2}, {0.25, 1.0 / 9}), tensor({2}, {64, 729}),
        tensor({2}, {16, 81})}},
      {"sizes as numbers",
       "def f(x: \"f32[M, N]\"):\n    return x * x.shape[0] + x.shape[1] // 2\n",
       {{"M", 3}, {"N", 5}},
       {tensor({3, 5}, std::vector<double>(15, 1.0))},
       {tensor({3, 5}, std::vector<double>(15, 5.0))}},
      {"scalar parameter",
       "def f(s: \"f32[]\", x: \"f32[2]\"):\n    return s * x - s\n",
       {},
       {tensor({}, {3}), tensor({2}, {1, 2})},
       {tensor({2}, {0, 3})}},
  });
}

TEST(InterpreterTest, Layout) {
  const Tensor iota8 = tensor({8}, {0, 1, 2, 3, 4, 5, 6, 7});
  const Tensor m23 = tensor({2, 3}, {1, 2, 3, 4, 5, 6});
  check_rows({
      {"transpose",
       "def f(x: \"f32[M, N]\"):\n    return x.T\n",
       {{"M", 2}, {"N", 3}},
       {m23},
       {tensor({3, 2}, {1, 4, 2, 5, 3, 6})}},
      {"transpose of rank 3",
       "def f(x: \"f32[2, 2, 2]\"):\n    return x.transpose(2, 0, 1)\n",
       {},
       {tensor({2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7})},
       {tensor({2, 2, 2}, {0, 2, 4, 6, 1, 3, 5, 7})}},
      {"swapaxes",
       "def f(x: \"f32[2, 3]\"):\n    return np.swapaxes(x, 0, 1)\n",
       {},
       {m23},
       {tensor({3, 2}, {1, 4, 2, 5, 3, 6})}},
      {"reshape is row-major",
       "def f(x: \"f32[2, 3]\"):\n    return x.reshape(3, 2), x.reshape(-1)\n",
       {},
       {m23},
       {tensor({3, 2}, {1, 2, 3, 4, 5, 6}), tensor({6}, {1, 2, 3, 4, 5, 6})}},
      {"broadcast_to",
       "def f(x: \"f32[3]\"):\n    return np.broadcast_to(x, (2, 3))\n",
       {},
       {tensor({3}, {1, 2, 3})},
       {tensor({2, 3}, {1, 2, 3, 1, 2, 3})}},
      {"negative steps on a constant axis",
       "def f(x: \"f32[8]\"):\n    return x[::-1], x[6:1:-2], x[::-3], x[-2::-3]\n",
       {},
       {iota8},
       {tensor({8}, {7, 6, 5, 4, 3, 2, 1, 0}), tensor({3}, {6, 4, 2}), tensor({3}, {7, 4, 1}), tensor({3}, {6, 3, 0})}},
      {"negative steps on a symbolic axis",
       "def f(x: \"f32[N]\"):\n    n = x.shape[0]\n    return x[::-1], x[::-2], x[n - 2:0:-1], x[:-3:-1]\n",
       {{"N", 8}},
       {iota8},
       {tensor({8}, {7, 6, 5, 4, 3, 2, 1, 0}), tensor({4}, {7, 5, 3, 1}), tensor({6}, {6, 5, 4, 3, 2, 1}),
        tensor({2}, {7, 6})}},
      {"odd length reversed by two",
       "def f(x: \"f32[N]\"):\n    return x[::-2]\n",
       {{"N", 7}},
       {tensor({7}, {0, 1, 2, 3, 4, 5, 6})},
       {tensor({4}, {6, 4, 2, 0})}},
      {"slices of a matrix",
       "def f(x: \"f32[M, N]\"):\n    return x[::-1, 1:], x[-1], x[:, None, 0], x[..., ::2]\n",
       {{"M", 2}, {"N", 3}},
       {m23},
       {tensor({2, 2}, {5, 6, 2, 3}), tensor({3}, {4, 5, 6}), tensor({2, 1}, {1, 4}), tensor({2, 2}, {1, 3, 4, 6})}},
      {"halves by size",
       "def f(x: \"f32[N]\"):\n    h = x.shape[0] // 2\n    return x[:h], x[h:]\n",
       {{"N", 5}},
       {tensor({5}, {1, 2, 3, 4, 5})},
       {tensor({2}, {1, 2}), tensor({3}, {3, 4, 5})}},
      {"concatenate",
       "def f(a: \"f32[2]\", b: \"f32[3]\"):\n    return np.concatenate([a, b])\n",
       {},
       {tensor({2}, {1, 2}), tensor({3}, {3, 4, 5})},
       {tensor({5}, {1, 2, 3, 4, 5})}},
      {"concatenate along axis 1",
       "def f(a: \"f32[2, 1]\", b: \"f32[2, 2]\"):\n    return np.concatenate((a, b, a), axis=1)\n",
       {},
       {tensor({2, 1}, {0, 9}), tensor({2, 2}, {1, 2, 3, 4})},
       {tensor({2, 4}, {0, 1, 2, 0, 9, 3, 4, 9})}},
      {"rotate by concatenation",
       "def f(x: \"f32[N]\"):\n    h = x.shape[0] // 2\n    return np.concatenate([x[h:], x[:h]])\n",
       {{"N", 5}},
       {tensor({5}, {1, 2, 3, 4, 5})},
       {tensor({5}, {3, 4, 5, 1, 2})}},
  });
}

TEST(InterpreterTest, ConcreteShape) {
  const ir::Size M = ir::Size::name("M");
  EXPECT_EQ(concrete_shape({M, 2 * M + 1, 3}, {{"M", 4}}, {}), (std::vector<int64_t>{4, 9, 3}));
  EXPECT_EQ(concrete_shape({}, {}, {}), std::vector<int64_t>{});
  EXPECT_THROW(concrete_shape({M}, {}, {}), UserError);
  EXPECT_THROW(concrete_shape({M - 5}, {{"M", 3}}, {}), UserError);
  EXPECT_THROW(concrete_shape({M, M}, {{"M", int64_t{1} << 20}}, {}), UserError);  // too many elements
}

// ---------------------------------------------------------------------------
// Binding sizes from provided inputs

struct BindRow {
  std::string input;
  ir::Dims given;
  std::vector<std::optional<ProvidedInput>> provided;
  std::string expected;  // "M=2 N=3", or substrings of the error joined by " | "
};

std::string dims_text(const ir::Dims& dims) {
  std::string text;
  for (const auto& [name, value] : dims) text += (text.empty() ? "" : " ") + name + "=" + std::to_string(value);
  return text;
}

std::optional<ProvidedInput> npy(const std::string& name, std::vector<int64_t> shape) {
  return ProvidedInput{Tensor::zeros(std::move(shape)), name};
}

TEST(InterpreterTest, BindDims) {
  const ir::Program p =
      compile(kImport + "def f(x: \"f32[M, N]\", y: \"f32[N]\", z: \"f32[M, 4]\"):\n    return x * y + z[:, :1]\n");
  const std::vector<BindRow> rows = {
      {"all sizes from the files", {}, {npy("x.npy", {2, 3}), npy("y.npy", {3}), npy("z.npy", {2, 4})}, "M=2 N=3"},
      {"some files, the rest from --dims", {{"M", 5}}, {std::nullopt, npy("y.npy", {7}), std::nullopt}, "M=5 N=7"},
      {"only --dims", {{"M", 1}, {"N", 1}}, {std::nullopt, std::nullopt, std::nullopt}, "M=1 N=1"},
      {"--dims that agree with the files", {{"N", 3}}, {npy("x.npy", {2, 3}), std::nullopt, std::nullopt}, "M=2 N=3"},
      {"extra --dims are kept", {{"K", 9}}, {npy("x.npy", {2, 3}), std::nullopt, std::nullopt}, "K=9 M=2 N=3"},
      {"two files disagree",
       {},
       {npy("x.npy", {2, 3}), npy("y.npy", {4}), std::nullopt},
       "t.py:2:26: error: | y.npy has shape (4,) but parameter 'y' is f32[N] | y.npy gives N=4 but x.npy gives N=3"},
      {"a file disagrees with --dims",
       {{"N", 5}},
       {npy("x.npy", {2, 3}), std::nullopt, std::nullopt},
       "t.py:2:10: error: | x.npy gives N=3 but --dims gives N=5"},
      {"rank mismatch",
       {},
       {npy("x.npy", {6}), std::nullopt, std::nullopt},
       "t.py:2:10: error: | x.npy has shape (6,) but parameter 'x' is f32[M, N] (rank 1 vs 2)"},
      {"constant dim mismatch",
       {},
       {npy("x.npy", {2, 3}), std::nullopt, npy("z.npy", {2, 5})},
       "t.py:2:39: error: | z.npy has shape (2, 5) but parameter 'z' is f32[M, 4]: dimension 1 must be 4"},
      {"missing size",
       {{"M", 2}},
       {std::nullopt, std::nullopt, std::nullopt},
       "error: size 'N' is not given; pass --dims N=..."},
  };
  for (const BindRow& row : rows) {
    std::string actual;
    try {
      actual = dims_text(bind_dims(p.kernel, row.given, row.provided));
    } catch (const UserError& e) {
      actual = e.format();
    }
    bool ok = true;
    if (row.expected.find("error") == std::string::npos) {
      ok = actual == row.expected;
    } else {
      std::string parts = row.expected + " | ";
      for (size_t begin = 0, bar; (bar = parts.find(" | ", begin)) != std::string::npos; begin = bar + 3)
        ok = ok && actual.find(parts.substr(begin, bar - begin)) != std::string::npos;
    }
    EXPECT_TRUE(ok) << "input:    " << row.input << "\n  expected: " << row.expected << "\n  actual:   " << actual;
  }
}

// Symbolic sizes are integers >= 1 (ir/size.h, DESIGN.md section 3), and
// --dims M=0 is refused; a file with a zero-length axis must not bind one to 0.
TEST(InterpreterTest, ZeroSizeFromAFileIsRejected) {
  const ir::Program p = compile(kImport + "def f(x: \"f32[M, N]\"):\n    return x\n");
  try {
    const ir::Dims dims = bind_dims(p.kernel, {}, {npy("x.npy", {0, 3})});
    ADD_FAILURE() << "input: x.npy of shape (0, 3)\n  expected: a UserError\n  actual:   " << dims_text(dims);
  } catch (const UserError& e) {
    EXPECT_NE(e.format().find("t.py:2:10: error: x.npy has shape (0, 3)"), std::string::npos) << e.format();
  }
  // A zero where the annotation says 4 is an ordinary mismatch.
  const ir::Program q = compile(kImport + "def f(x: \"f32[M, 4]\"):\n    return x\n");
  EXPECT_THROW(bind_dims(q.kernel, {}, {npy("x.npy", {2, 0})}), UserError);
}

// Sizes bound from files feed straight into evaluation.
TEST(InterpreterTest, BindThenEvaluate) {
  const ir::Program p = compile(kImport + "def f(x: \"f32[M, N]\", y: \"f32[N]\"):\n    return (x * y).sum(axis=1)\n");
  std::vector<std::optional<ProvidedInput>> provided = {ProvidedInput{tensor({2, 2}, {1, 2, 3, 4}), "x.npy"},
                                                        ProvidedInput{tensor({2}, {10, 1}), "y.npy"}};
  const ir::Dims dims = bind_dims(p.kernel, {}, provided);
  EXPECT_EQ(dims_text(dims), "M=2 N=2");
  const std::vector<Tensor> out = evaluate(p.kernel, {provided[0]->tensor, provided[1]->tensor}, dims);
  EXPECT_TRUE(close(out, {tensor({2}, {12, 34})})) << show(out);
}

// ---------------------------------------------------------------------------
// random_normal

TEST(InterpreterTest, RandomNormalIsDeterministic) {
  const Tensor a = random_normal({3, 4}, 42, 0);
  const Tensor b = random_normal({3, 4}, 42, 0);
  EXPECT_EQ(a.shape, (std::vector<int64_t>{3, 4}));
  ASSERT_EQ(a.data.size(), 12u);
  EXPECT_EQ(a.data, b.data) << "same seed and index:\n  " << show(a) << "\n  " << show(b);

  const Tensor other_index = random_normal({3, 4}, 42, 1);
  const Tensor other_seed = random_normal({3, 4}, 43, 0);
  const Tensor high_seed = random_normal({3, 4}, 42 + (uint64_t{1} << 32), 0);
  EXPECT_NE(a.data, other_index.data) << "a different index must give different values";
  EXPECT_NE(a.data, other_seed.data) << "a different seed must give different values";
  EXPECT_NE(a.data, high_seed.data) << "the seed's high bits must matter";

  // The values are a prefix of a longer draw: the shape does not reseed.
  const Tensor longer = random_normal({20}, 42, 0);
  EXPECT_EQ(std::vector<double>(longer.data.begin(), longer.data.begin() + 12), a.data);

  EXPECT_EQ(random_normal({}, 1, 0).data.size(), 1u);
  EXPECT_TRUE(random_normal({0, 5}, 1, 0).data.empty());
}

TEST(InterpreterTest, RandomNormalLooksStandardNormal) {
  const Tensor t = random_normal({100000}, 7, 3);
  double sum = 0, sum_sq = 0;
  for (double x : t.data) {
    ASSERT_TRUE(std::isfinite(x));
    sum += x;
    sum_sq += x * x;
  }
  const double mean = sum / t.data.size();
  const double variance = sum_sq / t.data.size() - mean * mean;
  EXPECT_NEAR(mean, 0.0, 0.02);
  EXPECT_NEAR(variance, 1.0, 0.03);
}

// ---------------------------------------------------------------------------
// Errors that depend on the sizes

struct RunErrorRow {
  std::string input;
  std::string body;
  ir::Dims dims;
  std::vector<Tensor> inputs;
  std::string expected;  // a substring of UserError::format()
};

TEST(InterpreterTest, SizeDependentErrorsAreUserErrors) {
  const Tensor four = tensor({4}, {1, 2, 3, 4});
  const std::vector<RunErrorRow> rows = {
      {"slice stop past the end",
       "def f(x: \"f32[M]\"):\n    return x[2:x.shape[0] + 1]\n",
       {{"M", 4}},
       {four},
       "t.py:3:13: error: slice reads outside axis 0 of size 4"},
      {"slice start past the end",
       "def f(x: \"f32[M]\"):\n    return x[x.shape[0]:x.shape[0] + 2]\n",
       {{"M", 4}},
       {four},
       "t.py:3:13: error: slice reads outside axis 0 of size 4"},
      {"index at the size",
       "def f(x: \"f32[M]\"):\n    return x[x.shape[0]]\n",
       {{"M", 4}},
       {four},
       "t.py:3:13: error: slice reads outside axis 0 of size 4"},
      {"reversed slice from past the end",
       "def f(x: \"f32[M]\"):\n    n = x.shape[0]\n    return x[n:0:-1]\n",
       {{"M", 4}},
       {four},
       "t.py:4:13: error: slice reads outside axis 0 of size 4"},
      {"slice longer than the axis",
       "def f(x: \"f32[M]\"):\n    return x[5:]\n",
       {{"M", 4}},
       {four},
       "error: dimension M - 5 is negative (-1) at these sizes"},
      {"max over an empty axis",
       "def f(x: \"f32[M]\"):\n    return x[4:].max()\n",
       {{"M", 4}},
       {four},
       "t.py:3:21: error: max over axis 0 of length 0 has no identity"},
  };
  for (const RunErrorRow& row : rows) {
    std::string actual;
    try {
      ir::Program p = compile(kImport + row.body);
      actual = show(evaluate(p.kernel, row.inputs, row.dims));
    } catch (const UserError& e) {
      actual = e.format();
    } catch (const std::exception& e) {
      actual = std::string("unexpected exception: ") + e.what();
    }
    EXPECT_NE(actual.find(row.expected), std::string::npos)
        << "input:    " << row.input << "\n"
        << row.body << "  expected: " << row.expected << "\n  actual:   " << actual;
  }
}

// An empty sum is 0 (its identity), unlike an empty max.
TEST(InterpreterTest, EmptySumIsZero) {
  const ir::Program p = compile(kImport + "def f(x: \"f32[M]\"):\n    return x[4:].sum()\n");
  const std::vector<Tensor> out = evaluate(p.kernel, {tensor({4}, {1, 2, 3, 4})}, {{"M", 4}});
  EXPECT_TRUE(close(out, {tensor({}, {0})})) << show(out);
}

// A kernel of 100000 chained nodes evaluates without deep recursion.
TEST(InterpreterTest, LongChain) {
  std::string text = kImport + "def f(x: \"f32[N]\"):\n    y = x\n";
  for (int i = 0; i < 100000; ++i) text += "    y = y + x\n";
  text += "    return y\n";
  const ir::Program p = compile(text);
  const std::vector<Tensor> out = evaluate(p.kernel, {tensor({2}, {1, -0.5})}, {{"N", 2}});
  EXPECT_TRUE(close(out, {tensor({2}, {100001, -50000.5})})) << show(out);
}

}  // namespace
}  // namespace axon::eval
