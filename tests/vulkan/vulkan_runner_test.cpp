// The Vulkan runner (lavapipe in CI) against the CPU evaluator with dtype
// float32: + - * / comparisons and everything built from them must be
// bit-identical; sigmoid outputs and arithmetic on them stay within the
// tolerance classes of tests/data/backends/tolerances.json (docs/backends.md),
// the sigmoid bound computed per case from its argument. Error cases must
// fail on both sides. The largest difference seen is printed.
#include <gtest/gtest.h>

#include <cfloat>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>

#include <nlohmann/json.hpp>

#include "codegen/emit_plan.h"
#include "emit/program_gen.h"
#include "eval/evaluator.h"
#include "vulkan/runner.h"

namespace tc {
namespace {

#define SKIP_WITHOUT_DEVICE()                                                               \
  do {                                                                                      \
    static const Result<std::string> probe = vk::probe_device();                            \
    if (!probe.ok()) GTEST_SKIP() << "no vulkan device: " << probe.error().message;         \
  } while (0)

struct Compare {
  std::size_t cases = 0, errors = 0, exact_values = 0, sigmoid_values = 0, derived_values = 0, skipped = 0;
  double max_derived_rel = 0;
  std::size_t stages = 0, blocks = 0;
  std::uint64_t max_ulp = 0;
  double max_ulp_arg = 0;
};

std::vector<std::span<const double>> spans(const std::vector<std::vector<double>>& cols) {
  std::vector<std::span<const double>> s;
  for (const auto& c : cols) s.emplace_back(c);
  return s;
}

/// The tolerance classes, shared with tests/node/check_backends.mjs.
struct Tolerances {
  double sigmoid_base = 0, sigmoid_per_abs_arg = 0, flush_below = 0, derived_relative = 0, derived_absolute = 0;
};
const Tolerances& tolerances() {
  static const Tolerances t = [] {
    std::ifstream in(std::string(TC_TEST_DATA) + "/backends/tolerances.json");
    const auto j = nlohmann::json::parse(in);
    Tolerances t;
    t.sigmoid_base = j["sigmoid"]["ulp_base"].get<double>();
    t.sigmoid_per_abs_arg = j["sigmoid"]["ulp_per_abs_argument"].get<double>();
    t.flush_below = j["sigmoid"]["flush_below"].get<double>();
    t.derived_relative = j["derived"]["relative"].get<double>();
    t.derived_absolute = j["derived"]["absolute"].get<double>();
    TC_ASSERT(j["exact"]["ulp"].get<int>() == 0);
    return t;
  }();
  return t;
}

/// Runs `program` on both sides and checks agreement; returns the figures.
Compare compare(const Program& original, const std::vector<std::vector<double>>& cols, vk::RunnerOptions opts = {}) {
  Compare r;
  // Each sigmoid output's bound depends on its argument x: run the argument
  // as an extra output (after the real ones) so the CPU says what x was.
  Program program = original;
  const std::size_t real_outputs = original.outputs.size();
  std::vector<std::size_t> arg_output(real_outputs, 0);
  for (std::size_t o = 0; o < real_outputs; ++o) {
    const Node& out = original.nodes[static_cast<std::size_t>(original.outputs[o].second)];
    if (out.op != Op::Sigmoid) continue;
    arg_output[o] = program.outputs.size();
    program.outputs.push_back({"__sigmoid_argument_" + std::to_string(o), out.args[0]});
  }
  const std::size_t count = cols.empty() ? 1 : cols[0].size();
  EvalOptions eo;
  eo.dtype = Dtype::Float32;
  auto ev = Evaluator::create(program, eo);
  EXPECT_TRUE(ev.ok()) << (ev.ok() ? "" : ev.error().message);
  if (!ev.ok()) return r;
  BatchResult cpu, gpu;
  auto sp = spans(cols);
  EXPECT_TRUE(ev->run_batch(sp, count, Env{}, cpu).ok());
  auto runner = vk::Runner::create(program, opts);
  EXPECT_TRUE(runner.ok()) << (runner.ok() ? "" : runner.error().message);
  if (!runner.ok()) return r;
  Status s = runner->run_batch(sp, count, gpu);
  EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().message);
  if (!s.ok()) return r;
  r.cases = count;
  r.stages = runner->stats().stages;
  r.blocks = runner->stats().blocks;
  // Per node: its value depends on a sigmoid (exp), and some decision
  // (comparison, select condition, gather index or selector) depends on one.
  const testgen::SigmoidDependence dep = testgen::sigmoid_dependence(program);
  const std::vector<std::uint8_t>& exp_dep = dep.value;
  const std::vector<std::uint8_t>& exp_decision = dep.decision;
  for (std::size_t c = 0; c < count; ++c) {
    EXPECT_EQ(cpu.failed[c], gpu.failed[c]) << "case " << c << ": cpu " << (cpu.failed[c] ? "failed" : "succeeded")
                                           << ", vulkan " << (gpu.failed[c] ? "failed" : "succeeded");
    if (cpu.failed[c] || gpu.failed[c]) {
      r.errors += cpu.failed[c] && gpu.failed[c];
      continue;
    }
    const Tolerances& tol = tolerances();
    for (std::size_t o = 0; o < real_outputs; ++o) {
      const Node& out = program.nodes[static_cast<std::size_t>(program.outputs[o].second)];
      const float a = static_cast<float>(cpu.outputs[o][c]), b = static_cast<float>(gpu.outputs[o][c]);
      if (out.op == Op::Sigmoid) {
        ++r.sigmoid_values;
        const std::uint64_t d = testgen::ulp_distance(a, b);
        // Results below the smallest normal float32 may flush to 0.
        if (std::fabs(a) < tol.flush_below && std::fabs(b) < tol.flush_below) continue;
        if (d > r.max_ulp) r.max_ulp = d;
        const double x = static_cast<float>(cpu.outputs[arg_output[o]][c]);
        const double bound = tol.sigmoid_base + tol.sigmoid_per_abs_arg * std::fabs(x);
        EXPECT_LE(static_cast<double>(d), bound) << "output " << program.outputs[o].first << " case " << c << ": " << a
                                                 << " vs " << b << " (x = " << x << ")";
      } else if (exp_decision[static_cast<std::size_t>(out.id)]) {
        ++r.skipped;  // a decision on an exp-derived value may go either way
      } else if (exp_dep[static_cast<std::size_t>(out.id)]) {
        // Arithmetic on sigmoid results: the ulp differences propagate.
        ++r.derived_values;
        const double diff = std::fabs(static_cast<double>(a) - b), size = std::fabs(static_cast<double>(a));
        r.max_derived_rel = std::max(r.max_derived_rel, diff / std::max(1.0, size));
        EXPECT_LE(diff, tol.derived_relative * size + tol.derived_absolute)
            << "output " << program.outputs[o].first << " case " << c << ": cpu " << a << ", vulkan " << b;
      } else {
        ++r.exact_values;
        // Every bit, the sign included: -x for x is a mismatch. The one
        // exception is zero: no operation of the subset can observe the sign
        // of a zero (x / 0 fails either way, comparisons treat them alike,
        // the CLI prints both as 0), and the GPU may give +0 where the CPU's
        // float32 rounding kept -0 (seen on lavapipe), so they count as equal.
        const bool both_zero = a == 0.0f && b == 0.0f;
        if (!both_zero)
          EXPECT_EQ(std::bit_cast<std::uint32_t>(a), std::bit_cast<std::uint32_t>(b))
            << "output " << program.outputs[o].first << " case " << c << ": cpu " << a << ", vulkan " << b;
      }
    }
  }
  return r;
}

TEST(VulkanRunner, ProbeNamesADeviceOrSaysWhyNot) {
  auto probe = vk::probe_device();
  if (!probe.ok()) {
    EXPECT_NE(probe.error().message.find("no vulkan device"), std::string::npos);
    GTEST_SKIP() << probe.error().message;
  }
  EXPECT_FALSE(probe->empty());
  std::cout << "vulkan device: " << *probe << "\n";
}

TEST(VulkanRunner, RandomProgramsMatchTheCpuExactly) {
  SKIP_WITHOUT_DEVICE();
  Compare total;
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    testgen::GenOptions o;
    o.seed = seed;
    o.int_inputs = seed % 2 == 0;
    o.nodes = 40 + static_cast<int>(seed) * 5;
    Program p = testgen::random_program(o);
    auto cols = testgen::random_cases(p, 700, seed * 7, seed % 3 == 0);
    Compare r = compare(p, cols);
    total.cases += r.cases;
    total.errors += r.errors;
    total.exact_values += r.exact_values;
    if (HasFailure()) {
      ADD_FAILURE() << "seed " << seed;
      return;
    }
  }
  std::cout << "random programs: " << total.cases << " cases, " << total.errors << " failing on both, "
            << total.exact_values << " values bit-identical\n";
  EXPECT_GT(total.exact_values, 1000u);
  EXPECT_GT(total.errors, 10u);
}

