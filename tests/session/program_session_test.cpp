// ProgramSession: evaluators and tapes kept per dtype, plan and output,
// failures not kept, per-call policies and re-entrant calls served by a tape
// of their own, and results equal to preparing each piece by hand.
#include "session/program_session.h"

#include <gtest/gtest.h>

#include <bit>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <thread>

#include "ir/builder.h"

namespace tc {
namespace {

/// result = x * x + 3 * y (hybrid: select on x > y), and a second output.
Program two_outputs() {
  Builder b(Semantics::Hybrid);
  Value x = b.input("x");
  Value y = b.input("y");
  Value result = b.select(x > y, x * x, 3.0 * y);
  Value other = x - y;
  return b.build({{"result", result}, {"other", other}}).value();
}

Env at(double x, double y) {
  Env env;
  env.inputs = {{"x", x}, {"y", y}};
  return env;
}

TEST(ProgramSession, KeepsOneEvaluatorPerDtypeAndPlan) {
  ProgramSession s(two_outputs());
  Evaluator* a = s.evaluator().value();
  EXPECT_EQ(s.evaluator().value(), a) << "the same evaluator on the second call";
  Evaluator* f32 = s.evaluator(Dtype::Float32).value();
  Evaluator* f64 = s.evaluator(Dtype::Float64).value();
  Evaluator* interp = s.evaluator(std::nullopt, EvalPlan::Interpreter).value();
  EXPECT_NE(f32, a);
  EXPECT_NE(f64, a) << "an explicit float64 is a slot of its own (its options differ)";
  EXPECT_NE(interp, a);
  EXPECT_EQ(s.evaluator(Dtype::Float32).value(), f32);
  // The results are the evaluator's own.
  auto mine = a->run(at(2, 1));
  auto fresh = Evaluator::create(s.program()).value().run(at(2, 1));
  ASSERT_TRUE(mine.ok() && fresh.ok());
  EXPECT_EQ(mine->outputs, fresh->outputs);
}

TEST(ProgramSession, PlanStatusNamesTheEvaluatorUsedLast) {
  ProgramSession s(two_outputs());
  auto first = s.plan_status();
  ASSERT_TRUE(first.ok()) << first.error().message;
  (void)s.evaluator(std::nullopt, EvalPlan::Interpreter).value();
  auto st = s.plan_status();
  ASSERT_TRUE(st.ok());
  EXPECT_FALSE(st->compiled);
  EXPECT_NE(st->summary.find("interpreter was chosen"), std::string::npos) << st->summary;
}

/// The IDE's runs carry the panel's semantics and temperature: a policy that
/// changes nothing uses the program's evaluator, another keeps one of its
/// own until a third replaces it, and each answers as a fresh evaluator of
/// the program with the policy laid over it.
TEST(ProgramSession, APolicyGetsTheEvaluatorOfThatPolicy) {
  auto shared = std::make_shared<const Program>(two_outputs());
  ProgramSession s(shared);
  EXPECT_EQ(&s.program(), shared.get()) << "a shared program is not copied";
  Evaluator* own = s.evaluator(std::nullopt, EvalPlan::Interpreter).value();
  EXPECT_EQ(s.evaluator(Policy{.semantics = Semantics::Hybrid}, EvalPlan::Interpreter).value(), own)
      << "the program's own semantics changes nothing";
  const Policy relaxed{.semantics = Semantics::Relaxed, .temperature = 0.5};
  Evaluator* r = s.evaluator(relaxed, EvalPlan::Interpreter).value();
  EXPECT_NE(r, own);
  EXPECT_EQ(s.evaluator(relaxed, EvalPlan::Interpreter).value(), r) << "kept while the policy stays";
  auto mine = r->run(at(2, 1));
  auto fresh = Evaluator::create(with_policy(*shared, relaxed)).value().run(at(2, 1));
  ASSERT_TRUE(mine.ok() && fresh.ok());
  EXPECT_EQ(mine->outputs, fresh->outputs);
  auto exact = own->run(at(2, 1));
  ASSERT_TRUE(exact.ok());
  EXPECT_NE(mine->outputs, exact->outputs) << "the relaxed select blends its branches";
  const Policy cooler{.semantics = Semantics::Relaxed, .temperature = 0.25};
  auto again = s.evaluator(cooler, EvalPlan::Interpreter).value()->run(at(2, 1));
  auto fresh2 = Evaluator::create(with_policy(*shared, cooler)).value().run(at(2, 1));
  ASSERT_TRUE(again.ok() && fresh2.ok());
  EXPECT_EQ(again->outputs, fresh2->outputs) << "another temperature replaced the kept evaluator";
  auto bad = s.evaluator(Policy{.temperature = -1.0}, EvalPlan::Interpreter);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("temperature"), std::string::npos) << bad.error().message;
}

TEST(ProgramSession, AFailedPreparationIsNotKept) {
  Builder b;
  Value x = b.input("x");
  Program p = b.build(b.call("missing", {x})).value();
  ProgramSession s(p);
  auto ev = s.evaluator();
  ASSERT_FALSE(ev.ok());
  EXPECT_NE(ev.error().message.find("missing"), std::string::npos) << ev.error().message;
  ASSERT_FALSE(s.evaluator().ok()) << "asked again, it fails again";
  EXPECT_FALSE(s.plan_status().ok());
}

TEST(ProgramSession, KeepsOneTapePerOutputAndAgreesWithAFreshOne) {
  ProgramSession s(two_outputs());
  GradientTape* r = s.tape("result").value();
  EXPECT_EQ(s.tape("result").value(), r);
  GradientTape* o = s.tape("other").value();
  EXPECT_NE(o, r);
  EXPECT_FALSE(s.tape("nope").ok());
  for (auto [x, y] : {std::pair{2.0, 1.0}, std::pair{0.5, 1.0}}) {
    GradOptions options;
    options.output = "result";
    auto kept = s.gradients(at(x, y), options);
    auto fresh = tc::gradients(s.program(), at(x, y), options);
    ASSERT_TRUE(kept.ok() && fresh.ok());
    EXPECT_EQ(kept->result, fresh->result);
    EXPECT_EQ(kept->gradients, fresh->gradients);
  }
  GradientTape* all = s.all_outputs_tape().value();
  EXPECT_EQ(s.all_outputs_tape().value(), all);
  EXPECT_EQ(all->leaves().size(), 2u);
}

TEST(ProgramSession, APolicyOfTheCallsOwnDoesNotTouchTheKeptTape) {
  ProgramSession s(two_outputs());
  GradOptions relaxed;
  relaxed.semantics = Semantics::Relaxed;
  relaxed.temperature = 0.5;
  auto mine = s.gradients(at(2, 1), relaxed);
  auto fresh = tc::gradients(s.program(), at(2, 1), relaxed);
  ASSERT_TRUE(mine.ok() && fresh.ok());
  EXPECT_EQ(mine->gradients, fresh->gradients);
  // The kept tape still has the program's own (hybrid) policy.
  auto hybrid = s.gradients(at(2, 1), GradOptions{});
  auto fresh_hybrid = tc::gradients(s.program(), at(2, 1));
  ASSERT_TRUE(hybrid.ok() && fresh_hybrid.ok());
  EXPECT_EQ(hybrid->gradients, fresh_hybrid->gradients);
  EXPECT_NE(hybrid->gradients, mine->gradients);
}

TEST(ProgramSession, ABindingThatDifferentiatesItsOwnProgramGetsATapeOfItsOwn) {
  // f(x) = x * 3 (vjp 3); the binding also differentiates the outer program
  // through the same session while the kept tape is running.
  auto bindings = std::make_shared<Bindings>();
  ProgramSession* session = nullptr;
  int inner_calls = 0;
  (*bindings)["f"].forward = [&](std::span<const double> a) {
    if (session && session->differentiating() && inner_calls++ == 0) {
      auto inner = session->gradients(at(a[0], 0), GradOptions{});
      EXPECT_TRUE(inner.ok()) << (inner.ok() ? "" : inner.error().message);
    }
    return a[0] * 3;
  };
  (*bindings)["f"].vjp = [](std::span<const double>, double) { return std::vector<double>{3.0}; };
  Builder b;
  Value x = b.input("x");
  Value y = b.input("y");
  Program p = b.build(b.call("f", {x}) + y).value();
  ProgramSession s(p, bindings);
  session = &s;
  auto g = s.gradients(at(2, 1), GradOptions{});
  ASSERT_TRUE(g.ok()) << g.error().message;
  EXPECT_EQ(g->result, 7.0);
  EXPECT_EQ(inner_calls, 2) << "the outer run's call, then the inner run's (which does not recurse again)";
  EXPECT_FALSE(s.differentiating()) << "the flag is cleared after the run";
}

TEST(ProgramSession, BatchTapesAreKeptPerOutputAndOutliveTheSession) {
  // g(x) = x + 1 through a host function, so a tape kept past the session
  // also needs the bindings alive.
  auto bindings = std::make_shared<Bindings>();
  std::weak_ptr<Bindings> watch = bindings;
  (*bindings)["g"].forward = [](std::span<const double> a) { return a[0] + 1; };
  (*bindings)["g"].vjp = [](std::span<const double>, double) { return std::vector<double>{1.0}; };
  Builder b;
  Value x = b.input("x");
  Value y = b.input("y");
  Program p = b.build({{"result", b.call("g", {x}) * y}, {"other", x - y}}).value();
  std::shared_ptr<BatchGradientTape> every, kept;
  {
    auto s = std::make_unique<ProgramSession>(p, std::move(bindings));
    every = s->batch_tape("").value();
    EXPECT_EQ(s->batch_tape("").value(), every) << "the same tape on the second call";
    EXPECT_EQ(every->outputs(), (std::vector<std::string>{"result", "other"}));
    kept = s->batch_tape("other").value();
    EXPECT_NE(kept, every);
    EXPECT_EQ(kept->outputs(), std::vector<std::string>{"other"});
    EXPECT_FALSE(s->batch_tape("nope").ok()) << "an unknown output is refused, not kept";
  }
  EXPECT_FALSE(watch.expired()) << "the tapes keep the bindings they call";
  const std::vector<double> xs{1, 2, 3}, ys{4, 5, 6};
  const std::vector<std::span<const double>> cols{xs, ys};
  std::vector<double> out(2 * xs.size());
  ASSERT_TRUE(every->forward(cols, xs.size(), Env{}, out, nullptr));
  EXPECT_EQ(out, (std::vector<double>{8, 15, 24, -3, -3, -3}));
  every.reset();
  kept.reset();
  EXPECT_TRUE(watch.expired()) << "and let them go with the last tape";
}

/// A branchy chain with a division, a parameter and a bounded input:
/// some cases fail (the domain, a zero divisor).
Program branchy_chain() {
  Builder b(Semantics::Hybrid);
  Value x = b.input("x", Domain::float64(-3, 3));
  Value y = b.input("y", Domain::float64(-3, 3));
  Value w = b.parameter("w", 0.5);
  Value s = b.constant(0.25);
  for (int i = 0; i < 30; ++i) s = b.select(x * w > s, s + y * (0.5 + i), s - x / (y - 0.5 * (i % 3)));
  return b.build(s * w).value();
}

std::uint64_t bits(double v) { return std::bit_cast<std::uint64_t>(v); }

// gradients() runs one case through the batched tape's compiled plan:
// under Auto once the output's batched tape has its plan loaded (the
// compiled lanes grow with the calls), under Compiled from the first call,
// never under Interpreter; values, gradients and errors are the per-case
// tape's, bit for bit, failing cases included.
TEST(ProgramSession, SingleCaseGradientsRunTheCompiledPlanAndAgreeBitForBit) {
  setenv("TC_CACHE_DIR", (std::filesystem::temp_directory_path() / "tc-batch-grad-plan-test-cache").c_str(), 1);
  setenv("TC_PLAN_COMPILE_AFTER", "0", 1);
  const Program p = branchy_chain();
  ProgramSession s(p);
  auto bt = s.batch_tape("result");
  ASSERT_TRUE(bt.ok()) << bt.error().message;
  // The bridge's batched calls make the Auto plan due; it compiles in the
  // background and is taken at a later call.
  std::vector<double> xs(64, 0.5), ys(64, 1.25), out(64);
  const std::vector<std::span<const double>> cols{xs, ys};
  for (int k = 0; k < 2000 && !(*bt)->compiled(); ++k) {
    ASSERT_TRUE((*bt)->forward(cols, 64, {}, out, nullptr).ok());
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  unsetenv("TC_PLAN_COMPILE_AFTER");
  ASSERT_TRUE((*bt)->compiled()) << (*bt)->plan_status().summary;
  auto reference = GradientTape::create(p);
  ASSERT_TRUE(reference.ok());
  std::mt19937_64 rng(9);
  for (EvalPlan plan : {EvalPlan::Auto, EvalPlan::Compiled, EvalPlan::Interpreter}) {
    SCOPED_TRACE(static_cast<int>(plan));
    const std::uint64_t before = (*bt)->plan_status().compiled_cases;
    int ok = 0, failed = 0;
    for (int c = 0; c < 300; ++c) {
      Env env = at(std::uniform_real_distribution<double>(-3.5, 3.5)(rng), std::uniform_real_distribution<double>(-3, 3)(rng));
      if (c % 10 == 3) env.inputs["y"] = 0.5;  // a zero divisor where that branch is taken
      env.params["w"] = std::uniform_real_distribution<double>(-1, 1)(rng);
      GradOptions o;
      o.plan = plan;
      auto got = s.gradients(env, o);
      auto want = reference->run(env);
      ASSERT_EQ(got.ok(), want.ok()) << (got.ok() ? want.error().message : got.error().message);
      if (!want.ok()) {
        EXPECT_EQ(got.error().message, want.error().message);
        ++failed;
        continue;
      }
      ++ok;
      EXPECT_EQ(bits(got->result), bits(want->result));
      ASSERT_EQ(got->gradients.size(), want->gradients.size());
      for (std::size_t k = 0; k < want->gradients.size(); ++k) {
        EXPECT_EQ(got->gradients[k].first, want->gradients[k].first);
        EXPECT_EQ(bits(got->gradients[k].second), bits(want->gradients[k].second)) << got->gradients[k].first;
      }
    }
    EXPECT_GT(ok, 150);
    EXPECT_GT(failed, 10);
    const std::uint64_t ran = (*bt)->plan_status().compiled_cases - before;
    // Auto: this output's batched tape ran the cases (one lane each);
    // Compiled: a tape of its own; Interpreter: none.
    if (plan == EvalPlan::Auto) EXPECT_GE(ran, static_cast<std::uint64_t>(ok));
    else EXPECT_EQ(ran, 0u);
  }
}

TEST(ProgramSession, AnalyzeOptimizeAndScheduleAreThePassesOnItsProgram) {
  Builder b;
  Value x = b.input("x", Domain::float64(-2, 3));
  Value w = b.parameter("w", 4.0);
  Value y = (x * w) + b.constant(2.0) * b.constant(3.0);
  const Program program = b.build({{"y", y}}).value();
  auto bindings = std::make_shared<Bindings>();
  const ProgramSession s(program, bindings);

  auto a = s.analyze();
  auto direct = analyze(program);
  ASSERT_TRUE(a.ok() && direct.ok());
  ASSERT_EQ(a->intervals.size(), direct->intervals.size());
  for (std::size_t k = 0; k < a->intervals.size(); ++k) EXPECT_EQ(a->intervals[k], direct->intervals[k]) << k;
  EXPECT_EQ(a->output(s.program(), "y").lo, -2.0);
  EXPECT_EQ(a->output(s.program(), "y").hi, 18.0);
  AnalyzeOptions at_one;
  at_one.params = {{"w", 1.0}};
  const Interval y1 = s.analyze(at_one)->output(s.program(), "y");
  EXPECT_EQ(y1.lo, 4.0) << "the parameter value asked for";
  EXPECT_EQ(y1.hi, 9.0);

  auto o = s.optimize();
  auto o_direct = optimize(program);
  ASSERT_TRUE(o.ok() && o_direct.ok());
  EXPECT_EQ(o->stats.nodes_after, o_direct->stats.nodes_after);
  EXPECT_LT(o->stats.nodes_after, o->stats.nodes_before) << "2 * 3 folded";
  const ProgramSession next = s.derived(std::move(o->program));
  EXPECT_EQ(next.bindings(), s.bindings()) << "the optimized program's calls are served as before";
  EXPECT_EQ(next.program().nodes.size(), o->stats.nodes_after);

  auto sched = s.schedule();
  ASSERT_TRUE(sched.ok());
  EXPECT_EQ(sched->layer_of, schedule(program)->layer_of);
}

}  // namespace
}  // namespace tc
