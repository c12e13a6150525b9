// The compiled plan on every target this processor runs (TC_PLAN_ISA=sse2,
// avx2, avx512; eval/plan_target.h), each against the interpreter: values
// bit for bit, the same failing cases, messages and nodes. The programs: a corpus
// sample and random programs (float64 and float32, rejected inputs and
// failing nodes), random programs large enough that the block function is
// cut into several functions (values passing between them), long_loop and
// a branchy loop of selects. A target the processor cannot run is refused,
// and plan_status() says why; an unknown name too. Without a working C
// compiler the comparisons are SKIPPED, and so is a target this processor
// cannot run (its refusal is still checked).
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "emit/export_programs.h"
#include "eval/evaluator.h"
#include "eval/plan_target.h"
#include "eval_util.h"
#include "ir/builder.h"

namespace tc {
namespace {

namespace fs = std::filesystem;
using testing::expect_same_batch;
using testing::same_bits;

class CompiledPlanIsaTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const fs::path dir = fs::temp_directory_path() / "tc-compiled-plan-isa-test-cache";
    setenv("TC_CACHE_DIR", dir.c_str(), 1);
    unsetenv("TC_CC");
  }
  void TearDown() override { unsetenv("TC_PLAN_ISA"); }
};

Evaluator make(const Program& p, EvalPlan plan) {
  EvalOptions o;
  o.plan = plan;
  auto ev = Evaluator::create(p, o);
  EXPECT_TRUE(ev.ok()) << ev.error().message;
  return std::move(ev.value());
}

enum Ran { kNoCompiler, kInterpreted, kCompiled };

/// `p` through the interpreter and through the plan of the target that
/// TC_PLAN_ISA names (run_batch on 1 and 3 threads, run() on a sample).
Ran compare(const Program& p, const std::vector<std::vector<double>>& columns, const std::string& what,
            bool expect_compiled) {
  const std::size_t count = columns.empty() ? 0 : columns[0].size();
  const Evaluator interp = make(p, EvalPlan::Interpreter), compiled = make(p, EvalPlan::Compiled);
  std::vector<std::span<const double>> cols(columns.begin(), columns.end());
  BatchResult want, got;
  EXPECT_TRUE(interp.run_batch(cols, count, Env{}, want, 1).ok()) << what;
  EXPECT_TRUE(compiled.run_batch(cols, count, Env{}, got, 1).ok()) << what;
  const PlanStatus st = compiled.plan_status();
  if (!st.compiled && st.reason.rfind("no C compiler", 0) == 0) return kNoCompiler;
  if (expect_compiled) {
    EXPECT_TRUE(st.compiled) << what << ": " << st.reason;
  }
  expect_same_batch(want, got, what + " (1 thread)");
  EXPECT_TRUE(compiled.run_batch(cols, count, Env{}, got, 3).ok()) << what;
  expect_same_batch(want, got, what + " (3 threads)");
  const auto& ids = p.nodes_of(Op::Input);
  for (std::size_t c = 0; c < count; c += 7) {
    Env env;
    for (std::size_t k = 0; k < ids.size(); ++k) env.inputs[p.nodes[static_cast<std::size_t>(ids[k])].name] = columns[k][c];
    auto a = interp.run(env), b = compiled.run(env);
    EXPECT_EQ(a.ok(), b.ok()) << what << ", run() case " << c;
    if (a.ok() && b.ok()) {
      for (std::size_t o = 0; o < a->outputs.size(); ++o)
        EXPECT_TRUE(same_bits(a->outputs[o], b->outputs[o])) << what << ", run() case " << c << ", output " << o;
    } else if (!a.ok() && !b.ok()) {
      EXPECT_EQ(a.error().message, b.error().message) << what << ", run() case " << c;
      EXPECT_EQ(a.error().node, b.error().node) << what << ", run() case " << c;
    }
  }
  return st.compiled ? kCompiled : kInterpreted;
}

/// s = 0; for i in range(n): s = s + x * i (3 nodes an iteration).
Program long_loop(int n, Dtype dtype) {
  Builder b(Semantics::Exact, Surrogate::Sigmoid, 1.0, dtype);
  Value x = b.input("x", Domain::float64(-1000, 1000));
  Value s = b.constant(0.0);
  for (int i = 0; i < n; ++i) s = s + x * static_cast<double>(i);
  return testing::built(b, s);
}

/// s = 0; for i in range(n): s = s + x * i if x > i else s - i, and a
/// division by (x - 3) that fails where x is 3 (6-7 nodes an iteration).
Program branchy_loop(int n, Dtype dtype) {
  Builder b(Semantics::Exact, Surrogate::Sigmoid, 1.0, dtype);
  Value x = b.input("x", Domain::float64(-1000, 1000));
  Value s = b.constant(0.0);
  for (int i = 0; i < n; ++i) {
    Value ci = b.constant(static_cast<double>(i));
    s = b.select(x > ci, s + x * ci, s - ci);
  }
  return testing::built(b, s / (x - 3.0));
}

/// Inputs for one-input programs: the domain's inside, its edges, values
/// outside it (rejected), non-finite ones, and x = 3 (the division).
std::vector<std::vector<double>> x_cases(std::size_t count) {
  std::vector<double> xs;
  for (std::size_t c = 0; c < count; ++c) {
    double x = (static_cast<double>((c * 7919) % 4000) - 2000.0) * 0.37;
    if (c % 53 == 5) x = 1000.0;
    if (c % 61 == 9) x = 1e9;  // outside the domain
    if (c % 67 == 3) x = 3.0;
    if (c % 97 == 11) x = std::nan("");
    xs.push_back(x);
  }
  return {xs};
}

