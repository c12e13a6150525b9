// End-to-end tests of `tensorcode run`: the built binary is spawned on the
// artifacts in tests/data/eval/cli and on temporary cases files.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "support/cli_util.h"

namespace tc {
namespace {

using nlohmann::json;
using testing::run_cli;

std::string data(const std::string& name) { return std::string(TC_TEST_DATA) + "/eval/cli/" + name; }

std::vector<json> json_lines(const std::string& text) {
  std::vector<json> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) out.push_back(json::parse(line));
  return out;
}

/// Exactly one line on stderr.
bool one_line(const std::string& err) { return !err.empty() && err.find('\n') == err.size() - 1; }

TEST(EvalRunCli, SingleCasePrintsOutputsByName) {
  auto r = run_cli({"run", data("choose.json"), "--set", "a=5"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(json::parse(r.out), json::parse(R"({"result": 10})"));
  r = run_cli({"run", data("choose.json"), "--set", "a=4"});
  EXPECT_EQ(json::parse(r.out)["result"], 12);
  r = run_cli({"run", data("ratio.json"), "--set", "a=7", "--set", "b=2"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "{\"result[0]\":3.5,\"result[1]\":3}\n");
}

TEST(EvalRunCli, ParametersOverrideStoredValues) {
  auto r = run_cli({"run", data("gated.json"), "--set", "x=5"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["result"], 0);
  r = run_cli({"run", data("gated.json"), "--set", "x=5", "--param", "weight=0.5"});
  EXPECT_EQ(json::parse(r.out)["result"], 2.5);
  r = run_cli({"run", data("gated.json"), "--set", "x=5", "--param", "nope=1"});
  EXPECT_EQ(r.status, 3);
  EXPECT_EQ(r.err, "error: unknown parameter 'nope'\n");
}

TEST(EvalRunCli, StateValuesComeFromTheFlagOrTheInitialValue) {
  auto r = run_cli({"run", data("counter.json"), "--set", "event=1"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(json::parse(r.out), json::parse(R"({"result": 0})"));
  r = run_cli({"run", data("counter.json"), "--set", "event=1", "--state", "count=41"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(json::parse(r.out), json::parse(R"({"result": 41})"));
  r = run_cli({"run", data("counter.json"), "--set", "event=1", "--state", "count=101"});
  EXPECT_EQ(r.status, 3);
  EXPECT_EQ(r.err, "error: state 'count': 101 is above the maximum 100\n");
}

TEST(EvalRunCli, RuntimeErrorIsOneLineWithExit3) {
  auto r = run_cli({"run", data("ratio.json"), "--set", "a=7", "--set", "b=0"});
  EXPECT_EQ(r.status, 3);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "error: node 2 (div) at line 2, column 12: division by zero\n");
}

TEST(EvalRunCli, InputProblemsAreErrors) {
  auto r = run_cli({"run", data("choose.json")});
  EXPECT_EQ(r.status, 3);
  EXPECT_EQ(r.err, "error: missing input 'a'\n");
  r = run_cli({"run", data("choose.json"), "--set", "a=500"});
  EXPECT_EQ(r.status, 3);
  EXPECT_EQ(r.err, "error: input 'a': 500 is above the maximum 127\n");
  r = run_cli({"run", data("choose.json"), "--set", "a=1.5"});
  EXPECT_EQ(r.status, 3);
  EXPECT_TRUE(one_line(r.err)) << r.err;
  r = run_cli({"run", data("choose.json"), "--set", "a=5", "--set", "b=1"});
  EXPECT_EQ(r.status, 3);
  EXPECT_EQ(r.err, "error: unknown input 'b'\n");
  r = run_cli({"run", data("choose.json"), "--set", "a=five"});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(one_line(r.err)) << r.err;
  r = run_cli({"run", data("missing.json"), "--set", "a=5"});
  EXPECT_EQ(r.status, 3);
  EXPECT_EQ(r.err.rfind("error: ", 0), 0u) << r.err;
}

TEST(EvalRunCli, CasesFilePrintsOneLinePerCaseAndExits0WhenCasesFail) {
  const std::string dir = testing::temp_dir();
  const std::string cases =
      testing::write_temp(dir, "cases.jsonl", "{\"a\": 7, \"b\": 2}\n{\"a\": 1, \"b\": 0}\n\n{\"b\": -3, \"a\": 9}\n"
                                             "{\"a\": 11, \"b\": 1}\n{\"a\": true, \"b\": 1}\n");
  auto r = run_cli({"run", data("ratio.json"), "--cases", cases});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  auto lines = json_lines(r.out);
  ASSERT_EQ(lines.size(), 5u) << r.out;  // the blank line is skipped
  EXPECT_EQ(lines[0], json::parse(R"({"result[0]": 3.5, "result[1]": 3})"));
  EXPECT_EQ(lines[1], json::parse(R"({"error": "node 2 (div) at line 2, column 12: division by zero"})"));
  EXPECT_EQ(lines[2], json::parse(R"({"result[0]": -3, "result[1]": -3})"));
  EXPECT_EQ(lines[3], json::parse(R"({"error": "input 'a': 11 is above the maximum 10"})"));
  EXPECT_EQ(lines[4], json::parse(R"({"result[0]": 1, "result[1]": 1})"));
}

TEST(EvalRunCli, ManyCasesAgreeWithSingleRuns) {
  std::string text;
  for (int a = -10; a <= 10; ++a)
    for (int b = -10; b <= 10; ++b) text += "{\"a\": " + std::to_string(a) + ", \"b\": " + std::to_string(b) + "}\n";
  const std::string dir = testing::temp_dir();
  auto r = run_cli({"run", data("ratio.json"), "--cases", testing::write_temp(dir, "all.jsonl", text)});
  ASSERT_EQ(r.status, 0) << r.err;
  auto lines = json_lines(r.out);
  ASSERT_EQ(lines.size(), 441u);
  std::size_t i = 0;
  for (int a = -10; a <= 10; ++a)
    for (int b = -10; b <= 10; ++b, ++i) {
      if (b == 0) {
        EXPECT_TRUE(lines[i].contains("error")) << lines[i];
        continue;
      }
      // Python semantics: a / b and a // b (floor).
      EXPECT_EQ(lines[i]["result[0]"].get<double>(), static_cast<double>(a) / b);
      const double fl = std::floor(static_cast<double>(a) / b);
      EXPECT_EQ(lines[i]["result[1]"].get<double>(), fl) << a << " // " << b;
    }
}

TEST(EvalRunCli, MalformedCasesLineNamesTheLineAndPrintsNothing) {
  const std::string dir = testing::temp_dir();
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"{\"a\": 1, \"b\": 2\n", "invalid json"},
      {"[1, 2]\n", "must be a json object"},
      {"{\"a\": \"x\", \"b\": 2}\n", "input 'a' must be a number"},
      {"{\"a\": 1}\n", "missing input 'b'"},
      {"{\"a\": 1, \"b\": 2, \"c\": 3}\n", "unknown input 'c'"},
      {"{\"a\": null, \"b\": 2}\n", "input 'a' must be a number"},
  };
  for (const auto& [line, want] : bad) {
    SCOPED_TRACE(line);
    const std::string path = testing::write_temp(dir, "bad.jsonl", "{\"a\": 1, \"b\": 2}\n\n" + line);
    auto r = run_cli({"run", data("ratio.json"), "--cases", path});
    EXPECT_EQ(r.status, 3);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err.rfind(path + ":3: error: ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find(want), std::string::npos) << r.err;
    EXPECT_TRUE(one_line(r.err)) << r.err;
  }
  auto r = run_cli({"run", data("ratio.json"), "--cases", dir + "/does-not-exist.jsonl"});
  EXPECT_EQ(r.status, 3);
  EXPECT_TRUE(one_line(r.err)) << r.err;
}

TEST(EvalRunCli, MutatedCasesFilesNeverCrash) {
  // Deterministic mutations of a valid cases file: every run either succeeds
  // with one line per case or fails with one `FILE:LINE: error:` line.
  const std::string dir = testing::temp_dir();
  const std::string good = "{\"a\": 7, \"b\": 2}\n{\"a\": -3, \"b\": 0}\n{\"b\": 1, \"a\": 1}\n";
  std::uint64_t seed = 12345;
  auto next = [&] {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<std::size_t>(seed >> 33);
  };
  const std::string alphabet = "{}[]\":,-+.eE0123456789 \tabnul\\\x01\xff\n";
  std::vector<std::string> inputs = {std::string(100000, '['), "{\"a\": 1e999, \"b\": 1}\n",
                                     "{\"a\": 1, \"b\": 1, \"a\": 2}\n", std::string("\0\0\n", 3),
                                     "{\"a\": " + std::string(5000, '9') + ", \"b\": 1}\n"};
  for (int i = 0; i < 30; ++i) {
    std::string t = good;
    const std::size_t edits = 1 + next() % 4;
    for (std::size_t e = 0; e < edits; ++e) {
      const std::size_t pos = next() % (t.size() + 1);
      switch (next() % 3) {
        case 0: if (pos < t.size()) t[pos] = alphabet[next() % alphabet.size()]; break;
        case 1: t.insert(pos, 1, alphabet[next() % alphabet.size()]); break;
        default: t.erase(pos, next() % 5); break;
      }
    }
    inputs.push_back(t);
  }
  for (const std::string& text : inputs) {
    const std::string path = testing::write_temp(dir, "m.jsonl", text);
    auto r = run_cli({"run", data("ratio.json"), "--cases", path});
    SCOPED_TRACE(text.substr(0, 80));
    ASSERT_TRUE(r.status == 0 || r.status == 3) << r.status << " " << r.err;
    if (r.status == 3) {
      EXPECT_EQ(r.out, "");
      EXPECT_TRUE(one_line(r.err)) << r.err;
      EXPECT_EQ(r.err.rfind(path + ":", 0), 0u) << r.err;
    } else {
      EXPECT_EQ(r.err, "");
      for (const json& line : json_lines(r.out)) EXPECT_TRUE(line.is_object());
    }
  }
}

// --threads changes how many cores run the batch, never the output.
TEST(EvalRunCli, ThreadsGiveTheSameOutput) {
  std::string text;
  for (int i = 0; i < 30000; ++i)
    text += "{\"a\": " + std::to_string(i % 97 - 48) + ", \"b\": " + std::to_string(i % 13 - 6) + "}\n";
  const std::string dir = testing::temp_dir();
  const std::string cases = testing::write_temp(dir, "many.jsonl", text);
  auto one = run_cli({"run", data("ratio.json"), "--cases", cases, "--threads", "1"});
  ASSERT_EQ(one.status, 0) << one.err;
  EXPECT_EQ(json_lines(one.out).size(), 30000u);
  for (const char* threads : {"2", "3"}) {
    auto many = run_cli({"run", data("ratio.json"), "--cases", cases, "--threads", threads});
    ASSERT_EQ(many.status, 0) << many.err;
    EXPECT_TRUE(many.out == one.out) << threads << " threads";
  }
  auto all = run_cli({"run", data("ratio.json"), "--cases", cases});
  EXPECT_TRUE(all.out == one.out);
  for (const char* bad : {"0", "-1", "x"}) {
    auto r = run_cli({"run", data("ratio.json"), "--cases", cases, "--threads", bad});
    EXPECT_EQ(r.status, 2) << bad;
  }
}

TEST(EvalRunCli, UsageErrors) {
  const std::string dir = testing::temp_dir();
  const std::string cases = testing::write_temp(dir, "c.jsonl", "{\"a\": 1}\n");
  auto r = run_cli({"run", data("choose.json"), "--set", "a=1", "--cases", cases});
  EXPECT_EQ(r.status, 2);
  r = run_cli({"run", data("choose.json"), "--set", "a=1", "--backend", "tpu"});
  EXPECT_EQ(r.status, 2);
  r = run_cli({"run", "--help"});
  EXPECT_EQ(r.status, 0);
  for (const char* opt : {"--set", "--param", "--cases", "--backend", "--state", "--threads", "--plan", "--plan-status"})
    EXPECT_NE(r.out.find(opt), std::string::npos) << opt;
  r = run_cli({"run", data("choose.json"), "--set", "a=1", "--plan", "fast"});
  EXPECT_EQ(r.status, 2);
}

/// --plan picks the tier, --plan-status says which one ran; the output is
/// the same whichever it is.
TEST(EvalRunCli, PlanPicksTheTierAndPlanStatusSaysWhichRan) {
  const std::string dir = testing::temp_dir();
  setenv("TC_CACHE_DIR", (dir + "/cache").c_str(), 1);
  const std::string cases =
      testing::write_temp(dir, "cases.jsonl", "{\"a\": 7, \"b\": 2}\n{\"a\": 1, \"b\": 0}\n{\"a\": 11, \"b\": 1}\n");
  auto interp = run_cli({"run", data("ratio.json"), "--cases", cases, "--plan", "interpreter", "--plan-status"});
  ASSERT_EQ(interp.status, 0) << interp.err;
  EXPECT_EQ(interp.err, "plan: interpreting: the interpreter was chosen\n");
  auto compiled = run_cli({"run", data("ratio.json"), "--cases", cases, "--plan", "compiled", "--plan-status"});
  ASSERT_EQ(compiled.status, 0) << compiled.err;
  EXPECT_EQ(compiled.out, interp.out);
  if (compiled.err.rfind("plan: interpreting: no C compiler", 0) != 0) {
    EXPECT_EQ(compiled.err.rfind("plan: compiled (", 0), 0u) << compiled.err;
  }
  auto single = run_cli({"run", data("ratio.json"), "--set", "a=7", "--set", "b=2", "--plan-status"});
  ASSERT_EQ(single.status, 0) << single.err;
  EXPECT_EQ(single.err, "plan: interpreting: not worth compiling yet\n");
  unsetenv("TC_CACHE_DIR");
}

TEST(EvalRunCli, VulkanBackendEitherRunsOrSaysItIsUnavailable) {
  auto r = run_cli({"run", data("choose.json"), "--set", "a=5", "--backend", "vulkan"});
  if (r.status == 3) {
    EXPECT_EQ(r.err.rfind("error: the vulkan backend is not available in this build", 0), 0u) << r.err;
    EXPECT_TRUE(one_line(r.err)) << r.err;
  } else {
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(json::parse(r.out)["result"], 10);
  }
}

TEST(EvalRunCli, PythonSourceIsCompiledOnTheFly) {
  const std::string dir = testing::temp_dir();
  const std::string src = testing::write_temp(dir, "choose.py", "def choose(a):\n    return 10 if a > 4 else 12\n");
  auto r = run_cli({"run", src, "--input", "a=int32:-128:127", "--set", "a=5"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["result"], 10);
  const std::string div = testing::write_temp(dir, "div.py", "def f(a, b):\n    return a / b\n");
  r = run_cli({"run", div, "--input", "a=int32:-5:5", "--input", "b=int32:-5:5", "--set", "a=1", "--set", "b=0"});
  EXPECT_EQ(r.status, 3);
  // A source location in the .py file leads the line.
  EXPECT_EQ(r.err.rfind(div + ":2:", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("division by zero"), std::string::npos) << r.err;
  EXPECT_TRUE(one_line(r.err)) << r.err;
}

// issue 37: `run` printed -0.0 as 0 (an integer), where CPython, Python's
// run() and the C export give -0.0. The CLI writes the sign, and a case
// file reading its own output back gets the same bits.
TEST(EvalRunCli, NegativeZeroKeepsItsSign) {
  const std::string dir = testing::temp_dir();
  const std::string src = testing::write_temp(dir, "neg.py", "def f(x):\n    return x * -1.0\n");
  auto r = run_cli({"run", src, "--input", "x=float64", "--set", "x=0"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "{\"result\":-0.0}\n");
  r = run_cli({"run", src, "--input", "x=float64", "--set", "x=-0.0"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "{\"result\":0}\n");
  // Its own output, read back as a case: the sign survives the round trip.
  const std::string cases = testing::write_temp(dir, "cases.jsonl", "{\"x\": -0.0}\n{\"x\": 0}\n{\"x\": 2}\n");
  r = run_cli({"run", src, "--input", "x=float64", "--cases", cases});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "{\"result\":0}\n{\"result\":-0.0}\n{\"result\":-2}\n");
}

}  // namespace
}  // namespace tc
