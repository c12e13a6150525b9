// Lowering of one function to the circuit.
//
// Control flow is compiled by predication. Every block is lowered "as if it
// runs" and returns a Flow: the variables on its fall-through path, a
// boolean wire `active` saying whether that path is taken, and what left the
// block early (return, break, continue). Joins become `select` nodes, and
// because exact select evaluates only the chosen branch, a value is computed
// at run time only on the paths where CPython would compute it; so errors
// such as a division by zero behind a guard never fire spuriously.
#include "frontend/lower.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "frontend/subset.h"
#include "ir/builder.h"
#include "ir/kernels.h"

namespace tc::py {

namespace {

// Static Python types a value may have at run time (a bit set: a conditional
// expression may give an int on one path and a float on another).
constexpr unsigned kB = 1, kI = 2, kF = 4;
constexpr double kInf = std::numeric_limits<double>::infinity();

struct Val {
  bool array = false;
  // scalar
  bool is_const = false;
  double c = 0.0;
  Value node;  // valid() when a circuit node holds the value
  unsigned ty = kF;
  double lo = -kInf, hi = kInf;  // interval of every value it can take
  SourceLoc loc;                 // where a constant is written (its node's location)
  // array (literal list or tuple, scalarized at compile time)
  std::vector<Val> items;
  bool tuple = false;
};

Val cnum(double v, unsigned ty, SourceLoc loc) {
  if (!(ty & kF) && v == 0.0) v = 0.0;  // Python's integer zero has no sign
  Val r;
  r.is_const = true;
  r.c = v;
  r.ty = ty;
  r.lo = r.hi = v;
  r.loc = loc;
  return r;
}
Val cbool(bool b, SourceLoc loc = {}) { return cnum(b ? 1.0 : 0.0, kB, loc); }
bool is_true(const Val& v) { return !v.array && v.is_const && v.c != 0.0; }
bool is_false(const Val& v) { return !v.array && v.is_const && v.c == 0.0; }
bool int_like(unsigned ty) { return (ty & (kB | kI)) != 0; }
// An empty interval marks a value on a branch that cannot be taken (its
// condition contradicts the intervals): it never runs, so it constrains nothing.
bool empty(const Val& v) { return !v.array && !v.is_const && v.lo > v.hi; }
void make_empty(double& lo, double& hi) {
  lo = kInf;
  hi = -kInf;
}

bool same(const Val& a, const Val& b) {
  if (a.array != b.array) return false;
  if (a.array) {
    if (a.items.size() != b.items.size()) return false;
    for (std::size_t i = 0; i < a.items.size(); ++i)
      if (!same(a.items[i], b.items[i])) return false;
    return true;
  }
  if (a.is_const && b.is_const)
    return a.c == b.c && std::signbit(a.c) == std::signbit(b.c) && a.ty == b.ty;
  if (a.node.valid() && b.node.valid()) return a.node.id() == b.node.id();
  return false;
}

bool same_shape(const Val& a, const Val& b) {
  if (a.array != b.array) return false;
  if (!a.array) return true;
  if (a.items.size() != b.items.size()) return false;
  for (std::size_t i = 0; i < a.items.size(); ++i)
    if (!same_shape(a.items[i], b.items[i])) return false;
  return true;
}

std::string shape_text(const Val& v) {
  if (!v.array) return "a number";
  return "a list of " + std::to_string(v.items.size()) + " values";
}

struct Binding {
  Val v;
  bool maybe_unbound = false;
  bool conflict = false;  // different shapes on different paths
  std::vector<int> defs;  // assignments that may have produced the value
};
using Env = std::map<std::string, Binding>;

struct Flow {
  Env env;                  // variables on the fall-through path
  Val active = cbool(true); // whether the fall-through path is taken
  bool may_return = false;
  std::optional<Val> rv;    // the returned value, on paths that returned
  Val brk = cbool(false);   // a `break` was taken (innermost loop)
  Env brk_env;
  Val cont = cbool(false);  // a `continue` was taken
  Env cont_env;
};

bool no_exits(const Flow& f) {
  return is_true(f.active) && !f.may_return && is_false(f.brk) && is_false(f.cont);
}

struct Fail {
  Diagnostic d;
};
[[noreturn]] void fail(std::string msg, SourceLoc loc) { throw Fail{make_error(std::move(msg), loc)}; }

std::string num_text(double v) {
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e18) return std::to_string(static_cast<long long>(v));
  if (std::isinf(v)) return v > 0 ? "infinity" : "-infinity";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

void fix_nan(double& lo, double& hi) {
  if (std::isnan(lo) || std::isnan(hi)) {
    lo = -kInf;
    hi = kInf;
  }
}
double safe_mul(double a, double b) { return (a == 0.0 || b == 0.0) ? 0.0 : a * b; }

struct DefRecord {
  std::string name;
  SourceLoc loc;
  bool read = false;
  bool silent = false;  // loop targets and _names: never warned about
  std::vector<NodeId> nodes;
};

class Lowerer {
 public:
  Lowerer(const FunctionDef& fn, const CompileOptions& o, std::set<std::string> fns)
      : fn_(fn), opts_(o), functions_(std::move(fns)), b_(o.semantics, o.surrogate, o.temperature, o.dtype),
        f32_(o.dtype == Dtype::Float32) {}

  CompileOutput run() {
    collect_assigned(fn_.body);
    Env env = parameters();
    Flow f = block(fn_.body, std::move(env), /*function_body=*/true);
    if (!is_false(f.active) || !f.rv) {
      fail("'" + fn_.name + "' can reach the end of its body without a return (it would return None): add a "
           "return statement on every path",
           fn_.name_loc);
    }
    std::vector<std::pair<std::string, Arg>> outs;
    const Val& rv = *f.rv;
    if (rv.array) {
      for (std::size_t i = 0; i < rv.items.size(); ++i)
        outs.emplace_back("result[" + std::to_string(i) + "]", Arg(mat(rv.items[i], fn_.name_loc)));
    } else {
      outs.emplace_back("result", Arg(mat(rv, fn_.name_loc)));
    }
    auto built = b_.build(outs);
    if (!built) {
      Diagnostic d = built.error();
      d.message = "internal error: the lowered circuit is invalid: " + d.message;
      throw Fail{d};
    }
    CompileOutput out;
    out.program = prune(std::move(*built), out.warnings);
    return out;
  }

