#pragma once
/// Tokens of the Python subset: Python's own tokenizer rules for indentation,
/// implicit line joining inside brackets, backslash continuations, comments,
/// numbers (1_000, 0x1f, 1e3, .5) and string literals (lexed only so they can
/// be rejected with a location, or skipped as docstrings).
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "base/source.h"

namespace tc::py {

enum class Tok { Name, Number, String, Op, Newline, Indent, Dedent, End };

struct Token {
  Tok kind = Tok::End;
  std::string text;      ///< identifier, operator spelling, or the literal as written
  SourceLoc loc;         ///< 1-based line and column (columns count bytes, as CPython's col_offset + 1)
  double number = 0.0;   ///< Number: its value
  bool is_float = false; ///< Number: written as a float literal
  bool too_large = false;///< Number: an integer literal beyond 2^53 (not exactly representable)
};

/// Splits `source` into tokens. Errors are syntax errors with a location.
/// `max_indent` bounds the indentation depth (no unbounded nesting).
/// `comments`, when given, receives where each comment's '#' is (in order;
/// up to the error when there is one): how the directive comments are told
/// from a '#' inside a string.
Result<std::vector<Token>> tokenize(std::string_view source, int max_indent = 200,
                                    std::vector<SourceLoc>* comments = nullptr);

/// True for Python's reserved words.
bool is_keyword(std::string_view word);

}  // namespace tc::py
