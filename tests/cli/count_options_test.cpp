// Count and tolerance options through the real binary: negative, zero (where
// meaningless), fractional and out-of-range values are usage errors (exit 2)
// with one message naming the option, and the verified-replacement gate
// cannot be opened by a case count that overflows.
#include <gtest/gtest.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "support/cli_util.h"

namespace tc {
namespace {

using testing::run_cli;

std::string example(const std::string& name) { return std::string(TC_SOURCE_DIR) + "/resources/examples/" + name; }

struct BadOption {
  std::vector<std::string> args;
  const char* option;
};

class CliCountOption : public ::testing::TestWithParam<BadOption> {};

TEST_P(CliCountOption, IsAUsageError) {
  const BadOption& c = GetParam();
  auto r = run_cli(c.args);
  std::string shown;
  for (const auto& a : c.args) shown += a + " ";
  EXPECT_EQ(r.status, 2) << shown << "\n" << r.err;
  EXPECT_EQ(r.err.rfind("error: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find(c.option), std::string::npos) << shown << ": " << r.err;
  EXPECT_EQ(r.out, "") << shown;
}

std::vector<BadOption> bad_options() {
  const std::string choose = example("choose.py"), counter = example("counter.json");
  const std::string gated = example("gated.json"), learned = example("learned_correction.json");
  std::vector<BadOption> v;
  for (const char* value : {"-1", "0", "1.5", "18446744073709551616", "x", "-18446744073709551615"}) {
    v.push_back({{"verify", choose, "--input", "a=int32:-128:127", "--max-cases", value}, "--max-cases"});
    v.push_back({{"verify", choose, "--input", "a=float64", "--samples", value}, "--samples"});
    v.push_back({{"replace", choose, choose, "--input", "a=int32:-128:127", "--max-cases", value}, "--max-cases"});
    v.push_back({{"compile", choose, "--max-nodes", value}, "--max-nodes"});
    v.push_back({{"compile", choose, "--max-iterations", value}, "--max-iterations"});
    v.push_back({{"run", choose, "--set", "a=1", "--max-nodes", value}, "--max-nodes"});
    v.push_back({{"fit", learned, "--data", "/dev/null", "--target", "result=y", "--steps", value}, "--steps"});
  }
  for (const char* value : {"100000001", "18446744073709551615"})  // would exhaust memory, not wrap
    v.push_back({{"verify", choose, "--input", "a=float64", "--samples", value}, "--samples"});
  // From 2^61 the argument budget (8 per node) wrapped (issue 37 item 3).
  for (const char* value : {"2305843009213693952", "18446744073709551615"}) {
    v.push_back({{"compile", choose, "--max-nodes", value}, "--max-nodes"});
    v.push_back({{"run", choose, "--set", "a=1", "--max-nodes", value}, "--max-nodes"});
  }
  for (const char* value : {"-1", "1.5", "x"})
    v.push_back({{"verify", choose, "--input", "a=float64", "--seed", value}, "--seed"});
  for (const char* value : {"-1", "nan", "inf", "x"}) {
    v.push_back({{"gradcheck", gated, "--set", "x=5", "--tolerance", value}, "--tolerance"});
    v.push_back({{"verify", choose, "--input", "a=int32:0:3", "--atol", value}, "--atol"});
    v.push_back({{"replace", choose, choose, "--input", "a=int32:0:3", "--rtol", value}, "--rtol"});
  }
  for (const char* value : {"-1", "0", "nan", "inf"}) {
    v.push_back({{"gradcheck", gated, "--set", "x=5", "--eps", value}, "--eps"});
    v.push_back({{"fit", learned, "--data", "/dev/null", "--target", "result=y", "--lr", value}, "--lr"});
    v.push_back({{"verify", choose, "--input", "a=int32:0:3", "--reference-timeout", value}, "--reference-timeout"});
    v.push_back({{"compile", choose, "--temperature", value}, "--temperature"});
  }
  for (const char* value : {"-1", "0", "15", "x"})
    v.push_back({{"verify", choose, "--input", "a=int32:0:3", "--reference-memory", value}, "--reference-memory"});
  v.push_back({{"verify", choose, "--input", "a=int32:0:3", "--threads", "-1"}, "--threads"});
  (void)counter;
  return v;
}

INSTANTIATE_TEST_SUITE_P(Every, CliCountOption, ::testing::ValuesIn(bad_options()),
                         [](const ::testing::TestParamInfo<BadOption>& info) {
                           std::string name = info.param.args[0] + "_";
                           for (char c : std::string(info.param.option))
                             if (c != '-') name += c;
                           return name + "_" + std::to_string(info.index);
                         });

/// Issue 37 item 3: the node budget's range is core's (options/option_table.h):
/// the message gives it, and its ceiling compiles (8 arguments per node fit).
TEST(CliBudgets, TheNodeBudgetsRangeIsCoresAndItsCeilingCompiles) {
  const std::string choose = example("choose.py");
  auto over = run_cli({"compile", choose, "--max-nodes", "2305843009213693952"});
  EXPECT_EQ(over.status, 2) << over.err;
  EXPECT_NE(over.err.find("an integer from 1 to 2305843009213693951"), std::string::npos) << over.err;
  auto ceiling = run_cli({"run", choose, "--set", "a=5", "--max-nodes", "2305843009213693951"});
  EXPECT_EQ(ceiling.status, 0) << ceiling.err;
  EXPECT_NE(ceiling.out.find("10"), std::string::npos) << ceiling.out;
}

#ifdef TC_HAVE_PYTHON

/// Defect 1 of the reliability review: two full-range int32 inputs have 2^64
/// combinations; a wrapped count made "0 cases, exhaustive" and let a wrong
/// candidate through.
class ReplaceGate : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::temp_dir();
    original_ = testing::write_temp(dir_, "add.py", "def f(a, b):\n    return a + b\n");
    candidate_ = testing::write_temp(dir_, "bad.py",
                                     "def f(a, b):\n    if a == 123456 and b == -98765:\n        return 0\n"
                                     "    return a + b\n");
  }
  testing::CliResult replace(const std::string& max_cases) {
    return run_cli({"replace", original_, candidate_, "--input", "a=int32", "--input", "b=int32", "--max-cases",
                    max_cases, "-o", dir_ + "/accepted.json"});
  }
  std::string dir_, original_, candidate_;
};

TEST_F(ReplaceGate, MinusOneIsAUsageError) {
  auto r = replace("-1");
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_EQ(r.out, "");
}

TEST_F(ReplaceGate, TheLargestCountsRefuseInsteadOfWrapping) {
  for (const char* n : {"18446744073709551614", "18446744073709551615", "9223372036854775808"}) {
    auto r = replace(n);
    EXPECT_EQ(r.status, 3) << n << ": " << r.out << r.err;
    auto j = nlohmann::json::parse(r.out, nullptr, false);
    ASSERT_TRUE(j.is_object()) << r.out;
    EXPECT_EQ(j["accepted"], false) << n;
    EXPECT_NE(r.err.find("combinations"), std::string::npos) << r.err;
  }
  EXPECT_FALSE(std::ifstream(dir_ + "/accepted.json").good()) << "a refused candidate was written";
}

TEST(CliVerifyCounts, VerifyNeverPassesWithoutCases) {
  std::string dir = testing::temp_dir();
  std::string src = testing::write_temp(dir, "add.py", "def f(a, b):\n    return a + b\n");
  auto r = run_cli({"verify", src, "--input", "a=int32", "--input", "b=int32", "--max-cases", "18446744073709551615",
                    "--samples", "50"});
  EXPECT_EQ(r.status, 0) << r.err;
  auto j = nlohmann::json::parse(r.out, nullptr, false);
  EXPECT_EQ(j["cases"], 50) << r.out;
  EXPECT_EQ(j["exhaustive"], false) << r.out;
  std::string empty = testing::write_temp(dir, "empty.jsonl", "");
  auto e = run_cli({"verify", src, "--input", "a=float64", "--input", "b=int32", "--cases", empty});
  EXPECT_EQ(e.status, 3) << e.out << e.err;
  EXPECT_NE(e.err.find("no case to verify"), std::string::npos) << e.err;
  EXPECT_EQ(e.out, "");
}

#endif

}  // namespace
}  // namespace tc
