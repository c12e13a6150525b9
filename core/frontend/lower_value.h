#pragma once
// The lowering's compile-time view of a value (a constant, a wire with its
// static types and interval, or a list scalarized at compile time), the
// variables in scope and the control-flow state of a block.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/diagnostic.h"
#include "frontend/resolver.h"
#include "ir/builder.h"
#include "passes/interval.h"

namespace tc::py::lowering {

// The value's types on this path (Val::ty) use the resolver's bits kB, kI,
// kF; they refine the expression's static type.
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr std::size_t kArgumentsPerNode = 8;

struct Val {
  bool array = false;
  // scalar
  bool is_const = false;
  double c = 0.0;
  Value node;  // valid() when a circuit node holds the value
  unsigned ty = kF;
  double lo = -kInf, hi = kInf;  // interval of every value it can take
  // Whether computing it can fail at run time (a divisor whose interval
  // holds 0, an index that may be out of range, a result that may not be
  // finite, or such an argument). A comparison of values that cannot fail,
  // decided by their intervals, is folded (lower_ops.cpp compare()).
  bool may_fail = false;
  // A raise node (or a choice among them) standing for a path that raised:
  // returned like a value, it takes the shape of the other returns (sel()
  // copies it into each element) and its interval is empty (it gives no value).
  bool raises = false;
  // Some path through it raised: a raise node, or a choice with one on a
  // side (Lowerer::raised_on tells on which paths).
  bool has_raise = false;
  SourceLoc loc;                 // where a constant is written (its node's location)
  // array (literal list or tuple, scalarized at compile time)
  std::vector<Val> items;
  bool tuple = false;
};

inline Val cnum(double v, unsigned ty, SourceLoc loc) {
  if (!(ty & kF) && v == 0.0) v = 0.0;  // Python's integer zero has no sign
  Val r;
  r.is_const = true;
  r.c = v;
  r.ty = ty;
  r.lo = r.hi = v;
  r.loc = loc;
  return r;
}
inline Val cbool(bool b, SourceLoc loc = {}) { return cnum(b ? 1.0 : 0.0, kB, loc); }
inline bool is_true(const Val& v) { return !v.array && v.is_const && v.c != 0.0; }
inline bool is_false(const Val& v) { return !v.array && v.is_const && v.c == 0.0; }
// An empty interval marks a value on a branch that cannot be taken (its
// condition contradicts the intervals): it never runs, so it constrains nothing.
inline bool empty(const Val& v) { return !v.array && !v.is_const && v.lo > v.hi; }
inline void make_empty(double& lo, double& hi) {
  lo = kInf;
  hi = -kInf;
}

// The value's interval in the shared interval code's terms.
inline Interval range_of(const Val& v) { return Interval::of(v.lo, v.hi, !(v.ty & kF)); }

inline bool same(const Val& a, const Val& b) {
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

/// Numbers a value holds (1 for a number, the elements of nested lists).
inline std::size_t scalars(const Val& v) {
  if (!v.array) return 1;
  std::size_t n = 0;
  for (const Val& x : v.items) n += scalars(x);
  return n;
}

inline bool same_shape(const Val& a, const Val& b) {
  if (a.array != b.array) return false;
  if (!a.array) return true;
  if (a.items.size() != b.items.size()) return false;
  for (std::size_t i = 0; i < a.items.size(); ++i)
    if (!same_shape(a.items[i], b.items[i])) return false;
  return true;
}

inline std::string shape_text(const Val& v) {
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

inline bool no_exits(const Flow& f) {
  return is_true(f.active) && !f.may_return && is_false(f.brk) && is_false(f.cont);
}

struct Fail {
  Diagnostic d;
};
[[noreturn]] inline void fail(std::string msg, SourceLoc loc) { throw Fail{make_error(std::move(msg), loc)}; }
/// A failure of a kind clients act on (a budget the IDE offers to raise).
[[noreturn]] inline void fail(std::string msg, SourceLoc loc, DiagCode code) {
  throw Fail{with_code(make_error(std::move(msg), loc), code)};
}

inline std::string num_text(double v) { return number_text(v); }

inline void fix_nan(double& lo, double& hi) {
  if (std::isnan(lo) || std::isnan(hi)) {
    lo = -kInf;
    hi = kInf;
  }
}

// One assignment to a name as lowered (one per loop iteration), for the
// "never used" warning. Small on purpose: an unrolled loop makes one per
// iteration.
struct DefRecord {
  int site = 0;                 // index into the assignment sites (line, column, name)
  bool read = false;            // some later read saw this value
  std::uint32_t nodes_begin = 0;  // its nodes: def_nodes_[nodes_begin, nodes_end)
  std::uint32_t nodes_end = 0;
};
}  // namespace tc::py::lowering