/// The targets to check: every one this processor runs.
std::vector<std::string> runnable() {
  std::vector<std::string> r;
  for (const auto& isa : eval_detail::plan_isas())
    if (eval_detail::host_runs_isa(isa)) r.push_back(isa);
  return r;
}

// 300 cases: whole blocks of every target (16 to 128 cases) and a tail.
constexpr std::size_t kCases = 300;

TEST_F(CompiledPlanIsaTest, EveryRunnableTargetAgreesWithTheInterpreter) {
  const auto isas = runnable();
  if (isas.empty()) GTEST_SKIP() << "no x86-64 target of the compiled plan runs here";
  for (const auto& isa : isas) {
    setenv("TC_PLAN_ISA", isa.c_str(), 1);
    std::size_t compiled = 0;
    for (Dtype dtype : {Dtype::Float64, Dtype::Float32}) {
      const std::string dt = dtype == Dtype::Float32 ? " float32" : " float64";
      std::uint64_t seed = 11;
      std::size_t k = 0;
      for (auto& e : testgen::load_corpus(std::string(TC_TEST_DATA) + "/corpus", dtype)) {
        if (!e.error.empty() || e.program.has_calls() || k++ % 5 != 0) continue;  // a sample
        const auto cols = testgen::random_cases(e.program, kCases, ++seed, /*out_of_domain=*/true);
        const Ran ran = compare(e.program, cols, isa + dt + " " + e.file, false);
        if (ran == kNoCompiler) GTEST_SKIP() << "no C compiler works here";
        compiled += ran == kCompiled;
      }
      for (int r = 0; r < 12; ++r) {
        testgen::GenOptions o;
        o.seed = 52000 + static_cast<std::uint64_t>(r);
        o.int_inputs = r % 3 == 1;
        o.sigmoid_outputs = r % 3 == 2;
        o.nodes = 40 + r * 5;
        Program p = testgen::random_program(o);
        p.dtype = dtype;
        const auto cols = testgen::random_cases(p, kCases, o.seed * 7 + 1, /*out_of_domain=*/true);
        if (compare(p, cols, isa + dt + " random seed " + std::to_string(o.seed), true) == kNoCompiler)
          GTEST_SKIP() << "no C compiler works here";
      }
    }
    EXPECT_GE(compiled, 15u) << isa;
  }
}

/// Programs of more statements than one function of the block holds: the
/// values later functions read pass through the block's record.
TEST_F(CompiledPlanIsaTest, ProgramsCutIntoSeveralFunctionsAgreeWithTheInterpreter) {
  const auto isas = runnable();
  if (isas.empty()) GTEST_SKIP() << "no x86-64 target of the compiled plan runs here";
  for (const auto& isa : isas) {
    setenv("TC_PLAN_ISA", isa.c_str(), 1);
    for (Dtype dtype : {Dtype::Float64, Dtype::Float32}) {
      const std::string dt = dtype == Dtype::Float32 ? " float32" : " float64";
      if (compare(long_loop(400, dtype), x_cases(kCases), isa + dt + " long_loop(400)", true) == kNoCompiler)
        GTEST_SKIP() << "no C compiler works here";
      compare(branchy_loop(150, dtype), x_cases(kCases), isa + dt + " branchy_loop(150)", true);
      for (int r = 0; r < 3; ++r) {
        testgen::GenOptions o;
        o.seed = 53000 + static_cast<std::uint64_t>(r);
        o.int_inputs = r == 1;
        o.nodes = 300;  // with their constants, more statements than one function holds
        Program p = testgen::random_program(o);
        p.dtype = dtype;
        const auto cols = testgen::random_cases(p, kCases, o.seed * 3 + 1, /*out_of_domain=*/true);
        compare(p, cols, isa + dt + " random 300 nodes, seed " + std::to_string(o.seed), true);
      }
    }
  }
}

TEST_F(CompiledPlanIsaTest, ATargetThisProcessorCannotRunIsRefusedAndSaysWhy) {
  const Program p = long_loop(10, Dtype::Float64);
  const auto cols = x_cases(64);
  std::vector<std::span<const double>> spans(cols.begin(), cols.end());
  std::size_t refused = 0;
  for (const auto& isa : eval_detail::plan_isas()) {
    if (eval_detail::host_runs_isa(isa)) continue;
    setenv("TC_PLAN_ISA", isa.c_str(), 1);
    const Evaluator ev = make(p, EvalPlan::Compiled), interp = make(p, EvalPlan::Interpreter);
    BatchResult got, want;
    ASSERT_TRUE(ev.run_batch(spans, 64, Env{}, got, 1).ok());
    ASSERT_TRUE(interp.run_batch(spans, 64, Env{}, want, 1).ok());
    expect_same_batch(want, got, isa + " refused: interpreted");
    EXPECT_FALSE(ev.plan_status().compiled) << isa;
    EXPECT_NE(ev.plan_status().reason.find("TC_PLAN_ISA=" + isa + ": this processor cannot run"), std::string::npos)
        << ev.plan_status().reason;
    ++refused;
  }
  setenv("TC_PLAN_ISA", "avx9000", 1);
  const Evaluator ev = make(p, EvalPlan::Compiled);
  BatchResult got;
  ASSERT_TRUE(ev.run_batch(spans, 64, Env{}, got, 1).ok());
  if (!eval_detail::plan_isas().empty()) {
    EXPECT_EQ(ev.plan_status().reason, "TC_PLAN_ISA='avx9000' is not one of sse2, avx2, avx512");
  }
  if (refused == 0) GTEST_SKIP() << "this processor runs every target: no refusal to check (the unknown name was)";
}

}  // namespace
}  // namespace tc
