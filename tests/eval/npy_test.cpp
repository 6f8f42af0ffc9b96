#include "eval/npy.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace axon::eval {
namespace {

namespace fs = std::filesystem;
const double kInf = std::numeric_limits<double>::infinity();

// An .npy file with the given header dict and data; no padding, which readers must not need.
std::string npy(const std::string& dict, const std::string& data = "", int major = 1) {
  std::string out = "\x93NUMPY";
  out += static_cast<char>(major);
  out += '\0';
  const size_t len = dict.size() + 1;
  for (size_t i = 0; i < (major == 1 ? 2u : 4u); ++i)
    out += static_cast<char>((len >> (8 * i)) & 0xff);
  return out + dict + "\n" + data;
}

std::string dict(const std::string& descr, const std::string& shape, bool fortran = false) {
  return "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") +
         ", 'shape': " + shape + ", }";
}

std::string le_bytes(uint64_t value, size_t size) {
  std::string out;
  for (size_t i = 0; i < size; ++i) out += static_cast<char>((value >> (8 * i)) & 0xff);
  return out;
}

uint16_t half_bits(double value) {
  const std::string bytes = to_npy_bytes(Tensor{{}, {value}}, NpyDtype::F16);
  return static_cast<uint16_t>(static_cast<unsigned char>(bytes[bytes.size() - 2]) |
                               static_cast<unsigned char>(bytes.back()) << 8);
}

double from_half_bits(uint16_t bits) {
  return parse_npy(npy(dict("<f2", "()"), le_bytes(bits, 2)), "half").data.at(0);
}

double sample(int64_t i) { return static_cast<double>(i) * 0.37 - 5.1; }

Tensor iota(std::vector<int64_t> shape) {
  Tensor t = Tensor::zeros(std::move(shape));
  for (size_t i = 0; i < t.data.size(); ++i) t.data[i] = sample(static_cast<int64_t>(i));
  return t;
}

bool same_bits(double a, double b) {
  return std::bit_cast<uint64_t>(a) == std::bit_cast<uint64_t>(b);
}

