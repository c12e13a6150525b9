// `tensorcode diff` against the circuit size: diff_programs on 10,000- and
// 100,000-node circuits and an edited copy of each, and the time ratio
// (about 10 when the diff is linear, about 100 when quadratic).
//
// The circuits are bench/vulkan_bench's deep bounded ones
// (testgen::bounded_program). The edit changes the coefficients of every
// hundredth affine node and inserts a node in the middle, so every later id
// moves and the passes beyond identical nodes have work. Two forms: without
// source positions (an artifact from a Builder) and with synthetic positions
// and loop iterations (what the frontend stamps), so the position passes are
// measured too.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <map>
#include <string>

#include "diff/diff.h"
#include "emit/program_gen.h"

namespace {

tc::Program circuit(int nodes, bool located) {
  tc::Program p = tc::testgen::bounded_program(nodes, 2024);
  if (located) {
    // 50 nodes a "statement", 20 statements a loop iteration.
    tc::IterationPath path;
    for (tc::Node& n : p.nodes) {
      const int k = n.id;
      if (k % 1000 == 0) path = tc::IterationPath({tc::LoopStep{"i", k / 1000}});
      n.location = tc::SourceLoc{2 + (k / 50) % 20, 1 + k % 50};
      n.iteration = path;
    }
  }
  return p;
}

tc::Program edited(const tc::Program& a) {
  tc::Program b = a;
  int affine = 0;
  for (tc::Node& n : b.nodes)
    if (n.op == tc::Op::Affine && affine++ % 100 == 0) n.edit_linear().coefficients[0] = 0.25;
  // An unused node in the middle: every later id moves up by one.
  const auto at = static_cast<tc::NodeId>(b.nodes.size() / 2);
  auto moved = [&](tc::NodeId id) { return id >= at ? id + 1 : id; };
  for (tc::Node& n : b.nodes)
    for (tc::NodeId& arg : n.args) arg = moved(arg);
  for (auto& [name, id] : b.outputs) id = moved(id);
  tc::Node extra;
  extra.op = tc::Op::Neg;
  extra.args = {0};
  b.nodes.insert(b.nodes.begin() + at, extra);
  for (std::size_t i = 0; i < b.nodes.size(); ++i) b.nodes[i].id = static_cast<tc::NodeId>(i);
  return b;
}

struct Pair {
  tc::Program a, b;
};

const Pair& pair_of(int nodes, bool located) {
  static std::map<std::pair<int, bool>, Pair> cache;
  auto it = cache.find({nodes, located});
  if (it == cache.end()) {
    tc::Program a = circuit(nodes, located);
    tc::Program b = edited(a);
    if (!tc::validate(a).ok() || !tc::validate(b).ok()) {
      std::fprintf(stderr, "the benchmark circuits are invalid\n");
      std::exit(1);
    }
    it = cache.emplace(std::pair{nodes, located}, Pair{std::move(a), std::move(b)}).first;
  }
  return it->second;
}

void run(benchmark::State& state, bool located) {
  const Pair& p = pair_of(static_cast<int>(state.range(0)), located);
  std::size_t changed = 0, added = 0;
  for (auto _ : state) {
    auto d = tc::diff_programs(p.a, p.b);
    if (!d) {
      state.SkipWithError(d.error().message.c_str());
      return;
    }
    changed = d->changed.size();
    added = d->added.size();
    benchmark::DoNotOptimize(d->unchanged);
  }
  state.counters["nodes"] = static_cast<double>(p.a.nodes.size());
  state.counters["changed"] = static_cast<double>(changed);
  state.counters["added"] = static_cast<double>(added);
}

void BM_diff_unlocated(benchmark::State& state) { run(state, false); }
void BM_diff_located(benchmark::State& state) { run(state, true); }

// The baseline: validating both programs, a walk over every node known to
// be linear, at the same sizes. Its own ratio shows what the memory
// hierarchy adds from 10k to 100k nodes (a 10k circuit stays in cache, a
// 100k one does not), so the diff's ratio can be read against it.
void BM_validate_both(benchmark::State& state) {
  const Pair& p = pair_of(static_cast<int>(state.range(0)), true);
  for (auto _ : state) {
    bool ok = tc::validate(p.a).ok() && tc::validate(p.b).ok();
    benchmark::DoNotOptimize(ok);
  }
  state.counters["nodes"] = static_cast<double>(p.a.nodes.size());
}

BENCHMARK(BM_diff_unlocated)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_diff_located)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_validate_both)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond);

class RatioReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs)
      if (r.run_type == Run::RT_Iteration && !r.error_occurred) times[r.benchmark_name()] = r.GetAdjustedRealTime();
    ConsoleReporter::ReportRuns(runs);
  }
  std::map<std::string, double> times;
};

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  std::printf("\n");
  for (const char* name : {"BM_diff_unlocated", "BM_diff_located", "BM_validate_both"}) {
    auto small = reporter.times.find(std::string(name) + "/10000");
    auto large = reporter.times.find(std::string(name) + "/100000");
    if (small == reporter.times.end() || large == reporter.times.end() || small->second <= 0) continue;
    std::printf("%s: 100000 / 10000 nodes = %.2f (linear: 10, quadratic: 100)\n", name, large->second / small->second);
  }
  return 0;
}