 private:
  // ---- helpers: rounding, budgets, node creation -----------------------------
  double rnd(double v) const { return f32_ ? round_f32(v) : v; }
  double limit() const { return f32_ ? 16777216.0 : 9007199254740992.0; }
  std::string limit_text() const {
    return f32_ ? "2^24 (beyond it float32, the --dtype, does not represent every integer exactly)"
                : "2^53 (beyond it float64 does not represent every integer exactly)";
  }

  void check_nodes(SourceLoc loc) {
    if (b_.node_count() > opts_.max_nodes)
      fail("the circuit needs more than " + std::to_string(opts_.max_nodes) +
               " nodes (the node budget): raise it with --max-nodes N or use smaller loops",
           loc);
  }

  void check_exact(double lo, double hi, SourceLoc loc, const std::string& what) {
    double l = limit();
    if (lo > -l && hi < l) return;
    double worst = std::fabs(lo) > std::fabs(hi) ? lo : hi;
    std::string reach = std::isfinite(worst) ? "may reach " + num_text(worst) : "is unbounded";
    fail("integer " + what + " " + reach + " given the input domains, beyond " + limit_text() +
             ": narrow the input domains, e.g. --input x=int32:-1000:1000",
         loc);
  }

  // The node holding `v`; a constant becomes a node at its own location, or
  // at `fallback` (the expression that needs it) for synthesized ones.
  Value mat(const Val& v, SourceLoc fallback) {
    TC_ASSERT(!v.array);
    if (v.node.valid()) return v.node;
    if (!v.loc.valid()) {
      Val located = v;
      located.loc = fallback;
      return mat(located, fallback);
    }
    std::uint64_t bits;
    std::memcpy(&bits, &v.c, sizeof bits);
    auto key = std::make_tuple(bits, v.loc.line, v.loc.column);
    auto it = consts_.find(key);
    if (it != consts_.end()) {
      // Shared by several iterations: it belongs to the loops they have in common.
      const std::vector<LoopStep>& had = b_.peek().nodes[static_cast<std::size_t>(it->second.id())].iteration;
      std::size_t common = 0;
      while (common < had.size() && common < loop_path_.size() && had[common] == loop_path_[common]) ++common;
      if (common < had.size())
        b_.set_iteration_of(it->second, std::vector<LoopStep>(had.begin(), had.begin() + static_cast<std::ptrdiff_t>(common)));
      return it->second;
    }
    b_.set_location(v.loc);
    Value n = b_.constant(v.c);
    check_nodes(v.loc);
    consts_.emplace(key, n);
    return n;
  }

  Val emit(std::string_view op, const std::vector<Val>& args, SourceLoc loc, unsigned ty, double lo, double hi) {
    std::vector<Arg> as;
    as.reserve(args.size());
    for (const Val& a : args) as.emplace_back(mat(a, loc));
    b_.set_location(loc);
    Val r;
    r.node = b_.op(op, std::move(as));
    check_nodes(loc);
    r.ty = ty;
    fix_nan(lo, hi);
    r.lo = lo;
    r.hi = hi;
    r.loc = loc;
    return r;
  }

  // ---- value-level operations ----------------------------------------------------
  Val not_(const Val& c, SourceLoc loc) {
    if (c.is_const) return cbool(c.c == 0.0, loc);
    return emit("eq", {c, cnum(0, kI, loc)}, loc, kB, 0, 1);
  }

  // select(c, a, b) with c a bool wire; arrays are selected element by element.
  Val sel(const Val& c, const Val& a, const Val& b, SourceLoc loc) {
    if (c.is_const) return c.c != 0.0 ? a : b;
    TC_ASSERT(same_shape(a, b));
    if (a.array) {
      Val r = a;
      for (std::size_t i = 0; i < a.items.size(); ++i) r.items[i] = sel(c, a.items[i], b.items[i], loc);
      return r;
    }
    if (same(a, b)) {
      // The same wire, but each side may carry a branch-narrowed interval.
      Val r = a;
      r.ty |= b.ty;
      r.lo = std::min(a.lo, b.lo);
      r.hi = std::max(a.hi, b.hi);
      return r;
    }
    if (c.ty == kB && a.is_const && b.is_const && a.ty == kB && b.ty == kB) {
      if (a.c != 0.0 && b.c == 0.0) return c;
      if (a.c == 0.0 && b.c != 0.0) return not_(c, loc);
    }
    return emit("select", {c, a, b}, loc, a.ty | b.ty, std::min(a.lo, b.lo), std::max(a.hi, b.hi));
  }
  Val and_(const Val& x, const Val& y, SourceLoc loc) { return sel(x, y, cbool(false, loc), loc); }
  Val or_(const Val& x, const Val& y, SourceLoc loc) { return sel(x, cbool(true, loc), y, loc); }

  const Val& scalar(const Val& v, SourceLoc loc, const char* what) {
    if (v.array)
      fail(std::string(what) + " needs a number, but this is " + shape_text(v) + ": use one element, e.g. x[0]", loc);
    return v;
  }

  Val truth(const Val& v, SourceLoc loc) {
    if (v.array) fail("a list cannot be used as a condition: test one of its elements", loc);
    if (v.is_const) return cbool(v.c != 0.0, loc);
    if (v.ty == kB) return v;
    return emit("ne", {v, cnum(0, kI, loc)}, loc, kB, 0, 1);
  }

  Val compare(const std::string& op, const Val& a, const Val& b, SourceLoc loc) {
    if (a.array || b.array) fail("comparing lists is not supported: compare their elements", loc);
    if (a.is_const && b.is_const) {
      double x = rnd(a.c), y = rnd(b.c);
      bool r = op == "<" ? x < y : op == "<=" ? x <= y : op == ">" ? x > y : op == ">=" ? x >= y : op == "==" ? x == y : x != y;
      return cbool(r, loc);
    }
    const char* name = op == "<" ? "lt" : op == "<=" ? "le" : op == ">" ? "gt" : op == ">=" ? "ge" : op == "==" ? "eq" : "ne";
    return emit(name, {a, b}, loc, kB, 0, 1);
  }

