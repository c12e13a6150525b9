#pragma once
/// Syntax tree of a Python module as far as the frontend needs it. The
/// parser accepts the shape of most Python so that constructs outside the
/// subset become `Unsupported` nodes, rejected with a located message only
/// when the chosen function uses them (other functions of the file may use
/// anything syntactically valid).
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/diagnostic.h"
#include "base/source.h"

namespace tc::py {

enum class ExprKind {
  Name,         ///< text = identifier
  Number,       ///< number, is_float, too_large
  Bool,         ///< number = 0/1
  NoneLit,
  String,       ///< a string literal (docstrings are skipped; elsewhere rejected)
  Tuple,        ///< kids = items
  List,         ///< kids = items
  Binary,       ///< text = operator ("+", "//", "**", "|", ...), kids = {left, right}
  Unary,        ///< text = "-", "+", "~" or "not", kids = {operand}
  BoolOp,       ///< text = "and" / "or", kids = operands (two or more)
  Compare,      ///< kids = operands, ops = operators between them ("<", "is not", "in", ...)
  IfExp,        ///< kids = {test, body, orelse}
  Call,         ///< kids = {function, args...}; problem set for keyword or starred arguments
  Subscript,    ///< kids = {value, index}
  Attribute,    ///< text = attribute name, kids = {value}
  Unsupported,  ///< text = what it is ("lambda expressions", ...), kids may hold parsed parts
};

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

struct Expr {
  ExprKind kind = ExprKind::Unsupported;
  SourceLoc loc;    ///< where the expression starts (inside any parentheses around it)
  SourceLoc outer;  ///< where it starts including parentheses around it
  std::string text;
  double number = 0.0;
  bool is_float = false;
  bool too_large = false;
  std::vector<ExprPtr> kids;
  std::vector<std::string> ops;
  std::vector<SourceLoc> op_locs;  ///< Compare: where each operator is
  std::string problem;             ///< Call: why its argument list is unsupported (keywords, *args)
  std::vector<std::string> keywords; ///< Call: per argument, its keyword ("" positional, "*" unpacked)
  SourceLoc problem_loc;
  int depth = 1;                   ///< height of the tree below (bounded by the parser)
};

enum class StmtKind {
  Expr,         ///< value
  Assign,       ///< targets (a = b = value), value
  AugAssign,    ///< targets[0], text = operator without '=', value
  AnnAssign,    ///< targets[0], annotation, value (may be null)
  Return,       ///< value (may be null)
  Pass,
  Break,
  Continue,
  If,           ///< value = test, body, orelse (an elif is a nested If in orelse)
  For,          ///< targets[0] = target, value = iterable, body, orelse
  Def,          ///< def
  Import,       ///< `import M [as A]` / `from M import N [as A], ...` (imports: the names it binds)
  Raise,        ///< value = the exception (may be null); cause = the `from` part (may be null)
  Assert,       ///< value = the test, cause = the message (may be null)
  Unsupported,  ///< text = what it is; body/orelse hold any parsed nested blocks
};

struct Stmt;
using StmtPtr = std::unique_ptr<Stmt>;
struct FunctionDef;

/// One name an import binds: `import math as m` binds "m" to the module
/// (member empty); `from math import sqrt as s` binds "s" to member "sqrt";
/// `from math import *` has member "*".
struct ImportedName {
  std::string member;
  std::string as;
  SourceLoc loc;
};

struct Stmt {
  StmtKind kind = StmtKind::Pass;
  SourceLoc loc;
  std::vector<ExprPtr> targets;
  ExprPtr value;
  ExprPtr annotation;
  ExprPtr cause;  ///< Raise: `from X`; Assert: the message
  std::string text;
  std::vector<StmtPtr> body;
  std::vector<StmtPtr> orelse;
  std::unique_ptr<FunctionDef> def;
  std::vector<ImportedName> imports;  ///< Import: text = the module ("math", "__future__", "a.b")
  /// Set by the subset check on a statement of an if/else branch that is
  /// outside the subset: the resolver skips it and the lowering raises this
  /// error only if it reaches the statement (a branch the domains rule out,
  /// such as `if not isinstance(n, int):` of an int, is never reached).
  mutable std::optional<Diagnostic> deferred;
};

struct Param {
  std::string name;
  SourceLoc loc;
  ExprPtr annotation;
  ExprPtr default_value;
  std::string problem;  ///< "*args", "**kwargs", "keyword-only marker", ...
};

struct FunctionDef {
  std::string name;
  SourceLoc loc;       ///< the `def` keyword (or `async`)
  SourceLoc name_loc;
  bool is_async = false;
  std::vector<ExprPtr> decorators;
  std::vector<SourceLoc> decorator_locs;  ///< the '@' of each decorator
  std::vector<Param> params;
  ExprPtr returns;
  std::vector<StmtPtr> body;
};

struct Module {
  std::vector<StmtPtr> body;
};

}  // namespace tc::py
