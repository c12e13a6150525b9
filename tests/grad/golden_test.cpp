// Data-driven CLI runs over the example artifacts in tests/data/grad/examples
// (golden.json). TC_UPDATE_GOLDEN=1 rewrites the expectations from the
// current binary; review the diff before committing it.
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "base/atomic_file.h"
#include "support/cli_util.h"
#include "support/golden.h"

namespace tc {
namespace {

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
  return s;
}

TEST(GradGolden, ExampleArtifactsThroughTheCli) {
  const std::string dir = std::string(TC_TEST_DATA) + "/grad/examples";
  const std::string golden_path = dir + "/golden.json";
  auto text = read_file(golden_path);
  ASSERT_TRUE(text.ok());
  auto golden = nlohmann::ordered_json::parse(*text);
  const std::string tmp = testing::temp_dir();
  const bool update = tc::testing::update_golden();
  auto& cases = golden["cases"];
  ASSERT_GT(cases.size(), 5u);
  for (auto& c : cases) {
    std::vector<std::string> args;
    for (const auto& a : c["args"]) args.push_back(replace_all(replace_all(a.get<std::string>(), "{DIR}", dir), "{TMP}", tmp));
    SCOPED_TRACE(c["args"].dump());
    auto r = testing::run_cli(args);
    // Outputs mention the temporary folder; compare them in placeholder form.
    const std::string out = replace_all(r.out, tmp, "{TMP}");
    if (update) {
      c["status"] = r.status;
      c.erase("stdout");
      c.erase("stderr");
      if (!out.empty()) c["stdout"] = nlohmann::ordered_json::parse(out);
      if (!r.err.empty()) c["stderr"] = r.err;
      continue;
    }
    EXPECT_EQ(r.status, c["status"].get<int>()) << r.err;
    if (c.contains("stdout")) {
      auto got = nlohmann::ordered_json::parse(out, nullptr, false);
      EXPECT_EQ(got, c["stdout"]) << out;
    } else {
      EXPECT_EQ(out, "");
    }
    EXPECT_EQ(r.err, c.value("stderr", std::string()));
  }
  if (update) {
    ASSERT_TRUE(write_file_atomic(golden_path, golden.dump(1) + "\n").ok());
    GTEST_SKIP() << "rewrote " << golden_path;
  }
}

}  // namespace
}  // namespace tc
