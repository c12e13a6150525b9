#include "passes/interval.h"

#include <algorithm>
#include <cfloat>
#include <cmath>

#include "ir/kernels.h"
#include "ir/math_functions.h"

namespace tc {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// Below this magnitude a product or quotient may have lost bits to underflow,
// and the fma residual test below is no longer a proof of exactness.
constexpr double kTiny = 0x1p-969;

double down(double r, bool exact) { return exact ? r : std::nextafter(r, -kInf); }
double up(double r, bool exact) { return exact ? r : std::nextafter(r, kInf); }

bool sum_exact(double a, double b, double s) {
  if (!std::isfinite(s)) return std::isinf(a) || std::isinf(b);  // an infinite operand is a limit, not an overflow
  double bb = s - a;
  double err = (a - (s - bb)) + (b - bb);
  return err == 0.0;
}

// a*b with 0 * inf read as 0: an infinite end stands for "arbitrarily large
// finite", and zero times any finite value is zero.
struct Rounded {
  double v;
  bool exact;
};

Rounded mul_end(double a, double b) {
  if (a == 0.0 || b == 0.0) return {0.0, true};
  double p = a * b;
  if (std::isinf(a) || std::isinf(b)) return {p, true};
  if (!std::isfinite(p)) return {p, false};
  if (std::fabs(p) < kTiny) return {p, false};
  return {p, std::fma(a, b, -p) == 0.0};
}

Rounded div_end(double a, double b) {
  double q = a / b;
  if (std::isnan(q)) return {q, false};
  if (std::isinf(a) || std::isinf(b)) return {q, true};  // limits: inf/finite, finite/inf -> 0
  if (!std::isfinite(q)) return {q, false};
  if (q == 0.0) return {q, a == 0.0};
  if (std::fabs(q) < kTiny || std::fabs(a) < kTiny) return {q, false};
  return {q, std::fma(q, b, -a) == 0.0};
}

// Sound bounds from a set of corner results: the real extremes of a function
// monotone in each argument lie at corners. A NaN corner (inf/inf) means the
// side is unbounded.
Interval from_corners(const Rounded* c, int n) {
  Interval out{kInf, -kInf, false};
  for (int i = 0; i < n; ++i) {
    if (std::isnan(c[i].v)) return Interval::everything();
    out.lo = std::min(out.lo, down(c[i].v, c[i].exact));
    out.hi = std::max(out.hi, up(c[i].v, c[i].exact));
  }
  return out;
}

Interval div_nonzero(const Interval& a, const Interval& b) {
  Rounded c[4] = {div_end(a.lo, b.lo), div_end(a.lo, b.hi), div_end(a.hi, b.lo), div_end(a.hi, b.hi)};
  return from_corners(c, 4);
}

bool is_int(double v) { return std::isfinite(v) && v == std::floor(v); }

// Integer arithmetic below 2^53 is exact, so Python's divmod gives the exact
// floor and remainder there.
bool small_integers(const Interval& a) {
  return a.integral && a.lo >= -0x1p53 && a.hi <= 0x1p53;
}

}  // namespace

Interval Interval::point(double v) { return {v, v, is_int(v)}; }
Interval Interval::of(double lo, double hi, bool integral) { return {lo, hi, integral}; }
bool Interval::bounded() const { return std::isfinite(lo) && std::isfinite(hi); }