// The message of the NpyError that `action` throws.
template <class Action>
std::string error_of(Action action) {
  try {
    action();
  } catch (const NpyError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Tensor, NumelZerosAndShapeStr) {
  EXPECT_EQ(Tensor{}.numel(), 1);
  EXPECT_EQ(Tensor{}.shape_str(), "()");
  EXPECT_EQ(Tensor::zeros({5}).shape_str(), "(5,)");
  const Tensor t = Tensor::zeros({3, 4});
  EXPECT_EQ(t.shape_str(), "(3, 4)");
  EXPECT_EQ(t.numel(), 12);
  EXPECT_EQ(t.data, std::vector<double>(12, 0.0));
  EXPECT_EQ(Tensor::zeros({2, 0, 3}).numel(), 0);
  EXPECT_THROW(Tensor::zeros({-1}), std::invalid_argument);
}

TEST(NpyRoundTrip, EveryDtypeAndShape) {
  const std::vector<std::vector<int64_t>> shapes = {{}, {5}, {2, 3, 4}, {0}, {3, 0, 2}, {1, 1, 1}};
  for (NpyDtype dtype : {NpyDtype::F16, NpyDtype::F32, NpyDtype::F64}) {
    for (const auto& shape : shapes) {
      Tensor t = Tensor::zeros(shape);
      // Quarters below 2^9 are exact in every dtype, so the round trip must be exact.
      for (size_t i = 0; i < t.data.size(); ++i) t.data[i] = static_cast<double>(i) * 0.25 - 2.0;
      const std::string bytes = to_npy_bytes(t, dtype);
      const Tensor back = parse_npy(bytes, "round-trip");
      EXPECT_EQ(back.shape, t.shape) << t.shape_str();
      EXPECT_EQ(back.data, t.data) << t.shape_str() << " dtype " << static_cast<int>(dtype);
    }
  }
}

TEST(NpyRoundTrip, F32RoundsAsACCast) {
  const Tensor t{{6}, {0.1, M_PI, 1e300, -1e300, 1e-50, 16777217.0}};
  const Tensor back = parse_npy(to_npy_bytes(t, NpyDtype::F32), "f32");
  for (size_t i = 0; i < t.data.size(); ++i)
    EXPECT_EQ(back.data[i], static_cast<double>(static_cast<float>(t.data[i]))) << t.data[i];
}

TEST(NpyRoundTrip, HeaderIsPaddedLikeNumPy) {
  const std::string bytes = to_npy_bytes(Tensor::zeros({3, 4}), NpyDtype::F64);
  const size_t header_len =
      static_cast<unsigned char>(bytes[8]) | static_cast<unsigned char>(bytes[9]) << 8;
  const std::string expected = "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }";
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  EXPECT_EQ(bytes.substr(10, expected.size()), expected);
  EXPECT_EQ((10 + header_len) % 64, 0u);
  EXPECT_EQ(bytes[10 + header_len - 1], '\n');
  EXPECT_EQ(bytes.size(), 10 + header_len + 12 * 8);
}

struct HalfRow {
  double value;
  uint16_t bits;
  const char* why;
};

TEST(Half, EncodeRoundsToNearestEven) {
  const double tiny = std::ldexp(1.0, -24);  // smallest subnormal half
  const HalfRow rows[] = {
      {0.0, 0x0000, "zero"},
      {-0.0, 0x8000, "negative zero"},
      {1.0, 0x3c00, "one"},
      {-2.0, 0xc000, "minus two"},
      {65504.0, 0x7bff, "largest finite"},
      {65519.99, 0x7bff, "just below the overflow tie"},
      {65520.0, 0x7c00, "tie between 65504 and 2^16 rounds to even: infinity"},
      {1e10, 0x7c00, "overflow"},
      {kInf, 0x7c00, "infinity"},
      {-kInf, 0xfc00, "minus infinity"},
      {tiny, 0x0001, "smallest subnormal"},
      {tiny / 2, 0x0000, "tie between 0 and the smallest subnormal rounds to 0"},
      {std::nextafter(tiny / 2, 1.0), 0x0001, "just above that tie"},
      {tiny * 1.5, 0x0002, "tie between 1 and 2 subnormal units rounds to 2"},
      {tiny * 2.5, 0x0002, "tie between 2 and 3 units rounds to 2"},
      {tiny * 1023, 0x03ff, "largest subnormal"},
      {tiny * 1023.5, 0x0400, "tie above the largest subnormal rounds to the smallest normal"},
      {std::ldexp(1.0, -14), 0x0400, "smallest normal"},
      {1.0 + std::ldexp(1.0, -11), 0x3c00, "tie above one rounds down to even"},
      {1.0 + 3 * std::ldexp(1.0, -11), 0x3c02, "tie above 1+ulp rounds up to even"},
      {1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40), 0x3c01, "just above a tie"},
      {1e-10, 0x0000, "underflow"},
      {std::ldexp(1.0, -1074), 0x0000, "double subnormal"},
  };
  for (const HalfRow& row : rows) {
    EXPECT_EQ(half_bits(row.value), row.bits)
        << row.why << ": input " << row.value << std::hex << ", expected 0x" << row.bits
        << ", got 0x" << half_bits(row.value);
  }
  const uint16_t nan = half_bits(std::nan(""));
  EXPECT_EQ(nan & 0x7c00, 0x7c00);
  EXPECT_NE(nan & 0x03ff, 0);
}

