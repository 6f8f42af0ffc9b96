#include "eval/npy.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <limits>
#include <optional>
#include <string_view>
#include <vector>

#include "eval/interpreter.h"
#include "support/files.h"

namespace axon::eval {
namespace {

constexpr std::string_view kMagic = "\x93NUMPY";
constexpr size_t kAlign = 64;  // NumPy aligns the data so it can be memory-mapped
// NumPy pads the header so the first axis can later grow in place to this many digits.
constexpr size_t kGrowthAxisMaxDigits = 21;
constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
// np.save writes about 128 header bytes (more only for very high ranks); a
// longer header is garbage, and reading it whole would cost its declared length.
constexpr uint64_t kMaxHeaderBytes = uint64_t{1} << 20;

[[noreturn]] void fail(const std::string& name, const std::string& problem) {
  throw NpyError(name + ": " + problem);
}

std::string errno_text(int err) {
  return std::strerror(err);
}

// Header bytes quoted in a message come from a possibly corrupt file; keep them
// short and free of bytes that would garble a terminal.
std::string printable(std::string_view s, size_t max_len = 80) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < s.size() && i < max_len; ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out += static_cast<char>(c);
    } else {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 0xf];
    }
  }
  if (s.size() > max_len) out += "...";
  return out;
}

std::string shape_string(const std::vector<int64_t>& shape) {
  return Tensor{shape, {}}.shape_str();
}

// ---- IEEE half precision, by hand so the rounding is exactly NumPy's. ----

double half_to_double(uint16_t h) {
  const bool negative = (h & 0x8000) != 0;
  const int exponent = (h >> 10) & 0x1f;
  const uint64_t fraction = h & 0x3ff;
  if (exponent == 0x1f) {
    // Infinity or NaN; a NaN keeps its payload so bit patterns survive a round trip.
    return std::bit_cast<double>((uint64_t{negative} << 63) | (uint64_t{0x7ff} << 52) | (fraction << 42));
  }
  const double magnitude = exponent == 0 ? std::ldexp(static_cast<double>(fraction), -24)
                                         : std::ldexp(static_cast<double>(fraction | 0x400), exponent - 25);
  return negative ? -magnitude : magnitude;
}

// Rounds directly from double (never via float) so that no value is rounded twice.
uint16_t double_to_half(double value) {
  const uint64_t bits = std::bit_cast<uint64_t>(value);
  const auto sign = static_cast<uint16_t>((bits >> 48) & 0x8000);
  const int biased = static_cast<int>((bits >> 52) & 0x7ff);
  const uint64_t fraction = bits & ((uint64_t{1} << 52) - 1);
  if (biased == 0x7ff) {
    if (fraction == 0) return sign | 0x7c00;
    return static_cast<uint16_t>(sign | 0x7e00 | (fraction >> 42));  // quiet, top payload kept
  }
  const int exponent = biased - 1023;
  if (exponent > 15) return sign | 0x7c00;
  // At most 2^-25, half the smallest subnormal, everything rounds to zero (exponent -25 is
  // handled below, where exactly 2^-25 ties to the even zero).
  if (exponent < -25) return sign;
  const uint64_t significand = fraction | (uint64_t{1} << 52);
  // A normal half keeps 10 of the 52 fraction bits; a subnormal counts units of 2^-24.
  const int shift = exponent >= -14 ? 42 : 28 - exponent;
  uint64_t result =
      exponent >= -14 ? (static_cast<uint64_t>(exponent + 15) << 10) | (fraction >> 42) : significand >> shift;
  const uint64_t remainder = significand & ((uint64_t{1} << shift) - 1);
  const uint64_t halfway = uint64_t{1} << (shift - 1);
  // A carry out of the fraction bumps the exponent, correctly: the largest
  // subnormal becomes the smallest normal and 65520 becomes infinity (0x7c00).
  if (remainder > halfway || (remainder == halfway && (result & 1) != 0)) ++result;
  return static_cast<uint16_t>(sign | result);
}

// ---- Header parsing: the subset of Python dict literals NumPy writes. ----

struct Header {
  std::string descr;
  bool fortran_order = false;
  std::vector<int64_t> shape;
};

