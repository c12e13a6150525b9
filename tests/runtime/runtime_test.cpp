// Transactional events: the description's counter, old-state semantics, and
// that every failure kind leaves state and step count untouched.
#include <gtest/gtest.h>

#include "runtime/runtime.h"
#include "runtime/runtime_util.h"

namespace tc {
namespace {

using testing::must;

TEST(Runtime, DescriptionCounterExample) {
  Runtime runtime = must(Runtime::create(testing::counter_program(), 100));
  StepResult first = must(runtime.dispatch({{"event", 1}}));
  EXPECT_EQ(runtime.named_outputs(first), (NamedValues{{"result", 0}}));  // the output sees the old state
  EXPECT_EQ(runtime.state_map(), (NamedValues{{"count", 1}}));
  EXPECT_EQ(runtime.steps(), 1u);

  nlohmann::ordered_json saved = runtime.snapshot();
  Runtime resumed = must(Runtime::restore(saved));
  StepResult second = must(resumed.dispatch({{"event", 1}}));
  EXPECT_EQ(resumed.named_outputs(second), (NamedValues{{"result", 1}}));
  EXPECT_EQ(resumed.steps(), 2u);
  EXPECT_EQ(resumed.max_steps(), 100u);
}

TEST(Runtime, StepIsPure) {
  Runtime runtime = must(Runtime::create(testing::counter_program(), 10));
  StepResult r = must(runtime.step({{"event", 1}}, NamedValues{{"count", 41}}));
  EXPECT_EQ(r.outputs, std::vector<double>{41});
  EXPECT_EQ(r.state, std::vector<double>{42});
  EXPECT_EQ(runtime.state(), std::vector<double>{0});
  EXPECT_EQ(runtime.steps(), 0u);
  // The same call twice gives the same answer: nothing was committed.
  StepResult again = must(runtime.step({{"event", 1}}, NamedValues{{"count", 41}}));
  EXPECT_EQ(again.state, r.state);
}

TEST(Runtime, StepChecksTheGivenState) {
  Runtime runtime = must(Runtime::create(testing::counter_program(), 10));
  auto missing = runtime.step({{"event", 1}}, NamedValues{});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("missing state 'count'"), std::string::npos) << missing.error().message;
  auto unknown = runtime.step({{"event", 1}}, NamedValues{{"count", 1}, {"other", 2}});
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().message.find("unknown state 'other'"), std::string::npos);
  auto outside = runtime.step({{"event", 1}}, NamedValues{{"count", 101}});
  ASSERT_FALSE(outside.ok());
  EXPECT_NE(outside.error().message.find("state 'count': 101 is above the maximum 100"), std::string::npos)
      << outside.error().message;
}

TEST(Runtime, AllUpdatesSeeTheOldStateAndCommitTogether) {
  // a' = b, b' = a: a simultaneous swap, which sequential commits would break.
  Builder b;
  Value tick = b.input("tick", Domain::int32(0, 1));
  Value a = b.state("a", 1, Domain::int32(0, 10));
  Value c = b.state("b", 2, Domain::int32(0, 10));
  b.update(a, c + tick * 0);
  b.update(c, a);
  Runtime runtime = must(Runtime::create(must(b.build({{"a", a}, {"b", c}})), 10));
  StepResult r = must(runtime.dispatch({{"tick", 0}}));
  EXPECT_EQ(r.outputs, (std::vector<double>{1, 2}));
  EXPECT_EQ(runtime.state_map(), (NamedValues{{"a", 2}, {"b", 1}}));
  must(runtime.dispatch({{"tick", 1}}));
  EXPECT_EQ(runtime.state_map(), (NamedValues{{"a", 1}, {"b", 2}}));
}

TEST(Runtime, StateWithoutUpdateStaysAtItsValue) {
  Builder b;
  Value x = b.input("x", Domain::int32(0, 5));
  Value k = b.state("k", 7, Domain::int32(0, 10));
  Runtime runtime = must(Runtime::create(must(b.build(x + k)), 10));
  StepResult r = must(runtime.dispatch({{"x", 2}}));
  EXPECT_EQ(r.outputs, std::vector<double>{9});
  EXPECT_EQ(runtime.state(), std::vector<double>{7});
  EXPECT_EQ(runtime.steps(), 1u);
}

