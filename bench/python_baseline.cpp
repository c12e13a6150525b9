// The C++ side of bench/python_bench.py: the CLI-free core calls the Python
// package wraps, timed in a plain loop so the script can print the package's
// overhead against them in the same run.
//
//   tc_python_baseline ARTIFACT CASES.jsonl ITERATIONS [REPEATS]
//
// Prints one JSON object: {"run_ns": median ns of Evaluator::run on the
// first case (a persistent Env, as the package's fast path reuses one),
// "batch_ns_per_case": median ns per case of Evaluator::run_batch over all
// cases}. Medians of REPEATS (default 15) repeats; the script asks for one
// repeat per round, interleaved with its own timings, on a noisy machine.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "eval/evaluator.h"
#include "ir/artifact.h"
#include "verify/cases.h"

namespace {

std::string read_file(const char* path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int fail(const std::string& m) {
  std::fprintf(stderr, "error: %s\n", m.c_str());
  return 3;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4 && argc != 5) return fail("usage: tc_python_baseline ARTIFACT CASES.jsonl ITERATIONS [REPEATS]");
  const int repeats = argc == 5 ? std::max(1, std::stoi(argv[4])) : 15;
  auto program = tc::load_artifact(read_file(argv[1]));
  if (!program) return fail(program.error().message);
  auto inputs = tc::program_inputs(*program);
  auto cases = tc::parse_cases_jsonl(read_file(argv[2]), inputs, argv[2]);
  if (!cases) return fail(cases.error().format());
  const long iterations = std::stol(argv[3]);
  auto ev = tc::Evaluator::create(*program);
  if (!ev) return fail(ev.error().message);

  std::vector<std::vector<double>> columns;
  const std::size_t count = cases->size();
  cases->fill(0, count, columns);
  tc::Env env;
  for (std::size_t k = 0; k < inputs.size(); ++k) env.inputs[inputs[k].name] = columns[k][0];

  using clock = std::chrono::steady_clock;
  std::vector<double> run_ns, batch_ns;
  volatile double sink = 0;
  {  // warm-up, untimed: first-touch page faults and caches, as the script's process is warm
    std::vector<std::span<const double>> spans;
    for (auto& c : columns) spans.emplace_back(c.data(), count);
    tc::BatchResult out;
    if (auto s = ev->run_batch(spans, count, {}, out); !s) return fail(s.error().message);
    for (long i = 0; i < iterations / 10 + 1; ++i) sink = sink + ev->run(env)->outputs[0];
  }
  for (int rep = 0; rep < repeats; ++rep) {
    auto t0 = clock::now();
    for (long i = 0; i < iterations; ++i) {
      auto r = ev->run(env);
      if (!r) return fail(r.error().message);
      sink = sink + r->outputs[0];
    }
    run_ns.push_back(std::chrono::duration<double, std::nano>(clock::now() - t0).count() / double(iterations));

    std::vector<std::span<const double>> spans;
    for (auto& c : columns) spans.emplace_back(c.data(), count);
    tc::BatchResult out;
    auto t1 = clock::now();
    if (auto s = ev->run_batch(spans, count, {}, out); !s) return fail(s.error().message);
    batch_ns.push_back(std::chrono::duration<double, std::nano>(clock::now() - t1).count() / double(count));
    sink = sink + out.outputs[0][0];
  }
  std::printf("{\"run_ns\": %.1f, \"batch_ns_per_case\": %.2f}\n", median(run_ns), median(batch_ns));
  return 0;
}
