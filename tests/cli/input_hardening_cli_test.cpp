// Regression tests for the input and output defects of issue 13 (each was
// reproduced with the built CLI first): unchecked writes to stdout,
// duplicate JSON keys and trailing bytes, integers binary64 cannot hold,
// user text repeated raw in messages, and size limits applied before reading.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <string>

#include "support/cli_util.h"

namespace tc {
namespace {

using testing::run_cli;
using testing::run_cli_stdout_to;
using testing::temp_dir;
using testing::write_temp;

std::string example(const std::string& name) { return std::string(TC_TEST_DATA) + "/eval/cli/" + name; }

/// Exit 3 and exactly one line on stderr that contains `needle`.
void expect_one_error_line(const testing::CliResult& r, const std::string& needle, int status = 3) {
  EXPECT_EQ(r.status, status) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "one line per error: " << r.err;
  EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
}

// Defect 6: a full stdout was ignored (exit 0, truncated output).
TEST(StdoutWrites, AFullStdoutIsAnErrorForEveryCommand) {
  const std::string dir = temp_dir();
  const std::string src = write_temp(dir, "choose.py", "def choose(a):\n    return 10 if a > 4 else 12\n");
  const std::vector<std::vector<std::string>> commands = {
      {"info", example("choose.json")},
      {"compile", src, "--input", "a=int32:-128:127"},
      {"run", example("choose.json"), "--set", "a=5"},
      {"schedule", example("choose.json")},
      {"analyze", example("choose.json")},
      {"optimize", example("choose.json")},
      {"emit", example("choose.json"), "--target", "wgsl"},
  };
  for (const auto& args : commands) {
    SCOPED_TRACE(args[0]);
    auto r = run_cli_stdout_to(args, "/dev/full");
    expect_one_error_line(r, "cannot write to standard output");
  }
}

// Defect 9: duplicate keys kept the last value silently.
TEST(JsonInputs, DuplicateKeysAreRefusedWithTheirLine) {
  const std::string dir = temp_dir();
  auto artifact = run_cli({"info", example("choose.json")});
  ASSERT_EQ(artifact.status, 0);
  // outputs {"result": N, "result": N}
  std::string text;
  {
    std::ifstream in(example("choose.json"));
    text.assign(std::istreambuf_iterator<char>(in), {});
  }
  const auto at = text.find("\"outputs\"");
  ASSERT_NE(at, std::string::npos);
  const auto open = text.find('{', at), close = text.find('}', at);
  const std::string entry = text.substr(open + 1, close - open - 1);
  std::string dup = text.substr(0, close) + ",\n" + entry + text.substr(close);
  auto r = run_cli({"info", write_temp(dir, "dup.json", dup)});
  expect_one_error_line(r, "duplicate key 'result' at line");

  const std::string cases = write_temp(dir, "dup.jsonl", "{\"a\": 1}\n{\"a\": 1, \"a\": 7}\n");
  expect_one_error_line(run_cli({"run", example("choose.json"), "--cases", cases}), "dup.jsonl:2: error: invalid json: duplicate key 'a'");
  expect_one_error_line(run_cli({"verify", example("choose.json"), "--reference", std::string(TC_TEST_DATA) + "/verify/choose_reference.py", "--cases", cases}),
                        "duplicate key 'a'");
  const std::string data = write_temp(dir, "fit.jsonl", "{\"x\": 1, \"y\": 2, \"y\": 3}\n");
  expect_one_error_line(run_cli({"fit", std::string(TC_SOURCE_DIR) + "/resources/examples/learned_correction.json", "--data", data,
                                 "--target", "result=y", "--optimizer", "sgd", "--lr", "0.01", "--steps", "1", "-o",
                                 dir + "/out.json"}),
                        "fit.jsonl:1: error: invalid json: duplicate key 'y'");

  // A snapshot whose state names a variable twice.
  auto snap = run_cli({"replay", example("counter.json"), "--events", write_temp(dir, "e.jsonl", "{\"event\": 1}\n"),
                       "--snapshot-out", dir + "/snap.json"});
  ASSERT_EQ(snap.status, 0) << snap.err;
  std::string s;
  {
    std::ifstream in(dir + "/snap.json");
    s.assign(std::istreambuf_iterator<char>(in), {});
  }
  const auto st = s.rfind("\"state\"");  // the snapshot's, after the embedded program's nodes
  ASSERT_NE(st, std::string::npos);
  const auto brace = s.find('{', st);
  s.insert(brace + 1, "\"count\": 5, ");
  auto restored = run_cli({"replay", example("counter.json"), "--events", dir + "/e.jsonl", "--from-snapshot",
                           write_temp(dir, "dup_snap.json", s)});
  expect_one_error_line(restored, "duplicate key 'count'");
}

// Defect 9: `{"a":1}` then NUL and garbage was accepted.
TEST(JsonInputs, BytesAfterTheValueAreRefused) {
  const std::string dir = temp_dir();
  const std::string nul("{\"a\": 1}\0garbage\n", 17);
  expect_one_error_line(run_cli({"run", example("choose.json"), "--cases", write_temp(dir, "nul.jsonl", nul)}), "NUL byte");
  const std::string ev("{\"event\": 1}\0garbage\n", 21);
  expect_one_error_line(run_cli({"replay", example("counter.json"), "--events", write_temp(dir, "nul_events.jsonl", ev)}),
                        "NUL byte");
  const std::string fit("{\"x\": 1, \"y\": 2}\0junk\n", 22);
  expect_one_error_line(run_cli({"fit", std::string(TC_SOURCE_DIR) + "/resources/examples/learned_correction.json", "--data",
                                 write_temp(dir, "nul_fit.jsonl", fit), "--target", "result=y", "--optimizer", "sgd",
                                 "--lr", "0.01", "--steps", "1", "-o", dir + "/o.json"}),
                        "NUL byte");
  std::ifstream in(example("choose.json"));
  std::string text(std::istreambuf_iterator<char>(in), {});
  expect_one_error_line(run_cli({"info", write_temp(dir, "trailing.json", text + std::string("\0{}", 3))}), "NUL byte");
}

// Defect 10: 18446744073709551615 was rounded to 2^64.
TEST(JsonInputs, IntegersBinary64CannotHoldAreRefused) {
  const std::string dir = temp_dir();
  std::ifstream in(example("choose.json"));
  std::string text(std::istreambuf_iterator<char>(in), {});
  const auto at = text.find("\"value\": 10");
  ASSERT_NE(at, std::string::npos) << text;
  for (const std::string big : {"18446744073709551615", "18446744073709551617", "9007199254740993"}) {
    std::string t = text;
    t.replace(at, 11, "\"value\": " + big);
    auto r = run_cli({"info", write_temp(dir, "big.json", t)});
    expect_one_error_line(r, big);
    EXPECT_NE(r.err.find("binary64"), std::string::npos) << r.err;
  }
}

// Defect 12: a newline in a key made a second, fake `error:` line; a huge key
// made a huge line.
TEST(Messages, UserTextIsEscapedAndCut) {
  const std::string dir = temp_dir();
  auto r = run_cli({"run", example("choose.json"), "--cases",
                    write_temp(dir, "nl.jsonl", "{\"a\\nerror: fake\": 1}\n")});
  expect_one_error_line(r, "a\\nerror: fake");
  const std::string huge(200000, 'k');
  auto h = run_cli({"run", example("choose.json"), "--cases", write_temp(dir, "huge.jsonl", "{\"" + huge + "\": 1}\n")});
  EXPECT_EQ(h.status, 3);
  EXPECT_LT(h.err.size(), 1000u) << "the key is cut";
  EXPECT_NE(h.err.find("..."), std::string::npos) << h.err.substr(0, 300);
  // Source tokens: a newline-free but control-character name in a message.
  auto c = run_cli({"compile", write_temp(dir, "ctl.py", "def f(a):\n    return a\x01\n"), "--input", "a=int32:0:1"});
  expect_one_error_line(c, "error:");
}

// Defect 12: flag errors printed two lines; optimize printed an info line
// before its error.
TEST(Messages, FlagErrorsAndOptimizeFailuresAreOneLine) {
  expect_one_error_line(run_cli({"run", example("choose.json"), "--no-such-flag"}), "--no-such-flag", 2);
  expect_one_error_line(run_cli({"info"}), "error:", 2);
  auto r = run_cli({"optimize", example("choose.json"), "-o", "/nonexistent-dir/x.json"});
  expect_one_error_line(r, "error:");
  EXPECT_EQ(r.err.find("optimize:"), std::string::npos) << r.err;
}

// Defect 13: an over-limit artifact was read whole before being refused; a
// cases line had no size cap.
TEST(Limits, OversizedInputsAreRefusedByTheirSize) {
  const std::string dir = temp_dir();
  const std::string big = dir + "/big.json";
  {
    std::ofstream f(big, std::ios::binary);
    f.seekp((std::streamoff(600) << 20) - 1);  // a sparse 600 MiB file: no disk used, no bytes read
    f.put('\n');
  }
  auto r = run_cli({"info", big});
  expect_one_error_line(r, "larger than the");
  EXPECT_NE(r.err.find("629145600 bytes"), std::string::npos) << r.err;
  std::remove(big.c_str());

  const std::string line = "{\"a\": 1" + std::string(2 << 20, ' ') + "}\n";
  auto c = run_cli({"run", example("choose.json"), "--cases", write_temp(dir, "long.jsonl", "{\"a\": 1}\n" + line)});
  expect_one_error_line(c, "long.jsonl:2: error: the line is longer than 1048576 bytes");
  auto f = run_cli({"fit", std::string(TC_SOURCE_DIR) + "/resources/examples/learned_correction.json", "--data",
                    write_temp(dir, "long_fit.jsonl", line), "--target", "result=y", "--optimizer", "sgd", "--lr", "0.01",
                    "--steps", "1", "-o", dir + "/o.json"});
  expect_one_error_line(f, "the line is longer than 1048576 bytes");
}

// Defect 5: loading was quadratic in named items. The speed is measured in
// bench/load_bench.cpp; here 100,000 outputs must load and read back.
TEST(Limits, AHundredThousandOutputsLoad) {
  std::string text =
      "{\"format\":\"tensorcode.program\",\"version\":1,\"semantics\":\"exact\",\"dtype\":\"float64\","
      "\"surrogate\":\"sigmoid\",\"temperature\":1.0,\"nodes\":[{\"id\":0,\"op\":\"input\",\"args\":[],\"shape\":[],"
      "\"domain\":{\"type\":\"float64\"},\"differentiable\":true,\"location\":null,\"name\":\"x\"}],\"updates\":{},"
      "\"outputs\":{";
  for (int k = 0; k < 100000; ++k) text += (k ? ",\"o" : "\"o") + std::to_string(k) + "\":0";
  text += "}}";
  auto r = run_cli({"info", write_temp(temp_dir(), "wide.json", text)});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("\"o0\":0,\"o1\":0,"), std::string::npos) << r.out.substr(0, 300);
  EXPECT_NE(r.out.find("\"o99999\":0}"), std::string::npos) << r.out.substr(r.out.size() - 300);
}

}  // namespace
}  // namespace tc

