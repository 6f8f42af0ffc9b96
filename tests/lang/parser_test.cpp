// The language front end, end to end: program text -> lang::compile_source ->
// ir::Program. Accepted programs, rejected programs with their exact location
// and message, and robustness against deep nesting and random input.
#include "lang/parser.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "ir/program.h"
#include "lang/load.h"

namespace axon::lang {
namespace {

const std::string kImport = "import numpy as np\n";

std::shared_ptr<const SourceFile> source(std::string text, std::string path = "t.py") {
  return std::make_shared<const SourceFile>(SourceFile{std::move(path), std::move(text)});
}

ir::Program compile(const std::string& text, const std::optional<std::string>& entry = std::nullopt) {
  return compile_source(source(text), entry);
}

// "f32[M, N], f32[]": the kernel's result types.
std::string result_types(const ir::Program& program) {
  std::string text;
  for (size_t i = 0; i < program.kernel.outputs.size(); ++i)
    text += (i ? ", " : "") + program.kernel.outputs[i]->type().str();
  return text;
}

// The result types, or the first line of the formatted error.
std::string outcome(const std::string& text, const std::optional<std::string>& entry = std::nullopt) {
  try {
    return result_types(compile(text, entry));
  } catch (const UserError& e) {
    std::string formatted = e.format();
    return formatted.substr(0, formatted.find('\n'));
  } catch (const std::exception& e) {
    return std::string("unexpected exception: ") + e.what();
  }
}

// A source with control characters made visible, for failure messages.
std::string shown(const std::string& text, size_t limit = 600) {
  std::string out;
  for (unsigned char c : text.substr(0, limit)) {
    if (c == '\n')
      out += "\\n\n";
    else if (c == '\r')
      out += "\\r";
    else if (c == '\t')
      out += "\\t";
    else if (c < 0x20 || c >= 0x7f) {
      static const char* kHex = "0123456789abcdef";
      out += std::string("\\x") + kHex[c >> 4] + kHex[c & 15];
    } else
      out += static_cast<char>(c);
  }
  if (text.size() > limit) out += "... (" + std::to_string(text.size()) + " bytes)";
  return out;
}

// ---------------------------------------------------------------------------
// Accepted programs

struct AcceptRow {
  std::string input;
  std::string source;
  std::string expected;  // the result types
};

void check_accepted(const std::vector<AcceptRow>& rows) {
  for (const AcceptRow& row : rows) {
    const std::string actual = outcome(row.source);
    EXPECT_EQ(actual, row.expected) << "input:    " << row.input << "\n"
                                    << shown(row.source) << "\n  expected: " << row.expected
                                    << "\n  actual:   " << actual;
  }
}

TEST(ParserTest, AcceptsStatementsAndReturns) {
  check_accepted({
      {"expression return", kImport + "def f(x: \"f32[M, N]\"):\n    return x * 2 + 1\n", "f32[M, N]"},
      {"tuple return", kImport + "def f(x: \"f32[M, N]\"):\n    return x, x.sum()\n", "f32[M, N], f32[]"},
      {"parenthesized tuple return, trailing comma",
       kImport + "def f(x: \"f32[M, N]\"):\n    return (x.sum(axis=0), x.sum(axis=1),)\n", "f32[N], f32[M]"},
      {"tuple unpacking", kImport + "def f(x: \"f32[M]\", y: \"f32[N]\"):\n    a, b = y, x\n    return a, b\n",
       "f32[N], f32[M]"},
      {"list unpacking", kImport + "def f(x: \"f32[M]\", y: \"f32[N]\"):\n    [a, b] = [y, x]\n    return b\n",
       "f32[M]"},
      {"chained assignment", kImport + "def f(x: \"f32[M]\"):\n    a = b = x + 1\n    return a * b\n", "f32[M]"},
      {"augmented assignment", kImport + "def f(x: \"f32[M]\"):\n    y = x\n    y += 1\n    y *= x\n    return y\n",
       "f32[M]"},
      {"semicolons and pass", kImport + "def f(x: \"f32[M]\"):\n    pass; y = x; z = y\n    return z\n", "f32[M]"},
      {"one-line body", kImport + "def f(x: \"f32[M]\"): return -x\n", "f32[M]"},
      {"scalar parameter", kImport + "def f(s: \"f32[]\", x: \"f16[4]\"):\n    return x * s\n", "f32[4]"},
      {"constant dims", kImport + "def f(x: \"bf16[2, 3]\"):\n    return x + 1.0\n", "bf16[2, 3]"},
      {"dtype f16 kept", kImport + "def f(x: \"f16[M]\"):\n    return np.exp(x) * 0.5\n", "f16[M]"},
      {"mixed f16 and bf16", kImport + "def f(x: \"f16[M]\", y: \"bf16[M]\"):\n    return x * y\n", "f32[M]"},
      {"import numpy without alias", "import numpy\ndef f(x: \"f32[M]\"):\n    return numpy.exp(x)\n", "f32[M]"},
      {"import numpy under another name", "import numpy as jnp\ndef f(x: \"f32[M]\"):\n    return jnp.exp(x)\n",
       "f32[M]"},
      {"module-level constant", kImport + "EPS = 1e-6\ndef f(x: \"f32[M]\"):\n    return x + EPS\n", "f32[M]"},
      {"annotation with trailing comma and spaces", kImport + "def f(x: \" f32 [ M , N , ]\"):\n    return x\n",
       "f32[M, N]"},
      {"return annotation", kImport + "def f(x: \"f32[M, N]\") -> \"f32[N, M]\":\n    return x.T\n", "f32[N, M]"},
      {"tuple return annotation",
       kImport + "def f(x: \"f32[M, N]\") -> (\"f32[M]\", \"f32[N]\"):\n    return x.sum(axis=1), x.sum(axis=0)\n",
       "f32[M], f32[N]"},
      {"scalar return annotation", kImport + "def f(x: \"f32[M]\") -> \"f32[]\":\n    return x.max()\n", "f32[]"},
      {"pi and e fold", kImport + "def f(x: \"f32[M]\"):\n    return x * np.sqrt(2 / np.pi) + np.log(np.e)\n",
       "f32[M]"},
      {"power with constant exponent", kImport + "def f(x: \"f32[M]\"):\n    return x ** 2 + x ** -0.5 + 2 ** 3\n",
       "f32[M]"},
      {"unary forms", kImport + "def f(x: \"f32[M]\"):\n    return -x + +x - -1\n", "f32[M]"},
      {"comparison in where", kImport + "def f(x: \"f32[M]\"):\n    return np.where(x > 0, x, 0.01 * x)\n", "f32[M]"},
      {"comparisons as numbers",
       kImport + "def f(x: \"f32[M]\"):\n    return x * (x > 0) + (x < 1) * 1.0 + (x == 0).sum()\n", "f32[M]"},
      {"a comparison returned", kImport + "def f(x: \"f32[M]\"):\n    return x > 0\n", "f32[M]"},
      {"masks combined",
       kImport +
           "def f(x: \"f32[M]\", y: \"f32[M]\"):\n    m = (x > 0) & ~(y > 0) | ((x - y) > 1)\n"
           "    m |= np.logical_xor(x, y)\n    return np.where(m, x, y) + np.logical_or(x, 0) * np.logical_not(m)\n",
       "f32[M]"},
      {"where on a tensor and on a number",
       kImport + "def f(x: \"f32[M]\"):\n    return np.where(x, x, 0.0) + np.where(True, x, 1.0)\n", "f32[M]"},
      {"infinities",
       kImport + "import math\ndef f(x: \"f32[M]\"):\n"
                 "    return np.where(x > 0, x, -np.inf) + np.where(x < 0, float(\"-inf\"), math.inf) + "
                 "float(\"Infinity\")\n",
       "f32[M]"},
      {"arange and causal masks",
       kImport + "def f(x: \"f32[S, T]\"):\n    s, t = x.shape\n"
                 "    c = np.arange(s)[:, None] >= np.arange(t)[None, :]\n    return np.where(c, x, 0.0) + "
                 "np.arange(2, t + 2)\n",
       "f32[S, T]"},
      {"tri, tril, triu, ones, zeros, full",
       kImport +
           "def f(x: \"f32[S, S]\"):\n    s = x.shape[0]\n"
           "    a = np.tril(x) + np.triu(x, k=1) + np.tri(s) + np.tri(s, s, -1, dtype=bool)\n"
           "    return a * np.ones((s, s)) + np.zeros_like(x) + np.full((s, 1), 2.0) + np.ones(s, dtype=np.float32)\n",
       "f32[S, S]"},
      {"boolean dtypes",
       kImport + "def f(x: \"f32[S, S]\"):\n    m = np.tril(np.ones(x.shape, dtype=bool))\n"
                 "    return np.where(~m, x, 0.0) + x.astype(bool) + (x > 0).astype(np.float32)\n",
       "f32[S, S]"},
      {"where with a scalar on the left", kImport + "def f(x: \"f32[M]\"):\n    return np.where(0.5 <= x, 1.0, x)\n",
       "f32[M]"},
      {"maximum, minimum, square, abs",
       kImport + "def f(x: \"f32[M]\"):\n    return np.maximum(x, 0) + np.minimum(x, 1) + np.square(x) + np.abs(x)\n",
       "f32[M]"},
      {"reciprocal, tanh, negative",
       kImport + "def f(x: \"f32[M]\"):\n    return np.reciprocal(x) + np.tanh(x) + np.negative(x)\n", "f32[M]"},
      {"concatenate",
       kImport + "def f(x: \"f32[M, 3]\", y: \"f32[M, 4]\"):\n    return np.concatenate((x, y), axis=-1)\n",
       "f32[M, 7]"},
      {"concatenate along axis 0 by default",
       kImport + "def f(x: \"f32[M, 3]\", y: \"f32[N, 3]\"):\n    return np.concatenate([x, y])\n", "f32[M + N, 3]"},
      {"broadcast_to with sizes",
       kImport + "def f(x: \"f32[N]\", y: \"f32[M, N]\"):\n    return np.broadcast_to(x, y.shape)\n", "f32[M, N]"},
      {"broadcast_to with a tuple of sizes",
       kImport + "def f(x: \"f32[N]\", y: \"f32[M, N]\"):\n    return np.broadcast_to(x, (y.shape[0], x.shape[0]))\n",
       "f32[M, N]"},
      {"matmul operator", kImport + "def f(x: \"f32[M, K]\", w: \"f32[K, N]\"):\n    return x @ w\n", "f32[M, N]"},
      {"np.matmul, vector on the left",
       kImport + "def f(v: \"f32[K]\", w: \"f32[K, N]\"):\n    return np.matmul(v, w)\n", "f32[N]"},
      {"matmul vector by vector", kImport + "def f(v: \"f32[K]\", w: \"f32[K]\"):\n    return v @ w\n", "f32[]"},
      {"batched matmul broadcasting",
       kImport + "def f(a: \"f32[B, 1, M, K]\", b: \"f32[H, K, N]\"):\n    return a @ b\n", "f32[B, H, M, N]"},
      {"matmul batch by matrix", kImport + "def f(a: \"f32[B, M, K]\", w: \"f32[K, N]\"):\n    return a @ w\n",
       "f32[B, M, N]"},
  });
}

TEST(ParserTest, AcceptsShapeArithmeticAndSlicing) {
  check_accepted({
      {"x.shape[i] in reshape", kImport + "def f(x: \"f32[M, N]\"):\n    return x.reshape(x.shape[0] * x.shape[1])\n",
       "f32[M*N]"},
      {"x.shape[-1] // 2 as a bound",
       kImport + "def f(x: \"f32[M, N]\"):\n    half = x.shape[-1] // 2\n    return x[:, :half], x[:, half:]\n",
       "f32[M, N//2], f32[M, N - N//2]"},
      {"size as a scalar operand", kImport + "def f(x: \"f32[M, N]\"):\n    return x / x.shape[1] + x.shape[0] * 2\n",
       "f32[M, N]"},
      {"size arithmetic",
       kImport + "def f(x: \"f32[M, N]\"):\n    n = (x.shape[0] + 1) * 2 - x.shape[0]\n    return x * n\n",
       "f32[M, N]"},
      {"ndim and size", kImport + "def f(x: \"f32[M, N]\"):\n    return x.reshape(x.size) * x.ndim\n", "f32[M*N]"},
      {"reshape with -1", kImport + "def f(x: \"f32[M, N, K]\"):\n    return x.reshape(-1, x.shape[2])\n",
       "f32[M*N, K]"},
      {"reshape with a tuple", kImport + "def f(x: \"f32[M, N]\"):\n    return x.reshape((x.shape[1], x.shape[0]))\n",
       "f32[N, M]"},
      {"np.reshape", kImport + "def f(x: \"f32[6]\"):\n    return np.reshape(x, (2, 3))\n", "f32[2, 3]"},
      {"step slices", kImport + "def f(x: \"f32[M, 12]\"):\n    return x[:, ::3], x[:, 1::3], x[:, 2:10:2]\n",
       "f32[M, 4], f32[M, 4], f32[M, 4]"},
      {"negative bounds on constant dims", kImport + "def f(x: \"f32[M, 12]\"):\n    return x[:, -4:], x[:, -5:-1]\n",
       "f32[M, 4], f32[M, 4]"},
      {"negative bounds on symbolic dims", kImport + "def f(x: \"f32[M, N]\"):\n    return x[1:-1], x[:, :-2]\n",
       "f32[M - 2, N], f32[M, N - 2]"},
      {"reversed", kImport + "def f(x: \"f32[M, 8]\"):\n    return x[::-1], x[:, ::-2], x[:, 6:1:-2]\n",
       "f32[M, 8], f32[M, 4], f32[M, 3]"},
      {"clipped constant bounds", kImport + "def f(x: \"f32[8]\"):\n    return x[5:100], x[-100:2], x[10:2:-2]\n",
       "f32[3], f32[2], f32[3]"},
      {"empty constant slice", kImport + "def f(x: \"f32[8]\"):\n    return x[5:2]\n", "f32[0]"},
      {"integer index drops an axis", kImport + "def f(x: \"f32[M, N, 3]\"):\n    return x[0], x[:, -1], x[..., 2]\n",
       "f32[N, 3], f32[M, 3], f32[M, N]"},
      {"None adds an axis", kImport + "def f(x: \"f32[M, N]\"):\n    return x[None], x[:, None], x[..., None]\n",
       "f32[1, M, N], f32[M, 1, N], f32[M, N, 1]"},
      {"Ellipsis in the middle", kImport + "def f(x: \"f32[A, B, C, D]\"):\n    return x[0, ..., 1:]\n",
       "f32[B, C, D - 1]"},
      {"full slice is a no-op", kImport + "def f(x: \"f32[M, N]\"):\n    return x[:, :], x[...]\n",
       "f32[M, N], f32[M, N]"},
  });
}

TEST(ParserTest, AcceptsMethodsAndReductions) {
  check_accepted({
      {"sum with axis and keepdims", kImport + "def f(x: \"f32[M, N]\"):\n    return x.sum(axis=-1, keepdims=True)\n",
       "f32[M, 1]"},
      {"np.sum positional axis", kImport + "def f(x: \"f32[M, N]\"):\n    return np.sum(x, 0)\n", "f32[N]"},
      {"np.sum keyword array", kImport + "def f(x: \"f32[M, N]\"):\n    return np.sum(a=x, axis=1)\n", "f32[M]"},
      {"axis tuple", kImport + "def f(x: \"f32[M, N, K]\"):\n    return x.max(axis=(0, 2)), np.min(x, axis=(-1, 0))\n",
       "f32[N], f32[N]"},
      {"axis=None", kImport + "def f(x: \"f32[M, N]\"):\n    return x.min(axis=None, keepdims=True)\n", "f32[1, 1]"},
      {"mean", kImport + "def f(x: \"f32[M, N]\"):\n    return x.mean(axis=0), np.mean(x)\n", "f32[N], f32[]"},
      {"amax and amin", kImport + "def f(x: \"f32[M, N]\"):\n    return np.amax(x, axis=1) - np.amin(x, axis=1)\n",
       "f32[M]"},
      {"cumsum with an axis", kImport + "def f(x: \"f32[M, N]\"):\n    return x.cumsum(axis=1), np.cumsum(x, 0)\n",
       "f32[M, N], f32[M, N]"},
      {"cumsum flattens without an axis", kImport + "def f(x: \"f32[M, N]\"):\n    return np.cumsum(x)\n", "f32[M*N]"},
      {"transpose forms",
       kImport +
           "def f(x: \"f32[A, B, C]\"):\n    return x.T, x.transpose(), x.transpose(1, 0, 2), x.transpose((2, 0, 1)), "
           "np.transpose(x, (0, 2, 1))\n",
       "f32[C, B, A], f32[C, B, A], f32[B, A, C], f32[C, A, B], f32[A, C, B]"},
      {"swapaxes", kImport + "def f(x: \"f32[A, B, C]\"):\n    return x.swapaxes(0, -1), np.swapaxes(x, 1, 2)\n",
       "f32[C, B, A], f32[A, C, B]"},
      {"method on an expression", kImport + "def f(x: \"f32[M, N]\"):\n    return (x * x).sum(axis=1).max()\n",
       "f32[]"},
  });
}

TEST(ParserTest, AcceptsEinsumForms) {
  check_accepted({
      {"explicit matmul",
       kImport + "def f(a: \"f32[M, K]\", b: \"f32[K, N]\"):\n    return np.einsum(\"ij,jk->ik\", a, b)\n",
       "f32[M, N]"},
      {"implicit output",
       kImport + "def f(a: \"f32[M, K]\", b: \"f32[K, N]\"):\n    return np.einsum(\"ij,jk\", a, b)\n", "f32[M, N]"},
      {"implicit output is alphabetical", kImport + "def f(a: \"f32[M, N]\"):\n    return np.einsum(\"ji\", a)\n",
       "f32[N, M]"},
      {"spaces in the spec",
       kImport + "def f(a: \"f32[M, K]\", b: \"f32[K, N]\"):\n    return np.einsum('ij, jk -> ki', a, b)\n",
       "f32[N, M]"},
      {"trace", kImport + "def f(a: \"f32[N, N]\"):\n    return np.einsum(\"aa->\", a), np.einsum(\"ii\", a)\n",
       "f32[], f32[]"},
      {"diagonal", kImport + "def f(a: \"f32[N, N]\"):\n    return np.einsum(\"aa->a\", a)\n", "f32[N]"},
      {"full sum", kImport + "def f(a: \"f32[M, N]\"):\n    return np.einsum(\"ab->\", a)\n", "f32[]"},
      {"outer product", kImport + "def f(a: \"f32[M]\", b: \"f32[N]\"):\n    return np.einsum(\"i,j->ij\", a, b)\n",
       "f32[M, N]"},
      {"three operands",
       kImport + "def f(a: \"f32[M, K]\", b: \"f32[K, N]\", c: \"f32[N, P]\"):\n    return np.einsum(\"ab,bc,cd->ad\", "
                 "a, b, c)\n",
       "f32[M, P]"},
      {"batched",
       kImport + "def f(a: \"f32[B, M, K]\", b: \"f32[B, K, N]\"):\n    return np.einsum(\"bmk,bkn->bmn\", a, b)\n",
       "f32[B, M, N]"},
      {"ellipsis",
       kImport + "def f(a: \"f32[B, H, M, K]\", w: \"f32[K, N]\"):\n    return np.einsum(\"...k,kn->...n\", a, w)\n",
       "f32[B, H, M, N]"},
      {"upper-case labels",
       kImport + "def f(a: \"f32[M, K]\", b: \"f32[K, N]\"):\n    return np.einsum(\"MK,KN->NM\", a, b)\n",
       "f32[N, M]"},
  });
}

TEST(ParserTest, AcceptsLexicalForms) {
  check_accepted({
      {"comments everywhere",
       "# header\nimport numpy as np  # numpy\n\n# between\ndef f(x: \"f32[M]\"):  # def\n    # inside\n    y = x  # "
       "trailing\n\n    # blank lines and comments do not end the block\n    return y\n# end",
       "f32[M]"},
      {"module and function docstrings",
       "\"\"\"Module docstring,\nover lines.\"\"\"\nimport numpy as np\ndef f(x: \"f32[M]\"):\n    '''Function\n    "
       "docstring.'''\n    \"another string statement\"\n    return x\n",
       "f32[M]"},
      {"line continuation", kImport + "def f(x: \"f32[M]\"):\n    y = x + \\\n        1\n    return y\n", "f32[M]"},
      {"continuation inside brackets", kImport + "def f(x: \"f32[M]\",\n      y: \"f32[M]\"):\n    return (x +\n  y)\n",
       "f32[M]"},
      {"single-quoted annotations", kImport + "def f(x: 'f32[M]') -> 'f32[M]':\n    return x\n", "f32[M]"},
      {"mixed quotes in one program",
       kImport + "def f(x: \"f32[M, K]\", w: 'f32[K, N]'):\n    return np.einsum('ik,kn->in', x, w)\n", "f32[M, N]"},
      {"triple-quoted annotation", kImport + "def f(x: \"\"\"f32[M]\"\"\"):\n    return x\n", "f32[M]"},
      {"raw string annotation", kImport + "def f(x: r\"f32[M]\"):\n    return x\n", "f32[M]"},
      {"implicitly concatenated strings", kImport + "def f(x: \"f32\" \"[M]\"):\n    return x\n", "f32[M]"},
      {"escaped quote in a docstring", kImport + "def f(x: \"f32[M]\"):\n    \"a \\\"quoted\\\" word\"\n    return x\n",
       "f32[M]"},
      {"CRLF line endings",
       "import numpy as np\r\n\r\ndef f(x: \"f32[M]\"):\r\n    y = x + \\\r\n        1\r\n    return y\r\n", "f32[M]"},
      {"tabs used consistently", "import numpy as np\ndef f(x: \"f32[M]\"):\n\ty = x\n\treturn y * 2\n", "f32[M]"},
      {"tab after spaces used consistently", "import numpy as np\ndef f(x: \"f32[M]\"):\n  \ty = x\n  \treturn y * 2\n",
       "f32[M]"},
      {"no newline at end of file", kImport + "def f(x: \"f32[M]\"):\n    return x", "f32[M]"},
      {"numbers with underscores and exponents",
       kImport + "def f(x: \"f32[M]\"):\n    return x * 1_000 + 1e-3 + .5 + 2.\n", "f32[M]"},
      {"True and False as keepdims", kImport + "def f(x: \"f32[M]\"):\n    return x.sum(keepdims=False)\n", "f32[]"},
      {"form feed in indentation", kImport + "def f(x: \"f32[M]\"):\n\f    return x\n", "f32[M]"},
  });
}

TEST(ParserTest, AcceptsHelpers) {
  check_accepted({
      {"helper with defaults and keywords",
       kImport + "def affine(x, w, b=0.0, scale=1.0):\n    return (x @ w) * scale + b\n"
                 "def f(x: \"f32[M, K]\", w: \"f32[K, N]\", b: \"f32[N]\"):\n"
                 "    return affine(x, w, b, 0.5) + affine(x, w=w) + affine(b=b, w=w, x=x)\n",
       "f32[M, N]"},
      {"helper returning a tuple",
       kImport + "def stats(x):\n    return x.mean(axis=-1), x.max(axis=-1)\n"
                 "def f(x: \"f32[M, N]\"):\n    mu, mx = stats(x)\n    return mu - mx\n",
       "f32[M]"},
      {"helper calling a helper defined later",
       kImport + "def outer(x):\n    return inner(x) * 2\ndef inner(x):\n    return x + 1\n"
                 "def f(x: \"f32[M]\"):\n    return outer(x)\n",
       "f32[M]"},
      {"helper with an annotation that fits",
       kImport + "def g(a: \"f32[M, 4]\"):\n    return a * 2\ndef f(x: \"f32[N, 4]\"):\n    return g(x)\n",
       "f32[N, 4]"},
      {"helper taking a size",
       kImport + "def take(x, n):\n    return x[:n]\ndef f(x: \"f32[M]\"):\n    return take(x, x.shape[0] // 2)\n",
       "f32[M//2]"},
      {"helper with a number default from a global",
       kImport + "EPS = 1e-5\ndef norm(x, eps=EPS):\n    return x / np.sqrt((x * x).mean() + eps)\n"
                 "def f(x: \"f32[M]\"):\n    return norm(x)\n",
       "f32[M]"},
  });
}

TEST(ParserTest, AcceptsSplitStackPadAndUnitAxes) {
  check_accepted({
      {"np.split into three equal parts of a product",
       kImport + "def f(x: \"f32[S, 3*D]\"):\n    return np.split(x, 3, axis=-1)\n", "f32[S, D], f32[S, D], f32[S, D]"},
      {"np.split unpacked", kImport + "def f(x: \"f32[M, 4]\"):\n    a, b = np.split(x, 2, axis=1)\n    return b, a\n",
       "f32[M, 2], f32[M, 2]"},
      {"np.split at indices", kImport + "def f(x: \"f32[M, 6]\"):\n    return np.split(x, [1, 3], axis=1)\n",
       "f32[M, 1], f32[M, 2], f32[M, 3]"},
      {"np.split along axis 0 by default", kImport + "def f(x: \"f32[2*M, N]\"):\n    return np.split(x, 2)\n",
       "f32[M, N], f32[M, N]"},
      {"np.array_split unequal, constant", kImport + "def f(x: \"f32[M, 7]\"):\n    return np.array_split(x, 3, axis=1)\n",
       "f32[M, 3], f32[M, 2], f32[M, 2]"},
      {"np.array_split unequal, symbolic", kImport + "def f(x: \"f32[N]\"):\n    return np.array_split(x, 2)\n",
       "f32[(N + 1)//2], f32[-(N + 1)//2 + N]"},
      {"np.stack axes", kImport + "def f(x: \"f32[M, N]\", y: \"f32[M, N]\"):\n    return np.stack([x, y]), "
                                  "np.stack((x, y), axis=1), np.stack([x, y, x], axis=-1)\n",
       "f32[2, M, N], f32[M, 2, N], f32[M, N, 3]"},
      {"np.hstack of matrices and of vectors",
       kImport + "def f(x: \"f32[M, 3]\", y: \"f32[M, 4]\", v: \"f32[N]\"):\n    return np.hstack([x, y]), np.hstack((v, v))\n",
       "f32[M, 7], f32[2*N]"},
      {"np.vstack makes vectors rows", kImport + "def f(x: \"f32[M, N]\", v: \"f32[N]\"):\n    return np.vstack([v, x])\n",
       "f32[M + 1, N]"},
      {"squeeze forms", kImport + "def f(x: \"f32[1, M, 1]\"):\n    return x.squeeze(), np.squeeze(x, axis=0), x.squeeze((0, -1))\n",
       "f32[M], f32[M, 1], f32[M]"},
      {"np.expand_dims forms",
       kImport + "def f(x: \"f32[M, N]\"):\n    return np.expand_dims(x, 0), np.expand_dims(x, axis=(0, 3)), np.expand_dims(x, -1)\n",
       "f32[1, M, N], f32[1, M, N, 1], f32[M, N, 1]"},
      {"flatten and ravel", kImport + "def f(x: \"f32[M, N, 2]\"):\n    return x.flatten(), x.ravel(), np.ravel(x)\n",
       "f32[2*M*N], f32[2*M*N], f32[2*M*N]"},
      {"x.mT", kImport + "def f(x: \"f32[B, M, N]\"):\n    return x.mT\n", "f32[B, N, M]"},
      {"keepdims=1", kImport + "def f(x: \"f32[M, N]\"):\n    return x.sum(axis=1, keepdims=1), np.max(x, 0, keepdims=0)\n",
       "f32[M, 1], f32[N]"},
      {"ufunc reduce", kImport + "def f(x: \"f32[M, N]\"):\n    return np.add.reduce(x), np.maximum.reduce(x, axis=-1, keepdims=1), "
                                 "np.minimum.reduce(x, axis=None)\n",
       "f32[N], f32[M, 1], f32[]"},
      {"products over constant axes", kImport + "def f(x: \"f32[M, 3]\", y: \"f32[2, 3]\"):\n"
                                                "    return np.multiply.reduce(x, axis=1), np.prod(y), y.prod(axis=0, keepdims=True)\n",
       "f32[M], f32[], f32[1, 3]"},
      {"constant np.pad", kImport + "def f(x: \"f32[M, N]\"):\n    return np.pad(x, ((0, 0), (1, 2))), np.pad(x, 1), "
                                    "np.pad(x, (1, 2), constant_values=-1.0), np.pad(x, ((2, 0),), mode=\"constant\")\n",
       "f32[M, N + 3], f32[M + 2, N + 2], f32[M + 3, N + 3], f32[M + 2, N + 2]"},
      {"C // H where C is declared H*D",
       kImport + "def f(x: \"f32[T, H*D]\", s: \"f32[H]\"):\n    t, c = x.shape\n    h = s.shape[0]\n"
                 "    return x.reshape(t, h, c // h)\n",
       "f32[T, H, D]"},
  });
}

// The IR of two programs that mean the same thing, printed: each compile has its
// own graph, so the text (not the node pointers) is what can be compared.
struct SameIrRow {
  std::string input;
  std::string first;
  std::string second;
};

std::string ir_text(const std::string& text) {
  try {
    return ir::print_function(compile(text).kernel);
  } catch (const UserError& e) {
    return "error: " + e.format();
  }
}

TEST(ParserTest, EquivalentFormsGiveTheSameIr) {
  const std::string sig = kImport + "def f(x: \"f32[M, N]\", w: \"f32[N, K]\"):\n";
  const std::vector<SameIrRow> rows = {
      {"helper inlined",
       kImport + "def sq(a):\n    return a * a\ndef f(x: \"f32[M, N]\", w: \"f32[N, K]\"):\n    return sq(x) + 1\n",
       sig + "    return x * x + 1\n"},
      {"helper with defaults and keywords inlined",
       kImport + "def affine(x, w, b=0.0, scale=1.0):\n    return (x @ w) * scale + b\n" +
           "def f(x: \"f32[M, N]\", w: \"f32[N, K]\"):\n"
           "    return affine(x, w, scale=2.0) - affine(w=w, x=x)\n",
       sig + "    return ((x @ w) * 2.0 + 0.0) - ((x @ w) * 1.0 + 0.0)\n"},
      {"nested helpers returning tuples inlined",
       kImport + "def moments(x):\n    mu = x.mean(axis=-1, keepdims=True)\n    return mu, ((x - mu) ** "
                 "2).mean(axis=-1, keepdims=True)\n"
                 "def standardize(x, eps=1e-5):\n    mu, var = moments(x)\n    return (x - mu) / np.sqrt(var + eps)\n"
                 "def f(x: \"f32[M, N]\", w: \"f32[N, K]\"):\n    return standardize(x) @ w\n",
       sig + "    mu = x.mean(axis=-1, keepdims=True)\n    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)\n"
             "    return ((x - mu) / np.sqrt(var + 1e-5)) @ w\n"},
      {"x.T, np.transpose, x.transpose()", sig + "    return x.T + np.transpose(x)\n",
       sig + "    return x.transpose() + x.transpose(1, 0)\n"},
      {"sum spellings", sig + "    return x.sum(axis=1) + np.sum(x, 1)\n",
       sig + "    return np.sum(x, axis=(1,)) + x.sum(axis=-1)\n"},
      {"matmul spellings", sig + "    return x @ w\n", sig + "    return np.einsum(\"mn,nk->mk\", x, w)\n"},
      {"np.matmul and @", sig + "    return np.matmul(x, w)\n", sig + "    return x @ w\n"},
      {"mean is sum over count", sig + "    return x.mean(axis=0)\n", sig + "    return x.sum(axis=0) / x.shape[0]\n"},
      {"square is a product", sig + "    return np.square(x)\n", sig + "    return x * x\n"},
      {"Ellipsis and full slices", sig + "    return x[..., 0]\n", sig + "    return x[:, 0]\n"},
      {"numbers fold", sig + "    return x * (2 * 3 + 1)\n", sig + "    return x * 7.0\n"},
      {"CRLF and LF",
       "import numpy as np\r\ndef f(x: \"f32[M, N]\", w: \"f32[N, K]\"):\r\n    y = x * 2\r\n    return y @ w\r\n",
       sig + "    y = x * 2\n    return y @ w\n"},
      {"tabs and spaces",
       "import numpy as np\ndef f(x: \"f32[M, N]\", w: \"f32[N, K]\"):\n\ty = x * 2\n\treturn y @ w\n",
       sig + "    y = x * 2\n    return y @ w\n"},
      {"line continuation", sig + "    return x \\\n        @ w\n", sig + "    return x @ w\n"},
      {"comments and docstrings", sig + "    \"\"\"Doc.\"\"\"\n    # comment\n    return x @ w  # trailing\n",
       sig + "    return x @ w\n"},
      {"if on a constant: only the branch taken is built",
       sig + "    if 2 > 1:\n        y = x * 2\n    else:\n        y = np.log(x)\n    return y @ w\n",
       sig + "    return (x * 2) @ w\n"},
      {"elif chain on a constant size difference",
       sig + "    if x.shape[1] == w.shape[0] + 1:\n        return x\n    elif x.shape[1] == w.shape[0]:\n"
             "        return x @ w\n    return w\n",
       sig + "    return x @ w\n"},
      {"return inside a branch ends the kernel", sig + "    if True:\n        return x @ w\n    return x\n",
       sig + "    return x @ w\n"},
      {"conditional expression", sig + "    k = 3 if x.ndim == 2 else 4\n    return (x @ w) * k\n",
       sig + "    return (x @ w) * 3\n"},
      {"and, or, not, is None",
       sig + "    b = None\n    s = 2.0 if (b is None and not False) or 1 > 2 else 1.0\n"
             "    t = b if b is not None else 0.5\n    return (x @ w) * s + t\n",
       sig + "    return (x @ w) * 2.0 + 0.5\n"},
      {"local annotations", sig + "    y: \"f32[M, K]\" = x @ w\n    z: np.ndarray = y * 2\n    return z\n",
       sig + "    return (x @ w) * 2\n"},
      {"np.var and np.std (ddof=0)",
       sig + "    return np.std(x, axis=1, keepdims=True) + x.var(axis=-1, keepdims=True)\n",
       sig + "    m = np.mean(x, axis=1, keepdims=True)\n    v = np.mean((x - m) * (x - m), axis=1, keepdims=True)\n"
             "    return np.sqrt(v) + v\n"},
      {"np.clip", sig + "    return np.clip(x, -1.0, 2.0) + x.clip(None, 3)\n",
       sig + "    return np.minimum(np.maximum(x, -1.0), 2.0) + np.minimum(x, 3)\n"},
      {"np.power with a constant exponent", sig + "    return np.power(x, 3)\n", sig + "    return x ** 3\n"},
      {"astype and np.float32 in an f32 kernel", sig + "    return x.astype(np.float32) * np.float32(0.5)\n",
       sig + "    return x * 0.5\n"},
      {"math constants and functions fold",
       "import math\n" + sig + "    return x * math.sqrt(2.0 / math.pi) + math.e + math.exp(0.0)\n",
       sig + "    return x * np.sqrt(2.0 / np.pi) + np.e + 1.0\n"},
      {"products in annotations split and merge by reshape",
       kImport + "def f(x: \"f32[S, 3*D]\", w: \"f32[H*S]\"):\n    return x.reshape(x.shape[0], 3, -1)\n",
       kImport + "def f(x: \"f32[S, 3*D]\", w: \"f32[H*S]\"):\n    return x.reshape(x.shape[0], 3, x.shape[1] // 3)\n"},
      {"lambda and nested def inlined",
       sig + "    act = lambda z, c=2.0: z * c\n    def proj(a):\n        return act(a) @ w\n    return proj(x)\n",
       sig + "    return (x * 2.0) @ w\n"},
      {"nested def closes over a local",
       sig + "    s = 3.0\n    def scaled(a):\n        return a * s\n    return scaled(x @ w)\n",
       sig + "    return (x @ w) * 3.0\n"},
      {"a comparison as a number is a select of 1 and 0", sig + "    return x * (x > 0)\n",
       sig + "    return x * np.where(x > 0, 1.0, 0.0)\n"},
      {"& is the product of masks, | their maximum, ~ one less",
       sig + "    m = (x > 0) & (x < 1) | ~(x == 2)\n    return np.where(m, x, 0.0)\n",
       sig + "    a = np.where(x > 0, 1.0, 0.0) * np.where(x < 1, 1.0, 0.0)\n"
             "    m = np.maximum(a, 1.0 - np.where(x == 2, 1.0, 0.0))\n    return np.where(m != 0, x, 0.0)\n"},
      {"logical_not of a mask is ~", sig + "    return (x @ w) * np.logical_not(x @ w > 0)\n",
       sig + "    return (x @ w) * ~(x @ w > 0)\n"},
      {"inf spellings", sig + "    return np.where(x > 0, x, -np.inf) + float(\"inf\")\n",
       sig + "    return np.where(x > 0, x, float(\"-inf\")) + np.inf\n"},
      {"tril is a select on index grids", sig + "    return np.tril(x)\n",
       sig + "    m, n = x.shape\n    return np.where(np.arange(m)[:, None] >= np.arange(n)[None, :], x, 0)\n"},
      {"triu with k", sig + "    return np.triu(x, 1)\n",
       sig + "    m, n = x.shape\n    return np.where(np.arange(m)[:, None] + 1 <= np.arange(n)[None, :], x, 0)\n"},
      {"tri is a select of 1 and 0", sig + "    return x[:, :1] * np.tri(x.shape[0])\n",
       sig + "    m = x.shape[0]\n    return x[:, :1] * np.where(np.arange(m)[:, None] >= np.arange(m)[None, :], 1.0, "
             "0.0)\n"},
      {"arange is a running count", sig + "    return x + np.arange(x.shape[1])\n",
       sig + "    return x + (np.cumsum(np.ones(x.shape[1])) - 1)\n"},
      {"np.add, np.multiply from the op table", sig + "    return np.multiply(np.add(x @ w, 1.0), 2.0)\n",
       sig + "    return ((x @ w) + 1.0) * 2.0\n"},
      {"np.split is slicing",
       kImport + "def f(x: \"f32[M, 2*D]\"):\n    a, b = np.split(x, 2, axis=-1)\n    return a * b\n",
       kImport + "def f(x: \"f32[M, 2*D]\"):\n    d = x.shape[1] // 2\n    return x[:, :d] * x[:, d:]\n"},
      {"np.stack is a concatenation along a new axis",
       sig + "    return np.stack([x, x + 1], axis=1)\n",
       sig + "    return np.concatenate([x[:, None], (x + 1)[:, None]], axis=1)\n"},
      {"np.vstack of a vector", sig + "    return np.vstack([x[0], x])\n",
       sig + "    return np.concatenate([x[0][None, :], x], axis=0)\n"},
      {"squeeze, expand_dims and flatten are reshapes",
       sig + "    return np.expand_dims(x, 1), x.flatten(), np.squeeze(x[:, None])\n",
       sig + "    return x[:, None], x.reshape(-1), x[:, None].reshape(x.shape[0], x.shape[1])\n"},
      {"x.mT swaps the last two axes", sig + "    return x.mT\n", sig + "    return np.swapaxes(x, -1, -2)\n"},
      {"keepdims=1 is keepdims=True", sig + "    return x.sum(axis=1, keepdims=1)\n",
       sig + "    return x.sum(axis=1, keepdims=True)\n"},
      {"ufunc reductions", sig + "    return np.add.reduce(x, axis=1) + np.maximum.reduce(x.T)\n",
       sig + "    return np.sum(x, axis=1) + np.max(x.T, axis=0)\n"},
      {"a product over a constant axis is unrolled",
       kImport + "def f(x: \"f32[M, 3]\"):\n    return np.multiply.reduce(x, axis=1)\n",
       kImport + "def f(x: \"f32[M, 3]\"):\n    return (x[:, 0:1] * x[:, 1:2] * x[:, 2:3]).reshape(x.shape[0])\n"},
      {"np.pad is a concatenation with constant blocks", sig + "    return np.pad(x, ((0, 0), (1, 2)))\n",
       sig + "    m = x.shape[0]\n    return np.concatenate([np.broadcast_to(0.0, (m, 1)), x, "
             "np.broadcast_to(0.0, (m, 2))], axis=1)\n"},
      {"C // H with C declared as H*D",
       kImport + "def f(x: \"f32[T, H*D]\", s: \"f32[H]\"):\n    return x.reshape(x.shape[0], s.shape[0], x.shape[1] // s.shape[0])\n",
       kImport + "def f(x: \"f32[T, H*D]\", s: \"f32[H]\"):\n    return x.reshape(x.shape[0], s.shape[0], -1)\n"},
  };
  for (const SameIrRow& row : rows) {
    const std::string expected = ir_text(row.second);
    const std::string actual = ir_text(row.first);
    EXPECT_EQ(actual, expected) << "input:    " << row.input << "\n"
                                << shown(row.first) << "\n  expected:\n"
                                << expected << "  actual:\n"
                                << actual;
    EXPECT_EQ(actual.find("error"), std::string::npos) << "input: " << row.input << "\n" << actual;
  }
}

// Each inlined call site gets its own nodes only when its arguments differ:
// a helper called twice on the same input is one node (hash-consing).
TEST(ParserTest, InlinedHelperCallsShareNodes) {
  ir::Program p = compile(kImport + "def g(a):\n    return np.exp(a)\ndef f(x: \"f32[M]\"):\n    return g(x), g(x)\n");
  ASSERT_EQ(p.kernel.outputs.size(), 2u);
  EXPECT_EQ(p.kernel.outputs[0], p.kernel.outputs[1]);
}

TEST(ParserTest, KernelMetadata) {
  const std::string text =
      "\"\"\"Doc.\"\"\"\nimport numpy as np\n\nSIZES = {\n    \"test\": {\"M\": 5, \"N\": 7},\n"
      "    'bench': {'M': 4096, 'N': 1_024},\n}\n\n"
      "def kern(x: \"f32[M, N]\", y: \"bf16[N]\") -> (\"f32[M, N]\", \"bf16[]\"):\n"
      "    return x * y, y.sum()\n";
  ir::Program p = compile(text);
  EXPECT_EQ(p.kernel.name, "kern");
  ASSERT_EQ(p.kernel.params.size(), 2u);
  EXPECT_EQ(p.kernel.params[0].name, "x");
  EXPECT_EQ(p.kernel.params[0].type.str(), "f32[M, N]");
  EXPECT_EQ(p.kernel.params[1].type.str(), "bf16[N]");
  EXPECT_EQ(p.kernel.params[1].loc.line, 9);
  EXPECT_EQ(p.kernel.params[1].loc.col, 26);
  EXPECT_EQ(p.kernel.params[1].annotation_loc.col, 29);
  EXPECT_TRUE(p.kernel.returns_tuple);
  ASSERT_TRUE(p.kernel.declared_results.has_value());
  ASSERT_EQ(p.kernel.declared_results->size(), 2u);
  EXPECT_EQ((*p.kernel.declared_results)[1].str(), "bf16[]");
  EXPECT_EQ(p.size_names(), (std::vector<std::string>{"M", "N"}));
  const std::map<std::string, ir::Dims> expected = {{"bench", {{"M", 4096}, {"N", 1024}}},
                                                    {"test", {{"M", 5}, {"N", 7}}}};
  EXPECT_EQ(p.size_presets, expected);
  EXPECT_EQ(p.source->path, "t.py");

  ir::Program single = compile(kImport + "def f(x: \"f32[M]\"):\n    return x\n");
  EXPECT_FALSE(single.kernel.returns_tuple);
  EXPECT_FALSE(single.kernel.declared_results.has_value());
  EXPECT_TRUE(single.size_presets.empty());
}

// Non-tensor parameters: fixed when the kernel is built, from the default or
// a given value; listed in the signature, so two values never print alike.
TEST(ParserTest, NonTensorParametersAreFixedWhenBuilt) {
  const std::string text = kImport +
                           "def f(x: \"f32[M]\", eps: float = 1e-5, n: int = 2, flag: bool = True, b=None, c=3):\n"
                           "    y = x * n + eps\n"
                           "    if flag:\n        y = -y\n"
                           "    return y if b is None else y * c\n";
  ir::Program p = compile(text);
  ASSERT_EQ(p.kernel.params.size(), 1u);
  ASSERT_EQ(p.kernel.settings.size(), 5u);
  std::string values;
  for (const ir::Setting& s : p.kernel.settings) values += s.name + "=" + s.value + " ";
  EXPECT_EQ(values, "eps=1e-05 n=2 flag=True b=None c=3 ");
  EXPECT_NE(ir::print_function(p.kernel).find("kernel f(x: f32[M], eps=1e-05, n=2, flag=True, b=None, c=3)"),
            std::string::npos)
      << ir::print_function(p.kernel);
  EXPECT_NE(ir::print_function(p.kernel).find("neg("), std::string::npos);

  ParamValues given = {{"eps", {"0.5", {}}}, {"n", {"3", {}}}, {"flag", {"False", {}}}, {"c", {"4", {}}}};
  ir::Program q = compile_source(source(text), std::nullopt, {}, given);
  values.clear();
  for (const ir::Setting& s : q.kernel.settings) values += s.name + "=" + s.value + " ";
  EXPECT_EQ(values, "eps=0.5 n=3 flag=False b=None c=4 ");
  EXPECT_EQ(ir::print_function(q.kernel).find("neg("), std::string::npos) << ir::print_function(q.kernel);
  EXPECT_NE(ir::print_function(p.kernel), ir::print_function(q.kernel));

  // An int default given to a float parameter is a float, as in Python.
  ir::Program r = compile(kImport + "def f(x: \"f32[M]\", s: float = 2):\n    return x * s\n");
  EXPECT_EQ(r.kernel.settings.at(0).value, "2.0");

  const std::vector<std::pair<ParamValues, std::string>> bad = {
      {{{"n", {"2.5", {}}}}, "'2.5' is not a valid int for parameter 'n'"},
      {{{"flag", {"yes", {}}}}, "'yes' is not a valid bool for parameter 'flag'"},
      {{{"eps", {"nan", {}}}}, "'nan' is not a valid float for parameter 'eps'"},
      {{{"x", {"1", {}}}}, "kernel 'f' has no non-tensor parameter named 'x'"},
  };
  for (const auto& [values_given, expected] : bad) {
    try {
      compile_source(source(text), std::nullopt, {}, values_given);
      ADD_FAILURE() << "accepted; expected: " << expected;
    } catch (const UserError& e) {
      EXPECT_NE(e.format().find(expected), std::string::npos) << e.format();
    }
  }
}

TEST(ParserTest, EntryChoosesTheKernel) {
  const std::string text = kImport +
                           "def first(x: \"f32[M]\"):\n    return x * 2\n"
                           "def helper(a):\n    return a + 1\n"
                           "def second(x: \"f32[M, N]\"):\n    return helper(x).sum(axis=0)\n";
  struct Row {
    std::optional<std::string> entry;
    std::string expected;
  };
  const std::vector<Row> rows = {
      {std::nullopt, "second: f32[N]"},
      {"second", "second: f32[N]"},
      {"first", "first: f32[M]"},
      {"helper", "t.py:4:12: error: kernel parameter 'a' needs a type annotation string such as \"f32[M, N]\""},
      {"third", "t.py:1:1: error: no function named 'third'"},
  };
  for (const Row& row : rows) {
    std::string actual;
    try {
      ir::Program p = compile(text, row.entry);
      actual = p.kernel.name + ": " + result_types(p);
    } catch (const UserError& e) {
      actual = e.format().substr(0, e.format().find('\n'));
    }
    // An error must start with the expected text; a missing entry must also list the defs.
    bool ok = actual.rfind(row.expected, 0) == 0 &&
              (row.expected.find("error") != std::string::npos || actual == row.expected);
    if (row.entry == "third") ok = ok && actual.find("first, helper, second") != std::string::npos;
    EXPECT_TRUE(ok) << "input:    entry " << row.entry.value_or("(none)") << "\n  expected: " << row.expected
                    << "\n  actual:   " << actual;
  }
}

// ---------------------------------------------------------------------------
// Rejected programs

struct RejectRow {
  std::string input;
  std::string source;
  std::string expected;  // a substring of the first line of UserError::format()
};

TEST(ParserTest, RejectsBadPrograms) {
  const std::string k = kImport;  // line 1; the def is on line 2, its body from line 3
  const std::vector<RejectRow> rows = {
      // Lexical
      {"unterminated string", k + "def f(x: \"f32[M]):\n    return x\n", "t.py:2:10: error: unterminated string"},
      {"unclosed bracket", k + "def f(x: \"f32[M]\"):\n    return (x + 1\n", "t.py:3:12: error: '(' is never closed"},
      {"mismatched bracket", k + "def f(x: \"f32[M]\"):\n    return (x + 1]\n",
       "t.py:3:18: error: closing ']' does not match '(' at line 3, column 12"},
      {"unmatched close", k + "def f(x: \"f32[M]\"):\n    return x)\n", "t.py:3:13: error: unmatched ')'"},
      {"invalid character", k + "def f(x: \"f32[M]\"):\n    return x $ 1\n", "t.py:3:14: error: invalid character '$'"},
      {"NUL byte", k + "def f(x: \"f32[M]\"):\n    return x" + std::string(1, '\0') + "\n",
       "t.py:3:13: error: file contains a NUL byte"},
      {"invalid UTF-8", k + "def f(x: \"f32[M]\"):\n    return x\xff\n", "t.py:3:13: error: file is not valid UTF-8"},
      {"hex literal", k + "def f(x: \"f32[M]\"):\n    return x + 0x10\n",
       "t.py:3:16: error: hexadecimal, octal and binary literals are not supported"},
      {"complex literal", k + "def f(x: \"f32[M]\"):\n    return x + 1j\n",
       "t.py:3:16: error: complex numbers are not supported"},
      {"exponent without digits", k + "def f(x: \"f32[M]\"):\n    return x * 1e\n",
       "t.py:3:16: error: malformed number: exponent has no digits"},
      {"bytes prefix", k + "def f(x: b\"f32[M]\"):\n    return x\n",
       "t.py:2:10: error: string prefix 'b' is not supported"},
      {"stray backslash", k + "def f(x: \"f32[M]\"):\n    return x \\ 1\n",
       "t.py:3:14: error: unexpected character after line continuation"},
      // Indentation
      {"unexpected indent", k + "def f(x: \"f32[M]\"):\n    y = x\n      return y\n",
       "t.py:4:7: error: unexpected indentation"},
      {"bad dedent", k + "def f(x: \"f32[M]\"):\n    y = x\n  return y\n",
       "t.py:4:3: error: unindent does not match any outer indentation level"},
      {"tabs and spaces mixed", k + "def f(x: \"f32[M]\"):\n        y = x\n\treturn y\n",
       "t.py:4:2: error: inconsistent use of tabs and spaces in indentation"},
      {"missing block", k + "def f(x: \"f32[M]\"):\nreturn x\n", "t.py:3:1: error: expected an indented block"},
      // Syntax
      {"for loop", k + "def f(x: \"f32[M]\"):\n    for i in x:\n        pass\n    return x\n",
       "t.py:3:5: error: 'for' loops are not supported: a kernel is a dataflow graph"},
      {"while loop", k + "def f(x: \"f32[M]\"):\n    while x:\n        pass\n    return x\n",
       "t.py:3:5: error: 'while' loops are not supported"},
      {"if on tensor data", k + "def f(x: \"f32[M]\"):\n    if x:\n        x = x\n    return x\n",
       "t.py:3:8: error: this condition depends on tensor data, which is not known when the kernel is built; "
       "choose element by element with np.where(cond, a, b)"},
      {"if on a symbolic size", k + "def f(x: \"f32[M]\"):\n    if x.shape[0] == 4:\n        x = -x\n    return x\n",
       "t.py:3:19: error: this comparison of the sizes M and 4 is not known when the kernel is built"},
      {"elif without if", k + "def f(x: \"f32[M]\"):\n    elif x:\n        x = x\n    return x\n",
       "t.py:3:5: error: 'elif' without a matching 'if'"},
      {"local annotation mismatch", k + "def f(x: \"f32[M]\"):\n    y: \"f32[M, 1]\" = x\n    return y\n",
       "t.py:3:8: error: the value is f32[M] but the annotation says f32[M, 1]"},
      {"local annotation without value", k + "def f(x: \"f32[M]\"):\n    y: \"f32[M]\"\n    return x\n",
       "t.py:3:16: error: an annotated name needs a value"},
      {"annotated non-name", k + "def f(x: \"f32[M]\"):\n    x[0]: \"f32[]\" = x\n    return x\n",
       "error: only a plain name can be annotated"},
      {"class", "class A:\n    pass\n", "t.py:1:1: error: classes are not supported"},
      {"lambda called with too many arguments", k + "def f(x: \"f32[M]\"):\n    g = lambda a: a\n    return g(x, x)\n",
       "error: <lambda>() takes 1 positional argument but 2 were given"},
      {"lambda recursion", k + "def f(x: \"f32[M]\"):\n    def g(a):\n        return g(a)\n    return g(x)\n",
       "error: recursive call to 'g'"},
      {"conditional expression on tensor data", k + "def f(x: \"f32[M]\"):\n    return x if x else x\n",
       "t.py:3:17: error: this condition depends on tensor data"},
      {"chained comparison", k + "def f(x: \"f32[M]\"):\n    return np.where(0 < x < 1, x, 0.0)\n",
       "t.py:3:27: error: chained comparisons are not supported"},
      {"boolean operator on tensors", k + "def f(x: \"f32[M]\"):\n    return x and x\n",
       "t.py:3:12: error: this condition depends on tensor data"},
      {"walrus", k + "def f(x: \"f32[M]\"):\n    return (y := x)\n", "t.py:3:15: error: expected ')', found ':='"},
      {"from import", "from numpy import exp\n", "t.py:1:1: error: 'from ... import' is not supported"},
      {"import of another module", "import torch\ndef f(x: \"f32[M]\"):\n    return x\n",
       "t.py:1:8: error: only numpy and math can be imported ('import numpy as np'), not 'torch'"},
      {"nested def sees only names defined before it",
       k + "def f(x: \"f32[M]\"):\n    def g(a):\n        return a * later\n    later = 2.0\n    return g(x)\n",
       "t.py:4:20: error: unknown name 'later'"},
      {"star parameter", k + "def f(*x):\n    return x\n", "t.py:2:7: error: '*' in a parameter list is not supported"},
      {"duplicate parameter", k + "def f(x: \"f32[M]\", x: \"f32[M]\"):\n    return x\n",
       "t.py:2:20: error: duplicate parameter 'x'"},
      {"keyword repeated", k + "def f(x: \"f32[M]\"):\n    return np.sum(x, axis=0, axis=0)\n",
       "t.py:3:30: error: keyword argument 'axis' repeated"},
      {"positional after keyword", k + "def f(x: \"f32[M]\"):\n    return np.sum(axis=0, x)\n",
       "t.py:3:27: error: positional argument follows keyword argument"},
      {"missing expression", k + "def f(x: \"f32[M]\"):\n    return x +\n",
       "t.py:3:15: error: expected an expression, found end of line"},
      // Annotations
      {"missing annotation", k + "def f(x):\n    return x\n",
       "t.py:2:7: error: kernel parameter 'x' needs a type annotation string such as \"f32[M, N]\""},
      {"int parameter without default", k + "def f(x: int):\n    return x\n",
       "t.py:2:7: error: kernel parameter 'x: int' needs a default value"},
      {"non-tensor annotation", k + "def f(x: list):\n    return x\n",
       "t.py:2:10: error: kernel parameter 'x' needs a tensor annotation string"},
      {"unknown dtype", k + "def f(x: \"f64[M]\"):\n    return x\n",
       "t.py:2:11: error: unknown dtype 'f64' in annotation \"f64[M]\" (Axon supports f32, bf16 and f16)"},
      {"zero dimension", k + "def f(x: \"f32[M, 0]\"):\n    return x\n",
       "t.py:2:18: error: dimension '0' must be a positive integer, a size name, or a product or sum of them"},
      {"empty dimension", k + "def f(x: \"f32[M,,N]\"):\n    return x\n",
       "t.py:2:17: error: empty dimension in annotation"},
      {"division in a dimension", k + "def f(x: \"f32[M//2]\"):\n    return x\n",
       "t.py:2:15: error: dimension 'M//2' must be a positive integer, a size name, or a product or sum of them"},
      {"dimension that is not positive", k + "def f(x: \"f32[2-3]\"):\n    return x\n",
       "t.py:2:15: error: dimension '2-3' must be a positive integer"},
      {"annotation without brackets", k + "def f(x: \"f32\"):\n    return x\n",
       "t.py:2:10: error: annotation \"f32\" must look like \"f32[M, N]\""},
      {"return annotation mismatch", k + "def f(x: \"f32[M, N]\") -> \"f32[N, M]\":\n    return x\n",
       "t.py:2:26: error: the kernel returns f32[M, N] but the annotation says f32[N, M]"},
      {"return annotation count", k + "def f(x: \"f32[M, N]\") -> (\"f32[M, N]\", \"f32[M, N]\"):\n    return x\n",
       "t.py:2:27: error: the return annotation declares 2 result(s) but the kernel returns 1"},
      {"return annotation not a string", k + "def f(x: \"f32[M]\") -> float:\n    return x\n",
       "t.py:2:23: error: a return annotation must be a string"},
      // Semantics
      {"no def", kImport + "x = 1\n", "t.py:1:1: error: the file defines no kernel (no 'def')"},
      {"empty file", "", "t.py:1:1: error: the file defines no kernel (no 'def')"},
      {"no return", k + "def f(x: \"f32[M]\"):\n    y = x\n", "t.py:2:5: error: kernel 'f' does not return a value"},
      {"unknown name", k + "def f(x: \"f32[M]\"):\n    return y\n", "t.py:3:12: error: unknown name 'y'"},
      {"numpy function without np.", k + "def f(x: \"f32[M]\"):\n    return exp(x)\n",
       "t.py:3:12: error: unknown name 'exp'; did you mean np.exp?"},
      {"np without import", "def f(x: \"f32[M]\"):\n    return np.exp(x)\n",
       "t.py:2:12: error: name 'np' is not defined; add 'import numpy as np'"},
      {"unsupported numpy function", k + "def f(x: \"f32[M]\"):\n    return np.fft(x)\n",
       "t.py:3:15: error: np.fft is not supported"},
      {"unsupported method", k + "def f(x: \"f32[M]\"):\n    return x.argmax()\n",
       "t.py:3:14: error: tensors have no attribute 'argmax' in Axon's NumPy subset"},
      {"astype of bf16", k + "def f(x: \"bf16[M]\"):\n    return x.astype(np.float32)\n",
       "error: .astype: converting a bf16[M] tensor to float32 is not supported yet"},
      {"np.sin", k + "def f(x: \"f32[M]\"):\n    return np.sin(x)\n",
       "t.py:3:15: error: np.sin is not supported: the prover and the targets have no sine yet"},
      {"math on a tensor", "import math\n" + k + "def f(x: \"f32[M]\"):\n    return math.exp(x)\n",
       "error: math.exp() takes a number, not a tensor f32[M]; use np.exp on tensors"},
      {"broadcast mismatch", k + "def f(x: \"f32[M]\", y: \"f32[N]\"):\n    return x + y\n",
       "t.py:3:14: error: cannot broadcast shapes f32[M] and f32[N]"},
      {"matmul mismatch", k + "def f(x: \"f32[M, K]\", y: \"f32[N, K]\"):\n    return x @ y\n",
       "t.py:3:14: error: matmul: shapes f32[M, K] and f32[N, K] do not align: K vs N"},
      {"axis out of range", k + "def f(x: \"f32[M, N]\"):\n    return x.sum(axis=2)\n",
       "t.py:3:18: error: axis 2 is out of bounds for a tensor of rank 2"},
      {"repeated axis", k + "def f(x: \"f32[M, N]\"):\n    return x.sum(axis=(1, -1))\n",
       "t.py:3:18: error: axis 1 is repeated"},
      {"reshape mismatch", k + "def f(x: \"f32[M, N]\"):\n    return x.reshape(x.shape[0], 3)\n",
       "t.py:3:21: error: cannot reshape f32[M, N] (M*N elements) to [M, 3] (3*M elements)"},
      {"einsum size mismatch",
       k + "def f(x: \"f32[M, K]\", y: \"f32[N, K]\"):\n    return np.einsum(\"ij,jk->ik\", x, y)\n",
       "t.py:3:22: error: einsum subscript 'j' has size K in f32[M, K] but N in f32[N, K]"},
      {"einsum bad label", k + "def f(x: \"f32[M, K]\"):\n    return np.einsum(\"ij1->i\", x)\n",
       "t.py:3:22: error: invalid einsum subscript '1' in 'ij1->i'"},
      {"einsum rank mismatch", k + "def f(x: \"f32[M, K]\"):\n    return np.einsum(\"ijk->i\", x)\n",
       "t.py:3:22: error: einsum subscripts 'ijk' do not fit operand 0 of shape f32[M, K]"},
      {"transpose repeated axis", k + "def f(x: \"f32[M, K]\"):\n    return x.transpose(0, 0)\n",
       "t.py:3:27: error: transpose: axis 0 repeated"},
      {"concatenate mismatch",
       k + "def f(x: \"f32[M, 3]\", y: \"f32[N, 4]\"):\n    return np.concatenate([x, y], axis=1)\n",
       "t.py:3:26: error: concatenate along axis 1: shapes f32[M, 3] and f32[N, 4] differ in another axis"},
      {"broadcast_to mismatch", k + "def f(x: \"f32[M]\"):\n    return np.broadcast_to(x, (x.shape[0], 3))\n",
       "t.py:3:27: error: cannot broadcast f32[M] to [M, 3]"},
      {"& on float tensors", k + "def f(x: \"f32[M]\"):\n    return x & (x > 0)\n",
       "t.py:3:12: error: '&' needs booleans, not a tensor f32[M]"},
      {"~ on a number mask", k + "def f(x: \"f32[M]\"):\n    return ~((x > 0) * 1.0)\n",
       "t.py:3:22: error: '~' needs a boolean, not a tensor f32[M]"},
      {"| on an integer", k + "def f(x: \"f32[M]\"):\n    return (x > 0) | 2\n",
       "t.py:3:22: error: '|' needs booleans, not the integer 2"},
      {"booleans subtracted", k + "def f(x: \"f32[M]\"):\n    return (x > 0) - (x < 1)\n",
       "t.py:3:20: error: NumPy does not subtract booleans"},
      {"arange with a step", k + "def f(x: \"f32[M]\"):\n    return x + np.arange(0, 8, 2).sum()\n",
       "t.py:3:32: error: np.arange: only a unit step is supported"},
      {"arange of a float", k + "def f(x: \"f32[M]\"):\n    return x + np.arange(2.5).sum()\n",
       "t.py:3:26: error: np.arange needs an integer or a size"},
      {"empty arange", k + "def f(x: \"f32[M]\"):\n    return x + np.arange(3, 3).sum()\n",
       "t.py:3:25: error: np.arange(3, 3) is empty; Axon's tensors are not"},
      {"tril of a vector", k + "def f(x: \"f32[M]\"):\n    return np.tril(x)\n",
       "t.py:3:20: error: np.tril needs at least two dimensions, not f32[M]"},
      {"tri with a float dtype", k + "def f(x: \"f32[M]\"):\n    return np.tri(3, dtype=np.float16)\n",
       "t.py:3:31: error: np.float16 is not supported"},
      {"float of text", k + "def f(x: \"f32[M]\"):\n    return x + float(\"x1\")\n",
       "t.py:3:22: error: float() of the string 'x1' is not supported"},
      {"float of a tensor", k + "def f(x: \"f32[M]\"):\n    return float(x)\n",
       "t.py:3:18: error: float() takes a number here, not a tensor f32[M]; use .astype(...) on tensors"},
      {"np.nan", k + "def f(x: \"f32[M]\"):\n    return np.where(x > 0, x, np.nan)\n",
       "t.py:3:34: error: np.nan is not supported: NaN has no place in a mask"},
      {"tensor exponent", k + "def f(x: \"f32[M]\"):\n    return x ** x\n",
       "t.py:3:17: error: the exponent of '**' must be a constant number, not a tensor f32[M]"},
      {"modulo on tensors", k + "def f(x: \"f32[M]\"):\n    return x % 2\n",
       "t.py:3:14: error: operator '%' is not supported on tensors"},
      {"slice step zero", k + "def f(x: \"f32[M]\"):\n    return x[::0]\n",
       "t.py:3:14: error: slice step cannot be zero"},
      {"index out of bounds", k + "def f(x: \"f32[4]\"):\n    return x[4]\n",
       "t.py:3:14: error: index 4 is out of bounds for axis 0 with size 4"},
      {"negative index out of bounds", k + "def f(x: \"f32[4]\"):\n    return x[-5]\n",
       "t.py:3:14: error: index -5 is out of bounds for axis 0 with size 4"},
      {"too many indices", k + "def f(x: \"f32[M]\"):\n    return x[0, 0]\n",
       "t.py:3:14: error: too many indices: 2 for a tensor f32[M]"},
      {"two ellipses", k + "def f(x: \"f32[M]\"):\n    return x[..., ...]\n",
       "t.py:3:14: error: an index can only have a single '...'"},
      {"tensor index", k + "def f(x: \"f32[M]\"):\n    return x[x]\n",
       "t.py:3:14: error: indexing with a tensor is not supported"},
      {"shape index out of range", k + "def f(x: \"f32[M]\"):\n    return x.shape[5]\n",
       "t.py:3:20: error: index 5 is out of range for a tuple of 1"},
      {"recursion", k + "def g(a):\n    return g(a)\ndef f(x: \"f32[M]\"):\n    return g(x)\n",
       "t.py:3:13: error: recursive call to 'g': helpers are inlined, so they cannot recurse"},
      {"helper annotation mismatch",
       k + "def g(a: \"f32[3]\"):\n    return a\ndef f(x: \"f32[4]\"):\n    return g(x)\n",
       "t.py:5:14: error: argument 'a' of g() is f32[4] but its annotation says f32[3]"},
      {"unexpected keyword", k + "def f(x: \"f32[M]\"):\n    return np.sum(x, axes=0)\n",
       "t.py:3:22: error: np.sum() got an unexpected keyword argument 'axes'"},
      {"too many arguments", k + "def f(x: \"f32[M]\"):\n    return np.exp(x, x)\n",
       "t.py:3:22: error: np.exp() takes 1 positional argument but 2 were given"},
      {"missing argument", k + "def f(x: \"f32[M]\"):\n    return np.maximum(x)\n",
       "t.py:3:22: error: np.maximum() missing required argument 'x2'"},
      {"keepdims not a bool", k + "def f(x: \"f32[M]\"):\n    return x.sum(keepdims=0.5)\n",
       "t.py:3:18: error: keepdims must be True or False (or an integer such as 1), not the number 0.5"},
      {"integer literal too large", k + "def f(x: \"f32[M]\"):\n    return x * 99999999999999999999\n",
       "t.py:3:16: error: integer literal 99999999999999999999 is too large"},
      {"division by zero", k + "def f(x: \"f32[M]\"):\n    return x * (1 / 0)\n", "t.py:3:21: error: division by zero"},
      {"assignment to a slice", k + "def f(x: \"f32[M]\"):\n    x[0] = 1\n    return x\n",
       "t.py:3:6: error: assignment to part of a tensor is not supported (tensors are immutable)"},
      {"unpacking count", k + "def f(x: \"f32[M]\"):\n    a, b = x, x, x\n    return a\n",
       "t.py:3:12: error: cannot unpack 3 values into 2 names"},
      {"code after return", k + "def f(x: \"f32[M]\"):\n    return x\n    y = x\n",
       "t.py:4:5: error: code after 'return' is never run"},
      {"unused expression", k + "def f(x: \"f32[M]\"):\n    x + 1\n    return x\n",
       "t.py:3:5: error: this expression's value is not used; assign it to a name"},
      {"top-level call", k + "print(1)\ndef f(x: \"f32[M]\"):\n    return x\n",
       "t.py:2:1: error: only imports, defs, constants and docstrings may appear at the top level"},
      {"calling a tensor", k + "def f(x: \"f32[M]\"):\n    return x(1)\n",
       "t.py:3:12: error: a tensor f32[M] cannot be called"},
      {"SIZES not a dict", k + "SIZES = [1]\ndef f(x: \"f32[M]\"):\n    return x\n",
       "t.py:2:9: error: SIZES must be a dict literal"},
      {"SIZES zero size", k + "SIZES = {\"test\": {\"M\": 0}}\ndef f(x: \"f32[M]\"):\n    return x\n",
       "t.py:2:24: error: the size of 'M' must be a positive integer"},
      {"size name not in scope", k + "def f(x: \"f32[M, N]\"):\n    return x.reshape(M, N)\n",
       "t.py:3:22: error: unknown name 'M'"},
      {"assigning to np", k + "def f(x: \"f32[M]\"):\n    np = x\n    return np\n",
       "t.py:3:5: error: assigning to 'np' hides numpy"},
      {"np.split into unequal parts", k + "def f(x: \"f32[M, 7]\"):\n    return np.split(x, 2, axis=1)\n",
       "t.py:3:20: error: np.split: axis 1 of size 7 does not divide into 2 equal parts; np.array_split allows unequal "
       "parts"},
      {"np.split of a symbolic size", k + "def f(x: \"f32[M, N]\"):\n    return np.split(x, 2, axis=1)\n",
       "error: np.split: axis 1 of size N does not divide into 2 equal parts (not known for a symbolic size; declare it "
       "as a product such as \"2*D\")"},
      {"np.split with a tensor count", k + "def f(x: \"f32[M, 4]\"):\n    return np.split(x, x)\n",
       "t.py:3:24: error: the number of sections must be an integer, not a tensor f32[M, 4]"},
      {"squeeze of an axis that is not 1", k + "def f(x: \"f32[M, 1]\"):\n    return x.squeeze(0)\n",
       "t.py:3:22: error: .squeeze: cannot squeeze axis 0 of f32[M, 1]: its size is M, not 1"},
      {"np.stack of different shapes", k + "def f(x: \"f32[M, 2]\", y: \"f32[M, 3]\"):\n    return np.stack([x, y])\n",
       "t.py:3:21: error: np.stack: all tensors must have the same shape, not f32[M, 2] and f32[M, 3]"},
      {"np.pad reflect", k + "def f(x: \"f32[M]\"):\n    return np.pad(x, 1, mode=\"reflect\")\n",
       "error: np.pad: only mode='constant' is supported"},
      {"product over a symbolic axis", k + "def f(x: \"f32[M, N]\"):\n    return np.prod(x, axis=1)\n",
       "error: np.prod: a product along axis 1 of size N is not supported"},
      {"np.add.accumulate", k + "def f(x: \"f32[M]\"):\n    return np.add.accumulate(x)\n",
       "t.py:3:19: error: np.add.accumulate is not supported; np.cumsum is np.add.accumulate"},
      {"mT of a vector", k + "def f(x: \"f32[M]\"):\n    return x.mT\n",
       "t.py:3:14: error: x.mT needs at least two dimensions, not f32[M]"},
      {"C // H with C not a product of H", k + "def f(x: \"f32[T, C]\", s: \"f32[H]\"):\n    return x.shape[1] // s.shape[0]\n",
       "error: 'C // H': a symbolic divisor must divide the size exactly as a product"},
      {"reshape by a floor division", k + "def f(x: \"f32[T, C]\"):\n    return x.reshape(x.shape[0], 4, x.shape[1] // 4)\n",
       "error: cannot reshape f32[T, C] to [T, 4, C//4]: C//4 is a floor division, exact only for some sizes; declare"},
      {"nesting too deep",
       k + "def f(x: \"f32[M]\"):\n    return " + std::string(300, '(') + "x" + std::string(300, ')') + "\n",
       "error: expression is nested too deeply (more than 200 levels)"},
  };
  for (const RejectRow& row : rows) {
    const std::string actual = outcome(row.source);
    EXPECT_NE(actual.find(row.expected), std::string::npos)
        << "input:    " << row.input << "\n"
        << shown(row.source) << "\n  expected: " << row.expected << "\n  actual:   " << actual;
  }
}

// The formatted error shows the line and a caret under the column.
TEST(ParserTest, ErrorFormatHasSourceLineAndCaret) {
  try {
    compile(kImport + "def f(x: \"f32[M]\", y: \"f32[N]\"):\n    return x + y\n");
    FAIL() << "expected a UserError";
  } catch (const UserError& e) {
    EXPECT_EQ(e.format(),
              "t.py:3:14: error: cannot broadcast shapes f32[M] and f32[N]\n"
              "      return x + y\n"
              "               ^\n");
  }
}

// Python would accept these, and so should Axon: NumPy's meaning is clear.
TEST(ParserTest, NegativeSymbolicSliceBoundCountsFromTheEnd) {
  EXPECT_EQ(outcome(kImport + "def f(x: \"f32[M]\"):\n    return x[-x.shape[0]:]\n"), "f32[M]");
}

// Leading blanks in an annotation are ignored; trailing ones should be too
// (tests/crosscheck.py reads annotations that way).
TEST(ParserTest, TrailingBlanksInAnnotations) {
  EXPECT_EQ(outcome(kImport + "def f(x: \"f32[M] \"):\n    return x\n"), "f32[M]");
}

// Sizes from annotations can be huge; overflowing size arithmetic is the
// input's fault and must be a located UserError, not an internal error.
TEST(ParserTest, SizeOverflowIsAUserError) {
  const std::vector<std::string> programs = {
      kImport + "def f(x: \"f32[4611686018427387904, 4]\"):\n    return x.reshape(-1)\n",
      kImport + "def f(x: \"f32[4611686018427387904, 4]\"):\n    return x.mean()\n",
      kImport + "def f(x: \"f32[M, 9223372036854775807]\"):\n    return np.concatenate([x, x], axis=1)\n",
      kImport + "def f(x: \"f32[N]\"):\n    n = -9223372036854775807 - 1\n    return x * -n\n",
      kImport + "def f(x: \"f32[N]\"):\n    return x[9223372036854775807::-1]\n",
      kImport + "def f(x: \"f32[N]\"):\n    return x[:-9223372036854775807 - 1:-1]\n",
  };
  for (const std::string& program : programs) {
    const std::string actual = outcome(program);
    EXPECT_NE(actual.find("error: integer overflow"), std::string::npos)
        << "input:\n"
        << shown(program) << "\n  expected: error: integer overflow ..."
        << "\n  actual:   " << actual;
  }
}

// A slice's length on a constant axis must be Python's even for extreme
// steps (list(range(8))[::2**63 - 1] has one element), or the step must be
// refused with a UserError; never a wrong length from int64 overflow.
TEST(ParserTest, SliceWithAHugeStep) {
  const std::vector<std::string> slices = {"x[::9223372036854775807]", "x[1::-9223372036854775807]",
                                           "x[::-9223372036854775807 - 1]"};
  for (const std::string& slice : slices) {
    const std::string actual = outcome(kImport + "def f(x: \"f32[8]\"):\n    return " + slice + "\n");
    EXPECT_TRUE(actual == "f32[1]" || actual.rfind("t.py:3:", 0) == 0)
        << "input:    " << slice << " on f32[8]\n  expected: f32[1] or a UserError\n  actual:   " << actual;
  }
}

// Integer arithmetic on Python ints is exact; a result that does not fit in
// int64 must be an error, not a wrapped value.
TEST(ParserTest, IntegerFloorDivisionOverflow) {
  const std::string actual =
      outcome(kImport + "def f(x: \"f32[N]\"):\n    return x[:(-9223372036854775807 - 1) // -1]\n");
  EXPECT_NE(actual.find("error: integer overflow"), std::string::npos) << actual;
}

// ---------------------------------------------------------------------------
// Robustness: deep or huge inputs and random bytes must compile or be a
// UserError; never a crash, a stack overflow or another exception.

// Empty when `text` compiles or is rejected with a UserError; else what went wrong.
std::string misbehaviour(const std::string& text) {
  try {
    ir::Program p = compile_source(source(text, "fuzz.py"));
    (void)ir::print_function(p.kernel);
  } catch (const UserError& e) {
    (void)e.format();
  } catch (const std::exception& e) {
    return std::string("exception other than UserError: ") + e.what();
  } catch (...) {
    return "a non-std exception";
  }
  return "";
}

std::string kernel_returning(const std::string& expression) {
  return kImport + "def f(x: \"f32[M, N]\"):\n    return " + expression + "\n";
}

TEST(ParserTest, DeepNestingIsAUserError) {
  struct Row {
    std::string input;
    std::string source;
  };
  const std::vector<Row> rows = {
      {"5000 nested parentheses", kernel_returning(std::string(5000, '(') + "x" + std::string(5000, ')'))},
      {"5000 nested brackets", kernel_returning(std::string(5000, '[') + "x" + std::string(5000, ']'))},
      {"5000 unclosed parentheses", kernel_returning(std::string(5000, '(') + "x")},
      {"5000 unary minus", kernel_returning(std::string(5000, '-') + "x")},
      {"5000 spaced unary minus", kernel_returning([] {
         std::string s;
         for (int i = 0; i < 5000; ++i) s += "- ";
         return s + "x";
       }())},
      {"5000 nested calls", kernel_returning([] {
         std::string s;
         for (int i = 0; i < 5000; ++i) s += "np.exp(";
         return s + "x" + std::string(5000, ')');
       }())},
      {"5000 chained subscripts", kernel_returning([] {
         std::string s = "x";
         for (int i = 0; i < 5000; ++i) s += "[:]";
         return s;
       }())},
      {"5000 chained method calls", kernel_returning([] {
         std::string s = "x";
         for (int i = 0; i < 5000; ++i) s += ".T";
         return s;
       }())},
      {"5000 right-associative powers", kernel_returning([] {
         std::string s = "x";
         for (int i = 0; i < 5000; ++i) s += " ** 1";
         return s;
       }())},
  };
  for (const Row& row : rows) {
    const std::string actual = outcome(row.source);
    EXPECT_NE(actual.find("error: "), std::string::npos)
        << "input:    " << row.input << "\n  expected: a UserError\n  actual:   " << actual;
    EXPECT_EQ(actual.find("unexpected exception"), std::string::npos) << "input: " << row.input << "\n" << actual;
  }
}

TEST(ParserTest, HugeExpressionsCompileOrAreUserErrors) {
  std::string chain = "x";
  for (int i = 1; i < 100000; ++i) chain += " + x";
  EXPECT_EQ(misbehaviour(kernel_returning(chain)), "") << "100000-term sum chain";

  std::string numbers = "x";
  for (int i = 1; i < 100000; ++i) numbers += " + " + std::to_string(i);
  EXPECT_EQ(misbehaviour(kernel_returning(numbers)), "") << "100000-term sum of numbers";

  // The same chain as 100000 statements is an ordinary program: it compiles
  // into a 100000-node chain, which must also print.
  std::string statements = kImport + "def f(x: \"f32[M, N]\"):\n    y = x\n";
  for (int i = 0; i < 100000; ++i) statements += "    y = y + x\n";
  statements += "    return y\n";
  ir::Program p = compile(statements);
  EXPECT_EQ(p.graph->size(), 100001u);
  EXPECT_EQ(ir::topological_order(p.kernel.outputs).size(), 100001u);
  const std::string printed = ir::print_function(p.kernel);
  EXPECT_NE(printed.find("%99999 = add(%99998, x)"), std::string::npos);

  // A long helper chain: every helper calls the next one.
  std::string helpers = kImport;
  for (int i = 0; i < 1000; ++i)
    helpers += "def h" + std::to_string(i) + "(a):\n    return h" + std::to_string(i + 1) + "(a)\n";
  helpers += "def h1000(a):\n    return a\ndef f(x: \"f32[M]\"):\n    return h0(x)\n";
  EXPECT_EQ(misbehaviour(helpers), "") << "1000 nested helper calls";
}

// Runs every input; reports the first few that misbehave, with their text.
void expect_all_well_behaved(const std::vector<std::string>& inputs, const std::string& what) {
  int failures = 0;
  for (const std::string& input : inputs) {
    std::string problem = misbehaviour(input);
    if (problem.empty()) continue;
    if (++failures <= 5) ADD_FAILURE() << what << ": " << problem << "\n  input:\n" << shown(input);
  }
  EXPECT_EQ(failures, 0) << what << ": " << failures << " of " << inputs.size() << " inputs misbehaved";
}

const std::vector<std::string> kVocabulary = {"x",
                                              "y",
                                              "w",
                                              "np",
                                              "np.",
                                              "import numpy as np\n",
                                              "def ",
                                              "f",
                                              "g",
                                              "(",
                                              ")",
                                              "[",
                                              "]",
                                              "{",
                                              "}",
                                              ":",
                                              ",",
                                              ".",
                                              "...",
                                              "None",
                                              "True",
                                              "False",
                                              "=",
                                              "+",
                                              "-",
                                              "*",
                                              "/",
                                              "//",
                                              "%",
                                              "**",
                                              "@",
                                              "<",
                                              ">",
                                              "==",
                                              "!=",
                                              "<=",
                                              ">=",
                                              "+=",
                                              "->",
                                              "\n",
                                              "\n    ",
                                              "\n        ",
                                              "\t",
                                              " ",
                                              "0",
                                              "1",
                                              "2",
                                              "-1",
                                              "3.5",
                                              "1e-6",
                                              "1e308",
                                              "9223372036854775807",
                                              "\"f32[M, N]\"",
                                              "\"f16[N]\"",
                                              "\"bf16[]\"",
                                              "\"f32[4, M]\"",
                                              "'ij,jk->ik'",
                                              "\"...i->i\"",
                                              "\"ii\"",
                                              "return ",
                                              "sum",
                                              "mean",
                                              "max",
                                              "min",
                                              "exp",
                                              "log",
                                              "sqrt",
                                              "tanh",
                                              "where",
                                              "einsum",
                                              "matmul",
                                              "reshape",
                                              "transpose",
                                              "swapaxes",
                                              "concatenate",
                                              "broadcast_to",
                                              "cumsum",
                                              "maximum",
                                              "square",
                                              "shape",
                                              ".shape[",
                                              ".T",
                                              "axis=",
                                              "keepdims=",
                                              "SIZES = ",
                                              "#",
                                              "\"\"\"",
                                              "'",
                                              "\"",
                                              "\\\n",
                                              "pi",
                                              "lambda",
                                              "for",
                                              "if",
                                              "else",
                                              ";",
                                              "pass"};

TEST(ParserTest, RandomBytesCompileOrAreUserErrors) {
  std::mt19937_64 rng(20240601);
  std::vector<std::string> inputs;
  const std::string pythonish = "abcdefxyzMNK_np.()[]{}:,=+-*/@<>!%~&|^#'\"\\ \n\t\r0123456789eE";
  for (int i = 0; i < 1500; ++i) {
    std::string text;
    const size_t length = rng() % 200;
    const bool any_byte = i % 3 == 0;
    for (size_t k = 0; k < length; ++k)
      text += any_byte ? static_cast<char>(rng() % 256) : pythonish[rng() % pythonish.size()];
    inputs.push_back(std::move(text));
  }
  expect_all_well_behaved(inputs, "random bytes");
}

TEST(ParserTest, RandomTokensCompileOrAreUserErrors) {
  std::mt19937_64 rng(7);
  std::vector<std::string> inputs;
  for (int i = 0; i < 3000; ++i) {
    // Most inputs start as a valid kernel header so that lowering, not just
    // the parser, sees the random tokens.
    std::string text =
        i % 4 == 0 ? "" : kImport + "def f(x: \"f32[M, N]\", w: \"f32[N, K]\", s: \"f32[]\"):\n    return ";
    const size_t length = 1 + rng() % 30;
    for (size_t k = 0; k < length; ++k) text += kVocabulary[rng() % kVocabulary.size()];
    inputs.push_back(std::move(text));
  }
  expect_all_well_behaved(inputs, "random tokens");
}

// Well-formed expressions over a kernel's parameters: these reach shape
// inference and the NumPy API with many combinations of operands.
std::string random_expression(std::mt19937_64& rng, int depth) {
  static const std::vector<std::string> leaves = {
      "x", "w", "s", "v", "x.T", "1.5", "2", "x.shape[0]", "x.shape[-1]", "v[None]", "x[:, :3]", "x[::-1]", "np.pi"};
  if (depth == 0 || rng() % 4 == 0) return leaves[rng() % leaves.size()];
  auto sub = [&] { return random_expression(rng, depth - 1); };
  switch (rng() % 16) {
    case 0: return "(" + sub() + " + " + sub() + ")";
    case 1: return "(" + sub() + " * " + sub() + ")";
    case 2: return "(" + sub() + " @ " + sub() + ")";
    case 3: return "(" + sub() + " / " + sub() + ")";
    case 4: return "np.exp(" + sub() + ")";
    case 5: return sub() + ".sum(axis=" + std::to_string(static_cast<int>(rng() % 4) - 2) + ")";
    case 6: return "np.max(" + sub() + ", keepdims=True)";
    case 7: return "np.where(" + sub() + " > " + sub() + ", " + sub() + ", " + sub() + ")";
    case 8: return sub() + ".reshape(-1)";
    case 9: return "np.concatenate([" + sub() + ", " + sub() + "], axis=" + std::to_string(rng() % 2) + ")";
    case 10: return "np.einsum('ij,jk->ik', " + sub() + ", " + sub() + ")";
    case 11: return sub() + "[" + std::to_string(static_cast<int>(rng() % 5) - 2) + ":]";
    case 12: return "np.cumsum(" + sub() + ", axis=" + std::to_string(rng() % 2) + ")";
    case 13: return sub() + ".transpose()";
    case 14: return "(" + sub() + ") ** " + std::to_string(rng() % 3);
    default: return "np.broadcast_to(" + sub() + ", (x.shape[0], x.shape[1]))";
  }
}

TEST(ParserTest, RandomExpressionsCompileOrAreUserErrors) {
  std::mt19937_64 rng(99);
  std::vector<std::string> inputs;
  int compiled = 0;
  for (int i = 0; i < 2000; ++i) {
    std::string text = kImport +
                       "def f(x: \"f32[M, N]\", w: \"f32[N, M]\", s: \"f32[]\", v: \"f32[N]\"):\n    return " +
                       random_expression(rng, 4) + "\n";
    try {
      compile(text);
      ++compiled;
    } catch (...) {
    }
    inputs.push_back(std::move(text));
  }
  expect_all_well_behaved(inputs, "random expressions");
  EXPECT_GT(compiled, 100) << "the generator should produce many valid programs";
}

// A random edit of a real kernel: delete, duplicate or replace a span, insert a
// token, or swap two lines.
std::string mutate(const std::string& text, std::mt19937_64& rng) {
  std::string out = text;
  const int edits = 1 + static_cast<int>(rng() % 3);
  for (int e = 0; e < edits && !out.empty(); ++e) {
    const size_t at = rng() % out.size();
    const size_t length = 1 + rng() % std::min<size_t>(20, out.size() - at);
    switch (rng() % 6) {
      case 0: out.erase(at, length); break;
      case 1: out.insert(at, out.substr(at, length)); break;
      case 2: out[at] = static_cast<char>(rng() % 128); break;
      case 3: out.insert(at, kVocabulary[rng() % kVocabulary.size()]); break;
      case 4: out[at] = static_cast<char>(rng() % 256); break;
      default: {
        std::vector<std::string> lines;
        std::istringstream in(out);
        for (std::string line; std::getline(in, line);) lines.push_back(line);
        if (lines.size() < 2) break;
        std::swap(lines[rng() % lines.size()], lines[rng() % lines.size()]);
        out.clear();
        for (const std::string& line : lines) out += line + "\n";
      }
    }
  }
  return out;
}

std::vector<std::string> bench_kernels() {
  std::vector<std::string> texts;
  const std::filesystem::path dir = std::filesystem::path(AXON_SOURCE_DIR) / "bench" / "kernels";
  std::vector<std::filesystem::path> paths;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (entry.path().extension() == ".py") paths.push_back(entry.path());
  std::sort(paths.begin(), paths.end());  // deterministic order, whatever the directory says
  for (const auto& path : paths) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    texts.push_back(text.str());
  }
  return texts;
}

TEST(ParserTest, BenchKernelsCompile) {
  const std::vector<std::string> kernels = bench_kernels();
  ASSERT_GE(kernels.size(), 10u);
  for (const std::string& text : kernels) {
    EXPECT_EQ(outcome(text).find("error"), std::string::npos) << shown(text) << "\n" << outcome(text);
  }
}

TEST(ParserTest, MutatedBenchKernelsCompileOrAreUserErrors) {
  const std::vector<std::string> kernels = bench_kernels();
  ASSERT_FALSE(kernels.empty());
  std::mt19937_64 rng(12345);
  std::vector<std::string> inputs;
  for (const std::string& kernel : kernels)
    for (int i = 0; i < 150; ++i) inputs.push_back(mutate(kernel, rng));
  expect_all_well_behaved(inputs, "mutated bench kernels");
}

}  // namespace
}  // namespace axon::lang
