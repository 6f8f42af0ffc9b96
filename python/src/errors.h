// The Python side of Axon's errors. C++ exceptions thrown under a binding
// become the classes of axon/errors.py: UserError -> ProgramError (with file,
// line, col), NoValidKernelError -> NoValidKernelError, InternalError and any
// other std::exception -> InternalError, and the two kinds below. Python
// errors raised in callbacks and MemoryError pass through unchanged.
#pragma once

#include <stdexcept>
#include <string>

namespace axon::python {

/// A call given the wrong arguments (count, shape, a dtype not exactly float32).
class ArgumentError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// An output folder that cannot be loaded (missing files, a library that
/// does not match its kernel.json).
class LoadError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Installs the translator; call once, at import.
void register_error_translator();

}  // namespace axon::python