class HeaderParser {
 public:
  HeaderParser(std::string_view text, const std::string& name) : text_(text), name_(name) {}

  Header parse() {
    expect('{', "'{' opening the header dict");
    std::optional<std::string> descr;
    std::optional<bool> fortran_order;
    std::optional<std::vector<int64_t>> shape;
    while (!accept('}')) {
      const std::string key = parse_string();
      expect(':', "':' after the key");
      if (key == "descr") {
        if (descr) malformed("duplicate key 'descr'");
        skip_space();
        if (peek() != '\'' && peek() != '"') {
          fail(name_,
               "unsupported dtype: structured dtypes are not supported "
               "(Axon reads float16, float32 and float64)");
        }
        descr = parse_string();
      } else if (key == "fortran_order") {
        if (fortran_order) malformed("duplicate key 'fortran_order'");
        fortran_order = parse_bool();
      } else if (key == "shape") {
        if (shape) malformed("duplicate key 'shape'");
        shape = parse_shape();
      } else {
        malformed("unexpected key '" + printable(key) + "'");
      }
      if (!accept(',')) {
        expect('}', "',' or '}' after a value");
        break;
      }
    }
    skip_space();
    if (pos_ < text_.size()) malformed("unexpected text after the closing '}'");
    if (!descr) malformed("the key 'descr' is missing");
    if (!fortran_order) malformed("the key 'fortran_order' is missing");
    if (!shape) malformed("the key 'shape' is missing");
    return Header{*descr, *fortran_order, *shape};
  }

