// The description's examples, hybrid rules, bindings, per-node policy and
// float32 through the C++ API.
#include <cmath>

#include <gtest/gtest.h>

#include "eval/evaluator.h"
#include "grad/gradients.h"
#include "grad/surrogate.h"
#include "ir/builder.h"

namespace tc {
namespace {

double logistic_slope(double z) {
  double s = 1.0 / (1.0 + std::exp(-z));
  return s * (1.0 - s);
}

Program gated(Semantics sem) {
  // The description's Builder example: select(x > 4, weight * x, 0).
  Builder b(sem, Surrogate::Sigmoid);
  Value x = b.input("x", Domain::float64());
  Value w = b.parameter("weight", 0.0);
  auto p = b.build(b.select(x > 4, w * x, 0));
  EXPECT_TRUE(p.ok());
  return *p;
}

TEST(GradApi, DescriptionBuilderExample) {
  Program p = gated(Semantics::Hybrid);
  auto r = gradients(p, Env{{{"x", 5.0}}, {}, {}});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->result, 0.0);
  EXPECT_EQ(*r->gradient("weight"), 5.0);
  // d/dx = weight (through the chosen branch) + (a - b) * sigmoid'(x - 4) / T;
  // at weight 0 both terms are 0.
  EXPECT_EQ(*r->gradient("x"), 0.0);
  ASSERT_EQ(r->gradients.size(), 2u);
  EXPECT_EQ(r->gradients[0].first, "x");  // node order
  EXPECT_EQ(r->gradients[1].first, "weight");
}

TEST(GradApi, DescriptionExampleWithNonzeroWeightHasSurrogateTerm) {
  Program p = gated(Semantics::Hybrid);
  Env env{{{"x", 5.0}}, {{"weight", 2.0}}, {}};
  auto r = gradients(p, env);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->result, 10.0);
  EXPECT_EQ(*r->gradient("weight"), 5.0);
  // By hand: weight + (w*x - 0) * s(1)(1 - s(1)) = 2 + 10 * 0.19661193324148185.
  EXPECT_NEAR(*r->gradient("x"), 2.0 + 10.0 * 0.19661193324148185, 1e-14);
  EXPECT_NEAR(*r->gradient("x"), 2.0 + 10.0 * logistic_slope(1.0), 1e-14);

  // Temperature 2 halves the argument and divides the slope by 2.
  GradOptions t2;
  t2.temperature = 2.0;
  auto r2 = gradients(p, env, t2);
  ASSERT_TRUE(r2.ok());
  EXPECT_NEAR(*r2->gradient("x"), 2.0 + 10.0 * logistic_slope(0.5) / 2.0, 1e-14);

  // Exact: comparison has zero gradient, select sends g to the chosen branch only.
  GradOptions exact;
  exact.semantics = Semantics::Exact;
  auto e = gradients(p, env, exact);
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(*e->gradient("x"), 2.0);
  EXPECT_EQ(*e->gradient("weight"), 5.0);

  // Relaxed: c = s(x - 4) blends both branches.
  GradOptions relaxed;
  relaxed.semantics = Semantics::Relaxed;
  auto rx = gradients(p, env, relaxed);
  ASSERT_TRUE(rx.ok());
  const double c = 1.0 / (1.0 + std::exp(-1.0));
  EXPECT_NEAR(rx->result, c * 10.0, 1e-14);
  EXPECT_NEAR(*rx->gradient("weight"), c * 5.0, 1e-14);
  EXPECT_NEAR(*rx->gradient("x"), c * 2.0 + 10.0 * logistic_slope(1.0), 1e-14);
}

