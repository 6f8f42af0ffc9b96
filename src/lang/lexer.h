// Lexer for the NumPy subset: Python tokens, including INDENT/DEDENT.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "support/diag.h"

namespace axon::lang {

enum class Tok { Name, Keyword, Int, Float, String, Op, Newline, Indent, Dedent, End };

struct Token {
  Tok kind;
  std::string text;  // names, keywords, operators; the decoded value of strings; digits of numbers
  SourceLoc loc;
};

/// Splits `file` into tokens. Rejects, with a located UserError: NUL bytes and
/// invalid UTF-8 (binary files), inconsistent tabs and spaces in indentation,
/// unterminated strings and brackets, and characters Python does not allow.
std::vector<Token> tokenize(const std::shared_ptr<const SourceFile>& file);

}  // namespace axon::lang
