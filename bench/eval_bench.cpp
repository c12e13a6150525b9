// Batched evaluation of the `long_loop` circuit against the same function
// compiled natively, in the same run:
//
//   def long_loop(x):
//       s = 0.0
//       for i in range(1000):
//           s = s + x * i
//       return s
//
// The circuit is built with the Builder (about 3,000 nodes: one constant, one
// mul and one add per iteration) and evaluated over 100,000 cases with
// Evaluator::run_batch (float64 and float32). The native baseline is a plain
// C++ loop compiled with -ffp-contract=off, called once per case. The figure
// of merit is the ratio batched/native time per case (target <= 1.0); both
// paths must produce bit-identical float64 results, which is checked first.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "eval/evaluator.h"
#include "ir/builder.h"

namespace {

constexpr std::size_t kCases = 100000;

__attribute__((noinline)) double long_loop_native(double x) {
  double s = 0.0;
  for (int i = 0; i < 1000; ++i) s = s + x * i;
  return s;
}

tc::Program long_loop_circuit(tc::Dtype dtype) {
  tc::Builder b(tc::Semantics::Exact, tc::Surrogate::Sigmoid, 1.0, dtype);
  tc::Value x = b.input("x", tc::Domain::float64(-1000, 1000));
  tc::Value s = b.constant(0.0);
  for (int i = 0; i < 1000; ++i) s = s + x * i;
  auto p = b.build(s);
  if (!p) {
    std::fprintf(stderr, "building long_loop failed: %s\n", p.error().message.c_str());
    std::exit(1);
  }
  return std::move(p.value());
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

void BM_native(benchmark::State& state) {
  const auto& xs = inputs();
  std::vector<double> out(kCases);
  for (auto _ : state) {
    for (std::size_t c = 0; c < kCases; ++c) out[c] = long_loop_native(xs[c]);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.counters["ns_per_case"] =
      benchmark::Counter(static_cast<double>(kCases), benchmark::Counter::kIsIterationInvariantRate |
                                                          benchmark::Counter::kInvert);
}

void run_batched(benchmark::State& state, tc::Dtype dtype) {
  const tc::Program p = long_loop_circuit(dtype);
  auto ev = tc::Evaluator::create(p);
  if (!ev) {
    state.SkipWithError(ev.error().message.c_str());
    return;
  }
  const auto& xs = inputs();
  std::span<const double> col(xs.data(), xs.size());
  std::vector<std::span<const double>> cols{col};
  tc::BatchResult out;
  for (auto _ : state) {
    tc::Status s = ev->run_batch(cols, kCases, tc::Env{}, out);
    if (!s) {
      state.SkipWithError(s.error().message.c_str());
      return;
    }
    benchmark::DoNotOptimize(out.outputs.data());
  }
  state.counters["ns_per_case"] =
      benchmark::Counter(static_cast<double>(kCases), benchmark::Counter::kIsIterationInvariantRate |
                                                          benchmark::Counter::kInvert);
  state.counters["nodes"] = static_cast<double>(p.nodes.size());
}

/// The checked scalar entry point (what the runtime and the IDE call), one
/// case at a time, for scale: not part of the batched target.
void BM_scalar_run(benchmark::State& state) {
  auto ev = tc::Evaluator::create(long_loop_circuit(tc::Dtype::Float64));
  const auto& xs = inputs();
  constexpr std::size_t kScalarCases = 1000;
  tc::Env env;
  env.inputs["x"] = 0;
  double sink = 0;
  for (auto _ : state) {
    for (std::size_t c = 0; c < kScalarCases; ++c) {
      env.inputs["x"] = xs[c];
      auto r = ev->run(env);
      sink += r->outputs[0];
    }
    benchmark::DoNotOptimize(sink);
  }
  state.counters["ns_per_case"] =
      benchmark::Counter(static_cast<double>(kScalarCases), benchmark::Counter::kIsIterationInvariantRate |
                                                                benchmark::Counter::kInvert);
}

void BM_batched_float64(benchmark::State& state) { run_batched(state, tc::Dtype::Float64); }
void BM_batched_float32(benchmark::State& state) { run_batched(state, tc::Dtype::Float32); }

BENCHMARK(BM_native)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_batched_float64)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_batched_float32)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_scalar_run)->Unit(benchmark::kMillisecond);

/// Records each benchmark's real time per iteration to print the ratios.
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs)
      if (r.run_type == Run::RT_Iteration && !r.error_occurred)
        times[r.benchmark_name()] = r.GetAdjustedCPUTime();  // CPU time: the machine may be shared
    ConsoleReporter::ReportRuns(runs);
  }
  std::map<std::string, double> times;
};

/// Both paths must agree bit for bit before their speed means anything.
bool same_results() {
  auto ev = tc::Evaluator::create(long_loop_circuit(tc::Dtype::Float64));
  if (!ev) return false;
  const auto& xs = inputs();
  std::vector<std::span<const double>> cols{std::span<const double>(xs.data(), xs.size())};
  tc::BatchResult out;
  if (!ev->run_batch(cols, kCases, tc::Env{}, out) || !out.errors.empty()) return false;
  for (std::size_t c = 0; c < kCases; ++c)
    if (out.outputs[0][c] != long_loop_native(xs[c])) {
      std::fprintf(stderr, "case %zu: batched %.17g, native %.17g\n", c, out.outputs[0][c], long_loop_native(xs[c]));
      return false;
    }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (!same_results()) {
    std::fprintf(stderr, "long_loop: batched and native results differ\n");
    return 1;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  const auto native = reporter.times.find("BM_native");
  if (native == reporter.times.end() || native->second <= 0) return 0;
  const double per = 1e6 / static_cast<double>(kCases);  // ms per iteration -> ns per case
  std::printf("\nlong_loop, %zu cases: native %.1f ns/case\n", kCases, native->second * per);
  for (const char* name : {"BM_batched_float64", "BM_batched_float32"}) {
    auto it = reporter.times.find(name);
    if (it == reporter.times.end()) continue;
    std::printf("%-30s %.1f ns/case, ratio batched/native = %.3f\n", name, it->second * per,
                it->second / native->second);
  }
  if (auto it = reporter.times.find("BM_scalar_run"); it != reporter.times.end())
    std::printf("%-30s %.1f ns/case (checked scalar run(), one case per call), ratio/native = %.1f\n",
                "BM_scalar_run", it->second * 1e6 / 1000.0, (it->second * 1e6 / 1000.0) / (native->second * per));
  return 0;
}
