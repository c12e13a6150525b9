// Hand-made pairs through the real binary: every folder of
// tests/data/diff holds a.(json|py), b.(json|py), `args` (the extra command
// line, `{dir}` standing for the folder) and the expected output of
// `tensorcode diff a b ARGS` as JSON (expected.json) and as text
// (expected.txt, the folder's path removed). TC_UPDATE_GOLDEN=1 rewrites
// the expected files after an intended change; review their diff.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "support/cli_util.h"
#include "support/golden.h"

namespace tc {
namespace {

namespace fs = std::filesystem;

const std::string kData = std::string(TC_TEST_DATA) + "/diff";

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> pair_names() {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(kData))
    if (e.is_directory()) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::string side(const fs::path& dir, const std::string& stem) {
  return fs::exists(dir / (stem + ".py")) ? (dir / (stem + ".py")).string() : (dir / (stem + ".json")).string();
}

std::vector<std::string> command(const std::string& name, bool json) {
  const fs::path dir = fs::path(kData) / name;
  std::vector<std::string> args{"diff", side(dir, "a"), side(dir, "b")};
  std::istringstream words(slurp(dir / "args"));
  for (std::string w; words >> w;) {
    if (auto at = w.find("{dir}"); at != std::string::npos) w.replace(at, 5, dir.string());
    args.push_back(w);
  }
  if (json) args.push_back("--json");
  return args;
}

std::string without(std::string text, const std::string& prefix) {
  for (std::size_t at; (at = text.find(prefix)) != std::string::npos;) text.erase(at, prefix.size());
  return text;
}

class DiffGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(DiffGolden, JsonAndTextAreTheStoredOnes) {
  const std::string name = GetParam();
  const fs::path dir = fs::path(kData) / name;
  auto json = testing::run_cli(command(name, true));
  ASSERT_TRUE(json.status == 0 || json.status == 1) << json.status << ": " << json.err;
  auto doc = nlohmann::ordered_json::parse(json.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << json.out;
  // The exit status follows the verdict, as diff(1)'s does.
  EXPECT_EQ(json.status, doc["same"].get<bool>() ? 0 : 1);
  auto text = testing::run_cli(command(name, false));
  EXPECT_EQ(text.status, json.status);
  const std::string text_out = without(text.out, dir.string() + "/");
  if (testing::update_golden()) {
    std::ofstream(dir / "expected.json", std::ios::binary) << doc.dump(1) << '\n';
    std::ofstream(dir / "expected.txt", std::ios::binary) << text_out;
    GTEST_SKIP() << "regenerated the expected files of " << name;
  }
  const std::string expected = slurp(dir / "expected.json");
  ASSERT_FALSE(expected.empty()) << name << "/expected.json is missing: run with TC_UPDATE_GOLDEN=1";
  EXPECT_EQ(doc.dump(1) + "\n", expected) << "the diff of " << name << " changed; if intended, TC_UPDATE_GOLDEN=1";
  EXPECT_EQ(text_out, slurp(dir / "expected.txt"));
}

INSTANTIATE_TEST_SUITE_P(Pairs, DiffGolden, ::testing::ValuesIn(pair_names()),
                         [](const auto& info) { return info.param; });

// What each hand-made pair is there to show, beyond its stored text.
nlohmann::ordered_json diff_of(const std::string& name) {
  auto r = testing::run_cli(command(name, true));
  auto doc = nlohmann::ordered_json::parse(r.out, nullptr, false);
  EXPECT_FALSE(doc.is_discarded()) << r.err;
  return doc;
}

TEST(DiffPairs, OptimizeKeepsEveryValue) {
  auto d = diff_of("optimize");
  EXPECT_FALSE(d["same_structure"].get<bool>());
  EXPECT_TRUE(d["same_values"].get<bool>());
  EXPECT_GT(d["summary"]["removed"].get<int>(), 0);
  EXPECT_EQ(d["outputs"][0]["differing"], 0);
}

TEST(DiffPairs, TrainingChangesOneParameterAndNoStructure) {
  auto d = diff_of("trained");
  ASSERT_EQ(d["parameters"].size(), 1u);
  EXPECT_EQ(d["parameters"][0]["name"], "correction");
  EXPECT_EQ(d["parameters"][0]["fields"], nlohmann::ordered_json::array({"value"}));
  EXPECT_EQ(d["summary"]["added"], 0);
  EXPECT_EQ(d["summary"]["removed"], 0);
  EXPECT_EQ(d["summary"]["changed"], 1);
  EXPECT_GT(d["outputs"][0]["differing"].get<int>(), 0);
}

TEST(DiffPairs, AnEditedStatementIsOneChangedOp) {
  auto d = diff_of("edited");
  ASSERT_EQ(d["nodes"]["changed"].size(), 1u);
  EXPECT_EQ(d["nodes"]["changed"][0]["a_op"], "sub");
  EXPECT_EQ(d["nodes"]["changed"][0]["op"], "add");
  EXPECT_EQ(d["nodes"]["changed"][0]["location"]["line"], 3);
  EXPECT_EQ(d["summary"]["added"], 0);
}

TEST(DiffPairs, ALoopBoundAddsIterations) {
  auto d = diff_of("loop_bound");
  EXPECT_EQ(d["summary"]["removed"], 0);
  for (const auto& n : d["nodes"]["added"]) EXPECT_GE(n["iteration"][0][1].get<int>(), 3) << n.dump();
  EXPECT_FALSE(d["same_values"].get<bool>());
}

TEST(DiffPairs, MovedLinesAreTheSameCircuit) {
  auto d = diff_of("moved");
  EXPECT_TRUE(d["same"].get<bool>());
}

}  // namespace
}  // namespace tc
