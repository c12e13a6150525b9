// Evaluation of the `long_loop` circuit against the same function compiled
// natively, measured in the same run:
//
//   def long_loop(x):
//       s = 0.0
//       for i in range(1000):
//           s = s + x * i
//       return s
//
// The circuit is built with the Builder (3,002 nodes: one constant, one mul
// and one add per iteration). Native baselines, all -ffp-contract=off (no
// FMA, so bit-identical to the evaluator, which is checked before timing):
//
//   BM_native               a plain C++ loop called once per case (scalar,
//                           float64, bound by the latency of its 1,000
//                           dependent additions): the denominator of the
//                           single-case run();
//   BM_native_soa           the float64 limit: the same loop structure of
//                           arrays over blocks of 8 vectors of cases kept in
//                           registers, no checks, no allocation in the timed
//                           loop, compiled by Highway for every SIMD target
//                           and dispatched like the evaluator's kernels, so
//                           it runs on the same target (printed at the top of
//                           the summary; eval_bench_native.cpp);
//   BM_native_soa_float32   the float32 limit: the same in binary32;
//   BM_native_soa_avx2      the former denominator, kept for comparison:
//                           float64, 32 cases, compiler-vectorised with
//                           target_clones("avx2", "default"), so capped at
//                           AVX2 on an AVX-512 machine.
//
// Measured: Evaluator::run_batch over 100,000 cases (float64, float32, and
// float64 on every core), and the checked single-case run() per case, each
// on the interpreter (BM_batched_*, BM_scalar_run) and on the compiled plan
// (BM_compiled_*/ISA, BM_compiled_run/ISA; core/eval/compiled_plan.h) for
// every target this processor runs (TC_PLAN_ISA=sse2, avx2, avx512; only
// the one TC_PLAN_ISA names when it is set), whose compile time from an
// empty cache (this run's own TC_CACHE_DIR) and load time from the cache
// are printed too, with the compile time of a branchy loop of selects
// (1,805 nodes). The
// summary at the end prints `NAME  X ns/case` and each batched ratio to the
// limit of its own dtype (for the all-cores run: wall time, per-core cost,
// and its speed-up over one thread), and run() over BM_native.
// Every figure is the median over the repetitions
// (--benchmark_repetitions=N; the default here is 5).
//
// TC_BENCH_HWY_MAX=avx2 (or sse4) caps Highway's run-time dispatch for the
// whole run (hwy::DisableTargets), so that on an AVX-512 host the limits
// and the interpreter's kernels run AVX2 code as they would on an AVX2
// machine; with TC_PLAN_ISA=avx2 beside it every row is AVX2.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <hwy/targets.h>

#include "eval/evaluator.h"
#include "eval/plan_target.h"
#include "eval_bench_native.h"
#include "ir/builder.h"

