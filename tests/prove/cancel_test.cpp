// ProveOptions::cancel and ::progress (docs/verification.md, "Cancel and
// progress"): a cancel raised from another thread ends a long proof within
// a bounded wait, as verdict unknown with reason "cancelled"; progress comes
// phase by phase (sweep, z3, cvc5), each ending with done == total.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "ir/builder.h"
#include "prove/prove.h"

namespace tc {
namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

Program make(const std::vector<std::pair<std::string, Domain>>& inputs,
             Value (*body)(Builder&, std::vector<Value>&)) {
  Builder b(Semantics::Exact, Surrogate::Sigmoid, 1.0, Dtype::Float64);
  std::vector<Value> xs;
  for (const auto& [name, d] : inputs) xs.push_back(b.input(name, d));
  auto p = b.build(body(b, xs));
  EXPECT_TRUE(p) << p.error().message;
  return p ? *p : Program{};
}

/// Runs `prove` in this thread, raises the flag from another after
/// `after_s`, and returns the result with the seconds from the raise to the
/// return.
template <class Prove>
std::pair<Result<prove::ProveResult>, double> cancel_after(double after_s, Prove prove) {
  std::atomic<bool> cancel{false};
  Clock::time_point raised{};
  std::atomic<bool> done{false};
  std::thread canceller([&] {
    const auto t0 = Clock::now();
    while (!done && since(t0) < after_s) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    raised = Clock::now();
    cancel = true;
  });
  prove::ProveOptions o;
  o.timeout_s = 300;  // far beyond the test's bound: only the cancel ends it early
  o.cancel = &cancel;
  auto r = prove(o);
  const auto returned = Clock::now();
  done = true;
  canceller.join();
  return {std::move(r), std::chrono::duration<double>(returned - raised).count()};
}

// x / (x*x + 1) over [-10, 10] never fails, but binary64 division and
// multiplication make that a query of tens of seconds on two cores (the
// ProveSlow test of pairs_test.cpp proves it).
TEST(ProveCancel, ACancelFromAnotherThreadEndsALongProofPromptly) {
  const Program p = make({{"x", Domain::float64(-10, 10)}},
                         [](Builder&, auto& x) { return x[0] / (x[0] * x[0] + 1.0); });
  const auto t0 = Clock::now();
  auto [r, after] = cancel_after(1.0, [&](const prove::ProveOptions& o) { return prove::prove_cannot_fail(p, o); });
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_GT(since(t0), 0.9) << "the proof ended before the cancel: " << prove::to_json(*r).dump();
  EXPECT_LT(after, 5.0) << prove::to_json(*r).dump();
  EXPECT_EQ(r->verdict, prove::Verdict::Unknown) << prove::to_json(*r).dump();
  EXPECT_EQ(r->reason, "cancelled");
  ASSERT_EQ(r->solvers.size(), 2u);
  EXPECT_EQ(r->solvers[0].answer, "cancelled") << prove::to_json(*r).dump();
  if (r->solvers[1].answer != "unavailable") EXPECT_EQ(r->solvers[1].answer, "cancelled");
  EXPECT_EQ(prove::to_json(*r)["reason"], "cancelled");
}

// Three int32 factors in two orders differ beyond 2^53; both the sweep and
// the miter have binary64 products to decide. A cancel at any moment of it
// ends the proof.
TEST(ProveCancel, CancellingAnEquivalenceProofEndsIt) {
  const Domain d = Domain::int32();
  const std::vector<std::pair<std::string, Domain>> in = {{"x", d}, {"y", d}, {"z", d}};
  const Program a = make(in, [](Builder&, auto& x) { return (x[0] * x[1]) * x[2]; });
  const Program b = make(in, [](Builder&, auto& x) { return x[0] * (x[1] * x[2]); });
  for (double after : {0.05, 0.5}) {
    auto [r, waited] = cancel_after(after, [&](const prove::ProveOptions& o) { return prove::prove_equivalent(a, b, o); });
    ASSERT_TRUE(r) << r.error().message;
    if (r->verdict == prove::Verdict::Different) continue;  // a fast machine may disprove it first
    EXPECT_LT(waited, 5.0) << after << ": " << prove::to_json(*r).dump();
    EXPECT_EQ(r->verdict, prove::Verdict::Unknown) << prove::to_json(*r).dump();
    EXPECT_EQ(r->reason, "cancelled") << prove::to_json(*r).dump();
  }
}

TEST(ProveCancel, AFlagRaisedBeforeTheStartStopsAtOnce) {
  const Program p = make({{"x", Domain::float64(-10, 10)}},
                         [](Builder&, auto& x) { return x[0] / (x[0] * x[0] + 1.0); });
  std::atomic<bool> cancel{true};
  prove::ProveOptions o;
  o.cancel = &cancel;
  const auto t0 = Clock::now();
  auto r = prove::prove_cannot_fail(p, o);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_LT(since(t0), 2.0);
  EXPECT_EQ(r->verdict, prove::Verdict::Unknown);
  EXPECT_EQ(r->reason, "cancelled");
  // An unset flag changes nothing.
  cancel = false;
  const Program q = make({{"x", Domain::float64(-1, 1)}}, [](Builder&, auto& x) { return x[0] * 0.5; });
  r = prove::prove_cannot_fail(q, o);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->verdict, prove::Verdict::CannotFail) << prove::to_json(*r).dump();
}