TEST(VulkanRunner, SigmoidStaysWithinItsUlpBound) {
  SKIP_WITHOUT_DEVICE();
  Compare total;
  for (std::uint64_t seed = 20; seed < 26; ++seed) {
    testgen::GenOptions o;
    o.seed = seed;
    o.sigmoid_outputs = true;
    Program p = testgen::random_program(o);
    Compare r = compare(p, testgen::random_cases(p, 1000, seed));
    total.sigmoid_values += r.sigmoid_values;
    total.max_ulp = std::max(total.max_ulp, r.max_ulp);
  }
  std::cout << "sigmoid: " << total.sigmoid_values << " values, largest difference " << total.max_ulp << " ulp\n";
  RecordProperty("sigmoid_max_ulp", static_cast<int>(total.max_ulp));
  EXPECT_GT(total.sigmoid_values, 1000u);
}

TEST(VulkanRunner, SigmoidOverTheWholeExpRange) {
  SKIP_WITHOUT_DEVICE();
  Program p;
  p.dtype = Dtype::Float32;
  Node x;
  x.op = Op::Input;
  x.name = "x";
  x.domain = Domain::float32(-200, 200);
  p.nodes.push_back(x);
  Node s;
  s.id = 1;
  s.op = Op::Sigmoid;
  s.args = {0};
  p.nodes.push_back(s);
  p.outputs.push_back({"result", 1});
  std::vector<double> xs;
  for (int i = -2000; i <= 2000; ++i) xs.push_back(i * 0.1);
  EvalOptions eo;
  eo.dtype = Dtype::Float32;
  auto ev = Evaluator::create(p, eo);
  ASSERT_TRUE(ev.ok());
  auto runner = vk::Runner::create(p);
  ASSERT_TRUE(runner.ok()) << runner.error().message;
  std::vector<std::vector<double>> cols{xs};
  auto sp = spans(cols);
  BatchResult cpu, gpu;
  ASSERT_TRUE(ev->run_batch(sp, xs.size(), Env{}, cpu).ok());
  ASSERT_TRUE(runner->run_batch(sp, xs.size(), gpu).ok());
  std::uint64_t worst = 0;
  double worst_x = 0;
  for (std::size_t c = 0; c < xs.size(); ++c) {
    ASSERT_FALSE(cpu.failed[c] || gpu.failed[c]) << "x = " << xs[c];
    const float xf = static_cast<float>(xs[c]);
    const auto d = testgen::ulp_distance(static_cast<float>(cpu.outputs[0][c]), static_cast<float>(gpu.outputs[0][c]));
    // Results below the smallest normal float32 (x < -87.3) may flush to 0.
    const float a = static_cast<float>(cpu.outputs[0][c]), b = static_cast<float>(gpu.outputs[0][c]);
    const Tolerances& tol = tolerances();
    const bool subnormal = std::fabs(a) < tol.flush_below && std::fabs(b) < tol.flush_below;
    if (!subnormal)
      EXPECT_LE(static_cast<double>(d), tol.sigmoid_base + tol.sigmoid_per_abs_arg * std::fabs(xf)) << "x = " << xf;
    else continue;
    if (d > worst) { worst = d; worst_x = xf; }
  }
  std::cout << "sigmoid on [-200, 200]: largest difference " << worst << " ulp at x = " << worst_x << "\n";
}

