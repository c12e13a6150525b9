// The compiled plan (core/eval/compiled_plan.h) against the interpreter,
// every path: run_batch on one thread and on three, run() per case, for the
// corpus (float64 and float32, with state and relaxed programs too), random
// programs with rejected inputs and failing nodes, and stateful programs.
// Values bit for bit (zeros' signs included), the same failing cases, the
// same messages and nodes. Also: the fallback when no compiler can be run,
// the refusal of host calls, and the Auto rule's cache look-up.
// Without a working C compiler the comparisons are SKIPPED.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "emit/export_programs.h"
#include "eval/evaluator.h"
#include "eval_util.h"
#include "ir/builder.h"

namespace tc {
namespace {

namespace fs = std::filesystem;
using testing::same_bits;

/// Plans of these tests are cached apart from the user's (reruns hit it).
class CompiledPlanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const fs::path dir = fs::temp_directory_path() / "tc-compiled-plan-test-cache";
    setenv("TC_CACHE_DIR", dir.c_str(), 1);
    unsetenv("TC_CC");
  }
};

Evaluator make(const Program& p, EvalPlan plan, const Bindings* b = nullptr) {
  EvalOptions o;
  o.plan = plan;
  o.bindings = b;
  auto ev = Evaluator::create(p, o);
  EXPECT_TRUE(ev.ok()) << ev.error().message;
  return std::move(ev.value());
}

void expect_same_batch(const BatchResult& want, const BatchResult& got, const std::string& what) {
  ASSERT_EQ(want.failed, got.failed) << what;
  ASSERT_EQ(want.errors.size(), got.errors.size()) << what;
  for (std::size_t e = 0; e < want.errors.size(); ++e) {
    ASSERT_EQ(want.errors[e].first, got.errors[e].first) << what;
    ASSERT_EQ(want.errors[e].second.message, got.errors[e].second.message) << what;
    ASSERT_EQ(want.errors[e].second.node, got.errors[e].second.node) << what;
  }
  for (std::size_t c = 0; c < want.count; ++c) {
    if (want.failed[c]) continue;
    for (std::size_t o = 0; o < want.outputs.size(); ++o)
      ASSERT_TRUE(same_bits(want.outputs[o][c], got.outputs[o][c]))
          << what << ", case " << c << ", output " << o << ": " << want.outputs[o][c] << " vs " << got.outputs[o][c];
    for (std::size_t u = 0; u < want.next_state.size(); ++u)
      ASSERT_TRUE(same_bits(want.next_state[u][c], got.next_state[u][c])) << what << ", case " << c << ", update " << u;
  }
}

/// Why the compiled evaluator has no plan, or "" when it has one.
std::string no_plan(const Evaluator& ev) { return ev.plan_status().compiled ? "" : ev.plan_status().reason; }