TEST(Half, DecodeIsExact) {
  const HalfRow rows[] = {
      {65504.0, 0x7bff, "largest finite"},
      {std::ldexp(1.0, -24), 0x0001, "smallest subnormal"},
      {std::ldexp(1023.0, -24), 0x03ff, "largest subnormal"},
      {std::ldexp(1.0, -14), 0x0400, "smallest normal"},
      {0.333251953125, 0x3555, "nearest to 1/3"},
      {-1.5, 0xbe00, "minus one and a half"},
      {kInf, 0x7c00, "infinity"},
      {-kInf, 0xfc00, "minus infinity"},
      {-0.0, 0x8000, "negative zero"},
  };
  for (const HalfRow& row : rows) {
    EXPECT_TRUE(same_bits(from_half_bits(row.bits), row.value))
        << row.why << ": bits 0x" << std::hex << row.bits << ", expected " << row.value << ", got "
        << from_half_bits(row.bits);
  }
  EXPECT_TRUE(std::isnan(from_half_bits(0x7e00)));
  EXPECT_TRUE(std::isnan(from_half_bits(0xfc01)));
}

TEST(Half, EveryBitPatternSurvivesARoundTrip) {
  std::string data;
  for (uint32_t h = 0; h < 65536; ++h) data += le_bytes(h, 2);
  const Tensor t = parse_npy(npy(dict("<f2", "(65536,)"), data), "all halves");
  const std::string bytes = to_npy_bytes(t, NpyDtype::F16);
  const std::string written = bytes.substr(bytes.size() - data.size());
  for (uint32_t h = 0; h < 65536; ++h) {
    const bool signalling_nan = (h & 0x7c00) == 0x7c00 && (h & 0x3ff) != 0 && (h & 0x200) == 0;
    const uint16_t expected = static_cast<uint16_t>(signalling_nan ? h | 0x200 : h);  // quieted
    const uint16_t got = static_cast<uint16_t>(static_cast<unsigned char>(written[2 * h]) |
                                               static_cast<unsigned char>(written[2 * h + 1]) << 8);
    ASSERT_EQ(got, expected) << "half 0x" << std::hex << h;
  }
}

TEST(NpyParse, AcceptsHeaderVariations) {
  struct Row {
    std::string bytes;
    std::vector<int64_t> shape;
  };
  const std::string one = le_bytes(std::bit_cast<uint64_t>(1.0), 8);
  const Row rows[] = {
      {npy("{'shape': (1,), 'fortran_order': False, 'descr': '<f8'}", one), {1}},
      {npy("{\"descr\":\"<f8\",\"fortran_order\":False,\"shape\":(1,)}", one), {1}},
      {npy(" {\t'descr' : 'f8' ,'fortran_order':False, 'shape':( 1 , ) , }   ", one), {1}},
      {npy(dict("=f8", "(1, 1, 1,)"), one), {1, 1, 1}},
      {npy(dict("|f8", "(1L, 1L)"), one), {1, 1}},
      {npy(dict(">f8", "(1,)"), std::string(one.rbegin(), one.rend())), {1}},
      {npy(dict(">f4", "()"), std::string("\x3f\x80\x00\x00", 4)), {}},
      {npy(dict(">f2", "()"), std::string("\x3c\x00", 2)), {}},
      {npy(dict("<f8", "(1,)"), one, 2), {1}},
      {npy(dict("<f8", "(1,)"), one, 3), {1}},
      {npy(dict("<f8", "(0, 4611686018427387904)")), {0, 4611686018427387904}},
  };
  for (const Row& row : rows) {
    const std::string header = row.bytes.substr(0, 80);
    try {
      const Tensor t = parse_npy(row.bytes, "ok.npy");
      EXPECT_EQ(t.shape, row.shape) << header;
      for (double v : t.data) EXPECT_EQ(v, 1.0) << header;
    } catch (const NpyError& e) {
      ADD_FAILURE() << "header " << header << " threw: " << e.what();
    }
  }
}

