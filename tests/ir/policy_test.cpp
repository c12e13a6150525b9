// The caller's policy laid over a program (ir/policy.h): what is replaced,
// what stays, and what is refused. Every layer (evaluator, tape, analysis,
// CLI, IDE) goes through these functions, so their rules are checked here once.
#include "ir/policy.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ir/builder.h"

namespace tc {
namespace {

/// A hybrid float64 program whose second comparison keeps semantics,
/// surrogate and temperature of its own (as nodes from Builder::include do).
Program program_with_a_node_override() {
  Builder b(Semantics::Hybrid, Surrogate::Sigmoid, 0.5, Dtype::Float64);
  Value x = b.input("x");
  Value y = b.input("y");
  Value c = x > y;
  Value r = b.select(c, x, y);
  Program p = b.build(r).value();
  Node& cmp = p.nodes[static_cast<std::size_t>(c.id())];
  cmp.semantics = Semantics::Relaxed;
  cmp.surrogate = Surrogate::Sigmoid;  // the only surrogate there is; set on the node all the same
  cmp.temperature = 2.0;
  return p;
}

TEST(Policy, AnEmptyPolicyChangesNothing) {
  const Program p = program_with_a_node_override();
  const RootSettings s = resolve(Policy{}, p);
  EXPECT_EQ(s.semantics, Semantics::Hybrid);
  EXPECT_EQ(s.dtype, Dtype::Float64);
  EXPECT_EQ(s.temperature, 0.5);
  EXPECT_EQ(s.surrogate, Surrogate::Sigmoid);
  EXPECT_TRUE(Policy{}.empty());
  EXPECT_EQ(with_policy(p, Policy{}).semantics, p.semantics);
}

TEST(Policy, EachFieldReplacesOnlyItsRootSetting) {
  const Program p = program_with_a_node_override();
  const Program q = with_policy(p, Policy{.semantics = Semantics::Exact, .dtype = Dtype::Float32});
  EXPECT_EQ(q.semantics, Semantics::Exact);
  EXPECT_EQ(q.dtype, Dtype::Float32);
  EXPECT_EQ(q.temperature, 0.5) << "no temperature given: the program's stays";
  EXPECT_EQ(q.surrogate, Surrogate::Sigmoid);
  const Program t = with_policy(p, Policy{.temperature = 3.0, .surrogate = Surrogate::Sigmoid});
  EXPECT_EQ(t.semantics, Semantics::Hybrid);
  EXPECT_EQ(t.dtype, Dtype::Float64);
  EXPECT_EQ(t.temperature, 3.0);
  EXPECT_EQ(t.surrogate, Surrogate::Sigmoid);
}

TEST(Policy, NodesWithSettingsOfTheirOwnKeepThem) {
  const Program p = program_with_a_node_override();
  const Program q = with_policy(p, Policy{.semantics = Semantics::Exact, .temperature = 9.0,
                                          .surrogate = Surrogate::Sigmoid});
  ASSERT_EQ(q.nodes.size(), p.nodes.size());
  for (std::size_t i = 0; i < q.nodes.size(); ++i) {
    const Node& n = q.nodes[i];
    if (n.op != Op::Gt) {
      EXPECT_EQ(q.semantics_of(n), Semantics::Exact) << "node " << i;
      continue;
    }
    EXPECT_EQ(q.semantics_of(n), Semantics::Relaxed);
    EXPECT_EQ(q.surrogate_of(n), Surrogate::Sigmoid);
    EXPECT_EQ(q.temperature_of(n), 2.0) << "the node's own temperature, not the policy's 9";
  }
}

TEST(Policy, ResolveAgreesWithApply) {
  const Program p = program_with_a_node_override();
  const Policy policy{.semantics = Semantics::Relaxed, .temperature = 0.25};
  const RootSettings s = resolve(policy, p);
  Program q = p;
  apply_policy(policy, q);
  EXPECT_EQ(q.semantics, s.semantics);
  EXPECT_EQ(q.dtype, s.dtype);
  EXPECT_EQ(q.temperature, s.temperature);
  EXPECT_EQ(q.surrogate, s.surrogate);
}

TEST(Policy, AnUnusableTemperatureIsRefused) {
  for (double t : {0.0, -1.0, std::numeric_limits<double>::infinity(), std::nan("")}) {
    Status s = check_policy(Policy{.temperature = t});
    ASSERT_FALSE(s) << t;
    EXPECT_EQ(s.error().message, "temperature must be finite and greater than 0") << t;
  }
  EXPECT_TRUE(check_policy(Policy{.temperature = 1e-9}));
  EXPECT_TRUE(check_policy(Policy{}));
}

}  // namespace
}  // namespace tc