TEST(Runtime, StateDomainsHoldInRelaxedSemanticsToo) {
  // Relaxed values are continuous and unchecked inside the circuit, but a
  // committed state must stay restorable: x > 0 relaxes to sigmoid(x), a
  // fraction that an int32 state refuses.
  Builder b(Semantics::Relaxed);
  Value x = b.input("x", Domain::float64(-5, 5));
  Value hits = b.state("hits", 0, Domain::int32(0, 10));
  b.update(hits, hits + (x > 0));
  Runtime runtime = must(Runtime::create(must(b.build(hits)), 10));
  auto r = runtime.dispatch({{"x", 1}});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("new value of state 'hits'"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("is not an integer"), std::string::npos) << r.error().message;
  EXPECT_EQ(runtime.steps(), 0u);
  EXPECT_EQ(runtime.state(), std::vector<double>{0});
}

TEST(Runtime, InitialValueOutsideItsDomainIsRejected) {
  Program p = testing::counter_program(5);
  p.nodes[1].value = 9;
  auto r = Runtime::create(p, 10);
  ASSERT_FALSE(r.ok());
}

// One failing event per failure kind: the error is reported, and neither the
// state nor the step count changes; the next valid event still works from
// the unchanged state.
struct FailureCase {
  const char* name;
  std::function<Program()> program;
  std::vector<NamedValues> before;  // committed first
  NamedValues failing;
  const char* message;  // a substring of the error
  std::uint64_t max_steps = 100;
};

class RuntimeFailure : public ::testing::TestWithParam<FailureCase> {};

TEST_P(RuntimeFailure, LeavesStateAndStepsUntouched) {
  const FailureCase& c = GetParam();
  Runtime runtime = must(Runtime::create(c.program(), c.max_steps));
  for (const NamedValues& e : c.before) must(runtime.dispatch(e));
  const std::vector<double> state = runtime.state();
  const std::uint64_t steps = runtime.steps();
  const std::string snapshot = runtime.snapshot_text();

  auto r = runtime.dispatch(c.failing);
  ASSERT_FALSE(r.ok()) << c.name;
  EXPECT_NE(r.error().message.find(c.message), std::string::npos) << c.name << ": " << r.error().message;
  EXPECT_EQ(runtime.state(), state) << c.name;
  EXPECT_EQ(runtime.steps(), steps) << c.name;
  EXPECT_EQ(runtime.snapshot_text(), snapshot) << c.name;

  // Failing again fails the same way: nothing drifted.
  auto again = runtime.dispatch(c.failing);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().message, r.error().message);
  EXPECT_EQ(runtime.state(), state);
}

Program counter3() { return testing::counter_program(3); }

INSTANTIATE_TEST_SUITE_P(
    EveryKind, RuntimeFailure,
    ::testing::Values(
        FailureCase{"update_domain_overflow", counter3, {{{"event", 1}}, {{"event", 1}}, {{"event", 1}}},
                    {{"event", 1}}, "new value of state 'count': 4 is above the maximum 3"},
        // total's update alone would pass: it must not be committed either.
        FailureCase{"second_update_overflows", [] { return testing::two_state_program(2); },
                    {{{"event", 5}}, {{"event", 5}}}, {{"event", 9}}, "new value of state 'guard'"},
        FailureCase{"division_by_zero_in_update", testing::divide_program, {{{"d", 3}}}, {{"d", 0}},
                    "division by zero"},
        FailureCase{"fractional_event", counter3, {{{"event", 1}}}, {{"event", 0.5}}, "input 'event': 0.5 is not an integer"},
        FailureCase{"event_above_domain", counter3, {{{"event", 1}}}, {{"event", 2}},
                    "input 'event': 2 is above the maximum 1"},
        FailureCase{"event_below_domain", counter3, {}, {{"event", -1}}, "input 'event': -1 is below the minimum 0"},
        FailureCase{"missing_input", counter3, {{{"event", 1}}}, {}, "missing input 'event'"},
        FailureCase{"unknown_input", counter3, {{{"event", 1}}}, {{"event", 1}, {"evnt", 1}},
                    "unknown input 'evnt' (the program's inputs are event)"},
        FailureCase{"exhausted_budget", counter3, {{{"event", 1}}, {{"event", 0}}}, {{"event", 1}},
                    "step budget exhausted: 2 of 2 steps used", 2},
        FailureCase{"zero_budget", counter3, {}, {{"event", 1}}, "step budget exhausted: 0 of 0 steps used", 0}),
    [](const ::testing::TestParamInfo<FailureCase>& info) { return std::string(info.param.name); });