TEST(NpyErrors, EachMalformedFileGetsItsMessage) {
  struct Row {
    std::string bytes;
    std::string expected;
  };
  const std::string v1 = std::string("\x93NUMPY\x01\x00", 8);
  const Row rows[] = {
      {"", "x.npy: not an .npy file (bad magic)"},
      {"PK\x03\x04 this is a zip", "x.npy: not an .npy file (bad magic)"},
      {"\x93NUMPY", "x.npy: truncated: the file ends inside the version"},
      {v1 + "\x05", "x.npy: truncated: the file ends inside the header length"},
      {std::string("\x93NUMPY\x02\x00\x10\x00", 10), "ends inside the header length"},
      {npy(dict("<f8", "()"), "", 4),
       "unsupported .npy format version 4.0 (Axon reads 1.0, 2.0 and 3.0)"},
      {std::string("\x93NUMPY\x01\x01", 8) + "\x02\x00{}", "unsupported .npy format version 1.1"},
      {v1 + std::string("\xff\x00{}", 4),
       "truncated: the header length is 255 bytes but only 2 follow"},
      {npy("'descr': '<f8'"), "malformed header: expected '{' opening the header dict"},
      {npy("{'descr' '<f8'}"), "malformed header: expected ':' after the key"},
      {npy("{'descr: '<f8'}"), "malformed header: expected ':' after the key"},
      {npy("{'descr"), "malformed header: unterminated string"},
      {npy("{descr: '<f8'}"), "malformed header: expected a quoted string"},
      {npy("{'descr': '<f8', 'fortran_order': False}"), "the key 'shape' is missing"},
      {npy("{'fortran_order': False, 'shape': ()}"), "the key 'descr' is missing"},
      {npy("{'descr': '<f8', 'shape': ()}"), "the key 'fortran_order' is missing"},
      {npy("{'descr': '<f8', 'descr': '<f8'}"), "duplicate key 'descr'"},
      {npy("{'descr': '<f8', 'fortran_order': False, 'shape': (), 'x': 1}"), "unexpected key 'x'"},
      {npy(dict("<f8", "5")), "expected '(' opening the shape tuple"},
      {npy(dict("<f8", "(5)")), "a 1-D shape must be a tuple such as (5,), not (5)"},
      {npy(dict("<f8", "(,)")), "expected an integer dimension"},
      {npy(dict("<f8", "(3 4)")), "expected ',' or ')' in the shape tuple"},
      {npy(dict("<f8", "(3,") + "}"), "expected an integer dimension"},
      {npy("{'descr': '<f8', 'fortran_order': 0, 'shape': ()}"),
       "'fortran_order' must be True or False"},
      {npy(dict("<f8", "()") + " x"), "unexpected text after the closing '}'"},
      {npy("{'descr': '<f8' 'shape': ()}"), "expected ',' or '}' after a value"},
      {npy(std::string("{'descr': '<f8',\0 'x'}", 22)), "\\x00"},
      {npy(dict("<i8", "(3,)")),
       "x.npy: unsupported dtype '<i8' (Axon reads float16, float32 and float64)"},
      {npy(dict("<c16", "()")), "unsupported dtype '<c16'"},
      {npy(dict("|b1", "()")), "unsupported dtype '|b1'"},
      {npy(dict("|O", "()")), "unsupported dtype '|O'"},
      {npy(dict("<U3", "()")), "unsupported dtype '<U3'"},
      {npy(dict("<f16", "()")), "unsupported dtype '<f16'"},
      {npy("{'descr': [('a', '<f8')], 'fortran_order': False, 'shape': ()}"),
       "structured dtypes are not supported"},
      {npy(dict("<f8", "(2, 3)", true)),
       "x.npy: Fortran-order arrays are not supported; save with np.ascontiguousarray"},
      {npy(dict("<f8", "(3, 4)"), std::string(40, '\0')),
       "x.npy: truncated: header says 12 elements (96 bytes) but only 40 bytes follow"},
      {npy(dict("<f2", "(3,)"), std::string(8, '\0')),
       "x.npy: trailing garbage: 2 bytes follow the data (header says 3 elements, 6 bytes)"},
      {npy(dict("<f8", "(-3,)")), "absurd shape: negative dimension -3"},
      {npy(dict("<f8", "(99999999999999999999,)")),
       "dimension 99999999999999999999 does not fit in 64 bits"},
      {npy(dict("<f8", "(4294967296, 4294967296, 0)")),
       "absurd shape (4294967296, 4294967296, 0): its element count does not fit in 64 bits"},
      {npy(dict("<f8", "(1000000000000,)")),
       "x.npy: shape (1000000000000,) has 1000000000000 elements, above the reference interpreter's limit "
       "of 2147483648"},
      {npy(dict("<f8", "(4611686018427387904,)")), "has 4611686018427387904 elements, above the"},
      {npy(dict("<f4", "(65536, 32769)")), "has 2147549184 elements, above the reference interpreter's limit"},
      {std::string("\x93NUMPY\x02\x00\xff\xff\xff\x7f{}", 14),
       "x.npy: the header length is 2147483647 bytes, above the limit of 1048576"},
      {std::string("\x93NUMPY\x02\x00\x00\x00\x10\x00{}", 14),
       "truncated: the header length is 1048576 bytes but only 2 follow"},
  };
  for (const Row& row : rows) {
    const std::string actual = error_of([&] { parse_npy(row.bytes, "x.npy"); });
    EXPECT_NE(actual.find(row.expected), std::string::npos)
        << "input:    " << ::testing::PrintToString(row.bytes) << "\nexpected: " << row.expected
        << "\nactual:   " << actual;
    EXPECT_EQ(actual.rfind("x.npy: ", 0), 0u) << actual;
  }
}

