#pragma once
/// Closed intervals of doubles with outward rounding, the domain of the
/// interval analysis. An infinite end means "unbounded on that side".
///
/// Every operation returns an interval that contains the result the checked
/// evaluator can produce for any arguments inside the argument intervals:
/// each end is computed with the same IEEE operation and then moved one step
/// outward (nextafter) unless the operation was exact there, so integer
/// intervals stay exact while floating ones stay sound under any rounding.
#include <limits>
#include <optional>
#include <span>

#include "ir/op.h"

namespace tc {

struct Interval {
  double lo = -std::numeric_limits<double>::infinity();
  double hi = std::numeric_limits<double>::infinity();
  bool integral = false;  ///< every value in it is an integer

  static Interval everything() { return {}; }
  static Interval point(double v);
  static Interval of(double lo, double hi, bool integral = false);
  static Interval unit(bool integral) { return of(0.0, 1.0, integral); }  ///< [0, 1]

  [[nodiscard]] bool bounded() const;
  [[nodiscard]] bool is_point() const { return lo == hi; }
  [[nodiscard]] bool contains(double v) const { return v >= lo && v <= hi; }
  [[nodiscard]] bool contains_zero() const { return contains(0.0); }
  [[nodiscard]] bool within(double a, double b) const { return lo >= a && hi <= b; }
  bool operator==(const Interval&) const = default;
};

namespace ival {

Interval hull(const Interval& a, const Interval& b);
/// Integral intervals shrink to their integer ends (ceil lo, floor hi).
Interval tighten(Interval a);

Interval add(const Interval& a, const Interval& b);
Interval sub(const Interval& a, const Interval& b);
Interval mul(const Interval& a, const Interval& b);
Interval neg(const Interval& a);
/// Quotients a/b over the nonzero b in `b` (a zero divisor is an error, so it
/// contributes no value); everything when b is exactly zero.
Interval div(const Interval& a, const Interval& b);
/// Python floor division over the nonzero divisors.
Interval floordiv(const Interval& a, const Interval& b);
/// Python modulo (sign of the divisor) over the nonzero divisors.
Interval mod(const Interval& a, const Interval& b);
Interval relu(const Interval& a);
Interval sigmoid(const Interval& a);
/// A math-module function (ir/math_functions.h) over the arguments inside
/// its domain (the others raise); empty when none is.
Interval math_function(Op op, const Interval& a);
/// x * x of one value: never negative, unlike mul(a, a) of two values.
Interval square(const Interval& a);
/// |x| (the frontend's abs(), a select of x and -x).
Interval abs(const Interval& a);
/// Exact select: the chosen side when the condition is decided, else both.
Interval select(const Interval& c, const Interval& yes, const Interval& no);
/// Exact gather: the values at the indices the index interval allows; an
/// empty index interval (lo > hi, a value that is never computed) gives an
/// empty one, and an index with no valid position (the node always fails)
/// gives everything.
Interval gather(const Interval& index, std::span<const Interval> values);

/// The interval transfer function of `op` in exact semantics, for the ops
/// whose result follows from their arguments' intervals alone (arithmetic,
/// comparisons, select, relu, sigmoid, gather); nullopt for the rest
/// (leaves, one-hot gathers, affine, calls), whose users know more. Both the
/// interval analysis and the frontend's exactness check go through it.
std::optional<Interval> apply(Op op, std::span<const Interval> args);

/// Outward rounding to binary32 (the float32 dtype's rounding point):
/// lo to the largest float at or below it, hi to the smallest float at or above.
Interval round_f32(const Interval& a);

/// Moves both ends outward by `ulps` steps.
Interval widen(Interval a, int ulps);

/// Exact comparisons: a point 0 or 1 when decided, else [0, 1].
enum class Cmp { Lt, Le, Gt, Ge, Eq, Ne };
Interval compare(Cmp op, const Interval& a, const Interval& b);

}  // namespace ival
}  // namespace tc
