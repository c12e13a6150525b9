#include "ir/builder.h"

#include <gtest/gtest.h>

#include <type_traits>

#include "support/examples.h"

namespace tc {
namespace {

// A symbolic value must not convert to bool (so `if (x > 4)` cannot compile).
static_assert(!std::is_convertible_v<Value, bool>);
static_assert(!std::is_constructible_v<bool, Value>);

TEST(Builder, DescriptionExampleStructure) {
  Program p = examples::gated();
  ASSERT_EQ(p.outputs.size(), 1u);
  EXPECT_EQ(p.outputs[0].first, "result");
  const Node& out = p.nodes[static_cast<std::size_t>(p.outputs[0].second)];
  EXPECT_EQ(out.op, Op::Select);
  EXPECT_EQ(p.nodes[static_cast<std::size_t>(out.args[0])].op, Op::Gt);
  EXPECT_EQ(p.nodes[static_cast<std::size_t>(out.args[1])].op, Op::Mul);
  EXPECT_EQ(p.semantics, Semantics::Hybrid);
  EXPECT_TRUE(p.nodes[0].differentiable) << "float inputs are differentiable by default";
}

TEST(Builder, OperatorsBuildTheRightOps) {
  Builder b;
  Value x = b.input("x");
  Value y = b.input("y", Domain::int32(0, 9));
  std::vector<Value> vs = {x + y, x - y, x * y, x / y, -x, x < y, x <= y, x > y, x >= y, 2.0 * x, 1 - x};
  std::vector<Op> want = {Op::Add, Op::Sub, Op::Mul, Op::Div, Op::Neg, Op::Lt, Op::Le, Op::Gt, Op::Ge, Op::Mul,
                          Op::Sub};
  for (std::size_t i = 0; i < vs.size(); ++i) EXPECT_EQ(b.peek().nodes[static_cast<std::size_t>(vs[i].id())].op, want[i]);
  EXPECT_FALSE(b.peek().nodes[1].differentiable) << "int inputs are not differentiable by default";
  EXPECT_EQ(b.peek().nodes[static_cast<std::size_t>((x < y).id())].domain, Domain::boolean());
}

TEST(Builder, OpByNameAndErrors) {
  Builder b;
  Value x = b.input("x");
  Value e = b.op("eq", x, 3);
  EXPECT_EQ(b.peek().nodes[static_cast<std::size_t>(e.id())].op, Op::Eq);
  b.op("nonsense", x, x);
  auto r = b.build(e);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("unknown op 'nonsense'"), std::string::npos);
}

TEST(Builder, ErrorIsVisibleBeforeBuild) {
  Builder b;
  Value x = b.input("x");
  EXPECT_FALSE(b.error().has_value());
  b.op("nonsense", x);
  ASSERT_TRUE(b.error().has_value());
  EXPECT_NE(b.error()->message.find("unknown op 'nonsense'"), std::string::npos);
  b.op("also_unknown", x);
  EXPECT_NE(b.error()->message.find("'nonsense'"), std::string::npos) << "the first error is kept";
}

TEST(Builder, MixingBuildersIsAnError) {
  Builder a, b;
  Value x = a.input("x");
  Value y = b.input("y");
  Value z = b.op("add", y, x);
  auto r = b.build(z);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("another builder"), std::string::npos);
}

TEST(Builder, StateAndUpdate) {
  Program p = examples::counter();
  ASSERT_EQ(p.updates.size(), 1u);
  EXPECT_EQ(p.nodes[static_cast<std::size_t>(p.updates[0].first)].op, Op::State);
  EXPECT_EQ(p.nodes[static_cast<std::size_t>(p.updates[0].second)].op, Op::Add);
  Builder b;
  Value x = b.input("x");
  b.update(x, x);
  EXPECT_FALSE(b.build(x).ok()) << "only state values can be updated";
}