TEST(GradApi, HybridComparisonUsedAsValueGetsSurrogate) {
  Builder b(Semantics::Hybrid);
  Value x = b.input("x");
  auto p = b.build((x > 4) * 3.0 + x);
  ASSERT_TRUE(p.ok());
  auto r = gradients(*p, Env{{{"x", 4.5}}, {}, {}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->result, 7.5);  // hard forward
  EXPECT_NEAR(*r->gradient("x"), 1.0 + 3.0 * logistic_slope(0.5), 1e-15);
}

TEST(GradApi, HybridFailsOnUndefinedInactiveBranchWhileForwardSucceeds) {
  struct Case {
    const char* what;
    std::function<Value(Builder&, Value)> inactive;
    const char* op;
    const char* message;
  };
  std::vector<Case> cases = {
      {"division by zero", [](Builder&, Value x) { return 1.0 / (x - 5.0); }, "(div)", "division by zero"},
      {"bad index", [](Builder& b, Value x) { return b.gather({1.0, 2.0}, x - 3.0); }, "(gather)",
       "index 2 is out of range"},
      {"non-finite", [](Builder&, Value x) { return x * 4e307; }, "(mul)", "result is infinite"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    Builder b(Semantics::Hybrid);
    Value x = b.input("x", Domain::float64());
    Value bad = c.inactive(b, x);
    const NodeId bad_id = bad.id();
    auto p = b.build(b.select(x > 4, x * 2.0, bad));
    ASSERT_TRUE(p.ok());
    Env env{{{"x", 5.0}}, {}, {}};

    auto ev = Evaluator::create(*p);
    ASSERT_TRUE(ev.ok());
    auto fwd = ev->run(env);
    ASSERT_TRUE(fwd.ok()) << fwd.error().message;
    EXPECT_EQ(fwd->outputs[0], 10.0);

    auto tape = GradientTape::create(*p);
    ASSERT_TRUE(tape.ok());
    double out = 0;
    ASSERT_TRUE(tape->forward(env, std::span<double>(&out, 1)).ok());
    EXPECT_EQ(out, 10.0);

    auto r = tape->run(env);
    ASSERT_FALSE(r.ok());
    const std::string& m = r.error().message;
    EXPECT_NE(m.find("node " + std::to_string(bad_id) + " " + c.op), std::string::npos) << m;
    EXPECT_NE(m.find(c.message), std::string::npos) << m;
    EXPECT_NE(m.find("(select)"), std::string::npos) << m;
    EXPECT_EQ(r.error().node, bad_id);

    // Exact never looks at the inactive branch.
    GradOptions exact;
    exact.semantics = Semantics::Exact;
    auto e = gradients(*p, env, exact);
    ASSERT_TRUE(e.ok()) << e.error().message;
    EXPECT_EQ(*e->gradient("x"), 2.0);
  }
}

TEST(GradApi, HybridInactiveBranchIsNotNeededWhenTheConditionCarriesNoGradient) {
  // The condition depends only on a non-differentiable integer input, so
  // dc = a - b can reach no reported leaf and the inactive branch is not needed.
  Builder b(Semantics::Hybrid);
  Value a = b.input("a", Domain::int32(0, 10));
  Value x = b.input("x");
  auto p = b.build(b.select(a > 4, x * 2.0, 1.0 / (a - 5)));
  ASSERT_TRUE(p.ok());
  auto r = gradients(*p, Env{{{"a", 5.0}, {"x", 1.0}}, {}, {}});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->gradients.size(), 1u);
  EXPECT_EQ(*r->gradient("x"), 2.0);
}

TEST(GradApi, ForwardErrorsMatchTheEvaluator) {
  Builder b(Semantics::Hybrid);
  Value x = b.input("x");
  Value d = 1.0 / (x - 5.0);
  auto p = b.build(b.select(x > 4, d, 0.0));
  ASSERT_TRUE(p.ok());
  Env env{{{"x", 5.0}}, {}, {}};
  auto ev = Evaluator::create(*p);
  auto fwd = ev->run(env);
  ASSERT_FALSE(fwd.ok());
  auto r = gradients(*p, env);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, fwd.error().message);
  EXPECT_EQ(r.error().node, d.id());

  // Env errors read the same as the evaluator's.
  Builder b2;
  Value a = b2.input("a", Domain::int32(0, 9));
  Value f = b2.input("f", Domain::float32(-1, 1));
  Value w = b2.parameter("w", 1.0);
  auto q = b2.build(a * f * w);
  ASSERT_TRUE(q.ok());
  auto ev2 = Evaluator::create(*q);
  for (const Env& bad : {Env{}, Env{{{"a", 1.0}}, {}, {}}, Env{{{"a", 1.0}, {"f", 0.5}, {"y", 2.0}}, {}, {}},
                         Env{{{"a", 1.5}, {"f", 0.5}}, {}, {}}, Env{{{"a", 10.0}, {"f", 0.5}}, {}, {}},
                         Env{{{"a", 1.0}, {"f", 2.0}}, {}, {}}, Env{{{"a", 1.0}, {"f", 0.5}}, {{"v", 1.0}}, {}},
                         Env{{{"a", 1.0}, {"f", 0.5}}, {{"w", NAN}}, {}}}) {
    auto want = ev2->run(bad);
    auto got = gradients(*q, bad);
    ASSERT_FALSE(want.ok());
    ASSERT_FALSE(got.ok());
    EXPECT_EQ(got.error().message, want.error().message);
  }
}

