#include "ir/size.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <unordered_set>
#include <vector>

namespace axon::ir {
namespace {

const Size M = Size::name("M");
const Size N = Size::name("N");
const Size K = Size::name("K");

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

std::string show(const std::optional<Size>& s) { return s ? s->str() : "nullopt"; }
std::string show(const std::optional<int64_t>& v) { return v ? std::to_string(*v) : "nullopt"; }

// Each row names its input as written, so a failure prints input, expected and actual.
struct EqualRow {
  std::string input;
  Size actual;
  Size expected;
};

TEST(SizeTest, CanonicalForm) {
  const std::vector<EqualRow> rows = {
      {"M + N == N + M", M + N, N + M},
      {"(M + 1)*(M - 1) == M*M - 1", (M + 1) * (M - 1), M * M - 1},
      {"M - M == 0", M - M, 0},
      {"2*M - M == M", 2 * M - M, M},
      {"M*N == N*M", M * N, N * M},
      {"(M + N)*K == K*M + K*N", (M + N) * K, K * M + K * N},
      {"-(M - 3) == 3 - M", -(M - 3), 3 - M},
      {"(M + N)*(M - N) == M*M - N*N", (M + N) * (M - N), M * M - N * N},
      {"Size() == 0", Size(), Size(0)},
      {"2 + 3 == 5", Size(2) + Size(3), 5},
      {"(M//2)*(M//2) - (M//2)*(M//2) == 0",
       Size::floordiv(M, 2) * Size::floordiv(M, 2) - Size::floordiv(M, 2) * Size::floordiv(M, 2),
       0},
  };
  for (const EqualRow& row : rows) {
    EXPECT_EQ(row.actual, row.expected)
        << "input: " << row.input << "\n  expected: " << row.expected
        << "\n  actual:   " << row.actual;
  }
  EXPECT_NE(M, N);
  EXPECT_NE(M + 1, M);
  EXPECT_NE(M * M, M);
  EXPECT_NE(M * N + 1, M + N);
}

struct PrintRow {
  std::string input;
  Size size;
  std::string expected;
};

TEST(SizeTest, Printing) {
  const std::vector<PrintRow> rows = {
      {"M", M, "M"},
      {"M*N", M * N, "M*N"},
      {"N*M", N * M, "M*N"},
      {"2*M + 1", 2 * M + 1, "2*M + 1"},
      {"3 - K + N*M", 3 - K + N * M, "M*N - K + 3"},
      {"M*M", M * M, "M*M"},
      {"2*M*M*N", 2 * M * M * N, "2*M*M*N"},
      {"4 - M", 4 - M, "-M + 4"},
      {"-3*M - 1", -3 * M - 1, "-3*M - 1"},
      {"0", Size(), "0"},
      {"-7", Size(-7), "-7"},
      {"(M + 1)//2", Size::floordiv(M + 1, 2), "(M + 1)//2"},
      {"M//2", Size::floordiv(M, 2), "M//2"},
      {"(M*N)//2", Size::floordiv(M * N, 2), "(M*N)//2"},
      {"(M + 1)//2 + N", Size::floordiv(M + 1, 2) + N, "(M + 1)//2 + N"},
      {"K + M + N", K + M + N, "K + M + N"},
      {"INT64_MIN*M", kMin * M, "-9223372036854775808*M"},
      {"INT64_MIN", Size(kMin), "-9223372036854775808"},
  };
  for (const PrintRow& row : rows) {
    EXPECT_EQ(row.size.str(), row.expected) << "input: " << row.input;
    std::ostringstream os;
    os << row.size;
    EXPECT_EQ(os.str(), row.expected) << "operator<< of input: " << row.input;
  }
}

TEST(SizeTest, NamesMustNotBeEmpty) { EXPECT_THROW(Size::name(""), std::invalid_argument); }

TEST(SizeTest, Constants) {
  EXPECT_TRUE(Size().is_constant());
  EXPECT_EQ(Size().constant(), 0);
  EXPECT_TRUE(Size(-5).is_constant());
  EXPECT_EQ(Size(-5).constant(), -5);
  EXPECT_FALSE(M.is_constant());
  EXPECT_EQ(M.constant(), std::nullopt);
  EXPECT_EQ((M + 2 - M).constant(), 2);
  EXPECT_FALSE(Size::floordiv(M, 2).is_constant());
}

TEST(SizeTest, FloordivByNonPositiveThrows) {
  EXPECT_THROW(Size::floordiv(M, 0), std::invalid_argument);
  EXPECT_THROW(Size::floordiv(M, -2), std::invalid_argument);
  EXPECT_THROW(Size::floordiv(7, 0), std::invalid_argument);
}

TEST(SizeTest, Floordiv) {
  const Size half_m1 = Size::floordiv(M + 1, 2);
  const std::vector<EqualRow> rows = {
      // Exact polynomial division.
      {"(4*M + 2)//2", Size::floordiv(4 * M + 2, 2), 2 * M + 1},
      {"(6*M*N)//3", Size::floordiv(6 * M * N, 3), 2 * M * N},
      {"M//1", Size::floordiv(M, 1), M},
      // Constants fold with Python's floor semantics.
      {"7//2", Size::floordiv(7, 2), 3},
      {"-7//2", Size::floordiv(-7, 2), -4},
      {"-8//2", Size::floordiv(-8, 2), -4},
      {"-1//3", Size::floordiv(-1, 3), -1},
      {"0//5", Size::floordiv(0, 5), 0},
      {"INT64_MIN//2", Size::floordiv(kMin, 2), kMin / 2},
      {"INT64_MIN//3", Size::floordiv(kMin, 3), kMin / 3 - 1},
      // Atoms compare equal when numerator and divisor are equal.
      {"(M + 1)//2 == (1 + M)//2", half_m1, Size::floordiv(1 + M, 2)},
      {"(M + 3)//2 == (M + 1)//2 + 1", Size::floordiv(M + 3, 2), half_m1 + 1},
      {"(M - 1)//2 == (M + 1)//2 - 1", Size::floordiv(M - 1, 2), half_m1 - 1},
      {"(2*M + 1)//2 == M", Size::floordiv(2 * M + 1, 2), M},
      {"(2*M)//4 == M//2", Size::floordiv(2 * M, 4), Size::floordiv(M, 2)},
      {"(M//2)//3 == M//6", Size::floordiv(Size::floordiv(M, 2), 3), Size::floordiv(M, 6)},
      {"(2*N + (M+1)//2)//2 == N + ((M+1)//2)//2", Size::floordiv(2 * N + half_m1, 2),
       N + Size::floordiv(M + 1, 4)},
  };
  for (const EqualRow& row : rows) {
    EXPECT_EQ(row.actual, row.expected)
        << "input: " << row.input << "\n  expected: " << row.expected
        << "\n  actual:   " << row.actual;
  }
  EXPECT_NE(half_m1, Size::floordiv(M + 1, 3));
  EXPECT_NE(half_m1, Size::floordiv(M + N, 2));
  EXPECT_NE(Size::floordiv(M, 2), M);
}

// Floordiv atoms must agree with Python's // at every point, whatever the
// normalization did to them.
TEST(SizeTest, FloordivMatchesPythonPointwise) {
  auto python_floordiv = [](int64_t a, int64_t b) {
    int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
  };
  for (int64_t den = 1; den <= 5; ++den) {
    for (int64_t c1 = -7; c1 <= 7; ++c1) {
      for (int64_t c0 = -7; c0 <= 7; ++c0) {
        Size s = Size::floordiv(c1 * M + c0, den);
        for (int64_t m = 1; m <= 6; ++m) {
          EXPECT_EQ(s.evaluate({{"M", m}}), python_floordiv(c1 * m + c0, den))
              << "input: (" << c1 << "*M + " << c0 << ")//" << den << " at M=" << m
              << ", canonical " << s;
        }
      }
    }
  }
}

struct DivideRow {
  std::string input;
  Size dividend;
  Size divisor;
  std::optional<Size> expected;
};

TEST(SizeTest, DivideExact) {
  const std::vector<DivideRow> rows = {
      {"(M*N*K) / N", M * N * K, N, M * K},
      {"(6*M) / 3", 6 * M, 3, 2 * M},
      {"(M + 1) / M", M + 1, M, std::nullopt},
      {"(2*M*N + 2*M) / (2*M)", 2 * M * N + 2 * M, 2 * M, N + 1},
      {"(M*M - 1) / (M - 1)", M * M - 1, M - 1, M + 1},
      {"(M*M - 1) / (M + 1)", M * M - 1, M + 1, M - 1},
      {"(M*N + M + N + 1) / (N + 1)", M * N + M + N + 1, N + 1, M + 1},
      {"(M*M + 1) / (M + 1)", M * M + 1, M + 1, std::nullopt},
      {"(6*M) / 4", 6 * M, 4, std::nullopt},
      {"(6*M + 3) / 3", 6 * M + 3, 3, 2 * M + 1},
      {"12 / -4", 12, -4, -3},
      {"7 / 2", 7, 2, std::nullopt},
      {"M / M", M, M, 1},
      {"M / N", M, N, std::nullopt},
      {"M / (M*M)", M, M * M, std::nullopt},
      {"0 / M", 0, M, 0},
      {"M / 0", M, 0, std::nullopt},
      {"(4*M - 2*N) / -2", 4 * M - 2 * N, -2, N - 2 * M},
      {"((M//2)*N) / (M//2)", Size::floordiv(M, 2) * N, Size::floordiv(M, 2), N},
      {"INT64_MIN / -1", kMin, -1, std::nullopt},
  };
  for (const DivideRow& row : rows) {
    std::optional<Size> actual = row.dividend.divide_exact(row.divisor);
    EXPECT_EQ(actual, row.expected)
        << "input: " << row.input << "\n  expected: " << show(row.expected)
        << "\n  actual:   " << show(actual);
    if (actual) {
      EXPECT_EQ(*actual * row.divisor, row.dividend) << "input: " << row.input;
    }
  }
}

struct EvaluateRow {
  std::string input;
  Size size;
  std::map<std::string, int64_t> dims;
  std::optional<int64_t> expected;
};

TEST(SizeTest, Evaluate) {
  const std::vector<EvaluateRow> rows = {
      {"7", 7, {}, 7},
      {"M*N - K + 3", M * N - K + 3, {{"M", 2}, {"N", 5}, {"K", 4}}, 9},
      {"M*M", M * M, {{"M", 9}}, 81},
      {"M + N, N missing", M + N, {{"M", 1}}, std::nullopt},
      {"(M + 1)//2 at M=4", Size::floordiv(M + 1, 2), {{"M", 4}}, 2},
      {"(M + 1)//2 at M=5", Size::floordiv(M + 1, 2), {{"M", 5}}, 3},
      {"(M - 5)//2 at M=2", Size::floordiv(M - 5, 2), {{"M", 2}}, -2},
      {"(M + N)//3, N missing", Size::floordiv(M + N, 3), {{"M", 4}}, std::nullopt},
  };
  for (const EvaluateRow& row : rows) {
    std::optional<int64_t> actual = row.size.evaluate(row.dims);
    EXPECT_EQ(actual, row.expected)
        << "input: " << row.input << "\n  expected: " << show(row.expected)
        << "\n  actual:   " << show(actual);
  }
}

TEST(SizeTest, OverflowThrows) {
  EXPECT_THROW(Size(kMax) + 1, std::overflow_error);
  EXPECT_THROW(Size(kMin) - 1, std::overflow_error);
  EXPECT_THROW(-Size(kMin), std::overflow_error);
  EXPECT_THROW(Size(kMax) * 2, std::overflow_error);
  EXPECT_THROW(kMax * M + M, std::overflow_error);
  EXPECT_THROW((kMax * M) * (2 * N), std::overflow_error);
  EXPECT_THROW((M * M).evaluate({{"M", int64_t{1} << 32}}), std::overflow_error);
  EXPECT_THROW((M + N).evaluate({{"M", kMax}, {"N", 1}}), std::overflow_error);
  try {
    (void)(Size(kMax) + 1);
  } catch (const std::overflow_error& e) {
    EXPECT_NE(std::string(e.what()).find("overflow"), std::string::npos) << e.what();
  }
  // Near the edge but inside the range is fine.
  EXPECT_EQ((Size(kMax) - 1 + 1).constant(), kMax);
  EXPECT_EQ((M * M).evaluate({{"M", 3037000499}}), 3037000499LL * 3037000499LL);
}

TEST(SizeTest, Names) {
  EXPECT_EQ(Size(3).names(), std::vector<std::string>{});
  EXPECT_EQ((N * M + M + 1).names(), (std::vector<std::string>{"M", "N"}));
  EXPECT_EQ((Size::floordiv(K + 1, 2) * N).names(), (std::vector<std::string>{"K", "N"}));
}

struct NonnegativeRow {
  std::string input;
  Size size;
  bool expected;
};

TEST(SizeTest, ProvablyNonnegative) {
  const std::vector<NonnegativeRow> rows = {
      {"0", 0, true},
      {"5", 5, true},
      {"-1", -1, false},
      {"M", M, true},
      {"M*N + 2*K", M * N + 2 * K, true},
      {"M - 1", M - 1, true},
      {"M - 2", M - 2, false},
      {"M*N - M", M * N - M, true},
      {"M*N - M - N", M * N - M - N, false},  // M = N = 1 gives -1
      {"M*N - M - N + 1", M * N - M - N + 1, true},
      {"M*M - 2*M + 1", M * M - 2 * M + 1, true},   // (M-1)^2 becomes t*t
      {"M*M - 4*M + 4", M * M - 4 * M + 4, false},  // (M-2)^2: true, but beyond this prover
      {"-M", -M, false},
      {"M//2", Size::floordiv(M, 2), true},
      {"(M + 1)//2 - 1", Size::floordiv(M + 1, 2) - 1, false},  // unproven, sound
      {"M*(N//2) - N//2", M * Size::floordiv(N, 2) - Size::floordiv(N, 2), true},
  };
  for (const NonnegativeRow& row : rows) {
    EXPECT_EQ(row.size.provably_nonnegative(), row.expected) << "input: " << row.input;
  }
}

TEST(SizeTest, HashAgreesWithEquality) {
  const std::vector<std::pair<Size, Size>> equal_pairs = {
      {M + N, N + M},
      {(M + 1) * (M - 1), M * M - 1},
      {Size::floordiv(M + 3, 2), Size::floordiv(M + 1, 2) + 1},
      {2 * M - M, M},
      {Size(), M - M},
  };
  for (const auto& [a, b] : equal_pairs) {
    ASSERT_EQ(a, b);
    EXPECT_EQ(a.hash(), b.hash()) << a << " vs " << b;
    EXPECT_EQ(std::hash<Size>{}(a), std::hash<Size>{}(b)) << a << " vs " << b;
  }
  std::unordered_set<Size> seen = {M, N, M + N, M * N, Size::floordiv(M, 2), 0, 1};
  EXPECT_EQ(seen.size(), 7u);
  EXPECT_TRUE(seen.count(N + M));
  EXPECT_FALSE(seen.count(M + 1));
  EXPECT_NE((M * N + 1).hash(), (M + N).hash());
}

TEST(SizeTest, TotalOrder) {
  const std::vector<Size> sizes = {0,
                                   1,
                                   -1,
                                   M,
                                   N,
                                   M + 1,
                                   M * N,
                                   M * M,
                                   2 * M,
                                   N - M,
                                   Size::floordiv(M, 2),
                                   Size::floordiv(M + 1, 2)};
  for (const Size& a : sizes) {
    EXPECT_FALSE(a < a) << a;
    for (const Size& b : sizes) {
      if (a == b) continue;
      EXPECT_NE(a < b, b < a) << a << " vs " << b;
      for (const Size& c : sizes) {
        if (a < b && b < c) {
          EXPECT_TRUE(a < c) << a << " < " << b << " < " << c;
        }
      }
    }
  }
}

}  // namespace
}  // namespace axon::ir