  Val arith(const std::string& op, const Val& a, const Val& b, SourceLoc loc, const char* what = nullptr) {
    if (a.array || b.array) return array_arith(op, a, b, loc);
    const bool ints = int_like(a.ty) && int_like(b.ty);
    const bool floats = (a.ty & kF) || (b.ty & kF);
    unsigned ty = op == "/" ? kF : (ints ? kI : 0u) | (floats ? kF : 0u);
    if ((op == "/" || op == "//" || op == "%") && b.is_const && b.c == 0.0)
      fail("division by zero: the divisor of '" + op + "' is always 0", loc);
    double lo, hi;
    std::string desc = what ? what : "";
    if (op == "+") {
      lo = a.lo + b.lo, hi = a.hi + b.hi;
      if (!what) desc = "addition";
    } else if (op == "-") {
      lo = a.lo - b.hi, hi = a.hi - b.lo;
      if (!what) desc = "subtraction";
    } else if (op == "*") {
      if (same(a, b)) {
        double p = safe_mul(a.lo, a.lo), q = safe_mul(a.hi, a.hi);
        lo = (a.lo <= 0 && a.hi >= 0) ? 0.0 : std::min(p, q);
        hi = std::max(p, q);
      } else {
        double c1 = safe_mul(a.lo, b.lo), c2 = safe_mul(a.lo, b.hi), c3 = safe_mul(a.hi, b.lo), c4 = safe_mul(a.hi, b.hi);
        lo = std::min({c1, c2, c3, c4}), hi = std::max({c1, c2, c3, c4});
      }
      if (!what) desc = "multiplication";
    } else if (op == "/" || op == "//") {
      if (b.lo <= 0 && b.hi >= 0) {
        double m = std::max(std::fabs(a.lo), std::fabs(a.hi));
        if (op == "//" && !(b.ty & kF)) {
          lo = -m, hi = m;
        } else {
          lo = -kInf, hi = kInf;
        }
      } else {
        double c1 = a.lo / b.lo, c2 = a.lo / b.hi, c3 = a.hi / b.lo, c4 = a.hi / b.hi;
        lo = std::min({c1, c2, c3, c4}), hi = std::max({c1, c2, c3, c4});
        if (op == "//") lo = std::floor(lo), hi = std::floor(hi);
      }
      desc = "floor division";
    } else {  // %
      lo = std::min(b.lo, 0.0), hi = std::max(b.hi, 0.0);
      if (a.lo >= 0 && b.lo > 0) hi = std::min(hi, a.hi);
      desc = "modulo";
    }
    fix_nan(lo, hi);
    if (empty(a) || empty(b)) make_empty(lo, hi);
    else if (ty & kI) check_exact(lo, hi, loc, desc);
    if (a.is_const && b.is_const) {
      double x = rnd(a.c), y = rnd(b.c), r;
      if (op == "+") r = x + y;
      else if (op == "-") r = x - y;
      else if (op == "*") r = x * y;
      else if (op == "/") r = x / y;
      else if (op == "//") r = kernels::py_floordiv(x, y);
      else r = kernels::py_mod(x, y);
      r = rnd(r);
      if (!std::isfinite(r)) fail("this constant expression overflows to infinity", loc);
      return cnum(r, ty, loc);
    }
    const char* name = op == "+" ? "add" : op == "-" ? "sub" : op == "*" ? "mul" : op == "/" ? "div" : op == "//" ? "floordiv" : "mod";
    return emit(name, {a, b}, loc, ty, lo, hi);
  }

  // Lists and tuples: concatenation and repetition by a constant, as Python does.
  Val array_arith(const std::string& op, const Val& a, const Val& b, SourceLoc loc) {
    if (op == "+" && a.array && b.array) {
      if (a.tuple != b.tuple)
        fail("cannot concatenate a list and a tuple: write both as lists or both as tuples", loc);
      Val r = a;
      for (const Val& v : b.items) r.items.push_back(v);
      return r;
    }
    if (op == "*" && (a.array != b.array)) {
      const Val& arr = a.array ? a : b;
      const Val& n = a.array ? b : a;
      if (!n.is_const || (n.ty & kF))
        fail("a list can only be repeated by an integer known at compile time", loc);
      Val r = arr;
      r.items.clear();
      for (long long k = 0; k < static_cast<long long>(n.c); ++k) {
        for (const Val& v : arr.items) r.items.push_back(v);
        if (r.items.size() > opts_.max_nodes)
          fail("this list is larger than the node budget: raise it with --max-nodes N", loc);
      }
      return r;
    }
    fail("the operator '" + op + "' cannot be applied to a list: use it on the elements", loc);
  }

  Val neg(const Val& a, SourceLoc loc) {
    scalar(a, loc, "unary minus");
    unsigned ty = (int_like(a.ty) ? kI : 0u) | (a.ty & kF);
    if ((ty & kI) && !empty(a)) check_exact(-a.hi, -a.lo, loc, "negation");
    if (a.is_const) return cnum(rnd(-rnd(a.c)), ty, loc);
    return emit("neg", {a}, loc, ty, -a.hi, -a.lo);
  }

  Val power(const Val& a, const Val& e, SourceLoc loc) {
    scalar(a, loc, "'**'");
    if (e.array || !e.is_const || (e.ty & kF) || e.c < 0 || e.c > 64)
      fail("'**' is supported only with a small non-negative integer literal exponent (0 to 64), e.g. x ** 2", loc);
    int n = static_cast<int>(e.c);
    unsigned ty = (int_like(a.ty) ? kI : 0u) | (a.ty & kF);
    if (n == 0) return cnum(1, ty, loc);
    if (a.is_const && !(a.ty & kF)) {
      double r = 1;
      for (int k = 0; k < n; ++k) {
        r *= a.c;
        check_exact(r, r, loc, "power");
      }
      return cnum(r, kI, loc);
    }
    if (a.is_const) {
      double r = rnd(std::pow(rnd(a.c), static_cast<double>(n)));  // CPython's float.__pow__ calls pow()
      if (!std::isfinite(r)) fail("this constant expression overflows to infinity", loc);
      return cnum(r, kF, loc);
    }
    Val r = a;
    r.ty = ty;
    for (int k = 1; k < n; ++k) r = arith("*", r, a, loc, "power");
    return r;
  }

  Val index(const Val& arr, const Val& i, SourceLoc loc) {
    if (!arr.array) fail("only lists and tuples can be indexed, and this is a number", loc);
    if (i.array) fail("a list index must be an integer, not a list", loc);
    if (i.ty & kF) fail("list indices must be integers, not floats", loc);
    const double n = static_cast<double>(arr.items.size());
    if (arr.items.empty()) fail("indexing an empty list always fails", loc);
    if (i.is_const) {
      double k = i.c < 0 ? i.c + n : i.c;
      if (k < 0 || k >= n)
        fail("index " + num_text(i.c) + " is out of range for a list of " + num_text(n) + " elements", loc);
      return arr.items[static_cast<std::size_t>(k)];
    }
    if (!empty(i) && (i.hi < -n || i.lo >= n))
      fail("this index is always out of range for a list of " + num_text(n) + " elements (it lies in [" +
               num_text(i.lo) + ", " + num_text(i.hi) + "])",
           loc);
    Val idx = i;
    if (i.lo < 0) {
      // Python's negative indices count from the end; the gather itself
      // rejects anything still outside [0, n) at run time.
      Val plus = arith("+", i, cnum(n, kI, loc), loc);
      idx = i.hi < 0 ? plus : sel(compare("<", i, cnum(0, kI, loc), loc), plus, i, loc);
    }
    return gather(arr.items, idx, loc);
  }