 private:
  [[noreturn]] void malformed(const std::string& problem) const {
    fail(name_, "malformed header: " + problem + " (at byte " + std::to_string(pos_) + " of the header \"" +
                    printable(text_) + "\")");
  }

  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }

  void skip_space() {
    while (pos_ < text_.size() &&
           (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\r' || text_[pos_] == '\n'))
      ++pos_;
  }

  bool accept(char c) {
    skip_space();
    if (pos_ >= text_.size() || text_[pos_] != c) return false;
    ++pos_;
    return true;
  }

  void expect(char c, const char* what) {
    if (!accept(c)) malformed(std::string("expected ") + what);
  }

  std::string parse_string() {
    skip_space();
    const char quote = peek();
    if (quote != '\'' && quote != '"') malformed("expected a quoted string");
    const size_t end = text_.find(quote, pos_ + 1);
    if (end == std::string_view::npos) malformed("unterminated string");
    std::string s(text_.substr(pos_ + 1, end - pos_ - 1));
    pos_ = end + 1;
    return s;
  }

  bool parse_bool() {
    skip_space();
    for (bool value : {true, false}) {
      const std::string_view word = value ? "True" : "False";
      if (text_.substr(pos_, word.size()) == word) {
        pos_ += word.size();
        return value;
      }
    }
    malformed("'fortran_order' must be True or False");
  }

  std::vector<int64_t> parse_shape() {
    expect('(', "'(' opening the shape tuple");
    std::vector<int64_t> dims;
    if (accept(')')) return dims;
    while (true) {
      dims.push_back(parse_dimension());
      if (accept(',')) {
        if (accept(')')) return dims;
        continue;
      }
      expect(')', "',' or ')' in the shape tuple");
      if (dims.size() == 1) malformed("a 1-D shape must be a tuple such as (5,), not (5)");
      return dims;
    }
  }

  int64_t parse_dimension() {
    skip_space();
    const bool negative = peek() == '-';
    if (peek() == '-' || peek() == '+') ++pos_;
    const size_t digits_start = pos_;
    int64_t value = 0;
    bool overflow = false;
    for (; pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9'; ++pos_) {
      const int digit = text_[pos_] - '0';
      if (value > (kInt64Max - digit) / 10) overflow = true;
      if (!overflow) value = value * 10 + digit;
    }
    if (pos_ == digits_start) malformed("expected an integer dimension in the shape");
    const std::string digits(text_.substr(digits_start, pos_ - digits_start));
    // Python 2 NumPy wrote long integers with an 'L' suffix.
    if (peek() == 'L' || peek() == 'l') ++pos_;
    if (overflow) fail(name_, "absurd shape: dimension " + digits + " does not fit in 64 bits");
    if (negative && value != 0) fail(name_, "absurd shape: negative dimension -" + digits);
    return value;
  }

  std::string_view text_;
  const std::string& name_;
  size_t pos_ = 0;
};

struct FloatFormat {
  size_t itemsize;
  bool big_endian;
};

std::optional<FloatFormat> float_format(std::string_view descr) {
  bool big_endian = false;
  // '=' (native) and no prefix are taken as little-endian: every host Axon runs on is.
  if (!descr.empty() && std::string_view("<>=|").find(descr[0]) != std::string_view::npos) {
    big_endian = descr[0] == '>';
    descr.remove_prefix(1);
  }
  if (descr == "f2") return FloatFormat{2, big_endian};
  if (descr == "f4") return FloatFormat{4, big_endian};
  if (descr == "f8") return FloatFormat{8, big_endian};
  return std::nullopt;
}

// NumPy rejects an overflowing product of the nonzero dimensions even when a
// zero makes the array empty; so do we, which also keeps Tensor::numel() safe.
std::optional<int64_t> checked_numel(const std::vector<int64_t>& shape) {
  int64_t nonzero_product = 1;
  bool empty = false;
  for (int64_t d : shape) {
    if (d < 0) return std::nullopt;
    if (d == 0) {
      empty = true;
    } else if (nonzero_product > kInt64Max / d) {
      return std::nullopt;
    } else {
      nonzero_product *= d;
    }
  }
  return empty ? 0 : nonzero_product;
}

uint64_t load_uint(const unsigned char* p, size_t size, bool big_endian) {
  uint64_t value = 0;
  for (size_t i = 0; i < size; ++i) value |= uint64_t{p[big_endian ? size - 1 - i : i]} << (8 * i);
  return value;
}

void store_uint_le(std::string& out, uint64_t value, size_t size) {
  for (size_t i = 0; i < size; ++i) out += static_cast<char>((value >> (8 * i)) & 0xff);
}

double decode(uint64_t raw, size_t itemsize) {
  switch (itemsize) {
    case 2: return half_to_double(static_cast<uint16_t>(raw));
    case 4: return std::bit_cast<float>(static_cast<uint32_t>(raw));
    default: return std::bit_cast<double>(raw);
  }
}

uint64_t encode(double value, NpyDtype dtype) {
  switch (dtype) {
    case NpyDtype::F16: return double_to_half(value);
    case NpyDtype::F32: return std::bit_cast<uint32_t>(static_cast<float>(value));
    case NpyDtype::F64: break;
  }
  return std::bit_cast<uint64_t>(value);
}

size_t itemsize_of(NpyDtype dtype) {
  switch (dtype) {
    case NpyDtype::F16: return 2;
    case NpyDtype::F32: return 4;
    case NpyDtype::F64: break;
  }
  return 8;
}

// Magic, version, header length and the padded header dict, as np.save writes them.
std::string npy_prefix(const std::vector<int64_t>& shape, NpyDtype dtype) {
  std::string dict = "{'descr': '<f" + std::to_string(itemsize_of(dtype)) +
                     "', 'fortran_order': False, 'shape': " + shape_string(shape) + ", }";
  if (!shape.empty()) dict.append(kGrowthAxisMaxDigits - std::to_string(shape[0]).size(), ' ');
  // Version 1.0 stores the header length in 16 bits; NumPy moves to 2.0 only when that is too few.
  for (int major : {1, 2}) {
    const size_t length_size = major == 1 ? 2 : 4;
    const size_t unpadded = kMagic.size() + 2 + length_size + dict.size() + 1;  // +1 for '\n'
    const size_t header_len = dict.size() + 1 + (kAlign - unpadded % kAlign);
    if (major == 1 && header_len > 0xffff) continue;
    std::string out(kMagic);
    out += static_cast<char>(major);
    out += '\0';
    store_uint_le(out, header_len, length_size);
    out += dict;
    out.append(header_len - dict.size() - 1, ' ');
    out += '\n';
    return out;
  }
  throw std::length_error("npy header does not fit in version 2.0");
}

// Where an .npy file's bytes come from: a string in memory or an open file.
// The reader takes only what it asks for, so a file that never ends
// (/dev/zero, a pipe) costs no more than its header declares.
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  /// Appends up to `n` bytes to `out` and returns how many; fewer only at the end.
  virtual size_t read(size_t n, std::string& out) = 0;
  /// How many bytes follow what was read, when that is known without reading them.
  virtual std::optional<uint64_t> remaining() const = 0;
};