using Step = std::tuple<std::string, int, int>;

TEST(ProveProgress, PhasesComeInOrderAndEachEndsComplete) {
  const Program a = make({{"x", Domain::float64()}, {"y", Domain::float64()}},
                         [](Builder&, auto& x) { return (x[0] * 2.0) + x[1]; });
  const Program b = make({{"x", Domain::float64()}, {"y", Domain::float64()}},
                         [](Builder&, auto& x) { return (x[0] + x[0]) + x[1]; });
  std::vector<Step> steps;
  prove::ProveOptions o;
  o.timeout_s = 60;
  o.progress = [&](std::string_view phase, int done, int total) { steps.emplace_back(std::string(phase), done, total); };
  auto r = prove::prove_equivalent(a, b, o);
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_EQ(r->verdict, prove::Verdict::Equivalent) << prove::to_json(*r).dump();
  const bool cvc5 = r->solvers.at(1).answer != "unavailable";

  // Phases in order, none coming back once left; within one, done never
  // decreases and stays within total; each ends with done == total.
  std::vector<std::string> order;
  for (std::size_t k = 0; k < steps.size(); ++k) {
    const auto& [phase, done, total] = steps[k];
    if (order.empty() || order.back() != phase) {
      for (const auto& seen : order) ASSERT_NE(seen, phase) << "phase " << phase << " came back at step " << k;
      if (!order.empty()) {
        const auto& [prev, pdone, ptotal] = steps[k - 1];
        EXPECT_EQ(pdone, ptotal) << prev << " ended before it was complete";
      }
      order.push_back(phase);
      EXPECT_EQ(done, 0) << phase << " did not start at 0";
    } else {
      EXPECT_GE(done, std::get<1>(steps[k - 1])) << phase;
    }
    EXPECT_LE(done, total) << phase;
  }
  const std::vector<std::string> expected =
      cvc5 ? std::vector<std::string>{"sweep", "z3", "cvc5"} : std::vector<std::string>{"sweep", "z3"};
  EXPECT_EQ(order, expected);
  ASSERT_FALSE(steps.empty());
  EXPECT_EQ(std::get<1>(steps.back()), std::get<2>(steps.back()));
  // The sweep counts the second program's nodes.
  EXPECT_EQ(std::get<2>(steps.front()), static_cast<int>(b.nodes.size()));

  // One program: no sweep.
  steps.clear();
  r = prove::prove_cannot_fail(a, o);
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_FALSE(steps.empty());
  EXPECT_EQ(std::get<0>(steps.front()), "z3");
}

}  // namespace
}  // namespace tc