  Val gather(const std::vector<Val>& items, const Val& idx, SourceLoc loc) {
    if (items[0].array) {
      for (const Val& v : items)
        if (!same_shape(v, items[0]))
          fail("indexing with a run-time index needs rows of the same shape", loc);
      Val r = items[0];
      for (std::size_t p = 0; p < r.items.size(); ++p) {
        std::vector<Val> col;
        for (const Val& v : items) col.push_back(v.items[p]);
        r.items[p] = gather(col, idx, loc);
      }
      return r;
    }
    std::vector<Val> args{idx};
    unsigned ty = 0;
    double lo = kInf, hi = -kInf;
    for (const Val& v : items) {
      if (v.array) fail("indexing with a run-time index needs rows of the same shape", loc);
      args.push_back(v);
      ty |= v.ty;
      lo = std::min(lo, v.lo);
      hi = std::max(hi, v.hi);
    }
    return emit("gather", args, loc, ty, lo, hi);
  }

  // ---- branch narrowing ----------------------------------------------------------
  // Inside `if x < 10:` the variable x is below 10, and on the other branch
  // at least 10. Narrowing those intervals (the wire is unchanged) keeps the
  // exactness check from refusing guarded growth such as
  // `if x < 1000: x = x * 2` in a loop. Sound because a branch's values are
  // only evaluated when the branch is taken (select is lazy).
  std::optional<double> const_of(const Expr& e, const Env& env) const {
    if (e.kind == ExprKind::Number && !e.too_large) return e.number;
    if (e.kind == ExprKind::Bool) return e.number;
    if (e.kind == ExprKind::Unary && e.text == "-") {
      auto v = const_of(*e.kids[0], env);
      if (v) return -*v;
    }
    if (e.kind == ExprKind::Name) {
      auto it = env.find(e.text);
      if (it != env.end() && !it->second.maybe_unbound && !it->second.conflict && !it->second.v.array &&
          it->second.v.is_const)
        return it->second.v.c;
    }
    return std::nullopt;
  }

  void narrow(const std::string& name, const std::string& op, double c, Env& env) {
    auto it = env.find(name);
    if (it == env.end() || it->second.maybe_unbound || it->second.conflict) return;
    Val& v = it->second.v;
    if (v.array || v.is_const || !std::isfinite(c)) return;
    const bool ints = !(v.ty & kF);
    double lo = v.lo, hi = v.hi;
    if (op == "<") hi = std::min(hi, ints ? std::ceil(c) - 1 : c);
    else if (op == "<=") hi = std::min(hi, ints ? std::floor(c) : c);
    else if (op == ">") lo = std::max(lo, ints ? std::floor(c) + 1 : c);
    else if (op == ">=") lo = std::max(lo, ints ? std::ceil(c) : c);
    else if (op == "==") lo = std::max(lo, c), hi = std::min(hi, c);
    if (lo <= hi) {
      v.lo = lo, v.hi = hi;
    } else {
      make_empty(v.lo, v.hi);  // this branch cannot be taken
    }
  }

  void refine(const Expr& cond, bool truth, Env& env) {
    if (cond.kind == ExprKind::Unary && cond.text == "not") return refine(*cond.kids[0], !truth, env);
    if (cond.kind == ExprKind::BoolOp) {
      if ((cond.text == "and") == truth)
        for (const auto& k : cond.kids) refine(*k, truth, env);
      return;
    }
    if (cond.kind != ExprKind::Compare || (!truth && cond.ops.size() != 1)) return;
    static const std::map<std::string, std::string> negated = {{"<", ">="}, {"<=", ">"}, {">", "<="},
                                                               {">=", "<"}, {"==", "!="}, {"!=", "=="}};
    static const std::map<std::string, std::string> flipped = {{"<", ">"}, {"<=", ">="}, {">", "<"},
                                                               {">=", "<="}, {"==", "=="}, {"!=", "!="}};
    for (std::size_t i = 0; i < cond.ops.size(); ++i) {
      auto neg = negated.find(cond.ops[i]);
      if (neg == negated.end()) return;
      std::string op = truth ? cond.ops[i] : neg->second;
      const Expr& l = *cond.kids[i];
      const Expr& r = *cond.kids[i + 1];
      if (l.kind == ExprKind::Name)
        if (auto c = const_of(r, env)) narrow(l.text, op, *c, env);
      if (r.kind == ExprKind::Name)
        if (auto c = const_of(l, env)) narrow(r.text, flipped.at(op), *c, env);
    }
  }

  // ---- names -----------------------------------------------------------------------
  void collect_assigned(const std::vector<StmtPtr>& body) {
    for (const auto& s : body) {
      for (const auto& t : s->targets) collect_targets(*t);
      collect_assigned(s->body);
      collect_assigned(s->orelse);
    }
  }
  void collect_targets(const Expr& t) {
    if (t.kind == ExprKind::Name) assigned_.insert(t.text);
    for (const auto& k : t.kids)
      if (t.kind == ExprKind::Tuple || t.kind == ExprKind::List) collect_targets(*k);
  }

  Val read(const std::string& name, SourceLoc loc, const Env& env) {
    auto it = env.find(name);
    if (it == env.end()) {
      if (assigned_.count(name)) fail("name '" + name + "' is used before it is assigned", loc);
      if (is_supported_builtin(name))
        fail("'" + name + "' is a builtin function: call it, e.g. " + name + "(x)", loc);
      if (name == "range") fail("range() is only supported as the iterable of a for loop", loc);
      if (functions_.count(name))
        fail("'" + name + "' is a function: functions are not values, and calling them is not supported", loc);
      fail("name '" + name + "' is not defined", loc);
    }
    const Binding& b = it->second;
    if (b.maybe_unbound)
      fail("name '" + name + "' might be unbound here: it is not assigned on every path that reaches this line; "
           "assign it before the if/for",
           loc);
    if (b.conflict)
      fail("'" + name + "' holds values of different shapes on different paths (a number or lists of different "
           "lengths); give it the same shape on every path",
           loc);
    for (int d : b.defs) defs_[static_cast<std::size_t>(d)].read = true;
    return b.v;
  }

