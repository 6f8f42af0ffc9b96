#include "lang/parser.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "lang/lexer.h"

namespace axon::lang {
namespace {

// Subtrees taller than this are rejected: later stages walk them recursively.
constexpr int kMaxTreeHeight = 500;

class Parser {
 public:
  explicit Parser(std::vector<Token> tokens) : tokens_(std::move(tokens)) {}

  std::vector<StmtPtr> module() {
    std::vector<StmtPtr> body;
    while (!at(Tok::End)) {
      if (accept(Tok::Newline)) continue;
      if (at(Tok::Indent)) error(peek().loc, "unexpected indentation");
      body.push_back(statement(/*top_level=*/true));
    }
    return body;
  }

 private:
  // ---- token helpers ----
  const Token& peek(size_t ahead = 0) const { return tokens_[std::min(pos_ + ahead, tokens_.size() - 1)]; }
  bool at(Tok kind) const { return peek().kind == kind; }
  bool at_op(const char* text) const { return at(Tok::Op) && peek().text == text; }
  bool at_keyword(const char* text) const { return at(Tok::Keyword) && peek().text == text; }
  const Token& advance() {
    const Token& t = tokens_[pos_];
    if (pos_ + 1 < tokens_.size()) ++pos_;
    return t;
  }
  bool accept(Tok kind) {
    if (!at(kind)) return false;
    advance();
    return true;
  }
  bool accept_op(const char* text) {
    if (!at_op(text)) return false;
    advance();
    return true;
  }
  [[noreturn]] void error(const SourceLoc& loc, const std::string& message) const { throw UserError(loc, message); }
  std::string describe(const Token& t) const {
    switch (t.kind) {
      case Tok::Newline: return "end of line";
      case Tok::Indent: return "indentation";
      case Tok::Dedent: return "end of block";
      case Tok::End: return "end of file";
      case Tok::String: return "a string";
      default: return "'" + t.text + "'";
    }
  }
  [[noreturn]] void unexpected(const std::string& wanted) const {
    error(peek().loc, "expected " + wanted + ", found " + describe(peek()));
  }
  void expect_op(const char* text) {
    if (!accept_op(text)) unexpected(std::string("'") + text + "'");
  }
  std::string expect_name(const char* what) {
    if (!at(Tok::Name)) unexpected(what);
    return advance().text;
  }
  void end_of_statement() {
    if (accept_op(";") && !at(Tok::Newline) && !at(Tok::End)) return;  // "a = 1; b = 2"
    if (!accept(Tok::Newline) && !at(Tok::End) && !at(Tok::Dedent)) unexpected("end of line");
  }

  // Bounds recursion: every nested expression or unary operator passes here.
  struct Nesting {
    Parser& parser;
    Nesting(Parser& p, const SourceLoc& loc) : parser(p) {
      if (++parser.depth_ > kMaxNesting)
        parser.error(loc, "expression is nested too deeply (more than " + std::to_string(kMaxNesting) + " levels)");
    }
    ~Nesting() { --parser.depth_; }
  };

  ExprPtr node(ExprKind kind, const SourceLoc& loc, std::vector<ExprPtr> args = {}, std::string text = {}) {
    auto e = std::make_unique<Expr>();
    e->kind = kind;
    e->loc = loc;
    e->text = std::move(text);
    for (const ExprPtr& a : args)
      if (a) e->depth = std::max(e->depth, a->depth + 1);
    e->args = std::move(args);
    if (e->depth > kMaxTreeHeight)
      error(loc, "expression is too large (more than " + std::to_string(kMaxTreeHeight) +
                     " nested operations); split it into several assignments");
    return e;
  }
  template <typename... A>
  std::vector<ExprPtr> list(A&&... a) {
    std::vector<ExprPtr> v;
    (v.push_back(std::forward<A>(a)), ...);
    return v;
  }