namespace {

constexpr std::size_t kCases = 100000;
constexpr std::size_t kScalarCases = 1000;

__attribute__((noinline)) double long_loop_native(double x) {
  double s = 0.0;
  for (int i = 0; i < 1000; ++i) s = s + x * i;
  return s;
}

/// long_loop in binary32 (the float32 circuit's meaning: every value rounded
/// to binary32; + and * computed in float are exactly that).
__attribute__((noinline)) double long_loop_native_f32(double x) {
  const float xf = static_cast<float>(x);
  float s = 0.0f;
  for (int i = 0; i < 1000; ++i) s = s + xf * static_cast<float>(i);
  return s;
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define TC_BENCH_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define TC_BENCH_CLONES
#endif

/// The former denominator: long_loop over many cases, 32 cases at a time in
/// registers (8 AVX2 vectors), vectorised by the compiler for AVX2 at most.
TC_BENCH_CLONES __attribute__((noinline)) void long_loop_soa_avx2(const double* __restrict x, double* __restrict out,
                                                             std::size_t n) {
  constexpr std::size_t W = 32;
  std::size_t c = 0;
  for (; c + W <= n; c += W) {
    double s[W] = {};
    double xv[W];
    for (std::size_t j = 0; j < W; ++j) xv[j] = x[c + j];
    for (int i = 0; i < 1000; ++i) {
      const double di = i;
      for (std::size_t j = 0; j < W; ++j) s[j] = s[j] + xv[j] * di;
    }
    for (std::size_t j = 0; j < W; ++j) out[c + j] = s[j];
  }
  for (; c < n; ++c) out[c] = long_loop_native(x[c]);
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

/// The branchy loop whose compile time issue 34 quotes (1,805 nodes):
///   s = 0; for i in range(300): s = s + x * i if x > i else s - i
///   return s / (x - 3)
tc::Program branchy_circuit() {
  tc::Builder b(tc::Semantics::Exact, tc::Surrogate::Sigmoid, 1.0, tc::Dtype::Float64);
  tc::Value x = b.input("x", tc::Domain::float64(-1000, 1000));
  tc::Value s = b.constant(0.0);
  for (int i = 0; i < 300; ++i) {
    tc::Value ci = b.constant(static_cast<double>(i));  // one constant an iteration, as the frontend makes
    s = b.select(x > ci, s + x * ci, s - ci);
  }
  auto p = b.build(s / (x - 3.0));
  if (!p) {
    std::fprintf(stderr, "building the branchy loop failed: %s\n", p.error().message.c_str());
    std::exit(1);
  }
  return std::move(p.value());
}

/// The compiled plan's targets this run measures: every one this processor
/// runs, or the one TC_PLAN_ISA names.
std::vector<std::string> plan_isas() {
  if (const char* isa = std::getenv("TC_PLAN_ISA"); isa && *isa) return {isa};
  std::vector<std::string> r;
  for (const auto& isa : tc::eval_detail::plan_isas())
    if (tc::eval_detail::host_runs_isa(isa)) r.push_back(isa);
  if (r.empty()) r.push_back("");  // off x86-64: the host's own ("native")
  return r;
}

/// Makes the next compiled plans target `isa` ("" leaves TC_PLAN_ISA unset).
void use_isa(const std::string& isa) {
  if (isa.empty()) unsetenv("TC_PLAN_ISA");
  else setenv("TC_PLAN_ISA", isa.c_str(), 1);
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

void per_case(benchmark::State& state, std::size_t cases) {
  state.counters["ns_per_case"] = benchmark::Counter(
      static_cast<double>(cases), benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

void BM_native(benchmark::State& state) {
  const auto& xs = inputs();
  std::vector<double> out(kCases);
  for (auto _ : state) {
    for (std::size_t c = 0; c < kCases; ++c) out[c] = long_loop_native(xs[c]);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  per_case(state, kCases);
}

const std::vector<float>& inputs_f32() {
  static const std::vector<float> xs = [] {
    std::vector<float> v(inputs().begin(), inputs().end());  // rounded as the float32 circuit rounds its input
    return v;
  }();
  return xs;
}

void BM_native_soa(benchmark::State& state) {
  const auto& xs = inputs();
  std::vector<double> out(kCases);
  for (auto _ : state) {
    tc_bench::long_loop_soa_f64(xs.data(), out.data(), kCases);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  per_case(state, kCases);
}

void BM_native_soa_float32(benchmark::State& state) {
  const auto& xs = inputs_f32();
  std::vector<float> out(kCases);
  for (auto _ : state) {
    tc_bench::long_loop_soa_f32(xs.data(), out.data(), kCases);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  per_case(state, kCases);
}

void BM_native_soa_avx2(benchmark::State& state) {
  const auto& xs = inputs();
  std::vector<double> out(kCases);
  for (auto _ : state) {
    long_loop_soa_avx2(xs.data(), out.data(), kCases);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  per_case(state, kCases);
}

/// An evaluator of long_loop on the given plan; a compiled one is compiled
/// (or found in the cache) before anything is timed.
tc::Result<tc::Evaluator> long_loop_evaluator(tc::Dtype dtype, tc::EvalPlan plan) {
  tc::EvalOptions o;
  o.plan = plan;
  auto ev = tc::Evaluator::create(long_loop_circuit(dtype), o);
  if (!ev || plan != tc::EvalPlan::Compiled) return ev;
  tc::Env env;
  env.inputs["x"] = 1.0;
  (void)ev->run(env);
  if (!ev->plan_status().compiled) return tc::make_error("no compiled plan: " + ev->plan_status().reason);
  return ev;
}

void run_batched(benchmark::State& state, tc::Dtype dtype, unsigned threads,
                 tc::EvalPlan plan = tc::EvalPlan::Interpreter) {
  const tc::Program p = long_loop_circuit(dtype);
  auto ev = long_loop_evaluator(dtype, plan);
  if (!ev) {
    state.SkipWithError(ev.error().message.c_str());
    return;
  }
  const auto& xs = inputs();
  std::span<const double> col(xs.data(), xs.size());
  std::vector<std::span<const double>> cols{col};
  tc::BatchResult out;
  for (auto _ : state) {
    tc::Status s = ev->run_batch(cols, kCases, tc::Env{}, out, threads);
    if (!s) {
      state.SkipWithError(s.error().message.c_str());
      return;
    }
    benchmark::DoNotOptimize(out.outputs.data());
  }
  per_case(state, kCases);
  state.counters["nodes"] = static_cast<double>(p.nodes.size());
}

/// The checked scalar entry point (what run, replay, the IDE and the Python
/// package call), one case per call.
void scalar_run(benchmark::State& state, tc::EvalPlan plan) {
  auto ev = long_loop_evaluator(tc::Dtype::Float64, plan);
  if (!ev) {
    state.SkipWithError(ev.error().message.c_str());
    return;
  }
  const auto& xs = inputs();
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
  per_case(state, kScalarCases);
}

void BM_scalar_run(benchmark::State& state) { scalar_run(state, tc::EvalPlan::Interpreter); }

void BM_batched_float64(benchmark::State& state) { run_batched(state, tc::Dtype::Float64, 1); }
void BM_batched_float32(benchmark::State& state) { run_batched(state, tc::Dtype::Float32, 1); }
void BM_batched_float64_threads(benchmark::State& state) { run_batched(state, tc::Dtype::Float64, 0); }
/// The compiled rows of one target: NAME/ISA.
void register_compiled(const std::string& isa) {
  const std::string sfx = "/" + (isa.empty() ? std::string("native") : isa);
  auto batched = [isa](tc::Dtype dtype, unsigned threads) {
    return [isa, dtype, threads](benchmark::State& state) {
      use_isa(isa);
      run_batched(state, dtype, threads, tc::EvalPlan::Compiled);
    };
  };
  benchmark::RegisterBenchmark(("BM_compiled_float64" + sfx).c_str(), batched(tc::Dtype::Float64, 1))
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark(("BM_compiled_float32" + sfx).c_str(), batched(tc::Dtype::Float32, 1))
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark(("BM_compiled_float64_threads" + sfx).c_str(), batched(tc::Dtype::Float64, 0))
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();
  benchmark::RegisterBenchmark(("BM_compiled_run" + sfx).c_str(), [isa](benchmark::State& state) {
    use_isa(isa);
    scalar_run(state, tc::EvalPlan::Compiled);
  })->Unit(benchmark::kMillisecond);
}

BENCHMARK(BM_native)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_native_soa)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_native_soa_float32)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_native_soa_avx2)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_batched_float64)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_batched_float32)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_batched_float64_threads)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_scalar_run)->Unit(benchmark::kMillisecond);
// The compiled rows are registered per target in main().

/// Keeps each benchmark's median (or its single run) CPU and wall time.
class MedianReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs) {
      if (r.error_occurred) continue;
      const std::string name = r.run_name.function_name;
      if (r.run_type == Run::RT_Aggregate && r.aggregate_name == "median") {
        cpu[name] = r.GetAdjustedCPUTime();
        wall[name] = r.GetAdjustedRealTime();
        has_median.insert(name);
      } else if (r.run_type == Run::RT_Iteration && !has_median.count(name)) {
        cpu[name] = r.GetAdjustedCPUTime();  // replaced by the median when repetitions run
        wall[name] = r.GetAdjustedRealTime();
      }
    }
    ConsoleReporter::ReportRuns(runs);
  }
  std::map<std::string, double> cpu, wall;  ///< ms per iteration
  std::set<std::string> has_median;
};

bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }
bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

/// Every path must agree bit for bit with the native functions first: the
/// float64 batch (1 thread and all cores), both float64 SoA loops and the
/// scalar loop; the float32 batch, sampled float32 run() calls and the
/// float32 SoA loop, compared as binary32 bits.
bool same_results() {
  const auto& xs = inputs();
  std::vector<double> soa(kCases), soa_avx2(kCases);
  tc_bench::long_loop_soa_f64(xs.data(), soa.data(), kCases);
  long_loop_soa_avx2(xs.data(), soa_avx2.data(), kCases);
  std::vector<float> soa32(kCases);
  tc_bench::long_loop_soa_f32(inputs_f32().data(), soa32.data(), kCases);
  std::vector<std::span<const double>> cols{std::span<const double>(xs.data(), xs.size())};
  const auto isas = plan_isas();
  for (unsigned run = 0; run < 2 + 2 * isas.size(); ++run) {
    const unsigned threads = run % 2 ? 0u : 1u;
    const tc::EvalPlan plan = run < 2 ? tc::EvalPlan::Interpreter : tc::EvalPlan::Compiled;
    if (run >= 2) use_isa(isas[(run - 2) / 2]);
    auto ev = long_loop_evaluator(tc::Dtype::Float64, plan);
    if (!ev) {
      std::fprintf(stderr, "%s\n", ev.error().message.c_str());
      if (plan == tc::EvalPlan::Compiled) continue;  // no compiler: the compiled rows are skipped
      return false;
    }
    tc::BatchResult out;
    if (!ev->run_batch(cols, kCases, tc::Env{}, out, threads) || !out.errors.empty()) return false;
    for (std::size_t c = 0; c < kCases; ++c) {
      const double native = long_loop_native(xs[c]);
      if (!same_bits(out.outputs[0][c], native) || !same_bits(soa[c], native) || !same_bits(soa_avx2[c], native)) {
        std::fprintf(stderr, "case %zu: batched %.17g, soa %.17g, soa avx2 %.17g, native %.17g\n", c,
                     out.outputs[0][c], soa[c], soa_avx2[c], native);
        return false;
      }
    }
    // float32: the batch computes in binary32 columns, run() in binary64
    // rounded per node; both must be the native binary32 loops' bits.
    auto ev32 = long_loop_evaluator(tc::Dtype::Float32, plan);
    if (!ev32) return false;
    if (!ev32->run_batch(cols, kCases, tc::Env{}, out, threads) || !out.errors.empty()) return false;
    tc::Env env;
    for (std::size_t c = 0; c < kCases; ++c) {
      const double native = long_loop_native_f32(xs[c]);
      double scalar = native;
      if (c % 97 == 0) {  // run() is slow: a sample
        env.inputs["x"] = xs[c];
        auto r = ev32->run(env);
        if (!r) return false;
        scalar = r->outputs[0];
      }
      const float batched = static_cast<float>(out.outputs[0][c]);
      if (static_cast<double>(batched) != out.outputs[0][c] || !same_bits(batched, static_cast<float>(native)) ||
          !same_bits(static_cast<float>(scalar), static_cast<float>(native)) ||
          !same_bits(soa32[c], static_cast<float>(native))) {
        std::fprintf(stderr, "float32 case %zu: batched %.9g, run %.9g, soa %.9g, native %.9g\n", c,
                     out.outputs[0][c], scalar, static_cast<double>(soa32[c]), native);
        return false;
      }
    }
  }
  return true;
}

}  // namespace