  void collect_nodes(const Val& v, std::vector<NodeId>& out) {
    if (v.array) {
      for (const Val& x : v.items) collect_nodes(x, out);
    } else if (v.node.valid()) {
      out.push_back(v.node.id());
    }
  }

  void assign(const Expr& t, const Val& v, Env& env, bool silent) {
    if (t.kind == ExprKind::Name) {
      DefRecord d;
      d.name = t.text;
      d.loc = t.loc;
      d.silent = silent || (!t.text.empty() && t.text[0] == '_');
      collect_nodes(v, d.nodes);
      defs_.push_back(std::move(d));
      Binding b;
      b.v = v;
      b.defs = {static_cast<int>(defs_.size() - 1)};
      env[t.text] = std::move(b);
      return;
    }
    if (t.kind == ExprKind::Tuple || t.kind == ExprKind::List) {
      if (!v.array)
        fail("cannot unpack a number into " + std::to_string(t.kids.size()) + " names", t.outer);
      if (v.items.size() != t.kids.size())
        fail("cannot unpack " + std::to_string(v.items.size()) + " values into " + std::to_string(t.kids.size()) +
                 " names",
             t.outer);
      for (std::size_t i = 0; i < t.kids.size(); ++i) assign(*t.kids[i], v.items[i], env, silent);
      return;
    }
    fail("cannot assign to this expression", t.outer);
  }

  Env parameters() {
    Env env;
    std::set<std::string> names;
    for (const Param& p : fn_.params) {
      if (!names.insert(p.name).second) fail("duplicate parameter '" + p.name + "'", p.loc);
      if (is_supported_builtin(p.name) || p.name == "range")
        fail("parameter '" + p.name + "' hides the builtin of the same name: rename it", p.loc);
    }
    for (const auto& [name, domain] : opts_.inputs)
      if (!names.count(name)) {
        std::string list;
        for (const Param& p : fn_.params) list += (list.empty() ? "" : ", ") + p.name;
        fail("--input '" + name + "' names no parameter of '" + fn_.name + "' (its parameters: " +
                 (list.empty() ? "none" : list) + ")",
             fn_.name_loc);
      }
    for (const Param& p : fn_.params) {
      const Domain* dom = nullptr;
      for (const auto& [name, domain] : opts_.inputs)
        if (name == p.name) dom = &domain;
      if (!dom)
        fail("parameter '" + p.name + "' has no input domain: give it with --input " + p.name +
                 "=DOMAIN (e.g. int32:-128:127, bool, float64:-1:1)",
             p.loc);
      Val v;
      v.ty = dom->type == DomainType::Boolean ? kB : dom->type == DomainType::Int32 ? kI : kF;
      v.lo = dom->lo();
      v.hi = dom->hi();
      v.loc = p.loc;
      if (dom->is_integral() && !(v.lo > -limit() && v.hi < limit()))
        fail("input '" + p.name + "' ranges over [" + num_text(v.lo) + ", " + num_text(v.hi) + "], beyond " +
                 limit_text() + ": narrow its domain",
             p.loc);
      b_.set_location(p.loc);
      v.node = b_.input(p.name, *dom);
      check_nodes(p.loc);
      Binding b;
      b.v = v;
      env[p.name] = std::move(b);
    }
    return env;
  }

  // ---- expressions -------------------------------------------------------------------
  Val expr(const Expr& e, const Env& env) {
    switch (e.kind) {
      case ExprKind::Name:
        return read(e.text, e.loc, env);
      case ExprKind::Number: {
        if (e.too_large)
          fail("integer literal " + e.text + " is beyond 2^53, where float64 stops representing integers exactly",
               e.loc);
        if (!e.is_float && std::fabs(e.number) >= limit())
          fail("integer literal " + e.text + " is beyond " + limit_text(), e.loc);
        return cnum(e.number, e.is_float ? kF : kI, e.loc);
      }
      case ExprKind::Bool:
        return cbool(e.number != 0.0, e.loc);
      case ExprKind::Tuple:
      case ExprKind::List: {
        Val r;
        r.array = true;
        r.tuple = e.kind == ExprKind::Tuple;
        r.loc = e.loc;
        for (const auto& k : e.kids) r.items.push_back(expr(*k, env));
        return r;
      }
      case ExprKind::Binary: {
        Val a = expr(*e.kids[0], env);
        Val b = expr(*e.kids[1], env);
        if (e.text == "**") return power(a, b, e.outer);
        return arith(e.text, a, b, e.outer);
      }
      case ExprKind::Unary: {
        Val a = expr(*e.kids[0], env);
        if (e.text == "-") return neg(a, e.loc);
        if (e.text == "not") return not_(truth(a, e.loc), e.loc);
        scalar(a, e.loc, "unary plus");
        if (a.ty == kB) a.ty = kI;  // +True is 1
        return a;
      }
      case ExprKind::BoolOp:
        return bool_op(e, env);
      case ExprKind::Compare:
        return comparison(e, env);
      case ExprKind::IfExp: {
        Val c = truth(expr(*e.kids[0], env), e.kids[0]->outer);
        if (c.is_const) return expr(*e.kids[c.c != 0.0 ? 1 : 2], env);
        Env yes_env = env, no_env = env;
        refine(*e.kids[0], true, yes_env);
        refine(*e.kids[0], false, no_env);
        Val yes = expr(*e.kids[1], yes_env);
        Val no = expr(*e.kids[2], no_env);
        if (!same_shape(yes, no))
          fail("the two branches of this conditional expression have different shapes (" + shape_text(yes) +
                   " and " + shape_text(no) + ")",
               e.outer);
        return sel(c, yes, no, e.outer);
      }
      case ExprKind::Call:
        return call(e, env);
      case ExprKind::Subscript: {
        Val arr = expr(*e.kids[0], env);
        Val i = expr(*e.kids[1], env);
        return index(arr, i, e.outer);
      }
      case ExprKind::NoneLit:
      case ExprKind::String:
      case ExprKind::Attribute:
      case ExprKind::Unsupported:
        break;
    }
    fail("this expression is not supported", e.outer);
  }

