#pragma once
// Helpers shared by the evaluator tests.
#include <gtest/gtest.h>

#include <cstring>
#include <initializer_list>
#include <string>
#include <utility>

#include "eval/evaluator.h"
#include "ir/builder.h"

namespace tc::testing {

/// An Env with only inputs.
inline Env inputs(std::initializer_list<std::pair<const std::string, double>> values) {
  Env env;
  env.inputs = values;
  return env;
}

/// Builds and fails the test on a builder error.
inline Program built(Builder& b, Arg result) {
  auto p = b.build(result);
  EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.error().message);
  return p.ok() ? std::move(p.value()) : Program{};
}

inline Evaluator evaluator(const Program& p, EvalOptions o = {}) {
  auto e = Evaluator::create(p, o);
  if (!e.ok()) ADD_FAILURE() << e.error().message;
  return std::move(e.value());
}

/// Bit-identical comparison (distinguishes -0.0 and 0.0; NaN equals NaN).
inline bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

}  // namespace tc::testing
