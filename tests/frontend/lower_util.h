#pragma once
// Compile-and-evaluate helpers shared by the lowering tests (one file per
// construct family: lower_, budget_, exactness_, warnings_, options_test.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "frontend_util.h"

namespace tc::test {

// Compiles and evaluates; returns the outputs or the error message.
struct Outcome {
  std::vector<std::pair<std::string, double>> out;
  std::string error;
};
inline Outcome run(const std::string& src, const std::vector<std::string>& inputs,
                   const std::vector<std::pair<std::string, double>>& values) {
  auto c = compile_text(src, inputs);
  if (!c) return {{}, "compile: " + c.error().format()};
  auto r = evaluate(c->program, values);
  if (!r) return {{}, r.error().message};
  return {*r, {}};
}
inline double result(const std::string& src, const std::vector<std::string>& inputs,
                     const std::vector<std::pair<std::string, double>>& values) {
  Outcome r = run(src, inputs, values);
  EXPECT_TRUE(r.error.empty()) << r.error;
  if (!r.error.empty() || r.out.empty()) return std::nan("");
  return r.out[0].second;
}

// A function adding `a` in a loop of n iterations.
inline std::string loop_source(int n) {
  return "def f(a):\n    s = 0\n    for i in range(" + std::to_string(n) + "):\n        s = s + a\n    return s\n";
}

}  // namespace tc::test
