// Cases per second for 1,000,000 cases of a 1,000-node float32 circuit: the
// Vulkan runner (lavapipe when there is no GPU, which itself uses every core)
// against the CPU batched evaluator on every core (Evaluator::run_batch with
// threads = 0), measured in the same run in interleaved rounds; the ratio is
// the result. Pipeline creation (WGSL -> SPIR-V, shader module, compute
// pipeline) is reported separately.
//
// Every output of every case is compared with the CPU's by the tolerance
// classes of tests/data/backends/tolerances.json (docs/backends.md,
// "Tolerances"), the file tests/vulkan/vulkan_runner_test.cpp and
// tests/node/check_backends.mjs read, classified the way that test does:
// outputs (and 16 probed internal nodes, see classify) built from exact ops
// only are bit-identical (+0 and -0 equal); a
// sigmoid output is within ulp_base + ulp_per_abs_argument * |x| ulp, x its
// argument in that case (run as an extra output on both sides), or both
// below flush_below; arithmetic on sigmoid results satisfies
// |gpu - cpu| <= relative * |cpu| + absolute; outputs behind a decision on a
// sigmoid result are not compared (counted as outputs_behind_decision); an
// error case must fail on both sides. Any mismatch makes the run exit 1; no
// Vulkan device (or a build without it) exits 77, having measured nothing.
//
// usage: tc_vulkan_bench [--cases N] [--nodes N] [--rounds N] [--threads N (CPU side; 0 = every core)]
//                        [--tolerances FILE (default: the source tree's tests/data/backends/tolerances.json)]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

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

/// The tolerance classes of tests/data/backends/tolerances.json.
struct Tolerances {
  double sigmoid_base = 0, sigmoid_per_abs_arg = 0, flush_below = 0, derived_relative = 0, derived_absolute = 0;
};

/// Reads the classes; an unreadable file or a missing field is an error
/// message (the bench then exits 2 rather than compare with made-up bounds).
std::string read_tolerances(const std::string& path, Tolerances& t) {
  std::ifstream in(path);
  if (!in) return "cannot read tolerances file " + path;
  try {
    const auto j = nlohmann::json::parse(in);
    if (j.at("exact").at("ulp").get<int>() != 0) return path + ": exact.ulp is not 0, which this bench cannot check";
    t.sigmoid_base = j.at("sigmoid").at("ulp_base").get<double>();
    t.sigmoid_per_abs_arg = j.at("sigmoid").at("ulp_per_abs_argument").get<double>();
    t.flush_below = j.at("sigmoid").at("flush_below").get<double>();
    t.derived_relative = j.at("derived").at("relative").get<double>();
    t.derived_absolute = j.at("derived").at("absolute").get<double>();
  } catch (const std::exception& e) {
    return path + ": " + e.what();
  }
  return {};
}

/// How an output is compared (tests/vulkan/vulkan_runner_test.cpp's rules).
enum class Tol { Exact, Sigmoid, Derived, BehindDecision };

/// The program extended for the comparison: kProbes internal nodes spread
/// evenly over the circuit, chosen among those a decision on a sigmoid
/// result does not precede, become extra outputs (the real outputs of a deep
/// circuit are mostly behind such a decision, or underflow to 0 in float32,
/// so they alone would compare little), and each compared sigmoid's argument
/// is appended too (so the CPU says what x was in each case). `tol` and
/// `arg_output` describe the compared outputs: the real ones, then the
/// probes.
constexpr std::size_t kProbes = 16;

struct Classified {
  Program program;
  std::vector<Tol> tol;
  std::vector<std::size_t> arg_output;
};