TEST(GradApi, BindingsWithAndWithoutVjp) {
  Bindings bindings;
  bindings["square"] = Binding{[](std::span<const double> a) { return a[0] * a[0]; },
                               [](std::span<const double> a, double) { return std::vector<double>{2.0 * a[0]}; }};
  bindings["twice"] = Binding{[](std::span<const double> a) { return 2.0 * a[0]; }, nullptr};
  bindings["wrong"] = Binding{[](std::span<const double> a) { return a[0] + a[1]; },
                              [](std::span<const double>, double) { return std::vector<double>{1.0}; }};
  GradOptions o;
  o.bindings = &bindings;

  {  // With a VJP: d/dx (x^2 * w) = 2 x w, d/dw = x^2.
    Builder b;
    Value x = b.input("x");
    Value w = b.parameter("w", 3.0);
    auto p = b.build(b.call("square", {x}) * w);
    ASSERT_TRUE(p.ok());
    auto r = gradients(*p, Env{{{"x", 1.5}}, {}, {}}, o);
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_EQ(r->result, 6.75);
    EXPECT_EQ(*r->gradient("x"), 9.0);
    EXPECT_EQ(*r->gradient("w"), 2.25);
  }
  {  // Forward-only on a differentiable path: an error naming the call node, never a zero.
    Builder b;
    Value x = b.input("x");
    Value c = b.call("twice", {x});
    auto p = b.build(c + x);
    ASSERT_TRUE(p.ok());
    auto r = gradients(*p, Env{{{"x", 1.5}}, {}, {}}, o);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("node " + std::to_string(c.id()) + " (call 'twice')"), std::string::npos)
        << r.error().message;
    EXPECT_NE(r.error().message.find("forward-only"), std::string::npos);
    EXPECT_EQ(r.error().node, c.id());
  }
  {  // Forward-only off every differentiable path: fine.
    Builder b;
    Value a = b.input("a", Domain::int32(0, 9));
    Value x = b.input("x");
    auto p = b.build(b.call("twice", {a}) * x);
    ASSERT_TRUE(p.ok());
    auto r = gradients(*p, Env{{{"a", 4.0}, {"x", 1.5}}, {}, {}}, o);
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_EQ(*r->gradient("x"), 8.0);
    // ... and behind an exact comparison, whose derivative is zero by rule.
    Builder b2;
    Value y = b2.input("y");
    auto p2 = b2.build(b2.select(b2.call("twice", {y}) > 1.0, y, 0.0));
    ASSERT_TRUE(p2.ok());
    auto r2 = gradients(*p2, Env{{{"y", 1.5}}, {}, {}}, o);
    ASSERT_TRUE(r2.ok()) << r2.error().message;
    EXPECT_EQ(*r2->gradient("y"), 1.0);
    // The same under hybrid takes part (surrogate of the comparison): an error.
    GradOptions h = o;
    h.semantics = Semantics::Hybrid;
    EXPECT_FALSE(gradients(*p2, Env{{{"y", 1.5}}, {}, {}}, h).ok());
  }
  {  // A VJP with the wrong arity is an error.
    Builder b;
    Value x = b.input("x");
    auto p = b.build(b.call("wrong", {x, x}));
    ASSERT_TRUE(p.ok());
    auto r = gradients(*p, Env{{{"x", 1.0}}, {}, {}}, o);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("returned 1 derivatives for 2 arguments"), std::string::npos);
  }
  {  // A missing binding fails at preparation.
    Builder b;
    Value x = b.input("x");
    auto p = b.build(b.call("nowhere", {x}));
    ASSERT_TRUE(p.ok());
    EXPECT_FALSE(GradientTape::create(*p, o).ok());
  }
}