  // ---- statements ----
  StmtPtr statement([[maybe_unused]] bool top_level) {
    const Token& t = peek();
    if (t.kind == Tok::Keyword) {
      const std::string& k = t.text;
      if (k == "def") return function_def();  // nested: a local helper, inlined like the others
      if (k == "import") return import_stmt();
      if (k == "from") error(t.loc, "'from ... import' is not supported; write 'import numpy as np'");
      if (k == "return") return return_stmt();
      if (k == "pass") {
        auto s = make_stmt(StmtKind::Pass, advance().loc);
        end_of_statement();
        return s;
      }
      if (k == "for" || k == "while") error(t.loc, "'" + k + "' loops are not supported: a kernel is a dataflow graph");
      if (k == "if") return if_stmt();
      if (k == "elif" || k == "else") error(t.loc, "'" + k + "' without a matching 'if'");
      if (k == "class") error(t.loc, "classes are not supported");
      if (k == "with" || k == "try" || k == "raise" || k == "assert" || k == "del" || k == "global" ||
          k == "nonlocal" || k == "yield" || k == "async" || k == "await" || k == "break" || k == "continue" ||
          k == "except" || k == "finally")
        error(t.loc, "'" + k + "' statements are not supported");
    }
    if (at(Tok::Indent)) error(t.loc, "unexpected indentation");
    return expression_stmt();
  }

  StmtPtr make_stmt(StmtKind kind, const SourceLoc& loc) {
    auto s = std::make_unique<Stmt>();
    s->kind = kind;
    s->loc = loc;
    return s;
  }

  // if/elif/else: resolved when the kernel is built (src/lang/lower.cpp).
  StmtPtr if_stmt() {
    auto s = make_stmt(StmtKind::If, advance().loc);
    s->value = expression();
    expect_op(":");
    s->body = suite();
    if (at_keyword("elif")) {
      s->orelse.push_back(if_stmt());
    } else if (at_keyword("else")) {
      advance();
      expect_op(":");
      s->orelse = suite();
    }
    return s;
  }

  StmtPtr import_stmt() {
    auto s = make_stmt(StmtKind::Import, advance().loc);
    SourceLoc name_loc = peek().loc;
    std::string module = expect_name("a module name");
    while (accept_op(".")) module += "." + expect_name("a module name");
    s->text = module;
    s->alias = module;
    if (at_keyword("as")) {
      advance();
      s->alias = expect_name("a name after 'as'");
    }
    if (module != "numpy" && module != "math")
      error(name_loc, "only numpy and math can be imported ('import numpy as np'), not '" + module + "'");
    if (at_op(",")) error(peek().loc, "import one module per statement");
    end_of_statement();
    return s;
  }

  StmtPtr return_stmt() {
    auto s = make_stmt(StmtKind::Return, advance().loc);
    if (!at(Tok::Newline) && !at(Tok::End) && !at_op(";")) s->value = expression_list();
    end_of_statement();
    return s;
  }

  StmtPtr expression_stmt() {
    SourceLoc loc = peek().loc;
    ExprPtr first = expression_list();
    static const char* kAugmented[] = {"+=", "-=", "*=", "/=", "//=", "%=", "@=", "**=", "&=", "|=", "^="};
    for (const char* op : kAugmented) {
      if (!at_op(op)) continue;
      auto s = make_stmt(StmtKind::AugAssign, advance().loc);
      s->text = std::string(op, std::strlen(op) - 1);
      s->targets.push_back(std::move(first));
      s->value = expression_list();
      end_of_statement();
      return s;
    }
    if (at(Tok::Op) && (peek().text.size() >= 2 && peek().text.back() == '=' && peek().text != "==" &&
                        peek().text != "<=" && peek().text != ">=" && peek().text != "!="))
      error(peek().loc, "operator '" + peek().text + "' is not supported");
    ExprPtr annotation;
    if (accept_op(":")) {
      if (first->kind != ExprKind::Name) error(first->loc, "only a plain name can be annotated");
      annotation = expression();
      if (!at_op("=")) error(peek().loc, "an annotated name needs a value: y: \"f32[M, N]\" = ...");
    }
    if (!at_op("=")) {
      auto s = make_stmt(StmtKind::Expr, loc);
      s->value = std::move(first);
      end_of_statement();
      return s;
    }
    auto s = make_stmt(StmtKind::Assign, loc);
    s->annotation = std::move(annotation);
    s->targets.push_back(std::move(first));
    while (accept_op("=")) s->targets.push_back(expression_list());
    s->value = std::move(s->targets.back());
    s->targets.pop_back();
    end_of_statement();
    return s;
  }

