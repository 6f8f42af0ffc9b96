#include "lang/lexer.h"

#include <array>
#include <cctype>
#include <cstring>

namespace axon::lang {
namespace {

constexpr std::array kKeywords = {"False", "None", "True", "and", "as", "assert", "async", "await", "break",
                                  "class", "continue", "def", "del", "elif", "else", "except", "finally", "for",
                                  "from", "global", "if", "import", "in", "is", "lambda", "nonlocal", "not",
                                  "or", "pass", "raise", "return", "try", "while", "with", "yield"};

// Longest first, so that "**=" wins over "**" and "*".
constexpr std::array kOperators = {"**=", "//=", ">>=", "<<=", "...", "->", "**", "//", "==", "!=", "<=", ">=",
                                   "+=",  "-=",  "*=",  "/=",  "%=",  "@=", "&=", "|=", "^=", ":=", "<<", ">>",
                                   "+",   "-",   "*",   "/",   "%",   "@",  "<",  ">",  "=",  "(",  ")",  "[",
                                   "]",   "{",   "}",   ",",   ":",   ".",  ";",  "~",  "&",  "|",  "^"};

bool is_name_start(unsigned char c) { return std::isalpha(c) || c == '_' || c >= 0x80; }
bool is_name_char(unsigned char c) { return std::isalnum(c) || c == '_' || c >= 0x80; }

class Lexer {
 public:
  explicit Lexer(const std::shared_ptr<const SourceFile>& file) : file_(file), text_(file->text) {}

  std::vector<Token> run() {
    check_text();
    if (text_.compare(0, 3, "\xEF\xBB\xBF") == 0) pos_ = line_begin_ = 3;  // a UTF-8 byte order mark, as Python allows
    indents_.push_back({0, 0});
    while (pos_ < text_.size()) {
      if (at_line_start_) {
        if (!indentation()) continue;
      }
      lex_one();
    }
    if (!brackets_.empty())
      error(brackets_.back().loc, std::string("'") + brackets_.back().open + "' is never closed");
    if (!tokens_.empty() && tokens_.back().kind != Tok::Newline) push(Tok::Newline, "", here());
    while (indents_.size() > 1) {
      indents_.pop_back();
      push(Tok::Dedent, "", here());
    }
    push(Tok::End, "", here());
    return std::move(tokens_);
  }

 private:
  struct Indent {
    int width8;  // tabs to the next multiple of 8
    int width1;  // tabs count as one column
  };

  SourceLoc here() const { return {file_, line_, static_cast<int>(pos_ - line_begin_) + 1}; }
  [[noreturn]] void error(const SourceLoc& loc, const std::string& message) const { throw UserError(loc, message); }
  void push(Tok kind, std::string text, SourceLoc loc) { tokens_.push_back({kind, std::move(text), std::move(loc)}); }

  // Binary files are rejected up front, before any token: NUL bytes, and
  // byte sequences that are not UTF-8.
  void check_text() {
    int line = 1;
    size_t begin = 0;
    for (size_t i = 0; i < text_.size(); ++i) {
      unsigned char c = text_[i];
      SourceLoc loc{file_, line, static_cast<int>(i - begin) + 1};
      if (c == 0) error(loc, "file contains a NUL byte; is it a binary file?");
      if (c == '\n') {
        ++line;
        begin = i + 1;
      } else if (c >= 0x80) {
        int extra = (c & 0xE0) == 0xC0 ? 1 : (c & 0xF0) == 0xE0 ? 2 : (c & 0xF8) == 0xF0 ? 3 : -1;
        bool ok = extra > 0 && c != 0xC0 && c != 0xC1 && c <= 0xF4;
        for (int k = 1; ok && k <= extra; ++k) ok = i + k < text_.size() && (text_[i + k] & 0xC0) == 0x80;
        if (!ok) error(loc, "file is not valid UTF-8 text; is it a binary file?");
        i += extra;
      }
    }
  }

