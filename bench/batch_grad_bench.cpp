// The batched reverse pass against the batched forward (issue 26's target:
// the VJP of a whole batch, the one the Python bridge uses, at most 3x the
// batched forward), on two circuits, 4,096 cases, one thread:
//
//   thermostat  bench/data/torch_rules.py's rule built with the Builder: a
//               hysteresis thermostat over 42 steps (comparisons and selects
//               per step) with a learned `correction` parameter, exact
//               semantics, as the Python bridge trains it (767 nodes: the
//               Builder keeps a constant node per literal, where the
//               frontend's 517 share them);
//   long_loop   eval_bench's 1000-iteration sum (3,002 nodes);
//   lookup      a tabulated rule: 24 steps of an 8-entry table read by an
//               integer zone through gather and, one-hot encoded, through
//               gather_one_hot, with a learned `gain` parameter (exact).
//
// Timed in interleaved rounds on the same columns (thread CPU time, the
// machines are shared), medians printed per case:
//
//   run_batch        Evaluator::run_batch: the checked batched forward;
//   tape forward     BatchGradientTape::forward keeping its record;
//   forward+reverse  the same forward, then BatchGradientTape::reverse with
//                    a seed of 1 for every case (input gradients per case,
//                    the parameter gradient summed).
//
// and the ratios: forward+reverse / run_batch (the figure) and
// forward+reverse / tape forward. The outputs of both forwards are compared
// bit for bit before timing.
#include <benchmark/benchmark.h>  // DoNotOptimize only: the rounds are timed here

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "eval/evaluator.h"
#include "grad/batch_gradients.h"
#include "ir/builder.h"

namespace {

constexpr std::size_t kCases = 4096;

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "batch_grad_bench: %s\n", what.c_str());
  std::exit(1);
}

tc::Program built(tc::Result<tc::Program> p, const char* name) {
  if (!p) fail(std::string("building ") + name + " failed: " + p.error().message);
  return std::move(p.value());
}

/// torch_rules.THERMOSTAT_SOURCE, node for node as the frontend lowers it
/// (if/elif on hard comparisons become selects), plus the correction.
tc::Program thermostat() {
  tc::Builder b;
  tc::Value temp = b.input("temp", tc::Domain::float64(-20, 40));
  tc::Value setpoint = b.input("setpoint", tc::Domain::float64(10, 30));
  tc::Value outside = b.input("outside", tc::Domain::float64(-40, 60));
  tc::Value correction = b.parameter("correction", 0.0);
  tc::Value seen = outside + correction;
  tc::Value heat = b.constant(0.0), energy = b.constant(0.0);
  for (int i = 0; i < 42; ++i) {
    tc::Value on = temp < setpoint - 0.5;
    tc::Value off = temp > setpoint + 0.5;
    heat = b.select(on, b.constant(1.0), b.select(off, b.constant(0.0), heat));
    temp = temp + 0.1 * (seen - temp) + 0.8 * heat;
    energy = energy + heat;
  }
  return built(b.build(temp + 0.01 * energy - correction), "thermostat");
}

tc::Program long_loop() {
  tc::Builder b;
  tc::Value x = b.input("x", tc::Domain::float64(-1000, 1000));
  tc::Value s = b.constant(0.0);
  for (int i = 0; i < 1000; ++i) s = s + x * i;
  return built(b.build(s), "long_loop");
}

tc::Program lookup() {
  tc::Builder b;
  tc::Value x = b.input("x", tc::Domain::float64(-1, 1));
  tc::Value zone = b.input("zone", tc::Domain::int32(0, 7));
  tc::Value gain = b.parameter("gain", 0.5);
  const std::vector<tc::Value> sel = b.one_hot(zone, 8);
  const std::vector<tc::Arg> selectors(sel.begin(), sel.end());
  tc::Value s = b.constant(0.0);
  for (int step = 0; step < 24; ++step) {
    std::vector<tc::Arg> table, other;
    for (int k = 0; k < 8; ++k) {
      table.emplace_back(x * (0.25 * k - 1.0) + 0.125 * step);
      other.emplace_back(s * (0.5 + 0.0625 * k));
    }
    s = gain * b.gather(table, zone) + b.gather_one_hot(selectors, other) * 0.5;
  }
  return built(b.build(s), "lookup");
}

struct Case {
  const char* name;
  tc::Program program;
  std::map<std::string, std::vector<double>> columns;  // by input name
};

std::map<std::string, std::vector<double>> uniform_columns(
    const std::vector<std::tuple<std::string, double, double>>& ranges) {
  std::mt19937_64 rng(7);
  std::map<std::string, std::vector<double>> cols;
  for (const auto& [name, lo, hi] : ranges) {
    std::uniform_real_distribution<double> d(lo, hi);
    std::vector<double> c(kCases);
    for (double& v : c) v = d(rng);
    cols[name] = std::move(c);
  }
  return cols;
}

double thread_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

struct Figures {
  double run_batch = 0, forward = 0, forward_reverse = 0;  // ns per case, medians
};