/// Runs `p` on every path: kNoCompiler when no compiler works (skip), else
/// whether the compiled evaluator really ran its plan.
enum Ran { kNoCompiler, kInterpreted, kCompiled };
Ran compare_paths(const Program& p, const std::vector<std::vector<double>>& columns, std::size_t count,
                   const Env& fixed, const std::string& what, bool expect_compiled) {
  const Evaluator interp = make(p, EvalPlan::Interpreter), compiled = make(p, EvalPlan::Compiled);
  std::vector<std::span<const double>> cols(columns.begin(), columns.end());
  BatchResult want, got;
  EXPECT_TRUE(interp.run_batch(cols, count, fixed, want, 1).ok()) << what;
  EXPECT_TRUE(compiled.run_batch(cols, count, fixed, got, 1).ok()) << what;
  const std::string why = no_plan(compiled);
  if (why.rfind("no C compiler", 0) == 0) return kNoCompiler;
  if (expect_compiled) EXPECT_EQ(why, "") << what;
  expect_same_batch(want, got, what + " (compiled, 1 thread)");
  EXPECT_TRUE(compiled.run_batch(cols, count, fixed, got, 3).ok());
  expect_same_batch(want, got, what + " (compiled, 3 threads)");
  EXPECT_TRUE(interp.run_batch(cols, count, fixed, got, 3).ok());
  expect_same_batch(want, got, what + " (interpreter, 3 threads)");
  // run(), one case at a time, on a sample of the cases.
  const auto& ids = p.nodes_of(Op::Input);
  for (std::size_t c = 0; c < count; c += 3) {
    Env env = fixed;
    for (std::size_t k = 0; k < ids.size(); ++k) env.inputs[p.nodes[static_cast<std::size_t>(ids[k])].name] = columns[k][c];
    auto a = interp.run(env), b = compiled.run(env);
    EXPECT_EQ(a.ok(), b.ok()) << what << ", run() case " << c;
    if (!a.ok() || !b.ok()) {
      if (!a.ok() && !b.ok()) {
        EXPECT_EQ(a.error().message, b.error().message) << what << ", run() case " << c;
        EXPECT_EQ(a.error().node, b.error().node) << what << ", run() case " << c;
      }
      continue;
    }
    for (std::size_t o = 0; o < a->outputs.size(); ++o)
      EXPECT_TRUE(same_bits(a->outputs[o], b->outputs[o])) << what << ", run() case " << c << ", output " << o;
    for (std::size_t u = 0; u < a->next_state.size(); ++u)
      EXPECT_TRUE(same_bits(a->next_state[u], b->next_state[u])) << what << ", run() case " << c << ", update " << u;
  }
  return why.empty() ? kCompiled : kInterpreted;
}

// 300 cases: several whole blocks (64 float64 or 128 float32 cases) and a
// tail that the scalar compiled function runs.
constexpr std::size_t kCases = 300;

TEST_F(CompiledPlanTest, CorpusAgreesWithTheInterpreterOnEveryPath) {
  std::size_t programs = 0, compiled = 0;
  for (Dtype dtype : {Dtype::Float64, Dtype::Float32}) {
    std::uint64_t seed = 7;
    for (auto& e : testgen::load_corpus(std::string(TC_TEST_DATA) + "/corpus", dtype)) {
      if (!e.error.empty() || e.program.has_calls()) continue;
      const auto cols = testgen::random_cases(e.program, kCases, ++seed, /*out_of_domain=*/true);
      const std::string what = e.file + (dtype == Dtype::Float32 ? " (float32)" : " (float64)");
      const Ran ran = compare_paths(e.program, cols, kCases, Env{}, what, false);
      if (ran == kNoCompiler) GTEST_SKIP() << "no C compiler works here";
      ++programs;
      compiled += ran == kCompiled;
    }
  }
  EXPECT_GE(programs, 100u);
  EXPECT_GE(compiled, 60u);  // most of the corpus is exact: they really ran compiled
}

TEST_F(CompiledPlanTest, RandomProgramsAgreeWithTheInterpreterOnEveryPath) {
  for (Dtype dtype : {Dtype::Float64, Dtype::Float32}) {
    const int n = dtype == Dtype::Float64 ? 90 : 30;
    for (int k = 0; k < n; ++k) {
      testgen::GenOptions o;
      o.seed = 31000 + static_cast<std::uint64_t>(k);
      o.int_inputs = k % 3 == 1;
      o.sigmoid_outputs = k % 3 == 2;
      o.nodes = 30 + (k % 4) * 10;
      Program p = testgen::random_program(o);
      p.dtype = dtype;
      const auto cols = testgen::random_cases(p, kCases, o.seed * 7 + 1, /*out_of_domain=*/true);
      if (compare_paths(p, cols, kCases, Env{}, "random seed " + std::to_string(o.seed), true) == kNoCompiler)
        GTEST_SKIP() << "no C compiler works here";
    }
  }
}