  // `a and b and c` returns the first falsy operand, else the last one.
  Val bool_op(const Expr& e, const Env& env) {
    const bool is_and = e.text == "and";
    std::vector<Val> vals, truths;
    for (const auto& k : e.kids) {
      Val v = expr(*k, env);
      if (&k != &e.kids.back()) {
        Val t = truth(v, k->outer);
        if (t.is_const && (is_and ? t.c == 0.0 : t.c != 0.0)) {  // decided at compile time
          vals.push_back(v);
          truths.push_back(cbool(true, k->outer));
          break;
        }
        if (t.is_const) continue;  // an operand that never decides drops out
        vals.push_back(v);
        truths.push_back(t);
      } else {
        vals.push_back(v);
        truths.push_back(cbool(true, k->outer));
      }
    }
    Val r = vals.back();
    for (std::size_t i = vals.size() - 1; i-- > 0;) {
      if (!same_shape(vals[i], r)) fail("operands of '" + e.text + "' must all be numbers", e.outer);
      r = is_and ? sel(truths[i], r, vals[i], e.outer) : sel(truths[i], vals[i], r, e.outer);
    }
    return r;
  }

  // `a < b < c` is `a < b and b < c` with b evaluated once.
  Val comparison(const Expr& e, const Env& env) {
    Val left = expr(*e.kids[0], env);
    std::vector<Val> cmps;
    for (std::size_t i = 0; i < e.ops.size(); ++i) {
      Val right = expr(*e.kids[i + 1], env);
      Val c = compare(e.ops[i], left, right, e.kids[i]->outer);
      if (is_false(c)) {
        cmps.push_back(c);
        break;
      }
      if (!is_true(c) || i + 1 == e.ops.size()) cmps.push_back(c);
      left = right;
    }
    Val r = cmps.back();
    for (std::size_t i = cmps.size() - 1; i-- > 0;) r = and_(cmps[i], r, e.outer);
    return r;
  }

  Val call(const Expr& e, const Env& env) {
    const std::string& f = e.kids[0]->text;
    std::vector<Val> args;
    for (std::size_t i = 1; i < e.kids.size(); ++i) args.push_back(expr(*e.kids[i], env));
    SourceLoc loc = e.outer;
    if (f == "relu" || f == "sigmoid" || f == "abs") {
      if (args.size() != 1) fail(f + "() takes exactly one argument", loc);
      const Val& x = scalar(args[0], loc, (f + "()").c_str());
      if (f == "relu") {
        if (x.is_const) return cnum(kernels::relu(x.c), x.ty, loc);
        return emit("relu", {x}, loc, x.ty, std::max(x.lo, 0.0), std::max(x.hi, 0.0));
      }
      if (f == "sigmoid") {
        if (x.is_const) return cnum(rnd(kernels::sigmoid(rnd(x.c))), kF, loc);
        return emit("sigmoid", {x}, loc, kF, 0, 1);
      }
      unsigned ty = (int_like(x.ty) ? kI : 0u) | (x.ty & kF);
      if (x.is_const) return cnum(std::fabs(x.c), ty, loc);
      Val negx = neg(x, loc);
      Val r = sel(compare("<", x, cnum(0, kI, loc), loc), negx, x, loc);
      r.ty = ty;
      r.lo = (x.lo <= 0 && x.hi >= 0) ? 0.0 : std::min(std::fabs(x.lo), std::fabs(x.hi));
      r.hi = std::max(std::fabs(x.lo), std::fabs(x.hi));
      if (empty(x)) make_empty(r.lo, r.hi);
      return r;
    }
    if (f == "min" || f == "max") {
      std::vector<Val> items = args;
      if (items.size() == 1) {
        if (!items[0].array) fail(f + "() of a single number: pass two or more values, or a list", loc);
        // Copy out first: assigning a vector from one of its own elements is
        // not safe with every standard library (libc++ clears it first).
        std::vector<Val> inner = items[0].items;
        items = std::move(inner);
      }
      if (items.empty()) fail(f + "() of an empty list", loc);
      Val m = scalar(items[0], loc, (f + "()").c_str());
      for (std::size_t i = 1; i < items.size(); ++i) {
        // CPython keeps the first extreme: it replaces only on a strict < (min) or > (max).
        const Val& x = scalar(items[i], loc, (f + "()").c_str());
        m = sel(compare(f == "min" ? "<" : ">", x, m, loc), x, m, loc);
      }
      return m;
    }
    fail("calling '" + f + "' is not supported", loc);
  }

  // ---- statements --------------------------------------------------------------------
  Flow block(const std::vector<StmtPtr>& stmts, Env env, bool function_body = false) {
    Flow f;
    f.env = std::move(env);
    for (std::size_t i = 0; i < stmts.size(); ++i) {
      const Stmt& s = *stmts[i];
      if (function_body && i == 0 && s.kind == StmtKind::Expr && s.value->kind == ExprKind::String) continue;
      if (is_false(f.active)) break;  // unreachable (its syntax was checked)
      switch (s.kind) {
        case StmtKind::Assign: {
          Val v = expr(*s.value, f.env);
          for (const auto& t : s.targets) assign(*t, v, f.env, false);
          break;
        }
        case StmtKind::AnnAssign:
          assign(*s.targets[0], expr(*s.value, f.env), f.env, false);
          break;
        case StmtKind::AugAssign: {
          const Expr& t = *s.targets[0];
          Val cur = expr(t, f.env);
          Val rhs = expr(*s.value, f.env);
          if (cur.array) fail("augmented assignment to a list is not supported: write x = x " + s.text + " ...", s.loc);
          Val r = s.text == "**" ? power(cur, rhs, s.loc) : arith(s.text, cur, rhs, s.loc);
          assign(t, r, f.env, false);
          break;
        }
        case StmtKind::Pass:
          break;
        default: {
          // The statement reads f.env before f is moved: argument evaluation
          // order is unspecified (clang goes left to right, gcc right to left).
          Flow next = statement(s, f.env);
          f = seq(std::move(f), std::move(next), s.loc);
          break;
        }
      }
    }
    return f;
  }

