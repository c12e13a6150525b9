// Every malformed artifact exits 3 with one `error:` line and no crash, via
// the real binary (the ASan build runs this too).
#include <gtest/gtest.h>

#include <fstream>

#include "support/cli_util.h"

#include <nlohmann/json.hpp>

namespace tc {
namespace {

using testing::run_cli;

TEST(CliMalformed, EveryCorpusFileExits3WithAnErrorLine) {
  std::ifstream manifest(std::string(TC_TEST_DATA) + "/ir/malformed/EXPECT");
  std::string line;
  int count = 0;
  while (std::getline(manifest, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::string file = std::string(TC_TEST_DATA) + "/ir/malformed/" + line.substr(0, line.find('\t'));
    SCOPED_TRACE(file);
    auto r = run_cli({"info", file});
    EXPECT_EQ(r.status, 3) << r.err;
    EXPECT_EQ(r.err.rfind("error: ", 0), 0u) << r.err;
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "exactly one line: " << r.err;
    EXPECT_TRUE(r.out.empty());
    ++count;
  }
  EXPECT_GE(count, 25);
}

TEST(CliMalformed, HugeNestingFromAFileDoesNotCrash) {
  std::string dir = testing::temp_dir();
  std::string deep(200000, '[');
  deep += std::string(200000, ']');
  auto r = run_cli({"info", testing::write_temp(dir, "deep.json", deep)});
  EXPECT_EQ(r.status, 3);
  EXPECT_NE(r.err.find("nests deeper"), std::string::npos) << r.err;
}

TEST(CliMalformed, MissingFileAndDirectory) {
  auto r = run_cli({"info", "/nonexistent/x.json"});
  EXPECT_EQ(r.status, 3);
  EXPECT_NE(r.err.find("cannot open"), std::string::npos);
  auto d = run_cli({"info", "/tmp"});
  EXPECT_EQ(d.status, 3);
}

TEST(CliUsage, UnknownCommandAndMissingArgumentExit2) {
  EXPECT_EQ(run_cli({"frobnicate"}).status, 2);
  EXPECT_EQ(run_cli({"info"}).status, 2);
  EXPECT_EQ(run_cli({}).status, 2);
  auto help = run_cli({"--help"});
  EXPECT_EQ(help.status, 0);
  EXPECT_NE(help.out.find("info"), std::string::npos);
}

TEST(CliInfo, SummarisesTheBundledCounter) {
  auto r = run_cli({"info", std::string(TC_SOURCE_DIR) + "/resources/examples/counter.json"});
  ASSERT_EQ(r.status, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["inputs"]["event"]["max"], 1);
  EXPECT_EQ(j["state"]["count"]["initial"], 0);
  EXPECT_EQ(j["outputs"]["result"], 1);
}

}  // namespace
}  // namespace tc
