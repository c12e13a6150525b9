// `tensorcode verify` and `tensorcode replace` through the real binary: the
// report on stdout, one error line on stderr, exit statuses 0/1/2/3.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>

#include <nlohmann/json.hpp>

#include "support/cli_util.h"

namespace tc {
namespace {

using testing::run_cli;

std::string data(const std::string& name) { return std::string(TC_TEST_DATA) + "/verify/" + name; }

nlohmann::json parse(const std::string& text) { return nlohmann::json::parse(text, nullptr, false); }

#ifdef TC_HAVE_PYTHON

TEST(CliVerify, AcceptanceLine) {
  auto r = run_cli({"verify", data("choose.py"), "--input", "a=int32:-128:127"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "{\"cases\":256,\"exhaustive\":true,\"passed\":true,\"mismatches\":[]}\n");
  EXPECT_EQ(r.err, "");
}

// Issue 23, defect 14: under an inherited address-space limit below
// --reference-memory (ulimit -v, as batch schedulers set), the workers
// could not raise theirs and verify failed with "exited with status 126".
// Now they get the inherited limit, and the CLI says so.
// gcc says it sanitizes with __SANITIZE_*__, clang with __has_feature.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define TC_SANITIZED_BUILD 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define TC_SANITIZED_BUILD 1
#endif
#endif
TEST(CliVerify, AnInheritedMemoryLimitBelowTheFlagIsUsedAndNamed) {
#if defined(TC_SANITIZED_BUILD)
  // A sanitizer's shadow memory needs far more address space than 3 GB.
  GTEST_SKIP() << "a sanitizer build cannot start under a 3 GB address-space limit";
#endif
  ASSERT_EQ(std::system("command -v prlimit > /dev/null"), 0) << "util-linux's prlimit is part of every Debian system";
  const std::string dir = testing::temp_dir();
  const std::string src = testing::write_temp(dir, "zero.py", "def zero(x):\n    return 0\n");
  const std::string ref = testing::write_temp(
      dir, "limit.py", "import resource\n\ndef zero(x):\n    return resource.getrlimit(resource.RLIMIT_AS)[1]\n");
  const std::string out = dir + "/out.txt", err = dir + "/err.txt";
  const std::string cmd = "prlimit --as=3000000000 " + std::string(TC_CLI) + " verify " + src +
                          " --input x=int32:0:0 --reference " + ref + " > " + out + " 2> " + err;
  const int status = std::system(cmd.c_str());
  auto slurp = [](const std::string& path) {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  const std::string text = slurp(out), errors = slurp(err);
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 1) << errors;
  auto j = parse(text);
  EXPECT_EQ(j["mismatches"][0]["reference"]["result"], 3000000000.0) << text << errors;
  EXPECT_NE(errors.find("warning: the reference workers get 2861 MiB, the address-space limit this process inherited "
                        "(ulimit -v), not --reference-memory 4096"),
            std::string::npos)
      << errors;
}

TEST(CliVerify, SourceAgainstAnotherReference) {
  auto r = run_cli({"verify", data("choose.py"), "--input", "a=int32:-128:127", "--reference", data("choose_wrong.py")});
  EXPECT_EQ(r.status, 1) << r.err;
  auto j = parse(r.out);
  EXPECT_EQ(j["passed"], false);
  EXPECT_EQ(j["mismatches"].dump(), R"([{"circuit":{"result":10},"inputs":{"a":5},"reference":{"result":12}}])");
}

TEST(CliVerify, UnusedDivisionIsReportedAtItsCase) {
  auto r = run_cli({"verify", data("unused_division.py"), "--input", "a=int32:-3:3"});
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_EQ(r.out,
            "{\"cases\":7,\"exhaustive\":true,\"passed\":false,\"mismatches\":[{\"inputs\":{\"a\":0},"
            "\"circuit\":{\"result\":1},\"reference\":{\"error\":\"ZeroDivisionError: division by zero\"}}]}\n");
}

TEST(CliVerify, FunctionFlagPicksTheSameFunctionOnBothSides) {
  std::string corpus = std::string(TC_TEST_DATA) + "/corpus/several_functions.py";
  auto r = run_cli({"verify", corpus, "--input", "a=int32:-10:10", "--function", "second"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "{\"cases\":21,\"exhaustive\":true,\"passed\":true,\"mismatches\":[]}\n");
}

TEST(CliVerify, FloatingSourceIsSampled) {
  std::string corpus = std::string(TC_TEST_DATA) + "/corpus/arith_float.py";
  auto r = run_cli({"verify", corpus, "--input", "x=float64:-10:10", "--input", "y=float64:0.5:4"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "{\"cases\":10000,\"exhaustive\":false,\"passed\":true,\"mismatches\":[]}\n");
}

TEST(CliVerify, ArtifactWithReference) {
  auto r = run_cli({"verify", data("choose.json"), "--reference", data("choose_reference.py")});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "{\"cases\":256,\"exhaustive\":true,\"passed\":true,\"mismatches\":[]}\n");
}

TEST(CliVerify, MismatchExitsOneWithTheReport) {
  auto r = run_cli({"verify", data("choose.json"), "--reference", data("choose_wrong.py")});
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_EQ(r.out,
            "{\"cases\":256,\"exhaustive\":true,\"passed\":false,\"mismatches\":[{\"inputs\":{\"a\":5},"
            "\"circuit\":{\"result\":10},\"reference\":{\"result\":12}}]}\n");
  EXPECT_EQ(r.err, "verify: 1 of 256 cases disagree with python function choose in " + data("choose_wrong.py") + "\n");
}

TEST(CliVerify, ToleranceAndSamplesForFloatingInputs) {
  // The artifact computes x * 0.1; the reference x / 10: equal within 1 ulp.
  auto exact = run_cli({"verify", data("tenth.json"), "--reference", data("tenth.py"), "--samples", "300"});
  EXPECT_EQ(exact.status, 1) << exact.err;
  auto j = parse(exact.out);
  EXPECT_EQ(j["cases"], 300);
  EXPECT_EQ(j["exhaustive"], false);
  EXPECT_EQ(j["mismatches"].size(), 10u);
  auto loose = run_cli({"verify", data("tenth.json"), "--reference", data("tenth.py"), "--samples", "300", "--rtol",
                        "1e-15"});
  EXPECT_EQ(loose.status, 0) << loose.err;
  EXPECT_EQ(loose.out, "{\"cases\":300,\"exhaustive\":false,\"passed\":true,\"mismatches\":[]}\n");
}

TEST(CliVerify, SuppliedCases) {
  auto r = run_cli({"verify", data("tenth.json"), "--reference", data("tenth.py"), "--cases", data("tenth_cases.jsonl")});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "{\"cases\":4,\"exhaustive\":false,\"passed\":true,\"mismatches\":[]}\n");
  auto bad = run_cli({"verify", data("tenth.json"), "--reference", data("tenth.py"), "--cases", data("bad_cases.jsonl")});
  EXPECT_EQ(bad.status, 3);
  EXPECT_EQ(bad.err, data("bad_cases.jsonl") + ":2:1: error: input 'x': 11 is above the maximum 10\n");
  EXPECT_EQ(bad.out, "");
}

TEST(CliVerify, MaxCasesTurnsEnumerationIntoSampling) {
  auto r = run_cli({"verify", data("choose.json"), "--reference", data("choose_reference.py"), "--max-cases", "255",
                    "--samples", "40"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "{\"cases\":40,\"exhaustive\":false,\"passed\":true,\"mismatches\":[]}\n");
}

TEST(CliVerify, Errors) {
  auto no_ref = run_cli({"verify", data("choose.json")});
  EXPECT_EQ(no_ref.status, 2);
  EXPECT_NE(no_ref.err.find("has no source to verify against: give --reference"), std::string::npos) << no_ref.err;

  auto bad_ref = run_cli({"verify", data("choose.json"), "--reference", data("broken_reference.py")});
  EXPECT_EQ(bad_ref.status, 3);
  EXPECT_EQ(bad_ref.err.rfind(data("broken_reference.py") + ":3:", 0), 0u) << bad_ref.err;
  EXPECT_EQ(bad_ref.out, "");

  auto params = run_cli({"verify", data("choose.json"), "--reference", data("tenth.py")});
  EXPECT_EQ(params.status, 3);
  EXPECT_NE(params.err.find("takes parameters (x) but the program's inputs are (a)"), std::string::npos) << params.err;

  auto missing = run_cli({"verify", data("choose.json"), "--reference", data("no_such_file.py")});
  EXPECT_EQ(missing.status, 3);

  auto neg = run_cli({"verify", data("choose.json"), "--reference", data("choose_reference.py"), "--atol", "-1"});
  EXPECT_EQ(neg.status, 2);
  auto fn_only = run_cli({"verify", data("choose.json"), "--reference-function", "f"});
  EXPECT_EQ(fn_only.status, 2);
}

TEST(CliVerify, HangingReferenceIsStopped) {
  auto r = run_cli({"verify", data("choose.json"), "--reference", data("hanging_reference.py"), "--reference-timeout",
                    "0.2"});
  EXPECT_EQ(r.status, 3);
  EXPECT_NE(r.err.find("ran longer than 0.2 s on the case a=-128 (does it loop forever?)"), std::string::npos) << r.err;
}

TEST(CliReplace, AcceptsAndWritesTheCandidate) {
  std::string dir = testing::temp_dir();
  std::string out = dir + "/accepted.json";
  auto r = run_cli({"replace", data("choose.json"), data("choose_rewritten.json"), "-o", out});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out,
            "{\"accepted\":true,\"reason\":null,\"report\":{\"cases\":256,\"exhaustive\":true,\"passed\":true,"
            "\"mismatches\":[]}}\n");
  std::ifstream in(out);
  EXPECT_TRUE(in.good());
  auto check = run_cli({"run", out, "--set", "a=5"});
  EXPECT_EQ(check.out, "{\"result\":10}\n");
}

TEST(CliReplace, RefusesAndWritesNothing) {
  std::string dir = testing::temp_dir();
  std::string out = dir + "/refused.json";
  auto wrong = run_cli({"replace", data("choose.json"), data("choose_off_by_one.json"), "-o", out});
  EXPECT_EQ(wrong.status, 1);
  EXPECT_EQ(parse(wrong.out)["reason"], "the candidate disagrees with the original on 1 of 256 cases");
  EXPECT_EQ(wrong.err, "error: replacement refused: the candidate disagrees with the original on 1 of 256 cases\n");
  EXPECT_FALSE(std::ifstream(out).good());

  auto params = run_cli({"replace", data("choose.json"), data("choose_trained.json"), "-o", out});
  EXPECT_EQ(params.status, 3);
  auto j = parse(params.out);
  EXPECT_EQ(j["accepted"], false);
  EXPECT_EQ(j["report"], nullptr);
  EXPECT_NE(params.err.find("the candidate has parameters (w)"), std::string::npos);
  EXPECT_FALSE(std::ifstream(out).good());
}

TEST(CliReplace, PythonOriginalIsJudgedByItsSource) {
  auto r = run_cli({"replace", data("choose.py"), data("choose_rewritten.json"), "--input", "a=int32:-128:127"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(parse(r.out)["accepted"], true);
}

#endif

}  // namespace
}  // namespace tc
