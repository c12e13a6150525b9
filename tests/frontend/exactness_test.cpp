// Exactness limits: integer results must stay within what the dtype holds
// exactly, given the input domains (intervals through loops and branches).
#include <gtest/gtest.h>

#include <cmath>

#include "lower_util.h"

namespace tc {
namespace {

using test::compile_text;
using test::evaluate;
using test::Outcome;
using test::result;
using test::loop_source;
using test::run;

TEST(Exactness, ProductJustBelowTwoToThe53) {
  // 94906265^2 < 2^53 < 94906266^2
  EXPECT_TRUE(compile_text("def f(a, b):\n    return a * b\n", {"a=int32:0:94906265", "b=int32:0:94906265"}).ok());
  auto r = compile_text("def f(a, b):\n    return a * b\n", {"a=int32:0:94906266", "b=int32:0:94906266"});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("2^53"), std::string::npos);
  EXPECT_NE(r.error().message.find("narrow the input domains"), std::string::npos);
  EXPECT_EQ(r.error().loc, (SourceLoc{2, 12}));
}

TEST(Exactness, Float32LimitIsTwoToThe24) {
  CompileOptions o;
  o.dtype = Dtype::Float32;
  o.inputs = {{"a", Domain::int32(0, 4095)}};
  EXPECT_TRUE(compile_python("def f(a):\n    return a * a\n", o).ok());
  o.inputs = {{"a", Domain::int32(0, 4096)}};
  auto r = compile_python("def f(a):\n    return a * a\n", o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("2^24"), std::string::npos);
}

// The frontend's intervals are the interval analysis's (ival::apply): a
// remainder by 10 lies in [0, 9], so 9 * 10^15 stays below 2^53 while
// 10 * 10^15 would not.
TEST(Exactness, IntervalsComeFromTheSharedTransferFunctions) {
  const char* src = "def f(a):\n    return (a % 10) * 1000000000000000\n";
  auto c = compile_text(src, {"a=int32:-128:127"});
  ASSERT_TRUE(c.ok()) << c.error().format();
  EXPECT_EQ(result(src, {"a=int32:-128:127"}, {{"a", -1}}), 9e15);
  auto r = compile_text("def f(a):\n    return (a % 11) * 1000000000000000\n", {"a=int32:-128:127"});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("may reach 10000000000000000"), std::string::npos) << r.error().message;
  // x * x of one value is a square: never negative, so the negative bound
  // does not count against the limit.
  EXPECT_TRUE(
      compile_text("def f(a):\n    b = a * a\n    return (b - 90000000000) * 100000\n", {"a=int32:-300000:300000"})
          .ok());
}

TEST(Exactness, FloatArithmeticIsNotLimited) {
  EXPECT_TRUE(compile_text("def f(x):\n    return x * x * x * 1e300\n", {"x=float64"}).ok());
}

TEST(Exactness, IntervalsFollowLoops) {
  // s grows by at most 1000 per iteration: 1000 iterations stay tiny.
  EXPECT_TRUE(compile_text(loop_source(1000), {"a=int32:-1000:1000"}).ok());
  // Doubling 60 times leaves the exact range.
  auto r = compile_text("def f(a):\n    for i in range(60):\n        a = a * 2\n    return a\n", {"a=int32:1:3"});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().loc, (SourceLoc{3, 13}));
}

TEST(Exactness, BranchConditionsNarrowIntervals) {
  // Without narrowing, 60 doublings would exceed 2^53; the guard keeps x
  // below 2000 on every path that multiplies.
  const char* src =
      "def f(a):\n    x = a\n    for i in range(60):\n        if x < 1000:\n            x = x * 2\n    return x\n";
  auto c = compile_text(src, {"a=int32:1:50"});
  ASSERT_TRUE(c.ok()) << c.error().format();
  auto r = test::evaluate(c->program, {{"a", 3}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)[0].second, 1536);
  // The same in a conditional expression, and after an early exit.
  EXPECT_TRUE(compile_text("def f(a):\n    for i in range(60):\n        a = a * 2 if a < 1000 else a\n    return a\n",
                           {"a=int32:1:50"})
                  .ok());
  EXPECT_TRUE(compile_text("def f(a):\n    for i in range(60):\n        if a >= 1000:\n            break\n"
                           "        a = a * 2\n    return a\n",
                           {"a=int32:1:50"})
                  .ok());
  // After the if, both branches meet again: the interval widens back.
  auto widened = compile_text(
      "def f(a):\n    if a < 10:\n        pass\n    return a * a * a * a * a\n", {"a=int32:0:2000000"});
  EXPECT_FALSE(widened.ok());
}

TEST(Exactness, LiteralDivisionByZero) {
  for (const char* op : {"/", "//", "%"}) {
    auto r = compile_text(std::string("def f(a):\n    return a ") + op + " 0\n", {"a=int32:0:3"});
    ASSERT_FALSE(r.ok()) << op;
    EXPECT_NE(r.error().message.find("division by zero"), std::string::npos);
  }
}

}  // namespace
}  // namespace tc