TEST(Builder, GatherOneHotAffine) {
  Builder b;
  Value i = b.input("i", Domain::int32(0, 2));
  Value x = b.input("x");
  Value g = b.gather({1.0, x, 3.0}, i);
  auto sel = b.one_hot(i, 3);
  ASSERT_EQ(sel.size(), 3u);
  Value h = b.gather_one_hot({sel[0], sel[1], sel[2]}, {x, 2.0, g});
  Value a = b.affine({x, g, h}, {1.0, 2.0, 3.0}, 0.5);
  Value s = b.sparse_affine({x, g, h}, {0, 2}, {4.0, 5.0});
  auto p = b.build({{"a", a}, {"s", s}});
  ASSERT_TRUE(p.ok()) << p.error().message;
  const Node& gn = p->nodes[static_cast<std::size_t>(g.id())];
  EXPECT_EQ(gn.op, Op::Gather);
  EXPECT_EQ(gn.args.size(), 4u);
  EXPECT_EQ(gn.args[0], i.id()) << "the index comes first";
  EXPECT_EQ(p->nodes[static_cast<std::size_t>(h.id())].args.size(), 6u);
  EXPECT_EQ(p->nodes[static_cast<std::size_t>(s.id())].linear().indices, (std::vector<std::int32_t>{0, 2}));
  EXPECT_FALSE(p->nodes[static_cast<std::size_t>(s.id())].linear().bias.has_value());
}

TEST(Builder, IncludePrefixesParametersAndKeepsPolicy) {
  Builder inner(Semantics::Relaxed, Surrogate::Sigmoid, 2.0);
  Value a = inner.input("a");
  Value w = inner.parameter("w", 1.5);
  auto sub = inner.build(inner.select(a > 0, w * a, 0));
  ASSERT_TRUE(sub.ok());
  Builder outer;
  Value x = outer.input("x");
  auto outs = outer.include(*sub, {{"a", x}}, "r");
  auto p = outer.build(outs["result"]);
  ASSERT_TRUE(p.ok()) << p.error().message;
  ASSERT_TRUE(p->find_named(Op::Parameter, "r.w").has_value());
  const Node& sel = p->nodes[static_cast<std::size_t>(p->outputs[0].second)];
  EXPECT_EQ(sel.semantics, Semantics::Relaxed);
  EXPECT_EQ(sel.temperature, 2.0);
  EXPECT_EQ(p->semantics, Semantics::Exact);

  Builder bad;
  Value y = bad.input("y");
  bad.include(*sub, {{"b", y}}, "r");
  EXPECT_FALSE(bad.build(y).ok()) << "unwired and unknown inputs are errors";
}

TEST(Builder, FreezeTurnsParametersIntoConstants) {
  Builder b;
  Value x = b.input("x");
  Value w = b.parameter("w", 2.0);
  Value c = b.parameter("c", 3.0);
  b.freeze({"w"});
  auto p = b.build(w * x + c);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->nodes[1].op, Op::Constant);
  EXPECT_EQ(p->nodes[1].value, 2.0);
  EXPECT_EQ(p->nodes[2].op, Op::Parameter);
  auto all = freeze(*p);
  ASSERT_TRUE(all.ok());
  EXPECT_TRUE(all->nodes_of(Op::Parameter).empty());
  EXPECT_FALSE(freeze(*p, {"nope"}).ok());
}

TEST(Builder, ScanExpandsOverTheSequence) {
  Builder b;
  Value x = b.input("x");
  Value total = b.scan([](Builder&, Value carry, Value item) { return carry + item; }, 0.0, {x, 2.0, x});
  auto p = b.build(total);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->nodes_of(Op::Add).size(), 3u);
}

TEST(Builder, LocationsAreStamped) {
  Builder b;
  b.set_location(SourceLoc{3, 7});
  Value x = b.input("x");
  b.set_location(SourceLoc{4, 2});
  auto p = b.build(x + 1);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->nodes[0].location, (SourceLoc{3, 7}));
  EXPECT_EQ(p->nodes.back().location, (SourceLoc{4, 2}));
}

}  // namespace
}  // namespace tc
