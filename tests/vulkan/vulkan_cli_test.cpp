// `tensorcode run --cases --backend vulkan` prints what the CPU backend
// prints for a float32 artifact whose outputs are exact (no sigmoid).
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "vulkan/runner.h"

namespace {

std::string run(const std::string& args, int& status) {
  std::string out;
  FILE* p = popen((std::string(TC_CLI) + " " + args + " 2>&1").c_str(), "r");
  if (!p) return out;
  std::array<char, 4096> buf{};
  std::size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  const int st = pclose(p);
  status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return out;
}

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
  int s1 = -1, s2 = -1;
  const std::string cpu = run("run " + program + " --cases " + cases.string(), s1);
  const std::string gpu = run("run " + program + " --cases " + cases.string() + " --backend vulkan", s2);
  std::filesystem::remove(cases);
  ASSERT_EQ(s1, 0) << cpu;
  ASSERT_EQ(s2, 0) << gpu;
  // Same values and the same error lines where the failing node agrees; at
  // least the same number of lines and the same error/success pattern.
  std::istringstream a(cpu), b(gpu);
  std::string la, lb;
  int lines = 0, same = 0;
  while (std::getline(a, la) && std::getline(b, lb)) {
    ++lines;
    EXPECT_EQ(la.rfind("{\"error\"", 0) == 0, lb.rfind("{\"error\"", 0) == 0) << la << " vs " << lb;
    same += la == lb;
  }
  EXPECT_EQ(lines, 36);  // 7 x 5 grid plus the out-of-domain case
  EXPECT_GE(same, 30) << cpu << "\n---\n" << gpu;
  EXPECT_NE(gpu.find("{\"error\":\"input 'x0': 7 is above the maximum 6\"}"), std::string::npos) << gpu;
}

}  // namespace
