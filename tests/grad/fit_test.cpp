// Training through the API: the description's learned-correction example,
// Adam, multiple cases and failure reporting.
#include <bit>
#include <cmath>
#include <cstdint>

#include <gtest/gtest.h>

#include "eval/evaluator.h"
#include "grad/fit.h"
#include "ir/builder.h"
#include "support/examples.h"

namespace tc {
namespace {

TEST(GradFit, DescriptionLearnedCorrectionOneSgdStep) {
  Program p = examples::learned_correction();
  FitOptions o;
  o.targets = {"result"};
  o.optimizer = Optimizer::Sgd;
  o.learning_rate = 0.01;
  o.steps = 1;
  std::vector<FitCase> cases = {{Env{{{"x", 5.0}}, {}, {}}, {11.0}}};
  auto r = fit(p, cases, o);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->parameters.size(), 1u);
  EXPECT_EQ(r->parameters[0].first, "correction");
  // d/dcorrection (out - 11)^2 = 2 (10 - 11) * 5 = -10; 0 - 0.01 * -10 = 0.1.
  EXPECT_DOUBLE_EQ(r->parameters[0].second, 0.1);
  EXPECT_EQ(r->initial_loss, 1.0);
  EXPECT_DOUBLE_EQ(r->final_loss, 0.25);

  auto before = Evaluator::create(p)->run(Env{{{"x", 5.0}}, {}, {}});
  auto after = Evaluator::create(r->program)->run(Env{{{"x", 5.0}}, {}, {}});
  EXPECT_EQ(before->outputs[0], 10.0);
  EXPECT_DOUBLE_EQ(after->outputs[0], 10.5);

  // Only the parameter's value changed: comparison and constants are fixed.
  Program expected = p;
  for (Node& n : expected.nodes)
    if (n.op == Op::Parameter) n.value = r->parameters[0].second;
  EXPECT_EQ(r->program, expected);
}

TEST(GradFit, AdamConvergesOnALine) {
  Builder b;
  Value x = b.input("x");
  Value w = b.parameter("w", 0.0);
  Value c = b.parameter("c", 0.0);
  auto p = b.build(w * x + c);
  ASSERT_TRUE(p.ok());
  std::vector<FitCase> cases;
  for (double xv : {-2.0, -1.0, 0.0, 1.0, 2.0}) cases.push_back({Env{{{"x", xv}}, {}, {}}, {3.0 * xv - 1.0}});
  FitOptions o;
  o.targets = {"result"};
  o.optimizer = Optimizer::Adam;
  o.learning_rate = 0.05;
  o.steps = 2000;
  auto r = fit(*p, cases, o);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_GT(r->initial_loss, 1.0);
  EXPECT_LT(r->final_loss, 1e-6);
  EXPECT_NEAR(r->parameters[0].second, 3.0, 1e-3);
  EXPECT_NEAR(r->parameters[1].second, -1.0, 1e-3);

  // The loss is averaged over cases: SGD on the same data from 0 moves w by
  // lr * (2/N) sum (3x - 1) x... = lr * 2 * 30 / 5.
  o.optimizer = Optimizer::Sgd;
  o.learning_rate = 0.01;
  o.steps = 1;
  auto s = fit(*p, cases, o);
  ASSERT_TRUE(s.ok());
  EXPECT_NEAR(s->parameters[0].second, 0.01 * 2.0 * 30.0 / 5.0, 1e-15);
}

TEST(GradFit, HybridSurrogateMovesAThreshold) {
  // step(x) = 1 if x > t else 0: exact gives t no gradient, hybrid does.
  Builder b;
  Value x = b.input("x");
  Value t = b.parameter("t", 0.0);
  auto p = b.build(b.select(x > t, 1.0, 0.0));
  ASSERT_TRUE(p.ok());
  // The data says the step is at 2: x = 1 should give 0, x = 3 should give 1.
  std::vector<FitCase> cases = {{Env{{{"x", 1.0}}, {}, {}}, {0.0}}, {Env{{{"x", 3.0}}, {}, {}}, {1.0}}};
  FitOptions o;
  o.targets = {"result"};
  o.learning_rate = 0.5;
  o.steps = 200;
  auto exact = fit(*p, cases, o);
  ASSERT_TRUE(exact.ok());
  EXPECT_EQ(exact->parameters[0].second, 0.0);
  EXPECT_EQ(exact->final_loss, 0.5);
  o.grad.semantics = Semantics::Hybrid;
  auto hybrid = fit(*p, cases, o);
  ASSERT_TRUE(hybrid.ok()) << hybrid.error().message;
  EXPECT_GT(hybrid->parameters[0].second, 1.0);
  EXPECT_LT(hybrid->parameters[0].second, 3.0);
  EXPECT_EQ(hybrid->final_loss, 0.0);
  EXPECT_EQ(hybrid->program.semantics, Semantics::Exact);  // training policy is not saved
}

TEST(GradFit, TwoTargetsAddTheirLosses) {
  Builder b;
  Value x = b.input("x");
  Value w = b.parameter("w", 0.0);
  auto p = b.build({{"u", w * x}, {"v", w + x}});
  ASSERT_TRUE(p.ok());
  FitOptions o;
  o.targets = {"u", "v"};
  o.learning_rate = 0.1;
  o.steps = 1;
  auto r = fit(*p, {{Env{{{"x", 2.0}}, {}, {}}, {4.0, 1.0}}}, o);
  ASSERT_TRUE(r.ok());
  // L = (2w - 4)^2 + (w + 2 - 1)^2 = 16 + 1 at w = 0; dL/dw = 2(2w-4)*2 + 2(w+1) = -14.
  EXPECT_EQ(r->initial_loss, 17.0);
  EXPECT_DOUBLE_EQ(r->parameters[0].second, 1.4);
}

TEST(GradFit, FailingCaseIsReported) {
  Builder b;
  Value x = b.input("x");
  Value w = b.parameter("w", 1.0);
  auto p = b.build(w / x);
  ASSERT_TRUE(p.ok());
  std::vector<FitCase> cases = {{Env{{{"x", 1.0}}, {}, {}}, {1.0}}, {Env{{{"x", 0.0}}, {}, {}}, {1.0}}};
  FitOptions o;
  o.targets = {"result"};
  std::size_t failed = 99;
  auto r = fit(*p, cases, o, &failed);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(failed, 1u);
  EXPECT_NE(r.error().message.find("division by zero"), std::string::npos);
  o.targets = {"nope"};
  EXPECT_FALSE(fit(*p, cases, o).ok());
  // Nothing to train is an error, not a silent no-op.
  auto frozen = freeze(*p);
  ASSERT_TRUE(frozen.ok());
  o.targets = {"result"};
  auto none = fit(*frozen, {cases[0]}, o);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().message, "the program has no differentiable parameters to train");
}