Classified classify(const Program& original) {
  Classified c{original, {}, {}};
  Program& p = c.program;
  // The tolerance classes of tests/vulkan (testgen::sigmoid_dependence).
  const testgen::SigmoidDependence dep = testgen::sigmoid_dependence(p);
  const std::vector<std::uint8_t>& exp_dep = dep.value;
  const std::vector<std::uint8_t>& exp_decision = dep.decision;
  std::vector<NodeId> candidates;
  for (const Node& n : p.nodes)
    if (!is_leaf(n.op) && !exp_decision[static_cast<std::size_t>(n.id)]) candidates.push_back(n.id);
  const std::size_t probes = std::min(kProbes, candidates.size());
  for (std::size_t k = 0; k < probes; ++k)
    p.outputs.push_back({"__probe_" + std::to_string(k), candidates[(2 * k + 1) * candidates.size() / (2 * probes)]});
  const std::size_t compared = p.outputs.size();
  c.arg_output.assign(compared, 0);
  for (std::size_t o = 0; o < compared; ++o) {
    const Node& out = p.nodes[static_cast<std::size_t>(p.outputs[o].second)];
    const auto i = static_cast<std::size_t>(out.id);
    c.tol.push_back(out.op == Op::Sigmoid ? Tol::Sigmoid
                    : exp_decision[i]     ? Tol::BehindDecision
                    : exp_dep[i]          ? Tol::Derived
                                          : Tol::Exact);
    if (out.op != Op::Sigmoid) continue;
    c.arg_output[o] = p.outputs.size();
    p.outputs.push_back({"__sigmoid_argument_" + std::to_string(o), out.args[0]});
  }
  return c;
}

/// Whether the backend's value `g` is within `tol` of the CPU's `c` (both
/// float32 values); `x` is the sigmoid's argument for Tol::Sigmoid.
bool within(const Tolerances& t, Tol tol, double c, double g, double x) {
  const float a = static_cast<float>(c), b = static_cast<float>(g);
  switch (tol) {
    case Tol::Exact: return (a == 0.0f && b == 0.0f) || std::memcmp(&a, &b, sizeof a) == 0;
    case Tol::BehindDecision: return true;  // the decision may go either way; never counted as compared
    case Tol::Derived: {
      const double diff = std::fabs(static_cast<double>(a) - static_cast<double>(b));
      return diff <= t.derived_relative * std::fabs(static_cast<double>(a)) + t.derived_absolute;
    }
    case Tol::Sigmoid: {
      if (std::fabs(a) < t.flush_below && std::fabs(b) < t.flush_below) return true;
      const double bound = t.sigmoid_base + t.sigmoid_per_abs_arg * std::fabs(static_cast<double>(static_cast<float>(x)));
      return static_cast<double>(testgen::ulp_distance(a, b)) <= bound;
    }
  }
  return false;
}

/// Counts per class over every case, and the mismatched cases.
struct Tally {
  std::size_t exact = 0, sigmoid = 0, derived = 0, behind_decision = 0, mismatched = 0;
};