  Flow statement(const Stmt& s, const Env& env) {
    switch (s.kind) {
      case StmtKind::Return: {
        Flow g;
        g.env = env;
        Val v = expr(*s.value, env);
        if (v.array)
          for (const Val& x : v.items)
            if (x.array) fail("returning a nested list is not supported: return a flat list of numbers", s.loc);
        if (v.array && v.items.empty()) fail("returning an empty list is not supported", s.loc);
        if (ret_shape_ && !same_shape(*ret_shape_, v))
          fail("this return gives " + shape_text(v) + " but an earlier return gives " + shape_text(*ret_shape_) +
                   ": every return must have the same shape",
               s.loc);
        if (!ret_shape_) ret_shape_ = v;
        g.active = cbool(false, s.loc);
        g.may_return = true;
        g.rv = v;
        return g;
      }
      case StmtKind::Break:
      case StmtKind::Continue: {
        Flow g;
        g.env = env;
        g.active = cbool(false, s.loc);
        if (s.kind == StmtKind::Break) {
          g.brk = cbool(true, s.loc);
          g.brk_env = env;
        } else {
          g.cont = cbool(true, s.loc);
          g.cont_env = env;
        }
        return g;
      }
      case StmtKind::If: {
        Val c = truth(expr(*s.value, env), s.value->outer);
        if (c.is_const) return block(c.c != 0.0 ? s.body : s.orelse, env);
        if (c.node.valid()) conditions_.emplace_back(s.value->outer, c.node.id());
        Env yes_env = env, no_env = env;
        refine(*s.value, true, yes_env);
        refine(*s.value, false, no_env);
        Flow a = block(s.body, std::move(yes_env));
        Flow b = block(s.orelse, std::move(no_env));
        return if_merge(c, std::move(a), std::move(b), s.loc);
      }
      case StmtKind::For:
        return for_loop(s, env);
      default:
        fail("this statement is not supported", s.loc);
    }
  }

  Env merge_env(const Val& c, const Env& a, const Env& b, SourceLoc loc) {
    Env r;
    auto ia = a.begin();
    auto ib = b.begin();
    while (ia != a.end() || ib != b.end()) {
      if (ib == b.end() || (ia != a.end() && ia->first < ib->first)) {
        Binding x = ia->second;
        x.maybe_unbound = true;
        r.emplace(ia->first, std::move(x));
        ++ia;
      } else if (ia == a.end() || ib->first < ia->first) {
        Binding x = ib->second;
        x.maybe_unbound = true;
        r.emplace(ib->first, std::move(x));
        ++ib;
      } else {
        const Binding& x = ia->second;
        const Binding& y = ib->second;
        Binding m;
        m.maybe_unbound = x.maybe_unbound || y.maybe_unbound;
        m.conflict = x.conflict || y.conflict || !same_shape(x.v, y.v);
        m.defs = x.defs;
        for (int d : y.defs)
          if (std::find(m.defs.begin(), m.defs.end(), d) == m.defs.end()) m.defs.push_back(d);
        m.v = m.conflict ? x.v : sel(c, x.v, y.v, loc);
        r.emplace(ia->first, std::move(m));
        ++ia;
        ++ib;
      }
    }
    return r;
  }

  std::optional<Val> pick_rv(const Val& c, const Flow& a, const Flow& b, SourceLoc loc) {
    if (!a.may_return) return b.rv;
    if (!b.may_return) return a.rv;
    return sel(c, *a.rv, *b.rv, loc);
  }
  Env pick_env(const Val& c, const Val& fa, const Env& ea, const Val& fb, const Env& eb, SourceLoc loc) {
    if (is_false(fa)) return eb;
    if (is_false(fb)) return ea;
    return merge_env(c, ea, eb, loc);
  }

  // Both branches were lowered from the same variables; c picks one.
  Flow if_merge(const Val& c, Flow a, Flow b, SourceLoc loc) {
    Flow r;
    r.active = sel(c, a.active, b.active, loc);
    if (is_false(a.active)) {
      r.env = std::move(b.env);
    } else if (is_false(b.active)) {
      r.env = std::move(a.env);
    } else {
      r.env = merge_env(c, a.env, b.env, loc);
    }
    r.may_return = a.may_return || b.may_return;
    r.rv = pick_rv(c, a, b, loc);
    r.brk = sel(c, a.brk, b.brk, loc);
    r.brk_env = pick_env(c, a.brk, a.brk_env, b.brk, b.brk_env, loc);
    r.cont = sel(c, a.cont, b.cont, loc);
    r.cont_env = pick_env(c, a.cont, a.cont_env, b.cont, b.cont_env, loc);
    return r;
  }

  // f then g, where g was lowered from f's fall-through variables.
  Flow seq(Flow f, Flow g, SourceLoc loc) {
    if (is_true(f.active)) return g;
    if (no_exits(g)) {
      f.env = std::move(g.env);
      return f;
    }
    const Val a = f.active;
    Flow r;
    r.env = std::move(g.env);
    r.active = and_(a, g.active, loc);
    r.may_return = f.may_return || g.may_return;
    r.rv = pick_rv(a, g, f, loc);
    r.brk = sel(a, g.brk, f.brk, loc);
    r.brk_env = pick_env(a, g.brk, g.brk_env, f.brk, f.brk_env, loc);
    r.cont = sel(a, g.cont, f.cont, loc);
    r.cont_env = pick_env(a, g.cont, g.cont_env, f.cont, f.cont_env, loc);
    return r;
  }