TEST(NpyErrors, UnreadableFilesNameTheFile) {
  EXPECT_EQ(error_of([] { read_npy("/nonexistent-dir/x.npy"); }),
            "/nonexistent-dir/x.npy: cannot open: No such file or directory");
  EXPECT_EQ(error_of([] { read_npy("/"); }), "/: cannot read: Is a directory");
}

// Files that never end or are not regular: the reader takes the bytes the
// header declares and no more, so each of these ends at once with a message.
TEST(NpyErrors, EndlessAndSpecialFilesEndWithAMessage) {
  EXPECT_EQ(error_of([] { read_npy("/dev/zero"); }), "/dev/zero: not an .npy file (bad magic)");
  EXPECT_EQ(error_of([] { read_npy("/dev/urandom"); }), "/dev/urandom: not an .npy file (bad magic)");
  EXPECT_EQ(error_of([] { read_npy("/dev/null"); }), "/dev/null: not an .npy file (bad magic)");
}

// A pipe's bytes, through /dev/fd: a stream whose length is unknown until it ends.
std::string read_through_pipe(const std::string& bytes) {
  int fds[2];
  if (::pipe(fds) != 0) return "pipe failed";
  EXPECT_LE(bytes.size(), 4096u) << "must fit in the pipe's buffer";
  EXPECT_EQ(::write(fds[1], bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
  ::close(fds[1]);
  std::string result;
  try {
    const Tensor t = read_npy("/dev/fd/" + std::to_string(fds[0]));
    result = "shape " + t.shape_str() + ", first " + std::to_string(t.data.empty() ? 0.0 : t.data[0]);
  } catch (const NpyError& e) {
    result = e.what();
  }
  ::close(fds[0]);
  return result;
}

TEST(NpyErrors, PipesAreReadAsStreams) {
  const std::string good = to_npy_bytes(iota({2, 3}), NpyDtype::F32);
  EXPECT_EQ(read_through_pipe(good), "shape (2, 3), first -5.100000");
  EXPECT_NE(read_through_pipe(good + "x").find("trailing garbage: more bytes follow the data (header says 6 "
                                                  "elements, 24 bytes)"),
            std::string::npos);
  EXPECT_NE(read_through_pipe(good.substr(0, good.size() - 5))
                .find("truncated: header says 6 elements (24 bytes) but only 19 bytes follow"),
            std::string::npos);
  EXPECT_NE(read_through_pipe(npy(dict("<f8", "(100000000,)"), std::string(16, '\0')))
                .find("truncated: header says 100000000 elements (800000000 bytes) but only 16 bytes follow"),
            std::string::npos);
  EXPECT_NE(read_through_pipe("").find("not an .npy file (bad magic)"), std::string::npos);
}

// Random corruptions of valid files must parse or throw NpyError; under the sanitizers this also
// shows the parser never reads out of bounds.
TEST(NpyErrors, MutatedFilesNeverCrash) {
  const std::vector<std::string> seeds = {
      to_npy_bytes(iota({2, 3}), NpyDtype::F64), to_npy_bytes(iota({5}), NpyDtype::F16),
      to_npy_bytes(iota({}), NpyDtype::F32), npy(dict(">f4", "(2, 1,)"), std::string(8, '\1'), 2)};
  static const char kAlphabet[] = "0123456789(),'-: LTrue\x00\xff";
  std::mt19937 rng(12345);
  int parsed = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string bytes = seeds[rng() % seeds.size()];
    for (int edits = 1 + rng() % 3; edits > 0; --edits) {
      const size_t at = rng() % (bytes.size() + 1);
      const unsigned kind = rng() % 4;
      if (kind == 0 && at < bytes.size()) bytes[at] = static_cast<char>(rng());
      if (kind == 1) bytes.resize(at);
      if (kind == 2) bytes.insert(at, 1, kAlphabet[rng() % (sizeof kAlphabet - 1)]);
      if (kind == 3 && at < bytes.size()) bytes.erase(at, 1 + rng() % 4);
    }
    try {
      const Tensor t = parse_npy(bytes, "fuzz");
      ASSERT_EQ(static_cast<int64_t>(t.data.size()), t.numel());
      ++parsed;
    } catch (const NpyError&) {
    }
  }
  EXPECT_GT(parsed, 0);
}

class TempDir : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "axon_npy_test.XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  std::string path(const std::string& name) const { return (fs::path(dir_) / name).string(); }

  std::string dir_;
};