void compare_all(const Tolerances& t, const Classified& cl, const BatchResult& cpu, const BatchResult& gpu,
                 std::size_t cases, Tally& tally) {
  for (std::size_t c = 0; c < cases; ++c) {
    bool bad = cpu.failed[c] != gpu.failed[c];
    for (std::size_t o = 0; o < cl.tol.size() && !bad && !cpu.failed[c]; ++o) {
      const Tol k = cl.tol[o];
      (k == Tol::Exact ? tally.exact : k == Tol::Sigmoid ? tally.sigmoid : k == Tol::Derived ? tally.derived
                                                                                             : tally.behind_decision) += 1;
      const double x = k == Tol::Sigmoid ? cpu.outputs[cl.arg_output[o]][c] : 0.0;
      bad = !within(t, k, cpu.outputs[o][c], gpu.outputs[o][c], x);
    }
    tally.mismatched += bad;
  }
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
  (void)&read_tolerances;
  (void)&classify;
  (void)&compare_all;
  // 77: "skipped" for scripts and ctest; no figure was measured.
  std::printf("{\"skipped\": \"built without TC_ENABLE_VULKAN\"}\n");
  return 77;
#else
  std::size_t cases = 1000000;
  int nodes = 1000, rounds = 3;
  unsigned threads = 0;  // the CPU side on every core
  std::string tolerances_path = TC_TOLERANCES_JSON;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--tolerances")) tolerances_path = argv[i + 1];
    if (!std::strcmp(argv[i], "--cases")) cases = std::strtoull(argv[i + 1], nullptr, 10);
    if (!std::strcmp(argv[i], "--nodes")) nodes = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--rounds")) rounds = std::max(1, std::atoi(argv[i + 1]));
    if (!std::strcmp(argv[i], "--threads")) threads = static_cast<unsigned>(std::atoi(argv[i + 1]));
  }
  Tolerances tols;
  if (const std::string err = read_tolerances(tolerances_path, tols); !err.empty()) {
    std::fprintf(stderr, "error: %s\n", err.c_str());
    return 2;
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
  // The batched interpreter, pinned: under Auto a cached (or background
  // compiled) plan would switch the CPU side to generated C between rounds.
  eo.plan = EvalPlan::Interpreter;
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
  for (int r = 0; r < rounds; ++r) {
    BatchResult cpu, gpu;
    auto t0 = std::chrono::steady_clock::now();
    if (!ev->run_batch(spans, cases, Env{}, cpu, threads).ok()) return 3;
    cpu_s.push_back(seconds_since(t0));
    t0 = std::chrono::steady_clock::now();
    if (!runner->run_batch(spans, cases, gpu).ok()) return 3;
    gpu_s.push_back(seconds_since(t0));
  }
  // The comparison runs the timed circuit once more, extended with probes
  // and sigmoid arguments as extra outputs (see classify; outside the timed
  // rounds, so the figures are those of the circuit itself). In that circuit
  // nearly every real output lies behind a decision on a sigmoid result,
  // which the tolerance rules leave uncompared; the same generator without
  // sigmoid (negation instead) must then match bit for bit on every output
  // and probe.
  Tally main_tally, twin_tally;
  std::size_t exact_nonzero = 0;
  for (bool with_sigmoid : {true, false}) {
    const Classified cl = classify(with_sigmoid ? p : circuit(nodes, n_inputs, false));
    auto cev = Evaluator::create(cl.program, eo);
    auto crun = vk::Runner::create(cl.program);
    if (!cev.ok() || !crun.ok()) {
      std::fprintf(stderr, "error: preparing the %s circuit for comparison failed\n",
                   with_sigmoid ? "timed" : "sigmoid-free");
      return 3;
    }
    BatchResult cpu, gpu;
    if (!cev->run_batch(spans, cases, Env{}, cpu, threads).ok() || !crun->run_batch(spans, cases, gpu).ok()) return 3;
    compare_all(tols, cl, cpu, gpu, cases, with_sigmoid ? main_tally : twin_tally);
    if (!with_sigmoid)
      for (std::size_t c = 0; c < cases; ++c)
        for (std::size_t o = 0; o < cl.tol.size(); ++o)
          exact_nonzero += cl.tol[o] == Tol::Exact && !cpu.failed[c] && cpu.outputs[o][c] != 0.0;
  }
  const std::size_t mismatched = main_tally.mismatched + twin_tally.mismatched;
  const std::size_t twin_not_exact = twin_tally.sigmoid + twin_tally.derived + twin_tally.behind_decision;
  const double cpu_rate = static_cast<double>(cases) / median(cpu_s);
  const double gpu_rate = static_cast<double>(cases) / median(gpu_s);
  std::printf(
      "{\"device\": \"%s\", \"nodes\": %zu, \"cases\": %zu, \"rounds\": %d,\n"
      " \"cpu_cases_per_s\": %.0f, \"vulkan_cases_per_s\": %.0f, \"vulkan_over_cpu\": %.3f,\n"
      " \"runner_create_s\": %.3f, \"pipeline_s\": %.3f, \"pipelines\": %zu, \"cpu_threads\": %u,\n"
      " \"tolerances\": {\"sigmoid_ulp\": \"%g + %g|x|\", \"derived\": \"%g|cpu| + %g\"},\n"
      " \"outputs_exact\": %zu, \"outputs_sigmoid\": %zu, \"outputs_derived\": %zu, \"outputs_behind_decision\": %zu,\n"
      " \"exact_outputs_compared\": %zu, \"exact_nonzero\": %zu, \"mismatched_cases\": %zu}\n",
      runner->stats().device.c_str(), p.nodes.size(), cases, rounds, cpu_rate, gpu_rate, gpu_rate / cpu_rate, create_s,
      runner->stats().pipeline_seconds, runner->stats().stages, threads, tols.sigmoid_base, tols.sigmoid_per_abs_arg,
      tols.derived_relative, tols.derived_absolute, main_tally.exact, main_tally.sigmoid, main_tally.derived,
      main_tally.behind_decision, twin_tally.exact, exact_nonzero, mismatched);
  if (twin_not_exact != 0) {
    std::fprintf(stderr, "error: the sigmoid-free circuit has %zu outputs that are not compared bit for bit\n",
                 twin_not_exact);
    return 1;
  }
  return mismatched == 0 ? 0 : 1;
#endif
}
