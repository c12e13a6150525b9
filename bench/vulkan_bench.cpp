// Cases per second for 1,000,000 cases of a 1,000-node float32 circuit: the
// Vulkan runner (lavapipe when there is no GPU, which itself uses every core)
// against the CPU batched evaluator on every core (Evaluator::run_batch with
// threads = 0), measured in the same run in interleaved rounds; the ratio is
// the result. Pipeline creation (WGSL -> SPIR-V, shader module, compute
// pipeline) is reported separately.
//
// Every output of every case is compared with the CPU's, by the tolerance
// class of docs/backends.md ("Tolerances") that the output's node falls in:
// bit-identical for outputs built from exact ops only; 4 + 2|x| ulp for a
// sigmoid of an exact value; relative 1e-4 for arithmetic on sigmoid
// results; not compared behind a decision on a sigmoid result; an error
// case must fail on both sides. Any mismatch makes the run exit 1; no
// Vulkan device (or a build without it) exits 77, having measured nothing.
//
// usage: tc_vulkan_bench [--cases N] [--nodes N] [--rounds N] [--threads N (CPU side; 0 = every core)]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "emit/program_gen.h"
#include "eval/evaluator.h"
#ifdef TC_HAVE_VULKAN
#include "vulkan/runner.h"
#endif

namespace {

using namespace tc;

/// The layered circuit (values stay in [-1, 1], so no case fails: affine
/// means, products, relu, max via compare + select, and sigmoid, or negation
/// in its place for the twin compared bit for bit) is the tests'
/// bounded_program with seed 2024.
Program circuit(int nodes, int inputs, bool with_sigmoid = true) {
  return testgen::bounded_program(nodes, 2024, with_sigmoid, inputs);
}

/// Tolerance classes of docs/backends.md, from the node's dependencies.
enum class Tol { Exact, SigmoidUlp, Relative, Undecided };

std::vector<Tol> tolerance_classes(const Program& p) {
  std::vector<Tol> t(p.nodes.size(), Tol::Exact);
  for (std::size_t i = 0; i < p.nodes.size(); ++i) {
    const Node& n = p.nodes[i];
    Tol worst = Tol::Exact;
    bool undecided = false;
    for (NodeId a : n.args) {
      const Tol ta = t[static_cast<std::size_t>(a)];
      undecided |= ta == Tol::Undecided;
      if (ta != Tol::Exact) worst = Tol::Relative;
    }
    if (undecided) {
      t[i] = Tol::Undecided;
    } else if (n.op == Op::Sigmoid) {
      t[i] = worst == Tol::Exact ? Tol::SigmoidUlp : Tol::Relative;
    } else if (is_comparison(n.op)) {
      t[i] = worst == Tol::Exact ? Tol::Exact : Tol::Undecided;  // the decision may go either way
    } else if (n.op == Op::Select && t[static_cast<std::size_t>(n.args[0])] != Tol::Exact) {
      t[i] = Tol::Undecided;
    } else {
      t[i] = worst;
    }
  }
  return t;
}

/// Whether the backend's value `g` is within `tol` of the CPU's `c`.
bool within(Tol tol, double c, double g) {
  switch (tol) {
    case Tol::Exact: return std::memcmp(&c, &g, sizeof c) == 0;
    case Tol::Undecided: return true;
    case Tol::Relative: return c == g || std::fabs(g - c) <= 1e-4 * std::fabs(c);
    case Tol::SigmoidUlp: {
      if (c == g) return true;
      // x recovered from the CPU's result; results below the smallest
      // normal float32 may flush to 0.
      if (std::fabs(c) < 1.1754943508222875e-38 && g == 0.0) return true;
      const double x = std::log(c / (1.0 - c));
      const double bound = 4.0 + 2.0 * (std::isfinite(x) ? std::fabs(x) : 200.0);
      const float cf = static_cast<float>(c);
      const double ulp = static_cast<double>(std::nextafter(cf, INFINITY) - cf);
      return std::fabs(g - c) <= bound * ulp;
    }
  }
  return false;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
#ifndef TC_HAVE_VULKAN
  (void)argc;
  (void)argv;
  (void)&circuit;
  (void)&tolerance_classes;
  (void)&within;
  // 77: "skipped" for scripts and ctest; no figure was measured.
  std::printf("{\"skipped\": \"built without TC_ENABLE_VULKAN\"}\n");
  return 77;
#else
  std::size_t cases = 1000000;
  int nodes = 1000, rounds = 3;
  unsigned threads = 0;  // the CPU side on every core
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--cases")) cases = std::strtoull(argv[i + 1], nullptr, 10);
    if (!std::strcmp(argv[i], "--nodes")) nodes = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--rounds")) rounds = std::max(1, std::atoi(argv[i + 1]));
    if (!std::strcmp(argv[i], "--threads")) threads = static_cast<unsigned>(std::atoi(argv[i + 1]));
  }
  const int n_inputs = 8;
  Program p = circuit(nodes, n_inputs);
  std::mt19937_64 rng(7);
  std::vector<std::vector<double>> cols(n_inputs, std::vector<double>(cases));
  for (auto& col : cols)
    for (double& v : col) v = static_cast<float>(std::uniform_real_distribution<double>(-1, 1)(rng));
  std::vector<std::span<const double>> spans(cols.begin(), cols.end());