TEST(VulkanRunner, StagedExecutionMatchesWholeShader) {
  SKIP_WITHOUT_DEVICE();
  for (std::uint64_t seed = 40; seed < 42; ++seed) {
    testgen::GenOptions o;
    o.seed = seed;
    o.nodes = 150;
    o.int_inputs = seed % 2 == 1;
    Program p = testgen::random_program(o);
    vk::RunnerOptions opts;
    opts.max_whole_nodes = 10;
    opts.stage_nodes = 37;
    opts.staged_scratch_bytes = 1 << 20;  // several blocks of cases
    auto cols = testgen::random_cases(p, 2000, seed);
    Compare r = compare(p, cols, opts);
    EXPECT_GE(r.stages, 6u);
    if (HasFailure()) FAIL() << "seed " << seed;
  }
}

TEST(VulkanRunner, BlocksSplitLargeBatches) {
  SKIP_WITHOUT_DEVICE();
  testgen::GenOptions o;
  o.seed = 77;
  Program p = testgen::random_program(o);
  vk::RunnerOptions opts;
  opts.max_block_cases = 1000;  // 5 blocks plus a partial one
  Compare r = compare(p, testgen::random_cases(p, 5500, 3), opts);
  EXPECT_EQ(r.cases, 5500u);
  EXPECT_EQ(r.blocks, 6u);
  // Values were compared, more than one block holds: not only failures on both sides.
  EXPECT_GT(r.exact_values + r.sigmoid_values + r.derived_values, 1000u) << r.errors << " cases failed on both";
}

