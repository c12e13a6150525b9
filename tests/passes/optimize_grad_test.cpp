// Gradients through an optimized program. Optimization promises bit-identical
// forward values; gradients agree up to the order in which the contributions
// to one argument are summed (an affine node's VJP adds its terms' shares in
// its own order), so they are compared with a tight relative tolerance.
#include <gtest/gtest.h>

#include <cmath>

#include "grad/gradients.h"
#include "ir/builder.h"
#include "passes/optimize.h"
#include "passes_util.h"

namespace tc {
namespace {

TEST(OptimizeGradients, AgreeWithTheOriginal) {
  std::mt19937_64 rng(31337);
  int compared = 0;
  for (int k = 0; k < 150; ++k) {
    testing::RandomProgramOptions o;
    o.allow_float32 = false;
    o.allow_relaxed = false;
    Program p = testing::random_program(rng, o);
    auto opt = optimize(p);
    if (!opt) continue;
    for (const Env& env : testing::sample_envs(p, rng, 10)) {
      auto a = gradients(p, env);
      auto b = gradients(opt->program, env);
      ASSERT_EQ(a.ok(), b.ok()) << "program " << k << ": " << (a.ok() ? b.error().message : a.error().message);
      if (!a.ok()) continue;
      EXPECT_EQ(std::bit_cast<std::uint64_t>(a->result), std::bit_cast<std::uint64_t>(b->result)) << "program " << k;
      ASSERT_EQ(a->gradients.size(), b->gradients.size()) << "program " << k;
      for (std::size_t g = 0; g < a->gradients.size(); ++g) {
        const double x = a->gradients[g].second, y = b->gradients[g].second;
        EXPECT_EQ(a->gradients[g].first, b->gradients[g].first);
        EXPECT_LE(std::fabs(x - y), 1e-12 * std::max({1.0, std::fabs(x), std::fabs(y)}))
            << "program " << k << " d/d" << a->gradients[g].first << ": " << x << " vs " << y;
        ++compared;
      }
    }
  }
  EXPECT_GT(compared, 300);
}

}  // namespace
}  // namespace tc
