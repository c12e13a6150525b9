// Cost of the IDE step trace: replaying 100,000 events with and without
// recording a StepTrace, on the description's counter and on a mid-size
// program with 40 selects. Reports medians of repeated runs, the trace's
// overhead as a ratio against the untraced replay measured in the same run,
// the trace's bytes per step, and the cost of a "jump to change" search over
// the whole trace (which recomputes rows for a node that is not stored).
//
//   build/bin/tc_trace_bench [--benchmark_repetitions=N]
#include <benchmark/benchmark.h>

#include <cstdio>
#include <map>
#include <string>

#include "ir/builder.h"
#include "runtime/runtime.h"
#include "runtime/trace.h"

namespace {

using namespace tc;

constexpr std::size_t kSteps = 100000;

Program counter() {
  Builder b;
  Value event = b.input("event", Domain::int32(0, 1));
  Value count = b.state("count", 0, Domain::int32(0, 1000000));
  b.update(count, count + event);
  return std::move(b.build(count)).value();
}

// Four float states, each pushed through a chain of ten selects per event;
// every value stays within [-2, 2], so no event fails.
Program mid_size() {
  Builder b;
  Value a = b.input("a", Domain::int32(-5, 5));
  Value x = b.input("x", Domain::float64(-1, 1));
  std::vector<std::pair<std::string, Arg>> outputs;
  Value total = b.constant(0);
  for (int s = 0; s < 4; ++s) {
    Value st = b.state("s" + std::to_string(s), 0, Domain::float64(-4, 4));
    Value v = st;
    for (int j = 0; j < 10; ++j) v = b.select(a > (j % 5 - 2), v * 0.5 + x, v * 0.25 - x * 0.5);
    b.update(st, v);
    total = total + st;
  }
  return std::move(b.build(total)).value();
}

std::vector<NamedValues> counter_events() {
  std::vector<NamedValues> out;
  out.reserve(kSteps);
  for (std::size_t i = 0; i < kSteps; ++i) out.push_back({{"event", double((i * 7) % 3 == 0)}});
  return out;
}

std::vector<NamedValues> mid_events() {
  std::vector<NamedValues> out;
  out.reserve(kSteps);
  for (std::size_t i = 0; i < kSteps; ++i)
    out.push_back({{"a", double(int(i * 37 % 11) - 5)}, {"x", double(int(i * 13 % 201) - 100) / 100.0}});
  return out;
}

struct Workload {
  Program program;
  std::vector<NamedValues> events;
};

const Workload& workload(int which) {
  static const Workload w[2] = {{counter(), counter_events()}, {mid_size(), mid_events()}};
  return w[which];
}

void BM_Replay(benchmark::State& state) {
  const Workload& w = workload(int(state.range(0)));
  for (auto _ : state) {
    Runtime rt = std::move(Runtime::create(w.program, kSteps)).value();
    ReplayResult r = rt.replay(w.events);
    if (!r.ok()) state.SkipWithError(r.failure->error.message.c_str());
    benchmark::DoNotOptimize(rt.state());
  }
  state.SetItemsProcessed(std::int64_t(kSteps) * state.iterations());
}

void BM_ReplayTraced(benchmark::State& state) {
  const Workload& w = workload(int(state.range(0)));
  std::size_t bytes = 0;
  for (auto _ : state) {
    Runtime rt = std::move(Runtime::create(w.program, kSteps)).value();
    StepTrace trace;
    ReplayResult r = rt.replay(w.events, &trace);
    if (!r.ok()) state.SkipWithError(r.failure->error.message.c_str());
    bytes = trace.memory_bytes();
    benchmark::DoNotOptimize(trace.size());
  }
  state.SetItemsProcessed(std::int64_t(kSteps) * state.iterations());
  state.counters["trace_bytes_per_step"] = double(bytes) / double(kSteps);
}

// "Jump to change" worst case: a node the trace does not store and whose
// value never changes (a constant), so the search recomputes every row.
void BM_JumpToChange(benchmark::State& state) {
  const Workload& w = workload(int(state.range(0)));
  Runtime rt = std::move(Runtime::create(w.program, kSteps)).value();
  StepTrace trace;
  if (!rt.replay(w.events, &trace).ok()) state.SkipWithError("replay failed");
  const NodeId node = rt.program().nodes_of(Op::Constant).front();
  for (auto _ : state) {
    auto r = next_change(rt, trace, node, 0);
    if (!r.ok() || r.value()) state.SkipWithError("unexpected change");
    benchmark::DoNotOptimize(r);
  }
  state.SetItemsProcessed(std::int64_t(trace.size()) * state.iterations());
}

BENCHMARK(BM_Replay)->Arg(0)->Arg(1)->ArgName("program")->Unit(benchmark::kMillisecond)->Repetitions(5)
    ->ReportAggregatesOnly(true);
BENCHMARK(BM_ReplayTraced)->Arg(0)->Arg(1)->ArgName("program")->Unit(benchmark::kMillisecond)->Repetitions(5)
    ->ReportAggregatesOnly(true);
BENCHMARK(BM_JumpToChange)->Arg(1)->ArgName("program")->Unit(benchmark::kMillisecond)->Repetitions(5)
    ->ReportAggregatesOnly(true);

// Collects the medians to print the traced/untraced ratio at the end.
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& r : runs)
      if (r.run_type == Run::RT_Aggregate && r.aggregate_name == "median") medians_[r.run_name.str()] = r;
  }
  void Finalize() override {
    ConsoleReporter::Finalize();
    if (auto j = medians_.find("BM_JumpToChange/program:1/repeats:5"); j != medians_.end())
      std::printf("jump to change, full scan of %zu recomputed rows (mid-size): %.1f ns/row\n", kSteps,
                  j->second.GetAdjustedCPUTime() * 1e6 / double(kSteps));
    const char* names[2] = {"counter (3 nodes)", "mid-size (4 states, 40 selects)"};
    for (int p = 0; p < 2; ++p) {
      const std::string suffix = "/program:" + std::to_string(p) + "/repeats:5";
      auto plain = medians_.find("BM_Replay" + suffix), traced = medians_.find("BM_ReplayTraced" + suffix);
      if (plain == medians_.end() || traced == medians_.end()) continue;
      const double a = plain->second.GetAdjustedCPUTime(), b = traced->second.GetAdjustedCPUTime();
      const double bytes = traced->second.counters.at("trace_bytes_per_step").value;
      std::printf("%-32s replay %.1f ns/step, traced %.1f ns/step, ratio %.2f, trace %.2f bytes/step (%.2f MB per 100k steps)\n",
                  names[p], a * 1e6 / double(kSteps), b * 1e6 / double(kSteps), b / a, bytes,
                  bytes * 100000.0 / 1e6);
    }
  }

 private:
  std::map<std::string, Run> medians_;
};

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
