// Diagnostics: source locations, user errors and internal errors.
//
// A user error is the input's fault (a bad program, a bad command line, a bad
// file). It carries a location and is printed as
//   file:line:col: error: message
//   <the source line>
//   <a caret under the column>
// An internal error is Axon's fault (a broken invariant); it carries the C++
// file and line. Library code throws either; only main() prints and exits.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>

namespace axon {

/// The text of one input: a program file, or the command line itself.
struct SourceFile {
  std::string path;  // as shown in messages, e.g. "prog.py" or "<command line>"
  std::string text;
};

/// A position in a SourceFile. Lines and columns count from 1; columns count
/// bytes. A default-constructed location is "unknown" and prints without a
/// source line.
struct SourceLoc {
  std::shared_ptr<const SourceFile> file;
  int line = 0;
  int col = 0;

  bool known() const { return file != nullptr && line > 0; }
};

/// An error in the user's input. what() is the bare message; format() adds
/// the location, the source line and the caret.
class UserError : public std::runtime_error {
 public:
  UserError(SourceLoc loc, const std::string& message) : std::runtime_error(message), loc_(std::move(loc)) {}
  const SourceLoc& loc() const { return loc_; }
  std::string format() const;

 private:
  SourceLoc loc_;
};

/// A broken invariant inside Axon: always a bug.
class InternalError : public std::logic_error {
 public:
  InternalError(const char* cpp_file, int cpp_line, const std::string& message);
};

/// A search that ended without a result although the input was fine: no
/// candidate kernel passed validation. A UserError for its location and
/// format; main() gives it its own exit status, kExitNoValidKernel.
class NoValidKernelError : public UserError {
 public:
  using UserError::UserError;
};

/// Exit statuses of the axon command, each with one meaning (README,
/// `axon help`): 0 success; 1 bad input; 2 a bug in Axon; verify's 3
/// (refuted) and 4 (unknown); 5 no candidate kernel was valid; 6 `run
/// --check`: an array outside its rounding bound.
constexpr int kExitBadInput = 1, kExitInternal = 2, kExitNoValidKernel = 5, kExitOutsideBound = 6;

/// "file:line:col: error: message" followed by the source line and a caret
/// (only the first line when the location is unknown).
std::string format_diagnostic(const SourceLoc& loc, const std::string& message);

}  // namespace axon

#define AXON_CHECK(cond, msg)                                                                                       \
  do {                                                                                                              \
    if (!(cond)) throw ::axon::InternalError(__FILE__, __LINE__, std::string("check failed: " #cond ": ") + (msg)); \
  } while (0)