  StmtPtr function_def() {
    auto s = make_stmt(StmtKind::Def, advance().loc);
    auto def = std::make_unique<FunctionDef>();
    def->loc = peek().loc;
    def->name = expect_name("a function name");
    expect_op("(");
    while (!at_op(")")) {
      if (at_op("*") || at_op("**") || at_op("/"))
        error(peek().loc, "'" + peek().text + "' in a parameter list is not supported");
      Param p;
      p.loc = peek().loc;
      p.name = expect_name("a parameter name");
      for (const Param& q : def->params)
        if (q.name == p.name) error(p.loc, "duplicate parameter '" + p.name + "'");
      if (accept_op(":")) p.annotation = expression();
      if (accept_op("=")) p.default_value = expression();
      def->params.push_back(std::move(p));
      if (!accept_op(",")) break;
    }
    expect_op(")");
    if (accept_op("->")) def->returns = expression();
    expect_op(":");
    def->body = suite();
    s->def = std::move(def);
    return s;
  }

  // lambda a, b=1: expr -- a local helper, as a def returning expr.
  ExprPtr lambda() {
    SourceLoc loc = advance().loc;
    auto def = std::make_shared<FunctionDef>();
    def->name = "<lambda>";
    def->loc = loc;
    while (!at_op(":")) {
      Param p;
      p.loc = peek().loc;
      p.name = expect_name("a parameter name");
      for (const Param& q : def->params)
        if (q.name == p.name) error(p.loc, "duplicate parameter '" + p.name + "'");
      if (accept_op("=")) p.default_value = expression();
      def->params.push_back(std::move(p));
      if (!accept_op(",")) break;
    }
    expect_op(":");
    auto ret = make_stmt(StmtKind::Return, peek().loc);
    ret->value = expression();
    def->body.push_back(std::move(ret));
    ExprPtr e = node(ExprKind::Lambda, loc);
    e->lambda = std::move(def);
    return e;
  }

  std::vector<StmtPtr> suite() {
    std::vector<StmtPtr> body;
    if (!accept(Tok::Newline)) {  // "def f(x): return x" on one line
      body.push_back(statement(false));
      return body;
    }
    if (!accept(Tok::Indent)) unexpected("an indented block");
    while (!accept(Tok::Dedent)) {
      if (at(Tok::End)) break;
      if (accept(Tok::Newline)) continue;
      body.push_back(statement(false));
    }
    return body;
  }

  // ---- expressions ----
  // exprlist: "a, b" is a tuple without parentheses.
  ExprPtr expression_list() {
    SourceLoc loc = peek().loc;
    ExprPtr first = expression();
    if (!at_op(",")) return first;
    std::vector<ExprPtr> items;
    items.push_back(std::move(first));
    while (accept_op(",")) {
      if (ends_list()) break;
      items.push_back(expression());
    }
    return node(ExprKind::Tuple, loc, std::move(items));
  }

  bool ends_list() const {
    return at(Tok::Newline) || at(Tok::End) || at_op("=") || at_op(")") || at_op("]") || at_op("}") || at_op(":");
  }

  ExprPtr expression() {
    Nesting nesting(*this, peek().loc);
    if (at_keyword("lambda")) return lambda();
    ExprPtr e = or_test();
    if (at_keyword("if")) {  // a if cond else b: resolved when the kernel is built
      SourceLoc loc = advance().loc;
      ExprPtr condition = or_test();
      if (!at_keyword("else")) unexpected("'else' in a conditional expression");
      advance();
      ExprPtr otherwise = expression();
      return node(ExprKind::IfElse, loc, list(std::move(condition), std::move(e), std::move(otherwise)));
    }
    if (at_keyword("for")) error(peek().loc, "comprehensions are not supported");
    return e;
  }

  ExprPtr or_test() {
    ExprPtr left = and_test();
    while (at_keyword("or")) {
      SourceLoc loc = advance().loc;
      left = node(ExprKind::BoolOp, loc, list(std::move(left), and_test()), "or");
    }
    return left;
  }

  ExprPtr and_test() {
    ExprPtr left = not_test();
    while (at_keyword("and")) {
      SourceLoc loc = advance().loc;
      left = node(ExprKind::BoolOp, loc, list(std::move(left), not_test()), "and");
    }
    return left;
  }

  ExprPtr not_test() {
    if (!at_keyword("not")) return comparison();
    Nesting nesting(*this, peek().loc);
    SourceLoc loc = advance().loc;
    return node(ExprKind::Unary, loc, list(not_test()), "not");
  }

