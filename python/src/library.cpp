#include "library.h"

#include <dlfcn.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>
#include <unistd.h>

#include <bit>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "errors.h"
#include "ir/node.h"
#include "support/diag.h"

namespace nb = nanobind;

namespace axon::python {
namespace {

// A C-contiguous buffer of native float32 exported by an object (the buffer
// protocol: NumPy answers it without allocating, unlike __dlpack__), held
// until destruction. Anything else is refused without an error set.
struct Float32Buffer {
  Py_buffer view{};
  bool held = false;

  bool acquire(PyObject* object, bool writable) {
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(object, &view, flags) != 0) {
      PyErr_Clear();
      return false;
    }
    held = true;
    const char* f = view.format;
    bool native_float = f && (std::strcmp(f, "f") == 0 || std::strcmp(f, "=f") == 0 ||
                              (std::strcmp(f, "<f") == 0 && std::endian::native == std::endian::little));
    return view.itemsize == 4 && native_float;
  }
  Float32Buffer() = default;
  Float32Buffer(const Float32Buffer&) = delete;
  Float32Buffer& operator=(const Float32Buffer&) = delete;
  ~Float32Buffer() {
    if (held) PyBuffer_Release(&view);
  }
};

nb::object& converter() {
  static nb::object* held = new nb::object();  // never destroyed: outlives the interpreter's teardown
  return *held;
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw LoadError("cannot read " + path.string());
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<Port> ports(const nlohmann::json& list) {
  constexpr int64_t kMostElements = int64_t{1} << 40;
  std::vector<Port> result;
  for (const nlohmann::json& p : list) {
    Port port;
    port.name = p.at("name");
    port.dtype = p.at("dtype");
    port.shape = p.at("shape").get<std::vector<int64_t>>();
    for (int64_t d : port.shape) {
      if (d < 1 || d > kMostElements / static_cast<int64_t>(port.elements))
        throw std::out_of_range("a shape that is not a list of sizes >= 1");
      port.elements *= static_cast<size_t>(d);
      port.extents.push_back(static_cast<size_t>(d));
    }
    result.push_back(std::move(port));
  }
  return result;
}

// Why the two descriptions differ, or empty: the first key that differs.
std::string disagreement(const nlohmann::json& listed, const nlohmann::json& embedded) {
  for (const auto& [key, value] : embedded.items())
    if (!listed.contains(key) || listed[key] != value)
      return "'" + key + "' is " + (listed.contains(key) ? listed[key].dump() : "missing") + " in kernel.json but " +
             value.dump() + " in kernel.so";
  for (const auto& [key, value] : listed.items())
    if (!embedded.contains(key)) return "'" + key + "' in kernel.json is not in kernel.so";
  return "";
}

// dlopen of a private copy: the loader shares one handle per file, so loading
// the folder's kernel.so itself could return a library loaded earlier from a
// folder that a newer search has since replaced.
void* open_private_copy(const std::filesystem::path& so) {
  std::string bytes = read_file(so);
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/axon-kernel-XXXXXX.so";
  int fd = mkstemps(pattern.data(), 3);
  if (fd < 0) throw LoadError("cannot create a private copy of " + so.string() + " in " + pattern);
  bool written = ::write(fd, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size());
  ::close(fd);
  void* handle = written ? dlopen(pattern.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE) : nullptr;
  std::string why = written ? (handle ? "" : dlerror()) : "a short write";
  std::filesystem::remove(pattern);
  if (!handle) throw LoadError("cannot load " + so.string() + ": " + why);
  return handle;
}

}  // namespace

void set_converter(nb::object function) {
  converter() = std::move(function);
}

Library::Library(const std::string& folder_name) {
  std::filesystem::path folder(folder_name);
  if (!std::filesystem::exists(folder / "kernel.json") || !std::filesystem::exists(folder / "kernel.so"))
    throw LoadError("'" + folder_name + "' is not a folder written by axon optimize (no kernel.json and kernel.so)");
  nlohmann::json listed, embedded;
  try {
    listed = nlohmann::json::parse(read_file(folder / "kernel.json"));
  } catch (const nlohmann::json::exception& e) {
    throw LoadError((folder / "kernel.json").string() + ": not a valid kernel description: " + e.what());
  }
  void* handle = open_private_copy(folder / "kernel.so");
  auto info = reinterpret_cast<const char* (*)()>(dlsym(handle, "axon_kernel_info"));
  packed_ = reinterpret_cast<Packed>(dlsym(handle, "axon_kernel_packed"));
  if (!info || !packed_)
    throw LoadError((folder / "kernel.so").string() + " is not a kernel library written by axon optimize");
  info_ = info();
  try {
    embedded = nlohmann::json::parse(info_);
    inputs_ = ports(embedded.at("inputs"));
    outputs_ = ports(embedded.at("outputs"));
    kernel_ = embedded.at("kernel");
  } catch (const std::exception& e) {
    throw LoadError((folder / "kernel.so").string() + ": its embedded description is not valid: " + e.what());
  }
  if (std::string why = disagreement(listed, embedded); !why.empty())
    throw LoadError((folder / "kernel.json").string() + " does not describe " + (folder / "kernel.so").string() + ": " +
                    why);
  nb::module_ numpy = nb::module_::import_("numpy");
  numpy_empty_ = numpy.attr("empty");
  float32_ = numpy.attr("float32");
  uint8_ = numpy.attr("uint8");
  for (const Port& p : outputs_) output_shapes_.push_back(nb::tuple(nb::cast(p.shape)));
}

nb::object Library::aligned_empty(const nb::tuple& shape, size_t elements) const {
  constexpr size_t kAlign = 64;
  nb::object bytes = numpy_empty_(elements * sizeof(float) + kAlign, uint8_);
  auto address = nb::cast<uintptr_t>(bytes.attr("__array_interface__")["data"][0]);
  size_t skip = (kAlign - address % kAlign) % kAlign;
  nb::object slice = bytes[nb::slice(nb::int_(skip), nb::int_(skip + elements * sizeof(float)), nb::none())];
  return slice.attr("view")(float32_).attr("reshape")(shape);
}

nb::object Library::call(nb::args args) const {
  const size_t n_in = inputs_.size(), n_out = outputs_.size();
  if (args.size() != n_in) {
    std::string names;
    for (const Port& p : inputs_) names += (names.empty() ? "" : ", ") + p.name;
    throw ArgumentError("kernel '" + kernel_ + "' takes " + std::to_string(n_in) + " array(s) (" + names + ") but " +
                        std::to_string(args.size()) + " were given");
  }
  // Each buffer, and each converted array behind one, is held until the call returns.
  std::vector<Float32Buffer> buffers(n_in);
  std::vector<nb::object> converted;
  std::vector<const float*> in(n_in);
  for (size_t i = 0; i < n_in; ++i) {
    const Port& port = inputs_[i];
    if (!buffers[i].acquire(args[i].ptr(), /*writable=*/false)) {
      converted.push_back(converter()(args[i], port.name, nb::cast(port.shape)));
      if (!buffers[i].acquire(converted.back().ptr(), false))
        throw InternalError(__FILE__, __LINE__, "the converter returned no C-contiguous float32 array");
    }
    const Py_buffer& view = buffers[i].view;
    bool same = static_cast<size_t>(view.ndim) == port.extents.size();
    for (size_t k = 0; same && k < port.extents.size(); ++k)
      same = static_cast<size_t>(view.shape[k]) == port.extents[k];
    if (!same)
      throw ArgumentError("parameter '" + port.name + "' has shape " + ir::shape_str(port.shape) +
                          " but the array given has shape " +
                          ir::shape_str(std::vector<int64_t>(view.shape, view.shape + view.ndim)));
    in[i] = static_cast<const float*>(view.buf);
  }
  // Results are NumPy's own arrays, written in place by the kernel.
  std::vector<nb::object> results(n_out);
  std::vector<Float32Buffer> result_buffers(n_out);
  std::vector<float*> out(n_out);
  for (size_t k = 0; k < n_out; ++k) {
    results[k] = aligned_empty(output_shapes_[k], outputs_[k].elements);
    if (!result_buffers[k].acquire(results[k].ptr(), /*writable=*/true))
      throw InternalError(__FILE__, __LINE__, "numpy.empty made no C-contiguous float32 array");
    out[k] = static_cast<float*>(result_buffers[k].view.buf);
  }
  int status;
  {
    nb::gil_scoped_release unlocked;
    status = packed_(in.data(), out.data());
  }
  if (status != 0)
    throw InternalError(__FILE__, __LINE__, "kernel '" + kernel_ + "' returned " + std::to_string(status));
  if (n_out == 1) return results[0];
  nb::tuple tuple = nb::steal<nb::tuple>(PyTuple_New(static_cast<Py_ssize_t>(n_out)));
  for (size_t k = 0; k < n_out; ++k)
    PyTuple_SET_ITEM(tuple.ptr(), static_cast<Py_ssize_t>(k), results[k].release().ptr());
  return tuple;
}

}  // namespace axon::python
