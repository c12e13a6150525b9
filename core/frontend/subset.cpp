#include "frontend/subset.h"

#include <map>

#include "ir/op.h"

namespace tc::py {

namespace {

struct Reject {
  Diagnostic d;
};

[[noreturn]] void reject(std::string msg, SourceLoc loc) { throw Reject{make_error(std::move(msg), loc)}; }

const std::map<std::string, std::string>& advice() {
  static const std::map<std::string, std::string> m = {
      {"while loops", "while loops are not supported: loops must be bounded; use 'for i in range(N)' with literal "
                      "bounds (and 'break' to stop early)"},
      {"try statements", "try statements are not supported: a runtime error (division by zero, index out of range) "
                         "fails the whole evaluation; test the condition with 'if' instead"},
      {"with statements", "with statements are not supported: a compiled function has no resources or side effects"},
      {"class definitions", "class definitions are not supported: compile a single function of numbers"},
      {"global statements", "global statements are not supported: pass the value as a parameter"},
      {"nonlocal statements", "nonlocal statements are not supported: pass the value as a parameter"},
      {"imports", "imports are not supported: only " + builtin_list_text() + " are available, without importing"},
      {"del statements", "del statements are not supported: assign a new value instead"},
      {"assert statements", "assert statements are not supported: return a value that encodes the condition instead"},
      {"raise statements", "raise statements are not supported: a compiled function cannot raise its own errors"},
      {"async for loops", "async for loops are not supported: use 'for i in range(N)'"},
      {"lambda expressions", "lambda expressions are not supported: write the expression inline"},
      {"yield expressions (generators)", "yield is not supported: a compiled function returns one value or a fixed list"},
      {"await expressions", "await is not supported: a compiled function is synchronous"},
      {"list comprehensions", "list comprehensions are not supported: build the list with a for loop over range(N) "
                              "or write the literal list"},
      {"generator expressions", "generator expressions are not supported: use a for loop over range(N)"},
      {"dictionaries and sets", "dictionaries and sets are not supported: use a literal list and an integer index"},
      {"the ellipsis literal '...'", "the ellipsis '...' is not supported: use 'pass' for an empty block"},
      {"slices ('a[i:j]')", "slices are not supported: index single elements, e.g. a[0]"},
      {"assignment expressions (':=')", "assignment expressions (':=') are not supported: assign on its own line"},
      {"starred expressions ('*x')", "starred expressions ('*x') are not supported: list the elements explicitly"},
      {"starred targets ('*x')", "starred assignment targets ('*x') are not supported: unpack a fixed number of values"},
  };
  return m;
}

class Checker {
 public:
  Checker(const FunctionDef& fn, const std::set<std::string>& fns, HintSpelling hints)
      : fn_(fn), fns_(fns), hints_(hints) {}

  void run() {
    if (fn_.is_async) reject("async functions are not supported: define a plain 'def'", fn_.loc);
    if (!fn_.decorators.empty())
      reject("decorators are not supported: remove '@" + describe(*fn_.decorators[0]) +
                 "' (the compiler takes the plain function)",
             fn_.decorator_locs[0]);
    for (const Param& p : fn_.params) {
      if (!p.problem.empty())
        reject(p.problem + " are not supported: give every input as a plain parameter with " +
                   (hints_ == HintSpelling::Cli ? "an --input domain" : "a domain in inputs="),
               p.loc);
      if (p.default_value)
        reject("default parameter values are not supported: remove '= ...' from '" + p.name +
                   "' and give its domain with " + hints::input(hints_, p.name, "DOMAIN"),
               p.default_value->outer);
      if (p.annotation) annotation(*p.annotation);
    }
    if (fn_.returns) annotation(*fn_.returns);
    block(fn_.body, true);
  }

 private:
  static std::string describe(const Expr& e) {
    switch (e.kind) {
      case ExprKind::Name: return e.text;
      case ExprKind::Attribute: return describe(*e.kids[0]) + "." + e.text;
      case ExprKind::Call: return describe(*e.kids[0]);
      default: return "...";
    }
  }

  void annotation(const Expr& e) {
    if (e.kind == ExprKind::Name && (e.text == "int" || e.text == "float" || e.text == "bool")) return;
    reject("type annotations other than int, float and bool are not supported here", e.outer);
  }

