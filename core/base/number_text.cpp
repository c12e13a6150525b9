#include "base/number_text.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace tc {

std::string shortest_number_portable(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  // Fewest significant digits that read back exactly (at most 17).
  char sci[64];
  int precision = 1;
  for (; precision < 17; ++precision) {
    std::snprintf(sci, sizeof sci, "%.*e", precision - 1, v);
    if (std::strtod(sci, nullptr) == v) break;
  }
  std::snprintf(sci, sizeof sci, "%.*e", precision - 1, v);
  // Split "-d.ddde+XX" into sign, digits and exponent.
  std::string s(sci);
  std::string sign;
  if (s[0] == '-') {
    sign = "-";
    s.erase(0, 1);
  }
  const std::size_t e = s.find('e');
  const int exponent = std::atoi(s.c_str() + e + 1);
  std::string digits = s.substr(0, e);
  if (digits.size() > 1) digits.erase(1, 1);  // the decimal point
  // printf's scientific spelling: no point for one digit, exponent of at least two digits.
  std::string scientific = digits.substr(0, 1);
  if (digits.size() > 1) scientific += "." + digits.substr(1);
  char exp_text[16];
  std::snprintf(exp_text, sizeof exp_text, "e%c%02d", exponent < 0 ? '-' : '+', std::abs(exponent));
  scientific += exp_text;
  // Fixed spelling of the same digits.
  std::string fixed;
  const int n = static_cast<int>(digits.size());
  if (exponent >= n - 1) {
    // An integer: std::to_chars prints its exact digits (same length as the
    // shortest digits padded with zeros), as printf's %.0f does.
    char whole[400];
    std::snprintf(whole, sizeof whole, "%.0f", std::fabs(v));
    fixed = whole;
  } else if (exponent >= 0) {
    fixed = digits.substr(0, static_cast<std::size_t>(exponent + 1)) + "." + digits.substr(static_cast<std::size_t>(exponent + 1));
  } else {
    fixed = "0." + std::string(static_cast<std::size_t>(-exponent - 1), '0') + digits;
  }
  return sign + (fixed.size() <= scientific.size() ? fixed : scientific);
}

std::string shortest_number(double v) {
#if defined(__cpp_lib_to_chars) && __cpp_lib_to_chars >= 201611L
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, res.ptr);
#else
  return shortest_number_portable(v);
#endif
}

}  // namespace tc
