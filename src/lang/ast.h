// The syntax tree of a program file, as the parser builds it.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "support/diag.h"

namespace axon::lang {

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;
struct FunctionDef;

enum class ExprKind {
  Name,       // text
  Int,        // text (decimal digits)
  Float,      // number
  String,     // text
  Bool,       // number (0 or 1)
  None,
  Ellipsis,
  Unary,      // text = "-", "+", "~", "not"; args[0]
  Binary,     // text = operator; args[0], args[1]
  Compare,    // text = operator (also "is", "is not"); args[0], args[1] (a chain is an error in the parser)
  BoolOp,     // text = "and" or "or"; args[0], args[1]
  IfElse,     // args[1] if args[0] else args[2]
  Lambda,     // lambda: a FunctionDef whose body returns one expression
  Call,       // args[0] = callee, args[1..] = positional; keywords
  Attribute,  // args[0] . text
  Subscript,  // args[0] [ args[1] ]   (several indices arrive as a Tuple)
  Slice,      // args = {lower, upper, step}, each possibly null
  Tuple,      // args
  List,       // args
  Dict,       // args = key, value, key, value, ...
};

struct Keyword {
  std::string name;
  ExprPtr value;
  SourceLoc loc;
};

struct Expr {
  ExprKind kind;
  SourceLoc loc;
  std::string text;
  double number = 0.0;
  std::vector<ExprPtr> args;  // may hold nulls only in a Slice
  std::vector<Keyword> keywords;
  bool parenthesized = false;  // "(a, b)" rather than "a, b"
  int depth = 1;               // height of this subtree, bounded by the parser
  std::shared_ptr<FunctionDef> lambda;  // Lambda
};

struct Stmt;
using StmtPtr = std::unique_ptr<Stmt>;

struct Param {
  std::string name;
  ExprPtr annotation;  // may be null
  ExprPtr default_value;
  SourceLoc loc;
};

struct FunctionDef {
  std::string name;
  std::vector<Param> params;
  ExprPtr returns;  // may be null
  std::vector<StmtPtr> body;
  SourceLoc loc;
};

enum class StmtKind {
  Assign,     // targets = value (a = b = value has two targets)
  AugAssign,  // targets[0] op= value; text = op without '='
  Return,     // value (may be null)
  Expr,       // value
  Pass,
  Import,     // text = module, alias = bound name
  Def,        // def
  If,         // if value: body, else: orelse (an elif is an If alone in orelse)
};

struct Stmt {
  StmtKind kind;
  SourceLoc loc;
  std::vector<ExprPtr> targets;
  ExprPtr value;
  std::string text;
  std::string alias;
  std::unique_ptr<FunctionDef> def;
  ExprPtr annotation;  // Assign: `y: "f32[M, N]" = ...` (may be null)
  std::vector<StmtPtr> body, orelse;  // If
};

struct Module {
  std::shared_ptr<const SourceFile> file;
  std::vector<StmtPtr> body;
};

}  // namespace axon::lang
