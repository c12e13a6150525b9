// `tensorcode run --cases --backend vulkan` prints what the CPU backend
// prints for a float32 artifact whose outputs are exact (no sigmoid).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "support/cli_util.h"
#include "vulkan/runner.h"

namespace {

using tc::testing::run_cli;

TEST(VulkanCli, RunCasesMatchesTheCpuBackendLineForLine) {
  auto probe = tc::vk::probe_device();
  if (!probe.ok()) GTEST_SKIP() << "no vulkan device: " << probe.error().message;
  const std::string program = std::string(TC_TEST_DATA) + "/emit/random_int.json";
  const auto cases = std::filesystem::temp_directory_path() / ("tc_vk_cli_" + std::to_string(::getpid()) + ".jsonl");
  {
    std::ofstream f(cases);
    for (int a = -6; a <= 6; a += 2)
      for (int b = -6; b <= 6; b += 3) f << "{\"x0\": " << a << ", \"x1\": " << b << ", \"x2\": " << (a + b) / 2 << "}\n";
    f << "{\"x0\": 7, \"x1\": 0, \"x2\": 0}\n";  // outside int32:-6:6
  }
  const auto c = run_cli({"run", program, "--cases", cases.string()});
  const auto g = run_cli({"run", program, "--cases", cases.string(), "--backend", "vulkan"});
  std::filesystem::remove(cases);
  ASSERT_EQ(c.status, 0) << c.err;
  ASSERT_EQ(g.status, 0) << g.err;
  const std::string& cpu = c.out;
  const std::string& gpu = g.out;
  // An exact integer program: every line the same, values and errors alike.
  std::istringstream a(cpu), b(gpu);
  std::string la, lb;
  int lines = 0;
  while (std::getline(a, la)) {
    ++lines;
    ASSERT_TRUE(std::getline(b, lb)) << "vulkan printed fewer lines than the cpu backend";
    EXPECT_EQ(la, lb) << "line " << lines;
  }
  EXPECT_FALSE(std::getline(b, lb)) << "vulkan printed more lines than the cpu backend";
  EXPECT_EQ(lines, 36);  // 7 x 5 grid plus the out-of-domain case
  EXPECT_NE(gpu.find("{\"error\":\"input 'x0': 7 is above the maximum 6\"}"), std::string::npos) << gpu;
}

}  // namespace