  EvalOptions eo;
  eo.dtype = Dtype::Float32;
  auto ev = Evaluator::create(p, eo);
  if (!ev.ok()) {
    std::fprintf(stderr, "error: %s\n", ev.error().message.c_str());
    return 3;
  }
  const auto t_create = std::chrono::steady_clock::now();
  auto runner = vk::Runner::create(p);
  const double create_s = seconds_since(t_create);
  if (!runner.ok()) {
    std::printf("{\"skipped\": \"%s\"}\n", runner.error().message.c_str());
    return 77;  // no device: nothing measured, which is not a success
  }
  std::vector<double> cpu_s, gpu_s;
  std::size_t mismatched = 0, compared = 0, undecided = 0;
  const std::vector<Tol> tol = tolerance_classes(p);
  for (int r = 0; r < rounds; ++r) {
    BatchResult cpu, gpu;
    auto t0 = std::chrono::steady_clock::now();
    if (!ev->run_batch(spans, cases, Env{}, cpu, threads).ok()) return 3;
    cpu_s.push_back(seconds_since(t0));
    t0 = std::chrono::steady_clock::now();
    if (!runner->run_batch(spans, cases, gpu).ok()) return 3;
    gpu_s.push_back(seconds_since(t0));
    if (r == 0)
      for (std::size_t c = 0; c < cases; ++c) {
        bool bad = cpu.failed[c] != gpu.failed[c];
        for (std::size_t o = 0; o < p.outputs.size() && !bad && !cpu.failed[c]; ++o) {
          const Tol t = tol[static_cast<std::size_t>(p.outputs[o].second)];
          (t == Tol::Undecided ? undecided : compared) += 1;
          bad = !within(t, cpu.outputs[o][c], gpu.outputs[o][c]);
        }
        mismatched += bad;
      }
  }
  // In the circuit above nearly every output lies behind a decision on a
  // sigmoid result, which the tolerance rules leave uncompared; the same
  // generator without sigmoid (negation instead) must then match bit for bit
  // on every output.
  std::size_t exact_compared = 0, exact_nonzero = 0;
  {
    const Program q = circuit(nodes, n_inputs, false);
    auto qev = Evaluator::create(q, eo);
    auto qrun = vk::Runner::create(q);
    if (!qev.ok() || !qrun.ok()) {
      std::fprintf(stderr, "error: preparing the sigmoid-free circuit failed\n");
      return 3;
    }
    const std::vector<Tol> qtol = tolerance_classes(q);
    BatchResult cpu, gpu;
    if (!qev->run_batch(spans, cases, Env{}, cpu, threads).ok() || !qrun->run_batch(spans, cases, gpu).ok()) return 3;
    for (std::size_t c = 0; c < cases; ++c) {
      bool bad = cpu.failed[c] != gpu.failed[c];
      for (std::size_t o = 0; o < q.outputs.size() && !bad && !cpu.failed[c]; ++o) {
        const Tol t = qtol[static_cast<std::size_t>(q.outputs[o].second)];
        exact_compared += t == Tol::Exact;
        exact_nonzero += t == Tol::Exact && cpu.outputs[o][c] != 0.0;
        bad = !within(t, cpu.outputs[o][c], gpu.outputs[o][c]);
      }
      mismatched += bad;
    }
  }
  const double cpu_rate = static_cast<double>(cases) / median(cpu_s);
  const double gpu_rate = static_cast<double>(cases) / median(gpu_s);
  std::printf(
      "{\"device\": \"%s\", \"nodes\": %zu, \"cases\": %zu, \"rounds\": %d,\n"
      " \"cpu_cases_per_s\": %.0f, \"vulkan_cases_per_s\": %.0f, \"vulkan_over_cpu\": %.3f,\n"
      " \"runner_create_s\": %.3f, \"pipeline_s\": %.3f, \"pipelines\": %zu, \"cpu_threads\": %u,\n"
      " \"outputs_compared\": %zu, \"outputs_undecided\": %zu, \"exact_outputs_compared\": %zu, \"exact_nonzero\": %zu,"
      " \"mismatched_cases\": %zu}\n",
      runner->stats().device.c_str(), p.nodes.size(), cases, rounds, cpu_rate, gpu_rate, gpu_rate / cpu_rate, create_s,
      runner->stats().pipeline_seconds, runner->stats().stages, threads, compared, undecided, exact_compared, exact_nonzero, mismatched);
  return mismatched == 0 ? 0 : 1;
#endif
}