TEST(VulkanRunner, InputDomainErrorsNameTheInput) {
  SKIP_WITHOUT_DEVICE();
  Program p;
  p.dtype = Dtype::Float32;
  Node x;
  x.op = Op::Input;
  x.name = "x0";
  x.domain = Domain::float32(-4, 4);
  p.nodes.push_back(x);
  Node n;
  n.id = 1;
  n.op = Op::Neg;
  n.args = {0};
  p.nodes.push_back(n);
  p.outputs.push_back({"result", 1});
  auto runner = vk::Runner::create(p);
  ASSERT_TRUE(runner.ok());
  std::vector<std::vector<double>> cols{{0.5, 9.0, -4.0}};
  auto sp = spans(cols);
  BatchResult out;
  ASSERT_TRUE(runner->run_batch(sp, 3, out).ok());
  ASSERT_EQ(out.errors.size(), 1u);
  EXPECT_EQ(out.errors[0].first, 1u);
  EXPECT_EQ(out.errors[0].second.message, "input 'x0': 9 is above the maximum 4");
  EXPECT_EQ(out.outputs[0][0], -0.5);
  EXPECT_EQ(out.outputs[0][2], 4.0);
}

TEST(VulkanRunner, RefusesStatefulPrograms) {
  Program p;
  Node s;
  s.op = Op::State;
  s.name = "count";
  s.domain = Domain::int32(0, 10);
  p.nodes.push_back(s);
  p.outputs.push_back({"result", 0});
  p.updates.push_back({0, 0});
  auto runner = vk::Runner::create(p);
  ASSERT_FALSE(runner.ok());
  EXPECT_NE(runner.error().message.find("stateless"), std::string::npos) << runner.error().message;
}