// Fit spreads the cases over threads but sums losses and gradients in case
// order: any thread count gives the same parameters, bit for bit, and the
// same first failing case.
TEST(GradFit, ThreadCountDoesNotChangeTheResult) {
  Builder b;
  Value x = b.input("x", Domain::float64(-10, 10));
  Value w = b.parameter("w", 0.3);
  Value c = b.parameter("c", -0.2);
  auto p = b.build(b.select(x > 1, w * x + c, b.sigmoid(w * x) - c * x));
  ASSERT_TRUE(p.ok());
  std::vector<FitCase> cases;
  for (int i = 0; i < 9000; ++i) {
    const double xv = -10 + 20.0 * ((i * 7919) % 9000) / 9000.0;
    cases.push_back({Env{{{"x", xv}}, {}, {}}, {0.5 * xv + 0.25 + 0.001 * (i % 13)}});
  }
  FitOptions o;
  o.targets = {"result"};
  o.optimizer = Optimizer::Adam;
  o.learning_rate = 0.05;
  o.steps = 4;
  o.threads = 1;
  auto one = fit(*p, cases, o);
  ASSERT_TRUE(one.ok()) << one.error().message;
  for (unsigned threads : {2u, 3u, 0u}) {
    o.threads = threads;
    auto many = fit(*p, cases, o);
    ASSERT_TRUE(many.ok()) << many.error().message;
    EXPECT_EQ(std::bit_cast<std::uint64_t>(many->initial_loss), std::bit_cast<std::uint64_t>(one->initial_loss));
    EXPECT_EQ(std::bit_cast<std::uint64_t>(many->final_loss), std::bit_cast<std::uint64_t>(one->final_loss));
    ASSERT_EQ(many->parameters.size(), one->parameters.size());
    for (std::size_t k = 0; k < one->parameters.size(); ++k)
      EXPECT_EQ(std::bit_cast<std::uint64_t>(many->parameters[k].second),
                std::bit_cast<std::uint64_t>(one->parameters[k].second))
          << threads << " threads, " << one->parameters[k].first;
  }
  // The first failing case (in case order) is the one reported.
  cases[6001].env.inputs["x"] = 50;  // outside the domain
  cases[7002].env.inputs["x"] = 60;
  for (unsigned threads : {1u, 2u, 0u}) {
    o.threads = threads;
    std::size_t failed = 0;
    auto r = fit(*p, cases, o, &failed);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(failed, 6001u) << threads << " threads";
    EXPECT_EQ(r.error().message, "input 'x': 50 is above the maximum 10");
  }
}

}  // namespace
}  // namespace tc
