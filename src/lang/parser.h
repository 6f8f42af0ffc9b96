// Recursive-descent parser: tokens to a Module syntax tree.
#pragma once

#include "lang/ast.h"

namespace axon::lang {

/// Nesting deeper than this (brackets, operators, calls) is rejected with a
/// clear error instead of exhausting the stack.
constexpr int kMaxNesting = 200;

/// Parses a whole file. Syntax errors, and statements the language does not
/// have (loops, if, class, ...), are UserErrors at their location.
Module parse_module(const std::shared_ptr<const SourceFile>& file);

}  // namespace axon::lang