  void newline_token() {
    if (!tokens_.empty() && tokens_.back().kind != Tok::Newline && tokens_.back().kind != Tok::Indent &&
        tokens_.back().kind != Tok::Dedent)
      push(Tok::Newline, "", here());
  }

  void next_line() {
    ++pos_;
    ++line_;
    line_begin_ = pos_;
    at_line_start_ = brackets_.empty();
  }

  // Measures the indentation of a logical line and emits INDENT/DEDENT.
  // Returns false when the line is blank or a comment (nothing to emit).
  bool indentation() {
    Indent width{0, 0};
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\f')) {
      if (text_[pos_] == '\t') {
        width.width8 = (width.width8 / 8 + 1) * 8;
        width.width1 += 1;
      } else if (text_[pos_] == ' ') {
        width.width8 += 1;
        width.width1 += 1;
      }
      ++pos_;
    }
    if (pos_ >= text_.size()) return true;
    char c = text_[pos_];
    if (c == '#' || c == '\n' || c == '\r') {
      while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
      if (pos_ < text_.size()) next_line();
      return false;
    }
    at_line_start_ = false;
    const Indent& top = indents_.back();
    // Python's rule: the two ways of counting tabs must agree on the order.
    auto compare = [](int a, int b) { return (a > b) - (a < b); };
    if (compare(width.width8, top.width8) != compare(width.width1, top.width1))
      error(here(), "inconsistent use of tabs and spaces in indentation");
    if (width.width8 > top.width8) {
      indents_.push_back(width);
      push(Tok::Indent, "", here());
    } else {
      while (width.width8 < indents_.back().width8) {
        indents_.pop_back();
        push(Tok::Dedent, "", here());
      }
      if (width.width8 != indents_.back().width8 || width.width1 != indents_.back().width1)
        error(here(), "unindent does not match any outer indentation level");
    }
    return true;
  }