  ExprPtr comparison() {
    ExprPtr left = bit_or();
    static const char* kCompare[] = {"<", "<=", ">", ">=", "==", "!="};
    for (const char* op : kCompare) {
      if (!at_op(op)) continue;
      SourceLoc loc = advance().loc;
      ExprPtr right = bit_or();
      for (const char* again : kCompare)
        if (at_op(again)) error(peek().loc, "chained comparisons are not supported");
      return node(ExprKind::Compare, loc, list(std::move(left), std::move(right)), op);
    }
    if (at_keyword("is")) {
      SourceLoc loc = advance().loc;
      std::string op = "is";
      if (at_keyword("not")) advance(), op = "is not";
      ExprPtr right = bit_or();
      return node(ExprKind::Compare, loc, list(std::move(left), std::move(right)), op);
    }
    if (at_keyword("in") || at_keyword("not")) error(peek().loc, "operator '" + peek().text + "' is not supported");
    return left;
  }

  // Python's bitwise levels: | below ^ below &, all below shifts and + -.
  ExprPtr bit_or() { return bit_level("|", &Parser::bit_xor); }
  ExprPtr bit_xor() { return bit_level("^", &Parser::bit_and); }
  ExprPtr bit_and() { return bit_level("&", &Parser::shift); }

  ExprPtr bit_level(const char* op, ExprPtr (Parser::*operand)()) {
    ExprPtr left = (this->*operand)();
    while (at_op(op)) {
      const Token& t = advance();
      ExprPtr right = (this->*operand)();
      left = node(ExprKind::Binary, t.loc, list(std::move(left), std::move(right)), t.text);
    }
    return left;
  }

  ExprPtr shift() {
    ExprPtr e = arith();
    for (const char* op : {"<<", ">>"})
      if (at_op(op)) error(peek().loc, std::string("bitwise operator '") + op + "' is not supported");
    return e;
  }

  ExprPtr arith() {
    ExprPtr left = term();
    while (at_op("+") || at_op("-")) {
      const Token& t = advance();
      ExprPtr right = term();
      left = node(ExprKind::Binary, t.loc, list(std::move(left), std::move(right)), t.text);
    }
    return left;
  }

  ExprPtr term() {
    ExprPtr left = factor();
    while (at_op("*") || at_op("/") || at_op("//") || at_op("%") || at_op("@")) {
      const Token& t = advance();
      ExprPtr right = factor();
      left = node(ExprKind::Binary, t.loc, list(std::move(left), std::move(right)), t.text);
    }
    return left;
  }

  ExprPtr factor() {
    if (at_op("-") || at_op("+") || at_op("~")) {
      Nesting nesting(*this, peek().loc);
      const Token& t = advance();
      ExprPtr operand = factor();
      return node(ExprKind::Unary, t.loc, list(std::move(operand)), t.text);
    }
    return power();
  }

  ExprPtr power() {
    ExprPtr base = primary();
    if (!at_op("**")) return base;
    const Token& t = advance();
    ExprPtr exponent = factor();  // right-associative, binds tighter than unary minus on the left
    return node(ExprKind::Binary, t.loc, list(std::move(base), std::move(exponent)), "**");
  }

  ExprPtr primary() {
    ExprPtr e = atom();
    while (true) {
      if (at_op("(")) {
        e = call(std::move(e));
      } else if (at_op("[")) {
        SourceLoc loc = advance().loc;
        ExprPtr index = subscript_list();
        expect_op("]");
        e = node(ExprKind::Subscript, loc, list(std::move(e), std::move(index)));
      } else if (at_op(".")) {
        advance();
        SourceLoc loc = peek().loc;
        std::string name = expect_name("an attribute name");
        e = node(ExprKind::Attribute, loc, list(std::move(e)), name);
      } else {
        return e;
      }
    }
  }

