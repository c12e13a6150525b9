// Conditions the input domains decide: a comparison whose operands'
// intervals settle it is a constant (when neither operand can fail), so a
// break it guards ends a loop's expansion and a raise or assert it rules
// out is never reached. Expected values computed with CPython 3.11.
#include <gtest/gtest.h>

#include <cmath>

#include "lower_util.h"

namespace tc {
namespace {

using test::compile_text;
using test::result;
using test::Outcome;
using test::run;

// The Euclid loop: after 50 steps b's interval is [0, 0], so
// `b == 0` holds and the break ends the expansion for any larger bound.
std::string euclid(int bound) {
  return "def gcd(a, b):\n"
         "    for _ in range(" + std::to_string(bound) + "):\n"
         "        if b == 0:\n"
         "            break\n"
         "        a, b = b, a % b\n"
         "    return a\n";
}

TEST(Guards, EuclidLoopCompilesWithAnyBoundFromFifty) {
  for (int bound : {50, 51, 60, 1000}) {
    auto c = compile_text(euclid(bound), {"a=int32:0:50", "b=int32:0:50"});
    ASSERT_TRUE(c.ok()) << "range(" << bound << "): " << c.error().format();
    auto r = test::evaluate(c->program, {{"a", 48}, {"b", 18}});
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_EQ((*r)[0].second, 6);
    r = test::evaluate(c->program, {{"a", 0}, {"b", 0}});
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_EQ((*r)[0].second, 0);
  }
  // The expansion stops where the break is decided: the same circuit for 51 and 1000.
  auto small = compile_text(euclid(51), {"a=int32:0:50", "b=int32:0:50"});
  auto large = compile_text(euclid(1000), {"a=int32:0:50", "b=int32:0:50"});
  ASSERT_TRUE(small.ok() && large.ok());
  EXPECT_EQ(small->program.nodes.size(), large->program.nodes.size());
}

TEST(Guards, ComparisonsThatMayFailAreNotFolded) {
  // a // b may divide by zero: the comparison stays, so b = 0 still fails
  // as CPython's ZeroDivisionError does.
  const char* src = "def f(a, b):\n    if a // b >= 0:\n        return 1\n    return 2\n";
  auto c = compile_text(src, {"a=int32:0:9", "b=int32:0:3"});
  ASSERT_TRUE(c.ok()) << c.error().format();
  EXPECT_FALSE(test::evaluate(c->program, {{"a", 1}, {"b", 0}}).ok());
  EXPECT_EQ(result(src, {"a=int32:0:9", "b=int32:0:3"}, {{"a", 1}, {"b", 1}}), 1);
}

TEST(Guards, RaiseAndAssertTheDomainsRuleOut) {
  const char* src =
      "def area(r: float) -> float:\n"
      "    if r < 0:\n"
      "        raise ValueError(\"area() only accepts non-negative values\")\n"
      "    assert r <= 100, \"too large\"\n"
      "    return 3 * r * r\n";
  // Ruled out by the domains: no raise node at all.
  auto ruled_out = compile_text(src, {"r=float64:0:100"});
  ASSERT_TRUE(ruled_out.ok()) << ruled_out.error().format();
  EXPECT_TRUE(ruled_out->program.nodes_of(Op::Raise).empty());
  EXPECT_EQ(result(src, {"r=float64:0:100"}, {{"r", 2}}), 12);
  // Reachable: the cases that reach them fail with the exception, at the
  // statement (test the raise on its own, then the assert).
  auto reachable = compile_text(src, {"r=float64:-1:100"});
  ASSERT_TRUE(reachable.ok()) << reachable.error().format();
  EXPECT_EQ(reachable->program.nodes_of(Op::Raise).size(), 1u);
  EXPECT_EQ(result(src, {"r=float64:-1:100"}, {{"r", 2}}), 12);
  auto raised = test::evaluate(reachable->program, {{"r", -0.5}});
  ASSERT_FALSE(raised.ok());
  EXPECT_EQ(raised.error().loc, (SourceLoc{3, 9}));
  EXPECT_NE(raised.error().message.find("raised ValueError: area() only accepts non-negative values"),
            std::string::npos)
      << raised.error().message;
  auto assert_can_fail = compile_text(src, {"r=float64:0:200"});
  ASSERT_TRUE(assert_can_fail.ok()) << assert_can_fail.error().format();
  auto failed = test::evaluate(assert_can_fail->program, {{"r", 150}});
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error().loc, (SourceLoc{4, 5}));
  EXPECT_NE(failed.error().message.find("raised AssertionError: too large"), std::string::npos)
      << failed.error().message;
  EXPECT_EQ(result(src, {"r=float64:0:200"}, {{"r", 100}}), 30000);
}

// A statement of a branch that the subset refuses is refused only where the
// lowering reaches it: TheAlgorithms' `if not isinstance(n, int):` guard,
// building an f-string message, is dead for an int n.
TEST(Guards, ABranchTheDomainsRuleOutMayHoldWhatTheSubsetRefuses) {
  const char* src =
      "def f(n: int) -> int:\n"
      "    if not isinstance(n, int):\n"
      "        msg = f\"n is {n}\"\n"
      "        raise TypeError(msg)\n"
      "    if n > 100:\n"
      "        while n > 100:\n"
      "            n = n - 1\n"
      "    return n * 2\n";
  EXPECT_EQ(result(src, {"n=int32:0:100"}, {{"n", 7}}), 14);
  auto reached = compile_text(src, {"n=int32:0:200"});
  ASSERT_FALSE(reached.ok());
  EXPECT_EQ(reached.error().loc, (SourceLoc{6, 9}));
  EXPECT_NE(reached.error().message.find("while loops are not supported"), std::string::npos) << reached.error().message;
  auto as_float = compile_text(src, {"n=float64:0:100"});
  ASSERT_FALSE(as_float.ok());
  EXPECT_EQ(as_float.error().loc, (SourceLoc{3, 15}));
  EXPECT_NE(as_float.error().message.find("string literals are not supported"), std::string::npos)
      << as_float.error().message;
}

TEST(Guards, RangeBoundsKnownOnlyAtRunTime) {
  const char* src =
      "def f(n, m):\n"
      "    s = 0\n"
      "    for i in range(n):\n"
      "        s += i\n"
      "    t = 0\n"
      "    for j in range(1, n + 1, 2):\n"
      "        t += j * m\n"
      "    u = 0\n"
      "    for k in range(n, 0, -3):\n"
      "        u = u * 2 + k\n"
      "    for q in range(m, n):\n"
      "        if q * q > 30:\n"
      "            break\n"
      "    else:\n"
      "        q = -1\n"
      "    return s, t, u, q\n";
  auto c = compile_text(src, {"n=int32:0:20", "m=int32:-5:5"});
  ASSERT_TRUE(c.ok()) << c.error().format();
  for (int n = 0; n <= 20; ++n)
    for (int m : {-5, 0, 3}) {
      // CPython's answer, computed the same way here.
      int s = 0, t = 0, u = 0, q = -2;
      for (int i = 0; i < n; ++i) s += i;
      for (int j = 1; j < n + 1; j += 2) t += j * m;
      for (int k = n; k > 0; k -= 3) u = u * 2 + k;
      bool broke = false;
      for (q = m; q < n; ++q)
        if (q * q > 30) {
          broke = true;
          break;
        }
      if (!broke) q = -1;
      auto r = test::evaluate(c->program, {{"n", n}, {"m", m}});
      ASSERT_TRUE(r.ok()) << r.error().message;
      EXPECT_EQ((*r)[0].second, s) << "n=" << n;
      EXPECT_EQ((*r)[1].second, t) << "n=" << n << " m=" << m;
      EXPECT_EQ((*r)[2].second, u) << "n=" << n;
      EXPECT_EQ((*r)[3].second, q) << "n=" << n << " m=" << m;
    }
  // The bound's interval bounds the expansion: beyond the budget it is a located error.
  auto wide = compile_text("def f(n):\n    s = 0\n    for i in range(n):\n        s += i\n    return s\n",
                           {"n=int32:0:100000"});
  ASSERT_FALSE(wide.ok());
  EXPECT_EQ(wide.error().loc, (SourceLoc{3, 14}));
  EXPECT_NE(wide.error().message.find("may run 100000 iterations"), std::string::npos) << wide.error().format();
}

TEST(Guards, AValueComparedWithItselfIsDecided) {
  // TheAlgorithms' factorial guards with `number != int(number)`: for an int
  // it is the same wire on both sides, never NaN, so the raise is unreachable.
  const char* src =
      "def factorial(number: int) -> int:\n"
      "    if number != int(number):\n"
      "        raise ValueError(\"factorial() only accepts integral values\")\n"
      "    value = 1\n"
      "    for i in range(1, 6):\n"
      "        value *= i if i <= number else 1\n"
      "    return value\n";
  EXPECT_EQ(result(src, {"number=int32:0:5"}, {{"number", 4}}), 24);
}

TEST(Guards, NotEqualNarrowsAnIntegerEnd) {
  // Inside `if b != 0`, b in [0, 5] is in [1, 5]: a % b cannot divide by
  // zero, so the comparison after it is decided and folded.
  const char* src = "def f(a, b):\n    if b != 0:\n        return a % b < 5\n    return False\n";
  auto c = compile_text(src, {"a=int32:0:9", "b=int32:0:5"});
  ASSERT_TRUE(c.ok()) << c.error().format();
  for (const Node& n : c->program.nodes) EXPECT_NE(n.op, Op::Lt) << "a % b < 5 is decided by the intervals";
  EXPECT_EQ(result(src, {"a=int32:0:9", "b=int32:0:5"}, {{"a", 7}, {"b", 0}}), 0);
  EXPECT_EQ(result(src, {"a=int32:0:9", "b=int32:0:5"}, {{"a", 7}, {"b", 4}}), 1);
}


/// Compiles function f of `src` (the other functions are its helpers) and
/// evaluates one case: the outputs, or the error message.
Outcome run_f(const std::string& src, const std::vector<std::string>& inputs,
              const std::vector<std::pair<std::string, double>>& values) {
  auto c = compile_text(src, inputs, "f");
  if (!c) return {{}, "compile: " + c.error().format()};
  auto r = test::evaluate(c->program, values);
  if (!r) return {{}, r.error().message};
  return {*r, {}};
}
double result_f(const std::string& src, const std::vector<std::string>& inputs,
                const std::vector<std::pair<std::string, double>>& values) {
  Outcome r = run_f(src, inputs, values);
  EXPECT_TRUE(r.error.empty()) << r.error;
  return r.error.empty() && !r.out.empty() ? r.out[0].second : std::nan("");
}

// A function of the same file called on its own line runs for its raise
// and assert statements (a validation helper): the caller fails where
// CPython's exception would leave it, at the helper's statement, and goes
// on with its own variables elsewhere.
TEST(Guards, AHelperCalledOnItsOwnLineRaisesForItsCaller) {
  const char* src =
      "def check(x):\n"
      "    if x < 0:\n"
      "        raise ValueError(\"negative\")\n"
      "    assert x != 7, \"seven\"\n"
      "\n"
      "def f(x: int) -> int:\n"
      "    x = x + 1\n"
      "    check(x - 1)\n"
      "    return x * 2\n";
  const std::vector<std::string> in = {"x=int32:-5:10"};
  EXPECT_EQ(result_f(src, in, {{"x", 3}}), 8);
  auto c = compile_text(src, in, "f");
  ASSERT_TRUE(c.ok()) << c.error().format();
  auto negative = test::evaluate(c->program, {{"x", -2}});
  ASSERT_FALSE(negative.ok());
  EXPECT_EQ(negative.error().loc, (SourceLoc{3, 9}));
  EXPECT_NE(negative.error().message.find("raised ValueError: negative"), std::string::npos) << negative.error().message;
  auto seven = test::evaluate(c->program, {{"x", 7}});
  ASSERT_FALSE(seven.ok());
  EXPECT_EQ(seven.error().loc, (SourceLoc{4, 5}));
  EXPECT_NE(seven.error().message.find("raised AssertionError: seven"), std::string::npos) << seven.error().message;
  // Domains that rule both out leave no raise and no check at all.
  auto safe = compile_text(src, {"x=int32:0:5"}, "f");
  ASSERT_TRUE(safe.ok()) << safe.error().format();
  EXPECT_TRUE(safe->program.nodes_of(Op::Raise).empty());
  EXPECT_EQ(result_f(src, {"x=int32:0:5"}, {{"x", 5}}), 12);
}

// A helper that returns on some paths and raises on others, called from a
// helper that is itself called on its own line: only the raising paths end
// the caller.
TEST(Guards, NestedHelperCallsRaiseOnlyWhereTheyRaise) {
  const char* src =
      "def positive(v):\n"
      "    if v > 0:\n"
      "        return True\n"
      "    raise ValueError(\"not positive\")\n"
      "\n"
      "def both(a, b):\n"
      "    positive(a)\n"
      "    if b != 0:\n"
      "        positive(b)\n"
      "\n"
      "def f(a: int, b: int) -> int:\n"
      "    both(a, b)\n"
      "    return a + b\n";
  const std::vector<std::string> in = {"a=int32:-3:3", "b=int32:-3:3"};
  EXPECT_EQ(result_f(src, in, {{"a", 2}, {"b", 3}}), 5);
  EXPECT_EQ(result_f(src, in, {{"a", 2}, {"b", 0}}), 2);
  for (auto [a, b] : {std::pair{0.0, 1.0}, std::pair{2.0, -1.0}, std::pair{-3.0, 0.0}}) {
    Outcome r = run_f(src, in, {{"a", a}, {"b", b}});
    EXPECT_NE(r.error.find("raised ValueError: not positive"), std::string::npos) << a << " " << b << ": " << r.error;
  }
}

TEST(Guards, ACallWhoseValueWouldBeLostIsRefused) {
  Outcome builtin = run_f("def f(x):\n    abs(x)\n    return x\n", {"x=int32:-3:3"}, {{"x", 1}});
  EXPECT_NE(builtin.error.find("2:5: error: the value of abs() on its own line is dropped"), std::string::npos)
      << builtin.error;
  // A helper whose value can fail (1 / x at x = 0) would lose the
  // ZeroDivisionError CPython raises: refused, not silently dropped.
  Outcome failing = run_f("def inv(x):\n    return 1 / x\n\ndef f(x):\n    inv(x)\n    return x\n", {"x=int32:-3:3"},
                        {{"x", 1}});
  EXPECT_NE(failing.error.find("5:5: error: the value 'inv' returns can fail at run time"), std::string::npos)
      << failing.error;
  // A pure helper on its own line does nothing, as in CPython.
  EXPECT_EQ(result_f("def sq(x):\n    return x * x\n\ndef f(x):\n    sq(x)\n    return x\n", {"x=int32:-3:3"}, {{"x", 2}}), 2);
}

}  // namespace
}  // namespace tc
