// The events-file loop shared by the CLI, the IDE and the bindings
// (runtime/event_log.h), and Runtime::at, the snapshot of an earlier step.
#include <gtest/gtest.h>

#include <cmath>

#include "base/progress.h"
#include "runtime/event_log.h"
#include "runtime/runtime.h"
#include "runtime/runtime_util.h"

namespace tc {
namespace {

using testing::must;

TEST(EventLog, BlankLinesHoldNoEventButKeepTheirNumber) {
  Runtime rt = must(Runtime::create(testing::counter_program()));
  const EventLogReplay r = replay_event_text(rt, "{\"event\": 1}\n\n  \t\n{\"event\": 0}\n{\"event\": 1}", "e.jsonl");
  ASSERT_FALSE(r.error) << r.error->format();
  ASSERT_EQ(r.steps.size(), 3u);
  EXPECT_EQ(r.steps[0].line, 1u);
  EXPECT_EQ(r.steps[1].line, 4u);
  EXPECT_EQ(r.steps[2].line, 5u);  // a last line without a newline still counts
  EXPECT_EQ(r.steps[2].result.state, std::vector<double>{2});
  EXPECT_EQ(r.steps[1].inputs.at("event"), 0.0);
  EXPECT_EQ(rt.steps(), 3u);
}

TEST(EventLog, TheFirstFailingLineStopsWithItsFileAndLine) {
  Runtime rt = must(Runtime::create(testing::counter_program()));
  const EventLogReplay r = replay_event_text(rt, "{\"event\": 1}\n\n{\"evnt\": 1}\n{\"event\": 1}\n", "e.jsonl");
  ASSERT_EQ(r.steps.size(), 1u);
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->format().rfind("e.jsonl:3:1: error: unknown input 'evnt'", 0), 0u) << r.error->format();
  EXPECT_EQ(rt.steps(), 1u);  // the events before it stay committed, none after
  // A bad value is refused at its line too, and commits nothing.
  const EventLogReplay bad = replay_event_text(rt, "{\"event\": 7}\n", "f.jsonl");
  ASSERT_TRUE(bad.error);
  EXPECT_EQ(bad.error->loc->line, 1);
  EXPECT_EQ(rt.steps(), 1u);
}

TEST(EventLog, SkippedEventsAreNotDispatched) {
  Runtime rt = must(Runtime::create(testing::counter_program()));
  EventLogOptions o;
  o.skip_events = 2;
  const EventLogReplay r = replay_event_text(rt, "{\"event\": 1}\n\n{\"event\": 1}\n{\"event\": 1}\n", "e", o);
  ASSERT_FALSE(r.error);
  ASSERT_EQ(r.steps.size(), 1u);
  EXPECT_EQ(r.steps[0].line, 4u);
  EXPECT_EQ(rt.state(), std::vector<double>{1});
}

TEST(EventLog, NodeValuesAreKeptWithinTheBudget) {
  Runtime rt = must(Runtime::create(testing::counter_program()));
  const std::size_t nodes = rt.program().nodes.size();
  EventLogOptions o;
  o.trace_budget = 2 * nodes;  // two steps' worth
  const EventLogReplay r = replay_event_text(rt, "{\"event\": 1}\n{\"event\": 1}\n{\"event\": 1}\n", "e", o);
  ASSERT_EQ(r.steps.size(), 3u);
  EXPECT_EQ(r.steps[0].values.size(), nodes);
  EXPECT_EQ(r.steps[1].values.size(), nodes);
  EXPECT_TRUE(r.steps[2].values.empty());
}

TEST(EventLog, CancellingStopsWithItsCode) {
  struct Cancelled : Progress {
    void update(std::uint64_t, std::uint64_t, std::string_view) override {}
    [[nodiscard]] bool cancelled() const override { return true; }
  } cancel;
  Runtime rt = must(Runtime::create(testing::counter_program()));
  EventLogOptions o;
  o.progress = &cancel;
  const EventLogReplay r = replay_event_text(rt, "{\"event\": 1}\n", "e", o);
  ASSERT_TRUE(r.error);
  EXPECT_EQ(r.error->code, DiagCode::Cancelled);
  EXPECT_TRUE(r.steps.empty());
}

TEST(EventLog, DispatchingOneLine) {
  Runtime rt = must(Runtime::create(testing::counter_program()));
  auto blank = dispatch_event_line(rt, " \r", 1);
  ASSERT_TRUE(blank.ok());
  EXPECT_FALSE(blank->has_value());
  auto step = dispatch_event_line(rt, "{\"event\": 1}", 2);
  ASSERT_TRUE(step.ok());
  ASSERT_TRUE(step->has_value());
  EXPECT_EQ((*step)->line, 2u);
  EXPECT_EQ(rt.steps(), 1u);
  auto unknown = dispatch_event_line(rt, "{\"x\": 1}", 3);
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(rt.steps(), 1u);
}

TEST(RuntimeAt, AnEarlierStepAsASnapshot) {
  Runtime rt = must(Runtime::create(testing::counter_program(), 50));
  for (int i = 0; i < 4; ++i) must(rt.dispatch({{"event", 1}}));
  const std::vector<double> two{2};
  Runtime at = must(rt.at(two, 2));
  EXPECT_EQ(at.state(), two);
  EXPECT_EQ(at.steps(), 2u);
  EXPECT_EQ(at.max_steps(), 50u);
  EXPECT_EQ(rt.state(), std::vector<double>{4});  // the original is untouched
  Runtime back = must(Runtime::restore_text(at.snapshot_text()));
  EXPECT_EQ(back.state(), two);
  EXPECT_EQ(back.steps(), 2u);
  // Refused: a value outside the state's domain, too many steps, a wrong count of values.
  const std::vector<double> outside{101}, none;
  EXPECT_FALSE(rt.at(outside, 2).ok());
  EXPECT_FALSE(rt.at(two, 51).ok());
  EXPECT_FALSE(rt.at(none, 0).ok());
}

// Time travel over a replay: the counter's committed state after each of the
// events 1 1 0 1 1 is 0 (start), 1, 2, 2, 3, 4.
TEST(EventLog, SeekChangeFindsTheNextAndThePreviousChange) {
  Runtime rt = must(Runtime::create(testing::counter_program()));
  const EventLogReplay r = replay_event_text(rt, "{\"event\": 1}\n{\"event\": 1}\n{\"event\": 0}\n{\"event\": 1}\n{\"event\": 1}\n", "e.jsonl");
  ASSERT_FALSE(r.error);
  auto state = [&](std::size_t s) { return s == 0 ? 0.0 : r.steps[s - 1].result.state.at(0); };
  const std::size_t n = r.steps.size();
  using D = SeekDirection;
  EXPECT_EQ(seek_change(5, 0, n, D::Backward, state), std::optional<std::size_t>(5 - 1));
  EXPECT_EQ(seek_change(4, 0, n, D::Backward, state), std::optional<std::size_t>(2));  // step 3 committed no change
  EXPECT_EQ(seek_change(1, 0, n, D::Backward, state), std::nullopt);
  EXPECT_EQ(seek_change(0, 0, n, D::Backward, state), std::nullopt);
  EXPECT_EQ(seek_change(2, 0, n, D::Forward, state), std::optional<std::size_t>(4));
  EXPECT_EQ(seek_change(5, 0, n, D::Forward, state), std::nullopt);
  // From past the end, backwards starts at the last step; `first` bounds the search.
  EXPECT_EQ(seek_change(99, 0, n, D::Backward, state), std::optional<std::size_t>(5));
  EXPECT_EQ(seek_change(2, 2, n, D::Backward, state), std::nullopt);
  // Not computed (NaN) equals not computed and differs from any number.
  const double nan = std::nan("");
  const std::vector<double> v{nan, nan, 1.0, 1.0, nan};
  auto at = [&](std::size_t s) { return v[s]; };
  EXPECT_EQ(seek_change(0, 0, 4, D::Forward, at), std::optional<std::size_t>(2));
  EXPECT_EQ(seek_change(4, 0, 4, D::Backward, at), std::optional<std::size_t>(2));
  EXPECT_EQ(seek_change(2, 0, 4, D::Forward, at), std::optional<std::size_t>(4));
}

}  // namespace
}  // namespace tc
