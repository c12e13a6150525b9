// Hand-made pairs with known answers, proved or disproved through
// prove_equivalent / prove_cannot_fail. Every counterexample is re-run here
// through the evaluator (the prover did so too; this checks the report).
// Each proof has its own time limit; ProveSlow.* take tens of seconds on
// two cores (binary64 dividers and three-factor products) and skip unless
// TC_SLOW_TESTS=1 (ctest prove.slow, label slow).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>

#include "eval/evaluator.h"
#include "ir/builder.h"
#include "prove/prove.h"

namespace tc {
namespace {

using Body = std::function<Value(Builder&, std::vector<Value>&)>;

Program make(const std::vector<std::pair<std::string, Domain>>& inputs, const Body& body, Dtype dtype = Dtype::Float64) {
  Builder b(Semantics::Exact, Surrogate::Sigmoid, 1.0, dtype);
  std::vector<Value> xs;
  for (const auto& [name, d] : inputs) xs.push_back(b.input(name, d));
  auto p = b.build(body(b, xs));
  EXPECT_TRUE(p) << p.error().message;
  return p ? *p : Program{};
}

prove::ProveOptions opts(double timeout = 60) {
  prove::ProveOptions o;
  o.timeout_s = timeout;
  return o;
}

/// The evaluator's outcome on the counterexample's inputs.
Result<CaseResult> rerun(const Program& p, const prove::Counterexample& cex) {
  auto ev = Evaluator::create(p);
  EXPECT_TRUE(ev);
  Env env;
  for (const auto& [name, v] : cex.inputs) env.inputs[name] = v;
  return ev->run(env);
}

void expect_different(const Program& a, const Program& b, const prove::ProveOptions& o = opts()) {
  auto r = prove::prove_equivalent(a, b, o);
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_EQ(r->verdict, prove::Verdict::Different) << prove::to_json(*r).dump();
  if (std::getenv("TC_PROVE_TIMES")) std::printf("%s\n", prove::to_json(*r).dump().c_str());
  ASSERT_TRUE(r->counterexample);
  auto ra = rerun(a, *r->counterexample), rb = rerun(b, *r->counterexample);
  const bool same = (!ra && !rb) || (ra && rb && ra->outputs == rb->outputs);
  EXPECT_FALSE(same && o.tolerance.atol == 0 && o.tolerance.rtol == 0) << prove::to_json(*r).dump();
}

void expect_equivalent(const Program& a, const Program& b, const prove::ProveOptions& o = opts()) {
  auto r = prove::prove_equivalent(a, b, o);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->verdict, prove::Verdict::Equivalent) << prove::to_json(*r).dump();
  EXPECT_EQ(r->solvers.at(0).answer, "unsat");
  if (std::getenv("TC_PROVE_TIMES")) std::printf("%s\n", prove::to_json(*r).dump().c_str());
}

const Domain kF64 = Domain::float64();

#define skip_unless_slow()                                              \
  do {                                                                  \
    const char* slow = std::getenv("TC_SLOW_TESTS");                    \
    if (!slow || !*slow || std::string(slow) == "0")                    \
      GTEST_SKIP() << "a long proof: runs with TC_SLOW_TESTS=1 (ctest prove.slow)"; \
  } while (0)

TEST(ProvePairs, EqualRewriteIsEquivalent) {
  auto a = make({{"x", kF64}}, [](Builder&, auto& x) { return x[0] * 2.0; });
  auto b = make({{"x", kF64}}, [](Builder&, auto& x) { return x[0] + x[0]; });
  expect_equivalent(a, b);
}

TEST(ProvePairs, StructurallyEqualProgramsAreEquivalent) {
  auto body = [](Builder& b, auto& x) { return b.relu(x[0] * x[1] - 3.0) / (x[1] * x[1] + 1.0); };
  auto a = make({{"x", kF64}, {"y", Domain::float64(-10, 10)}}, body);
  auto b = make({{"x", kF64}, {"y", Domain::float64(-10, 10)}}, body);
  expect_equivalent(a, b);
}

TEST(ProvePairs, DifferingOnlyInTheSignOfZeroIsEquivalentUnderTheVerifyRule) {
  // x + 0.0 is +0 where x is -0; the verify rule's == says -0 equals +0.
  auto a = make({{"x", kF64}}, [](Builder&, auto& x) { return x[0] + 0.0; });
  auto b = make({{"x", kF64}}, [](Builder&, auto& x) { return x[0]; });
  expect_equivalent(a, b);
}

TEST(ProvePairs, ASweepMergesProvedNodesOnly) {
  // x*2 against x+x at each of 8 levels: every level is merged.
  auto chain = [](bool mul) {
    return [mul](Builder&, auto& x) {
      Value a = x[0];
      for (int k = 0; k < 8; ++k) a = (mul ? a * 2.0 : a + a) - x[1];
      return a;
    };
  };
  const Domain d = Domain::float64(-1000, 1000);
  auto r = prove::prove_equivalent(make({{"x", d}, {"y", d}}, chain(true)), make({{"x", d}, {"y", d}}, chain(false)),
                                   opts(60));
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->verdict, prove::Verdict::Equivalent) << prove::to_json(*r).dump();
  EXPECT_EQ(r->merged, 8u);
  // B agrees with A on every simulated case (x = 12345 is never drawn) but
  // not at 12345: the candidate fails its proof and the miter finds it.
  const Domain wide = Domain::int32(-100000, 100000);
  auto a = make({{"x", wide}}, [](Builder&, auto& x) { return x[0] * x[0]; });
  auto b = make({{"x", wide}}, [](Builder& bb, auto& x) {
    return bb.select(bb.op(Op::Eq, {Arg(x[0]), Arg(12345.0)}), 0.0, x[0] * x[0]);
  });
  r = prove::prove_equivalent(a, b, opts(60));
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_EQ(r->verdict, prove::Verdict::Different) << prove::to_json(*r).dump();
  EXPECT_EQ(r->counterexample->inputs.at(0).second, 12345.0);
}