  void lex_one() {
    char c = text_[pos_];
    SourceLoc loc = here();
    if (c == '\n' || (c == '\r' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '\n')) {
      if (brackets_.empty()) newline_token();  // at the '\r' of a CRLF
      if (c == '\r') ++pos_;
      next_line();
    } else if (c == ' ' || c == '\t' || c == '\f' || c == '\r') {
      ++pos_;
    } else if (c == '#') {
      while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
    } else if (c == '\\') {
      size_t p = pos_ + 1;
      if (p < text_.size() && text_[p] == '\r') ++p;
      if (p >= text_.size() || text_[p] != '\n') error(loc, "unexpected character after line continuation '\\'");
      pos_ = p;
      ++pos_;
      ++line_;
      line_begin_ = pos_;
    } else if (std::isdigit(static_cast<unsigned char>(c)) ||
               (c == '.' && pos_ + 1 < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_ + 1])))) {
      number(loc);
    } else if (is_name_start(c)) {
      size_t begin = pos_;
      while (pos_ < text_.size() && is_name_char(text_[pos_])) ++pos_;
      std::string word = text_.substr(begin, pos_ - begin);
      if (pos_ < text_.size() && (text_[pos_] == '"' || text_[pos_] == '\'') && word.size() <= 2) {
        string_literal(loc, word);
        return;
      }
      bool keyword = false;
      for (const char* k : kKeywords) keyword = keyword || word == k;
      push(keyword ? Tok::Keyword : Tok::Name, word, loc);
    } else if (c == '"' || c == '\'') {
      string_literal(loc, "");
    } else {
      op(loc);
    }
  }

  void number(const SourceLoc& loc) {
    size_t begin = pos_;
    bool is_float = false;
    auto digits = [&] {
      while (pos_ < text_.size() && (std::isdigit(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) ++pos_;
    };
    if (text_[pos_] == '0' && pos_ + 1 < text_.size() && std::strchr("xXoObB", text_[pos_ + 1]))
      error(loc, "hexadecimal, octal and binary literals are not supported");
    digits();
    if (pos_ < text_.size() && text_[pos_] == '.') {
      is_float = true;
      ++pos_;
      digits();
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      is_float = true;
      ++pos_;
      if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
      if (pos_ >= text_.size() || !std::isdigit(static_cast<unsigned char>(text_[pos_])))
        error(loc, "malformed number: exponent has no digits");
      digits();
    }
    if (pos_ < text_.size() && (text_[pos_] == 'j' || text_[pos_] == 'J'))
      error(loc, "complex numbers are not supported");
    if (pos_ < text_.size() && is_name_char(text_[pos_])) error(here(), "malformed number");
    std::string spelled;
    for (size_t i = begin; i < pos_; ++i)
      if (text_[i] != '_') spelled += text_[i];
    push(is_float ? Tok::Float : Tok::Int, spelled, loc);
  }

  void string_literal(const SourceLoc& loc, const std::string& prefix) {
    bool raw = false;
    for (char p : prefix) {
      if (p == 'r' || p == 'R') raw = true;
      else error(loc, "string prefix '" + prefix + "' is not supported (only plain and r\"...\" strings)");
    }
    char quote = text_[pos_];
    bool triple = text_.compare(pos_, 3, std::string(3, quote)) == 0;
    pos_ += triple ? 3 : 1;
    std::string value;
    while (true) {
      if (pos_ >= text_.size()) error(loc, "unterminated string");
      char c = text_[pos_];
      if (triple && text_.compare(pos_, 3, std::string(3, quote)) == 0) {
        pos_ += 3;
        break;
      }
      if (!triple && c == quote) {
        ++pos_;
        break;
      }
      if (c == '\n') {
        if (!triple) error(loc, "unterminated string");
        value += c;
        next_line();
        at_line_start_ = false;
        continue;
      }
      if (c == '\\' && !raw && pos_ + 1 < text_.size()) {
        char e = text_[pos_ + 1];
        const char* plain = "\\'\"";
        if (e == 'n') value += '\n';
        else if (e == 't') value += '\t';
        else if (std::strchr(plain, e)) value += e;
        else if (e == '\n') {
          pos_ += 1;
          next_line();
          at_line_start_ = false;
          continue;
        } else value += std::string{'\\', e};
        pos_ += 2;
        continue;
      }
      value += c;
      ++pos_;
    }
    push(Tok::String, value, loc);
  }

  void op(const SourceLoc& loc) {
    for (const char* o : kOperators) {
      size_t n = std::strlen(o);
      if (text_.compare(pos_, n, o) != 0) continue;
      pos_ += n;
      std::string text = o;
      if (text == "(" || text == "[" || text == "{") {
        brackets_.push_back({text[0], loc});
      } else if (text == ")" || text == "]" || text == "}") {
        if (brackets_.empty()) error(loc, "unmatched '" + text + "'");
        char open = brackets_.back().open;
        char want = open == '(' ? ')' : open == '[' ? ']' : '}';
        if (text[0] != want)
          error(loc, "closing '" + text + "' does not match '" + std::string(1, open) + "' at line " +
                         std::to_string(brackets_.back().loc.line) + ", column " +
                         std::to_string(brackets_.back().loc.col));
        brackets_.pop_back();
      }
      push(Tok::Op, text, loc);
      return;
    }
    unsigned char c = text_[pos_];
    if (c < 0x20 || c == 0x7f) error(loc, "invalid control character (byte " + std::to_string(c) + ")");
    error(loc, std::string("invalid character '") + static_cast<char>(c) + "'");
  }

  std::shared_ptr<const SourceFile> file_;
  const std::string& text_;
  size_t pos_ = 0;
  int line_ = 1;
  size_t line_begin_ = 0;
  bool at_line_start_ = true;
  std::vector<Indent> indents_;
  struct Bracket {
    char open;
    SourceLoc loc;
  };
  std::vector<Bracket> brackets_;
  std::vector<Token> tokens_;
};

}  // namespace

std::vector<Token> tokenize(const std::shared_ptr<const SourceFile>& file) { return Lexer(file).run(); }

}  // namespace axon::lang