namespace ival {

Interval hull(const Interval& a, const Interval& b) {
  return {std::min(a.lo, b.lo), std::max(a.hi, b.hi), a.integral && b.integral};
}

Interval tighten(Interval a) {
  if (!a.integral) return a;
  if (std::isfinite(a.lo)) a.lo = std::ceil(a.lo);
  if (std::isfinite(a.hi)) a.hi = std::floor(a.hi);
  // No integer inside: keep a valid (if vacuous) interval; an empty one (a
  // raise's: no value at all) stays empty.
  if (a.lo > a.hi && !(a.lo == kInf && a.hi == -kInf)) a.hi = a.lo;
  return a;
}

Interval add(const Interval& a, const Interval& b) {
  double lo = a.lo + b.lo, hi = a.hi + b.hi;
  Interval out{std::isnan(lo) ? -kInf : down(lo, sum_exact(a.lo, b.lo, lo)),
               std::isnan(hi) ? kInf : up(hi, sum_exact(a.hi, b.hi, hi)), a.integral && b.integral};
  return out;
}

Interval neg(const Interval& a) { return {-a.hi, -a.lo, a.integral}; }

Interval sub(const Interval& a, const Interval& b) { return add(a, neg(b)); }

Interval mul(const Interval& a, const Interval& b) {
  Rounded c[4] = {mul_end(a.lo, b.lo), mul_end(a.lo, b.hi), mul_end(a.hi, b.lo), mul_end(a.hi, b.hi)};
  Interval out = from_corners(c, 4);
  out.integral = a.integral && b.integral;
  return out;
}

Interval div(const Interval& a, const Interval& b) {
  if (!b.contains_zero()) return div_nonzero(a, b);
  if (b.lo == 0.0 && b.hi == 0.0) return Interval::everything();  // always a division by zero
  if (b.integral) {
    // The nonzero integer divisors are [lo, -1] and [1, hi].
    Interval out{kInf, -kInf, false};
    if (b.lo <= -1.0) out = hull(out, div_nonzero(a, Interval::of(b.lo, -1.0, true)));
    if (b.hi >= 1.0) out = hull(out, div_nonzero(a, Interval::of(1.0, b.hi, true)));
    out.integral = false;
    return out;
  }
  if (a.lo == 0.0 && a.hi == 0.0) return Interval::point(0.0);
  return Interval::everything();  // divisors arbitrarily close to zero
}

Interval floordiv(const Interval& a, const Interval& b) {
  if (b.lo == 0.0 && b.hi == 0.0) return Interval::everything();
  Interval q = div(a, b);
  Interval out{std::floor(q.lo), std::floor(q.hi), true};
  if (!(small_integers(a) && small_integers(b))) {
    // Python's float floor division rounds (a - fmod(a, b)) / b, which can
    // land one away from the floor of the exact quotient.
    out.lo -= 1.0;
    out.hi += 1.0;
  }
  return out;
}

Interval mod(const Interval& a, const Interval& b) {
  if (b.lo == 0.0 && b.hi == 0.0) return Interval::everything();
  if (small_integers(a) && small_integers(b)) {
    if (b.lo > 0.0) {
      if (a.lo >= 0.0 && a.hi < b.lo) return a;  // already a remainder
      Interval out{0.0, b.hi - 1.0, true};
      if (a.lo >= 0.0) out.hi = std::min(out.hi, a.hi);
      return out;
    }
    if (b.hi < 0.0) {
      if (a.hi <= 0.0 && a.lo > b.hi) return a;
      Interval out{b.lo + 1.0, 0.0, true};
      if (a.hi <= 0.0) out.lo = std::max(out.lo, a.lo);
      return out;
    }
    return {std::min(0.0, b.lo + 1.0), std::max(0.0, b.hi - 1.0), true};
  }
  // Floating remainders: the sign of the divisor and |r| <= |b| (CPython's
  // adjustment r + b may round up to b itself).
  const bool integral = a.integral && b.integral;
  if (b.lo > 0.0) {
    Interval out{0.0, b.hi, integral};
    if (a.lo >= 0.0) out.hi = std::min(out.hi, a.hi);  // fmod(a, b) <= a, exactly
    return out;
  }
  if (b.hi < 0.0) {
    Interval out{b.lo, 0.0, integral};
    if (a.hi <= 0.0) out.lo = std::max(out.lo, a.lo);
    return out;
  }
  return {std::min(0.0, b.lo), std::max(0.0, b.hi), integral};
}

Interval relu(const Interval& a) { return {kernels::relu(a.lo), kernels::relu(a.hi), a.integral}; }

Interval sigmoid(const Interval& a) {
  // exp is not correctly rounded: allow a few ulps of error on each end.
  Interval out = widen({kernels::sigmoid(a.lo), kernels::sigmoid(a.hi), false}, 4);
  out.lo = std::max(out.lo, 0.0);
  out.hi = std::min(out.hi, 1.0);
  return out;
}

Interval math_function(Op op, const Interval& a) {
  // Arguments outside the domain raise and give no value. An increasing
  // function gives f at the ends: exact for sqrt (correctly rounded), a few
  // ulps wider for the C library's others (within an ulp or so), then
  // clamped to its range; the others (sin, cos, tan) their whole range.
  const math_fn::MathFunction& f = math_fn::of(op);
  const double lo = std::max(a.lo, math_fn::lowest(f));
  if (!(lo <= a.hi)) return {kInf, -kInf, false};  // always outside: empty
  if (!f.increasing) return {f.range_lo, f.range_hi, false};
  Interval out{f.value(lo), f.value(a.hi), false};
  if (op != Op::Sqrt) out = widen(out, 4);
  out.lo = std::max(out.lo, f.range_lo);
  out.hi = std::min(out.hi, f.range_hi);
  return out;
}

Interval square(const Interval& a) {
  Interval out = mul(a, a);
  out.lo = a.contains_zero() ? 0.0 : std::max(out.lo, 0.0);
  return out;
}

Interval abs(const Interval& a) {
  const double lo = std::fabs(a.lo), hi = std::fabs(a.hi);
  return {(a.lo <= 0 && a.hi >= 0) ? 0.0 : std::min(lo, hi), std::max(lo, hi), a.integral};
}

Interval select(const Interval& c, const Interval& yes, const Interval& no) {
  if (!c.contains_zero()) return yes;
  if (c.lo == 0.0 && c.hi == 0.0) return no;
  return hull(yes, no);
}

Interval gather(const Interval& index, std::span<const Interval> values) {
  if (index.lo > index.hi) return {kInf, -kInf, false};
  const double first = std::max(0.0, std::ceil(index.lo));
  const double last = std::min(static_cast<double>(values.size()) - 1.0, std::floor(index.hi));
  if (!(first <= last)) return Interval::everything();  // no valid index: the node always fails
  Interval out = values[static_cast<std::size_t>(first)];
  for (double k = first + 1; k <= last; ++k) out = hull(out, values[static_cast<std::size_t>(k)]);
  return out;
}

std::optional<Interval> apply(Op op, std::span<const Interval> a) {
  switch (op) {
    case Op::Add: return add(a[0], a[1]);
    case Op::Sub: return sub(a[0], a[1]);
    case Op::Mul: return mul(a[0], a[1]);
    case Op::Neg: return neg(a[0]);
    case Op::Div: return div(a[0], a[1]);
    case Op::FloorDiv: return floordiv(a[0], a[1]);
    case Op::Mod: return mod(a[0], a[1]);
    case Op::Lt: return compare(Cmp::Lt, a[0], a[1]);
    case Op::Le: return compare(Cmp::Le, a[0], a[1]);
    case Op::Gt: return compare(Cmp::Gt, a[0], a[1]);
    case Op::Ge: return compare(Cmp::Ge, a[0], a[1]);
    case Op::Eq: return compare(Cmp::Eq, a[0], a[1]);
    case Op::Ne: return compare(Cmp::Ne, a[0], a[1]);
    case Op::Select: return select(a[0], a[1], a[2]);
    case Op::Relu: return relu(a[0]);
    case Op::Sigmoid: return sigmoid(a[0]);
    case Op::Square: return square(a[0]);  // [0, max^2] when the argument spans 0
    case Op::Sqrt: case Op::Exp: case Op::Expm1: case Op::Log: case Op::Log2: case Op::Log10: case Op::Log1p:
    case Op::Sin: case Op::Cos: case Op::Tan: case Op::Atan: case Op::Tanh:
      return math_function(op, a[0]);
    case Op::Gather: return gather(a[0], a.subspan(1));
    // A raise never gives a value: empty, so a select's hull is its other side.
    case Op::Raise: return Interval{kInf, -kInf, true};
    case Op::Input:
    case Op::Parameter:
    case Op::Constant:
    case Op::State:
    case Op::GatherOneHot:
    case Op::Affine:
    case Op::SparseAffine:
    case Op::Call:
      return std::nullopt;
  }
  return std::nullopt;
}

Interval round_f32(const Interval& a) {
  auto f_down = [](double x) {
    if (std::isnan(x) || std::isinf(x)) return x;
    if (x > static_cast<double>(FLT_MAX)) return static_cast<double>(FLT_MAX);
    if (x < -static_cast<double>(FLT_MAX)) return -kInf;
    float f = static_cast<float>(x);
    if (static_cast<double>(f) > x) f = std::nextafter(f, -std::numeric_limits<float>::infinity());
    return static_cast<double>(f);
  };
  auto f_up = [](double x) {
    if (std::isnan(x) || std::isinf(x)) return x;
    if (x > static_cast<double>(FLT_MAX)) return kInf;
    if (x < -static_cast<double>(FLT_MAX)) return -static_cast<double>(FLT_MAX);
    float f = static_cast<float>(x);
    if (static_cast<double>(f) < x) f = std::nextafter(f, std::numeric_limits<float>::infinity());
    return static_cast<double>(f);
  };
  return {f_down(a.lo), f_up(a.hi), a.integral};
}

Interval widen(Interval a, int ulps) {
  for (int i = 0; i < ulps; ++i) {
    a.lo = std::nextafter(a.lo, -kInf);
    a.hi = std::nextafter(a.hi, kInf);
  }
  return a;
}

Interval compare(Cmp op, const Interval& a, const Interval& b) {
  auto decided = [](bool v) { return Interval::point(v ? 1.0 : 0.0); };
  const bool disjoint = a.hi < b.lo || b.hi < a.lo;
  switch (op) {
    case Cmp::Lt:
      if (a.hi < b.lo) return decided(true);
      if (a.lo >= b.hi) return decided(false);
      break;
    case Cmp::Le:
      if (a.hi <= b.lo) return decided(true);
      if (a.lo > b.hi) return decided(false);
      break;
    case Cmp::Gt:
      if (a.lo > b.hi) return decided(true);
      if (a.hi <= b.lo) return decided(false);
      break;
    case Cmp::Ge:
      if (a.lo >= b.hi) return decided(true);
      if (a.hi < b.lo) return decided(false);
      break;
    case Cmp::Eq:
      if (a.is_point() && b.is_point() && a.lo == b.lo) return decided(true);
      if (disjoint) return decided(false);
      break;
    case Cmp::Ne:
      if (a.is_point() && b.is_point() && a.lo == b.lo) return decided(false);
      if (disjoint) return decided(true);
      break;
  }
  return Interval::unit(true);
}

}  // namespace ival
}  // namespace tc
