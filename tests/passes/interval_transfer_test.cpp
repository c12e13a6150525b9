// The per-op interval transfer functions (ival::apply) that the interval
// analysis and the frontend's exactness check share: which ops of the table
// have one, and a table of cases worked out by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "ir/math_functions.h"
#include "ir/op.h"
#include "passes/interval.h"

namespace tc {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Every computing op whose result follows from its arguments has a transfer
// function; leaves, one-hot gathers, affine nodes and calls do not (their
// users know more: a domain, a value, coefficients).
TEST(IntervalTransfer, EveryArgumentDrivenOpOfTheTableHasOne) {
  for (int k = 0; k < kOpCount; ++k) {
    const OpInfo& info = op_info(static_cast<Op>(k));
    // A raise has no arguments, and its interval is empty (it gives no value).
    const bool expected = info.kind == OpKind::Arith || info.kind == OpKind::Compare ||
                          info.kind == OpKind::Nonlinear || info.op == Op::Select || info.op == Op::Gather ||
                          info.op == Op::Raise;
    const int n = info.max_args < 0 ? 4 : info.max_args;
    std::vector<Interval> args(static_cast<std::size_t>(n), Interval::of(1.0, 2.0, true));
    EXPECT_EQ(ival::apply(info.op, args).has_value(), expected) << info.name;
  }
}

// A raise gives no value: its interval is empty, stays empty through the
// integral tightening, and a select of it and a value has the value's.
TEST(IntervalTransfer, ARaiseIsEmptyAndASelectOfItIsItsOtherSide) {
  const Interval r = *ival::apply(Op::Raise, {});
  EXPECT_GT(r.lo, r.hi);
  EXPECT_EQ(ival::tighten(r), r);
  const Interval args[3] = {Interval::of(0, 1, true), r, Interval::of(2, 5, true)};
  EXPECT_EQ(*ival::apply(Op::Select, args), Interval::of(2, 5, true));
}

struct Case {
  Op op;
  std::vector<Interval> args;
  Interval expected;
};

const std::vector<Case> kCases = {
    // Integer arithmetic below 2^53 is exact: no outward step.
    {Op::Add, {Interval::of(-3, 4, true), Interval::of(10, 20, true)}, Interval::of(7, 24, true)},
    {Op::Sub, {Interval::of(-3, 4, true), Interval::of(10, 20, true)}, Interval::of(-23, -6, true)},
    {Op::Mul, {Interval::of(-3, 4, true), Interval::of(-2, 5, true)}, Interval::of(-15, 20, true)},
    {Op::Neg, {Interval::of(-3, 4, true)}, Interval::of(-4, 3, true)},
    // Python's // and % over the nonzero integer divisors.
    {Op::FloorDiv, {Interval::of(-7, 7, true), Interval::of(2, 2, true)}, Interval::of(-4, 3, true)},
    {Op::Mod, {Interval::of(-128, 127, true), Interval::of(10, 10, true)}, Interval::of(0, 9, true)},
    {Op::Mod, {Interval::of(-128, 127, true), Interval::of(-3, 3, true)}, Interval::of(-2, 2, true)},
    // A comparison decided by the intervals is a point.
    {Op::Lt, {Interval::of(0, 3, true), Interval::of(5, 9, true)}, Interval::of(1, 1, true)},
    {Op::Ge, {Interval::of(0, 3, true), Interval::of(5, 9, true)}, Interval::of(0, 0, true)},
    {Op::Eq, {Interval::of(0, 5, true), Interval::of(5, 9, true)}, Interval::of(0, 1, true)},
    {Op::Relu, {Interval::of(-3, 4, true)}, Interval::of(0, 4, true)},
    // square: [0, max^2] when the argument spans 0, else between the squares of its ends.
    {Op::Square, {Interval::of(-3, 5, true)}, Interval::of(0, 25, true)},
    {Op::Square, {Interval::of(-5, -2, true)}, Interval::of(4, 25, true)},
    // Select: the decided side, else both.
    {Op::Select, {Interval::of(1, 1, true), Interval::of(0, 1, true), Interval::of(7, 8, true)},
     Interval::of(0, 1, true)},
    {Op::Select, {Interval::of(0, 1, true), Interval::of(0, 1, true), Interval::of(7, 8, true)},
     Interval::of(0, 8, true)},
    // Gather: only the positions the index can take.
    {Op::Gather,
     {Interval::of(1, 2, true), Interval::of(100, 100, true), Interval::of(1, 2, true), Interval::of(5, 6, true)},
     Interval::of(1, 6, true)},
    // An index that is never computed (an empty interval, a branch ruled out) gives an empty value.
    {Op::Gather, {Interval::of(kInf, -kInf, true), Interval::of(1, 2, true)}, Interval::of(kInf, -kInf, false)},
    // An index with no valid position: the node always fails, any value.
    {Op::Gather, {Interval::of(5, 6, true), Interval::of(1, 2, true)}, Interval::everything()},
};

TEST(IntervalTransfer, HandWorkedCases) {
  for (const Case& c : kCases) {
    SCOPED_TRACE(std::string(op_name(c.op)) + " case");
    auto got = ival::apply(c.op, c.args);
    ASSERT_TRUE(got.has_value());
    EXPECT_EQ(got->lo, c.expected.lo);
    EXPECT_EQ(got->hi, c.expected.hi);
  }
}

TEST(IntervalTransfer, SquareAndAbsOfOneValue) {
  // x * x of one value is never negative; mul() of two independent values can be.
  EXPECT_EQ(ival::square(Interval::of(-3, 5, true)), Interval::of(0, 25, true));
  EXPECT_EQ(ival::mul(Interval::of(-3, 5, true), Interval::of(-3, 5, true)), Interval::of(-15, 25, true));
  EXPECT_EQ(ival::square(Interval::of(-5, -2, true)), Interval::of(4, 25, true));
  EXPECT_EQ(ival::abs(Interval::of(-7, 3, true)), Interval::of(0, 7, true));
  EXPECT_EQ(ival::abs(Interval::of(-7, -3, true)), Interval::of(3, 7, true));
}

// The math module's functions: the part of the argument inside the domain
// (the rest raises), its ends exact for sqrt (correctly rounded) and a few
// ulps wider for the C library's others; every sampled value inside.
TEST(IntervalTransfer, MathFunctionsCoverTheirDomainPart) {
  EXPECT_EQ(ival::math_function(Op::Sqrt, Interval::of(-4, 9, true)), Interval::of(0, 3));
  EXPECT_EQ(ival::math_function(Op::Sqrt, Interval::of(0.25, 2.25)), Interval::of(0.5, 1.5));
  const Interval none = ival::math_function(Op::Sqrt, Interval::of(-4, -1, true));
  EXPECT_GT(none.lo, none.hi);  // always raises: no value
  const Interval log0 = ival::math_function(Op::Log, Interval::of(-1, 1, true));
  EXPECT_LT(log0.lo, -744.0);  // log of the smallest positive double, not -inf
  EXPECT_GT(log0.lo, -746.0);
  EXPECT_GE(log0.hi, 0.0);
  EXPECT_GE(ival::math_function(Op::Exp, Interval::of(-1e6, 0)).lo, 0.0);
  EXPECT_GE(ival::math_function(Op::Expm1, Interval::of(-1e6, 0)).lo, -1.0);
  EXPECT_EQ(ival::math_function(Op::Exp, Interval::of(0, 1000)).hi, HUGE_VAL);  // overflows
  for (const math_fn::MathFunction& f : math_fn::kFunctions) {
    SCOPED_TRACE(std::string(op_name(f.op)));
    for (double lo = -3; lo <= 3; lo += 0.375)
      for (double w : {0.0, 0.1, 1.0, 7.5}) {
        const Interval a = Interval::of(lo, lo + w);
        const Interval r = ival::math_function(f.op, a);
        for (int k = 0; k <= 64; ++k) {
          const double x = lo + w * k / 64.0;
          if (math_fn::outside(f, x)) continue;
          const double y = f.value(x);
          EXPECT_TRUE(r.contains(y)) << "f(" << x << ") = " << y << " outside [" << r.lo << ", " << r.hi << "]";
        }
      }
  }
}

}  // namespace
}  // namespace tc
