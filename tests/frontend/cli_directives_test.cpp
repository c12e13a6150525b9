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

}  // namespace
}  // namespace tc