TEST(Runtime, EventsFromJson) {
  Builder b;
  Value flag = b.input("flag", Domain::boolean());
  Value n = b.input("n", Domain::int32(0, 9));
  Runtime runtime = must(Runtime::create(must(b.build(flag + n)), 10));
  EXPECT_EQ(must(runtime.parse_event(R"({"flag": true, "n": 3})")), (NamedValues{{"flag", 1}, {"n", 3}}));
  EXPECT_EQ(must(runtime.parse_event(R"({"flag": 0, "n": 2.0})")), (NamedValues{{"flag", 0}, {"n", 2}}));

  const std::string deep(100000, '[');  // refused at the first bracket, no recursion
  struct Bad {
    const char* line;
    const char* message;
  };
  for (const Bad& bad : {Bad{R"({"flag": 1, "n": "3"})", "input 'n': \"3\" is not a number"},
                         Bad{R"({"flag": 1, "n": true})", "input 'n': true is not a number"},
                         Bad{R"({"flag": 1, "n": null})", "input 'n': null is not a number"},
                         Bad{R"({"flag": 1, "m": 1})", "unknown input 'm'"},
                         Bad{R"([1, 2])", "an event must be a JSON object of input values, got array"},
                         Bad{R"({"flag": 1, )", "invalid json"},
                         Bad{"", "invalid json"},
                         Bad{R"({"flag": 1, "n": 2} {})", "invalid json"},
                         Bad{R"({"flag": 1, "n": 1e400})", "invalid json"},
                         Bad{R"({"flag": 1, "n": 2, "n": 3})", "input 'n' is given twice"},
                         Bad{R"({"flag": 1, "n": {"v": 2}})", "input 'n': an object is not a number"},
                         Bad{R"({"flag": 1, "n": [2]})", "input 'n': an array is not a number"},
                         Bad{"3", "got number"},
                         Bad{"\"x\"", "got string"},
                         Bad{"null", "got null"},
                         Bad{"true", "got boolean"},
                         Bad{deep.c_str(), "got array"},
                         Bad{"{\"flag\": 1, \"n\": \"\xff\"}", "invalid json"}}) {
    auto r = runtime.parse_event(bad.line);
    ASSERT_FALSE(r.ok()) << bad.line;
    EXPECT_NE(r.error().message.find(bad.message), std::string::npos) << bad.line << " -> " << r.error().message;
  }
  // The parsed-JSON entry point agrees with the line reader.
  EXPECT_EQ(must(runtime.event_from_json(nlohmann::ordered_json::parse(R"({"flag": false, "n": 9})"))),
            (NamedValues{{"flag", 0}, {"n", 9}}));
  EXPECT_FALSE(runtime.event_from_json(nlohmann::ordered_json::parse(R"({"flag": 1, "n": [1]})")).ok());
  EXPECT_FALSE(runtime.event_from_json(nlohmann::ordered_json::parse(R"({"q": 1})")).ok());
}

TEST(Runtime, ReplayStopsAtTheFirstFailureAndNamesIt) {
  Runtime runtime = must(Runtime::create(testing::counter_program(), 100));
  std::vector<NamedValues> events = {{{"event", 1}}, {{"event", 1}}, {{"event", 7}}, {{"event", 1}}};
  ReplayResult r = runtime.replay(events);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.committed, 2u);
  EXPECT_EQ(r.failure->index, 2u);
  EXPECT_NE(r.failure->error.message.find("input 'event': 7"), std::string::npos);
  EXPECT_EQ(runtime.steps(), 2u);
  EXPECT_EQ(runtime.state(), std::vector<double>{2});  // the fourth event never ran
}

TEST(Runtime, CloneIsIndependent) {
  Runtime runtime = must(Runtime::create(testing::counter_program(), 100));
  must(runtime.dispatch({{"event", 1}}));
  Runtime copy = must(runtime.clone());
  must(copy.dispatch({{"event", 1}}));
  EXPECT_EQ(runtime.state(), std::vector<double>{1});
  EXPECT_EQ(runtime.steps(), 1u);
  EXPECT_EQ(copy.state(), std::vector<double>{2});
  EXPECT_EQ(copy.steps(), 2u);
}

TEST(Runtime, CallsUseBindings) {
  Builder b;
  Value x = b.input("x", Domain::int32(0, 9));
  Value acc = b.state("acc", 0, Domain::float64(0, 1000));
  b.update(acc, b.call("twice", {acc + x}));
  Program p = must(b.build(acc));
  EXPECT_FALSE(Runtime::create(p, 10).ok());  // no binding for 'twice'
  Bindings bindings;
  bindings["twice"].forward = [](std::span<const double> a) { return 2 * a[0]; };
  Runtime runtime = must(Runtime::create(p, 10, &bindings));
  must(runtime.dispatch({{"x", 3}}));
  must(runtime.dispatch({{"x", 1}}));
  EXPECT_EQ(runtime.state(), std::vector<double>{14});
}

}  // namespace
}  // namespace tc
