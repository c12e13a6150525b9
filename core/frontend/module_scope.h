#pragma once
/// What the names of a module refer to besides a function's own variables:
/// the functions the file defines (callable helpers, inlined at the call),
/// and what `import math` / `from math import ...` bind. Imports of
/// `__future__` and `typing` are accepted and bind names that only
/// annotations may use (an annotation is not a value).
///
/// The math module's members are classed here once: constants the
/// frontend folds (pi, e, tau), functions it composes from the op table's
/// ops with CPython's result bit for bit (floor, ceil, trunc, fabs,
/// radians, degrees, isfinite, isinf, isnan, pow), and the rest, which a
/// compiled function cannot call yet (each needs an op of its own).
#include <map>
#include <optional>
#include <string>

#include "base/result.h"
#include "frontend/ast.h"

namespace tc::py {

/// A name bound by an import: `module` ("math", "typing", "__future__") and
/// the `member` it names ("" for the module itself).
struct ImportBinding {
  std::string module;
  std::string member;
  SourceLoc loc;
};

/// A module-level `NAME = constant expression` (`g = 9.80665`,
/// `K = 8.99 * 10**9`): its value computed as CPython computes it, and its
/// type as the resolver's bits (1 bool, 2 int, 4 float).
struct ModuleConstant {
  double value = 0.0;
  unsigned type = 0;
  SourceLoc loc;
};

struct ModuleScope {
  std::map<std::string, const FunctionDef*> functions;  ///< top-level defs by name
  std::map<std::string, ImportBinding> imports;         ///< bound name -> what it names
  std::map<std::string, ModuleConstant> constants;      ///< module-level constants (the last assignment)
  /// Module-level assignments that are not constants, with the reason.
  std::map<const Stmt*, Diagnostic> not_constant;
  /// The import binding `name` has, if any.
  [[nodiscard]] const ImportBinding* import(const std::string& name) const;
  /// True when `e` names the math module (a Name bound by `import math`).
  [[nodiscard]] bool is_math_module(const Expr& e) const;
};

/// How the frontend treats a member of the math module.
enum class MathKind { Unknown, Constant, Composed, NotYet };
struct MathMember {
  MathKind kind = MathKind::Unknown;
  double value = 0.0;  ///< Constant: its value
  int min_args = 0, max_args = 0;
};
MathMember math_member(const std::string& name);

/// "floor, ceil, trunc, ..." (for messages).
std::string math_supported_text();

/// Checks one import statement (module level or inside a function): math,
/// __future__ and typing may be imported; anything else is a located error
/// naming the module, as is a member the math module does not have.
Status check_import(const Stmt& s);

/// The module's functions, its constants, and the imports at module level
/// and inside the bodies of its functions (their names join one scope: the
/// subset's functions import math for their own use, not to shadow each
/// other). A module-level assignment is a constant when its value is built
/// from number literals, earlier constants, the math module's constants,
/// arithmetic and pow, float, int, abs and round; anything else is recorded
/// in not_constant (compile_module refuses it: verify imports the file).
ModuleScope module_scope(const Module& module);

}  // namespace tc::py