/// Seconds to get a compiled plan of long_loop: from an empty cache
/// (writing the C, compiling, loading) and then from the cache.
struct CompileTimes {
  double cold = 0, hit = 0;
};
CompileTimes compile_times(const tc::Program& program) {
  CompileTimes t;
  for (double* slot : {&t.cold, &t.hit}) {
    tc::EvalOptions o;
    o.plan = tc::EvalPlan::Compiled;
    auto ev = tc::Evaluator::create(program, o);
    if (!ev) return {};
    tc::Env env;
    env.inputs["x"] = 1.0;
    (void)ev->run(env);
    if (!ev->plan_status().compiled) return {};
    *slot = ev->plan_status().compile_seconds;
    if ((slot == &t.hit) != ev->plan_status().cache_hit) return {};
  }
  return t;
}

/// Per target: long_loop float64 and float32, the branchy loop.
struct TargetCompileTimes {
  std::string isa;
  CompileTimes f64, f32, branchy;
};

/// TC_BENCH_HWY_MAX: the widest Highway target the run may dispatch.
void cap_highway() {
  const char* max = std::getenv("TC_BENCH_HWY_MAX");
  if (!max || !*max) return;
  const std::string m = max;
  std::int64_t off = HWY_AVX3 | HWY_AVX3_DL;
  if (m == "sse4") off |= HWY_AVX2;
  else if (m != "avx2") {
    std::fprintf(stderr, "TC_BENCH_HWY_MAX must be avx2 or sse4, not '%s'\n", max);
    std::exit(2);
  }
  hwy::DisableTargets(off);
}

