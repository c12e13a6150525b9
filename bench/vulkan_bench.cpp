// Cases per second for 1,000,000 cases of a 1,000-node float32 circuit: the
// Vulkan runner (lavapipe when there is no GPU) against the CPU batched
// evaluator (Evaluator::run_batch), measured in the same run in interleaved
// rounds; the ratio is the result. Pipeline creation (WGSL -> SPIR-V,
// shader module, compute pipeline) is reported separately.
//
// usage: tc_vulkan_bench [--cases N] [--nodes N] [--rounds N]
#include <algorithm>
#include <chrono>
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
/// means, products, relu, max via compare + select, sigmoid) is the tests'
/// bounded_program with seed 2024.
Program circuit(int nodes, int inputs) { return testgen::bounded_program(nodes, 2024, true, inputs); }

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
  std::printf("{\"skipped\": \"built without TC_ENABLE_VULKAN\"}\n");
  return 0;
#else
  std::size_t cases = 1000000;
  int nodes = 1000, rounds = 3;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--cases")) cases = std::strtoull(argv[i + 1], nullptr, 10);
    if (!std::strcmp(argv[i], "--nodes")) nodes = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--rounds")) rounds = std::max(1, std::atoi(argv[i + 1]));
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
    return 0;
  }
  std::vector<double> cpu_s, gpu_s;
  std::size_t mismatched = 0;
  for (int r = 0; r < rounds; ++r) {
    BatchResult cpu, gpu;
    auto t0 = std::chrono::steady_clock::now();
    if (!ev->run_batch(spans, cases, Env{}, cpu).ok()) return 3;
    cpu_s.push_back(seconds_since(t0));
    t0 = std::chrono::steady_clock::now();
    if (!runner->run_batch(spans, cases, gpu).ok()) return 3;
    gpu_s.push_back(seconds_since(t0));
    if (r == 0)
      for (std::size_t c = 0; c < cases; ++c)
        mismatched += cpu.failed[c] != gpu.failed[c] ||
                      (!cpu.failed[c] && std::fabs(cpu.outputs[0][c] - gpu.outputs[0][c]) > 1e-4);
  }
  const double cpu_rate = static_cast<double>(cases) / median(cpu_s);
  const double gpu_rate = static_cast<double>(cases) / median(gpu_s);
  std::printf(
      "{\"device\": \"%s\", \"nodes\": %zu, \"cases\": %zu, \"rounds\": %d,\n"
      " \"cpu_cases_per_s\": %.0f, \"vulkan_cases_per_s\": %.0f, \"vulkan_over_cpu\": %.3f,\n"
      " \"runner_create_s\": %.3f, \"pipeline_s\": %.3f, \"pipelines\": %zu, \"mismatched_cases\": %zu}\n",
      runner->stats().device.c_str(), p.nodes.size(), cases, rounds, cpu_rate, gpu_rate, gpu_rate / cpu_rate, create_s,
      runner->stats().pipeline_seconds, runner->stats().stages, mismatched);
  return 0;
#endif
}
