// `# tensorcode: input` directives on the command line: a file the IDE saved
// with its domains works on the CLI without --input, for every command that
// takes a .py, and a flag overrides a directive.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "frontend/compile.h"
#include "ir/domain.h"
#include "support/cli_util.h"

namespace tc {
namespace {

using testing::run_cli;

// What the IDE writes when the user sets a=int32:-128:127 in its inputs panel.
std::string ide_saved_file(const std::string& dir) {
  std::string src = "def choose(a):\n    return 10 if a > 4 else 12\n";
  return testing::write_temp(dir, "choose.py", set_input_directives(src, {{"a", Domain::int32(-128, 127)}}));
}

nlohmann::json input_domain(const std::string& artifact) {
  auto j = nlohmann::json::parse(artifact);
  for (const auto& n : j["nodes"])
    if (n["op"] == "input") return n["domain"];
  return nullptr;
}

TEST(CliDirectives, IdeSavedFileCompilesWithoutInputFlags) {
  std::string src = ide_saved_file(testing::temp_dir());
  auto r = run_cli({"compile", src});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(input_domain(r.out), (nlohmann::json{{"type", "int32"}, {"min", -128}, {"max", 127}}));
}

TEST(CliDirectives, FlagOverridesTheDirective) {
  std::string src = ide_saved_file(testing::temp_dir());
  auto r = run_cli({"compile", src, "--input", "a=int32:0:9"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(input_domain(r.out), (nlohmann::json{{"type", "int32"}, {"min", 0}, {"max", 9}}));
  // The overriding domain is the one checked at run time.
  r = run_cli({"run", src, "--input", "a=int32:0:9", "--set", "a=50"});
  EXPECT_EQ(r.status, 3) << r.out << r.err;
  r = run_cli({"run", src, "--set", "a=50"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("10"), std::string::npos) << r.out;
}

TEST(CliDirectives, EveryCommandTakingSourceReadsThem) {
  std::string src = ide_saved_file(testing::temp_dir());
  auto r = run_cli({"verify", src});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  r = run_cli({"analyze", src});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
}

TEST(CliDirectives, MalformedDirectiveIsALocatedError) {
  std::string dir = testing::temp_dir();
  std::string src = testing::write_temp(dir, "bad.py", "# tensorcode: input a=int77\ndef f(a):\n    return a\n");
  auto r = run_cli({"compile", src});
  EXPECT_EQ(r.status, 3) << r.out;
  EXPECT_EQ(r.err.rfind(src + ":1:", 0), 0u) << r.err;
}

// The IDE's Compile Options (issue 24 item 8): a loop over the default
// budget of 1024 iterations, saved with `# tensorcode: compile
// max-iterations=4096`, compiles and runs on the CLI without a flag; an
// explicit flag still wins, and so does --dtype over the file's dtype.
std::string budget_file(const std::string& dir, const std::string& directive) {
  const std::string body = "def total(x):\n    s = x\n    for i in range(2000):\n        s = s * 0.5 + x\n    return s\n";
  return testing::write_temp(dir, "budget.py", "# tensorcode: input x=float64:-1:1\n" + directive + body);
}

TEST(CliDirectives, CompileDirectiveSetsTheBudgets) {
  const std::string dir = testing::temp_dir();
  const std::string plain = budget_file(dir, "");
  auto r = run_cli({"compile", plain});
  EXPECT_EQ(r.status, 3) << r.err;
  EXPECT_NE(r.err.find("iteration budget"), std::string::npos) << r.err;
  const std::string saved = budget_file(dir, "# tensorcode: compile max-iterations=4096\n");
  r = run_cli({"compile", saved});
  EXPECT_EQ(r.status, 0) << r.err;
  r = run_cli({"run", saved, "--set", "x=0.5"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("1"), std::string::npos) << r.out;
  // A flag given on the command line wins over the file's budget.
  r = run_cli({"compile", saved, "--max-iterations", "100"});
  EXPECT_EQ(r.status, 3) << r.err;
  r = run_cli({"run", saved, "--set", "x=0.5", "--max-iterations", "100"});
  EXPECT_EQ(r.status, 3) << r.err;
  // max-nodes from the file refuses what the default would accept.
  const std::string small = budget_file(dir, "# tensorcode: compile max-iterations=4096 max-nodes=50\n");
  r = run_cli({"compile", small});
  EXPECT_EQ(r.status, 3) << r.err;
  EXPECT_NE(r.err.find("node"), std::string::npos) << r.err;
}

TEST(CliDirectives, CompileDirectiveSetsTheDtypeUnderTheFlag) {
  const std::string dir = testing::temp_dir();
  const std::string src = testing::write_temp(dir, "half.py",
                                              "# tensorcode: input x=float64:-1:1\n# tensorcode: compile dtype=float32\n"
                                              "def f(x):\n    return x * 0.1\n");
  auto dtype_of = [](const std::string& artifact) { return nlohmann::json::parse(artifact)["dtype"].get<std::string>(); };
  auto r = run_cli({"compile", src});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(dtype_of(r.out), "float32");
  r = run_cli({"compile", src, "--dtype", "float64"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(dtype_of(r.out), "float64");
}

TEST(CliDirectives, MalformedCompileDirectiveIsALocatedError) {
  const std::string dir = testing::temp_dir();
  const std::string src = testing::write_temp(dir, "bad.py", "def f(x):\n    return x\n# tensorcode: compile speed=11\n");
  for (const char* cmd : {"compile", "run"}) {
    auto r = run_cli({cmd, src, "--input", "x=float64", "--set", "x=1"});
    if (std::string(cmd) == "compile") r = run_cli({cmd, src, "--input", "x=float64"});
    EXPECT_EQ(r.status, 3) << cmd << ": " << r.out << r.err;
    EXPECT_EQ(r.err.rfind(src + ":3:", 0), 0u) << cmd << ": " << r.err;
    EXPECT_NE(r.err.find("speed"), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "");
  }
}

// issue 37: the docstring's directive made `run` compute in float32
// (0.30000001192092896); CPython gives 0.30000000000000004. And a source's
// own max-iterations=10^12 is stopped at the directive, not by the memory.
TEST(CliDirectives, ADocstringIsNotADirectiveAndTheBudgetsHaveACeiling) {
  const std::string dir = testing::temp_dir();
  const std::string doc = testing::write_temp(dir, "doc.py",
                                              "def f(x):\n"
                                              "    \"\"\"How the IDE saves options:\n"
                                              "    # tensorcode: compile dtype=float32\n"
                                              "    # tensorcode: input x=int32:0:3\n"
                                              "    \"\"\"\n"
                                              "    return x + 0.2\n");
  auto r = run_cli({"run", doc, "--input", "x=float64", "--set", "x=0.1"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "{\"result\":0.30000000000000004}\n");
  const std::string big = testing::write_temp(dir, "big.py",
                                              "# tensorcode: compile max-iterations=1000000000000 max-nodes=1000000000000\n"
                                              "def f(x):\n    for i in range(1000000000000):\n        x = x + 1\n"
                                              "    return x\n");
  r = run_cli({"compile", big, "--input", "x=float64"});
  EXPECT_EQ(r.status, 3) << r.err;
  EXPECT_NE(r.err.find(big + ":1:38: error: compile directive: max-iterations=1000000000000 is above the most a "
                             "source file may ask for (1000000)"),
            std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace tc