  void block(const std::vector<StmtPtr>& stmts, bool function_body = false) {
    for (std::size_t i = 0; i < stmts.size(); ++i) {
      const Stmt& s = *stmts[i];
      if (function_body && i == 0 && s.kind == StmtKind::Expr && s.value->kind == ExprKind::String) continue;  // docstring
      stmt(s);
    }
  }

  void stmt(const Stmt& s) {
    switch (s.kind) {
      case StmtKind::Expr:
        expr(*s.value);
        reject("an expression on its own line has no effect: assign it to a name or return it", s.loc);
      case StmtKind::Assign:
        for (const auto& t : s.targets) target(*t);
        expr(*s.value);
        return;
      case StmtKind::AugAssign: {
        static const std::set<std::string> ok = {"+", "-", "*", "/", "//", "%", "**"};
        if (!ok.count(s.text))
          reject("the operator '" + s.text + "=' is not supported: use + - * / // % or **", s.loc);
        target(*s.targets[0]);
        expr(*s.value);
        return;
      }
      case StmtKind::AnnAssign:
        target(*s.targets[0]);
        if (!s.value) reject("an annotation without a value declares nothing: assign a value ('x: int = 0')", s.loc);
        expr(*s.value);
        return;
      case StmtKind::Return:
        if (!s.value) reject("'return' without a value returns None: return a number or a fixed list of numbers", s.loc);
        expr(*s.value);
        return;
      case StmtKind::Pass:
        return;
      case StmtKind::Break:
      case StmtKind::Continue:
        if (loops_ == 0)
          reject("'" + std::string(s.kind == StmtKind::Break ? "break" : "continue") + "' outside a loop", s.loc);
        return;
      case StmtKind::If:
        expr(*s.value);
        block(s.body);
        block(s.orelse);
        return;
      case StmtKind::For:
        target(*s.targets[0]);
        expr(*s.value, /*range_allowed=*/true);
        ++loops_;
        block(s.body);
        --loops_;
        block(s.orelse);
        return;
      case StmtKind::Def:
        reject("nested function definitions (closures) are not supported: define '" + s.def->name +
                   "' at module level and inline its body here",
               s.loc);
      case StmtKind::Unsupported:
        reject(unsupported_message(s.text), s.loc);
    }
  }

  void target(const Expr& t) {
    switch (t.kind) {
      case ExprKind::Name:
        if (is_supported_builtin(t.text) || t.text == "range")
          reject("'" + t.text + "' is a builtin the compiler provides: assign to another name", t.loc);
        return;
      case ExprKind::Tuple:
      case ExprKind::List:
        for (const auto& k : t.kids) target(*k);
        return;
      case ExprKind::Subscript:
        reject("assigning to a list element ('a[i] = v') is not supported: build a new literal list or keep "
               "separate variables",
               t.outer);
      case ExprKind::Attribute:
        reject("assigning to an attribute ('x." + t.text + " = v') is not supported: use a plain variable", t.outer);
      case ExprKind::Unsupported:
        reject(unsupported_message(t.text), t.outer);
      default:
        reject("cannot assign to this expression: the target must be a name or a tuple of names", t.outer);
    }
  }