TEST(GradApi, CallUsesTheVjpInEverySemantics) {
  Bindings bindings;
  bindings["cube"] = Binding{[](std::span<const double> a) { return a[0] * a[0] * a[0] + a[1]; },
                             [](std::span<const double> a, double) {
                               return std::vector<double>{3.0 * a[0] * a[0], 1.0};
                             }};
  Builder b;
  Value x = b.input("x");
  Value y = b.input("y");
  auto p = b.build(b.call("cube", {x, y * 2.0}));
  ASSERT_TRUE(p.ok());
  for (auto sem : {Semantics::Exact, Semantics::Relaxed, Semantics::Hybrid}) {
    GradOptions o;
    o.bindings = &bindings;
    o.semantics = sem;
    auto r = gradients(*p, Env{{{"x", 2.0}, {"y", 0.5}}, {}, {}}, o);
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_EQ(r->result, 9.0);
    EXPECT_EQ(*r->gradient("x"), 12.0);
    EXPECT_EQ(*r->gradient("y"), 2.0);
  }
}

TEST(GradApi, IncludedNodesKeepTheirSemanticsAndTemperature) {
  Builder rules(Semantics::Relaxed, Surrogate::Sigmoid, 2.0);
  Value a = rules.input("a");
  auto algorithm = rules.build(rules.select(a > 4, 10, 12));
  ASSERT_TRUE(algorithm.ok());
  Builder b;  // exact root
  Value x = b.input("x");
  auto region = b.include(*algorithm, {{"a", x}}, "algorithm");
  auto p = b.build(region.at("result") + b.select(x > 4, x, 0.0));
  ASSERT_TRUE(p.ok());
  const double c = 1.0 / (1.0 + std::exp(-0.5));  // relaxed at T = 2, x = 5
  for (auto sem : {Semantics::Exact, Semantics::Hybrid}) {
    GradOptions o;
    o.semantics = sem;
    o.temperature = 7.0;  // replaces the root only
    auto r = gradients(*p, Env{{{"x", 5.0}}, {}, {}}, o);
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_NEAR(r->result, c * 10.0 + (1 - c) * 12.0 + 5.0, 1e-13);
    // Region: d/dx = (10 - 12) * s'(0.5) / 2; root select: 1, plus under
    // hybrid the surrogate (x - 0) * s'((5 - 4) / 7) / 7.
    double want = -2.0 * logistic_slope(0.5) / 2.0 + 1.0;
    if (sem == Semantics::Hybrid) want += 5.0 * logistic_slope(1.0 / 7.0) / 7.0;
    EXPECT_NEAR(*r->gradient("x"), want, 1e-13);
  }
}