TEST_F(TempDir, AFifoWithoutAWriterReadsAsEmpty) {
  ASSERT_EQ(::mkfifo(path("p.npy").c_str(), 0600), 0);
  EXPECT_EQ(error_of([&] { read_npy(path("p.npy")); }), path("p.npy") + ": not an .npy file (bad magic)");
}

TEST_F(TempDir, ARegularFileCountsItsTrailingBytes) {
  std::ofstream(path("t.npy"), std::ios::binary) << to_npy_bytes(iota({3}), NpyDtype::F64) << "abc";
  EXPECT_NE(error_of([&] { read_npy(path("t.npy")); })
                .find("trailing garbage: 3 bytes follow the data (header says 3 elements, 24 bytes)"),
            std::string::npos);
}

TEST_F(TempDir, WriteReplacesAtomicallyAndLeavesNoTemporaryFiles) {
  write_npy(path("a.npy"), iota({2, 3}));
  write_npy(path("a.npy"), iota({4}), NpyDtype::F32);
  const Tensor back = read_npy(path("a.npy"));
  EXPECT_EQ(back.shape, std::vector<int64_t>{4});
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1);
  EXPECT_EQ(error_of([&] { write_npy(path("missing/b.npy"), iota({1})); }),
            path("missing/b.npy") + ": cannot write: No such file or directory");
  EXPECT_THROW(write_npy(path("c.npy"), Tensor{{3}, {1.0}}), std::invalid_argument);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1);
}

// Cross-checks against the real NumPy, which is Debian's /usr/bin/python3 here.
class NumPyCrossCheck : public TempDir {
 protected:
  void SetUp() override {
    if (std::system("/usr/bin/python3 -c 'import numpy' >/dev/null 2>&1") != 0)
      GTEST_SKIP() << "/usr/bin/python3 cannot import numpy";
    TempDir::SetUp();
  }
  // Runs `body` with `np` imported and `d` naming the temporary directory; true when it exits 0.
  bool python(const std::string& body) const {
    std::ofstream(path("script.py")) << "import io, sys\nimport numpy as np\nd = sys.argv[1]\n"
                                     << body;
    const std::string command = "/usr/bin/python3 '" + path("script.py") + "' '" + dir_ + "'";
    return std::system(command.c_str()) == 0;
  }
};

