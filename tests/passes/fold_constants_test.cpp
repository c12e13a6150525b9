// Checked constant folding, on its own.
#include <gtest/gtest.h>

#include <bit>

#include "ir/builder.h"
#include "passes/fold_constants.h"
#include "passes_util.h"

namespace tc {
namespace {

Program build(Builder& b, Arg result) {
  auto p = b.build(result);
  TC_ASSERT(p.ok());
  return std::move(*p);
}

const Node& result_node(const Program& p) { return p.nodes[static_cast<std::size_t>(*p.output("result"))]; }

TEST(FoldConstants, FoldsArithmeticKeepingLocationAndDomain) {
  Builder b;
  Value x = b.input("x", Domain::int32(0, 3));
  b.set_location(SourceLoc{4, 9});
  Value k = b.op("floordiv", b.constant(-7), b.constant(2));
  b.set_domain(k, Domain::int32(-10, 10));
  b.set_location(std::nullopt);
  Program p = build(b, x + k);
  auto f = fold_constants(p);
  ASSERT_TRUE(f.ok()) << f.error().message;
  const Node& add = result_node(*f);
  const Node& c = f->nodes[static_cast<std::size_t>(add.args[1])];
  EXPECT_EQ(c.op, Op::Constant);
  EXPECT_EQ(c.value, -4.0);  // Python's floor division
  ASSERT_TRUE(c.location.has_value());
  EXPECT_EQ(c.location->line, 4);
  EXPECT_EQ(c.domain, Domain::int32(-10, 10));
}

TEST(FoldConstants, RefusesConstantDivisionByZero) {
  for (const char* op : {"div", "floordiv", "mod"}) {
    Builder b;
    Value x = b.input("x");
    b.set_location(SourceLoc{2, 5});
    Value bad = b.op(op, b.constant(1), b.constant(0));
    b.set_location(std::nullopt);
    Program p = build(b, x + bad);
    auto f = fold_constants(p);
    ASSERT_FALSE(f.ok()) << op;
    EXPECT_NE(f.error().message.find("constant division by zero"), std::string::npos) << f.error().message;
    EXPECT_NE(f.error().message.find("line 2, column 5"), std::string::npos) << f.error().message;
    EXPECT_EQ(f.error().node, bad.id());
  }
}

TEST(FoldConstants, RefusesNonFiniteResultsAndDomainViolations) {
  {
    Builder b;
    Program p = build(b, b.constant(1e300) * b.constant(1e300));
    auto f = fold_constants(p);
    ASSERT_FALSE(f.ok());
    EXPECT_NE(f.error().message.find("infinite"), std::string::npos) << f.error().message;
  }
  {
    Builder b(Semantics::Exact, Surrogate::Sigmoid, 1.0, Dtype::Float32);
    Program p = build(b, b.constant(1e30) * b.constant(1e10));
    auto f = fold_constants(p);
    ASSERT_FALSE(f.ok());
    EXPECT_NE(f.error().message.find("overflows float32"), std::string::npos) << f.error().message;
  }
  {
    Builder b;
    Value k = b.constant(100) + b.constant(50);
    b.set_domain(k, Domain::int32(0, 127));
    Program p = build(b, k);
    auto f = fold_constants(p);
    ASSERT_FALSE(f.ok());
    EXPECT_NE(f.error().message.find("above the maximum 127"), std::string::npos) << f.error().message;
    EXPECT_EQ(f.error().node, k.id());
  }
  {
    Builder b;
    Value g = b.gather({1.0, 2.0}, b.constant(2));
    Program p = build(b, g);
    auto f = fold_constants(p);
    ASSERT_FALSE(f.ok());
    EXPECT_NE(f.error().message.find("out of range"), std::string::npos) << f.error().message;
  }
}

TEST(FoldConstants, IgnoresDeadNodes) {
  // A node no output needs never runs, so its division by zero is no error.
  Builder b;
  Value x = b.input("x");
  (void)(b.constant(1) / b.constant(0));
  Program p = build(b, x + 1);
  auto f = fold_constants(p);
  ASSERT_TRUE(f.ok()) << f.error().message;
  EXPECT_EQ(f->nodes.size(), p.nodes.size());
}

TEST(FoldConstants, IgnoresBranchesAConstantConditionNeverTakes) {
  // Exact select computes only the chosen branch, so 1/0 below never runs;
  // with a condition that varies it can run, and folding refuses it.
  for (bool constant_condition : {true, false}) {
    Builder b;
    Value x = b.input("x", Domain::int32(-3, 3));
    Value cond = constant_condition ? b.constant(2) > b.constant(1) : x > 0;
    Value bad = b.constant(1) / b.constant(0);
    Program p = build(b, b.select(cond, x, bad));
    auto f = fold_constants(p);
    if (constant_condition) {
      ASSERT_TRUE(f.ok()) << f.error().message;
      auto diff = testing::compare_behaviour(p, *f, {Env{{{"x", -2.0}}, {}, {}}, Env{{{"x", 3.0}}, {}, {}}});
      EXPECT_FALSE(diff) << *diff;
    } else {
      ASSERT_FALSE(f.ok());
      EXPECT_EQ(f.error().node, bad.id());
    }
  }
}

TEST(FoldConstants, Float32FoldsWithBinary32Rounding) {
  Builder b(Semantics::Exact, Surrogate::Sigmoid, 1.0, Dtype::Float32);
  Value x = b.input("x", Domain::float32(-1, 1));
  Program p = build(b, x + b.constant(0.1) * b.constant(3));
  auto f = fold_constants(p);
  ASSERT_TRUE(f.ok());
  const Node& c = f->nodes[static_cast<std::size_t>(result_node(*f).args[1])];
  ASSERT_EQ(c.op, Op::Constant);
  EXPECT_EQ(c.value, round_f32(round_f32(0.1) * 3.0));
  EXPECT_NE(c.value, 0.1 * 3.0);
}

TEST(FoldConstants, ResolvesExactDecisionsOnly) {
  for (Semantics sem : {Semantics::Exact, Semantics::Hybrid, Semantics::Relaxed}) {
    Builder b(sem);
    Value x = b.input("x", Domain::float64(-1, 1));
    Value y = b.input("y", Domain::float64(-1, 1));
    Program p = build(b, b.select(b.constant(2) > b.constant(1), x, y));
    auto f = fold_constants(p);
    ASSERT_TRUE(f.ok());
    const Node& r = result_node(*f);
    if (sem == Semantics::Exact) {
      EXPECT_EQ(r.op, Op::Input);  // the select became its chosen branch
      EXPECT_EQ(r.name, "x");
    } else if (sem == Semantics::Hybrid) {
      // The comparison folds (forward is exact), the select stays: hybrid
      // gradients evaluate both branches.
      EXPECT_EQ(r.op, Op::Select);
      EXPECT_EQ(f->nodes[static_cast<std::size_t>(r.args[0])].op, Op::Constant);
    } else {
      EXPECT_EQ(r.op, Op::Select);  // relaxed comparisons are sigmoids: nothing to decide
      EXPECT_EQ(f->nodes[static_cast<std::size_t>(r.args[0])].op, Op::Gt);
    }
  }
}

TEST(FoldConstants, DecidedSelectWithDomainKeepsItsCheck) {
  Builder b;
  Value x = b.input("x", Domain::int32(-5, 5));
  Value s = b.select(b.constant(1), x, b.constant(0));
  b.set_domain(s, Domain::int32(0, 5));
  Program p = build(b, s);
  auto f = fold_constants(p);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(result_node(*f).op, Op::Select);
  // The check still fails for x = -1.
  auto diff = testing::compare_behaviour(p, *f, {Env{{{"x", -1.0}}, {}, {}}, Env{{{"x", 3.0}}, {}, {}}});
  EXPECT_FALSE(diff) << *diff;
}

TEST(FoldConstants, GatherAndOneHotWithConstantIndex) {
  Builder b;
  Value x = b.input("x");
  Value g = b.gather({x, b.constant(5)}, b.constant(1));
  auto sel = b.one_hot(b.constant(0), 2);
  Value h = b.gather_one_hot({sel[0], sel[1]}, {x, b.constant(3)});
  Program p = build(b, g + h);
  auto f = fold_constants(p);
  ASSERT_TRUE(f.ok()) << f.error().message;
  const Node& r = result_node(*f);
  EXPECT_EQ(f->nodes[static_cast<std::size_t>(r.args[0])].op, Op::Constant);
  EXPECT_EQ(f->nodes[static_cast<std::size_t>(r.args[0])].value, 5.0);
  EXPECT_EQ(f->nodes[static_cast<std::size_t>(r.args[1])].op, Op::Input);
}

TEST(FoldConstants, KeepsParametersStateAndCalls) {
  Builder b;
  Value w = b.parameter("w", 2.0);
  Value s = b.state("s", 1, Domain::int32(0, 9));
  Value c = b.call("f", {b.constant(1)});
  b.update(s, s);
  Program p = build(b, w * 3 + s + c);
  auto f = fold_constants(p);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->nodes, p.nodes);
}

TEST(FoldConstants, SignedZeroSurvives) {
  Builder b;
  Value x = b.input("x");
  Value z = b.constant(-1.0) * b.constant(0.0);
  Program p = build(b, x * 0 + z);
  auto f = fold_constants(p);
  ASSERT_TRUE(f.ok());
  const Node& c = f->nodes[static_cast<std::size_t>(result_node(*f).args[1])];
  EXPECT_TRUE(c.value == 0.0 && std::signbit(c.value));
}

TEST(FoldConstants, AloneKeepsRandomProgramsBitIdentical) {
  std::mt19937_64 rng(11);
  int folded = 0;
  for (int k = 0; k < 200; ++k) {
    Program p = testing::random_program(rng);
    auto f = fold_constants(p);
    if (!f) continue;
    ++folded;
    auto diff = testing::compare_behaviour(p, *f, testing::sample_envs(p, rng, 25));
    ASSERT_FALSE(diff) << "program " << k << ": " << *diff;
  }
  EXPECT_GT(folded, 150);
}

}  // namespace
}  // namespace tc
