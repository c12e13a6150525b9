// `tensorcode emit` end to end: WGSL to stdout equals the golden file, binary
// SPIR-V and WASM to files, refusals exit 3 with one line on stderr.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "base/atomic_file.h"
#include "support/cli_util.h"

namespace {

using tc::testing::CliResult;
using tc::testing::run_cli;

const std::string kData = std::string(TC_TEST_DATA) + "/emit/";

TEST(EmitCli, WgslToStdoutMatchesTheGolden) {
  CliResult r = run_cli({"emit", kData + "random_float.json", "--target", "wgsl"});
  ASSERT_EQ(r.status, 0) << r.err;
  auto golden = tc::read_file(kData + "random_float.wgsl");
  ASSERT_TRUE(golden.ok());
  EXPECT_EQ(r.out, *golden);
}

TEST(EmitCli, BinaryTargetsWriteFiles) {
  const auto dir = std::filesystem::temp_directory_path() / ("tc_emit_cli_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string spv = (dir / "p.spv").string(), wasm = (dir / "p.wasm").string();
  CliResult a = run_cli({"emit", kData + "random_int.json", "--target", "spirv", "-o", spv});
  CliResult b = run_cli({"emit", kData + "random_int.json", "--target", "wasm", "-o", wasm});
  auto s = tc::read_file(spv);
  auto w = tc::read_file(wasm);
  std::filesystem::remove_all(dir);
  ASSERT_EQ(b.status, 0) << b.err;
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(w->substr(0, 4), std::string("\0asm", 4));
#ifdef TC_HAVE_SPIRV_TOOLS
  ASSERT_EQ(a.status, 0) << a.err;
  ASSERT_TRUE(s.ok());
  ASSERT_GE(s->size(), 20u);
  EXPECT_EQ(static_cast<unsigned char>((*s)[0]), 0x03);  // magic 0x07230203, little endian
  EXPECT_EQ(static_cast<unsigned char>((*s)[3]), 0x07);
#endif
}

TEST(EmitCli, SpirvTextAndUsageErrors) {
  CliResult t = run_cli({"emit", kData + "random_sigmoid.json", "--target", "spirv", "--spirv-text"});
  ASSERT_EQ(t.status, 0) << t.err;
  EXPECT_NE(t.out.find("OpEntryPoint GLCompute %main \"main\" %gid"), std::string::npos);
  EXPECT_NE(t.out.find("NoContraction"), std::string::npos);
  CliResult u = run_cli({"emit", kData + "random_sigmoid.json", "--target", "glsl"});
  EXPECT_EQ(u.status, 2) << u.err;
  CliResult v = run_cli({"emit", kData + "random_sigmoid.json", "--target", "wgsl", "--param", "nope=1"});
  EXPECT_EQ(v.status, 2) << v.err;
  EXPECT_NE(v.err.find("no parameter 'nope'"), std::string::npos) << v.err;
  EXPECT_EQ(std::count(v.err.begin(), v.err.end(), '\n'), 1) << "one line per error: " << v.err;
}

}  // namespace
