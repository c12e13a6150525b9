// The structural match and the report of core/diff on small circuits built
// in the test: what each pass pairs, what counts as changed, the output
// comparison on cases and its errors.
#include <gtest/gtest.h>

#include <cmath>

#include "diff/diff.h"
#include "diff/diff_report.h"
#include "frontend/compile.h"
#include "ir/builder.h"

namespace tc {
namespace {

Program build(const std::function<Value(Builder&)>& body) {
  Builder b;
  Value out = body(b);
  auto p = b.build(out);
  EXPECT_TRUE(p.ok()) << p.error().message;
  return std::move(p.value());
}

Program compile(const std::string& source) {
  CompileOptions o;
  o.inputs = {{"x", Domain::float64(-10, 10)}, {"w", Domain::float64(-10, 10)}};
  auto r = compile_python(source, o);
  EXPECT_TRUE(r.ok()) << r.error().format();
  return std::move(r->program);
}

Diff diff(const Program& a, const Program& b, const DiffCases* cases = nullptr) {
  DiffOptions o;
  o.cases = cases;
  auto d = diff_programs(a, b, o);
  EXPECT_TRUE(d.ok()) << d.error().message;
  return std::move(d.value());
}

Program affine_example(double weight) {
  return build([&](Builder& b) {
    Value x = b.input("x", Domain::float64(-5, 5));
    Value w = b.parameter("w", weight);
    return b.relu(x * w + 1.0);
  });
}

TEST(DiffMatch, AProgramAgainstItselfIsTheSame) {
  const Program p = affine_example(0.5);
  Diff d = diff(p, p);
  EXPECT_TRUE(d.same());
  EXPECT_EQ(d.unchanged, p.nodes.size());
  for (std::size_t i = 0; i < p.nodes.size(); ++i) EXPECT_EQ(d.match.a_to_b[i], static_cast<NodeId>(i));
  ASSERT_EQ(d.outputs.size(), 1u);
  EXPECT_TRUE(d.outputs[0].same_circuit);
}

TEST(DiffMatch, ATrainedParameterIsOneChangedLeaf) {
  Diff d = diff(affine_example(0.5), affine_example(0.75));
  EXPECT_FALSE(d.same());
  ASSERT_EQ(d.changed.size(), 1u);
  EXPECT_EQ(d.changed[0].fields, unsigned{kFieldValue});
  ASSERT_EQ(d.leaves.size(), 1u);
  EXPECT_EQ(d.leaves[0].op, Op::Parameter);
  EXPECT_EQ(d.leaves[0].status, ItemStatus::Changed);
  EXPECT_TRUE(d.added.empty());
  EXPECT_TRUE(d.removed.empty());
  // The output's node is unchanged itself, but what it depends on is not.
  EXPECT_FALSE(d.outputs[0].same_circuit);
}

TEST(DiffMatch, NodesInAnotherOrderStillPair) {
  // The same circuit built in another order: ids differ, structure does not.
  Program a = build([](Builder& b) {
    Value x = b.input("x");
    Value y = b.input("y");
    Value s = x * 2.0;
    Value t = y * 3.0;
    return s + t;
  });
  Program b = build([](Builder& b) {
    Value x = b.input("x");
    Value y = b.input("y");
    Value t = y * 3.0;
    Value s = x * 2.0;
    return s + t;
  });
  Diff d = diff(a, b);
  EXPECT_TRUE(d.same()) << diff_to_text(d, a, b);
}

TEST(DiffMatch, AnEditedConstantUnderAnUnlocatedExpressionPairsTopDown) {
  // Builder nodes have no source positions: the edited constant is found
  // through its user, which shares the paired input.
  Program a = build([](Builder& b) { return b.input("x") * 2.0 + 1.0; });
  Program b = build([](Builder& b) { return b.input("x") * 3.0 + 1.0; });
  Diff d = diff(a, b);
  EXPECT_TRUE(d.added.empty()) << diff_to_text(d, a, b);
  EXPECT_TRUE(d.removed.empty()) << diff_to_text(d, a, b);
  ASSERT_EQ(d.changed.size(), 1u);
  EXPECT_EQ(a.nodes[static_cast<std::size_t>(d.changed[0].a)].value, 2.0);
  EXPECT_EQ(b.nodes[static_cast<std::size_t>(d.changed[0].b)].value, 3.0);
}

TEST(DiffMatch, AnEditedConstantBelowMovedLinesPairsThroughItsUser) {
  // No position lines up and the values differ: the output's node pairs by
  // name, and its arguments pair top-down from it.
  Program a = compile("def f(x, w):\n    return x * 2 + w\n");
  Program b = compile("# moved\ndef f(x, w):\n    return x * 3 + w\n");
  Diff d = diff(a, b);
  EXPECT_TRUE(d.added.empty()) << diff_to_text(d, a, b);
  EXPECT_TRUE(d.removed.empty()) << diff_to_text(d, a, b);
  ASSERT_EQ(d.changed.size(), 1u) << diff_to_text(d, a, b);
  EXPECT_EQ(d.changed[0].fields, unsigned{kFieldValue});
}

TEST(DiffMatch, AChangedOpAtTheSamePositionIsChangedNotReplaced) {
  Program a = compile("def f(x, w):\n    return x + w\n");
  Program b = compile("def f(x, w):\n    return x - w\n");
  Diff d = diff(a, b);
  ASSERT_EQ(d.changed.size(), 1u) << diff_to_text(d, a, b);
  EXPECT_EQ(d.changed[0].fields, unsigned{kFieldOp});
  EXPECT_TRUE(d.added.empty());
  EXPECT_TRUE(d.removed.empty());
}

TEST(DiffMatch, MovedLinesChangeNothing) {
  const std::string body = "def f(x, w):\n    s = 0.0\n    for i in range(3):\n        s = s + x * w + i\n    return s\n";
  Program a = compile(body);
  Program b = compile("# moved\n\n" + body);
  Diff d = diff(a, b);
  EXPECT_TRUE(d.same()) << diff_to_text(d, a, b);
}

TEST(DiffMatch, ALongerLoopAddsTheNewIterationsOnly) {
  Program a = compile("def f(x, w):\n    s = 0.0\n    for i in range(3):\n        s = s + x * w\n    return s\n");
  Program b = compile("def f(x, w):\n    s = 0.0\n    for i in range(5):\n        s = s + x * w\n    return s\n");
  Diff d = diff(a, b);
  EXPECT_TRUE(d.removed.empty()) << diff_to_text(d, a, b);
  EXPECT_TRUE(d.changed.empty()) << diff_to_text(d, a, b);
  ASSERT_FALSE(d.added.empty());
  for (NodeId id : d.added) {
    const Node& n = b.nodes[static_cast<std::size_t>(id)];
    ASSERT_EQ(n.iteration.size(), 1u) << diff_to_text(d, a, b);
    EXPECT_GE(n.iteration[0].value, 3);
  }
  // The output moved to the last iteration's node: a rewired output.
  EXPECT_FALSE(d.outputs[0].same_circuit);
}

TEST(DiffMatch, ARenamedInputPairsThroughItsUser) {
  Program a = build([](Builder& b) { return b.input("x") * 2.0; });
  Program b = build([](Builder& b) { return b.input("y") * 2.0; });
  Diff d = diff(a, b);
  ASSERT_EQ(d.changed.size(), 1u) << diff_to_text(d, a, b);
  EXPECT_EQ(d.changed[0].fields, unsigned{kFieldName});
  ASSERT_EQ(d.leaves.size(), 1u);
  EXPECT_EQ(d.leaves[0].status, ItemStatus::Changed);
}

TEST(DiffMatch, SwappedArgumentsAreAnArgsChange) {
  Program a = build([](Builder& b) {
    Value x = b.input("x");
    Value y = b.input("y");
    return x - y;
  });
  Program b = build([](Builder& b) {
    Value x = b.input("x");
    Value y = b.input("y");
    return y - x;
  });
  Diff d = diff(a, b);
  ASSERT_EQ(d.changed.size(), 1u) << diff_to_text(d, a, b);
  EXPECT_EQ(d.changed[0].fields, unsigned{kFieldArgs});
}

TEST(DiffMatch, AStateUpdateRewiredIsAChangedState) {
  auto counter = [](bool twice) {
    Builder b;
    Value e = b.input("event", Domain::int32(0, 1));
    Value s = b.state("count", 0, Domain::int32(0, 100));
    Value next = s + e;
    Value other = s + e * 2.0;
    b.update(s, twice ? other : next);
    auto p = b.build(std::vector<std::pair<std::string, Arg>>{{"result", s}, {"next", next}, {"other", other}});
    EXPECT_TRUE(p.ok()) << p.error().message;
    return std::move(p.value());
  };
  Program a = counter(false), b = counter(true);
  Diff d = diff(a, b);
  ASSERT_EQ(d.changed.size(), 1u) << diff_to_text(d, a, b);
  EXPECT_EQ(d.changed[0].fields, unsigned{kFieldUpdate});
  ASSERT_EQ(d.leaves.size(), 1u);
  EXPECT_EQ(d.leaves[0].op, Op::State);
}

TEST(DiffMatch, RootPolicyAndOutputsByName) {
  Program a = build([](Builder& b) { return b.input("x") + 1.0; });
  Builder bb(Semantics::Relaxed);
  Value x = bb.input("x");
  auto b = bb.build(std::vector<std::pair<std::string, Arg>>{{"result", x + 1.0}, {"extra", x * 2.0}});
  ASSERT_TRUE(b.ok());
  Diff d = diff(a, *b);
  ASSERT_EQ(d.program.size(), 1u);
  EXPECT_EQ(d.program[0].field, "semantics");
  ASSERT_EQ(d.outputs.size(), 2u);
  EXPECT_EQ(d.outputs[0].name, "result");
  EXPECT_TRUE(d.outputs[0].same_circuit);
  EXPECT_EQ(d.outputs[1].name, "extra");
  EXPECT_EQ(d.outputs[1].status, ItemStatus::Added);
}

TEST(DiffMatch, TheMatchIsOneToOneAndDeterministic) {
  Program a = compile("def f(x, w):\n    s = 0.0\n    for i in range(6):\n        s = s + x * w - i\n    return s\n");
  Program b = compile("def f(x, w):\n    s = 1.0\n    for i in range(4):\n        s = s * x + w - i\n    return s\n");
  NodeMatch m1 = match_circuits(a, b), m2 = match_circuits(a, b);
  EXPECT_EQ(m1.a_to_b, m2.a_to_b);
  for (std::size_t i = 0; i < m1.a_to_b.size(); ++i)
    if (m1.a_to_b[i] >= 0) EXPECT_EQ(m1.b_to_a[static_cast<std::size_t>(m1.a_to_b[i])], static_cast<NodeId>(i));
  Diff d = diff(a, b), r = diff(b, a);
  EXPECT_EQ(d.added.size(), r.removed.size());
  EXPECT_EQ(d.removed.size(), r.added.size());
  EXPECT_EQ(d.changed.size(), r.changed.size());
}

// -- the output comparison -----------------------------------------------

DiffCases cases_of(const std::vector<std::vector<std::pair<std::string, double>>>& rows) {
  DiffCases c;
  for (const auto& row : rows) EXPECT_TRUE(add_diff_case(c, row).ok());
  return c;
}

TEST(DiffValues, ATrainedParameterChangesTheValuesWhereItMatters) {
  DiffCases c = cases_of({{{"x", 0}}, {{"x", 2}}, {{"x", -4}}});
  Diff d = diff(affine_example(0.5), affine_example(0.75), &c);
  ASSERT_EQ(d.outputs.size(), 1u);
  const OutputItem& o = d.outputs[0];
  EXPECT_EQ(o.cases, 3u);
  // relu(x * w + 1): x = 0 gives 1 both times, x = -4 gives 0 both times.
  EXPECT_EQ(o.differing, 1u);
  ASSERT_EQ(o.examples.size(), 1u);
  EXPECT_EQ(o.examples[0].index, 1u);
  EXPECT_EQ(*o.examples[0].a, 2.0);
  EXPECT_EQ(*o.examples[0].b, 2.5);
  EXPECT_FALSE(d.same_values());
}

TEST(DiffValues, AFailureOnOneSideIsADifference) {
  Program a = build([](Builder& b) { return b.input("x") / 2.0; });
  Program b = build([](Builder& b) {
    Value x = b.input("x");
    return x / (x - 1.0);
  });
  DiffCases c = cases_of({{{"x", 1}}, {{"x", 3}}, {{"x", 5}}});  // 3 / 2 == 3 / (3 - 1)
  Diff d = diff(a, b, &c);
  const OutputItem& o = d.outputs[0];
  EXPECT_EQ(o.differing, 2u);
  ASSERT_EQ(o.examples.size(), 2u);
  EXPECT_EQ(o.examples[1].index, 2u);
  EXPECT_TRUE(o.examples[0].a.has_value());
  EXPECT_FALSE(o.examples[0].b.has_value());
  EXPECT_NE(o.examples[0].b_error.find("division by zero"), std::string::npos) << o.examples[0].b_error;
}

TEST(DiffValues, SignedZerosDiffer) {
  Program a = build([](Builder& b) { return b.input("x") * 0.0; });
  Program b = build([](Builder& b) { return b.input("x") * -0.0; });
  DiffCases c = cases_of({{{"x", 1}}});
  Diff d = diff(a, b, &c);
  EXPECT_EQ(d.outputs[0].differing, 1u);
}

TEST(DiffValues, AnInputOnlyOneSideHasIsReadByThatSide) {
  Program a = build([](Builder& b) { return b.input("x") + 1.0; });
  Program b = build([](Builder& b) { return b.input("x") + b.input("y"); });
  DiffCases c = cases_of({{{"x", 1}, {"y", 1}}});
  Diff d = diff(a, b, &c);
  EXPECT_EQ(d.outputs[0].differing, 0u);
  ASSERT_EQ(d.leaves.size(), 1u);
  EXPECT_EQ(d.leaves[0].status, ItemStatus::Added);
}

TEST(DiffValues, CaseErrorsNameTheInput) {
  Program a = build([](Builder& b) { return b.input("x") + 1.0; });
  Program b = build([](Builder& b) { return b.input("x") + b.input("y"); });
  DiffOptions o;
  DiffCases missing = cases_of({{{"x", 1}}});
  o.cases = &missing;
  auto d = diff_programs(a, b, o);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.error().message, "the cases give no value for input 'y' of program b");
  DiffCases unknown = cases_of({{{"x", 1}, {"y", 2}, {"z", 3}}});
  o.cases = &unknown;
  d = diff_programs(a, b, o);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.error().message, "the cases name 'z', an input of neither program");
}

