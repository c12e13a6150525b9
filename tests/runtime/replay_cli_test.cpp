// `tensorcode replay` end to end: the built binary on temporary files.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "ir/artifact.h"
#include "runtime/runtime.h"
#include "runtime/runtime_util.h"
#include "support/cli_util.h"
#include "support/golden.h"

namespace tc {
namespace {

using testing::must;
using testing::run_cli;
using Json = nlohmann::ordered_json;
namespace fs = std::filesystem;

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<Json> json_lines(const std::string& text) {
  std::vector<Json> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) out.push_back(Json::parse(line));
  return out;
}

std::string counter_path() { return std::string(TC_SOURCE_DIR) + "/resources/examples/counter.json"; }

class ReplayCli : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = testing::temp_dir(); }
  std::string file(const std::string& name, const std::string& text) { return testing::write_temp(dir_, name, text); }
  std::string path(const std::string& name) const { return dir_ + "/" + name; }
  // No temporary sibling of an atomically written file may be left behind.
  void expect_no_stray_files(std::size_t expected) const {
    std::size_t n = 0;
    for (const auto& e : fs::directory_iterator(dir_)) {
      (void)e;
      ++n;
    }
    EXPECT_EQ(n, expected);
  }
  std::string dir_;
};

TEST_F(ReplayCli, CounterExampleAndResume) {
  const std::string events = file("events.jsonl", "{\"event\": 1}\n");
  const std::string snap = path("snap.json");
  auto r = run_cli({"replay", counter_path(), "--events", events, "--max-steps", "100", "--snapshot-out", snap});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "{\"step\":1,\"outputs\":{\"result\":0},\"state\":{\"count\":1}}\n");
  EXPECT_EQ(r.err, "");
  Runtime saved = must(Runtime::restore_text(slurp(snap)));
  EXPECT_EQ(saved.steps(), 1u);
  EXPECT_EQ(saved.max_steps(), 100u);
  EXPECT_EQ(saved.state(), std::vector<double>{1});

  auto resumed = run_cli({"replay", counter_path(), "--events", events, "--from-snapshot", snap});
  ASSERT_EQ(resumed.status, 0) << resumed.err;
  EXPECT_EQ(resumed.out, "{\"step\":2,\"outputs\":{\"result\":1},\"state\":{\"count\":2}}\n");
}

TEST_F(ReplayCli, BundledExampleMatchesGolden) {
  const std::string events = std::string(TC_SOURCE_DIR) + "/resources/examples/counter_events.jsonl";
  const std::string golden = std::string(TC_TEST_DATA) + "/runtime/counter_events.expected";
  auto r = run_cli({"replay", counter_path(), "--events", events});
  ASSERT_EQ(r.status, 0) << r.err;
  if (tc::testing::update_golden()) {
    std::ofstream(golden, std::ios::binary) << r.out;
    GTEST_SKIP() << "rewrote " << golden << " (TC_UPDATE_GOLDEN): nothing compared";
  }
  EXPECT_EQ(r.out, slurp(golden));
}

// A failing event on line `line` after `ok_lines` committed events: nothing
// printed for it, the error names the file and line, exit 3, and the
// snapshot holds exactly the committed events.
struct FailingFile {
  const char* name;
  const char* text;
  int line;
  int committed;
  const char* message;
  const char* max_steps = "100";
};

class ReplayCliFailure : public ReplayCli, public ::testing::WithParamInterface<FailingFile> {};

TEST_P(ReplayCliFailure, StopsReportsAndSnapshotsTheCommittedState) {
  const FailingFile& c = GetParam();
  const std::string events = file("events.jsonl", c.text);
  const std::string snap = path("out.json");
  auto r = run_cli({"replay", counter_path(), "--events", events, "--max-steps", c.max_steps, "--snapshot-out", snap});
  EXPECT_EQ(r.status, 3) << r.err;
  EXPECT_EQ(json_lines(r.out).size(), std::size_t(c.committed)) << r.out;
  const std::string prefix = events + ":" + std::to_string(c.line) + ": error: ";
  EXPECT_EQ(r.err.rfind(prefix, 0), 0u) << r.err;
  EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  ASSERT_TRUE(fs::exists(snap));
  Runtime saved = must(Runtime::restore_text(slurp(snap)));
  EXPECT_EQ(saved.steps(), std::uint64_t(c.committed));
  EXPECT_EQ(saved.state(), std::vector<double>{double(c.committed)});  // every committed event adds 1
  expect_no_stray_files(2);
}