  ExprPtr call(ExprPtr callee) {
    SourceLoc loc = advance().loc;
    std::vector<ExprPtr> args;
    args.push_back(std::move(callee));
    std::vector<Keyword> keywords;
    while (!at_op(")")) {
      if (at_op("*") || at_op("**")) error(peek().loc, "'" + peek().text + "' argument unpacking is not supported");
      if (at(Tok::Name) && peek(1).kind == Tok::Op && peek(1).text == "=") {
        Keyword k;
        k.loc = peek().loc;
        k.name = advance().text;
        advance();
        for (const Keyword& other : keywords)
          if (other.name == k.name) error(k.loc, "keyword argument '" + k.name + "' repeated");
        k.value = expression();
        keywords.push_back(std::move(k));
      } else {
        if (!keywords.empty()) error(peek().loc, "positional argument follows keyword argument");
        args.push_back(expression());
      }
      if (!accept_op(",")) break;
    }
    expect_op(")");
    ExprPtr e = node(ExprKind::Call, loc, std::move(args));
    for (const Keyword& k : keywords) e->depth = std::max(e->depth, k.value->depth + 1);
    e->keywords = std::move(keywords);
    return e;
  }

  ExprPtr subscript_list() {
    SourceLoc loc = peek().loc;
    ExprPtr first = subscript();
    if (!at_op(",")) return first;
    std::vector<ExprPtr> items;
    items.push_back(std::move(first));
    while (accept_op(",")) {
      if (at_op("]")) break;
      items.push_back(subscript());
    }
    return node(ExprKind::Tuple, loc, std::move(items));
  }

  ExprPtr subscript() {
    SourceLoc loc = peek().loc;
    ExprPtr lower;
    if (!at_op(":")) {
      lower = expression();
      if (!at_op(":")) return lower;
    }
    expect_op(":");
    ExprPtr upper, step;
    if (!at_op(":") && !at_op(",") && !at_op("]")) upper = expression();
    if (accept_op(":") && !at_op(",") && !at_op("]")) step = expression();
    return node(ExprKind::Slice, loc, list(std::move(lower), std::move(upper), std::move(step)));
  }

  ExprPtr atom() {
    const Token& t = peek();
    switch (t.kind) {
      case Tok::Name: advance(); return node(ExprKind::Name, t.loc, {}, t.text);
      case Tok::Int: advance(); return node(ExprKind::Int, t.loc, {}, t.text);
      case Tok::Float: {
        advance();
        ExprPtr e = node(ExprKind::Float, t.loc, {}, t.text);
        e->number = std::strtod(t.text.c_str(), nullptr);
        return e;
      }
      case Tok::String: {
        ExprPtr e = node(ExprKind::String, t.loc, {}, advance().text);
        while (at(Tok::String)) e->text += advance().text;  // "a" "b" is "ab"
        return e;
      }
      case Tok::Keyword:
        if (t.text == "None") return advance(), node(ExprKind::None, t.loc);
        if (t.text == "True" || t.text == "False") {
          advance();
          ExprPtr e = node(ExprKind::Bool, t.loc, {}, t.text);
          e->number = t.text == "True";
          return e;
        }
        if (t.text == "yield" || t.text == "await") error(t.loc, "'" + t.text + "' is not supported");
        unexpected("an expression");
      case Tok::Op:
        if (t.text == "...") return advance(), node(ExprKind::Ellipsis, t.loc);
        if (t.text == "(") return parenthesized();
        if (t.text == "[") return bracketed(ExprKind::List, "]");
        if (t.text == "{") return dict();
        unexpected("an expression");
      default: unexpected("an expression");
    }
  }

  ExprPtr parenthesized() {
    SourceLoc loc = advance().loc;
    if (accept_op(")")) return node(ExprKind::Tuple, loc);
    ExprPtr e = expression_list();
    expect_op(")");
    e->parenthesized = true;
    return e;
  }

  ExprPtr bracketed(ExprKind kind, const char* close) {
    SourceLoc loc = advance().loc;
    std::vector<ExprPtr> items;
    while (!at_op(close)) {
      items.push_back(expression());
      if (!accept_op(",")) break;
    }
    expect_op(close);
    return node(kind, loc, std::move(items));
  }

  ExprPtr dict() {
    SourceLoc loc = advance().loc;
    std::vector<ExprPtr> items;
    while (!at_op("}")) {
      items.push_back(expression());
      expect_op(":");
      items.push_back(expression());
      if (!accept_op(",")) break;
    }
    expect_op("}");
    return node(ExprKind::Dict, loc, std::move(items));
  }

  std::vector<Token> tokens_;
  size_t pos_ = 0;
  int depth_ = 0;
};

}  // namespace

Module parse_module(const std::shared_ptr<const SourceFile>& file) {
  Module module;
  module.file = file;
  module.body = Parser(tokenize(file)).module();
  return module;
}

}  // namespace axon::lang