TEST(VulkanRunner, CorpusMatchesTheCpu) {
  SKIP_WITHOUT_DEVICE();
  auto corpus = testgen::load_corpus(std::string(TC_TEST_DATA) + "/corpus");
  ASSERT_FALSE(corpus.empty()) << "no programs under tests/data/corpus: a broken data path";
  std::size_t ran = 0;
  Compare total;
  for (const auto& e : corpus) {
    if (!e.error.empty()) {
      std::cout << "corpus: " << e.file << " skipped (float32 compile: " << e.error << ")\n";
      continue;
    }
    if (!codegen::make_plan(e.program, "vulkan").ok()) continue;  // state, calls, relaxed
    SCOPED_TRACE(e.file);
    Compare r = compare(e.program, testgen::random_cases(e.program, 300, 11, true));
    total.cases += r.cases;
    total.errors += r.errors;
    total.exact_values += r.exact_values;
    total.derived_values += r.derived_values;
    total.sigmoid_values += r.sigmoid_values;
    total.max_ulp = std::max(total.max_ulp, r.max_ulp);
    total.max_derived_rel = std::max(total.max_derived_rel, r.max_derived_rel);
    ++ran;
  }
  std::cout << "corpus: " << ran << " of " << corpus.size() << " programs run on vulkan; " << total.cases
            << " cases, " << total.errors << " failing on both, " << total.exact_values << " values bit-identical, "
            << total.sigmoid_values << " sigmoid values (max " << total.max_ulp << " ulp), " << total.derived_values
            << " exp-derived values (max relative difference " << total.max_derived_rel << ")\n";
  EXPECT_GT(ran, 10u);
}

// A 100,000-node circuit, staged. Slow on lavapipe (pipeline compilation):
// it runs when TC_SLOW_TESTS=1 (ctest label "slow", registered in
// tests/vulkan/CMakeLists.txt). The quick variant stages a 2,500-node circuit.
void big_circuit(int nodes, vk::RunnerOptions opts = {}) {
  Program p = testgen::bounded_program(nodes, 99);
  ASSERT_GE(p.nodes.size(), static_cast<std::size_t>(nodes));
  if (const char* st = std::getenv("TC_STAGE_NODES")) opts.stage_nodes = std::strtoull(st, nullptr, 10);
  const auto t0 = std::chrono::steady_clock::now();
  Compare r = compare(p, testgen::random_cases(p, 256, 1), opts);
  std::cout << p.nodes.size() << " nodes: " << r.stages << " pipelines, created and run (256 cases) in "
            << std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() << " s; "
            << r.exact_values << " values bit-identical, " << r.derived_values << " within tolerance, "
            << r.errors << " cases failing on both\n";
  EXPECT_GT(r.stages, 2u);
  EXPECT_LT(r.errors, 10u);
  EXPECT_GT(r.exact_values, 900u);
}

TEST(VulkanRunner, LargeCircuitIsStaged) {
  SKIP_WITHOUT_DEVICE();
  vk::RunnerOptions opts;
  opts.max_whole_nodes = 500;  // the quick variant: staging logic on a 2,500-node circuit
  big_circuit(2500, opts);
}

// The staging the 100,000-node test exercises, at a size CI runs in well
// under a minute: 6,000 nodes with the runner's default thresholds (no
// test-only overrides) cross dozens of stages, forward and reverse.
TEST(VulkanRunner, CiSizedCircuitIsStagedWithDefaults) {
  SKIP_WITHOUT_DEVICE();
  Program p = testgen::bounded_program(6000, 7);
  Compare r = compare(p, testgen::random_cases(p, 256, 5));
  std::cout << p.nodes.size() << " nodes: " << r.stages << " stages, " << r.exact_values << " values bit-identical\n";
  EXPECT_GE(r.stages, 10u);
  EXPECT_GT(r.exact_values, 900u);
}

TEST(VulkanRunner, Circuit100k) {
  SKIP_WITHOUT_DEVICE();
  const char* slow = std::getenv("TC_SLOW_TESTS");
  if (!slow || std::string(slow) != "1") GTEST_SKIP() << "slow: set TC_SLOW_TESTS=1 (ctest -L slow)";
  big_circuit(100000);
}

}  // namespace
}  // namespace tc
