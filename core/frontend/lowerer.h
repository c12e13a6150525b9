#pragma once
// The Lowerer: one function's walk from the resolved syntax tree to circuit
// nodes. It reads the resolver's results (names, typed operators, builtins,
// the signature, static types and the errors found there; resolver.h) and
// adds what differs per loop iteration: constant values, intervals, branch
// narrowing, predication, budgets. Its jobs live in separate files:
// lower_ops.cpp (node creation, budgets, value-level operations),
// lower_exprs.cpp (names, branch narrowing, expressions), lower_stmts.cpp
// (statements, predicated control flow, loop expansion) and lower.cpp (the
// entry point and the final pruning and warnings).
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "frontend/ast.h"
#include "frontend/compile.h"
#include "frontend/const_table.h"
#include "frontend/lower_value.h"
#include "frontend/resolver.h"
#include "ir/builder.h"

namespace tc::py::lowering {

class Lowerer {
 public:
  Lowerer(const FunctionDef& fn, const CompileOptions& o, const Resolution& res)
      : fn_(fn), opts_(o), res_(res), b_(o.semantics, o.surrogate, o.temperature, o.dtype),
        f32_(o.dtype == Dtype::Float32) {}
  CompileOutput run();
 private:
  // ---- the resolver's facts -------------------------------------------------
  // Out of line, like the other helpers expr() calls below: expr() recurses
  // once per level of an expression (up to 1,000), so what gets inlined into
  // it is paid for in every frame.
  [[gnu::noinline]] const ExprInfo& facts(const Expr& e) const;
  [[gnu::noinline]] const StmtInfo& facts(const Stmt& s) const;
  // ---- helpers: rounding, budgets, node creation -----------------------------
  double rnd(double v) const { return f32_ ? round_f32(v) : v; }
  double limit() const { return exact_limit(opts_.dtype); }
  std::string limit_text() const { return exact_limit_text(opts_.dtype); }
  void check_nodes(SourceLoc loc);
  void check_exact(double lo, double hi, SourceLoc loc, const std::string& what);
  // The node holding `v`; a constant becomes a node at its own location, or
  // at `fallback` (the expression that needs it) for synthesized ones.
  Value mat(const Val& v, SourceLoc fallback);
  // Wide gathers cost memory per argument, not per node, so arguments have
  // their own budget (a multiple of the node budget, raised with it).
  void check_arguments(std::size_t more, SourceLoc loc);
  // Saturates rather than wraps: clients refuse a node budget past
  // SIZE_MAX / kArgumentsPerNode (options/option_table.h), a C++ caller may not.
  std::size_t max_arguments() const {
    constexpr std::size_t kMost = static_cast<std::size_t>(-1);
    return opts_.max_nodes > kMost / kArgumentsPerNode ? kMost : opts_.max_nodes * kArgumentsPerNode;
  }
  // A list is expanded to one value per element at compile time: the node
  // budget bounds its length too, checked before it is built.
  void check_list(std::size_t scalars, SourceLoc loc);
  // Emits `op`; the result's interval is the op's transfer function over the
  // arguments' intervals (ival::apply, shared with the interval analysis)
  // unless the caller knows a tighter one.
  Val emit(Op op, const std::vector<Val>& args, SourceLoc loc, unsigned ty,
           std::optional<Interval> range = std::nullopt);
  // Whether the node emit() made for `op` over `args`, with result `r`, can
  // fail at run time (Val::may_fail).
  bool can_fail(Op op, const std::vector<Val>& args, const Val& r) const;
  // ---- value-level operations ----------------------------------------------------
  Val not_(const Val& c, SourceLoc loc);
  // select(c, a, b) with c a bool wire; arrays are selected element by element.
  Val sel(const Val& c, const Val& a, const Val& b, SourceLoc loc);
  Val and_(const Val& x, const Val& y, SourceLoc loc) { return sel(x, y, cbool(false, loc), loc); }
  Val or_(const Val& x, const Val& y, SourceLoc loc) { return sel(x, cbool(true, loc), y, loc); }
  const Val& scalar(const Val& v, SourceLoc loc, const char* what);
  Val truth(const Val& v, SourceLoc loc);
  Val compare(CmpOp op, const Val& a, const Val& b, SourceLoc loc);
  Val arith(ArithOp op, const Val& a, const Val& b, SourceLoc loc, const char* what = nullptr);
  // Lists and tuples: concatenation and repetition by a constant, as Python does.
  Val array_arith(ArithOp op, const Val& a, const Val& b, SourceLoc loc);
  Val neg(const Val& a, SourceLoc loc);
  Val power(const Val& a, const Val& e, SourceLoc loc);
  Val index(const Val& arr, const Val& i, SourceLoc loc);
  Val gather(const std::vector<Val>& items, const Val& idx, SourceLoc loc);
  // ---- branch narrowing ----------------------------------------------------------
  // Inside `if x < 10:` the variable x is below 10, and on the other branch
  // at least 10. Narrowing those intervals (the wire is unchanged) keeps the
  // exactness check from refusing guarded growth such as
  // `if x < 1000: x = x * 2` in a loop. Sound because a branch's values are
  // only evaluated when the branch is taken (select is lazy).
  std::optional<double> const_of(const Expr& e, const Env& env) const;
  void narrow(const std::string& name, CmpOp op, double c, Env& env);
  void refine(const Expr& cond, bool truth, Env& env);
  // ---- names -----------------------------------------------------------------------
  [[gnu::noinline]] Val read(const Expr& name, const ExprInfo& info, const Env& env);
  void collect_nodes(const Val& v, std::vector<NodeId>& out);
  void assign(const Expr& t, const Val& v, Env& env, bool silent);
  Env parameters();
  // ---- expressions -------------------------------------------------------------------
  // An expression's value on this path; its per-iteration type must lie
  // within the resolver's static type (checked: a mismatch is an internal
  // error, located, never a wrong circuit).
  Val expr(const Expr& e, const Env& env);
  Val expr_value(const Expr& e, const ExprInfo& info, const Env& env);
  [[gnu::noinline]] void check_static_type(const Val& v, const StaticType& t, const Expr& e) const;
  [[gnu::noinline]] Val list(const Expr& e, const Env& env);
  // `x if c else y`: only the chosen side runs (a select), each side with
  // the intervals its branch of the condition allows.
  [[gnu::noinline]] Val if_exp(const Expr& e, const Env& env);
  // `a and b and c` returns the first falsy operand, else the last one.
  Val bool_op(const Expr& e, const Env& env);
  // `a < b < c` is `a < b and b < c` with b evaluated once.
  Val comparison(const Expr& e, const ExprInfo& info, const Env& env);
  [[gnu::noinline]] Val call(const Expr& e, const ExprInfo& info, const Env& env);
  Val table_op(Op op, const std::string& f, const std::vector<Val>& args, SourceLoc loc);  ///< relu(x), sigmoid(x), ...
  // ---- composed builtins, the math module and helper functions (lower_calls.cpp) --------
  // round, int, float, pow, divmod, isinstance and len.
  Val builtin_call(Builtin b, const ExprInfo& info, const std::string& f, const std::vector<Val>& args, SourceLoc loc);
  Val math_call(const std::string& member, const std::vector<Val>& args, SourceLoc loc);
  /// math.f(x) of a math-module op (ir/math_functions.h): its node, behind
  /// a raise of ValueError where x is outside f's domain.
  Val math_op(Op op, const Val& arg, SourceLoc loc);
  // A function of the same file, lowered in place with its parameters bound
  // to the arguments' values (the resolver refused recursion).
  Val inline_call(const FunctionDef& g, const std::vector<Val>& args, SourceLoc loc);
  // A call on its own line (`check(x)`): a function of the same file whose
  // value is dropped but whose raise and assert statements still end the
  // caller on the paths where they run, as CPython's exception would.
  Flow call_statement(const Expr& e, const Env& env);
  // On which paths `v` (a function's returned value) is one of its raises.
  Val raised_on(const Val& v, SourceLoc loc);
  // Whether `v` can fail on a path where it is not a raise.
  bool fails_unraised(const Val& v) const;
  // Python's float-to-int roundings, composed from floordiv, neg and select;
  // each result is an int whose interval is checked against the exact limit.
  Val floor_of(const Val& x, SourceLoc loc, const char* what);
  Val ceil_of(const Val& x, SourceLoc loc, const char* what);
  Val trunc_of(const Val& x, SourceLoc loc, const char* what);
  Val round_half_even(const Val& x, SourceLoc loc);
  Val round_digits(const Val& x, int n, SourceLoc loc);  // round(x, n) of a float
  Val as_float(const Val& x, SourceLoc loc);
  // ---- statements --------------------------------------------------------------------
  Flow block(const std::vector<StmtPtr>& stmts, Env env, bool function_body = false);
  Flow statement(const Stmt& s, const Env& env);
  Env merge_env(const Val& c, const Env& a, const Env& b, SourceLoc loc);
  std::optional<Val> pick_rv(const Val& c, const Flow& a, const Flow& b, SourceLoc loc);
  Env pick_env(const Val& c, const Val& fa, const Env& ea, const Val& fb, const Env& eb, SourceLoc loc);
  // Both branches were lowered from the same variables; c picks one.
  Flow if_merge(const Val& c, Flow a, Flow b, SourceLoc loc);
  // The return value, break and continue of r: yes's where c holds, else no's.
  void merge_exits(const Val& c, const Flow& yes, const Flow& no, Flow& r, SourceLoc loc);
  // f then g, where g was lowered from f's fall-through variables.
  Flow seq(Flow f, Flow g, SourceLoc loc);
  Flow for_loop(const Stmt& s, const Env& env);
  // A raise (or a failed assert) reached on this path: it leaves the
  // function like a return whose value is a raise node (lower_raise.cpp).
  Flow raising(const std::string& exception, SourceLoc loc, const Env& env);
  // "ValueError: message" of `raise ValueError("message")` (the subset
  // checked the form), and "AssertionError[: message]" of an assert.
  std::string raised_exception(const Stmt& s);
  // ---- finishing: unused values --------------------------------------------------------
  // Drops nodes no output needs (inputs stay: they are the function's
  // signature) and warns about assignments whose value nothing needs.
  Program prune(Program p, Diagnostics& warnings);
  // ---- state of the walk ---------------------------------------------------------------
  const FunctionDef& fn_;
  const CompileOptions& opts_;
  const Resolution& res_;
  Builder b_;
  bool f32_;
  ConstTable consts_;  // constant nodes by (value bits, line, column)
  std::vector<NodeId> inputs_;  // the function's parameters: the only signature nodes it makes
  // Assignments that may be warned about as never used (silent ones, loop
  // targets and _names, are not recorded), their nodes, and their sites in
  // the order first seen.
  std::vector<DefRecord> defs_;
  std::vector<NodeId> def_nodes_;
  std::map<std::pair<SourceLoc, std::string>, int> site_ids_;
  std::vector<std::pair<SourceLoc, std::string>> sites_;
  std::vector<std::pair<SourceLoc, NodeId>> conditions_;  // dynamic if-statement conditions
  std::optional<Val> ret_shape_;
  // The sides of each select made over a value with a raise (raised_on walks them).
  struct SelectSides {
    Val c, a, b;
  };
  std::map<std::uint32_t, SelectSides> select_sides_;
  std::size_t iterations_ = 0;
  std::size_t arguments_ = 0;        // node arguments emitted so far (the fan-in budget)
  std::vector<LoopStep> loop_path_;  // enclosing range() iterations, outermost first
};

}  // namespace tc::py::lowering