Figures measure(const Case& c, int rounds, int reps) {
  // The interpreter, pinned: under Auto a plan found in the plan cache (or
  // compiled in the background) would switch run_batch to generated C in
  // the middle of the rounds.
  tc::EvalOptions eo;
  eo.plan = tc::EvalPlan::Interpreter;
  auto ev = tc::Evaluator::create(c.program, eo);
  if (!ev) fail(ev.error().message);
  std::vector<std::string> names;
  for (const auto& [name, _] : c.program.outputs) names.push_back(name);
  auto tape = tc::BatchGradientTape::create(c.program, names, tc::GradOptions{});
  if (!tape) fail(tape.error().message);
  if (!tape->uses_blocks()) fail(std::string(c.name) + ": the batched tape does not use its block kernels");
  // Each side takes its columns in its own order: run_batch by input node
  // id, the tape by input name.
  std::vector<std::span<const double>> cols, tape_cols;
  for (tc::NodeId id : ev->input_ids()) cols.emplace_back(c.columns.at(c.program.nodes[static_cast<std::size_t>(id)].name));
  for (const std::string& name : tape->inputs()) tape_cols.emplace_back(c.columns.at(name));
  const tc::Env fixed;
  tc::BatchResult result;
  std::vector<double> outputs(kCases * tape->outputs().size());
  std::vector<double> input_grads(kCases * tape->input_leaf_count());
  std::vector<double> param_grads(tape->parameter_leaf_count());
  const double one = 1.0;
  const std::vector<std::span<const double>> seeds(tape->outputs().size(), std::span<const double>(&one, 1));

  auto run_batch = [&] {
    if (auto s = ev->run_batch(cols, kCases, fixed, result); !s) fail(s.error().message);
  };
  auto forward = [&](tc::BatchRecord* record) {
    if (auto s = tape->forward(tape_cols, kCases, fixed, outputs, record); !s) fail(s.error().message);
  };
  auto forward_reverse = [&] {
    tc::BatchRecord record;
    forward(&record);
    if (auto s = tape->reverse(record, seeds, input_grads, param_grads); !s) fail(s.error().message);
  };

  // The two forwards agree bit for bit, case for case.
  run_batch();
  forward(nullptr);
  for (std::size_t k = 0; k < kCases; ++k)
    if (std::memcmp(&outputs[k], &result.outputs[0][k], sizeof(double)) != 0)
      fail(std::string(c.name) + ": tape forward and run_batch disagree at case " + std::to_string(k));

  std::vector<double> rb, fw, fr;
  for (int r = 0; r < rounds; ++r) {
    double t0 = thread_seconds();
    for (int k = 0; k < reps; ++k) run_batch();
    double t1 = thread_seconds();
    for (int k = 0; k < reps; ++k) {
      tc::BatchRecord record;
      forward(&record);
    }
    double t2 = thread_seconds();
    for (int k = 0; k < reps; ++k) forward_reverse();
    double t3 = thread_seconds();
    const double per = 1e9 / (static_cast<double>(reps) * kCases);
    rb.push_back((t1 - t0) * per);
    fw.push_back((t2 - t1) * per);
    fr.push_back((t3 - t2) * per);
  }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  benchmark::DoNotOptimize(param_grads.data());
  return Figures{median(rb), median(fw), median(fr)};
}

std::vector<Case> cases() {
  std::vector<Case> v;
  v.push_back(Case{"thermostat", thermostat(), uniform_columns({{"temp", 5, 30}, {"setpoint", 18, 23}, {"outside", -10, 30}})});
  v.push_back(Case{"long_loop", long_loop(), uniform_columns({{"x", -1000, 1000}})});
  auto lookup_columns = uniform_columns({{"x", -1, 1}, {"zone", 0, 8}});
  for (double& z : lookup_columns["zone"]) z = std::min(7.0, std::floor(z));
  v.push_back(Case{"lookup", lookup(), std::move(lookup_columns)});
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  // An argument names the one circuit to run (for profiling one of them).
  const std::string only = argc > 1 ? argv[1] : "";
  std::printf("\n%zu cases, one thread, medians of 15 interleaved rounds (thread CPU time), ns per case\n", kCases);
  std::printf("%-11s %6s %11s %13s %16s %14s %18s\n", "circuit", "nodes", "run_batch", "tape forward",
              "forward+reverse", "fwd+rev/run", "fwd+rev/tape fwd");
  for (const Case& c : cases()) {
    if (!only.empty() && only != c.name) continue;
    const Figures f = measure(c, 15, 10);
    std::printf("%-11s %6zu %11.1f %13.1f %16.1f %13.2fx %17.2fx\n", c.name, c.program.nodes.size(), f.run_batch,
                f.forward, f.forward_reverse, f.forward_reverse / f.run_batch, f.forward_reverse / f.forward);
  }
  std::printf("target (issue 26): forward+reverse <= 3x the batched forward (run_batch)\n");
  return 0;
}
