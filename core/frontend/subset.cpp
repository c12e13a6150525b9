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
      {"match statements", "match statements are not supported: test the cases with if/elif/else"},
  };
  return m;
}

class Checker {
 public:
  Checker(const FunctionDef& fn, const ModuleScope& scope, HintSpelling hints)
      : fn_(fn), scope_(scope), hints_(hints) {}

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
               p.default_value->loc);
    }
    // Annotations are not values: any is accepted (CPython evaluates those
    // of the signature when verify imports the file).
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

  // The call of a member of the math module (`math.floor(x)`, or `floor(x)`
  // after `from math import floor`).
  [[gnu::noinline]] void math_call(const std::string& member, const std::string& spelt, const Expr& call) {
    const MathMember m = math_member(member);
    if (m.kind == MathKind::Composed) return;
    if (m.kind == MathKind::Constant)
      reject("'" + spelt + "' is a number, not a function: use it without calling it", call.loc);
    if (m.kind == MathKind::Unknown)
      reject("module 'math' has no member '" + member + "'", call.loc);
    reject("calling '" + spelt + "' is not supported yet: of the math module a compiled function can use " +
               math_supported_text(),
           call.loc);
  }

  // A branch's statements: one outside the subset keeps its error for the
  // lowering (Stmt::deferred), which raises it only where the branch can run.
  void branch(const std::vector<StmtPtr>& stmts) {
    for (const StmtPtr& s : stmts) {
      const int loops = loops_;
      s->deferred.reset();
      try {
        stmt(*s);
      } catch (const Reject& r) {
        loops_ = loops;
        s->deferred = r.d;
      }
    }
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
        // A call may stand alone (a helper run for its raise and assert
        // statements); the lowering refuses one whose value would be lost.
        if (s.value->kind == ExprKind::Call) return;
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
        branch(s.body);
        branch(s.orelse);
        return;
      case StmtKind::For:
        target(*s.targets[0]);
        expr(*s.value, /*range_allowed=*/true);
        ++loops_;
        block(s.body);
        --loops_;
        block(s.orelse);
        return;
      case StmtKind::Import:
        if (Status st = check_import(s); !st) throw Reject{st.error()};
        return;
      case StmtKind::Raise:
        raised(s);
        return;
      case StmtKind::Assert:
        expr(*s.value);
        if (s.cause && s.cause->kind != ExprKind::String)
          reject("the message of an assert must be a string literal", s.cause->loc);
        return;
      case StmtKind::Def:
        reject("nested function definitions (closures) are not supported: define '" + s.def->name +
                   "' at module level and inline its body here",
               s.loc);
      case StmtKind::Unsupported:
        reject(unsupported_message(s.text), s.loc);
    }
  }

  // raise ValueError / raise ValueError("literal message"), with a builtin
  // exception class.
  void raised(const Stmt& s) {
    static const std::set<std::string> builtin = {
        "ArithmeticError", "AssertionError", "Exception", "IndexError", "KeyError", "LookupError",
        "NotImplementedError", "OverflowError", "RuntimeError", "TypeError", "ValueError", "ZeroDivisionError"};
    if (!s.value)
      reject("a bare 'raise' re-raises the exception being handled, and a compiled function handles none: raise a "
             "builtin exception, e.g. raise ValueError(\"...\")",
             s.loc);
    const Expr& e = *s.value;
    const Expr& cls = e.kind == ExprKind::Call ? *e.kids[0] : e;
    const bool literal = e.kind != ExprKind::Call || e.kids.size() == 1 ||
                         (e.kids.size() == 2 && e.kids[1]->kind == ExprKind::String && e.problem.empty());
    if (cls.kind != ExprKind::Name || !builtin.count(cls.text) || !literal)
      reject("raise is supported with a builtin exception class and a literal message, e.g. raise "
             "ValueError(\"x must be positive\")",
             e.loc);
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
               t.loc);
      case ExprKind::Attribute:
        reject("assigning to an attribute ('x." + t.text + " = v') is not supported: use a plain variable", t.loc);
      case ExprKind::Unsupported:
        reject(unsupported_message(t.text), t.loc);
      default:
        reject("cannot assign to this expression: the target must be a name or a tuple of names", t.loc);
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
                 e.loc);
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
      case ExprKind::Call:
        callee(e, range_allowed);
        for (std::size_t i = 1; i < e.kids.size(); ++i) expr(*e.kids[i]);
        return;
      case ExprKind::Subscript:
        expr(*e.kids[0]);
        if (e.kids[1]->kind == ExprKind::Tuple)
          reject("indexing with several indices ('a[i, j]') is not supported: write a[i][j]", e.kids[1]->loc);
        expr(*e.kids[1]);
        return;
      case ExprKind::Attribute:
        attribute(e);
        return;
      case ExprKind::Unsupported:
        reject(unsupported_message(e.text), e.loc);
    }
  }

  // What a call may name, and its argument list (out of line: expr()
  // recurses once per level of an expression).
  [[gnu::noinline]] void callee(const Expr& e, bool range_allowed) {
    {
        const Expr& f = *e.kids[0];
        if (f.kind == ExprKind::Attribute && scope_.is_math_module(*f.kids[0])) {
          math_call(f.text, describe(f), e);
        } else if (f.kind == ExprKind::Attribute) {
          reject("calling '" + describe(f) + "' is not supported: methods and other modules' functions cannot be "
                 "compiled; only " + builtin_list_text() + ", the functions of this file and the math module's " +
                 math_supported_text() + " can be called",
                 e.loc);
        } else if (f.kind != ExprKind::Name) {
          reject("only the builtins " + builtin_list_text() + " and functions of this file can be called", e.loc);
        } else if (f.text == fn_.name) {
          reject("recursion is not supported: '" + f.text + "' calls itself; write the computation as a bounded loop",
                 e.loc);
        } else if (f.text == "range" && !range_allowed) {
          reject("range() is only supported as the iterable of a for loop ('for i in range(N)')", e.loc);
        } else if (const ImportBinding* b = scope_.import(f.text); b && b->module == "math" && !b->member.empty()) {
          math_call(b->member, f.text, e);
        } else if (f.text != "range" && !is_supported_builtin(f.text) && !scope_.functions.count(f.text)) {
          reject("calling '" + f.text + "' is not supported: only " + builtin_list_text() +
                     ", the functions of this file and the math module's " + math_supported_text() + " can be called",
                 e.loc);
        }
        // round(x, ndigits=2) is the one keyword argument accepted (a common spelling).
        const bool round_ndigits = f.kind == ExprKind::Name && f.text == "round" &&
                                   e.keywords == std::vector<std::string>{"", "ndigits"};
        if (!e.problem.empty() && !round_ndigits)
          reject(e.problem + " are not supported in calls: pass plain positional arguments", e.problem_loc);
    }
  }

  [[gnu::noinline]] void attribute(const Expr& e) {
        if (scope_.is_math_module(*e.kids[0])) {
          const MathMember m = math_member(e.text);
          if (m.kind == MathKind::Constant) return;
          if (m.kind == MathKind::Unknown) reject("module 'math' has no member '" + e.text + "'", e.loc);
          if (m.kind == MathKind::Composed) reject("'" + describe(e) + "' is a function: call it", e.loc);
          if (e.text == "inf" || e.text == "nan")
            reject("'" + describe(e) + "' is not supported: a compiled function computes with finite numbers only "
                   "(an infinite or NaN value is an error wherever it appears)",
                   e.loc);
          reject("'" + describe(e) + "' is a function: calling it is not supported yet", e.loc);
        }
        reject("attribute access ('" + describe(e) + "') is not supported: use plain names, the builtins " +
                   builtin_list_text() + " and the math module",
               e.loc);
  }

  const FunctionDef& fn_;
  const ModuleScope& scope_;
  HintSpelling hints_;
  int loops_ = 0;
};

}  // namespace

namespace {
/// The builtins the lowering composes from other ops (lower_exprs.cpp's call).
constexpr const char* kComposed[] = {"abs", "min", "max", "round", "int", "float", "pow", "divmod", "isinstance", "len"};
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
    if (const OpInfo& row = op_info(static_cast<Op>(k)); !row.python.empty() && !row.has(kMathModule))
      names.emplace_back(row.python);
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

Status check_subset(const FunctionDef& fn, const ModuleScope& scope, HintSpelling hints) {
  try {
    Checker(fn, scope, hints).run();
  } catch (const Reject& r) {
    return r.d;
  }
  return ok_status();
}

}  // namespace tc::py
