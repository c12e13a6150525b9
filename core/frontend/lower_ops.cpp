// Node creation, the budgets, and the value-level operations: each computes
// the static types and interval of its result, folds constants, and emits a
// node with the typed Op only when the value is not known at compile time.
#include "frontend/lowerer.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "ir/kernels.h"

namespace tc::py::lowering {

void Lowerer::check_nodes(SourceLoc loc) {
  if (b_.node_count() > opts_.max_nodes)
    fail("the circuit needs more than " + std::to_string(opts_.max_nodes) +
             " nodes (the node budget): raise it with " + hints::budget(opts_.hints, "max-nodes") +
             " or use smaller loops",
         loc, DiagCode::NodeBudget);
}

void Lowerer::check_exact(double lo, double hi, SourceLoc loc, const std::string& what) {
  double l = limit();
  if (lo > -l && hi < l) return;
  double worst = std::fabs(lo) > std::fabs(hi) ? lo : hi;
  std::string reach = std::isfinite(worst) ? "may reach " + num_text(worst) : "is unbounded";
  fail("integer " + what + " " + reach + " given the input domains, beyond " + limit_text() +
           ": narrow the input domains, e.g. " +
           hints::input(opts_.hints, "x", hints::domain(opts_.hints, "int32", "-1000", "1000")),
       loc);
}

Value Lowerer::mat(const Val& v, SourceLoc fallback) {
  TC_ASSERT(!v.array);
  if (v.node.valid()) return v.node;
  if (!v.loc.valid()) {
    Val located = v;
    located.loc = fallback;
    return mat(located, fallback);
  }
  std::uint64_t bits;
  std::memcpy(&bits, &v.c, sizeof bits);
  if (Value had_node = consts_.find(bits, v.loc); had_node.valid()) {
    // Shared by several iterations: it belongs to the loops they have in common.
    const IterationPath& had = b_.peek().nodes[static_cast<std::size_t>(had_node.id())].iteration;
    std::size_t common = 0;
    while (common < had.size() && common < loop_path_.size() && had[common] == loop_path_[common]) ++common;
    if (common < had.size())
      b_.set_iteration_of(had_node, std::vector<LoopStep>(had.begin(), had.begin() + static_cast<std::ptrdiff_t>(common)));
    return had_node;
  }
  b_.set_location(v.loc);
  Value n = b_.constant(v.c);
  check_nodes(v.loc);
  consts_.insert(bits, v.loc, n);
  return n;
}

void Lowerer::check_arguments(std::size_t more, SourceLoc loc) {
  arguments_ += more;
  if (arguments_ > max_arguments())
    fail("the circuit needs more than " + std::to_string(max_arguments()) + " node arguments (" +
             std::to_string(kArgumentsPerNode) + " per node of the node budget; indexing a list with a run-time "
             "index takes one per element): raise the budget with " + hints::budget(opts_.hints, "max-nodes") +
             " or index shorter lists",
         loc, DiagCode::NodeBudget);
}

void Lowerer::check_list(std::size_t scalars, SourceLoc loc) {
  if (scalars > opts_.max_nodes)
    fail("this list would hold " + std::to_string(scalars) + " values, more than the node budget of " +
             std::to_string(opts_.max_nodes) + ": raise it with " + hints::budget(opts_.hints, "max-nodes") + " or use a shorter list",
         loc, DiagCode::NodeBudget);
}

Val Lowerer::emit(Op op, const std::vector<Val>& args, SourceLoc loc, unsigned ty, std::optional<Interval> range) {
  check_arguments(args.size(), loc);
  if (!range) {
    // Most ops take 1 to 3 arguments: no allocation for their intervals.
    Interval small[3];
    std::vector<Interval> many;
    std::span<const Interval> in;
    if (args.size() <= 3) {
      for (std::size_t k = 0; k < args.size(); ++k) small[k] = range_of(args[k]);
      in = std::span<const Interval>(small, args.size());
    } else {
      many.reserve(args.size());
      for (const Val& a : args) many.push_back(range_of(a));
      in = many;
    }
    range = ival::apply(op, in);
    TC_ASSERT(range.has_value());
  }
  double lo = range->lo, hi = range->hi;
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
  r.may_fail = can_fail(op, args, r);
  return r;
}

bool Lowerer::can_fail(Op op, const std::vector<Val>& args, const Val& r) const {
  for (const Val& a : args)
    if (a.may_fail) return true;
  if (empty(r)) return false;  // on a branch that is never taken
  if (!std::isfinite(r.lo) || !std::isfinite(r.hi)) return true;  // may overflow (a non-finite result fails)
  switch (op) {
    case Op::Div:
    case Op::FloorDiv:
    case Op::Mod:
      return args[1].lo <= 0.0 && args[1].hi >= 0.0;
    case Op::Gather: {
      const Val& i = args[0];
      const double n = static_cast<double>(args.size() - 1);
      return (i.ty & kF) || i.lo < 0.0 || i.hi > n - 1.0;
    }
    default:
      return op_info(op).has(kCanFail);
  }
}

Val Lowerer::not_(const Val& c, SourceLoc loc) {
  if (c.is_const) return cbool(c.c == 0.0, loc);
  return emit(Op::Eq, {c, cnum(0, kI, loc)}, loc, kB);
}

namespace {
// `v` (a raise) in the shape of `like`: one copy per element.
Val raise_like(const Val& like, const Val& v) {
  if (!like.array) return v;
  Val r = like;
  for (Val& x : r.items) x = raise_like(x, v);
  return r;
}
}  // namespace

Val Lowerer::sel(const Val& c, const Val& a, const Val& b, SourceLoc loc) {
  if (c.is_const) return c.c != 0.0 ? a : b;
  if (a.raises && b.array) return sel(c, raise_like(b, a), b, loc);
  if (b.raises && a.array) return sel(c, a, raise_like(a, b), loc);
  TC_ASSERT(same_shape(a, b));
  if (a.array) {
    Val r = a;
    for (std::size_t i = 0; i < a.items.size(); ++i) r.items[i] = sel(c, a.items[i], b.items[i], loc);
    return r;
  }
  if (same(a, b)) {
    // The same wire, but each side may carry a branch-narrowed interval.
    Val r = a;
    r.has_raise = a.has_raise || b.has_raise;
    r.may_fail = a.may_fail || b.may_fail;
    r.ty |= b.ty;
    r.lo = std::min(a.lo, b.lo);
    r.hi = std::max(a.hi, b.hi);
    return r;
  }
  if (c.ty == kB && a.is_const && b.is_const && a.ty == kB && b.ty == kB) {
    if (a.c != 0.0 && b.c == 0.0) return c;
    if (a.c == 0.0 && b.c != 0.0) return not_(c, loc);
  }
  Val r = emit(Op::Select, {c, a, b}, loc, a.ty | b.ty);
  r.raises = a.raises && b.raises;  // every path through it raised
  r.has_raise = a.has_raise || b.has_raise;
  if (r.has_raise && !r.raises && r.node.valid()) select_sides_[static_cast<std::uint32_t>(r.node.id())] = {c, a, b};
  return r;
}

const Val& Lowerer::scalar(const Val& v, SourceLoc loc, const char* what) {
  if (v.array)
    fail(std::string(what) + " needs a number, but this is " + shape_text(v) + ": use one element, e.g. x[0]", loc);
  return v;
}

Val Lowerer::truth(const Val& v, SourceLoc loc) {
  if (v.array) fail("a list cannot be used as a condition: test one of its elements", loc);
  if (v.is_const) return cbool(v.c != 0.0, loc);
  if (v.ty == kB) return v;
  return emit(Op::Ne, {v, cnum(0, kI, loc)}, loc, kB);
}

Val Lowerer::compare(CmpOp op, const Val& a, const Val& b, SourceLoc loc) {
  if (a.array || b.array) fail("comparing lists is not supported: compare their elements", loc);
  if (a.is_const && b.is_const) return cbool(compare_values(op, rnd(a.c), rnd(b.c)), loc);
  // Decided by the intervals (b == 0 where b can only be 0): a constant, so a
  // break or return it guards ends the loop's expansion there. Only when
  // neither side can fail, as the folded node is not computed; and not on
  // float32 values, whose rounding the intervals do not follow.
  if (!a.may_fail && !b.may_fail && !empty(a) && !empty(b) && (!f32_ || (!(a.ty & kF) && !(b.ty & kF)))) {
    // One wire on both sides (n != int(n) of an int n): never NaN, so decided.
    if (same(a, b)) return cbool(op == CmpOp::Le || op == CmpOp::Ge || op == CmpOp::Eq, loc);
    const Interval in[2] = {range_of(a), range_of(b)};
    const Interval decided = *ival::apply(circuit_op(op), in);
    if (decided.is_point()) return cbool(decided.lo != 0.0, loc);
  }
  return emit(circuit_op(op), {a, b}, loc, kB);
}

Val Lowerer::arith(ArithOp op, const Val& a, const Val& b, SourceLoc loc, const char* what) {
  if (a.array || b.array) return array_arith(op, a, b, loc);
  const bool ints = int_like(a.ty) && int_like(b.ty);
  const bool floats = (a.ty & kF) || (b.ty & kF);
  unsigned ty = op == ArithOp::Div ? kF : (ints ? kI : 0u) | (floats ? kF : 0u);
  const bool divides = op == ArithOp::Div || op == ArithOp::FloorDiv || op == ArithOp::Mod;
  if (divides && b.is_const && b.c == 0.0)
    fail(std::string("division by zero: the divisor of '") + spelling(op) + "' is always 0", loc);
  // The interval through the shared transfer functions; x * x of one value
  // is a square, never negative.
  const Op node_op = circuit_op(op);
  const Interval in[2] = {range_of(a), range_of(b)};
  Interval range = (op == ArithOp::Mul && same(a, b)) ? ival::square(in[0]) : *ival::apply(node_op, in);
  double lo = range.lo, hi = range.hi;
  std::string desc = what ? what : "";
  if (op == ArithOp::Add) {
    if (!what) desc = "addition";
  } else if (op == ArithOp::Sub) {
    if (!what) desc = "subtraction";
  } else if (op == ArithOp::Mul) {
    if (!what) desc = "multiplication";
  } else if (op == ArithOp::Div || op == ArithOp::FloorDiv) {
    desc = "floor division";
  } else {
    desc = "modulo";
  }
  fix_nan(lo, hi);
  if (empty(a) || empty(b)) make_empty(lo, hi);
  else if (ty & kI) check_exact(lo, hi, loc, desc);
  if (a.is_const && b.is_const) {
    double x = rnd(a.c), y = rnd(b.c), r;
    if (op == ArithOp::Add) r = x + y;
    else if (op == ArithOp::Sub) r = x - y;
    else if (op == ArithOp::Mul) r = x * y;
    else if (op == ArithOp::Div) r = x / y;
    else if (op == ArithOp::FloorDiv) r = kernels::py_floordiv(x, y);
    else r = kernels::py_mod(x, y);
    r = rnd(r);
    if (!std::isfinite(r)) fail("this constant expression overflows to infinity", loc);
    return cnum(r, ty, loc);
  }
  return emit(node_op, {a, b}, loc, ty, Interval::of(lo, hi));
}

Val Lowerer::array_arith(ArithOp op, const Val& a, const Val& b, SourceLoc loc) {
  if (op == ArithOp::Add && a.array && b.array) {
    if (a.tuple != b.tuple)
      fail("cannot concatenate a list and a tuple: write both as lists or both as tuples", loc);
    check_list(scalars(a) + scalars(b), loc);
    Val r = a;
    for (const Val& v : b.items) r.items.push_back(v);
    return r;
  }
  if (op == ArithOp::Mul && (a.array != b.array)) {
    const Val& arr = a.array ? a : b;
    const Val& n = a.array ? b : a;
    if (!n.is_const || (n.ty & kF))
      fail("a list can only be repeated by an integer known at compile time", loc);
    Val r = arr;
    r.items.clear();
    const double times = std::max(n.c, 0.0);
    const std::size_t each = scalars(arr);
    if (each > 0 && times * static_cast<double>(each) > static_cast<double>(opts_.max_nodes))
      fail("this list is larger than the node budget: raise it with " + hints::budget(opts_.hints, "max-nodes"), loc,
           DiagCode::NodeBudget);
    if (times * static_cast<double>(arr.items.size()) > static_cast<double>(opts_.max_nodes))
      fail("this list is larger than the node budget: raise it with " + hints::budget(opts_.hints, "max-nodes"), loc,
           DiagCode::NodeBudget);
    r.items.reserve(static_cast<std::size_t>(times) * arr.items.size());
    for (long long k = 0; !arr.items.empty() && k < static_cast<long long>(times); ++k)
      r.items.insert(r.items.end(), arr.items.begin(), arr.items.end());
    return r;
  }
  fail(std::string("the operator '") + spelling(op) + "' cannot be applied to a list: use it on the elements", loc);
}

Val Lowerer::neg(const Val& a, SourceLoc loc) {
  scalar(a, loc, "unary minus");
  unsigned ty = (int_like(a.ty) ? kI : 0u) | (a.ty & kF);
  const Interval range = ival::neg(range_of(a));
  if ((ty & kI) && !empty(a)) check_exact(range.lo, range.hi, loc, "negation");
  if (a.is_const) return cnum(rnd(-rnd(a.c)), ty, loc);
  return emit(Op::Neg, {a}, loc, ty, range);
}

Val Lowerer::power(const Val& a, const Val& e, SourceLoc loc) {
  scalar(a, loc, "'**'");
  // Both sides known while compiling and a float exponent: CPython computes
  // a float power with C's pow(), and so does the compiler (5 ** 0.5,
  // 2.0 ** (1 / 3)). The resolver types int ** int as an int, so an int to a
  // negative power (a float in Python) stays refused below.
  if (a.is_const && e.is_const && !e.array && (e.ty & kF)) {
    const double base = rnd(a.c), exponent = rnd(e.c);
    if (base == 0.0 && exponent < 0)
      fail("0 to a negative power divides by zero: CPython raises ZeroDivisionError here", loc);
    if (base < 0 && exponent != std::floor(exponent))
      fail("a negative number to a fractional power is a complex number in Python, which a circuit has no type for", loc);
    const double r = rnd(std::pow(base, exponent));
    if (!std::isfinite(r)) fail("this constant power overflows: CPython raises OverflowError here", loc);
    return cnum(r, kF, loc);
  }
  if (!e.array && e.is_const && e.c == 0.5)
    // Not math.sqrt: CPython's x ** 0.5 is C's pow(x, 0.5), which gives 0.0
    // for -0.0 (sqrt: -0.0), a complex number for a negative x, and need not
    // round as the correctly rounded sqrt does.
    fail("'x ** 0.5' of a value known only at run time is not supported: CPython computes it with C's pow(), "
         "which is not math.sqrt bit for bit (-0.0 ** 0.5 is 0.0, a negative base gives a complex number); "
         "use math.sqrt(x)",
         loc);
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
  for (int k = 1; k < n; ++k) r = arith(ArithOp::Mul, r, a, loc, "power");
  return r;
}

Val Lowerer::index(const Val& arr, const Val& i, SourceLoc loc) {
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
    Val plus = arith(ArithOp::Add, i, cnum(n, kI, loc), loc);
    idx = i.hi < 0 ? plus : sel(compare(CmpOp::Lt, i, cnum(0, kI, loc), loc), plus, i, loc);
  }
  return gather(arr.items, idx, loc);
}

Val Lowerer::gather(const std::vector<Val>& items, const Val& idx, SourceLoc loc) {
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
  for (const Val& v : items) {
    if (v.array) fail("indexing with a run-time index needs rows of the same shape", loc);
    args.push_back(v);
    ty |= v.ty;
  }
  return emit(Op::Gather, args, loc, ty);
}

}  // namespace tc::py::lowering
