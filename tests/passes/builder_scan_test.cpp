// Builder::scan over a literal-length sequence (expanded into nodes), and
// one_hot + gather_one_hot (checked exactly-one selection), through the
// evaluator.
#include <gtest/gtest.h>

#include "eval/evaluator.h"
#include "ir/builder.h"
#include "passes/optimize.h"
#include "passes_util.h"

namespace tc {
namespace {

double run1(const Program& p, std::map<std::string, double, std::less<>> inputs) {
  auto ev = Evaluator::create(p);
  TC_ASSERT(ev.ok());
  auto r = ev->run(Env{std::move(inputs), {}, {}});
  TC_ASSERT(r.ok());
  return r->outputs[0];
}

TEST(BuilderScan, ExpandsOneBodyPerItemInOrder) {
  Builder b;
  Value x = b.input("x", Domain::float64(-10, 10));
  Value y = b.input("y", Domain::float64(-10, 10));
  const std::size_t before = b.node_count();
  int calls = 0;
  // Horner's rule: ((1*x + 2)*x + 3)... the order of items matters.
  Value r = b.scan(
      [&](Builder& bb, Value carry, Value item) {
        ++calls;
        (void)bb;
        return carry * x + item;
      },
      0.0, {1.0, 2.0, y, 4.0});
  auto p = b.build(r);
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(calls, 4);
  // init constant, 3 literal items, 4 x (mul, add) bodies.
  EXPECT_EQ(p->nodes.size() - before, 1u + 3u + 8u);
  for (double xv : {-2.0, 0.5, 3.0})
    for (double yv : {-1.0, 7.0}) {
      const double expect = ((((0.0 * xv + 1.0) * xv + 2.0) * xv + yv) * xv + 4.0);
      EXPECT_EQ(run1(*p, {{"x", xv}, {"y", yv}}), expect) << xv << " " << yv;
    }
}

TEST(BuilderScan, EmptySequenceReturnsInit) {
  Builder b;
  Value x = b.input("x");
  Value r = b.scan([](Builder&, Value carry, Value item) { return carry + item; }, x, {});
  EXPECT_EQ(r.id(), x.id());
  auto p = b.build(r);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(run1(*p, {{"x", 2.5}}), 2.5);
}

TEST(BuilderScan, RunningMaximumOptimizesBitIdentically) {
  Builder b;
  std::vector<Arg> items;
  for (int k = 0; k < 6; ++k) items.push_back(b.input("v" + std::to_string(k), Domain::int32(-20, 20)));
  Value m = b.scan([](Builder& bb, Value carry, Value item) { return bb.select(item > carry, item, carry); },
                   -1000.0, items);
  auto p = b.build(m);
  ASSERT_TRUE(p.ok());
  auto o = optimize(*p);
  ASSERT_TRUE(o.ok());
  std::mt19937_64 rng(2);
  auto diff = testing::compare_behaviour(*p, o->program, testing::sample_envs(*p, rng, 200));
  EXPECT_FALSE(diff) << *diff;
  EXPECT_EQ(run1(*p, {{"v0", 3}, {"v1", -4}, {"v2", 17}, {"v3", 0}, {"v4", 16}, {"v5", -20}}), 17.0);
}

TEST(BuilderOneHot, SelectsExactlyOneOrFails) {
  Builder b;
  Value i = b.input("i", Domain::int32(-1, 4));
  Value x = b.input("x", Domain::float64(-1, 1));
  auto sel = b.one_hot(i, 3);
  ASSERT_EQ(sel.size(), 3u);
  for (const Value& s : sel) {
    const Node& n = b.peek().nodes[static_cast<std::size_t>(s.id())];
    EXPECT_EQ(n.op, Op::Eq);
    EXPECT_EQ(n.domain, Domain::boolean());
  }
  Value g = b.gather_one_hot({sel[0], sel[1], sel[2]}, {10.0, x, 30.0});
  auto p = b.build(g);
  ASSERT_TRUE(p.ok()) << p.error().message;
  auto ev = Evaluator::create(*p);
  ASSERT_TRUE(ev.ok());
  auto at = [&](double iv) { return ev->run(Env{{{"i", iv}, {"x", 0.25}}, {}, {}}); };
  EXPECT_EQ(at(0)->outputs[0], 10.0);
  EXPECT_EQ(at(1)->outputs[0], 0.25);
  EXPECT_EQ(at(2)->outputs[0], 30.0);
  for (double bad : {-1.0, 3.0, 4.0}) {
    auto r = at(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.error().message.find("no selector is 1"), std::string::npos) << r.error().message;
  }
}

TEST(BuilderOneHot, TwoHotSelectorsFail) {
  Builder b;
  Value s0 = b.input("s0", Domain::boolean()), s1 = b.input("s1", Domain::boolean());
  auto p = b.build(b.gather_one_hot({s0, s1}, {1.0, 2.0}));
  ASSERT_TRUE(p.ok());
  auto ev = Evaluator::create(*p);
  ASSERT_TRUE(ev.ok());
  EXPECT_EQ(ev->run(Env{{{"s0", 0}, {"s1", 1}}, {}, {}})->outputs[0], 2.0);
  auto both = ev->run(Env{{{"s0", 1}, {"s1", 1}}, {}, {}});
  ASSERT_FALSE(both.ok());
  EXPECT_NE(both.error().message.find("expected exactly one"), std::string::npos) << both.error().message;
}

TEST(BuilderOneHot, MismatchedWidthsAreABuildError) {
  Builder b;
  Value x = b.input("x");
  (void)b.gather_one_hot({x}, {1.0, 2.0});
  auto p = b.build(x);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error().message.find("as many selectors as values"), std::string::npos);
}

}  // namespace
}  // namespace tc
