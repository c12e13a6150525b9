// The step trace for the IDE timeline: rows, branches, on-demand node
// values and "jump to change".
#include <gtest/gtest.h>

#include "runtime/runtime_util.h"
#include "runtime/trace.h"

namespace tc {
namespace {

using testing::must;

std::vector<NamedValues> xs(std::initializer_list<int> values) {
  std::vector<NamedValues> out;
  for (int v : values) out.push_back({{"x", v}});
  return out;
}

// Node ids of testing::branching_program(), found from its structure.
struct Ids {
  NodeId x, s, outer, inner, outer_cond, inner_cond, spare, doubled;
};

Ids ids_of(const Program& p) {
  Ids ids{};
  ids.x = *p.find_named(Op::Input, "x");
  ids.s = *p.find_named(Op::State, "s");
  ids.outer = *p.output("result");
  const Node& outer = p.nodes[std::size_t(ids.outer)];
  ids.outer_cond = outer.args[0];
  ids.inner = outer.args[1];
  const Node& inner = p.nodes[std::size_t(ids.inner)];
  ids.inner_cond = inner.args[0];
  ids.doubled = inner.args[1];
  std::vector<NodeId> selects = p.nodes_of(Op::Select);
  EXPECT_EQ(selects.size(), 3u);
  ids.spare = selects.back();
  return ids;
}

class TraceTest : public ::testing::Test {
 protected:
  // Rows: x = 1, 2, 4, -1, 0, 5 from s = 0 give s = 1, 3, 11, 10, 9, 19.
  void SetUp() override {
    runtime_ = must(Runtime::create(testing::branching_program(), 100));
    ids_ = ids_of(runtime_->program());
    ReplayResult r = runtime_->replay(xs({1, 2, 4, -1, 0, 5}), &trace_);
    ASSERT_TRUE(r.ok()) << r.failure->error.message;
  }
  std::optional<Runtime> runtime_;
  StepTrace trace_;
  Ids ids_{};
};

TEST_F(TraceTest, RowsHoldInputsOutputsAndStates) {
  ASSERT_EQ(trace_.size(), 6u);
  EXPECT_EQ(trace_.first_step(), 0u);
  EXPECT_EQ(trace_.step_number(0), 1u);
  EXPECT_EQ(trace_.end_step(), 6u);
  const std::vector<double> after = {1, 3, 11, 10, 9, 19};
  const std::vector<double> in = {1, 2, 4, -1, 0, 5};
  for (std::size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(trace_.inputs(i)[0], in[i]);
    EXPECT_EQ(trace_.state_after(i)[0], after[i]);
    EXPECT_EQ(trace_.state_before(i)[0], i ? after[i - 1] : 0);
    EXPECT_EQ(trace_.outputs(i)[0], after[i]);                  // result = y
    EXPECT_EQ(trace_.outputs(i)[1], i ? after[i - 1] : 0);      // old = s, the state the event saw
  }
}

TEST_F(TraceTest, BranchesPerSelect) {
  using T = StepTrace;
  //                 x:   1       2       4        -1                0                5
  const std::vector<std::int8_t> outer = {T::kYes, T::kYes, T::kYes, T::kNo, T::kNo, T::kYes};
  const std::vector<std::int8_t> inner = {T::kNo, T::kNo, T::kYes, T::kNotEvaluated, T::kNotEvaluated, T::kYes};
  for (std::size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(trace_.branch_of(i, ids_.outer), outer[i]) << "row " << i;
    EXPECT_EQ(trace_.branch_of(i, ids_.inner), inner[i]) << "row " << i;
    EXPECT_EQ(trace_.branch_of(i, ids_.spare), T::kNotEvaluated) << "row " << i;  // nothing needs it
    EXPECT_EQ(trace_.branch_of(i, ids_.x), T::kNotEvaluated);                    // not a select
  }
}

TEST_F(TraceTest, NodeValuesAreRecomputedOnDemand) {
  EXPECT_EQ(must(node_value(*runtime_, trace_, 2, ids_.inner)), std::optional<double>(11));
  EXPECT_EQ(must(node_value(*runtime_, trace_, 2, ids_.doubled)), std::optional<double>(11));
  EXPECT_EQ(must(node_value(*runtime_, trace_, 1, ids_.doubled)), std::nullopt);  // branch not taken
  EXPECT_EQ(must(node_value(*runtime_, trace_, 3, ids_.inner)), std::nullopt);
  EXPECT_EQ(must(node_value(*runtime_, trace_, 3, ids_.s)), std::optional<double>(11));
  CaseTrace all = must(evaluate_row(*runtime_, trace_, 5));
  EXPECT_EQ(all.values[std::size_t(ids_.outer)], 19);
  EXPECT_EQ(all.branch[std::size_t(ids_.inner)], 1);
  EXPECT_FALSE(node_value(*runtime_, trace_, 6, ids_.x).ok());  // past the last row
  EXPECT_FALSE(node_value(*runtime_, trace_, 0, 999).ok());     // no such node
}

TEST_F(TraceTest, JumpToChange) {
  auto first = [&](NodeId n) { return must(first_change(*runtime_, trace_, n)); };
  EXPECT_EQ(first(ids_.s), std::optional<std::size_t>(1));           // 0 -> 1
  EXPECT_EQ(first(ids_.outer_cond), std::optional<std::size_t>(3));  // x > 0 turns false at x = -1
  EXPECT_EQ(first(ids_.inner_cond), std::optional<std::size_t>(2));  // x > 3 first holds at x = 4
  EXPECT_EQ(first(ids_.spare), std::nullopt);                         // never computed, never changes
  EXPECT_EQ(must(next_change(*runtime_, trace_, ids_.outer_cond, 3)), std::optional<std::size_t>(5));
  // Being computed in one row and not in the next counts as a change.
  EXPECT_EQ(must(next_change(*runtime_, trace_, ids_.inner_cond, 2)), std::optional<std::size_t>(3));
  EXPECT_EQ(must(next_change(*runtime_, trace_, ids_.outer_cond, 5)), std::nullopt);
  EXPECT_EQ(must(previous_change(*runtime_, trace_, ids_.outer_cond, 5)), std::optional<std::size_t>(3));
  EXPECT_EQ(must(previous_change(*runtime_, trace_, ids_.outer_cond, 3)), std::nullopt);
  EXPECT_EQ(must(previous_change(*runtime_, trace_, ids_.x, 100)), std::optional<std::size_t>(5));
}

TEST(Trace, RecordTraceLeavesTheRuntimeAlone) {
  Runtime runtime = must(Runtime::create(testing::branching_program(), 100));
  must(runtime.dispatch({{"x", 1}}));
  TraceRecording rec = must(record_trace(runtime, xs({2, 3, 9, 1})));
  EXPECT_EQ(runtime.steps(), 1u);
  EXPECT_EQ(runtime.state(), std::vector<double>{1});
  ASSERT_TRUE(rec.failure.has_value());
  EXPECT_EQ(rec.failure->index, 2u);  // x = 9 is outside -5..5
  ASSERT_EQ(rec.trace.size(), 2u);
  EXPECT_EQ(rec.trace.first_step(), 1u);
  EXPECT_EQ(rec.trace.step_number(0), 2u);
  EXPECT_EQ(rec.trace.state_before(0)[0], 1);
  EXPECT_EQ(rec.trace.state_after(1)[0], 6);
  EXPECT_TRUE(rec.failure_values.values.empty());  // refused before evaluation
}

TEST(Trace, RecordTraceKeepsTheFailedEventsPartialValues) {
  Runtime runtime = must(Runtime::create(testing::divide_program(), 100));
  const std::vector<NamedValues> events = {{{"d", 2}}, {{"d", 0}}};
  TraceRecording rec = must(record_trace(runtime, events));
  ASSERT_TRUE(rec.failure.has_value());
  EXPECT_EQ(rec.failure->index, 1u);
  ASSERT_EQ(rec.trace.size(), 1u);
  const Program& p = runtime.program();
  const auto acc = std::size_t(*p.find_named(Op::State, "acc"));
  const auto d = std::size_t(*p.find_named(Op::Input, "d"));
  ASSERT_EQ(rec.failure_values.values.size(), p.nodes.size());
  EXPECT_EQ(rec.failure_values.values[d], 0);
  EXPECT_EQ(rec.failure_values.values[acc], 6);  // the state the failed event saw
  const auto div = std::size_t(p.nodes_of(Op::Div).front());
  EXPECT_EQ(rec.failure_values.computed[div], 0);  // the division raised
}

TEST(Trace, AppendingAcrossReplaysEqualsOneReplay) {
  const auto events = xs({1, -2, 3, 4, 0, -5, 5, 2});
  Runtime one = must(Runtime::create(testing::branching_program(), 100));
  StepTrace whole;
  ASSERT_TRUE(one.replay(events, &whole).ok());
  Runtime two = must(Runtime::create(testing::branching_program(), 100));
  StepTrace parts;
  ASSERT_TRUE(two.replay(std::span(events).first(3), &parts).ok());
  ASSERT_TRUE(two.replay(std::span(events).subspan(3), &parts).ok());
  ASSERT_EQ(parts.size(), whole.size());
  for (std::size_t i = 0; i < whole.size(); ++i) {
    EXPECT_EQ(std::vector<double>(parts.outputs(i).begin(), parts.outputs(i).end()),
              std::vector<double>(whole.outputs(i).begin(), whole.outputs(i).end()));
    for (std::size_t k = 0; k < whole.select_ids().size(); ++k) EXPECT_EQ(parts.branch(i, k), whole.branch(i, k));
  }
  // A trace that does not end where the runtime stands is refused.
  must(two.dispatch({{"x", 1}}));
  ReplayResult r = two.replay(xs({1}), &parts);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.committed, 0u);
  EXPECT_EQ(two.steps(), 9u);
}

TEST(Trace, StaysCompact) {
  // 20,000 counter steps: one input, one output and one state per row.
  Runtime runtime = must(Runtime::create(testing::counter_program(30000), 30000));
  std::vector<NamedValues> events(20000, NamedValues{{"event", 1}});
  StepTrace trace;
  ASSERT_TRUE(runtime.replay(events, &trace).ok());
  EXPECT_EQ(trace.size(), 20000u);
  EXPECT_EQ(trace.state_after(19999)[0], 20000);
  EXPECT_LE(trace.memory_bytes(), 20000u * 3 * sizeof(double) + 64);
  // Branches cost two bits per select per row.
  Runtime branching = must(Runtime::create(testing::branching_program(), 30000));
  StepTrace t2;
  std::vector<NamedValues> alternating;
  for (int i = 0; i < 20000; ++i) alternating.push_back({{"x", i % 2 ? -1 : 1}});
  ASSERT_TRUE(branching.replay(alternating, &t2).ok());
  ASSERT_EQ(t2.size(), 20000u);
  EXPECT_LE(t2.memory_bytes(), t2.size() * (4 * sizeof(double)) + t2.size() * 3 * 2 / 8 + 64);
}

}  // namespace
}  // namespace tc
