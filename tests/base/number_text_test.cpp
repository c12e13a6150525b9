// shortest_number: the portable route must spell every double exactly like
// std::to_chars (the native route), so error messages read the same in the
// WebAssembly build as in the CLI.
#include <gtest/gtest.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>

#include "base/number_text.h"

namespace tc {
namespace {

std::string reference(double v) {
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, res.ptr);
}

TEST(NumberText, SpecialValues) {
  EXPECT_EQ(shortest_number_portable(std::nan("")), "nan");
  EXPECT_EQ(shortest_number_portable(std::numeric_limits<double>::infinity()), "inf");
  EXPECT_EQ(shortest_number_portable(-std::numeric_limits<double>::infinity()), "-inf");
}

TEST(NumberText, HandPickedValuesMatchToChars) {
  const double values[] = {0.0, -0.0, 1.0, -1.0, 0.1, 0.5, 1.5, 10, 100, 1e5, 123456, 1e15, 1e16, 1e17, 1e20, 1e21,
                           1e22, 1.25e-7, 0.001, 0.0001, 1e-5, 2.5e-5, 3.14159, 2147483647.0, -2147483648.0,
                           9007199254740993.0, 5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, 1.0 / 3.0,
                           123.456, 1234567890123.0, 0.30000000000000004};
  for (double v : values) EXPECT_EQ(shortest_number_portable(v), reference(v)) << v;
}

TEST(NumberText, RandomBitPatternsMatchToChars) {
  std::mt19937_64 rng(7);
  int checked = 0;
  for (int i = 0; i < 30000; ++i) {
    std::uint64_t bits = rng();
    double v;
    std::memcpy(&v, &bits, sizeof v);
    if (!std::isfinite(v)) continue;
    ASSERT_EQ(shortest_number_portable(v), reference(v)) << "bits " << bits;
    ++checked;
  }
  // Numbers of everyday size, where fixed and scientific compete.
  std::uniform_real_distribution<double> unit(-1, 1);
  std::uniform_int_distribution<int> scale(-30, 30);
  for (int i = 0; i < 30000; ++i) {
    double v = unit(rng) * std::pow(10.0, scale(rng));
    if (i % 3 == 0) v = std::round(v);
    ASSERT_EQ(shortest_number_portable(v), reference(v)) << v;
    ++checked;
  }
  EXPECT_GT(checked, 50000);
}

TEST(NumberText, NativeRouteIsToChars) { EXPECT_EQ(shortest_number(0.1 + 0.2), reference(0.1 + 0.2)); }

}  // namespace
}  // namespace tc
