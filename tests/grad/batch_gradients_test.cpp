// The batched reverse pass against the per-case tape: on random programs in
// exact, relaxed and hybrid semantics (float64 and float32), every case's
// value, error, input gradients and the parameter sums are bit for bit what
// GradientTape gives case by case, on one thread and on two, with failures
// masked or stopping the call.
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <random>
#include <thread>

#include <gtest/gtest.h>
#include <unistd.h>

#include "grad/batch_gradients.h"
#include "grad/gradients.h"
#include "grad_test_util.h"
#include "ir/builder.h"

namespace tc {
namespace {

std::uint64_t bits(double v) { return std::bit_cast<std::uint64_t>(v); }

/// What the per-case tape gives for one case.
struct Expected {
  bool forward_ok = false, reverse_ok = false;
  std::string message;  ///< the failure, forward or reverse
  double value = 0;
  std::vector<double> grads;  ///< per leaf
};

struct Tally {
  int cases = 0, forward_failures = 0, reverse_failures = 0, programs = 0, blocks = 0;
  /// Programs whose blocks ran the compiled plan (GradOptions::plan), the
  /// lanes it ran and those it handed back to the per-case code.
  int compiled = 0;
  std::uint64_t compiled_cases = 0, handed_back = 0;
};

using EnvMaker = Env (*)(std::mt19937_64&, const Program&);

void compare_batch(const Program& p, std::mt19937_64& rng, std::size_t count, Tally& tally,
                   EnvMaker make_env = test::random_env, const GradOptions& options = {}) {
  auto tape = GradientTape::create(p, std::vector<std::string>{"result"}, options);
  ASSERT_TRUE(tape.ok()) << tape.error().message;
  auto bt = BatchGradientTape::create(p, {"result"}, options);
  ASSERT_TRUE(bt.ok()) << bt.error().message;
  tally.blocks += bt->uses_blocks();
  Env fixed;
  fixed.params["p0"] = std::uniform_real_distribution<double>(-2, 2)(rng);
  const std::vector<GradLeaf>& leaves = tape->leaves();

  std::vector<Env> envs;
  std::vector<double> seeds;
  std::vector<Expected> want(count);
  for (std::size_t c = 0; c < count; ++c) {
    Env env = make_env(rng, p);
    env.params = fixed.params;
    envs.push_back(env);
    // Some seeds are zeros of either sign: a first push adds the seed to
    // +0.0, so -0.0 gives +0.0 there (the block pass's shared adjoints
    // rely on no adjoint being -0.0).
    seeds.push_back(c % 13 == 5 ? -0.0 : c % 17 == 3 ? 0.0 : std::uniform_real_distribution<double>(-2, 2)(rng));
    Expected& e = want[c];
    e.grads.assign(leaves.size(), 0.0);
    Status f = tape->forward(env, std::span<double>(&e.value, 1));
    e.forward_ok = f.ok();
    if (!f) {
      e.message = f.error().message;
      continue;
    }
    Status r = tape->reverse(std::span<const double>(&seeds[c], 1), e.grads);
    e.reverse_ok = r.ok();
    if (!r) e.message = r.error().message;
  }
  // Columns in the batch tape's input order.
  std::vector<std::vector<double>> cols;
  for (const std::string& name : bt->inputs()) {
    std::vector<double> col;
    for (const Env& env : envs) col.push_back(env.inputs.at(name));
    cols.push_back(std::move(col));
  }
  std::vector<std::span<const double>> spans(cols.begin(), cols.end());
  const std::span<const double> seed_col(seeds);

  std::size_t first_forward = count, first_reverse = count;
  for (std::size_t c = 0; c < count; ++c) {
    if (!want[c].forward_ok && first_forward == count) first_forward = c;
    if (want[c].forward_ok && !want[c].reverse_ok && first_reverse == count) first_reverse = c;
  }
  // Parameter sums: case order, failing cases left out.
  std::vector<double> param_sum;
  for (std::size_t k = 0; k < leaves.size(); ++k) {
    if (leaves[k].op != Op::Parameter) continue;
    double s = 0.0;
    for (std::size_t c = 0; c < count; ++c)
      if (want[c].forward_ok && want[c].reverse_ok) s += want[c].grads[k];
    param_sum.push_back(s);
  }

  for (unsigned threads : {1u, 2u}) {
    SCOPED_TRACE("threads " + std::to_string(threads));
    // Masked: every case, failures listed.
    BatchGradOptions masked{threads, true};
    std::vector<double> out(count);
    BatchRecord rec;
    {
      Status s = bt->forward(spans, count, fixed, out, &rec, masked);
      ASSERT_TRUE(s.ok()) << s.error().message;
    }
    std::size_t listed = 0;
    for (std::size_t c = 0; c < count; ++c) {
      ASSERT_EQ(rec.failed(c), !want[c].forward_ok) << "case " << c;
      if (want[c].forward_ok) {
        EXPECT_EQ(bits(out[c]), bits(want[c].value)) << "case " << c << ": " << out[c] << " vs " << want[c].value;
      } else {
        EXPECT_TRUE(std::isnan(out[c]));
        ASSERT_LT(listed, rec.errors().size());
        EXPECT_EQ(rec.errors()[listed].first, c);
        EXPECT_EQ(rec.errors()[listed].second.message, want[c].message);
        ++listed;
      }
    }
    EXPECT_EQ(listed, rec.errors().size());
    std::vector<double> gin(bt->input_leaf_count() * count), gpar(bt->parameter_leaf_count());
    CaseErrors errors;
    std::vector<std::span<const double>> seed_spans{seed_col};
    ASSERT_TRUE(bt->reverse(rec, seed_spans, gin, gpar, masked, &errors).ok());
    std::size_t e = 0;
    for (std::size_t c = 0; c < count; ++c) {
      const bool ok = want[c].forward_ok && want[c].reverse_ok;
      if (!ok) {
        ASSERT_LT(e, errors.size());
        EXPECT_EQ(errors[e].first, c);
        EXPECT_EQ(errors[e].second.message, want[c].message) << "case " << c;
        ++e;
      }
      std::size_t row = 0;
      for (std::size_t k = 0; k < leaves.size(); ++k) {
        if (leaves[k].op != Op::Input) continue;
        const double g = gin[row++ * count + c];
        EXPECT_EQ(bits(g), bits(ok ? want[c].grads[k] : 0.0)) << "case " << c << " leaf " << leaves[k].name;
      }
    }
    EXPECT_EQ(e, errors.size());
    for (std::size_t j = 0; j < param_sum.size(); ++j) EXPECT_EQ(bits(gpar[j]), bits(param_sum[j])) << j;

    // Unmasked: the first failing case stops the call and is named.
    BatchGradOptions strict{threads, false};
    BatchRecord rec2;
    Status f = bt->forward(spans, count, fixed, out, &rec2, strict);
    ASSERT_EQ(f.ok(), first_forward == count);
    if (!f) {
      EXPECT_EQ(f.error().message, "case " + std::to_string(first_forward) + ": " + want[first_forward].message);
      ASSERT_EQ(rec2.errors().size(), 1u);
      EXPECT_EQ(rec2.errors()[0].first, first_forward);
      EXPECT_FALSE(bt->reverse(rec2, seed_spans, gin, gpar, strict).ok());  // nothing to reverse
      continue;
    }
    CaseErrors errors2;
    Status r = bt->reverse(rec2, seed_spans, gin, gpar, strict, &errors2);
    ASSERT_EQ(r.ok(), first_reverse == count);
    if (!r) {
      EXPECT_EQ(r.error().message, "case " + std::to_string(first_reverse) + ": " + want[first_reverse].message);
      ASSERT_EQ(errors2.size(), 1u);
      EXPECT_EQ(errors2[0].first, first_reverse);
    } else {
      for (std::size_t j = 0; j < param_sum.size(); ++j) EXPECT_EQ(bits(gpar[j]), bits(param_sum[j]));
    }
  }
  if (const PlanStatus ps = bt->plan_status(); ps.compiled) {
    ++tally.compiled;
    tally.compiled_cases += ps.compiled_cases;
    tally.handed_back += ps.handed_back;
  }
  for (const Expected& w : want) {
    ++tally.cases;
    if (!w.forward_ok) ++tally.forward_failures;
    else if (!w.reverse_ok) ++tally.reverse_failures;
  }
  ++tally.programs;
}

// Every program runs through the block kernels, gathers and
// gather_one_hots included (several blocks: 530 cases are two full blocks
// of 256 and a part); a batch of one runs case by case. Every fourth
// program differentiates with respect to every node, so a gather's integer
// index carries too (the relaxed and hybrid index slope).
TEST(BatchGradients, RandomProgramsMatchThePerCaseTapeBitForBit) {
  std::mt19937_64 rng(2207);
  Tally tally;
  for (int trial = 0; trial < 300; ++trial) {
    const auto sem = static_cast<Semantics>(trial % 3);
    const auto dtype = trial % 5 == 0 ? Dtype::Float32 : Dtype::Float64;
    const bool gathers = trial % 2 == 0;
    Program p = test::random_program(rng, sem, dtype, /*size=*/30, gathers);
    GradOptions options;
    if (trial % 4 == 3) options.wrt = GradWrt::AllNodes;
    SCOPED_TRACE("trial " + std::to_string(trial) + " " + std::string(to_string(sem)));
    compare_batch(p, rng, trial % 7 == 0 ? 1 : 530, tally, test::random_env, options);
    if (HasFatalFailure()) return;
  }
  EXPECT_EQ(tally.programs, 300);
  EXPECT_EQ(tally.blocks, 300);
  EXPECT_GT(tally.forward_failures, 20);  // the generator reaches errors: the masks are exercised
  std::printf("%d cases, %d failing forward, %d failing reverse, %d of %d programs in blocks\n", tally.cases,
              tally.forward_failures, tally.reverse_failures, tally.blocks, tally.programs);
}

/// The batched tape's compiled plans are cached apart from the user's.
void use_test_plan_cache() {
  const std::string dir = (std::filesystem::temp_directory_path() / "tc-batch-grad-plan-test-cache").string();
  setenv("TC_CACHE_DIR", dir.c_str(), 1);
  unsetenv("TC_PLAN_COMPILE_AFTER");
}

// The compiled plan (GradOptions::plan = Compiled: compiled in the first
// block call) on random programs without gathers (which keep the block
// kernels), exact, relaxed and hybrid, float64 and float32, parameters
// p0 and p1: values, failing cases and their messages, input gradients and
// parameter sums are the per-case tape's bits, on one thread and two. The
// plan really runs: most lanes are its own, not handed back.
TEST(BatchGradients, CompiledPlanMatchesThePerCaseTapeBitForBit) {
  use_test_plan_cache();
  std::mt19937_64 rng(3301);
  Tally tally;
  int batches = 0;
  for (int trial = 0; trial < 60; ++trial) {
    const auto sem = static_cast<Semantics>(trial % 3);
    const auto dtype = trial % 5 == 0 ? Dtype::Float32 : Dtype::Float64;
    Program p = test::random_program(rng, sem, dtype, /*size=*/30, /*gathers=*/false);
    GradOptions options;
    options.plan = EvalPlan::Compiled;
    if (trial % 4 == 3) options.wrt = GradWrt::AllNodes;
    SCOPED_TRACE("trial " + std::to_string(trial) + " " + std::string(to_string(sem)));
    // A batch of one runs the loaded plan too (a block of one case).
    const std::size_t count = trial % 7 == 0 ? 1 : 530;
    ++batches;
    const int before = tally.compiled;
    compare_batch(p, rng, count, tally, test::random_env, options);
    if (HasFatalFailure()) return;
    if (tally.compiled == before) {
      auto bt = BatchGradientTape::create(p, {"result"}, options);
      ADD_FAILURE() << "not compiled: " << bt->plan_status().reason;
    }
  }
  EXPECT_EQ(tally.compiled, batches);
  EXPECT_GT(tally.forward_failures, 5);
  EXPECT_GT(tally.compiled_cases, 0u);
  // A kernel that flagged every lane would hand them all back.
  EXPECT_LT(tally.handed_back * 2, tally.compiled_cases);
  std::printf("compiled: %d of %d programs, %llu lanes, %llu handed back\n", tally.compiled, tally.programs,
              static_cast<unsigned long long>(tally.compiled_cases), static_cast<unsigned long long>(tally.handed_back));
}

/// Two outputs and two parameters: the compiled plan's values, flags and
/// gradients (seeds per output, one broadcast) are the block kernels'.
TEST(BatchGradients, CompiledPlanWithSeveralOutputsMatchesTheBlockKernels) {
  use_test_plan_cache();
  for (Dtype dtype : {Dtype::Float64, Dtype::Float32}) {
    for (Semantics sem : {Semantics::Exact, Semantics::Hybrid, Semantics::Relaxed}) {
      SCOPED_TRACE(std::string(to_string(sem)));
      Builder b(sem);
      Value x = b.input("x", Domain::float64(-4, 4));
      Value y = b.input("y", Domain::float64(-4, 4));
      Value w = b.parameter("w", 0.75), c = b.parameter("c", -0.5);
      Value s = b.constant(0.0);
      for (int i = 0; i < 12; ++i) {
        s = b.select(x * w > s, s + y * c + 0.25 * i, s - x / (1.0 + y * y));
        s = b.relu(s) + b.sigmoid(s * 0.1) * w;
      }
      auto built = b.build({{"a", s}, {"b", s * c - x}});
      ASSERT_TRUE(built.ok());
      Program p = std::move(built.value());
      p.dtype = dtype;
      std::vector<double> xs, ys;
      std::mt19937_64 rng(5);
      for (int k = 0; k < 700; ++k) {
        xs.push_back(std::uniform_real_distribution<double>(-4, 4)(rng));
        ys.push_back(k % 97 == 3 ? 9.0 : std::uniform_real_distribution<double>(-4, 4)(rng));  // some outside the domain
      }
      std::vector<double> seed_a(xs.size());
      for (std::size_t k = 0; k < xs.size(); ++k) seed_a[k] = std::uniform_real_distribution<double>(-1, 1)(rng);
      const double seed_b = 0.5;
      Env fixed;
      fixed.params["w"] = 0.625;
      std::vector<std::vector<double>> outs, gins, gpars;
      std::vector<std::string> messages;
      for (EvalPlan plan : {EvalPlan::Interpreter, EvalPlan::Compiled}) {
        GradOptions o;
        o.plan = plan;
        auto bt = BatchGradientTape::create(p, {"a", "b"}, o);
        ASSERT_TRUE(bt.ok()) << bt.error().message;
        std::vector<std::span<const double>> cols;
        for (const std::string& name : bt->inputs()) cols.emplace_back(name == "x" ? xs : ys);
        std::vector<double> out(2 * xs.size());
        BatchRecord rec;
        BatchGradOptions masked{1, true};
        ASSERT_TRUE(bt->forward(cols, xs.size(), fixed, out, &rec, masked).ok());
        std::vector<double> gin(bt->input_leaf_count() * xs.size()), gpar(bt->parameter_leaf_count());
        std::vector<std::span<const double>> seeds{seed_a, std::span<const double>(&seed_b, 1)};
        CaseErrors errors;
        ASSERT_TRUE(bt->reverse(rec, seeds, gin, gpar, masked, &errors).ok());
        std::string m;
        for (const auto& [c, d] : errors) m += std::to_string(c) + ": " + d.message + "\n";
        outs.push_back(out);
        gins.push_back(gin);
        gpars.push_back(gpar);
        messages.push_back(m);
        const PlanStatus ps = bt->plan_status();
        EXPECT_EQ(ps.compiled, plan == EvalPlan::Compiled) << ps.summary;
        if (plan == EvalPlan::Compiled) {
          EXPECT_GT(ps.compiled_cases, 0u);
          EXPECT_LT(ps.handed_back, ps.compiled_cases / 4) << ps.handed_back << " of " << ps.compiled_cases;
          EXPECT_GT(ps.handed_back, 0u);  // the cases outside y's domain
        }
      }
      EXPECT_FALSE(messages[0].empty());
      EXPECT_EQ(messages[0], messages[1]);
      for (std::size_t k = 0; k < outs[0].size(); ++k) ASSERT_EQ(bits(outs[0][k]), bits(outs[1][k])) << k;
      for (std::size_t k = 0; k < gins[0].size(); ++k) ASSERT_EQ(bits(gins[0][k]), bits(gins[1][k])) << k;
      for (std::size_t k = 0; k < gpars[0].size(); ++k) ASSERT_EQ(bits(gpars[0][k]), bits(gpars[1][k])) << k;
    }
  }
}

// EvalPlan as the evaluator's: Interpreter never compiles; Auto compiles in
// the background once the work pays for it (here at once:
// TC_PLAN_COMPILE_AFTER=0) and switches at a call after it is loaded.
TEST(BatchGradients, TheCompiledPlanFollowsTheEvalPlanChoice) {
  use_test_plan_cache();
  setenv("TC_PLAN_COMPILE_AFTER", "0", 1);
  Builder b;
  Value x = b.input("x", Domain::float64(-1, 1));
  Value s = b.constant(0.0);
  for (int i = 0; i < 40; ++i) s = s + x * (0.5 + i);
  auto p = b.build(s);
  ASSERT_TRUE(p.ok());
  std::vector<double> xs(300, 0.25), out(300), gin(300), gpar;
  const double one = 1.0;
  std::vector<std::span<const double>> cols{xs}, seeds{std::span<const double>(&one, 1)};
  for (EvalPlan plan : {EvalPlan::Interpreter, EvalPlan::Auto}) {
    GradOptions o;
    o.plan = plan;
    auto bt = BatchGradientTape::create(*p, {"result"}, o);
    ASSERT_TRUE(bt.ok());
    bool compiled = false;
    for (int call = 0; call < 400 && !compiled; ++call) {
      BatchRecord rec;
      ASSERT_TRUE(bt->forward(cols, xs.size(), {}, out, &rec).ok());
      ASSERT_TRUE(bt->reverse(rec, seeds, gin, gpar).ok());
      compiled = bt->plan_status().compiled && bt->plan_status().compiled_cases > 0;
      if (!compiled && plan == EvalPlan::Auto) std::this_thread::sleep_for(std::chrono::milliseconds(25));
    }
    EXPECT_EQ(compiled, plan == EvalPlan::Auto) << bt->plan_status().summary;
    if (plan == EvalPlan::Interpreter) EXPECT_NE(bt->plan_status().reason.find("interpreter was chosen"), std::string::npos);
  }
  unsetenv("TC_PLAN_COMPILE_AFTER");
}

// Auto's decision for the batched gradient plan (not its timing): a rule of
// about 60 nodes, like bench/torch_small_rule_bench.py's, interpreted
// forward+reverse at ~50 ns per case plus ~0.08 ns per node and case
// (docs/evaluator.md), costs about what compiling it does (0.05 s + 0.5 ms
// per node) after ~1.5 M cases: the compile starts by 2.5 M (an epoch of
// 20,000 samples is 1/75 of that), and not by 0.5 M. An estimate of 3 x
// run_batch's 0.05 ns per node and case (9 ns a case) put it at ~9 M.
TEST(BatchGradients, AutoCompilesTheGradientPlanOnceItsMeasuredCostPaysForIt) {
  // An empty cache of its own: the look-up misses, so only the compile
  // threshold can load a plan.
  const auto dir = std::filesystem::temp_directory_path() /
                   ("tc-batch-grad-auto-test-" + std::to_string(static_cast<long>(getpid())));
  std::filesystem::remove_all(dir);
  setenv("TC_CACHE_DIR", dir.c_str(), 1);
  unsetenv("TC_PLAN_COMPILE_AFTER");
  struct Cleanup {
    std::filesystem::path dir;
    ~Cleanup() {
      std::error_code ec;
      std::filesystem::remove_all(dir, ec);
      unsetenv("TC_CACHE_DIR");
    }
  } cleanup{dir};  // declared before the tape: destroyed after it (and its queued compile)
  Builder b;
  Value x = b.input("x", Domain::float64(-4, 4));
  Value y = b.input("y", Domain::float64(-4, 4));
  Value w = b.parameter("w", 0.75);
  Value s = b.constant(0.0);
  for (int i = 0; i < 5; ++i) s = b.select(x * w > s, s + y * (0.5 + i), s - x * 0.25) + w * y;
  auto p = b.build(s);
  ASSERT_TRUE(p.ok());
  ASSERT_GT(p->nodes.size(), 40u);
  ASSERT_LT(p->nodes.size(), 80u);
  GradOptions o;  // plan: Auto
  auto bt = BatchGradientTape::create(*p, {"result"}, o);
  ASSERT_TRUE(bt.ok());
  constexpr std::size_t kCall = 4096;
  std::vector<double> xs(kCall), ys(kCall), out(kCall);
  for (std::size_t k = 0; k < kCall; ++k) {
    xs[k] = -4.0 + 8.0 * static_cast<double>(k) / kCall;
    ys[k] = 3.0 - 6.0 * static_cast<double>(k % 97) / 97;
  }
  std::vector<std::span<const double>> cols{xs, ys};
  Env fixed;
  std::size_t cases = 0;
  auto run_until = [&](std::size_t total) {
    for (; cases < total; cases += kCall) ASSERT_TRUE(bt->forward(cols, kCall, fixed, out, nullptr).ok());
  };
  run_until(kCall);
  EXPECT_EQ(bt->plan_status().summary, "interpreting: not worth compiling yet");
  // About 55 ns a case estimated (50 per case, 0.08 per node and case)
  // against a gradient plan's compile of 0.3 s + 1.2 ms a node: the compile
  // is due after 6.5 M (40 nodes) to 7 M cases (80 nodes).
  run_until(5'000'000);
  PlanStatus ps = bt->plan_status();
  if (ps.reason.rfind("no C compiler", 0) == 0) GTEST_SKIP() << ps.reason;
  EXPECT_FALSE(ps.compiling || ps.compiled) << cases << " cases: " << ps.summary;
  run_until(8'000'000);
  ps = bt->plan_status();
  EXPECT_TRUE(ps.compiling || ps.compiled) << cases << " cases: " << ps.summary;
}

/// Hybrid: where i == 1 the forward fails when x0 <= 0 (it takes x0 / 0),
/// and otherwise the reverse fails (the surrogate needs that branch).
Program unchosen_failures() {
  Builder b(Semantics::Hybrid);
  Value x = b.input("x0", Domain::float64(-3, 3));
  Value i = b.input("i", Domain::int32(0, 2));
  Value p0 = b.parameter("p0", 0.5);
  auto p = b.build(b.select(x > 0, x * p0, x / (i - 1)));
  return std::move(p.value());
}

TEST(BatchGradients, ReverseFailuresAreMaskedOrNamed) {
  std::mt19937_64 rng(31);
  Tally tally;
  compare_batch(unchosen_failures(), rng, 150, tally);
  EXPECT_EQ(tally.blocks, 1);
  EXPECT_GT(tally.forward_failures, 5);
  EXPECT_GT(tally.reverse_failures, 5);
}

/// Where m == 1, y = a * 1e200 * 1e200 overflows to inf, and only a
/// comparison reads it (a comparison swallows inf: its result is 0 or 1).
/// The per-case tape fails there; the block kernels must flag those lanes
/// even though no later value is non-finite (they test a value a
/// comparison, a select, relu, sigmoid or a divisor reads).
Program overflow_only_compared() {
  Builder b(Semantics::Exact);
  Value a = b.input("a", Domain::float64(-2, 2));
  Value m = b.input("m", Domain::int32(0, 1));
  Value w = b.parameter("p0", 0.5);  // compare_batch sets p0
  Value big = m * 1e200;
  Value y = a * big * big;
  auto p = b.build(b.select(y > 1.0, w * a, a - w) + b.relu(a * big * big * 0.0));
  return std::move(p.value());
}

TEST(BatchGradients, AnOverflowOnlyAComparisonReadsStillFailsTheCase) {
  std::mt19937_64 rng(5);
  Tally tally;
  compare_batch(overflow_only_compared(), rng, 150, tally);
  EXPECT_EQ(tally.blocks, 1);
  EXPECT_GT(tally.forward_failures, 20);
}

/// The shapes the block passes treat specially: sums of products (a mul read
/// only by an add or sub is computed inside it, on either side, with
/// uniform and column operands), chains of sums whose adjoint is shared
/// with their arguments' (an argument read once, or twice: x + x), a sub's
/// negated push, a value the reverse reads, a select's branches (lanes
/// reached on one side only) and a parameter everywhere.
Program sums_of_products(Semantics sem) {
  Builder b(sem);
  Value x = b.input("x", Domain::float64(-3, 3));
  Value y = b.input("y", Domain::float64(-2, 2));
  Value w = b.parameter("p0", 0.5);
  Value s = b.constant(0.25);
  for (int i = 0; i < 12; ++i) {
    s = s + x * (0.5 * i);
    s = y * w - s;
    // An add whose arguments share its adjoint column, one of which (a sub)
    // must not hand that column on to s, which the other still reads: the
    // first version of the shared adjoints did, and failed here.
    s = (s - x * y) + (s + s);
    s = b.select(s > x, s * 0.5, s - w * x);
    s = b.select(s > x, s, x);
  }
  auto p = b.build(s * y + x);
  return std::move(p.value());
}

TEST(BatchGradients, SumsOfProductsAndSharedAdjointsMatchThePerCaseTape) {
  for (Semantics sem : {Semantics::Exact, Semantics::Relaxed, Semantics::Hybrid}) {
    SCOPED_TRACE(std::string(to_string(sem)));
    std::mt19937_64 rng(11);
    Tally tally;
    compare_batch(sums_of_products(sem), rng, 530, tally);
    EXPECT_EQ(tally.blocks, 1);
  }
}

/// Gathers whose checks fail in some cases, in every semantics: an index
/// one past the values (i in [0, 3] for three), a float index k (mostly an
/// integer in range; else a fraction, one past the end, or 900, where every
/// relaxed weight underflows), selectors s0..s2 that are one-hot in most
/// cases (else any of 0, 1, 2 each), selectors made by comparisons (which
/// carry in hybrid and relaxed semantics), a value at two positions, and
/// uniform values (a constant, the parameter).
Program gather_checks(Semantics sem, Dtype dtype) {
  Builder b(sem, Surrogate::Sigmoid, 1.0, dtype);
  Value x = b.input("x", Domain::float64(-3, 3));
  Value y = b.input("y", Domain::float64(-3, 3));
  Value i = b.input("i", Domain::int32(0, 3));
  Value k = b.input("k", Domain::float64(-1, 1000));
  Value s0 = b.input("s0", Domain::int32(0, 2));
  Value s1 = b.input("s1", Domain::int32(0, 2));
  Value s2 = b.input("s2", Domain::int32(0, 2));
  Value p0 = b.parameter("p0", 0.5);
  Value c = b.constant(1.5);
  Value a = b.gather({x * p0, y, x}, i);
  Value q = b.gather({y, x - y, p0, x * y}, k);
  Value d = b.gather_one_hot({s0, s1, s2}, {x, y * p0, c});
  Value e = b.gather_one_hot({x > y, x <= y}, {y * x, p0 - x});
  Value f = b.gather({a, a, q * e}, b.op("mod", i, 3.0));
  auto p = b.build(a * y + q + d * x + e + f);
  return std::move(p.value());
}

Env gather_env(std::mt19937_64& rng, const Program& p) {
  Env env = test::random_env(rng, p);
  const int r = static_cast<int>(rng() % 10);
  env.inputs["k"] = r < 6 ? static_cast<double>(rng() % 4) : r == 6 ? 1.25 : r == 7 ? 4.0 : r == 8 ? 900.0 : -0.5;
  if (rng() % 5 != 0) {
    const auto one = rng() % 3;
    static const char* const selectors[] = {"s0", "s1", "s2"};
    for (std::size_t j = 0; j < 3; ++j) env.inputs[selectors[j]] = j == one ? 1.0 : 0.0;
  }
  return env;
}

TEST(BatchGradients, GatherChecksAndSlopesMatchThePerCaseTape) {
  for (Dtype dtype : {Dtype::Float64, Dtype::Float32})
    for (Semantics sem : {Semantics::Exact, Semantics::Relaxed, Semantics::Hybrid}) {
      SCOPED_TRACE(std::string(to_string(sem)) + (dtype == Dtype::Float32 ? " float32" : " float64"));
      std::mt19937_64 rng(23);
      Tally tally;
      compare_batch(gather_checks(sem, dtype), rng, 530, tally, gather_env);
      if (HasFatalFailure()) return;
      EXPECT_EQ(tally.blocks, 1);
      // Failing cases (from the gathers' checks in exact and hybrid, and
      // the underflowing weights in relaxed) and passing ones both.
      EXPECT_GT(tally.forward_failures, 20);
      EXPECT_LT(tally.forward_failures, 480);
    }
}

/// An integer index that carries (every node differentiated), so the
/// relaxed and hybrid gathers push to it: their index slope in the blocks.
TEST(BatchGradients, AGatherIndexThatCarriesGetsTheWeightsSlope) {
  for (Semantics sem : {Semantics::Relaxed, Semantics::Hybrid}) {
    SCOPED_TRACE(std::string(to_string(sem)));
    std::mt19937_64 rng(29);
    Tally tally;
    GradOptions options;
    options.wrt = GradWrt::AllNodes;
    compare_batch(gather_checks(sem, Dtype::Float64), rng, 300, tally, gather_env, options);
    EXPECT_EQ(tally.blocks, 1);
  }
}

TEST(BatchGradients, GathersRunInBlocksAndCallsCaseByCase) {
  auto gathers = BatchGradientTape::create(gather_checks(Semantics::Exact, Dtype::Float64), {"result"}, {});
  ASSERT_TRUE(gathers.ok()) << gathers.error().message;
  EXPECT_TRUE(gathers->uses_blocks());
  // A host function is called once per case, as the per-case tape calls it:
  // no block kernel.
  Builder b(Semantics::Exact);
  Value x = b.input("x", Domain::float64(-3, 3));
  Value i = b.input("i", Domain::int32(0, 1));
  auto p = b.build(b.gather({b.call("twice", {x}), x}, i));
  ASSERT_TRUE(p.ok()) << p.error().message;
  int calls = 0;
  Bindings bindings;
  bindings["twice"] = Binding{[&](std::span<const double> a) {
                                ++calls;
                                return 2.0 * a[0];
                              },
                              [](std::span<const double>, double) { return std::vector<double>{2.0}; }};
  GradOptions options;
  options.bindings = &bindings;
  auto calling = BatchGradientTape::create(*p, {"result"}, options);
  ASSERT_TRUE(calling.ok()) << calling.error().message;
  EXPECT_FALSE(calling->uses_blocks());
  const std::vector<double> xs(40, 1.5), is = {0};
  std::vector<std::span<const double>> cols = {is, xs};
  ASSERT_EQ(calling->inputs(), (std::vector<std::string>{"i", "x"}));
  std::vector<double> out(40);
  ASSERT_TRUE(calling->forward(cols, 40, {}, out, nullptr).ok());
  EXPECT_EQ(calls, 40);
  EXPECT_EQ(out[39], 3.0);
}

Program two_outputs() {
  Builder b(Semantics::Hybrid);
  Value x = b.input("x", Domain::float64(-4, 4));
  Value y = b.input("y", Domain::float64(-4, 4));
  Value w = b.parameter("w", 0.5);
  Value s = b.select(x > y, w * x, x / y);
  auto p = b.build({{"a", s * y}, {"b", b.sigmoid(x * w) - y}});
  return std::move(p.value());
}

TEST(BatchGradients, BroadcastColumnsAndSeedsActAsRepeatedValues) {
  Program p = two_outputs();
  auto bt = BatchGradientTape::create(p, {"a", "b"}, {});
  ASSERT_TRUE(bt.ok()) << bt.error().message;
  auto tape = GradientTape::create(p, std::vector<std::string>{"a", "b"}, {});
  ASSERT_TRUE(tape.ok());
  ASSERT_EQ(bt->inputs(), (std::vector<std::string>{"x", "y"}));
  const std::vector<double> xs = {-3, -1, 0.5, 2, 3.5}, y = {1.25};
  const std::vector<double> seed_a = {1, -2, 0.5, 3, 0}, seed_b = {0.75};
  std::vector<std::span<const double>> cols = {xs, y}, seeds = {seed_a, seed_b};
  std::vector<double> out(10), gin(2 * 5), gpar(1);
  BatchRecord rec;
  ASSERT_TRUE(bt->forward(cols, 5, {}, out, &rec, {2, false}).ok());
  ASSERT_TRUE(bt->reverse(rec, seeds, gin, gpar, {2, false}).ok());
  double wsum = 0.0;
  for (std::size_t c = 0; c < 5; ++c) {
    Env env;
    env.inputs = {{"x", xs[c]}, {"y", 1.25}};
    double want_out[2], want_g[3], s[2] = {seed_a[c], 0.75};
    ASSERT_TRUE(tape->backward(env, s, want_out, want_g).ok());
    EXPECT_EQ(bits(out[c]), bits(want_out[0]));
    EXPECT_EQ(bits(out[5 + c]), bits(want_out[1]));
    EXPECT_EQ(bits(gin[c]), bits(want_g[0]));      // x (node order: x, y, then w)
    EXPECT_EQ(bits(gin[5 + c]), bits(want_g[1]));  // y
    wsum += want_g[2];
  }
  EXPECT_EQ(bits(gpar[0]), bits(wsum));
  // A record belongs to the tape that wrote it; columns must fit.
  auto other = BatchGradientTape::create(p, {"a", "b"}, {});
  ASSERT_TRUE(other.ok());
  EXPECT_FALSE(other->reverse(rec, seeds, gin, gpar).ok());
  std::vector<double> three = {1, 2, 3};
  std::vector<std::span<const double>> bad = {xs, three};
  EXPECT_FALSE(bt->forward(bad, 5, {}, out, nullptr).ok());
  Env unknown;
  unknown.params["nope"] = 1;
  Status s = bt->forward(cols, 5, unknown, out, nullptr);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message, "unknown parameter 'nope'");
}

// A nan or infinite incoming gradient (a loss of a nan target) spreads to
// every leaf it reaches: the error names that output's seed, not the first
// input whose gradient it made nan (issue 37: "the gradient with respect to
// input 'x' is nan" where x needed no gradient), in the block lanes, the
// per-case code and the per-case tape alike.
TEST(BatchGradients, ANonFiniteSeedIsNamedNotAnInput) {
  Program p = two_outputs();
  auto tape = GradientTape::create(p, std::vector<std::string>{"a", "b"}, {});
  ASSERT_TRUE(tape.ok());
  Env env;
  env.inputs = {{"x", 1.5}, {"y", 1.25}};
  double out[2], g[3], s[2] = {1.0, std::numeric_limits<double>::quiet_NaN()};
  Status one = tape->backward(env, s, out, g);
  ASSERT_FALSE(one.ok());
  EXPECT_EQ(one.error().message.rfind("the incoming gradient (the seed) of output 'b' is nan", 0), 0u)
      << one.error().message;

  for (const std::size_t count : {std::size_t(5), std::size_t(300)}) {  // per-case code and blocks
    auto bt = BatchGradientTape::create(p, {"a", "b"}, {});
    ASSERT_TRUE(bt.ok());
    std::vector<double> xs(count), ys(count, 1.25), seed_a(count, 1.0), seed_b = {0.5};
    for (std::size_t c = 0; c < count; ++c) xs[c] = -3.0 + 6.0 * static_cast<double>(c) / static_cast<double>(count);
    seed_a[3] = std::numeric_limits<double>::infinity();
    std::vector<std::span<const double>> cols = {xs, ys}, seeds = {seed_a, seed_b};
    std::vector<double> outs(2 * count), gin(2 * count), gpar(1);
    BatchRecord rec;
    ASSERT_TRUE(bt->forward(cols, count, {}, outs, &rec, {1, false}).ok());
    Status r = bt->reverse(rec, seeds, gin, gpar, {1, false});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().message.rfind("case 3: the incoming gradient (the seed) of output 'a' is infinite", 0), 0u)
        << count << ": " << r.error().message;
  }
}

}  // namespace
}  // namespace tc
