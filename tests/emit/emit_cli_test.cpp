// `tensorcode emit` end to end: WGSL to stdout equals the golden file, binary
// SPIR-V and WASM to files, refusals exit 3 with one line on stderr.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <string>

#include "base/atomic_file.h"

namespace {

struct CliRun {
  int status = -1;
  std::string out;
};

CliRun run(const std::string& args) {
  CliRun r;
  const std::string cmd = std::string(TC_CLI) + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf{};
  std::size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  const int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

const std::string kData = std::string(TC_TEST_DATA) + "/emit/";

TEST(EmitCli, WgslToStdoutMatchesTheGolden) {
  CliRun r = run("emit " + kData + "random_float.json --target wgsl");
  ASSERT_EQ(r.status, 0) << r.out;
  auto golden = tc::read_file(kData + "random_float.wgsl");
  ASSERT_TRUE(golden.ok());
  EXPECT_EQ(r.out, *golden);
}

TEST(EmitCli, BinaryTargetsWriteFiles) {
  const auto dir = std::filesystem::temp_directory_path() / ("tc_emit_cli_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string spv = (dir / "p.spv").string(), wasm = (dir / "p.wasm").string();
  CliRun a = run("emit " + kData + "random_int.json --target spirv -o " + spv);
  CliRun b = run("emit " + kData + "random_int.json --target wasm -o " + wasm);
  auto s = tc::read_file(spv);
  auto w = tc::read_file(wasm);
  std::filesystem::remove_all(dir);
  ASSERT_EQ(b.status, 0) << b.out;
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(w->substr(0, 4), std::string("\0asm", 4));
#ifdef TC_HAVE_SPIRV_TOOLS
  ASSERT_EQ(a.status, 0) << a.out;
  ASSERT_TRUE(s.ok());
  ASSERT_GE(s->size(), 20u);
  EXPECT_EQ(static_cast<unsigned char>((*s)[0]), 0x03);  // magic 0x07230203, little endian
  EXPECT_EQ(static_cast<unsigned char>((*s)[3]), 0x07);
#endif
}

TEST(EmitCli, SpirvTextAndUsageErrors) {
  CliRun t = run("emit " + kData + "random_sigmoid.json --target spirv --spirv-text");
  ASSERT_EQ(t.status, 0) << t.out;
  EXPECT_NE(t.out.find("OpEntryPoint GLCompute %main \"main\" %gid"), std::string::npos);
  EXPECT_NE(t.out.find("NoContraction"), std::string::npos);
  CliRun u = run("emit " + kData + "random_sigmoid.json --target glsl");
  EXPECT_EQ(u.status, 2) << u.out;
  CliRun v = run("emit " + kData + "random_sigmoid.json --target wgsl --param nope=1");
  EXPECT_EQ(v.status, 2) << v.out;
  EXPECT_NE(v.out.find("no parameter 'nope'"), std::string::npos) << v.out;
}

}  // namespace