namespace tc {
namespace {

// Issue 23, defect 13: streams were read far past the limits (up to 1 GiB
// for a 4 MiB source cap; run --cases held an endless pipe in memory).
TEST(StreamLimits, ASourceStreamIsReadOnlyUpToTheSourceLimit) {
  auto r = testing::run_cli({"compile", "/dev/zero", "--input", "x=float64"});
  expect_one_error_line(r, "'/dev/zero' is larger than the 4194304-byte limit");
  const std::string dir = testing::temp_dir();
  const std::string src = testing::write_temp(dir, "g.py", "def g(x):\n    return x * 2\n");
  auto v = testing::run_cli({"verify", src, "--input", "x=float64:-1:1", "--reference", "/dev/zero"});
  expect_one_error_line(v, "'/dev/zero' is larger than the 4194304-byte limit");
}

TEST(StreamLimits, RunCasesToStdoutStreamsInBlocks) {
  const std::string dir = testing::temp_dir();
  const std::string src = testing::write_temp(dir, "g.py", "def g(x):\n    return x * 2\n");
  // 150,000 good lines, then a bad one: the blocks before it are printed
  // (65,536 cases each) before the error, as a filter in a pipe would.
  std::string cases;
  for (int i = 0; i < 150000; ++i) cases += "{\"x\": " + std::to_string(i % 7) + "}\n";
  cases += "{\"y\": 1}\n";
  auto r = testing::run_cli({"run", src, "--input", "x=float64", "--cases", "/dev/stdin"}, cases);
  expect_one_error_line(r, "/dev/stdin:150001: error: unknown input 'y'");
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 131072);
  EXPECT_EQ(r.out.substr(0, 26), "{\"result\":0}\n{\"result\":2}\n");
  // To a file, nothing is written when a line is bad.
  const std::string out = dir + "/out.jsonl";
  auto f = testing::run_cli({"run", src, "--input", "x=float64", "--cases", "/dev/stdin", "-o", out}, cases);
  expect_one_error_line(f, "/dev/stdin:150001: error: unknown input 'y'");
  EXPECT_FALSE(std::ifstream(out).good());
}

}  // namespace
}  // namespace tc

namespace tc {
namespace {

// Issue 23 (smaller): `-o ''` wrote to standard output with exit 0.
TEST(OutputPaths, AnEmptyOutputPathIsAUsageError) {
  const std::string dir = testing::temp_dir();
  const std::string src = testing::write_temp(dir, "g.py", "def g(x):\n    return x * 2\n");
  const std::string cases = testing::write_temp(dir, "c.jsonl", "{\"x\": 1}\n");
  const std::vector<std::vector<std::string>> commands = {
      {"compile", src, "--input", "x=float64", "-o", ""},
      {"optimize", src, "--input", "x=float64", "-o", ""},
      {"run", src, "--input", "x=float64", "--cases", cases, "-o", ""},
      {"emit", src, "--input", "x=float64", "--target", "wgsl", "-o", ""},
  };
  for (const auto& args : commands) {
    SCOPED_TRACE(args[0]);
    auto r = testing::run_cli(args);
    expect_one_error_line(r, "the path is empty: name a file", 2);
    EXPECT_EQ(r.out, "");
  }
}

}  // namespace
}  // namespace tc
