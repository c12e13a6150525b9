// `tensorcode schedule`, `analyze` and `optimize` end to end.
#include <gtest/gtest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "ir/artifact.h"
#include "ir/builder.h"
#include "support/cli_util.h"

namespace tc {
namespace {

using testing::run_cli;

const std::string kChoose = "def choose(a):\n    return 10 if a > 4 else 12\n";

std::string example(const std::string& name) { return std::string(TC_SOURCE_DIR) + "/resources/examples/" + name; }

TEST(PassesCli, ScheduleOfAnArtifact) {
  auto r = run_cli({"schedule", example("counter.json")});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "{\"layers\":[[0,1],[2]]}\n");
}

TEST(PassesCli, ScheduleOfPythonSource) {
  const std::string dir = testing::temp_dir();
  const std::string src = testing::write_temp(dir, "choose.py", kChoose);
  auto r = run_cli({"schedule", src, "--input", "a=int32:-128:127"});
  ASSERT_EQ(r.status, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j["layers"].is_array());
  EXPECT_EQ(j["layers"][0][0], 0);
}

TEST(PassesCli, AnalyzePrintsTheContractShape) {
  const std::string dir = testing::temp_dir();
  const std::string src = testing::write_temp(dir, "choose.py", kChoose);
  auto r = run_cli({"analyze", src, "--input", "a=int32:-128:127"});
  ASSERT_EQ(r.status, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["outputs"]["result"], nlohmann::json::parse("[10, 12]"));
  EXPECT_EQ(j["nodes"][0]["op"], "input");
  EXPECT_EQ(j["nodes"][0]["interval"], nlohmann::json::parse("[-128, 127]"));
  for (const auto& n : j["nodes"]) {
    EXPECT_TRUE(n.contains("id"));
    EXPECT_TRUE(n.contains("op"));
    EXPECT_EQ(n["interval"].size(), 2u);
  }
  EXPECT_EQ(j["warnings"], nlohmann::json::array());
}

TEST(PassesCli, AnalyzeWarnsAndPrintsNullForUnboundedEnds) {
  const std::string dir = testing::temp_dir();
  const std::string src = testing::write_temp(dir, "f.py", "def f(x, b):\n    return x * x / b\n");
  auto r = run_cli({"analyze", src, "--input", "x=float64", "--input", "b=int32:-1:1"});
  ASSERT_EQ(r.status, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(j["outputs"]["result"][0].is_null());
  EXPECT_TRUE(j["outputs"]["result"][1].is_null());
  bool division = false, overflow = false;
  for (const auto& w : j["warnings"]) {
    ASSERT_TRUE(w["node"].is_number_integer());
    division |= w["message"] == "possible division by zero";
    overflow |= w["message"] == "possibly non-finite result (overflow)";
  }
  EXPECT_TRUE(division) << r.out;
  EXPECT_TRUE(overflow) << r.out;
}

TEST(PassesCli, AnalyzeParameterFlags) {
  auto fixed = run_cli({"analyze", example("learned_correction.json")});
  ASSERT_EQ(fixed.status, 0) << fixed.err;
  EXPECT_EQ(nlohmann::json::parse(fixed.out)["outputs"]["result"], nlohmann::json::parse("[10, 12]"));
  auto freed = run_cli({"analyze", example("learned_correction.json"), "--free-parameters"});
  ASSERT_EQ(freed.status, 0) << freed.err;
  EXPECT_TRUE(nlohmann::json::parse(freed.out)["outputs"]["result"][0].is_null());
  auto bad = run_cli({"analyze", example("learned_correction.json"), "--param", "nope=1"});
  EXPECT_EQ(bad.status, 3);
  EXPECT_EQ(bad.err.rfind("error: ", 0), 0u) << bad.err;
}

TEST(PassesCli, OptimizeToStdoutAndToAFile) {
  const std::string dir = testing::temp_dir();
  const std::string src =
      testing::write_temp(dir, "poly.py", "def poly(x, y):\n    t = 2 * 3\n    return t * x + 0.5 * y - 1\n");
  auto r = run_cli({"optimize", src, "--input", "x=float64:-1:1", "--input", "y=float64:-1:1"});
  ASSERT_EQ(r.status, 0) << r.err;
  auto loaded = load_artifact(r.out);
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  EXPECT_EQ(loaded->nodes_of(Op::Affine).size(), 1u);
  EXPECT_NE(r.err.find("optimize: "), std::string::npos);
  EXPECT_NE(r.err.find(" nodes"), std::string::npos);

  const std::string out = dir + "/poly.opt.json";
  auto f = run_cli({"optimize", src, "--input", "x=float64:-1:1", "--input", "y=float64:-1:1", "-o", out});
  ASSERT_EQ(f.status, 0) << f.err;
  EXPECT_TRUE(f.out.empty());
  EXPECT_TRUE(std::filesystem::exists(out));
  // The optimized artifact runs to the same result.
  auto a = run_cli({"run", src, "--input", "x=float64:-1:1", "--input", "y=float64:-1:1", "--set", "x=0.3", "--set", "y=-0.7"});
  auto b = run_cli({"run", out, "--set", "x=0.3", "--set", "y=-0.7"});
  ASSERT_EQ(a.status, 0) << a.err;
  ASSERT_EQ(b.status, 0) << b.err;
  EXPECT_EQ(a.out, b.out);
}

TEST(PassesCli, OptimizeRefusesAConstantDivisionByZero) {
  Builder bl;
  Value x = bl.input("x");
  auto p = bl.build(x + bl.constant(1) / bl.constant(0));
  ASSERT_TRUE(p.ok());
  const std::string dir = testing::temp_dir();
  const std::string art = testing::write_temp(dir, "bad.json", save_artifact(*p));
  const std::string out = dir + "/never.json";
  auto r = run_cli({"optimize", art, "-o", out});
  EXPECT_EQ(r.status, 3);
  EXPECT_EQ(r.err.rfind("error: node 3 (div): constant division by zero", 0), 0u) << r.err;
  EXPECT_FALSE(std::filesystem::exists(out));
}

TEST(PassesCli, UsageAndLoadErrors) {
  auto missing = run_cli({"optimize", "/nonexistent/p.json"});
  EXPECT_EQ(missing.status, 3);
  auto usage = run_cli({"schedule"});
  EXPECT_EQ(usage.status, 2);
  auto help = run_cli({"analyze", "--help"});
  EXPECT_EQ(help.status, 0);
  EXPECT_NE(help.out.find("--free-parameters"), std::string::npos);
}

}  // namespace
}  // namespace tc
