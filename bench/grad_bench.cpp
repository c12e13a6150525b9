// Gradient cost relative to a forward run, on a 10,000-node circuit.
//
// The circuit mixes every op a gradient usually crosses (affine halves and
// differences, mul, sigmoid, relu, neg, comparisons feeding selects) with
// values kept in [-1, 1], over 8 inputs and 8 parameters, in hybrid semantics
// (hard forward, surrogate derivatives: both branches of every select are
// needed for the backward pass). The figure of merit is
//
//     gradient time (GradientTape::backward: forward + reverse, one case)
//   / forward time  (Evaluator::run, one case)
//
// measured in interleaved rounds on the same inputs; the median ratio over
// the rounds (thread CPU time) is printed (target <= 3). The forward side is
// the tape's own checked forward pass (GradientTape::forward, the same
// prepared plan the gradient uses), so the ratio measures the reverse pass,
// not two different evaluators; the older ratio against Evaluator::run is
// printed beside it for comparison. Google Benchmark timings of both sides
// are printed too. The two forward values are compared bit for bit first.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "eval/evaluator.h"
#include "grad/gradients.h"
#include "ir/builder.h"

namespace {

constexpr int kNodes = 10000;

tc::Program circuit(tc::Semantics semantics) {
  std::mt19937_64 rng(1234);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  tc::Builder b(semantics);
  std::vector<tc::Value> pool;
  for (int k = 0; k < 8; ++k) pool.push_back(b.input("x" + std::to_string(k), tc::Domain::float64(-1, 1)));
  for (int k = 0; k < 8; ++k) pool.push_back(b.parameter("p" + std::to_string(k), unit(rng)));
  auto recent = [&] {
    const std::size_t window = std::min<std::size_t>(pool.size(), 64);
    return pool[pool.size() - 1 - rng() % window];
  };
  while (static_cast<int>(b.node_count()) < kNodes - 1) {
    tc::Value v;
    switch (rng() % 8) {
      case 0: v = b.affine({recent(), recent()}, {0.5, 0.5}); break;
      case 1: v = b.affine({recent(), recent()}, {0.5, -0.5}); break;
      case 2: case 3: v = recent() * recent(); break;
      case 4: v = b.sigmoid(recent()); break;
      case 5: v = b.relu(recent()); break;
      case 6: v = -recent(); break;
      default: v = b.select(recent() > recent(), recent(), recent()); break;
    }
    pool.push_back(v);
  }
  std::vector<tc::Arg> tail(pool.end() - 16, pool.end());
  auto p = b.build(b.affine(tail, std::vector<double>(16, 1.0 / 16)));
  if (!p) {
    std::fprintf(stderr, "building the circuit failed: %s\n", p.error().message.c_str());
    std::exit(1);
  }
  return std::move(p.value());
}

tc::Env env_for(int seed) {
  std::mt19937_64 rng(static_cast<std::uint64_t>(seed));
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  tc::Env env;
  for (int k = 0; k < 8; ++k) env.inputs["x" + std::to_string(k)] = unit(rng);
  return env;
}

struct Sides {
  tc::Program program;
  tc::Evaluator evaluator;
  tc::GradientTape tape;
  std::vector<double> grads;
};

Sides prepare(tc::Semantics semantics) {
  tc::Program p = circuit(semantics);
  auto ev = tc::Evaluator::create(p);
  auto tape = tc::GradientTape::create(p);
  if (!ev || !tape) {
    std::fprintf(stderr, "preparing failed\n");
    std::exit(1);
  }
  const std::size_t leaves = tape->leaves().size();
  return Sides{std::move(p), std::move(ev.value()), std::move(tape.value()), std::vector<double>(leaves)};
}

bool forward(const Sides& s, const tc::Env& env, double& out) {
  auto r = s.evaluator.run(env);
  if (!r) return false;
  out = r->outputs[0];
  return true;
}

bool tape_forward(Sides& s, const tc::Env& env, double& out) {
  return s.tape.forward(env, std::span<double>(&out, 1)).ok();
}

bool gradient(Sides& s, const tc::Env& env, double& out) {
  const double seed = 1.0;
  return s.tape.backward(env, std::span<const double>(&seed, 1), std::span<double>(&out, 1), s.grads).ok();
}

void BM_forward(benchmark::State& state) {
  Sides s = prepare(tc::Semantics::Hybrid);
  const tc::Env env = env_for(1);
  double out = 0;
  for (auto _ : state) {
    if (!forward(s, env, out)) state.SkipWithError("forward failed");
    benchmark::DoNotOptimize(out);
  }
}

void BM_gradient(benchmark::State& state) {
  Sides s = prepare(tc::Semantics::Hybrid);
  const tc::Env env = env_for(1);
  double out = 0;
  for (auto _ : state) {
    if (!gradient(s, env, out)) state.SkipWithError("gradient failed");
    benchmark::DoNotOptimize(s.grads.data());
  }
}

void BM_tape_forward(benchmark::State& state) {
  Sides s = prepare(tc::Semantics::Hybrid);
  const tc::Env env = env_for(1);
  double out = 0;
  for (auto _ : state) {
    if (!tape_forward(s, env, out)) state.SkipWithError("tape forward failed");
    benchmark::DoNotOptimize(out);
  }
}

BENCHMARK(BM_forward)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_tape_forward)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_gradient)->Unit(benchmark::kMicrosecond);

/// Interleaved rounds: each round times `reps` forward runs, then `reps`
/// gradient runs, on the same input; returns the median gradient/forward
/// ratio (forward: the tape's own unless `evaluator_forward`).
double median_ratio(tc::Semantics semantics, int rounds, int reps, bool evaluator_forward) {
  Sides s = prepare(semantics);
  std::vector<double> ratios;
  // Thread CPU time: the development machines are shared, and wall time
  // would count other people's work.
  auto now = [] {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
  };
  for (int r = 0; r < rounds; ++r) {
    const tc::Env env = env_for(r);
    double a = 0, b = 0;
    if (!forward(s, env, a) || !gradient(s, env, b) || a != b) {
      std::fprintf(stderr, "forward and gradient disagree (%.17g vs %.17g)\n", a, b);
      std::exit(1);
    }
    double f = 0;
    if (!tape_forward(s, env, f) || f != a) {
      std::fprintf(stderr, "tape forward and evaluator disagree (%.17g vs %.17g)\n", f, a);
      std::exit(1);
    }
    const double t0 = now();
    for (int k = 0; k < reps; ++k) evaluator_forward ? forward(s, env, a) : tape_forward(s, env, a);
    const double t1 = now();
    for (int k = 0; k < reps; ++k) gradient(s, env, b);
    const double t2 = now();
    benchmark::DoNotOptimize(a);
    benchmark::DoNotOptimize(b);
    ratios.push_back((t2 - t1) / (t1 - t0));
  }
  std::sort(ratios.begin(), ratios.end());
  return ratios[ratios.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  const tc::Program p = circuit(tc::Semantics::Hybrid);
  std::printf("\ncircuit: %zu nodes\n", p.nodes.size());
  for (auto sem : {tc::Semantics::Hybrid, tc::Semantics::Exact, tc::Semantics::Relaxed}) {
    const double ratio = median_ratio(sem, 21, 50, false);
    const double old_ratio = median_ratio(sem, 21, 50, true);
    std::printf("gradient / tape forward median ratio (%s): %.2f (target <= 3); gradient / Evaluator::run: %.2f\n",
                std::string(tc::to_string(sem)).c_str(), ratio, old_ratio);
  }
  return 0;
}