class StringSource : public ByteSource {
 public:
  explicit StringSource(const std::string& bytes) : bytes_(bytes) {}
  size_t read(size_t n, std::string& out) override {
    const size_t taken = std::min(n, bytes_.size() - pos_);
    out.append(bytes_, pos_, taken);
    pos_ += taken;
    return taken;
  }
  std::optional<uint64_t> remaining() const override { return bytes_.size() - pos_; }

 private:
  const std::string& bytes_;
  size_t pos_ = 0;
};

class FileSource : public ByteSource {
 public:
  explicit FileSource(const std::string& path) : path_(path) {
    // Non-blocking only while opening: a FIFO that no writer holds open then
    // reads as empty instead of waiting for one forever.
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd_ < 0) fail(path, "cannot open: " + errno_text(errno));
    if (const int flags = ::fcntl(fd_, F_GETFL); flags < 0 || ::fcntl(fd_, F_SETFL, flags & ~O_NONBLOCK) < 0) {
      const int err = errno;
      ::close(fd_);
      fail(path, "cannot open: " + errno_text(err));
    }
    struct stat st {};
    if (::fstat(fd_, &st) == 0 && S_ISREG(st.st_mode)) size_ = static_cast<uint64_t>(st.st_size);
  }
  FileSource(const FileSource&) = delete;
  FileSource& operator=(const FileSource&) = delete;
  ~FileSource() override { ::close(fd_); }

  size_t read(size_t n, std::string& out) override {
    size_t done = 0;
    char buffer[1 << 16];
    while (done < n) {
      const ssize_t got = ::read(fd_, buffer, std::min(n - done, sizeof buffer));
      if (got == 0) break;
      if (got < 0) {
        if (errno == EINTR) continue;
        fail(path_, "cannot read: " + errno_text(errno));
      }
      out.append(buffer, static_cast<size_t>(got));
      done += static_cast<size_t>(got);
    }
    consumed_ += done;
    return done;
  }
  // Only a regular file's size is known; a pipe or a device may grow.
  std::optional<uint64_t> remaining() const override {
    if (!size_ || *size_ < consumed_) return std::nullopt;
    return *size_ - consumed_;
  }

 private:
  const std::string& path_;
  int fd_ = -1;
  std::optional<uint64_t> size_;
  uint64_t consumed_ = 0;
};

}  // namespace

