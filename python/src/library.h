// A kernel library that `axon optimize` wrote, loaded into this process and
// called through its C ABI (emit/cpu.h):
//   int axon_kernel_packed(const float* const* in, float* const* out);  // 0: success
//   const char* axon_kernel_info();                                     // kernel.json's text
// Sizes are fixed; every array is dense, row-major float32, whatever dtype
// the program declares.
#pragma once

#include <nanobind/nanobind.h>

#include <cstdint>
#include <string>
#include <vector>

namespace axon::python {

struct Port {
  std::string name, dtype;
  std::vector<int64_t> shape;
  std::vector<size_t> extents;  // the same, as nanobind takes it
  size_t elements = 1;
};

class Library {
 public:
  /// Loads folder/kernel.so after checking that its embedded description
  /// equals folder/kernel.json (as `axon exec` does). The library is copied
  /// to a private file before dlopen, so that a later search rewriting the
  /// folder cannot change (or be shadowed by) a library already loaded; it
  /// is never unloaded (its OpenMP threads may outlive any handle).
  explicit Library(const std::string& folder);

  /// Calls the kernel on `args`, one array per input: an object exporting a
  /// C-contiguous native float32 buffer (a NumPy array) is read in place,
  /// with the GIL released during the call; anything else goes through the
  /// converter (set_converter) first, which returns such an array or raises.
  /// Results are new NumPy arrays: one, or a tuple of several.
  nanobind::object call(nanobind::args args) const;

  const std::string& info() const { return info_; }
  const std::vector<Port>& inputs() const { return inputs_; }
  const std::vector<Port>& outputs() const { return outputs_; }

 private:
  using Packed = int (*)(const float* const*, float* const*);
  Packed packed_ = nullptr;
  std::string info_, kernel_;
  std::vector<Port> inputs_, outputs_;
  nanobind::object numpy_empty_, float32_, uint8_;  // numpy.empty, numpy.float32, numpy.uint8
  std::vector<nanobind::tuple> output_shapes_;      // each result's shape
  /// A new C-contiguous float32 array of `shape` whose data starts on a
  /// 64-byte boundary (a view into a NumPy byte array a little larger), as
  /// the search's timing runs give their outputs: streaming stores take
  /// only such addresses (hw::Instruction::nontemporal).
  nanobind::object aligned_empty(const nanobind::tuple& shape, size_t elements) const;
};

/// The Python function that turns a non-float32 or non-contiguous argument
/// into a C-contiguous float32 array where that is exact, else raises:
/// converter(value, parameter_name, shape) -> numpy.ndarray.
void set_converter(nanobind::object converter);

}  // namespace axon::python
