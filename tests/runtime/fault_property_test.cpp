// Property: over random event streams with injected failures, a failed
// event changes neither the state nor the step count nor the snapshot, and
// the runtime always equals one that only ever saw the events that
// succeeded. Failures come from every source: bad events (out of domain,
// fractional, missing or unknown inputs), arithmetic (division by zero),
// state domains (an update overflowing), the step budget, and a host
// binding that fails at random in the middle of an evaluation.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "ir/builder.h"
#include "runtime/runtime.h"
#include "runtime/runtime_util.h"

namespace tc {
namespace {

using testing::must;

/// x in int32 -3..3, d in int32 -2..2; states a in int32 -20..20 (a + x),
/// acc in float64 (acc + 12 / d), b in float64 0..1e6 (flaky(b + |x|)).
/// The updates are listed in that order, so b's failure comes after a and
/// acc already have new values that must not be committed.
Program flaky_program() {
  Builder bl;
  Value x = bl.input("x", Domain::int32(-3, 3));
  Value d = bl.input("d", Domain::int32(-2, 2));
  Value a = bl.state("a", 0, Domain::int32(-20, 20));
  Value acc = bl.state("acc", 0, Domain::float64(-1e9, 1e9));
  Value b = bl.state("b", 1, Domain::float64(0, 1e6));
  bl.update(a, a + x);
  bl.update(acc, acc + Arg(12) / d);
  bl.update(b, bl.call("flaky", {b + bl.select(x > 0, x, Arg(0) - x)}));
  return must(bl.build(a));
}

/// The next call of `flaky` fails (a NaN result is an error of the call node).
bool g_fail_next = false;

Bindings flaky_bindings() {
  Bindings bs;
  bs["flaky"].forward = [](std::span<const double> args) {
    if (g_fail_next) return std::nan("");
    return args[0];
  };
  return bs;
}

NamedValues random_event(std::mt19937_64& rng, bool& inject) {
  std::uniform_int_distribution<int> x(-3, 3), d(-2, 2), kind(0, 19);
  NamedValues e{{"x", x(rng)}, {"d", d(rng) == 0 ? 1 : d(rng)}};
  inject = false;
  switch (kind(rng)) {
    case 0: e["x"] = 9; break;                          // above the domain
    case 1: e["d"] = -7; break;                         // below the domain
    case 2: e["x"] = 0.5; break;                        // not an integer
    case 3: e.erase("d"); break;                        // missing input
    case 4: e["y"] = 1; break;                          // unknown input
    case 5: e["d"] = 0; break;                          // division by zero in acc's update
    case 6: inject = true; break;                       // the binding fails mid-evaluation
    case 7: e["x"] = std::nan(""); break;               // not a number
    default: break;                                     // a valid event (a may still overflow)
  }
  return e;
}

TEST(RuntimeFaults, FailedEventsChangeNothingOverRandomStreams) {
  const Bindings bindings = flaky_bindings();
  std::size_t failures = 0, commits = 0, budget_failures = 0;
  for (std::uint64_t seed = 1; seed <= 25; ++seed) {
    std::mt19937_64 rng(seed);
    const std::uint64_t budget = 100 + seed * 5;
    Runtime runtime = must(Runtime::create(flaky_program(), budget, &bindings));
    Runtime shadow = must(Runtime::create(flaky_program(), budget, &bindings));  // sees only the successes
    for (int i = 0; i < 300; ++i) {
      bool inject = false;
      NamedValues event = random_event(rng, inject);
      const std::vector<double> state = runtime.state();
      const std::uint64_t steps = runtime.steps();
      const std::string snapshot = runtime.snapshot_text();
      g_fail_next = inject;
      auto r = runtime.dispatch(event);
      g_fail_next = false;
      if (!r) {
        ++failures;
        budget_failures += r.error().message.find("step budget") != std::string::npos;
        ASSERT_EQ(runtime.state(), state) << "seed " << seed << " event " << i << ": " << r.error().message;
        ASSERT_EQ(runtime.steps(), steps) << "seed " << seed << " event " << i;
        ASSERT_EQ(runtime.snapshot_text(), snapshot) << "seed " << seed << " event " << i;
        continue;
      }
      ASSERT_FALSE(inject) << "an injected failure was not reported (seed " << seed << ", event " << i << ")";
      ++commits;
      ASSERT_EQ(runtime.steps(), steps + 1);
      auto s = shadow.dispatch(event);
      ASSERT_TRUE(s) << s.error().message;
      ASSERT_EQ(runtime.snapshot_text(), shadow.snapshot_text()) << "seed " << seed << " event " << i;
    }
    // The snapshot restores to the same runtime, failures and all.
    Runtime restored = must(Runtime::restore_text(runtime.snapshot_text(), &bindings));
    EXPECT_EQ(restored.snapshot_text(), runtime.snapshot_text());
  }
  // The streams really mixed both outcomes, and reached the budget.
  EXPECT_GT(failures, 1500u);
  EXPECT_GT(commits, 2500u);
  EXPECT_GT(budget_failures, 0u);
}

}  // namespace
}  // namespace tc
