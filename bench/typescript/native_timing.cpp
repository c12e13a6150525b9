// The native side of bench/typescript/bench.mjs: times the engine's
// Evaluator on one artifact in this process, the same way the script times
// the WebAssembly build, and prints one JSON line. The evaluator is pinned
// to the interpreter, the only plan the WebAssembly build has: under Auto a
// plan compiled earlier and found in the cache would time generated C.
//
// usage: tc_ts_native_timing ARTIFACT.json CALLS [BATCH]
//   CALLS run() calls per round, BATCH cases in the run_batch of a round
//   (default CALLS; the script passes the sizes it gives the package);
//   inputs: a fixed pseudo-random column per input
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>
#include <vector>

#include "base/atomic_file.h"
#include "eval/evaluator.h"
#include "ir/artifact.h"

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3 && argc != 4) {
    std::fprintf(stderr, "usage: tc_ts_native_timing ARTIFACT.json CALLS [BATCH]\n");
    return 2;
  }
  auto text = tc::read_file(argv[1]);
  if (!text) return 3;
  auto program = tc::load_artifact(*text);
  if (!program) {
    std::fprintf(stderr, "%s\n", program.error().format().c_str());
    return 3;
  }
  tc::EvalOptions options;
  options.plan = tc::EvalPlan::Interpreter;
  auto ev = tc::Evaluator::create(*program, options);
  if (!ev) return 3;
  const std::size_t n = std::strtoul(argv[2], nullptr, 10);
  const std::size_t batch = argc == 4 ? std::strtoul(argv[3], nullptr, 10) : n;
  const auto& ids = ev->input_ids();
  // Inputs in [0, 1): inside the bench programs' domains.
  std::vector<std::vector<double>> columns(ids.size(), std::vector<double>(std::max(n, batch)));
  unsigned s = 12345;
  for (auto& col : columns)
    for (double& v : col) v = ((s = s * 1103515245u + 12345u) >> 8) / 16777216.0;
  tc::Env env;
  std::vector<double> per_call, per_batch;
  for (int rep = 0; rep < 7; ++rep) {
    auto t0 = std::chrono::steady_clock::now();
    double sink = 0;
    for (std::size_t c = 0; c < n; ++c) {
      for (std::size_t k = 0; k < ids.size(); ++k)
        env.inputs[program->nodes[static_cast<std::size_t>(ids[k])].name] = columns[k][c];
      auto r = ev->run(env);
      if (r) sink += r->outputs[0];
    }
    per_call.push_back(seconds_since(t0) / double(n));
    if (sink == 12345.678) std::puts("");
    std::vector<std::span<const double>> spans(columns.begin(), columns.end());
    tc::BatchResult out;
    t0 = std::chrono::steady_clock::now();
    if (!ev->run_batch(spans, batch, tc::Env{}, out)) return 3;
    per_batch.push_back(seconds_since(t0) / double(batch));
  }
  std::printf("{\"run_per_call_s\": %.6e, \"batch_per_case_s\": %.6e}\n", median(per_call), median(per_batch));
  return 0;
}
