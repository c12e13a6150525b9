// `tensorcode diff` through the binary: exit statuses (0 same, 1 differ, 2
// usage, 3 rejected), located errors for bad programs and cases, and the
// text form's shape.
#include <gtest/gtest.h>

#include "support/cli_util.h"

namespace tc {
namespace {

using testing::run_cli;
using testing::temp_dir;
using testing::write_temp;

const std::string kExamples = std::string(TC_SOURCE_DIR) + "/resources/examples/";
const std::string kCounter = kExamples + "counter.json";
const std::string kGated = kExamples + "gated.json";

TEST(DiffCli, SameProgramsExitZero) {
  auto r = run_cli({"diff", kCounter, kCounter});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("same circuits\n"), std::string::npos) << r.out;
  EXPECT_TRUE(r.err.empty()) << r.err;
}

TEST(DiffCli, DifferentProgramsExitOne) {
  auto r = run_cli({"diff", kCounter, kGated});
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.out.find("circuits differ\n"), std::string::npos) << r.out;
}

TEST(DiffCli, SourcesCompileWithTheSharedFlags) {
  const std::string dir = temp_dir();
  const std::string a = write_temp(dir, "a.py", "def f(a):\n    return a * 2 + 1\n");
  const std::string b = write_temp(dir, "b.py", "def f(a):\n    return a * 2 + 2\n");
  auto r = run_cli({"diff", a, b, "--input", "a=int32:0:9", "--set", "a=3", "--json"});
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.out.find("\"differing\":1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"a\":7,\"b\":8"), std::string::npos) << r.out;
}

TEST(DiffCli, ASourceAgainstItsArtifact) {
  const std::string dir = temp_dir();
  const std::string src = write_temp(dir, "f.py", "def f(a):\n    return a * 2 + 1\n");
  ASSERT_EQ(run_cli({"compile", src, "--input", "a=int32:0:9", "-o", dir + "/f.json"}).status, 0);
  // --input is for the source side; the artifact side ignores it.
  auto r = run_cli({"diff", src, dir + "/f.json", "--input", "a=int32:0:9"});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
}

TEST(DiffCli, ValuesOnlyLooksAtTheValues) {
  const std::string dir = temp_dir();
  const std::string a = write_temp(dir, "a.py", "def f(a):\n    return a + a\n");
  const std::string b = write_temp(dir, "b.py", "def f(a):\n    return a * 2\n");
  auto structural = run_cli({"diff", a, b, "--input", "a=int32:0:9", "--set", "a=4"});
  EXPECT_EQ(structural.status, 1) << structural.err;
  auto values = run_cli({"diff", a, b, "--input", "a=int32:0:9", "--set", "a=4", "--values-only"});
  EXPECT_EQ(values.status, 0) << values.err;
  EXPECT_NE(values.out.find("circuits differ, same values"), std::string::npos) << values.out;
}

TEST(DiffCli, UsageErrorsExitTwo) {
  EXPECT_EQ(run_cli({"diff", kCounter}).status, 2);
  EXPECT_EQ(run_cli({"diff", kCounter, kCounter, "--values-only"}).status, 2);
  EXPECT_EQ(run_cli({"diff", kCounter, kCounter, "--set", "event"}).status, 2);
  EXPECT_EQ(run_cli({"diff", kCounter, kCounter, "--limit", "0"}).status, 2);
  const std::string dir = temp_dir();
  const std::string cases = write_temp(dir, "c.jsonl", "{\"event\":1}\n");
  EXPECT_EQ(run_cli({"diff", kCounter, kCounter, "--set", "event=1", "--cases", cases}).status, 2);
}

TEST(DiffCli, ARejectedProgramNamesItsFile) {
  const std::string dir = temp_dir();
  const std::string bad = write_temp(dir, "bad.json", "{\"format\":\"tensorcode.program\"");
  auto r = run_cli({"diff", kCounter, bad});
  EXPECT_EQ(r.status, 3);
  EXPECT_NE(r.err.find(bad), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  const std::string src = write_temp(dir, "bad.py", "def f(a):\n    return a +\n");
  r = run_cli({"diff", src, src, "--input", "a=int32:0:9"});
  EXPECT_EQ(r.status, 3);
  EXPECT_EQ(r.err.rfind(src + ":2:", 0), 0u) << r.err;
  EXPECT_EQ(run_cli({"diff", kCounter, dir + "/absent.json"}).status, 3);
}

TEST(DiffCli, ABadCaseLineIsNamedByFileAndLine) {
  const std::string dir = temp_dir();
  const std::string cases = write_temp(dir, "c.jsonl", "{\"event\":1}\n\n{\"event\":\"one\"}\n");
  auto r = run_cli({"diff", kCounter, kCounter, "--cases", cases});
  EXPECT_EQ(r.status, 3);
  EXPECT_EQ(r.err, cases + ":3: error: input 'event' must be a number\n");
  const std::string other = write_temp(dir, "d.jsonl", "{\"event\":1}\n{\"x\":1}\n");
  r = run_cli({"diff", kCounter, kCounter, "--cases", other});
  EXPECT_EQ(r.status, 3);
  EXPECT_NE(r.err.find(other + ":2: error:"), std::string::npos) << r.err;
  const std::string empty = write_temp(dir, "e.jsonl", "\n");
  EXPECT_EQ(run_cli({"diff", kCounter, kCounter, "--cases", empty}).status, 3);
  EXPECT_EQ(run_cli({"diff", kCounter, kCounter, "--cases", dir + "/absent.jsonl"}).status, 3);
}

TEST(DiffCli, CasesForAnInputNeitherHasAreRejected) {
  auto r = run_cli({"diff", kCounter, kCounter, "--set", "event=1", "--set", "nope=2"});
  EXPECT_EQ(r.status, 3);
  EXPECT_EQ(r.err, "error: the cases name 'nope', an input of neither program\n");
}

TEST(DiffCli, TheTextListIsCutAtTheLimit) {
  const std::string dir = temp_dir();
  const std::string a = write_temp(dir, "a.py", "def f(x):\n    s = 0.0\n    for i in range(3):\n        s = s + x\n    return s\n");
  const std::string b = write_temp(dir, "b.py", "def f(x):\n    s = 0.0\n    for i in range(30):\n        s = s + x\n    return s\n");
  auto r = run_cli({"diff", a, b, "--input", "x=float64:-1:1", "--limit", "3"});
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.out.find("  ... and "), std::string::npos) << r.out;
}

}  // namespace
}  // namespace tc
