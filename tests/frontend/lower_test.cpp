// Lowering of expressions and control flow: semantics checked by evaluating
// compiled programs against hand-computed values, and node locations.
#include <gtest/gtest.h>

#include <cmath>

#include "lower_util.h"

namespace tc {
namespace {

using test::compile_text;
using test::evaluate;
using test::Outcome;
using test::result;
using test::run;

TEST(Lower, ContractExampleNodesAndLocations) {
  auto c = compile_text("def choose(a):\n    return 10 if a > 4 else 12\n", {"a=int32:-128:127"});
  ASSERT_TRUE(c.ok()) << c.error().format();
  const Program& p = c->program;
  ASSERT_EQ(p.nodes.size(), 6u);
  EXPECT_EQ(p.nodes[0].op, Op::Input);
  EXPECT_EQ(p.nodes[0].location, (SourceLoc{1, 12}));
  EXPECT_EQ(p.nodes[1].op, Op::Constant);
  EXPECT_EQ(p.nodes[1].value, 4);
  EXPECT_EQ(p.nodes[1].location, (SourceLoc{2, 22}));
  EXPECT_EQ(p.nodes[2].op, Op::Gt);
  EXPECT_EQ(p.nodes[2].location, (SourceLoc{2, 18}));
  EXPECT_EQ(p.nodes[5].op, Op::Select);
  EXPECT_EQ(p.nodes[5].location, (SourceLoc{2, 12}));
  ASSERT_EQ(p.outputs.size(), 1u);
  EXPECT_EQ(p.outputs[0], (std::pair<std::string, NodeId>{"result", 5}));
  EXPECT_TRUE(c->warnings.empty());
}

TEST(Lower, ChooseEvaluates) {
  const char* src = "def choose(a):\n    return 10 if a > 4 else 12\n";
  EXPECT_EQ(result(src, {"a=int32:-128:127"}, {{"a", 5}}), 10);
  EXPECT_EQ(result(src, {"a=int32:-128:127"}, {{"a", 4}}), 12);
}

TEST(Lower, FloorDivisionAndModuloFollowPythonSigns) {
  const char* src = "def f(a, b):\n    return a // b, a % b\n";
  std::vector<std::string> in = {"a=int32:-20:20", "b=int32:-5:5"};
  Outcome r = run(src, in, {{"a", -7}, {"b", 2}});
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_EQ(r.out[0], (std::pair<std::string, double>{"result[0]", -4}));
  EXPECT_EQ(r.out[1], (std::pair<std::string, double>{"result[1]", 1}));
  r = run(src, in, {{"a", 7}, {"b", -2}});
  EXPECT_EQ(r.out[0].second, -4);
  EXPECT_EQ(r.out[1].second, -1);
  r = run(src, in, {{"a", 7}, {"b", 0}});
  EXPECT_FALSE(r.error.empty()) << "division by zero must fail at run time";
}

TEST(Lower, EarlyReturnInsideLoop) {
  const char* src =
      "def f(a):\n"
      "    for i in range(10):\n"
      "        if i * i > a:\n"
      "            return i\n"
      "    return -1\n";
  std::vector<std::string> in = {"a=int32:-5:200"};
  EXPECT_EQ(result(src, in, {{"a", 5}}), 3);
  EXPECT_EQ(result(src, in, {{"a", -5}}), 0);
  EXPECT_EQ(result(src, in, {{"a", 30}}), 6);
  EXPECT_EQ(result(src, in, {{"a", 81}}), -1);
}

TEST(Lower, GuardedErrorsDoNotFire) {
  // Only the chosen branch runs, so the division and the index are safe.
  const char* src =
      "def f(a, b):\n"
      "    if b != 0 and a // b > 1:\n"
      "        return a // b\n"
      "    t = [1, 2, 3]\n"
      "    return t[a] if 0 <= a < 3 else -1\n";
  std::vector<std::string> in = {"a=int32:-9:9", "b=int32:-3:3"};
  EXPECT_EQ(result(src, in, {{"a", 9}, {"b", 0}}), -1);
  EXPECT_EQ(result(src, in, {{"a", 2}, {"b", 0}}), 3);
  EXPECT_EQ(result(src, in, {{"a", 9}, {"b", 2}}), 4);
}

TEST(Lower, NegativeAndOutOfRangeDynamicIndex) {
  const char* src = "def f(a):\n    return [10, 20, 30, 40][a]\n";
  std::vector<std::string> in = {"a=int32:-6:6"};
  EXPECT_EQ(result(src, in, {{"a", -1}}), 40);
  EXPECT_EQ(result(src, in, {{"a", -4}}), 10);
  EXPECT_EQ(result(src, in, {{"a", 2}}), 30);
  EXPECT_FALSE(run(src, in, {{"a", 4}}).error.empty());
  EXPECT_FALSE(run(src, in, {{"a", -5}}).error.empty());
}

TEST(Lower, AndOrReturnOperands) {
  const char* src = "def f(a, b):\n    return (a and b), (a or b)\n";
  std::vector<std::string> in = {"a=int32:-3:3", "b=int32:-3:3"};
  Outcome r = run(src, in, {{"a", 0}, {"b", 5 - 2}});
  EXPECT_EQ(r.out[0].second, 0);
  EXPECT_EQ(r.out[1].second, 3);
  r = run(src, in, {{"a", 2}, {"b", -3}});
  EXPECT_EQ(r.out[0].second, -3);
  EXPECT_EQ(r.out[1].second, 2);
}

TEST(Lower, BreakContinueAndElse) {
  const char* src =
      "def f(a):\n"
      "    s = 0\n"
      "    for i in range(10):\n"
      "        if i == a:\n"
      "            break\n"
      "        if i % 2 == 0:\n"
      "            continue\n"
      "        s = s + i\n"
      "    else:\n"
      "        s = s + 1000\n"
      "    return s\n";
  std::vector<std::string> in = {"a=int32:-1:12"};
  EXPECT_EQ(result(src, in, {{"a", 4}}), 1 + 3);
  EXPECT_EQ(result(src, in, {{"a", 0}}), 0);
  EXPECT_EQ(result(src, in, {{"a", 11}}), 1 + 3 + 5 + 7 + 9 + 1000);
}

TEST(Lower, MinMaxKeepFirstOnTiesAndAbs) {
  const char* src = "def f(a, b):\n    return min(a, b, 3), max([a, b]), abs(a - b)\n";
  std::vector<std::string> in = {"a=int32:-9:9", "b=int32:-9:9"};
  Outcome r = run(src, in, {{"a", 5}, {"b", -2}});
  EXPECT_EQ(r.out[0].second, -2);
  EXPECT_EQ(r.out[1].second, 5);
  EXPECT_EQ(r.out[2].second, 7);
  // min(a, x) with a == x keeps a: both are 2 here, but the circuit must pick the first.
  auto c = compile_text("def f(a, b):\n    return min(a, b)\n", in);
  ASSERT_TRUE(c.ok());
  const Program& p = c->program;
  const Node& out = p.nodes[static_cast<std::size_t>(p.outputs[0].second)];
  ASSERT_EQ(out.op, Op::Select);
  const Node& cond = p.nodes[static_cast<std::size_t>(out.args[0])];
  EXPECT_EQ(cond.op, Op::Lt);                          // replace only when strictly smaller
  EXPECT_EQ(cond.args[0], out.args[1]);                // b < a ? b : a
  EXPECT_EQ(p.nodes[static_cast<std::size_t>(out.args[2])].name, "a");
}

TEST(Lower, PowerIsRepeatedMultiplication) {
  auto c = compile_text("def f(x):\n    return x ** 3\n", {"x=float64:-2:2"});
  ASSERT_TRUE(c.ok());
  int muls = 0;
  for (const Node& n : c->program.nodes) muls += n.op == Op::Mul;
  EXPECT_EQ(muls, 2);
  EXPECT_EQ(result("def f(a):\n    return a ** 3 + a ** 0\n", {"a=int32:-9:9"}, {{"a", -3}}), -26);
}

TEST(Lower, BoolsAreIntsAndTrueDivisionGivesFloat) {
  EXPECT_EQ(result("def f(p, q):\n    return p + q + True\n", {"p=bool", "q=bool"}, {{"p", 1}, {"q", 1}}), 3);
  EXPECT_EQ(result("def f(a):\n    return a / 4\n", {"a=int32:-9:9"}, {{"a", 3}}), 0.75);
}

TEST(Lower, TupleReturnNamesOutputs) {
  auto c = compile_text("def f(a):\n    return a, a + 1, 7\n", {"a=int32:0:3"});
  ASSERT_TRUE(c.ok());
  ASSERT_EQ(c->program.outputs.size(), 3u);
  EXPECT_EQ(c->program.outputs[0].first, "result[0]");
  EXPECT_EQ(c->program.outputs[2].first, "result[2]");
}

TEST(Lower, ConstantFoldingInsideUnrolledLoops) {
  // i is a compile-time constant in each expansion: the index and the
  // condition resolve without gathers or selects.
  auto c = compile_text(
      "def f(a):\n    w = [1, 2, 3, 4]\n    s = 0\n    for i in range(4):\n        if i < 3:\n"
      "            s = s + w[i + 1] * a\n    return s\n",
      {"a=int32:0:3"});
  ASSERT_TRUE(c.ok()) << c.error().format();
  for (const Node& n : c->program.nodes) {
    EXPECT_NE(n.op, Op::Gather);
    EXPECT_NE(n.op, Op::Select);
  }
  EXPECT_EQ(result("def f(a):\n    w = [1, 2, 3, 4]\n    s = 0\n    for i in range(4):\n        if i < 3:\n"
                   "            s = s + w[i + 1] * a\n    return s\n",
                   {"a=int32:0:3"}, {{"a", 2}}),
            (2 + 3 + 4) * 2);
}

}  // namespace
}  // namespace tc
