// Affine packing, on its own: which chains become affine / sparse_affine,
// and that every rewrite is bit-identical (signed zeros included).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>

#include "ir/builder.h"
#include "passes/dead_code.h"
#include "passes/pack_affine.h"
#include "passes_util.h"

namespace tc {
namespace {

Program build(Builder& b, Arg result) {
  auto p = b.build(result);
  TC_ASSERT(p.ok());
  return std::move(*p);
}

Program packed(const Program& p, PackOptions o = {}) {
  auto q = pack_affine(p, o);
  TC_ASSERT(q.ok());
  auto d = eliminate_dead_code(*q);
  TC_ASSERT(d.ok());
  return std::move(*d);
}

const Node& result_node(const Program& p) { return p.nodes[static_cast<std::size_t>(*p.output("result"))]; }

std::vector<std::string> arg_names(const Program& p, const Node& n) {
  std::vector<std::string> out;
  for (NodeId a : n.args) {
    const Node& x = p.nodes[static_cast<std::size_t>(a)];
    out.push_back(x.op == Op::Input ? x.name : std::string(op_name(x.op)));
  }
  return out;
}

// Every combination of signed zeros and a few ordinary values for 3 inputs.
std::vector<Env> zero_heavy_envs() {
  const double vals[] = {0.0, -0.0, 1.0, -1.0, 0.5};
  std::vector<Env> out;
  for (double a : vals)
    for (double b : vals)
      for (double c : vals) out.push_back(Env{{{"x", a}, {"y", b}, {"z", c}}, {}, {}});
  return out;
}

TEST(PackAffine, LeftDeepChainWithBias) {
  Builder b;
  Value x = b.input("x"), y = b.input("y"), z = b.input("z");
  b.set_location(SourceLoc{3, 7});
  Value r = ((2.0 * x + y * 3.0) - 4.0 * z) + 1.5;
  Program p = build(b, r);
  Program q = packed(p);
  const Node& a = result_node(q);
  ASSERT_EQ(a.op, Op::Affine);
  EXPECT_EQ(arg_names(q, a), (std::vector<std::string>{"x", "y", "z"}));
  EXPECT_EQ(a.linear().coefficients, (std::vector<double>{2.0, 3.0, -4.0}));
  EXPECT_EQ(a.linear().bias, 1.5);
  EXPECT_EQ(a.location, (SourceLoc{3, 7}));
  EXPECT_EQ(q.nodes.size(), 4u);
  auto diff = testing::compare_behaviour(p, q, zero_heavy_envs());
  EXPECT_FALSE(diff) << *diff;
}

TEST(PackAffine, CommutedOperandsAndNegations) {
  Builder b;
  Value x = b.input("x"), y = b.input("y"), z = b.input("z");
  // t + acc, -(c*x), -x, x - c: all exact rewrites.
  Value r = (-(2.0 * y) + 0.5 * x) - z;
  r = 3.0 + r;
  r = r - (-(x * 0.25));
  Program p = build(b, r);
  Program q = packed(p);
  const Node& a = result_node(q);
  ASSERT_EQ(a.op, Op::Affine);
  EXPECT_EQ(arg_names(q, a), (std::vector<std::string>{"y", "x", "z", "constant", "x"}));
  EXPECT_EQ(a.linear().coefficients, (std::vector<double>{-2.0, 0.5, -1.0, 1.0, 0.25}));
  EXPECT_FALSE(a.linear().bias.has_value());
  auto diff = testing::compare_behaviour(p, q, zero_heavy_envs());
  EXPECT_FALSE(diff) << *diff;
}

TEST(PackAffine, CommutesAtTheRootButNeverReassociates) {
  // x*2 + S == S + x*2 exactly, so S's chain continues with x*2.
  {
    Builder b;
    Value x = b.input("x"), y = b.input("y"), z = b.input("z");
    Program p = build(b, x * 2.0 + (y * 3.0 + z * 4.0));
    Program q = packed(p);
    const Node& a = result_node(q);
    ASSERT_EQ(a.op, Op::Affine);
    EXPECT_EQ(arg_names(q, a), (std::vector<std::string>{"y", "z", "x"}));
    EXPECT_EQ(a.linear().coefficients, (std::vector<double>{3.0, 4.0, 2.0}));
    auto diff = testing::compare_behaviour(p, q, zero_heavy_envs());
    EXPECT_FALSE(diff) << *diff;
  }
  // (x*2 + y*3) + (z*4 + x*5): merging the sums would reassociate, so the
  // right one is packed on its own and enters with coefficient 1.
  {
    Builder b;
    Value x = b.input("x"), y = b.input("y"), z = b.input("z");
    Program p = build(b, (x * 2.0 + y * 3.0) + (z * 4.0 + x * 5.0));
    Program q = packed(p);
    const Node& a = result_node(q);
    ASSERT_EQ(a.op, Op::Affine);
    EXPECT_EQ(arg_names(q, a), (std::vector<std::string>{"x", "y", "affine"}));
    EXPECT_EQ(a.linear().coefficients, (std::vector<double>{2.0, 3.0, 1.0}));
    const Node& inner = q.nodes[static_cast<std::size_t>(a.args[2])];
    EXPECT_EQ(arg_names(q, inner), (std::vector<std::string>{"z", "x"}));
    auto diff = testing::compare_behaviour(p, q, zero_heavy_envs());
    EXPECT_FALSE(diff) << *diff;
  }
}

TEST(PackAffine, SharedIntermediatesDomainsAndRelaxedNodesStay) {
  Builder b;
  Value x = b.input("x"), y = b.input("y"), z = b.input("z");
  Value shared = 2.0 * x + 3.0 * y;  // also an output
  Value checked = 5.0 * z;
  b.set_domain(checked, Domain::float64(-1, 1));
  Value r = (shared + checked) + 0.5 * z;
  auto p = b.build({{"result", r}, {"shared", shared}});
  ASSERT_TRUE(p.ok());
  Program q = packed(*p);
  const Node& a = result_node(q);
  ASSERT_EQ(a.op, Op::Affine);
  ASSERT_EQ(a.args.size(), 3u);
  EXPECT_EQ(a.linear().coefficients, (std::vector<double>{1.0, 1.0, 0.5}));
  EXPECT_EQ(q.nodes[static_cast<std::size_t>(*q.output("shared"))].op, Op::Affine);
  EXPECT_EQ(q.nodes[static_cast<std::size_t>(a.args[0])].op, Op::Affine);  // the shared sum, packed itself
  EXPECT_EQ(q.nodes[static_cast<std::size_t>(a.args[1])].op, Op::Mul);     // keeps its domain check
  EXPECT_TRUE(q.nodes[static_cast<std::size_t>(a.args[1])].domain.has_value());

  Builder rb(Semantics::Relaxed);
  Value rx = rb.input("x");
  Program relaxed = build(rb, 2.0 * rx + 1.0);
  auto rq = pack_affine(relaxed);
  ASSERT_TRUE(rq.ok());
  EXPECT_EQ(*rq, relaxed);
}

TEST(PackAffine, PlainSumsAreLeftAlone) {
  Builder b;
  Value x = b.input("x"), y = b.input("y");
  Program p = build(b, x + y - 1.0);
  auto q = pack_affine(p);
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(*q, p);
}

TEST(PackAffine, SparseOnlyWithANonNegativeZeroBias) {
  // 0*x can be -0; dropping it is exact only when a bias that is not -0 ends the sum.
  for (double bias : {1.0, 0.0, -0.0}) {
    Builder b;
    Value x = b.input("x"), y = b.input("y"), z = b.input("z");
    Value r = 0.0 * x + 2.0 * y;
    r = r + 0.0 * z;
    r = r + (-0.0) * x;
    r = r + bias;
    Program p = build(b, r);
    Program q = packed(p);
    const Node& a = result_node(q);
    if (std::signbit(bias)) {
      ASSERT_EQ(a.op, Op::Affine) << bias;
      EXPECT_EQ(a.linear().coefficients.size(), 4u);
    } else {
      ASSERT_EQ(a.op, Op::SparseAffine) << bias;
      EXPECT_EQ(a.linear().indices, (std::vector<std::int32_t>{1}));
      EXPECT_EQ(a.linear().coefficients, (std::vector<double>{2.0}));
      EXPECT_EQ(a.args.size(), 4u);  // unused positions stay arguments (their checks still run)
    }
    auto diff = testing::compare_behaviour(p, q, zero_heavy_envs());
    EXPECT_FALSE(diff) << bias << ": " << *diff;
  }
  // Without a bias the zero terms stay: x*0 + y*0 may be -0 or +0 by the signs.
  Builder b;
  Value x = b.input("x"), y = b.input("y"), z = b.input("z");
  Program p = build(b, ((0.0 * x + 0.0 * y) + 0.0 * z) + 2.0 * x);
  Program q = packed(p);
  EXPECT_EQ(result_node(q).op, Op::Affine);
  auto diff = testing::compare_behaviour(p, q, zero_heavy_envs());
  EXPECT_FALSE(diff) << *diff;
}

TEST(PackAffine, Float32CoefficientsAreBinary32) {
  Builder b(Semantics::Exact, Surrogate::Sigmoid, 1.0, Dtype::Float32);
  Value x = b.input("x", Domain::float32(-2, 2)), y = b.input("y", Domain::float32(-2, 2));
  Value z = b.input("z", Domain::float32(-2, 2));
  Program p = build(b, (0.1 * x + 0.7 * y) - z * 1.3 + 0.3);
  Program q = packed(p);
  const Node& a = result_node(q);
  ASSERT_EQ(a.op, Op::Affine);
  EXPECT_EQ(a.linear().coefficients[0], round_f32(0.1));
  std::mt19937_64 rng(3);
  auto diff = testing::compare_behaviour(p, q, testing::sample_envs(p, rng, 500));
  EXPECT_FALSE(diff) << *diff;
}

TEST(PackAffine, ExtendsAnAffineWithoutBias) {
  Builder b;
  Value x = b.input("x"), y = b.input("y"), z = b.input("z");
  Value a = b.affine({x, y}, {2.0, 3.0});
  Program p = build(b, a + 4.0 * z);
  Program q = packed(p);
  const Node& r = result_node(q);
  ASSERT_EQ(r.op, Op::Affine);
  EXPECT_EQ(r.linear().coefficients, (std::vector<double>{2.0, 3.0, 4.0}));
  auto diff = testing::compare_behaviour(p, q, zero_heavy_envs());
  EXPECT_FALSE(diff) << *diff;
}

TEST(PackAffine, LongChainsDoNotRecurse) {
  Builder b;
  Value x = b.input("x", Domain::float64(-1, 1));
  Value acc = 0.5 * x;
  for (int k = 0; k < 50000; ++k) acc = acc + 1.0001 * x;
  Program p = build(b, acc);
  Program q = packed(p);
  ASSERT_EQ(result_node(q).op, Op::Affine);
  EXPECT_EQ(result_node(q).args.size(), 50001u);
  auto diff = testing::compare_behaviour(p, q, {Env{{{"x", 0.3}}, {}, {}}, Env{{{"x", -1.0}}, {}, {}}});
  EXPECT_FALSE(diff) << *diff;
}

TEST(PackAffine, LongPlainSumsStayAsTheyAre) {
  // No multiplication to fold: nothing to pack, and every sub-chain is
  // skipped without being expanded again (this would be quadratic).
  Builder b;
  Value x = b.input("x", Domain::float64(-1, 1));
  Value acc = x;
  for (int k = 0; k < 60000; ++k) acc = acc + x;
  Program p = build(b, acc);
  auto q = pack_affine(p);
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(*q, p);
}

TEST(PackAffine, AloneKeepsRandomProgramsBitIdentical) {
  std::mt19937_64 rng(17);
  int affine = 0, sparse = 0;
  for (int k = 0; k < 300; ++k) {
    Program p = testing::random_program(rng);
    auto q = pack_affine(p);
    ASSERT_TRUE(q.ok()) << q.error().message;
    affine += static_cast<int>(q->nodes_of(Op::Affine).size() - p.nodes_of(Op::Affine).size());
    sparse += static_cast<int>(q->nodes_of(Op::SparseAffine).size());
    auto diff = testing::compare_behaviour(p, *q, testing::sample_envs(p, rng, 30));
    ASSERT_FALSE(diff) << "program " << k << ": " << *diff;
  }
  EXPECT_GT(affine, 50);
  EXPECT_GT(sparse, 0);
}

}  // namespace
}  // namespace tc
