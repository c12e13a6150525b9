// Snapshots: exact round trips, the budget survives restore, and every
// malformed snapshot is refused with a message saying what is wrong.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "ir/artifact.h"
#include "runtime/runtime.h"
#include "runtime/runtime_util.h"

namespace tc {
namespace {

using testing::must;
using Json = nlohmann::ordered_json;

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Runtime counter_after(int events, std::uint64_t max_steps = 100) {
  Runtime runtime = must(Runtime::create(testing::counter_program(), max_steps));
  for (int i = 0; i < events; ++i) must(runtime.dispatch({{"event", 1}}));
  return runtime;
}

TEST(Snapshot, HasTheContractShape) {
  Runtime runtime = counter_after(1);
  Json s = runtime.snapshot();
  std::vector<std::string> keys;
  for (const auto& [k, _] : s.items()) keys.push_back(k);
  EXPECT_EQ(keys, (std::vector<std::string>{"format", "version", "program", "state", "steps", "max_steps"}));
  EXPECT_EQ(s["format"], "tensorcode.snapshot");
  EXPECT_EQ(s["version"], 1);
  EXPECT_EQ(s["program"], program_to_json(runtime.program()));
  EXPECT_EQ(s["state"], Json::parse(R"({"count": 1})"));
  EXPECT_EQ(s["steps"], 1);
  EXPECT_EQ(s["max_steps"], 100);
}

TEST(Snapshot, RoundTripIsExact) {
  Builder b;
  Value x = b.input("x", Domain::float64(-10, 10));
  Value acc = b.state("acc", 0.1, Domain::float64(-1e9, 1e9));
  Value n = b.state("n", 0, Domain::int32(0, 1000));
  b.update(acc, acc * 1.0000001 + x / 3);
  b.update(n, n + 1);
  Runtime runtime = must(Runtime::create(must(b.build({{"acc", acc}, {"n", n}})), 50));
  for (double v : {0.3, -7.25, 1e-9, 9.99}) must(runtime.dispatch({{"x", v}}));

  const std::string text = runtime.snapshot_text();
  Runtime restored = must(Runtime::restore_text(text));
  EXPECT_EQ(restored.snapshot_text(), text);           // restore + snapshot gives the same text
  EXPECT_EQ(restored.snapshot(), runtime.snapshot());  // and the same JSON
  EXPECT_EQ(restored.state(), runtime.state());        // bit-identical doubles
  EXPECT_EQ(restored.program(), runtime.program());
  // And both continue identically.
  StepResult a = must(runtime.dispatch({{"x", 2.5}}));
  StepResult c = must(restored.dispatch({{"x", 2.5}}));
  EXPECT_EQ(a.outputs, c.outputs);
  EXPECT_EQ(a.state, c.state);
}

TEST(Snapshot, RestoredBudgetIsNotReset) {
  Runtime runtime = counter_after(3, 4);
  Runtime restored = must(Runtime::restore(runtime.snapshot()));
  EXPECT_EQ(restored.steps(), 3u);
  EXPECT_EQ(restored.max_steps(), 4u);
  must(restored.dispatch({{"event", 1}}));
  auto over = restored.dispatch({{"event", 1}});
  ASSERT_FALSE(over.ok());
  EXPECT_NE(over.error().message.find("step budget exhausted: 4 of 4"), std::string::npos);
  // A snapshot of the exhausted runtime restores exhausted.
  Runtime again = must(Runtime::restore_text(restored.snapshot_text()));
  EXPECT_FALSE(again.dispatch({{"event", 0}}).ok());
  EXPECT_EQ(again.state(), std::vector<double>{4});
}

TEST(Snapshot, StatelessProgramsSnapshotToo) {
  Builder b;
  Value x = b.input("x", Domain::int32(0, 3));
  Runtime runtime = must(Runtime::create(must(b.build(x * 2)), 5));
  must(runtime.dispatch({{"x", 3}}));
  Json s = runtime.snapshot();
  EXPECT_EQ(s["state"], Json::object());
  Runtime restored = must(Runtime::restore(s));
  EXPECT_EQ(restored.steps(), 1u);
}

// Each malformed snapshot, made by one edit of a valid one, is refused and
// the message names the problem.
struct Edit {
  const char* name;
  std::function<void(Json&)> apply;
  const char* message;
};

class MalformedSnapshot : public ::testing::TestWithParam<Edit> {};

TEST_P(MalformedSnapshot, IsRefused) {
  Json s = counter_after(2).snapshot();
  GetParam().apply(s);
  auto r = Runtime::restore(s);
  ASSERT_FALSE(r.ok()) << GetParam().name;
  EXPECT_NE(r.error().message.find(GetParam().message), std::string::npos)
      << GetParam().name << ": " << r.error().message;
  EXPECT_EQ(r.error().message.rfind("snapshot: ", 0), 0u) << r.error().message;
}

INSTANTIATE_TEST_SUITE_P(
    EachField, MalformedSnapshot,
    ::testing::Values(
        Edit{"wrong_format", [](Json& s) { s["format"] = "tensorcode.program"; }, "field 'format'"},
        Edit{"missing_format", [](Json& s) { s.erase("format"); }, "missing field 'format'"},
        Edit{"wrong_version", [](Json& s) { s["version"] = 2; }, "unsupported version 2"},
        Edit{"string_version", [](Json& s) { s["version"] = "1"; }, "field 'version'"},
        Edit{"missing_program", [](Json& s) { s.erase("program"); }, "missing field 'program'"},
        Edit{"invalid_program", [](Json& s) { s["program"]["nodes"][2]["args"] = Json::array({5, 0}); },
             "field 'program'"},
        Edit{"missing_state", [](Json& s) { s.erase("state"); }, "missing field 'state'"},
        Edit{"state_not_object", [](Json& s) { s["state"] = Json::array({2}); }, "field 'state' must be an object"},
        Edit{"state_name_missing", [](Json& s) { s["state"] = Json::object(); }, "missing state 'count'"},
        Edit{"state_name_unknown", [](Json& s) { s["state"]["other"] = 1; }, "no state 'other'"},
        Edit{"state_above_domain", [](Json& s) { s["state"]["count"] = 101; }, "101 is above the maximum 100"},
        Edit{"state_fractional", [](Json& s) { s["state"]["count"] = 1.5; }, "1.5 is not an integer"},
        Edit{"state_not_number", [](Json& s) { s["state"]["count"] = "2"; }, "is not a number"},
        Edit{"steps_above_max", [](Json& s) { s["steps"] = 101; }, "steps (101) exceed max_steps (100)"},
        Edit{"negative_steps", [](Json& s) { s["steps"] = -1; }, "field 'steps' must not be negative"},
        Edit{"fractional_steps", [](Json& s) { s["steps"] = 1.5; }, "field 'steps' must be a non-negative integer"},
        Edit{"missing_steps", [](Json& s) { s.erase("steps"); }, "missing field 'steps'"},
        Edit{"missing_max_steps", [](Json& s) { s.erase("max_steps"); }, "missing field 'max_steps'"},
        Edit{"unknown_field", [](Json& s) { s["extra"] = 1; }, "unknown field 'extra'"},
        Edit{"not_object", [](Json& s) { s = Json::array(); }, "expected a JSON object"}),
    [](const ::testing::TestParamInfo<Edit>& info) { return std::string(info.param.name); });

TEST(Snapshot, TruncatedTextIsRefusedAtEveryCut) {
  const std::string text = counter_after(2).snapshot_text();
  // Every proper prefix that is not the text minus trailing whitespace.
  for (std::size_t cut = 0; cut + 2 < text.size(); cut += 7) {
    auto r = Runtime::restore_text(std::string_view(text).substr(0, cut));
    EXPECT_FALSE(r.ok()) << "prefix of " << cut << " bytes was accepted";
  }
}

// Files in tests/data/runtime/snapshots: *.json next to an EXPECT file
// listing "NAME: substring of the error" per line ("NAME: ok" when valid).
TEST(Snapshot, DataFiles) {
  const std::string dir = std::string(TC_TEST_DATA) + "/runtime/snapshots";
  std::ifstream expect(dir + "/EXPECT");
  ASSERT_TRUE(expect.good()) << dir;
  std::string line;
  int checked = 0;
  while (std::getline(expect, line)) {
    if (line.empty() || line[0] == '#') continue;
    const auto colon = line.find(": ");
    ASSERT_NE(colon, std::string::npos) << line;
    const std::string name = line.substr(0, colon), want = line.substr(colon + 2);
    auto r = Runtime::restore_text(slurp(dir + "/" + name));
    if (want == "ok") {
      EXPECT_TRUE(r.ok()) << name << ": " << (r.ok() ? "" : r.error().message);
    } else {
      ASSERT_FALSE(r.ok()) << name;
      EXPECT_NE(r.error().message.find(want), std::string::npos) << name << ": " << r.error().message;
    }
    ++checked;
  }
  EXPECT_GE(checked, 5);
}

TEST(Snapshot, ProgramDifferenceNamesTheNode) {
  Program a = testing::counter_program(100);
  EXPECT_FALSE(describe_program_difference(a, a).has_value());
  Program b = testing::counter_program(50);
  auto diff = describe_program_difference(a, b);
  ASSERT_TRUE(diff.has_value());
  EXPECT_EQ(*diff, "node 1 (state 'count'): domain differs (int32:0:100 vs int32:0:50)");
  Program moved = a;
  moved.nodes[2].location = SourceLoc{3, 4};
  EXPECT_EQ(*describe_program_difference(a, moved), "node 2 (add): location differs (none vs line 3, column 4)");
  Program started = a;
  started.nodes[1].value = 5;
  EXPECT_EQ(*describe_program_difference(a, started), "node 1 (state 'count'): value differs (0 vs 5)");
  Program c = a;
  c.semantics = Semantics::Hybrid;
  EXPECT_NE(describe_program_difference(a, c)->find("semantics"), std::string::npos);
  Program d = a;
  d.outputs[0].first = "other";
  EXPECT_NE(describe_program_difference(a, d)->find("outputs"), std::string::npos);
  // The same circuit after an artifact round trip is the same.
  Program e = must(load_artifact(save_artifact(a)));
  EXPECT_FALSE(describe_program_difference(a, e).has_value());
}

}  // namespace
}  // namespace tc
