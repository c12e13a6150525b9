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

/// Asserts that two run_batch results agree: the same failing cases and
/// errors (case, message, node), and every output and next state of the
/// other cases bit for bit. `what` names the comparison in a failure.
inline void expect_same_batch(const BatchResult& want, const BatchResult& got, const std::string& what) {
  ASSERT_EQ(want.failed, got.failed) << what;
  ASSERT_EQ(want.errors.size(), got.errors.size()) << what;
  for (std::size_t e = 0; e < want.errors.size(); ++e) {
    ASSERT_EQ(want.errors[e].first, got.errors[e].first) << what;
    ASSERT_EQ(want.errors[e].second.message, got.errors[e].second.message) << what;
    ASSERT_EQ(want.errors[e].second.node, got.errors[e].second.node) << what;
  }
  for (std::size_t c = 0; c < want.count; ++c) {
    if (want.failed[c]) continue;
    for (std::size_t o = 0; o < want.outputs.size(); ++o)
      ASSERT_TRUE(same_bits(want.outputs[o][c], got.outputs[o][c]))
          << what << ", case " << c << ", output " << o << ": " << want.outputs[o][c] << " vs " << got.outputs[o][c];
    for (std::size_t u = 0; u < want.next_state.size(); ++u)
      ASSERT_TRUE(same_bits(want.next_state[u][c], got.next_state[u][c])) << what << ", case " << c << ", update " << u;
  }
}

}  // namespace tc::testing
