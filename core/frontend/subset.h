#pragma once
/// The syntactic half of the subset check: walks one function in source
/// order and rejects the first construct outside the accepted language with
/// a message naming it and what to write instead. Semantic checks come
/// after it: names and static types in the resolver (resolver.h), unbound
/// names on a path, budgets and exactness in the lowering.
#include <set>
#include <string>
#include <vector>

#include "base/result.h"
#include "frontend/ast.h"
#include "frontend/hints.h"
#include "frontend/module_scope.h"

namespace tc::py {

/// Builtins the frontend lowers itself; every other call is rejected. They
/// are the table's ops with a Python spelling (ops.def, python column) and
/// the builtins the lowering composes from other ops (abs, min, max, round,
/// int, float, pow, divmod, isinstance, len).
bool is_supported_builtin(const std::string& name);

/// Every supported builtin in the order messages list them: the table's,
/// in table order, then abs, min and max.
std::vector<std::string> supported_builtins();

/// "relu, sigmoid, abs, min and max": the list for messages.
std::string builtin_list_text();

/// "exactly one argument", "one to three arguments", ...: a builtin's arity.
std::string builtin_arity_text(int min_args, int max_args);

/// Rejects unsupported syntax anywhere in `fn` (dead code included).
/// `scope` holds the module's functions (calls to them are inlined) and
/// imports (the math module's members); `hints` spells the advice
/// (frontend/hints.h).
Status check_subset(const FunctionDef& fn, const ModuleScope& scope, HintSpelling hints = HintSpelling::Cli);

/// The advice for an Unsupported node's description (statements and expressions).
std::string unsupported_message(const std::string& what);

}  // namespace tc::py
