// What `optimize` buys at run time, and what it costs, in one run:
//
//   - batched evaluation of the unrolled dot-product loop
//       s = 0.0
//       for i in range(1000): s = s + x * w[i]
//     before optimization (about 3,000 nodes) and after (one affine node),
//     as the ratio optimized/original time per case (lower is better);
//   - the time optimize() itself takes on that circuit, against the time
//     Evaluator::create (validation + flattening) takes, as a ratio.
//
// Both circuits must produce bit-identical results first.
#include <benchmark/benchmark.h>

#include <bit>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "eval/evaluator.h"
#include "ir/builder.h"
#include "passes/optimize.h"

namespace {

constexpr std::size_t kCases = 20000;

tc::Program dot_circuit() {
  tc::Builder b;
  tc::Value x = b.input("x", tc::Domain::float64(-1000, 1000));
  tc::Value s = b.constant(0.0);
  for (int i = 0; i < 1000; ++i) s = s + x * (0.5 + i * 0.25);
  auto p = b.build(s);
  if (!p) {
    std::fprintf(stderr, "building the circuit failed: %s\n", p.error().message.c_str());
    std::exit(1);
  }
  return std::move(p.value());
}

const tc::Program& original() {
  static const tc::Program p = dot_circuit();
  return p;
}

const tc::Program& optimized() {
  static const tc::Program p = [] {
    auto o = tc::optimize(original());
    if (!o) {
      std::fprintf(stderr, "optimize failed: %s\n", o.error().message.c_str());
      std::exit(1);
    }
    return std::move(o->program);
  }();
  return p;
}

const std::vector<double>& inputs() {
  static const std::vector<double> xs = [] {
    std::mt19937_64 rng(42);
    std::uniform_real_distribution<double> d(-1000, 1000);
    std::vector<double> v(kCases);
    for (double& x : v) x = d(rng);
    return v;
  }();
  return xs;
}

bool run(const tc::Program& p, tc::BatchResult& out) {
  auto ev = tc::Evaluator::create(p);
  if (!ev) return false;
  const auto& xs = inputs();
  std::vector<std::span<const double>> cols{std::span<const double>(xs.data(), xs.size())};
  return ev->run_batch(cols, kCases, tc::Env{}, out).ok() && out.errors.empty();
}

void eval_batch(benchmark::State& state, const tc::Program& p) {
  auto ev = tc::Evaluator::create(p);
  if (!ev) {
    state.SkipWithError(ev.error().message.c_str());
    return;
  }
  const auto& xs = inputs();
  std::vector<std::span<const double>> cols{std::span<const double>(xs.data(), xs.size())};
  tc::BatchResult out;
  for (auto _ : state) {
    if (!ev->run_batch(cols, kCases, tc::Env{}, out)) {
      state.SkipWithError("run_batch failed");
      return;
    }
    benchmark::DoNotOptimize(out.outputs.data());
  }
  state.counters["nodes"] = static_cast<double>(p.nodes.size());
}

void BM_eval_original(benchmark::State& state) { eval_batch(state, original()); }
void BM_eval_optimized(benchmark::State& state) { eval_batch(state, optimized()); }

void BM_prepare(benchmark::State& state) {
  for (auto _ : state) {
    auto ev = tc::Evaluator::create(original());
    benchmark::DoNotOptimize(ev.ok());
  }
}

void BM_optimize(benchmark::State& state) {
  for (auto _ : state) {
    auto o = tc::optimize(original());
    benchmark::DoNotOptimize(o.ok());
  }
}

BENCHMARK(BM_eval_original)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_eval_optimized)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_prepare)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_optimize)->Unit(benchmark::kMicrosecond);

class RatioReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs)
      if (r.run_type == Run::RT_Iteration && !r.error_occurred) times[r.benchmark_name()] = r.GetAdjustedCPUTime();
    ConsoleReporter::ReportRuns(runs);
  }
  std::map<std::string, double> times;
};

}  // namespace

int main(int argc, char** argv) {
  tc::BatchResult a, b;
  if (!run(original(), a) || !run(optimized(), b)) {
    std::fprintf(stderr, "evaluation failed\n");
    return 1;
  }
  for (std::size_t c = 0; c < kCases; ++c)
    if (std::bit_cast<std::uint64_t>(a.outputs[0][c]) != std::bit_cast<std::uint64_t>(b.outputs[0][c])) {
      std::fprintf(stderr, "case %zu differs: %.17g vs %.17g\n", c, a.outputs[0][c], b.outputs[0][c]);
      return 1;
    }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  auto ratio = [&](const char* num, const char* den) {
    auto n = reporter.times.find(num), d = reporter.times.find(den);
    if (n == reporter.times.end() || d == reporter.times.end() || d->second <= 0) return;
    std::printf("%s / %s = %.3f\n", num, den, n->second / d->second);
  };
  std::printf("\n%zu -> %zu nodes\n", original().nodes.size(), optimized().nodes.size());
  ratio("BM_eval_optimized", "BM_eval_original");
  ratio("BM_optimize", "BM_prepare");
  return 0;
}