TEST_F(NumPyCrossCheck, ReadsWhatNumPyWrites) {
  ASSERT_TRUE(python(R"(
a = np.arange(24).reshape(2, 3, 4) * 0.37 - 5.1
for name, dt in [('f8', '<f8'), ('f4', '<f4'), ('f2', '<f2'), ('be8', '>f8'), ('be4', '>f4'), ('be2', '>f2')]:
    np.save(d + '/' + name + '.npy', a.astype(dt))
for major in (1, 2, 3):
    with open(d + '/v%d.npy' % major, 'wb') as f:
        np.lib.format.write_array(f, a, version=(major, 0))
np.save(d + '/scalar.npy', np.float64(2.5))
np.save(d + '/empty.npy', np.zeros((3, 0, 2), np.float32))
halves = np.arange(65536, dtype=np.uint16).view(np.float16)
np.save(d + '/all_f16.npy', halves)
np.save(d + '/all_f16_as_f64.npy', halves.astype(np.float64))
np.save(d + '/fortran.npy', np.asfortranarray(a))
np.save(d + '/int.npy', np.arange(3))
np.save(d + '/complex.npy', np.zeros(2, complex))
np.save(d + '/bool.npy', np.zeros(2, bool))
np.save(d + '/object.npy', np.array([None, 1], dtype=object), allow_pickle=True)
np.save(d + '/structured.npy', np.zeros(2, dtype=[('x', '<f8')]))
)"));
  const Tensor f8 = read_npy(path("f8.npy"));
  EXPECT_EQ(f8.shape, (std::vector<int64_t>{2, 3, 4}));
  EXPECT_EQ(f8.data, iota({2, 3, 4}).data);
  const Tensor f4 = read_npy(path("f4.npy"));
  const Tensor f2 = read_npy(path("f2.npy"));
  const Tensor ours_f2 = parse_npy(to_npy_bytes(f8, NpyDtype::F16), "ours");
  for (size_t i = 0; i < f8.data.size(); ++i) {
    EXPECT_EQ(f4.data[i], static_cast<double>(static_cast<float>(f8.data[i]))) << i;
    EXPECT_EQ(f2.data[i], ours_f2.data[i]) << "f16 rounding of " << f8.data[i];
  }
  EXPECT_EQ(read_npy(path("be8.npy")).data, f8.data);
  EXPECT_EQ(read_npy(path("be4.npy")).data, f4.data);
  EXPECT_EQ(read_npy(path("be2.npy")).data, f2.data);
  for (const char* v : {"v1.npy", "v2.npy", "v3.npy"})
    EXPECT_EQ(read_npy(path(v)).data, f8.data) << v;
  const Tensor scalar = read_npy(path("scalar.npy"));
  EXPECT_TRUE(scalar.shape.empty());
  EXPECT_EQ(scalar.data, std::vector<double>{2.5});
  const Tensor empty = read_npy(path("empty.npy"));
  EXPECT_EQ(empty.shape, (std::vector<int64_t>{3, 0, 2}));
  EXPECT_TRUE(empty.data.empty());

  const Tensor halves = read_npy(path("all_f16.npy"));
  const Tensor expected = read_npy(path("all_f16_as_f64.npy"));
  ASSERT_EQ(halves.data.size(), 65536u);
  for (size_t h = 0; h < 65536; ++h) {
    const double a = halves.data[h], b = expected.data[h];
    ASSERT_TRUE(std::isnan(a) ? std::isnan(b) : same_bits(a, b))
        << "half 0x" << std::hex << h << ": ours " << a << ", NumPy's " << b;
  }

  const std::pair<const char*, const char*> rejected[] = {
      {"fortran.npy", "Fortran-order arrays are not supported"},
      {"int.npy", "unsupported dtype '<i8'"},
      {"complex.npy", "unsupported dtype '<c16'"},
      {"bool.npy", "unsupported dtype '|b1'"},
      {"object.npy", "unsupported dtype '|O'"},
      {"structured.npy", "structured dtypes are not supported"},
  };
  for (const auto& [file, message] : rejected) {
    const std::string file_path = path(file);  // clang 14 cannot capture a structured binding
    const std::string actual = error_of([&] { read_npy(file_path); });
    EXPECT_NE(actual.find(message), std::string::npos) << file << ": " << actual;
  }
}

TEST_F(NumPyCrossCheck, NumPyLoadsWhatAxonWritesByteForByte) {
  const std::vector<std::vector<int64_t>> shapes = {{}, {5}, {2, 3, 4}, {3, 0, 2}, {1, 70}};
  const std::pair<NpyDtype, const char*> dtypes[] = {
      {NpyDtype::F64, "<f8"}, {NpyDtype::F32, "<f4"}, {NpyDtype::F16, "<f2"}};
  std::string checks;
  int n = 0;
  for (const auto& shape : shapes) {
    for (const auto& [dtype, descr] : dtypes) {
      const std::string name = "w" + std::to_string(n++) + ".npy";
      write_npy(path(name), iota(shape), dtype);
      checks += "check('" + name + "', " + Tensor{shape, {}}.shape_str() + ", '" + descr + "')\n";
    }
  }
  EXPECT_TRUE(python(R"(
ok = True
def check(name, shape, dt):
    global ok
    expected = (np.arange(int(np.prod(shape))) * 0.37 - 5.1).reshape(shape).astype(dt)
    got = np.load(d + '/' + name)
    buf = io.BytesIO()
    np.save(buf, expected)
    with open(d + '/' + name, 'rb') as f:
        same_bytes = f.read() == buf.getvalue()
    if got.dtype != expected.dtype or got.shape != shape or not np.array_equal(got, expected) or not same_bytes:
        print('mismatch:', name, shape, dt, got.dtype, got.shape, same_bytes, file=sys.stderr)
        ok = False
)" + checks + "sys.exit(0 if ok else 1)\n"));
}

TEST_F(NumPyCrossCheck, RoundingMatchesNumPyOnTiesAndRandomValues) {
  std::vector<double> values;
  for (uint32_t h = 0; h < 0x7c00; ++h) {
    // The exact midpoint to the next half, and its neighbours, in both signs.
    const double mid =
        (from_half_bits(static_cast<uint16_t>(h)) + from_half_bits(static_cast<uint16_t>(h + 1))) /
        2;
    for (double v : {mid, std::nextafter(mid, 0.0), std::nextafter(mid, kInf)}) {
      values.push_back(v);
      values.push_back(-v);
    }
  }
  std::mt19937_64 rng(7);
  for (int i = 0; i < 100000; ++i) {
    const uint64_t exponent = 1023 - 30 + rng() % 50;  // 2^-30 .. 2^19 spans f16's range
    values.push_back(std::bit_cast<double>((rng() & 0x800fffffffffffffull) | exponent << 52));
  }
  values.insert(values.end(), {kInf, -kInf, std::nan(""), 1e300, -1e-300, 0.0, -0.0});
  const Tensor t{{static_cast<int64_t>(values.size())}, values};
  write_npy(path("f64.npy"), t);
  write_npy(path("f32.npy"), t, NpyDtype::F32);
  write_npy(path("f16.npy"), t, NpyDtype::F16);
  EXPECT_TRUE(python(R"(
a = np.load(d + '/f64.npy')
ok = True
for name, dt, bits in [('f32', np.float32, np.uint32), ('f16', np.float16, np.uint16)]:
    with np.errstate(over='ignore'):
        expected = a.astype(dt)
    got = np.load(d + '/' + name + '.npy')
    nan = np.isnan(expected)
    bad = (np.isnan(got) != nan) | ((got.view(bits) != expected.view(bits)) & ~nan)
    if bad.any():
        i = np.flatnonzero(bad)[:5]
        print(name, 'mismatches:', bad.sum(), a[i], got[i], expected[i], file=sys.stderr)
        ok = False
sys.exit(0 if ok else 1)
)"));
}

}  // namespace
}  // namespace axon::eval
