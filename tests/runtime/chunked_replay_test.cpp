// Property: replaying N events at once ends in the same state, step count,
// outputs and failure as replaying them in chunks, each chunk resumed from
// the previous chunk's snapshot text. Random event sequences, fixed seeds.
#include <gtest/gtest.h>

#include <random>

#include "runtime/runtime.h"
#include "runtime/runtime_util.h"

namespace tc {
namespace {

using testing::must;

// A program with two states, a select and a division so that random events
// sometimes fail (division by zero, a state leaving its domain).
Program mixed_program() {
  Builder b;
  Value x = b.input("x", Domain::int32(-20, 20));
  Value y = b.input("y", Domain::float64(-2, 2));
  Value n = b.state("n", 0, Domain::int32(-8, 8));  // a random walk that sometimes leaves its domain
  Value acc = b.state("acc", 1, Domain::float64(-1e6, 1e6));
  Value up = b.select(x > 0, n + 1, n - 1);
  b.update(n, up);
  b.update(acc, acc * 0.5 + y / x);  // x == 0 fails the event
  return must(b.build({{"n", n}, {"acc", acc}, {"up", up}}));
}

std::vector<NamedValues> random_events(std::mt19937_64& rng, std::size_t count) {
  std::uniform_int_distribution<int> xs(-20, 20);
  std::uniform_real_distribution<double> ys(-2, 2);
  std::vector<NamedValues> out;
  for (std::size_t i = 0; i < count; ++i) out.push_back({{"x", xs(rng)}, {"y", ys(rng)}});
  return out;
}

struct Outcome {
  std::vector<std::vector<double>> outputs;  // of every committed event
  std::vector<double> state;
  std::uint64_t steps = 0;
  std::optional<std::size_t> failed_at;  // absolute event index
  std::string error;
};

Outcome at_once(const Program& p, std::uint64_t budget, const std::vector<NamedValues>& events) {
  Runtime rt = must(Runtime::create(p, budget));
  Outcome o;
  for (std::size_t i = 0; i < events.size(); ++i) {
    auto r = rt.dispatch(events[i]);
    if (!r) {
      o.failed_at = i;
      o.error = r.error().message;
      break;
    }
    o.outputs.push_back(r->outputs);
  }
  o.state = rt.state();
  o.steps = rt.steps();
  return o;
}

Outcome in_chunks(const Program& p, std::uint64_t budget, const std::vector<NamedValues>& events,
                  std::mt19937_64& rng) {
  std::string snapshot = must(Runtime::create(p, budget)).snapshot_text();
  Outcome o;
  std::size_t pos = 0;
  while (pos < events.size() && !o.failed_at) {
    std::size_t len = std::uniform_int_distribution<std::size_t>(1, 7)(rng);
    len = std::min(len, events.size() - pos);
    Runtime rt = must(Runtime::restore_text(snapshot));
    std::vector<NamedValues> chunk(events.begin() + long(pos), events.begin() + long(pos + len));
    // Runtime::replay for the chunk; the outputs come from a second,
    // pure pass over the same states (replay reports only counts).
    std::vector<double> state = rt.state();
    ReplayResult r = rt.replay(chunk);
    for (std::size_t i = 0; i < r.committed; ++i) {
      StepResult s = must(rt.step(chunk[i], state));
      o.outputs.push_back(s.outputs);
      state = s.state;
    }
    EXPECT_EQ(state, rt.state());
    if (r.failure) {
      o.failed_at = pos + r.failure->index;
      o.error = r.failure->error.message;
    }
    snapshot = rt.snapshot_text();
    pos += len;
  }
  Runtime last = must(Runtime::restore_text(snapshot));
  o.state = last.state();
  o.steps = last.steps();
  return o;
}

TEST(ChunkedReplay, EqualsReplayAtOnce) {
  const Program p = mixed_program();
  int with_failure = 0, with_budget_end = 0;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    std::mt19937_64 rng(seed);
    const std::size_t n = std::uniform_int_distribution<std::size_t>(0, 60)(rng);
    const std::uint64_t budget = std::uniform_int_distribution<std::uint64_t>(0, 70)(rng);
    const auto events = random_events(rng, n);
    Outcome whole = at_once(p, budget, events);
    Outcome parts = in_chunks(p, budget, events, rng);
    EXPECT_EQ(whole.outputs, parts.outputs) << "seed " << seed;
    EXPECT_EQ(whole.state, parts.state) << "seed " << seed;
    EXPECT_EQ(whole.steps, parts.steps) << "seed " << seed;
    EXPECT_EQ(whole.failed_at, parts.failed_at) << "seed " << seed;
    EXPECT_EQ(whole.error, parts.error) << "seed " << seed;
    with_failure += whole.failed_at ? 1 : 0;
    with_budget_end += whole.error.find("budget") != std::string::npos ? 1 : 0;
  }
  // The seeds exercise both clean runs and failures, budget ends included.
  EXPECT_GT(with_failure, 5);
  EXPECT_GT(with_budget_end, 0);
  EXPECT_LT(with_failure, 40);
}

}  // namespace
}  // namespace tc