  void expr(const Expr& e, bool range_allowed = false) {
    switch (e.kind) {
      case ExprKind::Name:
      case ExprKind::Number:
      case ExprKind::Bool:
        return;
      case ExprKind::NoneLit:
        reject("None is not supported: every path must produce a number", e.loc);
      case ExprKind::String:
        reject("string literals are not supported: a compiled function computes only with numbers, booleans and "
               "fixed lists of them",
               e.loc);
      case ExprKind::Tuple:
      case ExprKind::List:
      case ExprKind::BoolOp:
      case ExprKind::IfExp:
        for (const auto& k : e.kids) expr(*k);
        return;
      case ExprKind::Binary: {
        static const std::set<std::string> ok = {"+", "-", "*", "/", "//", "%", "**"};
        expr(*e.kids[0]);
        if (!ok.count(e.text))
          reject("the operator '" + e.text + "' is not supported: use arithmetic (+ - * / // % **), comparisons "
                 "and and/or/not",
                 e.outer);
        expr(*e.kids[1]);
        return;
      }
      case ExprKind::Unary:
        if (e.text == "~")
          reject("the bitwise operator '~' is not supported: use arithmetic (for integers, ~x is -x - 1)", e.loc);
        expr(*e.kids[0]);
        return;
      case ExprKind::Compare:
        expr(*e.kids[0]);
        for (std::size_t i = 0; i < e.ops.size(); ++i) {
          const std::string& op = e.ops[i];
          if (op == "in" || op == "not in")
            reject("the operator '" + op + "' is not supported: compare with == and combine with 'or'", e.op_locs[i]);
          if (op == "is" || op == "is not")
            reject("the operator '" + op + "' is not supported: compare numbers with == or !=", e.op_locs[i]);
          expr(*e.kids[i + 1]);
        }
        return;
      case ExprKind::Call: {
        const Expr& f = *e.kids[0];
        if (f.kind == ExprKind::Attribute)
          reject("calling '" + describe(f) + "' is not supported: methods and module functions (math.*) cannot be "
                 "compiled; only " + builtin_list_text() + " can be called",
                 e.outer);
        if (f.kind != ExprKind::Name)
          reject("only the builtins " + builtin_list_text() + " can be called", e.outer);
        if (f.text == fn_.name)
          reject("recursion is not supported: '" + f.text + "' calls itself; write the computation as a bounded loop",
                 e.outer);
        if (f.text == "range" && !range_allowed)
          reject("range() is only supported as the iterable of a for loop ('for i in range(N)')", e.outer);
        if (f.text != "range" && !is_supported_builtin(f.text)) {
          if (fns_.count(f.text))
            reject("calling another function ('" + f.text + "') is not supported: inline its body here", e.outer);
          reject("calling '" + f.text + "' is not supported: only " + builtin_list_text() + " can be called", e.outer);
        }
        if (!e.problem.empty())
          reject(e.problem + " are not supported in calls: pass plain positional arguments", e.problem_loc);
        for (std::size_t i = 1; i < e.kids.size(); ++i) expr(*e.kids[i]);
        return;
      }
      case ExprKind::Subscript:
        expr(*e.kids[0]);
        if (e.kids[1]->kind == ExprKind::Tuple)
          reject("indexing with several indices ('a[i, j]') is not supported: write a[i][j]", e.kids[1]->outer);
        expr(*e.kids[1]);
        return;
      case ExprKind::Attribute:
        reject("attribute access ('" + describe(e) + "') is not supported: use plain names and the builtins " +
                   builtin_list_text(),
               e.outer);
      case ExprKind::Unsupported:
        reject(unsupported_message(e.text), e.outer);
    }
  }

  const FunctionDef& fn_;
  const std::set<std::string>& fns_;
  HintSpelling hints_;
  int loops_ = 0;
};

}  // namespace

namespace {
/// The builtins the lowering composes from other ops (lower_exprs.cpp's call).
constexpr const char* kComposed[] = {"abs", "min", "max"};
}  // namespace

bool is_supported_builtin(const std::string& name) {
  if (op_from_python(name)) return true;
  for (const char* c : kComposed)
    if (name == c) return true;
  return false;
}

std::vector<std::string> supported_builtins() {
  std::vector<std::string> names;
  for (int k = 0; k < kOpCount; ++k)
    if (const OpInfo& row = op_info(static_cast<Op>(k)); !row.python.empty()) names.emplace_back(row.python);
  for (const char* c : kComposed) names.emplace_back(c);
  return names;
}

std::string builtin_list_text() {
  const std::vector<std::string> names = supported_builtins();
  std::string text;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) text += i + 1 == names.size() ? " and " : ", ";
    text += names[i];
  }
  return text;
}

std::string builtin_arity_text(int min_args, int max_args) {
  auto words = [](int n) {
    static const char* const small[] = {"no", "one", "two", "three", "four"};
    return n >= 0 && n < 5 ? std::string(small[n]) : std::to_string(n);
  };
  const char* noun = max_args == 1 ? " argument" : " arguments";
  if (min_args == max_args) return "exactly " + words(min_args) + noun;
  if (max_args < 0) return words(min_args) + " or more arguments";
  return words(min_args) + " to " + words(max_args) + noun;
}

std::string unsupported_message(const std::string& what) {
  auto it = advice().find(what);
  if (it != advice().end()) return it->second;
  return what + " are not supported";
}

Status check_subset(const FunctionDef& fn, const std::set<std::string>& functions, HintSpelling hints) {
  try {
    Checker(fn, functions, hints).run();
  } catch (const Reject& r) {
    return r.d;
  }
  return ok_status();
}

}  // namespace tc::py
