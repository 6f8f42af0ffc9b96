#include "support/diag.h"

#include <sstream>

namespace axon {
namespace {

// The text of line `line` (1-based) of `text`, without its newline.
std::string line_text(const std::string& text, int line) {
  size_t begin = 0;
  for (int i = 1; i < line; ++i) {
    size_t nl = text.find('\n', begin);
    if (nl == std::string::npos) return "";
    begin = nl + 1;
  }
  size_t end = text.find('\n', begin);
  std::string result = text.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
  if (!result.empty() && result.back() == '\r') result.pop_back();
  return result;
}

// Bytes that would garble a terminal are shown as '?'.
std::string printable(const std::string& s) {
  std::string out;
  for (unsigned char c : s) out += (c == '\t' || (c >= 0x20 && c != 0x7f)) ? char(c) : '?';
  return out;
}

}  // namespace

std::string format_diagnostic(const SourceLoc& loc, const std::string& message) {
  std::ostringstream out;
  if (loc.file) {
    out << loc.file->path << ':' << std::max(loc.line, 1) << ':' << std::max(loc.col, 1) << ": ";
  } else {
    out << "axon: ";
  }
  out << "error: " << message << '\n';
  if (!loc.known()) return out.str();
  std::string src = line_text(loc.file->text, loc.line);
  if (src.size() > 400) return out.str();  // a huge line helps nobody
  out << "  " << printable(src) << "\n  ";
  // Keep tabs under tabs so the caret lines up whatever the tab width.
  for (int i = 0; i + 1 < loc.col && i < static_cast<int>(src.size()); ++i) out << (src[i] == '\t' ? '\t' : ' ');
  out << "^\n";
  return out.str();
}

std::string UserError::format() const { return format_diagnostic(loc_, what()); }

InternalError::InternalError(const char* cpp_file, int cpp_line, const std::string& message)
    : std::logic_error(std::string("internal error at ") + cpp_file + ":" + std::to_string(cpp_line) + ": " +
                       message) {}

}  // namespace axon
