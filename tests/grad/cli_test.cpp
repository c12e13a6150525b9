// `tensorcode grad`, `gradcheck` and `fit` end to end.
#include <cmath>
#include <filesystem>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "base/atomic_file.h"
#include "ir/artifact.h"
#include "ir/builder.h"
#include "support/cli_util.h"
#include "support/examples.h"

namespace tc {
namespace {

using testing::run_cli;
using testing::temp_dir;
using testing::write_temp;

nlohmann::ordered_json js(const std::string& s) { return nlohmann::ordered_json::parse(s, nullptr, false); }

std::string gated_artifact(const std::string& dir) {
  Builder b(Semantics::Hybrid, Surrogate::Sigmoid);
  Value x = b.input("x", Domain::float64(-100, 100));
  Value w = b.parameter("weight", 0.0);
  auto p = b.build(b.select(x > 4, w * x, 0));
  EXPECT_TRUE(p.ok());
  return write_temp(dir, "gated.json", save_artifact(*p));
}

TEST(GradCli, DescriptionExample) {
  const std::string dir = temp_dir();
  const std::string g = gated_artifact(dir);
  auto r = run_cli({"grad", g, "--set", "x=5"});
  ASSERT_EQ(r.status, 0) << r.err;
  auto j = js(r.out);
  EXPECT_EQ(j["result"], 0);
  EXPECT_EQ(j["gradients"]["weight"], 5);
  EXPECT_EQ(j["gradients"]["x"], 0);
  EXPECT_EQ(j["gradients"].begin().key(), "x");  // node order

  r = run_cli({"grad", g, "--set", "x=5", "--param", "weight=2"});
  ASSERT_EQ(r.status, 0) << r.err;
  const double s1 = std::exp(-1.0) / ((1 + std::exp(-1.0)) * (1 + std::exp(-1.0)));
  EXPECT_NEAR(js(r.out)["gradients"]["x"].get<double>(), 2.0 + 10.0 * s1, 1e-14);

  r = run_cli({"grad", g, "--set", "x=5", "--param", "weight=2", "--semantics", "exact"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(js(r.out)["gradients"]["x"], 2);

  r = run_cli({"grad", g, "--set", "x=5", "--param", "weight=2", "--temperature", "2"});
  ASSERT_EQ(r.status, 0) << r.err;
  const double s2 = std::exp(-0.5) / ((1 + std::exp(-0.5)) * (1 + std::exp(-0.5))) / 2.0;
  EXPECT_NEAR(js(r.out)["gradients"]["x"].get<double>(), 2.0 + 10.0 * s2, 1e-14);
}

TEST(GradCli, ErrorsAndExitCodes) {
  const std::string dir = temp_dir();
  const std::string g = gated_artifact(dir);
  auto r = run_cli({"grad", g, "--set", "x=5", "--output", "nope"});
  EXPECT_EQ(r.status, 3);
  EXPECT_NE(r.err.find("error: the program has no output 'nope'"), std::string::npos) << r.err;
  r = run_cli({"grad", g, "--set", "x"});
  EXPECT_EQ(r.status, 2);
  r = run_cli({"grad", g, "--set", "x=500"});  // outside the input's domain
  EXPECT_EQ(r.status, 3);
  EXPECT_NE(r.err.find("input 'x'"), std::string::npos) << r.err;

  // The inactive branch divides by zero: run succeeds, hybrid grad fails naming the div.
  Builder b(Semantics::Hybrid);
  Value x = b.input("x");
  Value bad = 1.0 / (x - 5.0);
  auto p = b.build(b.select(x > 4, x * 2.0, bad));
  ASSERT_TRUE(p.ok());
  const std::string f = write_temp(dir, "inactive.json", save_artifact(*p));
  r = run_cli({"run", f, "--set", "x=5"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(js(r.out)["result"], 10);
  r = run_cli({"grad", f, "--set", "x=5"});
  EXPECT_EQ(r.status, 3);
  EXPECT_EQ(r.err.rfind("error: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("node " + std::to_string(bad.id()) + " (div): division by zero"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1);
  r = run_cli({"grad", f, "--set", "x=5", "--semantics", "exact"});
  EXPECT_EQ(r.status, 0) << r.err;
}

TEST(GradCli, PythonSource) {
  const std::string dir = temp_dir();
  const std::string src = write_temp(dir, "gated.py",
                                     "def gated(x, w):\n    return w * x if x > 4 else 0.0\n");
  auto r = run_cli({"grad", src, "--input", "x=float64:-10:10", "--input", "w=float64:-10:10", "--set", "x=5",
                    "--set", "w=2", "--semantics", "hybrid"});
  ASSERT_EQ(r.status, 0) << r.err;
  auto j = js(r.out);
  EXPECT_EQ(j["result"], 10);
  EXPECT_EQ(j["gradients"]["w"], 5);
  const double s1 = std::exp(-1.0) / ((1 + std::exp(-1.0)) * (1 + std::exp(-1.0)));
  EXPECT_NEAR(j["gradients"]["x"].get<double>(), 2.0 + 10.0 * s1, 1e-14);
  r = run_cli({"grad", src, "--input", "x=float64:-10:10", "--input", "w=float64:-10:10", "--set", "x=5",
               "--set", "w=2"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(js(r.out)["gradients"]["x"], 2);  // exact by default
}

TEST(GradCheckCli, ReportsTheLargestRelativeDifference) {
  const std::string dir = temp_dir();
  Builder b;
  Value x = b.input("x");
  Value w = b.parameter("w", 0.5);
  auto p = b.build(b.sigmoid(w * x) * x);
  ASSERT_TRUE(p.ok());
  const std::string f = write_temp(dir, "smooth.json", save_artifact(*p));
  auto r = run_cli({"gradcheck", f, "--set", "x=0.7", "--tolerance", "1e-7"});
  ASSERT_EQ(r.status, 0) << r.err;
  auto j = js(r.out);
  EXPECT_LT(j["max_rel_diff"].get<double>(), 1e-8);
  EXPECT_NEAR(j["gradients"]["w"].get<double>(), j["finite_differences"]["w"].get<double>(), 1e-8);
  EXPECT_TRUE(j["finite_differences"].contains("x"));

  // Hybrid's surrogate term is not a finite difference: exit 1 past the tolerance.
  const std::string g = gated_artifact(dir);
  r = run_cli({"gradcheck", g, "--set", "x=5", "--param", "weight=2", "--tolerance", "1e-3"});
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_GT(js(r.out)["max_rel_diff"].get<double>(), 0.4);
  r = run_cli({"gradcheck", g, "--set", "x=5", "--eps", "-1"});
  EXPECT_EQ(r.status, 2);
}

TEST(GradFitCli, DescriptionLearnedCorrection) {
  const std::string dir = temp_dir();
  const Program p = examples::learned_correction();
  const std::string f = write_temp(dir, "corrected.json", save_artifact(p));
  const std::string data = write_temp(dir, "cases.jsonl", "{\"x\": 5, \"y\": 11}\n");
  const std::string out = dir + "/trained.json";
  auto r = run_cli({"fit", f, "--data", data, "--target", "result=y", "--optimizer", "sgd", "--lr", "0.01",
                    "--steps", "1", "-o", out});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");  // progress only on a terminal
  auto j = js(r.out);
  EXPECT_EQ(j["initial_loss"], 1);
  EXPECT_NEAR(j["final_loss"].get<double>(), 0.25, 1e-15);
  EXPECT_NEAR(j["parameters"]["correction"].get<double>(), 0.1, 1e-16);

  r = run_cli({"run", out, "--set", "x=5"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NEAR(js(r.out)["result"].get<double>(), 10.5, 1e-15);
  r = run_cli({"run", f, "--set", "x=5"});
  EXPECT_EQ(js(r.out)["result"], 10);

  // Everything but the parameter's value is identical.
  auto trained = load_artifact(*read_file(out));
  ASSERT_TRUE(trained.ok()) << trained.error().message;
  Program expected = p;
  for (Node& n : expected.nodes)
    if (n.op == Op::Parameter) n.value = j["parameters"]["correction"].get<double>();
  EXPECT_EQ(*trained, expected);
  EXPECT_EQ(*read_file(out), save_artifact(expected));

  // Training under another semantics still saves the artifact's own policy.
  r = run_cli({"fit", f, "--data", data, "--target", "result=y", "--steps", "1", "--semantics", "hybrid",
               "--temperature", "2", "-o", out});
  ASSERT_EQ(r.status, 0) << r.err;
  auto hybrid = load_artifact(*read_file(out));
  ASSERT_TRUE(hybrid.ok());
  EXPECT_EQ(hybrid->semantics, Semantics::Exact);
  EXPECT_EQ(hybrid->temperature, 1.0);
  // The included rule stays exact (its nodes carry their own policy), so the
  // surrogate adds nothing for the parameter: the same step.
  EXPECT_NEAR(js(r.out)["parameters"]["correction"].get<double>(), 0.1, 1e-16);
}

TEST(GradFitCli, MalformedDataNamesTheLineAndWritesNothing) {
  const std::string dir = temp_dir();
  const std::string f = write_temp(dir, "corrected.json", save_artifact(examples::learned_correction()));
  const std::string out = dir + "/trained.json";
  struct Bad {
    std::string text;
    std::string message;
  };
  for (const Bad& bad : {Bad{"{\"x\": 5, \"y\": 11}\n{\"x\": 5, \"y\": \n", "cases.jsonl:2: error: "},
                         Bad{"{\"x\": 5, \"y\": 11}\n\n{\"x\": 4}\n", "cases.jsonl:3: error: missing target field 'y'"},
                         Bad{"{\"x\": 5, \"y\": 11, \"z\": 1}\n", "cases.jsonl:1: error: field 'z' is neither"},
                         Bad{"[1, 2]\n", "cases.jsonl:1: error: a case must be"},
                         Bad{"{\"x\": \"five\", \"y\": 1}\n", "cases.jsonl:1: error: field 'x' must be a number"},
                         Bad{"{\"x\": 500.5, \"y\": 1}\n{\"x\": 1e400, \"y\": 1}\n", "cases.jsonl:2: error: "}}) {
    SCOPED_TRACE(bad.text);
    const std::string data = write_temp(dir, "cases.jsonl", bad.text);
    auto r = run_cli({"fit", f, "--data", data, "--target", "result=y", "--steps", "1", "-o", out});
    EXPECT_EQ(r.status, 3);
    EXPECT_NE(r.err.find(bad.message), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "");
    EXPECT_FALSE(std::filesystem::exists(out));
  }
  // A case that fails at run time names its line too.
  Builder b;
  Value x = b.input("x");
  Value w = b.parameter("w", 1.0);
  auto p = b.build(w / x);
  ASSERT_TRUE(p.ok());
  const std::string div = write_temp(dir, "div.json", save_artifact(*p));
  const std::string data = write_temp(dir, "cases.jsonl", "{\"x\": 1, \"y\": 2}\n{\"x\": 0, \"y\": 2}\n");
  auto r = run_cli({"fit", div, "--data", data, "--target", "result=y", "-o", out});
  EXPECT_EQ(r.status, 3);
  EXPECT_NE(r.err.find("cases.jsonl:2: error: node 2 (div): division by zero"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(out));
  // Usage errors.
  EXPECT_EQ(run_cli({"fit", div, "--data", data, "--target", "result"}).status, 2);
  EXPECT_EQ(run_cli({"fit", div, "--data", data, "--target", "result=y", "--optimizer", "lbfgs"}).status, 2);
  EXPECT_EQ(run_cli({"fit", div, "--data", data, "--target", "result=y", "--lr", "0"}).status, 2);
}

TEST(GradFitCli, AdamOnSeveralCases) {
  const std::string dir = temp_dir();
  Builder b;
  Value x = b.input("x");
  Value w = b.parameter("w", 0.0);
  Value c = b.parameter("c", 0.0);
  auto p = b.build(w * x + c);
  ASSERT_TRUE(p.ok());
  const std::string f = write_temp(dir, "line.json", save_artifact(*p));
  std::string text;
  for (int k = -2; k <= 2; ++k) text += "{\"x\": " + std::to_string(k) + ", \"t\": " + std::to_string(3 * k - 1) + "}\n";
  const std::string data = write_temp(dir, "line.jsonl", text);
  auto r = run_cli({"fit", f, "--data", data, "--target", "result=t", "--optimizer", "adam", "--lr", "0.05",
                    "--steps", "2000"});
  ASSERT_EQ(r.status, 0) << r.err;
  auto j = js(r.out);
  EXPECT_LT(j["final_loss"].get<double>(), 1e-6);
  EXPECT_NEAR(j["parameters"]["w"].get<double>(), 3.0, 1e-3);
  EXPECT_FALSE(j.contains("output"));
}

}  // namespace
}  // namespace tc