TEST(ProvePairs, RoundingBoundaryIsFound) {
  // (x + 1) - 1 loses x's low bits; on small integers it is exact.
  auto body = [](Builder&, auto& x) { return (x[0] + 1.0) - 1.0; };
  auto same = [](Builder&, auto& x) { return x[0] * 1.0; };
  expect_different(make({{"x", Domain::float64(-1, 1)}}, body), make({{"x", Domain::float64(-1, 1)}}, same));
  expect_equivalent(make({{"x", Domain::int32(-1000, 1000)}}, body), make({{"x", Domain::int32(-1000, 1000)}}, same));
}

TEST(ProvePairs, OverflowToInfinityIsFoundAndBoundedDomainsProveIt) {
  auto twice = [](Builder&, auto& x) { return (x[0] * 2.0) / 2.0; };
  auto same = [](Builder&, auto& x) { return x[0] * 1.0; };
  expect_different(make({{"x", kF64}}, twice), make({{"x", kF64}}, same));
  const Domain small = Domain::float64(-1e300, 1e300);
  expect_equivalent(make({{"x", small}}, twice), make({{"x", small}}, same));
}

TEST(ProveSlow, OneFailingInputIsTheCounterexample) {
  skip_unless_slow();
  const Domain d = Domain::int32(-100, 100);
  auto a = make({{"x", d}}, [](Builder&, auto& x) { return x[0] / x[0]; });
  auto b = make({{"x", d}}, [](Builder& bb, auto&) { return Value(bb.constant(1.0)); });
  auto r = prove::prove_equivalent(a, b, opts());
  ASSERT_TRUE(r) << r.error().message;
  if (std::getenv("TC_PROVE_TIMES")) std::printf("%s\n", prove::to_json(*r).dump().c_str());
  ASSERT_EQ(r->verdict, prove::Verdict::Different);
  ASSERT_EQ(r->counterexample->inputs.size(), 1u);
  EXPECT_EQ(r->counterexample->inputs[0].second, 0.0);
  EXPECT_TRUE(r->counterexample->a.raised);
  EXPECT_NE(r->counterexample->a.error.find("division by zero"), std::string::npos) << r->counterexample->a.error;
  EXPECT_FALSE(r->counterexample->b.raised);
}

TEST(ProvePairs, Float32ReassociationDiffers) {
  const Domain d = Domain::float32(-1, 1);
  std::vector<std::pair<std::string, Domain>> in = {{"x", d}, {"y", d}, {"z", d}};
  auto a = make(in, [](Builder&, auto& x) { return (x[0] + x[1]) + x[2]; }, Dtype::Float32);
  auto b = make(in, [](Builder&, auto& x) { return x[0] + (x[1] + x[2]); }, Dtype::Float32);
  expect_different(a, b, opts(30));
}

TEST(ProveSlow, Int32ProductsBeyondTwoToThe53Round) {
  skip_unless_slow();
  const Domain d = Domain::int32();
  std::vector<std::pair<std::string, Domain>> in = {{"x", d}, {"y", d}, {"z", d}};
  auto a = make(in, [](Builder&, auto& x) { return (x[0] * x[1]) * x[2]; });
  auto b = make(in, [](Builder&, auto& x) { return x[0] * (x[1] * x[2]); });
  expect_different(a, b);
  // Two factors stay below 2^62 and commute exactly.
  auto c = make(in, [](Builder&, auto& x) { return x[0] * x[1] + x[2]; });
  auto e = make(in, [](Builder&, auto& x) { return x[2] + x[1] * x[0]; });
  expect_equivalent(c, e);
}

