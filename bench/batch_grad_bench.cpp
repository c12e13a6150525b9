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
//                    the parameter gradient summed);
//
// each twice: with the interpreter (the evaluator's, the tape's block
// kernels) and with the compiled plans (the evaluator's forward, the tape's
// forward and reverse: grad/batch_compiled.cpp), every row's plan pinned.
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
#include <filesystem>
#include <ctime>
#include <map>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include <unistd.h>

#include "eval/compiled_plan.h"
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
/// (if/elif on hard comparisons become selects), plus the correction; with
/// fewer steps, a rule of the small size people write (--compile-times).
tc::Program thermostat(int steps = 42) {
  tc::Builder b;
  tc::Value temp = b.input("temp", tc::Domain::float64(-20, 40));
  tc::Value setpoint = b.input("setpoint", tc::Domain::float64(10, 30));
  tc::Value outside = b.input("outside", tc::Domain::float64(-40, 60));
  tc::Value correction = b.parameter("correction", 0.0);
  tc::Value seen = outside + correction;
  tc::Value heat = b.constant(0.0), energy = b.constant(0.0);
  for (int i = 0; i < steps; ++i) {
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
  // ns per case, medians: the interpreter's (block kernels) and the
  // compiled plans' (the evaluator's forward, the batched tape's).
  double run_batch = 0, forward = 0, forward_reverse = 0;
  double run_batch_c = 0, forward_c = 0, forward_reverse_c = 0;
  bool compiled = false;       ///< the tape's compiled plan ran
  std::string why;             ///< why not
  double compile_s = 0;        ///< writing, compiling (or finding) and loading it
  bool cache_hit = false;
  // One case (ns per case, medians): the per-case tape's run(), and a block
  // of one case through the compiled plan (forward and reverse), which is
  // what ProgramSession::gradients runs once the plan is loaded.
  double one_tape = 0, one_compiled = 0;
};

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

Figures measure(const Case& c, int rounds, int reps) {
  // Every row pinned: under Auto a plan found in the plan cache (or
  // compiled in the background) would switch to generated C in the middle
  // of the rounds. Interpreter rows never compile; Compiled rows compile (or
  // load) before the first timed call.
  tc::EvalOptions eo;
  eo.plan = tc::EvalPlan::Interpreter;
  auto ev = tc::Evaluator::create(c.program, eo);
  if (!ev) fail(ev.error().message);
  eo.plan = tc::EvalPlan::Compiled;
  auto evc = tc::Evaluator::create(c.program, eo);
  if (!evc) fail(evc.error().message);
  std::vector<std::string> names;
  for (const auto& [name, _] : c.program.outputs) names.push_back(name);
  tc::GradOptions go;
  go.plan = tc::EvalPlan::Interpreter;
  auto tape = tc::BatchGradientTape::create(c.program, names, go);
  if (!tape) fail(tape.error().message);
  go.plan = tc::EvalPlan::Compiled;
  auto tapec = tc::BatchGradientTape::create(c.program, names, go);
  if (!tapec) fail(tapec.error().message);
  if (!tape->uses_blocks()) fail(std::string(c.name) + ": the batched tape does not use its block kernels");
  // Each side takes its columns in its own order: run_batch by input node
  // id, the tape by input name.
  std::vector<std::span<const double>> cols, tape_cols;
  for (tc::NodeId id : ev->input_ids()) cols.emplace_back(c.columns.at(c.program.nodes[static_cast<std::size_t>(id)].name));
  for (const std::string& name : tape->inputs()) tape_cols.emplace_back(c.columns.at(name));
  const tc::Env fixed;
  tc::BatchResult result, result_c;
  std::vector<double> outputs(kCases * tape->outputs().size()), outputs_c(outputs.size());
  std::vector<double> input_grads(kCases * tape->input_leaf_count()), input_grads_c(input_grads.size());
  std::vector<double> param_grads(tape->parameter_leaf_count()), param_grads_c(param_grads.size());
  const double one = 1.0;
  const std::vector<std::span<const double>> seeds(tape->outputs().size(), std::span<const double>(&one, 1));

  auto run_batch = [&](tc::Evaluator& e, tc::BatchResult& r) {
    if (auto s = e.run_batch(cols, kCases, fixed, r); !s) fail(s.error().message);
  };
  auto forward = [&](tc::BatchGradientTape& t, std::vector<double>& out, tc::BatchRecord* record) {
    if (auto s = t.forward(tape_cols, kCases, fixed, out, record); !s) fail(s.error().message);
  };
  auto forward_reverse = [&](tc::BatchGradientTape& t, std::vector<double>& out, std::vector<double>& gi,
                             std::vector<double>& gp) {
    tc::BatchRecord record;
    forward(t, out, &record);
    if (auto s = t.reverse(record, seeds, gi, gp); !s) fail(s.error().message);
  };

  // The forwards agree bit for bit, case for case, and so do both reverse
  // passes (this also compiles the plans before the timed rounds).
  run_batch(*ev, result);
  run_batch(*evc, result_c);
  forward(*tape, outputs, nullptr);
  forward_reverse(*tape, outputs, input_grads, param_grads);
  forward_reverse(*tapec, outputs_c, input_grads_c, param_grads_c);
  for (std::size_t k = 0; k < kCases; ++k)
    if (std::memcmp(&outputs[k], &result.outputs[0][k], sizeof(double)) != 0 ||
        std::memcmp(&outputs_c[k], &result.outputs[0][k], sizeof(double)) != 0 ||
        std::memcmp(&result_c.outputs[0][k], &result.outputs[0][k], sizeof(double)) != 0)
      fail(std::string(c.name) + ": the forwards disagree at case " + std::to_string(k));
  if (std::memcmp(input_grads.data(), input_grads_c.data(), input_grads.size() * sizeof(double)) != 0 ||
      std::memcmp(param_grads.data(), param_grads_c.data(), param_grads.size() * sizeof(double)) != 0)
    fail(std::string(c.name) + ": the compiled reverse pass disagrees with the block kernels");
  Figures f;
  const tc::PlanStatus ps = tapec->plan_status();
  f.compiled = ps.compiled;
  f.why = ps.summary;
  f.compile_s = ps.compile_seconds;
  f.cache_hit = ps.cache_hit;

  // One case, cycling through the columns' first 256 cases.
  auto pt = tc::GradientTape::create(c.program, names, tc::GradOptions{});
  if (!pt) fail(pt.error().message);
  std::vector<tc::Env> envs(256);
  std::vector<std::vector<double>> one_cols(tape->inputs().size(), std::vector<double>(256));
  for (std::size_t k = 0; k < 256; ++k)
    for (std::size_t i = 0; i < tape->inputs().size(); ++i) {
      const std::string& name = tape->inputs()[i];
      envs[k].inputs[name] = one_cols[i][k] = c.columns.at(name)[k];
    }
  std::vector<double> one_out(tape->outputs().size()), one_gin(tape->input_leaf_count()),
      one_gpar(tape->parameter_leaf_count());
  std::size_t next = 0;
  auto one_case_tape = [&] {
    auto r = pt->run(envs[next++ % 256]);
    if (!r) fail(r.error().message);
    benchmark::DoNotOptimize(r->result);
  };
  auto one_case_compiled = [&] {
    const std::size_t k = next++ % 256;
    std::vector<std::span<const double>> one;
    for (const auto& col : one_cols) one.emplace_back(&col[k], 1);
    tc::BatchRecord record;
    if (auto s = tapec->forward(one, 1, fixed, one_out, &record); !s) fail(s.error().message);
    if (auto s = tapec->reverse(record, seeds, one_gin, one_gpar); !s) fail(s.error().message);
  };
  std::vector<double> rb, fw, fr, rbc, fwc, frc, ot, oc;
  const int one_reps = 2000;
  auto timed = [&](std::vector<double>& into, auto&& body) {
    const double t0 = thread_seconds();
    for (int k = 0; k < reps; ++k) body();
    into.push_back((thread_seconds() - t0) * 1e9 / (static_cast<double>(reps) * kCases));
  };
  for (int r = 0; r < rounds; ++r) {
    timed(rb, [&] { run_batch(*ev, result); });
    timed(fw, [&] {
      tc::BatchRecord record;
      forward(*tape, outputs, &record);
    });
    timed(fr, [&] { forward_reverse(*tape, outputs, input_grads, param_grads); });
    timed(rbc, [&] { run_batch(*evc, result_c); });
    timed(fwc, [&] {
      tc::BatchRecord record;
      forward(*tapec, outputs_c, &record);
    });
    timed(frc, [&] { forward_reverse(*tapec, outputs_c, input_grads_c, param_grads_c); });
    double t0 = thread_seconds();
    for (int k = 0; k < one_reps; ++k) one_case_tape();
    double t1 = thread_seconds();
    for (int k = 0; k < one_reps; ++k) one_case_compiled();
    double t2 = thread_seconds();
    ot.push_back((t1 - t0) * 1e9 / one_reps);
    oc.push_back((t2 - t1) * 1e9 / one_reps);
  }
  benchmark::DoNotOptimize(param_grads.data());
  benchmark::DoNotOptimize(param_grads_c.data());
  f.run_batch = median_of(rb);
  f.forward = median_of(fw);
  f.forward_reverse = median_of(fr);
  f.run_batch_c = median_of(rbc);
  f.forward_c = median_of(fwc);
  f.forward_reverse_c = median_of(frc);
  f.one_tape = median_of(ot);
  f.one_compiled = median_of(oc);
  return f;
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

/// --compile-times: each circuit's plans compiled cold (a fresh, empty
/// cache folder per round), the evaluator's forward plan and the batched
/// tape's gradient plan, against the Auto rule's estimates
/// (eval_detail::estimated_compile_seconds). Wall seconds from the plan's
/// status: writing the source, compiling, loading.
void compile_times(const std::string& only, int rounds) {
  std::printf("\ncold compiles, %d rounds, medians (wall s) and the Auto rule's estimates\n", rounds);
  std::printf("%-11s %6s | %9s %9s %7s | %9s %9s %7s | %9s\n", "circuit", "nodes", "forward", "estimate", "ratio",
              "gradient", "estimate", "ratio", "grad/fwd");
  const auto root = std::filesystem::temp_directory_path() / ("tc_compile_times_" + std::to_string(::getpid()));
  std::vector<Case> all = cases();
  all.insert(all.begin(), Case{"small_rule", thermostat(3), all.front().columns});
  for (const Case& c : all) {
    if (!only.empty() && only != c.name) continue;
    std::vector<std::string> names;
    for (const auto& [name, _] : c.program.outputs) names.push_back(name);
    std::vector<double> fwd, grad;
    for (int r = 0; r < rounds; ++r) {
      const auto dir = root / (std::string(c.name) + "_" + std::to_string(r));
      std::filesystem::remove_all(dir);
      std::filesystem::create_directories(dir);
      std::filesystem::permissions(dir, std::filesystem::perms::owner_all, std::filesystem::perm_options::replace);
      ::setenv("TC_CACHE_DIR", dir.c_str(), 1);
      tc::EvalOptions eo;
      eo.plan = tc::EvalPlan::Compiled;
      auto ev = tc::Evaluator::create(c.program, eo);
      if (!ev) fail(ev.error().message);
      std::vector<std::span<const double>> cols;
      for (tc::NodeId id : ev->input_ids())
        cols.emplace_back(c.columns.at(c.program.nodes[static_cast<std::size_t>(id)].name).data(), 64);
      tc::BatchResult result;
      if (auto st = ev->run_batch(cols, 64, tc::Env{}, result); !st) fail(st.error().message);
      const tc::PlanStatus fs = ev->plan_status();
      if (!fs.compiled || fs.cache_hit) fail(std::string(c.name) + ": the forward plan was not compiled cold: " + fs.summary);
      fwd.push_back(fs.compile_seconds);
      tc::GradOptions go;
      go.plan = tc::EvalPlan::Compiled;
      auto tape = tc::BatchGradientTape::create(c.program, names, go);
      if (!tape) fail(tape.error().message);
      std::vector<std::span<const double>> tape_cols;
      for (const std::string& name : tape->inputs()) tape_cols.emplace_back(c.columns.at(name).data(), 64);
      std::vector<double> out(64 * tape->outputs().size());
      if (auto st = tape->forward(tape_cols, 64, tc::Env{}, out, nullptr); !st) fail(st.error().message);
      const tc::PlanStatus gs = tape->plan_status();
      if (gs.cache_hit) fail(std::string(c.name) + ": the gradient plan was found in an empty cache");
      if (gs.compiled) grad.push_back(gs.compile_seconds);  // else an op without a compiled form (gathers)
    }
    const std::size_t nodes = c.program.nodes.size();
    const double f = median_of(fwd), g = grad.empty() ? NAN : median_of(grad);
    const double fe = tc::eval_detail::estimated_compile_seconds(nodes, tc::eval_detail::PlanWork::Batch);
    const double ge = tc::eval_detail::estimated_compile_seconds(nodes, tc::eval_detail::PlanWork::GradientBatch);
    std::printf("%-11s %6zu | %9.3f %9.3f %6.2fx | %9.3f %9.3f %6.2fx | %8.2fx\n", c.name, nodes, f, fe, f / fe, g, ge,
                g / ge, g / f);
  }
  std::filesystem::remove_all(root);
  const char* isa = std::getenv("TC_PLAN_ISA");
  std::printf("ratio: measured / estimated (TC_PLAN_ISA=%s)\n", isa && *isa ? isa : "(the best this processor runs)");
}

}  // namespace

int main(int argc, char** argv) {
  // An argument names the one circuit to run (for profiling one of them);
  // --compile-times [CIRCUIT] times cold plan compiles instead.
  if (argc > 1 && std::string(argv[1]) == "--compile-times") {
    compile_times(argc > 2 ? argv[2] : "", 3);
    return 0;
  }
  const std::string only = argc > 1 ? argv[1] : "";
  const char* isa = std::getenv("TC_PLAN_ISA");
  std::printf("\n%zu cases, one thread, medians of 15 interleaved rounds (thread CPU time), ns per case;\n"
              "interpreter: the evaluator's interpreter and the tape's block kernels; compiled: the evaluator's\n"
              "compiled plan and the tape's (TC_PLAN_ISA=%s)\n",
              kCases, isa && *isa ? isa : "(the best this processor runs)");
  std::printf("%-11s %6s | %9s %9s %9s | %9s %9s %9s | %11s %11s\n", "circuit", "nodes", "run_batch", "tape fwd",
              "fwd+rev", "run_batch", "tape fwd", "fwd+rev", "fr/run_b c", "fr i/fr c");
  std::printf("%-18s | %29s | %29s |\n", "", "interpreter", "compiled");
  for (const Case& c : cases()) {
    if (!only.empty() && only != c.name) continue;
    const Figures f = measure(c, 15, 10);
    std::printf("%-11s %6zu | %9.1f %9.1f %9.1f | %9.1f %9.1f %9.1f | %10.2fx %10.2fx\n", c.name,
                c.program.nodes.size(), f.run_batch, f.forward, f.forward_reverse, f.run_batch_c, f.forward_c,
                f.forward_reverse_c, f.forward_reverse_c / f.run_batch_c, f.forward_reverse / f.forward_reverse_c);
    if (f.compiled)
      std::printf("            the tape's plan: %s, %s in %.2f s; one case: per-case tape run() %.0f ns, a block of one "
                  "through the plan %.0f ns (%.1fx)\n",
                  f.why.c_str(), f.cache_hit ? "found in the cache" : "compiled", f.compile_s, f.one_tape, f.one_compiled,
                  f.one_tape / f.one_compiled);
    else
      std::printf("            the tape's plan: %s (its compiled rows ran the block kernels)\n", f.why.c_str());
  }
  std::printf("targets: forward+reverse <= 3x the batched forward (issue 26); compiled forward+reverse <= 3x the\n"
              "compiled forward and <= 3x the forward limit (eval_bench's BM_native_soa, long_loop; issue 35)\n");
  return 0;
}
