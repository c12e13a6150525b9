// The builtins the lowering composes from ops of the table (round, int,
// float, pow, divmod, isinstance, len), the math module's composed members,
// and the inlining of calls to other functions of the same file.
//
// Every composition gives CPython's result bit for bit on the values the
// circuit can hold (finite numbers): math.floor(x) is floordiv(x, 1), whose
// kernel is Python's own float floor division; round(x) is the half-even
// rounding of x - floor(x), which is exact for every finite x.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "frontend/lowerer.h"
#include "ir/math_functions.h"

namespace tc::py::lowering {

namespace {

constexpr double kPi = 3.141592653589793;  // Py_MATH_PI

bool is_int_like(const Val& v) { return !(v.ty & kF); }

}  // namespace

Val Lowerer::as_float(const Val& x, SourceLoc loc) {
  scalar(x, loc, "float()");
  Val r = x;
  r.ty = kF;
  if (r.is_const) r.c = rnd(r.c);
  return r;
}

Val Lowerer::floor_of(const Val& x, SourceLoc loc, const char* what) {
  scalar(x, loc, what);
  if (is_int_like(x)) {
    Val r = x;
    r.ty = kI;
    return r;
  }
  if (x.is_const) {
    const double v = std::floor(rnd(x.c));
    check_exact(v, v, loc, "conversion to int");
    return cnum(v, kI, loc);
  }
  double lo = std::floor(x.lo), hi = std::floor(x.hi);
  if (empty(x)) make_empty(lo, hi);
  else check_exact(lo, hi, loc, "conversion to int");
  return emit(Op::FloorDiv, {x, cnum(1, kI, loc)}, loc, kI, Interval::of(lo, hi, true));
}

Val Lowerer::ceil_of(const Val& x, SourceLoc loc, const char* what) {
  scalar(x, loc, what);
  if (is_int_like(x)) return floor_of(x, loc, what);
  if (x.is_const) {
    const double v = std::ceil(rnd(x.c));
    check_exact(v, v, loc, "conversion to int");
    return cnum(v, kI, loc);
  }
  return neg(floor_of(neg(x, loc), loc, what), loc);
}

Val Lowerer::trunc_of(const Val& x, SourceLoc loc, const char* what) {
  scalar(x, loc, what);
  if (is_int_like(x)) return floor_of(x, loc, what);
  if (x.is_const) {
    const double v = std::trunc(rnd(x.c));
    check_exact(v, v, loc, "conversion to int");
    return cnum(v, kI, loc);
  }
  if (x.lo >= 0) return floor_of(x, loc, what);
  if (x.hi < 0) return ceil_of(x, loc, what);
  return sel(compare(CmpOp::Lt, x, cnum(0, kI, loc), loc), ceil_of(x, loc, what), floor_of(x, loc, what), loc);
}

// CPython's round(x) of a float: the nearest integer, ties to even. With
// f = floor(x), d = x - f is exact (f and x share x's binade or f is 0, -1)
// except for -1 < x < 0, where 1 - |x| may round, but only to 0.5 or 1 on
// the side that still gives 0.
Val Lowerer::round_half_even(const Val& x, SourceLoc loc) {
  if (x.is_const) {
    const double v = std::nearbyint(rnd(x.c));  // the default rounding mode: to nearest, ties to even
    check_exact(v, v, loc, "conversion to int");
    return cnum(v, kI, loc);
  }
  Val f = floor_of(x, loc, "round()");
  Val d = arith(ArithOp::Sub, x, f, loc);
  Val up = arith(ArithOp::Add, f, cnum(1, kI, loc), loc, "rounding");
  Val even = compare(CmpOp::Eq, arith(ArithOp::Mod, f, cnum(2, kI, loc), loc), cnum(0, kI, loc), loc);
  Val tie = sel(even, f, up, loc);
  Val below = sel(compare(CmpOp::Lt, d, cnum(0.5, kF, loc), loc), f, tie, loc);
  Val r = sel(compare(CmpOp::Gt, d, cnum(0.5, kF, loc), loc), up, below, loc);
  r.ty = kI;
  return r;
}

// CPython's round(x, n) of a float: the double nearest to k / 10^n, where k
// is x * 10^n rounded half to even on its exact value (dtoa's correctly
// rounded decimal string, read back by strtod). The product's rounding error
// is recovered exactly (Dekker's two-product, from + - * only), so the
// rounding decision is the exact one: with a = |x|, y = a * 10^n rounded and
// e = a * 10^n - y, the fraction of the exact product above floor(y) is
// (y - floor(y)) + e, whose comparison with 0.5 is decided by h =
// (y - floor(y)) - 0.5 (exact) unless h is 0, then by e, then ties to even.
// Needs y below 2^50 (so |e| < |h| whenever h != 0), checked on the interval.
Val Lowerer::round_digits(const Val& x, int n, SourceLoc loc) {
  if (f32_) fail("round(x, ndigits) of a float is not supported with float32", loc);
  if (n > 15) fail("round() to more than 15 digits is not supported", loc);
  double p = 1;
  for (int k = 0; k < n; ++k) p *= 10;  // exact up to 10^22
  if (x.is_const) {
    // glibc's printf rounds the exact binary value half to even, as dtoa does.
    char buf[400];
    std::snprintf(buf, sizeof buf, "%.*f", n, x.c);
    return cnum(std::strtod(buf, nullptr), kF, loc);
  }
  const double bound = std::max(std::fabs(x.lo), std::fabs(x.hi));
  if (!empty(x) && !(bound * p < 1125899906842624.0))  // 2^50
    fail("round(x, " + std::to_string(n) + ") needs |x| * 10^" + std::to_string(n) +
             " below 2^50, and x may reach " + num_text(bound) + ": narrow the input domains",
         loc);
  auto k = [&](double v) { return cnum(v, kF, loc); };
  auto op = [&](ArithOp o, const Val& a, const Val& b) { return arith(o, a, b, loc); };
  const Val zero = cnum(0, kI, loc);
  const Val negative = compare(CmpOp::Lt, x, zero, loc);
  const Val a = sel(negative, neg(x, loc), x, loc);
  const Val y = op(ArithOp::Mul, a, k(p));
  // Veltkamp's split of a and of p (p's halves are constants), then Dekker's error term.
  constexpr double kSplit = 134217729.0;  // 2^27 + 1
  const double pc = kSplit * p, ph = pc - (pc - p), pl = p - ph;
  const Val c = op(ArithOp::Mul, k(kSplit), a);
  const Val ah = op(ArithOp::Sub, c, op(ArithOp::Sub, c, a));
  const Val al = op(ArithOp::Sub, a, ah);
  const Val e = op(ArithOp::Add,
                   op(ArithOp::Add, op(ArithOp::Add, op(ArithOp::Sub, op(ArithOp::Mul, ah, k(ph)), y),
                                       op(ArithOp::Mul, ah, k(pl))),
                      op(ArithOp::Mul, al, k(ph))),
                   op(ArithOp::Mul, al, k(pl)));
  Val f = floor_of(y, loc, "round()");
  f.ty = kF;  // floor(y) as a float: k below is divided by 10^n
  const Val h = op(ArithOp::Sub, op(ArithOp::Sub, y, f), k(0.5));
  const Val up = op(ArithOp::Add, f, k(1));
  const Val even = compare(CmpOp::Eq, op(ArithOp::Mod, f, k(2)), zero, loc);
  const Val tie = sel(even, f, up, loc);
  const Val by_e = sel(compare(CmpOp::Gt, e, zero, loc), up, sel(compare(CmpOp::Lt, e, zero, loc), f, tie, loc), loc);
  const Val by_h = sel(compare(CmpOp::Gt, h, zero, loc), up, sel(compare(CmpOp::Lt, h, zero, loc), f, by_e, loc), loc);
  const Val r = op(ArithOp::Div, by_h, k(p));
  Val out = sel(negative, neg(r, loc), r, loc);
  out.ty = kF;
  // Within half a unit of the n-th digit of x (and the rounding of the division).
  if (!empty(x)) {
    out.lo = x.lo - 1;
    out.hi = x.hi + 1;
  }
  return out;
}

Val Lowerer::builtin_call(Builtin b, const ExprInfo& info, const std::string& f, const std::vector<Val>& args,
                          SourceLoc loc) {
  const std::string what = f + "()";
  switch (b) {
    case Builtin::Round: {
      const Val& x = scalar(args[0], loc, what.c_str());
      if (args.size() == 1) return is_int_like(x) ? floor_of(x, loc, what.c_str()) : round_half_even(x, loc);
      const Val& n = scalar(args[1], loc, what.c_str());
      if (!n.is_const || (n.ty & kF))
        fail("round() needs its number of digits as an integer known at compile time, e.g. round(x, 2)", loc);
      if (n.c < 0) fail("round() to a negative number of digits is not supported", loc);
      if (is_int_like(x)) return floor_of(x, loc, what.c_str());
      return round_digits(x, static_cast<int>(n.c), loc);
    }
    case Builtin::Int:
      return trunc_of(args[0], loc, what.c_str());
    case Builtin::Float:
      return as_float(args[0], loc);
    case Builtin::Pow:
      return power(args[0], args[1], loc);
    case Builtin::DivMod: {
      Val r;
      r.array = true;
      r.tuple = true;
      r.loc = loc;
      r.items.push_back(arith(ArithOp::FloorDiv, scalar(args[0], loc, "divmod()"), scalar(args[1], loc, "divmod()"), loc));
      r.items.push_back(arith(ArithOp::Mod, args[0], args[1], loc));
      return r;
    }
    case Builtin::IsInstance: {
      const Val& x = args[0];
      if (x.array) return cbool(false, loc);
      const unsigned allowed = info.isinstance_types;
      if ((x.ty & ~allowed) == 0) return cbool(true, loc);
      if ((x.ty & allowed) == 0) return cbool(false, loc);
      fail("isinstance() cannot be decided while compiling here: this value may be " + type_text(x.ty) +
               " depending on the path; give it one type on every path",
           loc);
    }
    case Builtin::Len:
      if (!args[0].array) fail("len() of a number: only lists and tuples have a length", loc);
      return cnum(static_cast<double>(args[0].items.size()), kI, loc);
    case Builtin::None:
    case Builtin::TableOp:
    case Builtin::Abs:
    case Builtin::Min:
    case Builtin::Max:
    case Builtin::Math:
    case Builtin::Helper:
      break;
  }
  fail("calling '" + f + "' is not supported", loc);
}

Val Lowerer::math_call(const std::string& member, const std::vector<Val>& args, SourceLoc loc) {
  const std::string what = "math." + member + "()";
  if (member == "floor") return floor_of(args[0], loc, what.c_str());
  if (member == "ceil") return ceil_of(args[0], loc, what.c_str());
  if (member == "trunc") return trunc_of(args[0], loc, what.c_str());
  if (member == "fabs") {
    const Val& x = scalar(args[0], loc, what.c_str());
    if (x.is_const) return cnum(std::fabs(rnd(x.c)), kF, loc);
    Val r = sel(compare(CmpOp::Lt, x, cnum(0, kI, loc), loc), neg(x, loc), x, loc);
    const Interval range = ival::abs(range_of(x));
    r.ty = kF;
    r.lo = range.lo;
    r.hi = range.hi;
    if (empty(x)) make_empty(r.lo, r.hi);
    return r;
  }
  // CPython multiplies by the constant Py_MATH_PI / 180 (or its inverse).
  if (member == "radians")
    return arith(ArithOp::Mul, as_float(args[0], loc), cnum(rnd(kPi / 180.0), kF, loc), loc);
  if (member == "degrees")
    return arith(ArithOp::Mul, as_float(args[0], loc), cnum(rnd(180.0 / kPi), kF, loc), loc);
  if (member == "isfinite" || member == "isinf" || member == "isnan") {
    // A non-finite value is an error wherever the circuit meets it, so these
    // are decided while compiling from the value's interval.
    const Val& x = scalar(args[0], loc, what.c_str());
    const bool finite = is_int_like(x) || empty(x) || (std::isfinite(x.lo) && std::isfinite(x.hi));
    if (!finite)
      fail(what + " cannot be decided while compiling: this value's interval is unbounded; give the inputs finite "
                  "domains",
           loc);
    return cbool(member == "isfinite", loc);
  }
  if (member == "pow") return as_float(power(args[0], args[1], loc), loc);
  if (const std::optional<Op> op = op_from_math(member)) {
    // CPython's log(x, base) is log(x) / log(base), each checked, then one
    // division (ZeroDivisionError for base 1).
    if (*op == Op::Log && args.size() == 2)
      return arith(ArithOp::Div, math_op(Op::Log, args[0], loc), math_op(Op::Log, args[1], loc), loc);
    return math_op(*op, args[0], loc);
  }
  fail("calling 'math." + member + "' is not supported yet", loc);
}

Val Lowerer::math_op(Op op, const Val& arg, SourceLoc loc) {
  const math_fn::MathFunction& f = math_fn::of(op);
  const std::string what = "math." + std::string(op_info(op).python);
  const Val& x = scalar(arg, loc, (what + "()").c_str());
  if (f.bound == -HUGE_VAL) return table_op(op, what, {x}, loc);
  // ValueError("math domain error") outside the domain, as CPython's check
  // before it calls the C function: a raise node the select reaches only
  // there, so the node computing f never fails on those cases.
  const Val bad = compare(f.open ? CmpOp::Le : CmpOp::Lt, x, cnum(f.bound, kF, loc), loc);
  if (is_false(bad)) return table_op(op, what, {x}, loc);
  const Val raised = *raising(math_fn::kDomainError, loc, Env{}).rv;
  if (is_true(bad)) return raised;
  return sel(bad, raised, table_op(op, what, {x}, loc), loc);
}

namespace {

/// A called function's own variables: its parameters bound to the arguments.
Env parameters_of(const FunctionDef& g, const std::vector<Val>& args) {
  Env env;
  for (std::size_t k = 0; k < args.size() && k < g.params.size(); ++k) {
    Binding b;
    b.v = args[k];
    env[g.params[k].name] = std::move(b);
  }
  return env;
}

}  // namespace

Val Lowerer::inline_call(const FunctionDef& g, const std::vector<Val>& args, SourceLoc loc) {
  Env env = parameters_of(g, args);
  // The helper's returns must agree with each other, not with the caller's.
  std::optional<Val> caller_shape = std::move(ret_shape_);
  ret_shape_.reset();
  Flow f = block(g.body, std::move(env), /*function_body=*/true);
  if (!is_false(f.active) || !f.rv)
    fail("'" + g.name + "' can reach the end of its body without a return (it would return None), called here: add "
         "a return statement on every path of '" + g.name + "'",
         loc);
  ret_shape_ = std::move(caller_shape);
  return *f.rv;
}

Val Lowerer::raised_on(const Val& v, SourceLoc loc) {
  if (v.array || !v.has_raise) return cbool(false, loc);
  if (v.raises) return cbool(true, loc);
  auto it = v.node.valid() ? select_sides_.find(static_cast<std::uint32_t>(v.node.id())) : select_sides_.end();
  if (it == select_sides_.end())
    fail("internal: cannot tell on which paths this call raised (a raise inside an expression)", loc);
  const SelectSides sides = it->second;  // sel() below may add to the map
  return sel(sides.c, raised_on(sides.a, loc), raised_on(sides.b, loc), loc);
}

bool Lowerer::fails_unraised(const Val& v) const {
  if (v.array) {
    for (const Val& x : v.items)
      if (fails_unraised(x)) return true;
    return false;
  }
  if (v.raises) return false;
  if (v.has_raise && v.node.valid())
    if (auto it = select_sides_.find(static_cast<std::uint32_t>(v.node.id())); it != select_sides_.end())
      return it->second.c.may_fail || fails_unraised(it->second.a) || fails_unraised(it->second.b);
  return v.may_fail;
}

Flow Lowerer::call_statement(const Expr& e, const Env& env) {
  const ExprInfo& info = facts(e);
  std::vector<Val> args;
  for (std::size_t i = 1; i < e.kids.size(); ++i) args.push_back(expr(*e.kids[i], env));
  if (info.error) throw Fail{*info.error};  // arity, or not a function this file or the subset has
  const std::string& f = e.kids[0]->text;
  if (info.builtin != Builtin::Helper)
    fail("the value of " + f + "() on its own line is dropped and it has no effect: assign it to a name or return it "
         "(a function of this file may be called on its own line for its raise and assert statements)",
         e.loc);
  const FunctionDef& g = *info.callee;
  Env henv = parameters_of(g, args);
  // The helper's returns must agree with each other, not with the caller's.
  std::optional<Val> caller_shape = std::move(ret_shape_);
  ret_shape_.reset();
  Flow hf = block(g.body, std::move(henv), /*function_body=*/true);
  ret_shape_ = std::move(caller_shape);
  Flow out;
  out.env = env;  // the caller's variables: a helper binds only its own
  if (!hf.may_return || !hf.rv) return out;  // it only falls off its end: nothing to check
  const Val& rv = *hf.rv;
  if (rv.array && rv.has_raise)
    fail("'" + g.name + "' returns a list on some paths and raises on others: a call on its own line needs it to "
         "return a number or nothing",
         e.loc);
  if (fails_unraised(rv))
    fail("the value '" + g.name + "' returns can fail at run time (see its operations), and a call on its own line "
         "would drop that failure where CPython raises it: assign the value to a name and use it",
         e.loc);
  const Val raised = is_true(hf.active) ? cbool(false, e.loc) : and_(not_(hf.active, e.loc), raised_on(rv, e.loc), e.loc);
  if (is_false(raised)) return out;
  // Where it raised, the caller ends with that raise, as CPython's
  // exception leaves it: the value is a raise on exactly those paths.
  Val r = rv;
  r.raises = true;
  r.ty = 0;
  make_empty(r.lo, r.hi);
  Flow bad;
  bad.env = env;
  bad.active = cbool(false, e.loc);
  bad.may_return = true;
  bad.rv = r;
  if (is_true(raised)) return bad;
  return if_merge(raised, std::move(bad), std::move(out), e.loc);
}

}  // namespace tc::py::lowering