namespace {

// Magic, version, header length, header, data, in that order, each read only
// once the parts before it have been checked.
Tensor read_npy_from(ByteSource& in, const std::string& name) {
  std::string bytes;
  if (in.read(kMagic.size(), bytes) < kMagic.size() || bytes != kMagic) fail(name, "not an .npy file (bad magic)");
  if (in.read(2, bytes) < 2) fail(name, "truncated: the file ends inside the version");
  const int major = static_cast<unsigned char>(bytes[6]);
  const int minor = static_cast<unsigned char>(bytes[7]);
  if (major < 1 || major > 3 || minor != 0) {
    fail(name, "unsupported .npy format version " + std::to_string(major) + "." + std::to_string(minor) +
                   " (Axon reads 1.0, 2.0 and 3.0)");
  }
  const size_t length_size = major == 1 ? 2 : 4;
  if (in.read(length_size, bytes) < length_size) fail(name, "truncated: the file ends inside the header length");
  const uint64_t header_len =
      load_uint(reinterpret_cast<const unsigned char*>(bytes.data()) + kMagic.size() + 2, length_size, false);
  if (header_len > kMaxHeaderBytes) {
    fail(name, "the header length is " + std::to_string(header_len) + " bytes, above the limit of " +
                   std::to_string(kMaxHeaderBytes) + " (np.save writes about 128)");
  }
  std::string header_text;
  if (const size_t got = in.read(header_len, header_text); got < header_len) {
    fail(name, "truncated: the header length is " + std::to_string(header_len) + " bytes but only " +
                   std::to_string(got) + " follow");
  }
  const Header header = HeaderParser(header_text, name).parse();

  const std::optional<FloatFormat> format = float_format(header.descr);
  if (!format) {
    fail(name, "unsupported dtype '" + printable(header.descr) + "' (Axon reads float16, float32 and float64)");
  }
  if (header.fortran_order) fail(name, "Fortran-order arrays are not supported; save with np.ascontiguousarray");
  const std::optional<int64_t> numel = checked_numel(header.shape);
  if (!numel) {
    fail(name, "absurd shape " + shape_string(header.shape) + ": its element count does not fit in 64 bits");
  }
  if (*numel > kMaxElements) {
    fail(name, "shape " + shape_string(header.shape) + " has " + std::to_string(*numel) +
                   " elements, above the reference interpreter's limit of " + std::to_string(kMaxElements));
  }

  // The data, a chunk at a time: memory grows with the bytes that arrive, not
  // with what a (possibly lying) header declares.
  const auto count = static_cast<uint64_t>(*numel);
  const uint64_t used = count * format->itemsize;
  constexpr size_t kChunk = size_t{1} << 20;  // a multiple of every item size
  Tensor t;
  t.shape = header.shape;
  std::string chunk;
  uint64_t got = 0;
  while (got < used) {
    chunk.clear();
    const auto want = static_cast<size_t>(std::min<uint64_t>(kChunk, used - got));
    const size_t n = in.read(want, chunk);
    got += n;
    const auto* p = reinterpret_cast<const unsigned char*>(chunk.data());
    for (size_t k = 0; k + format->itemsize <= n; k += format->itemsize)
      t.data.push_back(decode(load_uint(p + k, format->itemsize, format->big_endian), format->itemsize));
    if (n < want) break;  // the input ended
  }
  if (got < used) {
    fail(name, "truncated: header says " + std::to_string(count) + " elements (" + std::to_string(used) +
                   " bytes) but only " + std::to_string(got) + " bytes follow");
  }
  const std::optional<uint64_t> left = in.remaining();
  chunk.clear();
  if ((left && *left > 0) || (!left && in.read(1, chunk) > 0)) {
    const std::string extra = left ? std::to_string(*left) + " bytes follow" : "more bytes follow";
    fail(name, "trailing garbage: " + extra + " the data (header says " + std::to_string(count) + " elements, " +
                   std::to_string(used) + " bytes)");
  }
  return t;
}

}  // namespace

double round_to_half(double value) { return half_to_double(double_to_half(value)); }

Tensor parse_npy(const std::string& bytes, const std::string& name) {
  StringSource in(bytes);
  return read_npy_from(in, name);
}

Tensor read_npy(const std::string& path) {
  FileSource in(path);
  return read_npy_from(in, path);
}

std::string to_npy_bytes(const Tensor& t, NpyDtype dtype) {
  const std::optional<int64_t> numel = checked_numel(t.shape);
  if (!numel) throw std::invalid_argument("to_npy_bytes: invalid shape " + t.shape_str());
  if (t.data.size() != static_cast<uint64_t>(*numel)) {
    throw std::invalid_argument("to_npy_bytes: shape " + t.shape_str() + " needs " + std::to_string(*numel) +
                                " values but the tensor holds " + std::to_string(t.data.size()));
  }
  const size_t itemsize = itemsize_of(dtype);
  std::string out = npy_prefix(t.shape, dtype);
  out.reserve(out.size() + t.data.size() * itemsize);
  for (double value : t.data) store_uint_le(out, encode(value, dtype), itemsize);
  return out;
}

void write_npy(const std::string& path, const Tensor& t, NpyDtype dtype) {
  try {
    write_file(path, to_npy_bytes(t, dtype));
  } catch (const FileError& e) {
    throw NpyError(e.what());
  }
}

}  // namespace axon::eval