/// A stateful program: state is a kernel parameter, updates extra outputs;
/// an overflowing and a dividing node fail on some cases.
TEST_F(CompiledPlanTest, StateAndParametersAgreeWithTheInterpreter) {
  for (Dtype dtype : {Dtype::Float64, Dtype::Float32}) {
    Builder b(Semantics::Exact, Surrogate::Sigmoid, 1.0, dtype);
    Value x = b.input("x", Domain::float64(-1e3, 1e3));
    Value s = b.state("s", 2.0, Domain::float64(-1e300, 1e300));
    Value w = b.parameter("w", 1.5);
    Value y = b.select(x > 0.0, s * x * w, s / x);
    Value big = y * 1e306 * x;  // overflows where |x| is large
    b.update(s, s + y);
    auto p = b.build({{"y", y}, {"big", big}});
    ASSERT_TRUE(p.ok()) << p.error().message;
    std::vector<std::vector<double>> cols(1);
    for (std::size_t c = 0; c < kCases; ++c) cols[0].push_back(c % 17 == 0 ? 0.0 : static_cast<double>(c) - 150.5);
    Env fixed;
    fixed.state["s"] = 3.25;
    fixed.params["w"] = -0.75;
    if (compare_paths(*p, cols, kCases, fixed, "state program", true) == kNoCompiler) GTEST_SKIP() << "no C compiler works here";
  }
}

TEST_F(CompiledPlanTest, WithoutACompilerTheInterpreterRunsAndSaysWhy) {
  const fs::path dir = fs::temp_directory_path() / ("tc-compiled-plan-nocc-" + std::to_string(::getpid()));
  setenv("TC_CACHE_DIR", dir.c_str(), 1);  // empty: nothing cached to fall back on
  setenv("TC_CC", "/nonexistent/tc-no-such-cc", 1);
  Builder b;
  Value x = b.input("x", Domain::float64(-10, 10));
  auto p = b.build(x / (x - 1.0));
  ASSERT_TRUE(p.ok());
  const Evaluator compiled = make(*p, EvalPlan::Compiled), interp = make(*p, EvalPlan::Interpreter);
  std::vector<double> xs{0.5, 1.0, 2.0, 11.0};
  std::vector<std::span<const double>> cols{xs};
  BatchResult want, got;
  ASSERT_TRUE(interp.run_batch(cols, xs.size(), Env{}, want).ok());
  ASSERT_TRUE(compiled.run_batch(cols, xs.size(), Env{}, got).ok());
  const PlanStatus st = compiled.plan_status();
  EXPECT_FALSE(st.compiled);
  EXPECT_NE(st.reason.find("no C compiler: '/nonexistent/tc-no-such-cc'"), std::string::npos) << st.reason;
  expect_same_batch(want, got, "fallback");
  EXPECT_EQ(got.errors.size(), 2u);  // x = 1 divides by zero, 11 is outside the domain
  EXPECT_NE(interp.plan_status().reason.find("interpreter was chosen"), std::string::npos);
  unsetenv("TC_CC");
  std::error_code ec;
  fs::remove_all(dir, ec);
}

/// The files of a cache folder, by name.
std::vector<std::string> files_in(const fs::path& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

/// A compiler that answers --version and fails on the plan: its message
/// (stderr) reaches the reason, and the cache keeps no file of the attempt.
TEST_F(CompiledPlanTest, AFailingCompilerIsQuotedAndLeavesNothingInTheCache) {
  const fs::path dir = fs::temp_directory_path() / ("tc-compiled-plan-badcc-" + std::to_string(::getpid()));
  std::error_code ec;
  fs::remove_all(dir, ec);
  fs::create_directories(dir);
  const fs::path cc = dir / "fake-cc.sh";
  {
    std::ofstream out(cc);
    out << "#!/bin/sh\nif [ \"$1\" = --version ]; then echo fake-cc 1.0; exit 0; fi\n"
           "echo 'fake-cc: refusing this plan' >&2\nexit 3\n";
  }
  fs::permissions(cc, fs::perms::owner_all);
  const fs::path cache = dir / "cache";
  setenv("TC_CACHE_DIR", cache.c_str(), 1);
  setenv("TC_CC", cc.c_str(), 1);
  Builder b;
  Value x = b.input("x", Domain::float64(-10, 10));
  auto p = b.build(x * x + 1.0);
  ASSERT_TRUE(p.ok());
  const Evaluator ev = make(*p, EvalPlan::Compiled);
  auto r = ev.run(testing::inputs({{"x", 3.0}}));
  unsetenv("TC_CC");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->outputs[0], 10.0);
  EXPECT_FALSE(ev.plan_status().compiled);
  EXPECT_NE(ev.plan_status().reason.find("failed on the compiled plan (exit 3): fake-cc: refusing this plan"),
            std::string::npos)
      << ev.plan_status().reason;
  EXPECT_TRUE(files_in(cache).empty()) << files_in(cache).front();
  fs::remove_all(dir, ec);
}

