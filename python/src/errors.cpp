#include "errors.h"

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include "support/diag.h"

namespace nb = nanobind;

namespace axon::python {
namespace {

// Raises axon.errors.<name>(*args) as the current Python exception.
template <typename... Args>
void raise(const char* name, Args&&... args) {
  nb::object cls = nb::module_::import_("axon.errors").attr(name);
  nb::object error = cls(std::forward<Args>(args)...);
  PyErr_SetObject(cls.ptr(), error.ptr());
}

void raise_user_error(const char* name, const UserError& e) {
  const SourceLoc& loc = e.loc();
  nb::object file = loc.file ? nb::object(nb::str(loc.file->path.c_str())) : nb::none();
  raise(name, e.format(), e.what(), file, loc.line, loc.col);
}

void translate(const std::exception_ptr& thrown, void*) {
  try {
    std::rethrow_exception(thrown);
  } catch (const nb::python_error&) {
    throw;  // already a Python exception: nanobind restores it
  } catch (const nb::builtin_exception&) {
    throw;
  } catch (const std::bad_alloc&) {
    throw;  // MemoryError
  } catch (const NoValidKernelError& e) {
    raise_user_error("NoValidKernelError", e);
  } catch (const UserError& e) {
    raise_user_error("ProgramError", e);
  } catch (const ArgumentError& e) {
    raise("ArgumentError", e.what());
  } catch (const LoadError& e) {
    raise("LoadError", e.what());
  } catch (const InternalError& e) {
    raise("InternalError", e.what());
  } catch (const std::exception& e) {
    raise("InternalError", std::string("internal error: ") + e.what());
  }
}

}  // namespace

void register_error_translator() {
  nb::register_exception_translator(translate);
}

}  // namespace axon::python
