#include "ir/artifact.h"

#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <cstring>
#include <dirent.h>
#include <fstream>
#include <vector>

#include "support/examples.h"
#include "test_paths_util.h"

namespace tc {
namespace {

using testing::data_path;
using testing::slurp;

std::vector<std::pair<std::string, std::string>> malformed_manifest() {
  std::vector<std::pair<std::string, std::string>> out;
  std::ifstream in(data_path("ir/malformed/EXPECT"));
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    auto tab = line.find('\t');
    out.emplace_back(line.substr(0, tab), line.substr(tab + 1));
  }
  return out;
}

TEST(ArtifactMalformed, CorpusHasAtLeast25Files) { EXPECT_GE(malformed_manifest().size(), 25u); }

TEST(ArtifactMalformed, EveryFileIsRejectedWithItsMessage) {
  for (const auto& [file, fragment] : malformed_manifest()) {
    SCOPED_TRACE(file);
    auto r = load_artifact(slurp(data_path("ir/malformed/" + file)));
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find(fragment), std::string::npos) << r.error().message;
    EXPECT_FALSE(std::isupper(static_cast<unsigned char>(r.error().message[0]))) << "messages start lowercase";
  }
}

TEST(ArtifactMalformed, DeepNestingIsRefusedWithoutRecursion) {
  std::string deep(200000, '[');
  deep += std::string(200000, ']');
  auto r = load_artifact(deep);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("nests deeper"), std::string::npos);
  std::string objects;
  for (int i = 0; i < 200000; ++i) objects += "{\"a\":";
  auto r2 = load_artifact(objects);
  ASSERT_FALSE(r2.ok());
}

TEST(ArtifactMalformed, BracketsInsideStringsDoNotCountAsNesting) {
  Program p = examples::counter();
  p.nodes[0].name = std::string(100, '[');
  auto r = load_artifact(save_artifact(p));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->nodes[0].name, p.nodes[0].name);
}

TEST(ArtifactMalformed, ErrorsNameTheNodeAndField) {
  auto r = load_artifact(slurp(data_path("ir/malformed/forward_reference.json")));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("node 2 (gt)"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("'args'"), std::string::npos) << r.error().message;
}

// Every valid artifact in tests/data/ir/roundtrip and resources/examples
// saves back to the same JSON and loads to the same Program.
std::vector<std::string> roundtrip_files() {
  std::vector<std::string> out;
  for (const std::string& dir : {data_path("ir/roundtrip"), testing::source_path("resources/examples")}) {
    if (DIR* d = opendir(dir.c_str())) {
      while (dirent* e = readdir(d)) {
        std::string name = e->d_name;
        if (name.size() > 5 && name.substr(name.size() - 5) == ".json") out.push_back(dir + "/" + name);
      }
      closedir(d);
    }
  }
  return out;
}

TEST(ArtifactRoundTrip, FilesSaveBackToTheSameJson) {
  auto files = roundtrip_files();
  ASSERT_GE(files.size(), 5u);
  for (const std::string& path : files) {
    SCOPED_TRACE(path);
    std::string text = slurp(path);
    auto p = load_artifact(text);
    ASSERT_TRUE(p.ok()) << p.error().message;
    std::string saved = save_artifact(*p);
    EXPECT_EQ(nlohmann::json::parse(saved), nlohmann::json::parse(text));
    auto again = load_artifact(saved);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(*again, *p);
    EXPECT_EQ(save_artifact(*again), saved);
  }
}

TEST(ArtifactRoundTrip, DoublesReadBackBitIdentical) {
  const std::vector<double> values = {0.1, -0.0, 1e-300, 5e-324, 1.7976931348623157e308, -2.5, 3.0,
                                      9007199254740993.0, 123456789.125, 1.0 / 3.0, 4503599627370497.5};
  Builder b;
  Value x = b.input("x");
  std::vector<Arg> terms;
  for (double v : values) terms.push_back(b.parameter("p" + std::to_string(terms.size()), v));
  std::vector<double> coeffs(values.begin(), values.end());
  auto built = b.build(b.affine(terms, coeffs, 0.1) + x);
  ASSERT_TRUE(built.ok());
  auto loaded = load_artifact(save_artifact(*built));
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  for (std::size_t i = 0; i < values.size(); ++i) {
    double got = loaded->nodes[i + 1].value;
    EXPECT_EQ(std::memcmp(&got, &values[i], sizeof got), 0) << values[i];
  }
  EXPECT_EQ(*loaded, *built);
}

TEST(ArtifactRoundTrip, OptionalFieldsArePreserved) {
  Program p = examples::learned_correction();
  auto loaded = load_artifact(save_artifact(p));
  ASSERT_TRUE(loaded.ok());
  bool saw_override = false;
  for (const Node& n : loaded->nodes) saw_override |= n.semantics.has_value();
  EXPECT_TRUE(saw_override) << "included nodes keep their own semantics";
  EXPECT_EQ(*loaded, p);
}

TEST(ArtifactParse, LimitedParserReportsPosition) {
  auto r = parse_json_limited("{\"a\": tru}");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("line 1"), std::string::npos) << r.error().message;
  auto ok = parse_json_limited("{\"a\": [1, 2, {\"b\": null}]}");
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ((*ok)["a"][1], 2);
}

}  // namespace
}  // namespace tc