  Flow for_loop(const Stmt& s, const Env& env) {
    const Expr& it = *s.value;
    const Expr& target = *s.targets[0];
    std::vector<Val> items;
    long long start = 0, stop = 0, step = 1;
    bool is_range = it.kind == ExprKind::Call && it.kids[0]->kind == ExprKind::Name && it.kids[0]->text == "range";
    if (is_range) {
      std::size_t n = it.kids.size() - 1;
      if (n < 1 || n > 3) fail("range() takes 1 to 3 arguments", it.outer);
      long long v[3];
      for (std::size_t k = 0; k < n; ++k) {
        const Expr& a = *it.kids[k + 1];
        Val x = expr(a, env);
        if (x.array) fail("range() arguments must be integers, not lists", a.outer);
        if (x.ty & kF) fail("range() arguments must be integers, not floats", a.outer);
        if (!x.is_const)
          fail("range() bounds must be known at compile time: use integer literals (or loop variables of "
               "enclosing loops), so the loop can be expanded",
               a.outer);
        v[k] = static_cast<long long>(x.c);
      }
      if (n == 1) {
        stop = v[0];
      } else {
        start = v[0];
        stop = v[1];
        if (n == 3) step = v[2];
      }
      if (step == 0) fail("range() step must not be zero", it.kids[3]->outer);
    } else {
      Val arr = expr(it, env);
      if (!arr.array)
        fail("a for loop must iterate over range(...) with literal bounds or over a literal list", it.outer);
      items = arr.items;
    }

    Flow st;
    st.env = env;
    std::size_t k = 0;
    long long v = start;
    while (true) {
      Val item;
      if (is_range) {
        if (step > 0 ? v >= stop : v <= stop) break;
        if (std::fabs(static_cast<double>(v)) >= limit())
          fail("the loop variable would reach " + num_text(static_cast<double>(v)) + ", beyond " + limit_text(), s.loc);
        item = cnum(static_cast<double>(v), kI, target.loc);
        v += step;
      } else {
        if (k >= items.size()) break;
        item = items[k++];
      }
      if (is_false(st.active)) break;  // every path left the loop already
      if (++iterations_ > opts_.max_iterations)
        fail("loop expansion exceeds the iteration budget of " + std::to_string(opts_.max_iterations) +
                 " expanded iterations (all loops of the function together): raise it with --max-iterations N or "
                 "use smaller ranges",
             s.loc);
      // Nodes of this iteration (its joins included) record which one it is.
      const bool tracked = is_range && target.kind == ExprKind::Name;
      if (tracked) {
        loop_path_.push_back(LoopStep{target.text, static_cast<std::int64_t>(item.c)});
        b_.set_iteration(loop_path_);
      }
      Env e = st.env;
      assign(target, item, e, /*silent=*/true);
      Flow body = block(s.body, std::move(e));
      if (!is_false(body.cont)) {  // continue joins the fall-through path
        body.env = is_false(body.active) ? std::move(body.cont_env) : merge_env(body.cont, body.cont_env, body.env, s.loc);
        body.active = or_(body.cont, body.active, s.loc);
        body.cont = cbool(false);
        body.cont_env.clear();
      }
      st = seq(std::move(st), std::move(body), s.loc);
      if (tracked) {
        loop_path_.pop_back();
        b_.set_iteration(loop_path_);
      }
    }
    // `break` leaves this loop only: it joins the path after the loop, and
    // skips the else block.
    Val brk = st.brk;
    Env brk_env = std::move(st.brk_env);
    st.brk = cbool(false);
    st.brk_env.clear();
    if (!s.orelse.empty() && !is_false(st.active)) {
      Flow e = block(s.orelse, st.env);
      st = seq(std::move(st), std::move(e), s.loc);
    }
    if (!is_false(brk)) {
      st.env = is_false(st.active) ? std::move(brk_env) : merge_env(brk, brk_env, st.env, s.loc);
      st.active = or_(brk, st.active, s.loc);
    }
    return st;
  }

  // ---- finishing: unused values --------------------------------------------------------
  // Drops nodes no output needs (inputs stay: they are the function's
  // signature) and warns about assignments whose value nothing needs.
  Program prune(Program p, Diagnostics& warnings) {
    std::vector<char> needed(p.nodes.size(), 0);
    for (const auto& [name, id] : p.outputs) needed[static_cast<std::size_t>(id)] = 1;
    for (std::size_t i = p.nodes.size(); i-- > 0;)
      if (needed[i])
        for (NodeId a : p.nodes[i].args) needed[static_cast<std::size_t>(a)] = 1;

    std::map<std::pair<SourceLoc, std::string>, bool> used;  // per assignment site
    std::vector<std::pair<SourceLoc, std::string>> order;
    for (const DefRecord& d : defs_) {
      if (d.silent) continue;
      bool u = d.read;
      if (u && !d.nodes.empty()) {
        u = false;
        for (NodeId n : d.nodes)
          if (needed[static_cast<std::size_t>(n)]) u = true;
      }
      auto key = std::make_pair(d.loc, d.name);
      auto [it, fresh] = used.emplace(key, u);
      if (fresh) order.push_back(key);
      else it->second = it->second || u;
    }
    for (const auto& key : order)
      if (!used[key]) {
        Diagnostic w = make_warning("the value assigned to '" + key.second + "' is never used", key.first);
        w.file = opts_.filename;
        warnings.push_back(std::move(w));
      }
    // An if statement whose branches change nothing the result depends on:
    // its condition is not computed, so an error in it (a division by zero)
    // does not surface as it would in CPython.
    std::map<SourceLoc, bool> cond_used;
    std::vector<SourceLoc> cond_order;
    for (const auto& [loc, id] : conditions_) {
      auto [it, fresh] = cond_used.emplace(loc, false);
      if (fresh) cond_order.push_back(loc);
      it->second = it->second || needed[static_cast<std::size_t>(id)];
    }
    for (const SourceLoc& loc : cond_order)
      if (!cond_used[loc]) {
        Diagnostic w = make_warning("this condition decides nothing the result depends on, so it is not computed", loc);
        w.file = opts_.filename;
        warnings.push_back(std::move(w));
      }

    std::vector<Node> nodes = std::move(p.nodes);
    p.nodes.clear();
    std::vector<NodeId> remap(nodes.size(), -1);
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      if (!needed[i] && nodes[i].op != Op::Input) continue;
      Node& n = nodes[i];
      n.id = static_cast<NodeId>(p.nodes.size());
      for (NodeId& a : n.args) a = remap[static_cast<std::size_t>(a)];
      remap[i] = n.id;
      p.nodes.push_back(std::move(n));
    }
    for (auto& [name, id] : p.outputs) id = remap[static_cast<std::size_t>(id)];
    return p;
  }

  const FunctionDef& fn_;
  const CompileOptions& opts_;
  std::set<std::string> functions_;
  Builder b_;
  bool f32_;
  std::set<std::string> assigned_;
  std::map<std::tuple<std::uint64_t, int, int>, Value> consts_;
  std::vector<DefRecord> defs_;
  std::vector<std::pair<SourceLoc, NodeId>> conditions_;  // dynamic if-statement conditions
  std::optional<Val> ret_shape_;
  std::size_t iterations_ = 0;
  std::vector<LoopStep> loop_path_;  // enclosing range() iterations, outermost first
};

}  // namespace

Result<CompileOutput> lower_function(const Module& module, const FunctionDef& fn, const CompileOptions& options) {
  std::set<std::string> functions;
  for (const auto& s : module.body)
    if (s->kind == StmtKind::Def) functions.insert(s->def->name);
  if (Status st = check_subset(fn, functions); !st) {
    Diagnostic d = st.error();
    d.file = options.filename;
    return d;
  }
  try {
    Lowerer l(fn, options, std::move(functions));
    CompileOutput out = l.run();
    if (Status v = validate(out.program); !v) {
      Diagnostic d = v.error();
      d.message = "internal error: the compiled circuit is invalid: " + d.message;
      d.file = options.filename;
      return d;
    }
    return out;
  } catch (const Fail& f) {
    Diagnostic d = f.d;
    d.file = options.filename;
    return d;
  }
}

}  // namespace tc::py