TEST(DiffValues, CasesMustAgreeOnTheirNames) {
  DiffCases c;
  ASSERT_TRUE(add_diff_case(c, {{"x", 1}, {"y", 2}}).ok());
  ASSERT_TRUE(add_diff_case(c, {{"y", 3}, {"x", 4}}).ok());
  EXPECT_EQ(c.columns[0], (std::vector<double>{1, 4}));
  EXPECT_EQ(c.columns[1], (std::vector<double>{2, 3}));
  auto s = add_diff_case(c, {{"x", 1}});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message, "the case gives no value for input 'y' (the first case does)");
  s = add_diff_case(c, {{"x", 1}, {"z", 2}});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message, "the case gives input 'z', which the first case does not");
  s = add_diff_case(c, {{"x", 1}, {"x", 2}});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(c.count, 2u);  // refused cases leave the columns alone
  EXPECT_EQ(c.columns[0].size(), 2u);
}

TEST(DiffValues, ACallNodeCannotBeEvaluatedWithoutItsBinding) {
  Program a = build([](Builder& b) { return b.call("f", {b.input("x")}); });
  DiffCases c = cases_of({{{"x", 1}}});
  DiffOptions o;
  o.cases = &c;
  auto d = diff_programs(a, a, o);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.error().message.rfind("program a cannot be evaluated: ", 0), 0u) << d.error().message;
  // Without cases the structure alone is compared.
  EXPECT_TRUE(diff(a, a).same());
}

}  // namespace
}  // namespace tc
