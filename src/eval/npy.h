// Reading and writing NumPy .npy files, the interpreter's input and output format.
//
// Reading accepts format versions 1.0, 2.0 and 3.0 with dtype float16, float32
// or float64 in either byte order ('<f8', '>f4', 'f2', ...) and C order, and
// converts every value to float64 exactly. Anything else is rejected with an
// NpyError; malformed input never crashes or reads out of bounds.
//
// Writing produces exactly the bytes np.save produces (version 1.0 unless the
// header needs more than 64 KiB, then 2.0, as NumPy does), little-endian.
#pragma once

#include <stdexcept>
#include <string>

#include "eval/tensor.h"

namespace axon::eval {

enum class NpyDtype { F16, F32, F64 };

/// Any problem with an .npy file. what() is a complete sentence that starts
/// with the file name, e.g. "x.npy: not an .npy file (bad magic)".
class NpyError : public std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Reads an .npy file and converts its values to float64.
Tensor read_npy(const std::string& path);

/// Same as read_npy, from the file's bytes; name_for_messages prefixes errors.
Tensor parse_npy(const std::string& bytes, const std::string& name_for_messages);

/// Writes t through axon::write_file (support/files.h): a regular file
/// atomically, a device such as /dev/full in place, every write checked. F16 rounds to nearest
/// even, overflowing to infinity; F32 rounds as a C cast. Throws NpyError on
/// I/O failure and std::invalid_argument when t breaks the Tensor invariant.
void write_npy(const std::string& path, const Tensor& t, NpyDtype dtype = NpyDtype::F64);

/// `value` rounded to IEEE half precision (to nearest, ties to even, as
/// NumPy's float16), back as a double: what an F16 .npy file stores.
double round_to_half(double value);

/// The bytes write_npy would write.
std::string to_npy_bytes(const Tensor& t, NpyDtype dtype);

}  // namespace axon::eval