TEST(GradApi, Float32ForwardRoundsEveryNodeGradientsInBinary64) {
  Builder b(Semantics::Exact, Surrogate::Sigmoid, 1.0, Dtype::Float32);
  Value x = b.input("x");
  auto p = b.build(x * 0.1 + x * x);
  ASSERT_TRUE(p.ok());
  const double x0 = 1.3;
  auto r = gradients(*p, Env{{{"x", x0}}, {}, {}});
  ASSERT_TRUE(r.ok());
  const float xf = static_cast<float>(x0);
  const float want = static_cast<float>(xf * 0.1f) + static_cast<float>(xf * xf);
  EXPECT_EQ(r->result, static_cast<double>(want));
  // The derivative uses the binary32 values, accumulated in binary64.
  EXPECT_EQ(*r->gradient("x"), static_cast<double>(0.1f) + 2.0 * static_cast<double>(xf));
  auto ev = Evaluator::create(*p);
  EXPECT_EQ(ev->run(Env{{{"x", x0}}, {}, {}})->outputs[0], r->result);
}

TEST(GradApi, ReluAtZeroAndSigmoidTailsThroughChains) {
  Builder b;
  Value x = b.input("x");
  auto p = b.build(b.relu(x) + b.sigmoid(x * 800.0));
  ASSERT_TRUE(p.ok());
  for (double x0 : {0.0, 1.0, -1.0}) {
    auto r = gradients(*p, Env{{{"x", x0}}, {}, {}});
    ASSERT_TRUE(r.ok());
    EXPECT_TRUE(std::isfinite(*r->gradient("x")));
    EXPECT_EQ(*r->gradient("x"), x0 > 0 ? 1.0 : x0 == 0 ? 800.0 * 0.25 : 0.0);
  }
  EXPECT_EQ(sigmoid_slope(800.0), 0.0);
  EXPECT_EQ(sigmoid_slope(-800.0), 0.0);
  EXPECT_EQ(sigmoid_slope(0.0), 0.25);
}

TEST(GradApi, OutputSelectionAndNonDifferentiableLeaves) {
  Builder b;
  Value x = b.input("x");
  Value a = b.input("a", Domain::int32(0, 3));  // not differentiable
  Value w = b.parameter("w", 2.0);
  auto p = b.build({{"first", x * a}, {"result", w * x}, {"last", x + w}});
  ASSERT_TRUE(p.ok());
  Env env{{{"x", 3.0}, {"a", 2.0}}, {}, {}};
  auto r = gradients(*p, env);  // defaults to "result"
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->result, 6.0);
  EXPECT_EQ(r->gradients.size(), 2u);
  EXPECT_FALSE(r->gradient("a"));
  GradOptions last;
  last.output = "last";
  auto l = gradients(*p, env, last);
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(*l->gradient("w"), 1.0);
  last.output = "nope";
  auto bad = gradients(*p, env, last);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("no output 'nope'"), std::string::npos);
  // Parameters can be overridden; a frozen parameter is a constant and not reported.
  auto over = gradients(*p, Env{{{"x", 3.0}, {"a", 2.0}}, {{"w", 5.0}}, {}});
  EXPECT_EQ(over->result, 15.0);
  auto frozen = freeze(*p, {"w"});
  ASSERT_TRUE(frozen.ok());
  auto fr = gradients(*frozen, env);
  ASSERT_TRUE(fr.ok());
  EXPECT_FALSE(fr->gradient("w"));
  EXPECT_EQ(*fr->gradient("x"), 2.0);
}

