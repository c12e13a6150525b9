// Single-case behaviour of the checked evaluator: values, laziness, errors
// and their messages, environment handling, traces and state.
#include <gtest/gtest.h>

#include <cmath>

#include "eval/evaluator.h"
#include "ir/builder.h"

namespace tc {
namespace {

Program build(Builder& b, Arg result) {
  auto p = b.build(result);
  EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.error().message);
  return p.value();
}

Evaluator make(const Program& p, EvalOptions o = {}) {
  auto e = Evaluator::create(p, o);
  EXPECT_TRUE(e.ok()) << (e.ok() ? "" : e.error().message);
  return std::move(e.value());
}

/// An Env with only inputs.
Env in(std::initializer_list<std::pair<const std::string, double>> values) {
  Env env;
  env.inputs = values;
  return env;
}

double run1(const Evaluator& e, const Env& env) {
  auto r = e.run(env);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return r.ok() ? r->outputs.at(0) : NAN;
}

std::string run_error(const Evaluator& e, const Env& env) {
  auto r = e.run(env);
  EXPECT_FALSE(r.ok());
  return r.ok() ? "" : r.error().message;
}

TEST(EvalEvaluator, ChooseRule) {
  Builder b;
  Value a = b.input("a", Domain::int32(-128, 127));
  Program p = build(b, b.select(a > 4, 10, 12));
  Evaluator e = make(p);
  EXPECT_EQ(run1(e, in({{"a", 5}})), 10);
  EXPECT_EQ(run1(e, in({{"a", 4}})), 12);
  EXPECT_EQ(run1(e, in({{"a", -128}})), 12);
}

TEST(EvalEvaluator, GatedBuilderExampleUsesParameterDefaultAndOverride) {
  Builder b(Semantics::Hybrid);
  Value x = b.input("x", Domain::float64(-100, 100));
  Value w = b.parameter("weight", 0.0);
  Program p = build(b, b.select(x > 4, w * x, 0));
  Evaluator e = make(p);
  EXPECT_EQ(run1(e, {{{"x", 5}}, {}, {}}), 0);
  Env env;
  env.inputs["x"] = 5;
  env.params["weight"] = 2;
  EXPECT_EQ(run1(e, env), 10);
}

TEST(EvalEvaluator, DivisionByZeroNamesNodeOpAndLocation) {
  Builder b;
  Value x = b.input("x");
  Value y = b.input("y");
  b.set_location(SourceLoc{3, 12});
  Value q = x / y;
  Program p = build(b, q);
  Evaluator e = make(p);
  auto r = e.run(in({{"x", 1}, {"y", 0}}));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "node 2 (div) at line 3, column 12: division by zero");
  ASSERT_TRUE(r.error().node.has_value());
  EXPECT_EQ(*r.error().node, 2);
  ASSERT_TRUE(r.error().loc.has_value());
  EXPECT_EQ(r.error().loc->line, 3);
  EXPECT_EQ(r.error().loc->column, 12);
}

TEST(EvalEvaluator, ExactSelectEvaluatesOnlyTheChosenBranch) {
  Builder b;
  Value x = b.input("x");
  Program p = build(b, b.select(b.op("ne", x, 0), 1 / x, 0));
  Evaluator e = make(p);
  EXPECT_EQ(run1(e, in({{"x", 0}})), 0);
  EXPECT_EQ(run1(e, in({{"x", 4}})), 0.25);
  CaseTrace trace;
  ASSERT_TRUE(e.run(in({{"x", 0}}), &trace).ok());
  const NodeId sel = p.outputs[0].second;
  EXPECT_EQ(trace.branch[static_cast<std::size_t>(sel)], 0);
  const NodeId div = p.nodes[static_cast<std::size_t>(sel)].args[1];
  EXPECT_EQ(trace.computed[static_cast<std::size_t>(div)], 0);
  EXPECT_TRUE(std::isnan(trace.values[static_cast<std::size_t>(div)]));
  EXPECT_EQ(trace.computed[static_cast<std::size_t>(sel)], 1);
}

TEST(EvalEvaluator, UnusedNodeErrorIsNotRaised) {
  Builder b;
  Value x = b.input("x");
  Value unused = x / 0;
  (void)unused;
  Program p = build(b, x + 1);
  Evaluator e = make(p);
  EXPECT_EQ(run1(e, in({{"x", 2}})), 3);
}

TEST(EvalEvaluator, MissingAndUnknownInputs) {
  Builder b;
  Value x = b.input("x");
  Program p = build(b, x + 1);
  Evaluator e = make(p);
  EXPECT_EQ(run_error(e, Env{}), "missing input 'x'");
  EXPECT_EQ(run_error(e, in({{"x", 1}, {"y", 2}})), "unknown input 'y'");
  Env env{{{"x", 1}}, {{"w", 1}}, {}};
  EXPECT_EQ(run_error(e, env), "unknown parameter 'w'");
  Env env2{{{"x", 1}}, {}, {{"s", 1}}};
  EXPECT_EQ(run_error(e, env2), "unknown state 's'");
}

TEST(EvalEvaluator, InputDomainIsChecked) {
  Builder b;
  Value a = b.input("a", Domain::int32(-128, 127));
  Program p = build(b, a * 2);
  Evaluator e = make(p);
  EXPECT_EQ(run_error(e, in({{"a", 300}})), "input 'a': 300 is above the maximum 127");
  EXPECT_EQ(run_error(e, in({{"a", 1.5}})), "input 'a': 1.5 is not an integer (int32 domain)");
  EXPECT_EQ(run_error(e, in({{"a", NAN}})), "input 'a': nan is not allowed");
}

TEST(EvalEvaluator, DeepChainNeedsNoRecursion) {
  Builder b;
  Value x = b.input("x");
  Value s = x;
  for (int i = 0; i < 100000; ++i) s = s + 1;
  Program p = build(b, s);
  Evaluator e = make(p);
  EXPECT_EQ(run1(e, in({{"x", 0}})), 100000);
}

}  // namespace
}  // namespace tc
