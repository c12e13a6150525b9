#pragma once
/// Recursive-descent parser for a Python module (Python 3.11 grammar shape).
/// Nesting is bounded so that hostile input cannot overflow the stack.
#include <string_view>

#include "base/result.h"
#include "frontend/ast.h"

namespace tc::py {

struct ParseLimits {
  int max_nesting = 200;         ///< brackets, unary operators and blocks inside each other
  int max_expression_depth = 1000;  ///< height of an expression tree (long operator chains)
};

/// Parses a whole module. Errors are syntax errors with line and column.
Result<Module> parse_module(std::string_view source, const ParseLimits& limits = {});

}  // namespace tc::py