int main(int argc, char** argv) {
  cap_highway();
  // The compile times are measured from an empty cache of this run's own
  // (TC_CACHE_DIR, unless the caller chose one).
  char cache_tmpl[] = "/tmp/tc-eval-bench-XXXXXX";
  if (!std::getenv("TC_CACHE_DIR") && mkdtemp(cache_tmpl)) setenv("TC_CACHE_DIR", cache_tmpl, 1);
  const auto isas = plan_isas();
  std::vector<TargetCompileTimes> compile;
  const tc::Program branchy = branchy_circuit();
  for (const auto& isa : isas) {
    use_isa(isa);
    compile.push_back({isa.empty() ? "native" : isa, compile_times(long_loop_circuit(tc::Dtype::Float64)),
                       compile_times(long_loop_circuit(tc::Dtype::Float32)), compile_times(branchy)});
  }
  if (!same_results()) {
    std::fprintf(stderr, "long_loop: evaluator and native results differ\n");
    return 1;
  }
  std::vector<char*> args(argv, argv + argc);
  std::string reps = "--benchmark_repetitions=5";
  bool has_reps = false;
  for (int i = 1; i < argc; ++i) has_reps |= std::string(argv[i]).rfind("--benchmark_repetitions", 0) == 0;
  if (!has_reps) args.push_back(reps.data());
  int n = static_cast<int>(args.size());
  benchmark::Initialize(&n, args.data());
  if (benchmark::ReportUnrecognizedArguments(n, args.data())) return 1;
  for (const auto& isa : isas) register_compiled(isa);
  MedianReporter rep;
  benchmark::RunSpecifiedBenchmarks(&rep);
  benchmark::Shutdown();
  auto& cpu = rep.cpu;
  auto& wall = rep.wall;
  const double per = 1e6 / static_cast<double>(kCases);  // ms per iteration -> ns per case
  auto ns = [&](const char* name) { return cpu.count(name) ? cpu[name] * per : 0.0; };
  const double lim64 = ns("BM_native_soa"), lim32 = ns("BM_native_soa_float32"), avx2 = ns("BM_native_soa_avx2");
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  std::printf("\nlong_loop, %zu cases, medians (CPU time unless marked wall)\n", kCases);
  std::printf("Highway target dispatched: %s (supported and compiled: %s)\n", tc_bench::dispatched_target(),
              tc_bench::compiled_and_supported_targets());
  if (cpu.count("BM_native")) std::printf("%-28s %9.1f ns/case  (scalar, float64)\n", "BM_native", ns("BM_native"));
  if (lim64 > 0) std::printf("%-28s %9.1f ns/case  (the float64 limit, %s)\n", "BM_native_soa", lim64, tc_bench::dispatched_target());
  if (lim32 > 0)
    std::printf("%-28s %9.1f ns/case  (the float32 limit, %s)\n", "BM_native_soa_float32", lim32, tc_bench::dispatched_target());
  if (avx2 > 0) std::printf("%-28s %9.1f ns/case  (former denominator, float64, AVX2 at most)\n", "BM_native_soa_avx2", avx2);
  if (cpu.count("BM_batched_float64")) {
    const double t = ns("BM_batched_float64");
    std::printf("%-28s %9.1f ns/case  ratio/float64 limit %.2f", "BM_batched_float64", t, lim64 > 0 ? t / lim64 : 0.0);
    if (avx2 > 0) std::printf("  (ratio/former avx2 %.2f)", t / avx2);
    std::printf("\n");
  }
  if (cpu.count("BM_batched_float32")) {
    const double t = ns("BM_batched_float32");
    std::printf("%-28s %9.1f ns/case  ratio/float32 limit %.2f", "BM_batched_float32", t, lim32 > 0 ? t / lim32 : 0.0);
    if (avx2 > 0) std::printf("  (ratio/former avx2 %.2f)", t / avx2);
    std::printf("\n");
  }
  if (wall.count("BM_batched_float64_threads")) {
    const double t = wall["BM_batched_float64_threads"] * per;
    const double one = wall.count("BM_batched_float64") ? wall["BM_batched_float64"] * per : 0.0;
    const double lim_wall = wall.count("BM_native_soa") ? wall["BM_native_soa"] * per : 0.0;
    std::printf("%-28s %9.1f ns/case  (wall, %u cores) per-core ratio/float64 limit %.2f, speed-up over 1 thread %.2f\n",
                "BM_batched_float64_threads", t, cores, lim_wall > 0 ? t * cores / lim_wall : 0.0, one > 0 ? one / t : 0.0);
  }
  auto compiled_row = [&](const std::string& name, double lim, const char* what) {
    if (!cpu.count(name)) return;
    const double t = cpu[name] * per;
    std::printf("%-28s %9.1f ns/case  ratio/%s limit (%s) %.2f (target 1.5)\n", name.c_str(), t, what,
                tc_bench::dispatched_target(), lim > 0 ? t / lim : 0.0);
  };
  for (const auto& isa : isas) {
    const std::string sfx = "/" + (isa.empty() ? std::string("native") : isa);
    std::printf("compiled plan for %s:\n", isa.empty() ? "the host (native)" : isa.c_str());
    compiled_row("BM_compiled_float64" + sfx, lim64, "float64");
    compiled_row("BM_compiled_float32" + sfx, lim32, "float32");
    if (wall.count("BM_compiled_float64_threads" + sfx)) {
      const double t = wall["BM_compiled_float64_threads" + sfx] * per;
      const double one = wall.count("BM_compiled_float64" + sfx) ? wall["BM_compiled_float64" + sfx] * per : 0.0;
      std::printf("%-28s %9.1f ns/case  (wall, %u cores) per-core cost/one thread %.2f (target 1.2), speed-up %.2f\n",
                  ("BM_compiled_float64_threads" + sfx).c_str(), t, cores, one > 0 ? t * cores / one : 0.0,
                  one > 0 ? one / t : 0.0);
    }
    if (cpu.count("BM_compiled_run" + sfx)) {
      const double t = cpu["BM_compiled_run" + sfx] * 1e6 / static_cast<double>(kScalarCases);
      const double native = ns("BM_native");
      std::printf("%-28s %9.1f ns/case  ratio/BM_native %.2f (target 2)\n", ("BM_compiled_run" + sfx).c_str(), t,
                  native > 0 ? t / native : 0.0);
    }
  }
  if (!std::getenv("TC_PLAN_ISA"))
    for (const auto& isa : tc::eval_detail::plan_isas())
      if (!tc::eval_detail::host_runs_isa(isa))
        std::printf("compiled plan for %s: this processor cannot run it, not measured\n", isa.c_str());
  for (const auto& c : compile) {
    if (c.f64.cold > 0)
      std::printf("compile %s: long_loop (3,002 nodes) float64 %.2f s, from cache %.1f ms; float32 %.2f s, from cache "
                  "%.1f ms; branchy loop (%zu nodes) %.2f s\n",
                  c.isa.c_str(), c.f64.cold, c.f64.hit * 1e3, c.f32.cold, c.f32.hit * 1e3, branchy.nodes.size(),
                  c.branchy.cold);
    else
      std::printf("compiled plan for %s: not available here (no C compiler?): its rows were skipped\n", c.isa.c_str());
  }
  if (cpu.count("BM_scalar_run")) {
    const double t = cpu["BM_scalar_run"] * 1e6 / static_cast<double>(kScalarCases);
    const double native = ns("BM_native");
    std::printf("%-28s %9.1f ns/case  ratio/BM_native %.1f, %.2f ns/node\n", "BM_scalar_run", t,
                native > 0 ? t / native : 0.0, t / 3002.0);
  }
  return 0;
}