INSTANTIATE_TEST_SUITE_P(
    EveryKind, ReplayCliFailure,
    ::testing::Values(
        FailingFile{"fractional", "{\"event\": 1}\n\n{\"event\": 0.5}\n{\"event\": 1}\n", 3, 1, "0.5 is not an integer"},
        FailingFile{"out_of_domain", "{\"event\": 1}\n{\"event\": 1}\n{\"event\": 3}\n", 3, 2, "3 is above the maximum 1"},
        FailingFile{"missing_input", "{\"event\": 1}\n{}\n", 2, 1, "missing input 'event'"},
        FailingFile{"unknown_input", "{\"event\": 1, \"x\": 2}\n", 1, 0, "unknown input 'x'"},
        FailingFile{"not_a_number", "{\"event\": \"1\"}\n", 1, 0, "is not a number"},
        FailingFile{"malformed_line", "{\"event\": 1}\n{\"event\": 1\n{\"event\": 1}\n", 2, 1, ""},
        FailingFile{"not_an_object", "{\"event\": 1}\n[1]\n", 2, 1, "must be a JSON object"},
        FailingFile{"exhausted_budget", "{\"event\": 1}\n{\"event\": 1}\n\n{\"event\": 1}\n", 4, 2,
                    "step budget exhausted: 2 of 2 steps used", "2"},
        FailingFile{"zero_budget", "{\"event\": 1}\n", 1, 0, "step budget exhausted", "0"},
        FailingFile{"crlf_lines", "{\"event\": 1}\r\n\r\n{\"event\": 2}\r\n", 3, 1, "2 is above the maximum 1"}),
    [](const ::testing::TestParamInfo<FailingFile>& info) { return std::string(info.param.name); });