TEST(GradApi, NonFiniteGradientIsAnError) {
  // Finite forward, but the slope 1/x^2-like blows up: d/dx (1/x) at 1e-160.
  Builder b;
  Value x = b.input("x");
  auto p = b.build(1.0 / x);
  ASSERT_TRUE(p.ok());
  auto r = gradients(*p, Env{{{"x", 1e-160}}, {}, {}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "the gradient with respect to input 'x' is infinite");
  EXPECT_TRUE(gradients(*p, Env{{{"x", 1e-100}}, {}, {}}).ok());
}

TEST(GradApi, StateIsAnInputToTheOutputButNeverReported) {
  Builder b;
  Value x = b.input("x");
  Value count = b.state("count", 2, Domain::int32(0, 100));
  b.update(count, count + 1);
  auto p = b.build(x * count);
  ASSERT_TRUE(p.ok());
  auto r = gradients(*p, Env{{{"x", 1.5}}, {}, {}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->result, 3.0);
  EXPECT_EQ(*r->gradient("x"), 2.0);
  EXPECT_FALSE(r->gradient("count"));
  auto s = gradients(*p, Env{{{"x", 1.5}}, {}, {{"count", 7.0}}});
  EXPECT_EQ(*s->gradient("x"), 7.0);
  auto bad = gradients(*p, Env{{{"x", 1.5}}, {}, {{"count", 700.0}}});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("state 'count'"), std::string::npos);
}

TEST(GradApi, TapeWithSeveralOutputsAndSeeds) {
  Builder b;
  Value x = b.input("x");
  Value w = b.parameter("w", 3.0);
  auto p = b.build({{"a", w * x}, {"b", w + x}});
  ASSERT_TRUE(p.ok());
  auto tape = GradientTape::create(*p, {"b", "a"}, GradOptions{});
  ASSERT_TRUE(tape.ok());
  EXPECT_EQ(tape->outputs(), (std::vector<std::string>{"b", "a"}));
  std::vector<double> seeds{10.0, 1.0}, outs(2), grads(2);
  ASSERT_TRUE(tape->backward(Env{{{"x", 2.0}}, {}, {}}, seeds, outs, grads).ok());
  EXPECT_EQ(outs, (std::vector<double>{5.0, 6.0}));
  EXPECT_EQ(grads[0], 10.0 * 1.0 + 1.0 * 3.0);  // d/dx
  EXPECT_EQ(grads[1], 10.0 * 1.0 + 1.0 * 2.0);  // d/dw
  // reverse() without a successful forward is refused.
  Status s = tape->forward(Env{}, outs);
  EXPECT_FALSE(s.ok());
  EXPECT_FALSE(tape->reverse(seeds, grads).ok());
}

TEST(GradApi, DeepChainsNeedNoRecursion) {
  // 100,000 nodes in one dependency chain, with a hybrid select every 1000
  // steps: both passes are loops, so depth cannot overflow the stack.
  Builder b(Semantics::Hybrid);
  Value x = b.input("x");
  Value v = x;
  for (int k = 1; k < 50000; ++k) v = (k % 1000 == 0) ? b.select(v > -1e9, v, 0.0) : v * 1.0;
  auto p = b.build(v);
  ASSERT_TRUE(p.ok());
  EXPECT_GT(p->nodes.size(), 99000u);
  auto r = gradients(*p, Env{{{"x", 2.0}}, {}, {}});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->result, 2.0);
  // 1 through the values; the selects' surrogate slopes vanish this far in the tail.
  EXPECT_EQ(*r->gradient("x"), 1.0);
}

TEST(GradApi, GradientCheckApi) {
  Builder b;
  Value x = b.input("x");
  Value w = b.parameter("w", 0.5);
  auto p = b.build(b.sigmoid(w * x) * x / (1.0 + x * x));
  ASSERT_TRUE(p.ok());
  auto rep = gradient_check(*p, Env{{{"x", 0.7}}, {}, {}});
  ASSERT_TRUE(rep.ok()) << rep.error().message;
  EXPECT_LT(rep->max_rel_diff, 1e-8);
  ASSERT_EQ(rep->finite_differences.size(), 2u);
  EXPECT_NEAR(rep->finite_differences[1].second, rep->gradients[1].second, 1e-8);

  // Hybrid gradients deliberately differ from finite differences of the hard forward.
  Program g = gated(Semantics::Hybrid);
  auto h = gradient_check(g, Env{{{"x", 5.0}}, {{"weight", 2.0}}, {}});
  ASSERT_TRUE(h.ok());
  EXPECT_NEAR(h->max_rel_diff, 10.0 * logistic_slope(1.0) / (2.0 + 10.0 * logistic_slope(1.0)), 1e-6);
}

}  // namespace
}  // namespace tc
