// Lowering: semantics checked by evaluating compiled programs against
// hand-computed values, budgets at their edges, exactness limits, warnings
// and node locations.
#include <gtest/gtest.h>

#include <cmath>

#include "frontend_util.h"

namespace tc {
namespace {

using test::compile_text;
using test::evaluate;

// Compiles and evaluates; returns the outputs or the error message.
struct Outcome {
  std::vector<std::pair<std::string, double>> out;
  std::string error;
};
Outcome run(const std::string& src, const std::vector<std::string>& inputs,
        const std::vector<std::pair<std::string, double>>& values) {
  auto c = compile_text(src, inputs);
  if (!c) return {{}, "compile: " + c.error().format()};
  auto r = evaluate(c->program, values);
  if (!r) return {{}, r.error().message};
  return {*r, {}};
}
double result(const std::string& src, const std::vector<std::string>& inputs,
              const std::vector<std::pair<std::string, double>>& values) {
  Outcome r = run(src, inputs, values);
  EXPECT_TRUE(r.error.empty()) << r.error;
  if (!r.error.empty() || r.out.empty()) return std::nan("");
  return r.out[0].second;
}

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

// ---- budgets ---------------------------------------------------------------------------

std::string loop_source(int n) {
  return "def f(a):\n    s = 0\n    for i in range(" + std::to_string(n) + "):\n        s = s + a\n    return s\n";
}

TEST(Budget, IterationsDefaultEdge) {
  EXPECT_TRUE(compile_text(loop_source(1024), {"a=int32:0:3"}).ok());
  auto r = compile_text(loop_source(1025), {"a=int32:0:3"});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("iteration budget of 1024"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("--max-iterations"), std::string::npos);
  EXPECT_EQ(r.error().loc, (SourceLoc{3, 5}));
}

TEST(Budget, NestedLoopsCountEveryExpansion) {
  // 32 outer + 32 * 31 inner = 1024 expansions; one more inner step is 1056.
  auto nest = [](int inner) {
    return "def f(a):\n    s = 0\n    for i in range(32):\n        for j in range(" + std::to_string(inner) +
           "):\n            s = s + a\n    return s\n";
  };
  EXPECT_TRUE(compile_text(nest(31), {"a=int32:0:3"}).ok());
  EXPECT_FALSE(compile_text(nest(32), {"a=int32:0:3"}).ok());
}

TEST(Budget, IterationsConfigurable) {
  CompileOptions o;
  o.inputs = {{"a", Domain::int32(0, 3)}};
  o.max_iterations = 2000;
  EXPECT_TRUE(compile_python(loop_source(2000), o).ok());
  EXPECT_FALSE(compile_python(loop_source(2001), o).ok());
}

TEST(Budget, UnconditionalExitStopsExpansion) {
  EXPECT_TRUE(compile_text("def f(a):\n    for i in range(100000):\n        return a + i\n    return 0\n",
                           {"a=int32:0:3"})
                  .ok());
}

TEST(Budget, NodesEdge) {
  // input, constant 1, add: three nodes.
  CompileOptions o;
  o.inputs = {{"a", Domain::int32(0, 3)}};
  o.max_nodes = 3;
  EXPECT_TRUE(compile_python("def f(a):\n    return a + 1\n", o).ok());
  o.max_nodes = 2;
  auto r = compile_python("def f(a):\n    return a + 1\n", o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("node budget"), std::string::npos);
  EXPECT_NE(r.error().message.find("--max-nodes"), std::string::npos);
}

// ---- exactness ---------------------------------------------------------------------------

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

// ---- warnings ----------------------------------------------------------------------------

TEST(Warnings, UnusedAssignments) {
  auto c = compile_text(
      "def f(a):\n    t = a * 2\n    x = 1\n    x = a\n    _ignored = a + 5\n    for i in range(3):\n"
      "        pass\n    return x\n",
      {"a=int32:0:3"});
  ASSERT_TRUE(c.ok()) << c.error().format();
  ASSERT_EQ(c->warnings.size(), 2u);
  EXPECT_EQ(c->warnings[0].severity, Severity::Warning);
  EXPECT_EQ(c->warnings[0].loc, (SourceLoc{2, 5}));
  EXPECT_NE(c->warnings[0].message.find("'t'"), std::string::npos);
  EXPECT_EQ(c->warnings[1].loc, (SourceLoc{3, 5}));
  EXPECT_EQ(c->warnings[0].file, "test.py");
  // The unused value is not part of the circuit.
  for (const Node& n : c->program.nodes) EXPECT_NE(n.op, Op::Mul);
}

TEST(Warnings, ValueReadOnlyByUnusedCodeIsUnused) {
  auto c = compile_text("def f(a):\n    y = a * 3\n    z = y + 1\n    return a\n", {"a=int32:0:3"});
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->warnings.size(), 2u);
}

TEST(Warnings, ConditionThatDecidesNothing) {
  auto c = compile_text("def f(a, b):\n    if 10 // b > a:\n        pass\n    if a > 1:\n        a = 0\n    return a\n",
                        {"a=int32:0:3", "b=int32:-2:2"});
  ASSERT_TRUE(c.ok());
  ASSERT_EQ(c->warnings.size(), 1u);
  EXPECT_EQ(c->warnings[0].loc, (SourceLoc{2, 8}));
  EXPECT_NE(c->warnings[0].message.find("not computed"), std::string::npos);
}

TEST(Warnings, LoopCarriedValuesAreUsed) {
  auto c = compile_text(loop_source(5), {"a=int32:0:3"});
  ASSERT_TRUE(c.ok());
  EXPECT_TRUE(c->warnings.empty()) << c->warnings[0].format();
}

// ---- options ------------------------------------------------------------------------------

TEST(Options, PolicyAndDtypeReachTheProgram) {
  CompileOptions o;
  o.inputs = {{"x", Domain::float64(-1, 1)}};
  o.semantics = Semantics::Hybrid;
  o.temperature = 0.5;
  o.dtype = Dtype::Float32;
  auto c = compile_python("def f(x):\n    return x\n", o);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->program.semantics, Semantics::Hybrid);
  EXPECT_EQ(c->program.temperature, 0.5);
  EXPECT_EQ(c->program.dtype, Dtype::Float32);
  EXPECT_TRUE(c->program.nodes[0].differentiable);
}

TEST(Options, FunctionSelection) {
  const char* src = "def f(a):\n    return a\n\ndef g(a):\n    return a + 1\n";
  EXPECT_FALSE(compile_text(src, {"a=int32:0:3"}).ok());
  auto c = compile_text(src, {"a=int32:0:3"}, "g");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->program.nodes.back().op, Op::Add);
}

}  // namespace
}  // namespace tc