TEST(ProvePairs, CannotFailAndCanFail) {
  // Halving never overflows, and adding 1 cannot reach infinity below 1e300.
  auto safe = make({{"x", Domain::float64(-1e300, 1e300)}}, [](Builder&, auto& x) { return (x[0] + 1.0) * 0.5; });
  auto r = prove::prove_cannot_fail(safe, opts(30));
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->verdict, prove::Verdict::CannotFail) << prove::to_json(*r).dump();
  // ... and doubling cannot either, but over all doubles it overflows.
  auto twice = make({{"x", kF64}}, [](Builder&, auto& x) { return (x[0] + 1.0) * 2.0; });
  r = prove::prove_cannot_fail(twice, opts(30));
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_EQ(r->verdict, prove::Verdict::CanFail) << prove::to_json(*r).dump();
  EXPECT_GT(std::fabs(r->counterexample->inputs.at(0).second), 8e307);
  EXPECT_NE(r->counterexample->message.find("result is infinite"), std::string::npos) << r->counterexample->message;
  EXPECT_FALSE(rerun(twice, *r->counterexample));

  // 100 // (x - 17) fails at 17 only (the integer route of floordiv).
  auto risky = make({{"x", Domain::int32(-1000, 1000)}},
                    [](Builder& b, auto& x) { return b.op(Op::FloorDiv, {Arg(100.0), Arg(x[0] - 17.0)}); });
  r = prove::prove_cannot_fail(risky, opts(30));
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_EQ(r->verdict, prove::Verdict::CanFail) << prove::to_json(*r).dump();
  ASSERT_TRUE(r->counterexample->node);
  EXPECT_EQ(risky.nodes[static_cast<std::size_t>(*r->counterexample->node)].op, Op::FloorDiv);
  EXPECT_EQ(r->counterexample->inputs.at(0).second, 17.0);
  EXPECT_NE(r->counterexample->message.find("division by zero"), std::string::npos);
  EXPECT_FALSE(rerun(risky, *r->counterexample));
}

TEST(ProveSlow, CannotFailThroughADivision) {
  skip_unless_slow();
  auto safe = make({{"x", Domain::float64(-10, 10)}}, [](Builder&, auto& x) { return x[0] / (x[0] * x[0] + 1.0); });
  auto r = prove::prove_cannot_fail(safe, opts(120));
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->verdict, prove::Verdict::CannotFail) << prove::to_json(*r).dump();
  auto risky = make({{"x", Domain::float64(-10, 10)}, {"y", Domain::int32(0, 5)}},
                    [](Builder&, auto& x) { return x[0] / x[1]; });
  r = prove::prove_cannot_fail(risky, opts(120));
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_EQ(r->verdict, prove::Verdict::CanFail) << prove::to_json(*r).dump();
  EXPECT_EQ(risky.nodes[static_cast<std::size_t>(*r->counterexample->node)].op, Op::Div);
  EXPECT_FALSE(rerun(risky, *r->counterexample));
}

TEST(ProvePairs, SignaturesMustMatchAndRefusalsAreErrors) {
  auto a = make({{"x", kF64}}, [](Builder&, auto& x) { return x[0]; });
  auto b = make({{"x", Domain::float64(0, 1)}}, [](Builder&, auto& x) { return x[0]; });
  auto r = prove::prove_equivalent(a, b, opts());
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("input 'x' has domain float64 in the first program"), std::string::npos)
      << r.error().message;
  auto s = make({{"x", kF64}}, [](Builder& bb, auto& x) { return bb.sigmoid(x[0]); });
  auto rs = prove::prove_cannot_fail(s, opts());
  ASSERT_FALSE(rs);
  EXPECT_NE(rs.error().message.find("(sigmoid)"), std::string::npos) << rs.error().message;
  prove::ProveOptions bad = opts();
  bad.tolerance = {-1, 0};
  EXPECT_FALSE(prove::prove_equivalent(a, a, bad));
}

TEST(ProvePairs, ASecondOpinionIsAskedForEveryProof) {
  auto a = make({{"x", kF64}}, [](Builder&, auto& x) { return x[0] * 2.0; });
  auto b = make({{"x", kF64}}, [](Builder&, auto& x) { return x[0] + x[0]; });
  prove::ProveOptions o = opts();
  auto r = prove::prove_equivalent(a, b, o);
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_EQ(r->solvers.size(), 2u);
  EXPECT_EQ(r->solvers[1].solver, "cvc5");
  if (r->solvers[1].answer == "unavailable") GTEST_SKIP() << "cvc5 is not installed";
  EXPECT_EQ(r->solvers[1].answer, "unsat") << r->solvers[1].detail;
  // A command that does not exist is reported, and Z3's proof stands named.
  o.cvc5 = "/nonexistent/cvc5";
  r = prove::prove_equivalent(a, b, o);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->verdict, prove::Verdict::Equivalent);
  EXPECT_EQ(r->solvers[1].answer, "unavailable");
}

}  // namespace
}  // namespace tc