TEST_F(ReplayCli, UpdateOverflowAndDivisionByZeroLeaveTheSnapshotAtTheLastCommit) {
  const std::string small = file("small.json", save_artifact(testing::counter_program(2)));
  auto r = run_cli({"replay", small, "--events", file("e.jsonl", "{\"event\":1}\n{\"event\":1}\n{\"event\":1}\n"),
                    "--snapshot-out", path("s.json")});
  EXPECT_EQ(r.status, 3);
  EXPECT_NE(r.err.find(":3: error: node 2 (add): new value of state 'count': 3 is above the maximum 2"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(must(Runtime::restore_text(slurp(path("s.json")))).state(), std::vector<double>{2});

  const std::string divide = file("divide.json", save_artifact(testing::divide_program()));
  r = run_cli({"replay", divide, "--events", file("d.jsonl", "{\"d\":3}\n{\"d\":0}\n"), "--snapshot-out",
               path("d.json")});
  EXPECT_EQ(r.status, 3);
  EXPECT_NE(r.err.find(":2: error: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("division by zero"), std::string::npos) << r.err;
  Runtime saved = must(Runtime::restore_text(slurp(path("d.json"))));
  EXPECT_EQ(saved.state(), std::vector<double>{4});
  EXPECT_EQ(saved.steps(), 1u);
}

TEST_F(ReplayCli, LastLineWithoutNewline) {
  auto r = run_cli({"replay", counter_path(), "--events", file("e.jsonl", "{\"event\":1}\n{\"event\":1}")});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(json_lines(r.out).size(), 2u);
}

TEST_F(ReplayCli, EmptyEventsFileWritesTheInitialSnapshot) {
  auto r = run_cli({"replay", counter_path(), "--events", file("e.jsonl", ""), "--max-steps", "7", "--snapshot-out",
                    path("s.json")});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "");
  Runtime saved = must(Runtime::restore_text(slurp(path("s.json"))));
  EXPECT_EQ(saved.steps(), 0u);
  EXPECT_EQ(saved.max_steps(), 7u);
}

TEST_F(ReplayCli, RestoredBudgetIsNotReset) {
  const std::string events = file("e.jsonl", "{\"event\":1}\n{\"event\":1}\n{\"event\":1}\n");
  auto first = run_cli({"replay", counter_path(), "--events", events, "--max-steps", "4", "--snapshot-out",
                        path("a.json")});
  ASSERT_EQ(first.status, 0) << first.err;
  auto second = run_cli({"replay", counter_path(), "--events", events, "--from-snapshot", path("a.json"),
                         "--snapshot-out", path("b.json")});
  EXPECT_EQ(second.status, 3);
  EXPECT_EQ(json_lines(second.out).size(), 1u);
  EXPECT_EQ(json_lines(second.out)[0]["step"], 4);
  EXPECT_NE(second.err.find(":2: error: step budget exhausted: 4 of 4 steps used"), std::string::npos) << second.err;
  Runtime saved = must(Runtime::restore_text(slurp(path("b.json"))));
  EXPECT_EQ(saved.steps(), 4u);
  EXPECT_EQ(saved.max_steps(), 4u);
}

TEST_F(ReplayCli, MaxStepsWithFromSnapshotIsAUsageError) {
  const std::string events = file("e.jsonl", "{\"event\":1}\n");
  ASSERT_EQ(run_cli({"replay", counter_path(), "--events", events, "--snapshot-out", path("a.json")}).status, 0);
  auto r = run_cli({"replay", counter_path(), "--events", events, "--from-snapshot", path("a.json"), "--max-steps",
                    "50", "--snapshot-out", path("b.json")});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("--max-steps"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(path("b.json")));
}

TEST_F(ReplayCli, ADifferentProgramIsRefused) {
  const std::string events = file("e.jsonl", "{\"event\":1}\n");
  ASSERT_EQ(run_cli({"replay", counter_path(), "--events", events, "--snapshot-out", path("a.json")}).status, 0);
  const std::string other = file("other.json", save_artifact(testing::counter_program(50)));
  auto r = run_cli({"replay", other, "--events", events, "--from-snapshot", path("a.json")});
  EXPECT_EQ(r.status, 3);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("is not the program of snapshot"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("node 1 (state 'count')"), std::string::npos) << r.err;
}

TEST_F(ReplayCli, MalformedSnapshotsExitThree) {
  const std::string events = file("e.jsonl", "{\"event\":1}\n");
  const std::string dir = std::string(TC_TEST_DATA) + "/runtime/snapshots";
  int checked = 0;
  for (const char* name : {"truncated.json", "empty.json", "wrong_format.json", "wrong_version.json",
                           "state_missing.json", "steps_above_max.json", "state_outside_domain.json",
                           "deep_nesting.json"}) {
    // A previous snapshot-out must survive a refused run untouched.
    const std::string out = file("keep.json", "previous contents");
    auto r = run_cli({"replay", counter_path(), "--events", events, "--from-snapshot", dir + "/" + name,
                      "--snapshot-out", out});
    EXPECT_EQ(r.status, 3) << name;
    EXPECT_EQ(r.out, "") << name;
    EXPECT_EQ(r.err.rfind("error: " + dir + "/" + name + ": snapshot: ", 0), 0u) << name << ": " << r.err;
    EXPECT_EQ(slurp(out), "previous contents") << name;
    ++checked;
  }
  EXPECT_EQ(checked, 8);
  // An exhausted snapshot restores and fails its first event.
  auto r = run_cli({"replay", counter_path(), "--events", events, "--from-snapshot", dir + "/exhausted.json"});
  EXPECT_EQ(r.status, 3);
  EXPECT_NE(r.err.find(":1: error: step budget exhausted: 10 of 10"), std::string::npos) << r.err;
}

TEST_F(ReplayCli, MissingFilesAndBadOptions) {
  auto r = run_cli({"replay", counter_path(), "--events", path("nope.jsonl")});
  EXPECT_EQ(r.status, 3);
  EXPECT_EQ(r.err.rfind("error: ", 0), 0u) << r.err;
  r = run_cli({"replay", counter_path()});
  EXPECT_EQ(r.status, 2);  // --events is required
  r = run_cli({"replay", counter_path(), "--events", file("e.jsonl", ""), "--max-steps", "-3"});
  EXPECT_EQ(r.status, 2);
  r = run_cli({"replay", path("missing.json"), "--events", file("e.jsonl", "")});
  EXPECT_EQ(r.status, 3);
  r = run_cli({"replay", "--help"});
  EXPECT_EQ(r.status, 0);
  for (const char* opt : {"--events", "--max-steps", "--from-snapshot", "--snapshot-out"})
    EXPECT_NE(r.out.find(opt), std::string::npos) << opt;
}

}  // namespace
}  // namespace tc
