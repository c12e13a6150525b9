// `tensorcode compile` end to end: output, -o atomicity, exit statuses and
// the one-line error format.
#include <gtest/gtest.h>

#include <filesystem>

#include "frontend_util.h"
#include "support/cli_util.h"

namespace tc {
namespace {

using testing::run_cli;

TEST(CliCompile, PrintsTheArtifact) {
  std::string dir = testing::temp_dir();
  std::string src = testing::write_temp(dir, "choose.py", "def choose(a):\n    return 10 if a > 4 else 12\n");
  auto r = run_cli({"compile", src, "--input", "a=int32:-128:127"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("\"format\": \"tensorcode.program\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"result\": 5"), std::string::npos);
  EXPECT_TRUE(r.err.empty()) << r.err;
}

TEST(CliCompile, WritesOutputFileAndWarnsOnStderr) {
  std::string dir = testing::temp_dir();
  std::string src = testing::write_temp(dir, "w.py", "def f(a):\n    t = a * 2\n    return a\n");
  std::string out = dir + "/w.json";
  auto r = run_cli({"compile", src, "--input", "a=int32:0:3", "-o", out});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(r.out.empty());
  EXPECT_TRUE(std::filesystem::exists(out));
  EXPECT_NE(r.err.find(src + ":2:5: warning: the value assigned to 't' is never used"), std::string::npos) << r.err;
}

TEST(CliCompile, ErrorsExitThreeAndWriteNothing) {
  std::string dir = testing::temp_dir();
  std::string src = testing::write_temp(dir, "bad.py", "def f(a):\n    while a:\n        a = a - 1\n    return a\n");
  std::string out = dir + "/bad.json";
  auto r = run_cli({"compile", src, "--input", "a=int32:0:3", "-o", out});
  EXPECT_EQ(r.status, 3);
  EXPECT_EQ(r.err.rfind(src + ":2:5: error: while loops are not supported", 0), 0u) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_FALSE(std::filesystem::exists(out));
  EXPECT_TRUE(r.out.empty());
}

TEST(CliCompile, MissingAndUnknownInputs) {
  std::string dir = testing::temp_dir();
  std::string src = testing::write_temp(dir, "two.py", "def f(a, b):\n    return a + b\n");
  auto r = run_cli({"compile", src, "--input", "a=int32:0:3"});
  EXPECT_EQ(r.status, 3);
  EXPECT_NE(r.err.find(":1:10: error: parameter 'b' has no input domain"), std::string::npos) << r.err;
  r = run_cli({"compile", src, "--input", "a=int32:0:3", "--input", "b=bool", "--input", "c=bool"});
  EXPECT_EQ(r.status, 3);
  EXPECT_NE(r.err.find("'c' names no parameter"), std::string::npos) << r.err;
  r = run_cli({"compile", src, "--input", "a=int99"});
  EXPECT_EQ(r.status, 2) << r.err;  // a malformed flag is a usage error
}

TEST(CliCompile, BudgetFlags) {
  std::string dir = testing::temp_dir();
  std::string src = testing::write_temp(
      dir, "loop.py", "def f(a):\n    s = 0\n    for i in range(1500):\n        s = s + a\n    return s\n");
  auto r = run_cli({"compile", src, "--input", "a=int32:0:3"});
  EXPECT_EQ(r.status, 3);
  EXPECT_NE(r.err.find("--max-iterations"), std::string::npos);
  r = run_cli({"compile", src, "--input", "a=int32:0:3", "--max-iterations", "1500", "-o", dir + "/loop.json"});
  EXPECT_EQ(r.status, 0) << r.err;
  r = run_cli({"compile", src, "--input", "a=int32:0:3", "--max-iterations", "1500", "--max-nodes", "100"});
  EXPECT_EQ(r.status, 3);
  EXPECT_NE(r.err.find("--max-nodes"), std::string::npos);
}

TEST(CliCompile, MissingFile) {
  auto r = run_cli({"compile", "/nonexistent/x.py", "--input", "a=bool"});
  EXPECT_EQ(r.status, 3);
  EXPECT_EQ(r.err.rfind("error: ", 0), 0u) << r.err;
}

}  // namespace
}  // namespace tc