/// A fresh cache holds the plan's source and library and nothing else
/// (no version or log files left by the compiler's runs).
TEST_F(CompiledPlanTest, TheCacheHoldsOnlyWholePlans) {
  const fs::path cache = fs::temp_directory_path() / ("tc-compiled-plan-fresh-" + std::to_string(::getpid()));
  std::error_code ec;
  fs::remove_all(cache, ec);
  setenv("TC_CACHE_DIR", cache.c_str(), 1);
  Builder b;
  Value x = b.input("x", Domain::float64(-10, 10));
  auto p = b.build(x * 0.25 - 7.0);
  ASSERT_TRUE(p.ok());
  const Evaluator ev = make(*p, EvalPlan::Compiled);
  ASSERT_TRUE(ev.run(testing::inputs({{"x", 2.0}})).ok());
  if (no_plan(ev).rfind("no C compiler", 0) == 0) GTEST_SKIP() << "no C compiler works here";
  ASSERT_TRUE(ev.plan_status().compiled) << ev.plan_status().reason;
  const auto names = files_in(cache);
  ASSERT_EQ(names.size(), 2u);
  EXPECT_EQ(names[0].substr(0, 5), "plan-");
  EXPECT_EQ(names[0].substr(names[0].size() - 2), ".c");
  EXPECT_EQ(names[1].substr(names[1].size() - 3), ".so");
  fs::remove_all(cache, ec);
}

TEST_F(CompiledPlanTest, HostCallsStayWithTheInterpreter) {
  Builder b;
  Value x = b.input("x", Domain::float64(-10, 10));
  auto p = b.build(b.call("twice", {x}) + 1.0);
  ASSERT_TRUE(p.ok());
  Bindings bind;
  bind["twice"].forward = [](std::span<const double> a) { return 2 * a[0]; };
  const Evaluator ev = make(*p, EvalPlan::Compiled, &bind);
  auto r = ev.run(testing::inputs({{"x", 2.0}}));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->outputs[0], 5.0);
  EXPECT_FALSE(ev.plan_status().compiled);
  EXPECT_NE(ev.plan_status().reason.find("host calls"), std::string::npos) << ev.plan_status().reason;
}

/// Auto: a small batch is interpreted; once the work seen pays for looking
/// in the cache, a plan compiled before is found there and used.
TEST_F(CompiledPlanTest, AutoFindsACachedPlanOnceTheWorkPaysForTheLookUp) {
  Builder b;
  Value x = b.input("x", Domain::float64(-10, 10));
  Value y = x;
  for (int i = 0; i < 10; ++i) y = y * 0.5 + x;
  auto p = b.build(y);
  ASSERT_TRUE(p.ok());
  const Evaluator warm = make(*p, EvalPlan::Compiled);  // puts the plan in the cache
  (void)warm.run(testing::inputs({{"x", 1.0}}));
  if (no_plan(warm).rfind("no C compiler", 0) == 0) GTEST_SKIP() << "no C compiler works here";
  ASSERT_TRUE(warm.plan_status().compiled) << warm.plan_status().reason;

  const Evaluator ev = make(*p, EvalPlan::Auto);
  std::vector<double> xs(100, 0.25);
  std::vector<std::span<const double>> cols{xs};
  BatchResult out;
  ASSERT_TRUE(ev.run_batch(cols, xs.size(), Env{}, out).ok());
  EXPECT_FALSE(ev.plan_status().compiled);  // 100 cases: not worth a look-up
  std::vector<double> many(1000000, 0.25);
  std::vector<std::span<const double>> big{many};
  ASSERT_TRUE(ev.run_batch(big, many.size(), Env{}, out).ok());
  EXPECT_TRUE(ev.plan_status().compiled) << ev.plan_status().reason;
  EXPECT_TRUE(ev.plan_status().cache_hit);
}

}  // namespace
}  // namespace tc
