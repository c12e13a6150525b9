// Random Builder programs: the tape's forward agrees bit for bit with the
// evaluator (values and errors), and reverse-mode gradients agree with
// central finite differences at random points away from decision boundaries.
#include <algorithm>
#include <bit>
#include <cmath>
#include <random>

#include <gtest/gtest.h>

#include "eval/evaluator.h"
#include "grad/gradients.h"
#include "grad_test_util.h"
#include "ir/builder.h"

namespace tc {
namespace {

TEST(GradRandomPrograms, ForwardMatchesTheEvaluatorBitForBit) {
  std::mt19937_64 rng(7);
  int compared = 0, failed_both = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const auto sem = static_cast<Semantics>(trial % 3);
    const auto dtype = trial % 5 == 0 ? Dtype::Float32 : Dtype::Float64;
    Program p = test::random_program(rng, sem, dtype, /*size=*/30);
    auto ev = Evaluator::create(p);
    ASSERT_TRUE(ev.ok()) << ev.error().message;
    auto tape = GradientTape::create(p);
    ASSERT_TRUE(tape.ok()) << tape.error().message;
    for (int point = 0; point < 5; ++point) {
      Env env = test::random_env(rng, p);
      auto want = ev->run(env);
      double got = 0;
      Status s = tape->forward(env, std::span<double>(&got, 1));
      ASSERT_EQ(want.ok(), s.ok()) << (want.ok() ? s.error().message : want.error().message);
      if (!want.ok()) {
        EXPECT_EQ(s.error().message, want.error().message);
        ++failed_both;
        continue;
      }
      const std::size_t out = 0;
      EXPECT_EQ(std::bit_cast<std::uint64_t>(got), std::bit_cast<std::uint64_t>(want->outputs[out]))
          << got << " vs " << want->outputs[out];
      ++compared;
    }
  }
  EXPECT_GT(compared, 500);
  EXPECT_GT(failed_both, 5);  // the generator does reach errors, and both report the same one
}

TEST(GradRandomPrograms, GradientsMatchFiniteDifferences) {
  std::mt19937_64 rng(11);
  int checked = 0;
  for (int trial = 0; trial < 300; ++trial) {
    // Exact and relaxed: finite differences of the forward are the reference
    // (hybrid deliberately differs by its surrogate terms).
    const auto sem = trial % 2 ? Semantics::Relaxed : Semantics::Exact;
    Program p = test::random_program(rng, sem, Dtype::Float64, /*size=*/25);
    for (int point = 0; point < 4; ++point) {
      Env env = test::random_env(rng, p);
      if (!test::away_from_boundaries(p, env, 1e-3)) continue;
      auto rep = gradient_check(p, env);
      if (!rep.ok()) continue;  // undefined here (e.g. division by zero): nothing to compare
      if (std::fabs(rep->result) > 1e6) continue;
      // Where the curvature is extreme (a division by a tiny value) the finite
      // differences themselves are unreliable: require two step sizes to agree.
      GradCheckOptions finer;
      finer.eps = 1e-7;
      auto rep2 = gradient_check(p, env, finer);
      ASSERT_TRUE(rep2.ok());
      bool reliable = true;
      for (std::size_t k = 0; k < rep->finite_differences.size(); ++k) {
        const double a = rep->finite_differences[k].second, b = rep2->finite_differences[k].second;
        reliable = reliable && std::fabs(a - b) <= 1e-5 * std::max({1.0, std::fabs(a), std::fabs(b)});
      }
      if (!reliable) continue;
      ++checked;
      EXPECT_LT(rep->max_rel_diff, 1e-5) << "trial " << trial << " semantics " << to_string(sem);
    }
  }
  EXPECT_GT(checked, 300);
}

}  // namespace
}  // namespace tc

namespace tc {
namespace {

TEST(GradRandomPrograms, HybridForwardIsExactAndGradientFailuresNameTheUnchosenValue) {
  std::mt19937_64 rng(5);
  int failures = 0, successes = 0;
  for (int trial = 0; trial < 200; ++trial) {
    Program p = test::random_program(rng, Semantics::Hybrid, Dtype::Float64, 25);
    GradOptions exact;
    exact.semantics = Semantics::Exact;
    auto he = GradientTape::create(p);
    auto ee = GradientTape::create(p, exact);
    ASSERT_TRUE(he.ok() && ee.ok());
    for (int point = 0; point < 3; ++point) {
      Env env = test::random_env(rng, p);
      double h = 0, e = 0;
      Status hs = he->forward(env, std::span<double>(&h, 1));
      Status es = ee->forward(env, std::span<double>(&e, 1));
      ASSERT_EQ(hs.ok(), es.ok());
      if (!hs.ok()) continue;
      EXPECT_EQ(h, e);
      auto g = he->run(env);
      if (g.ok()) {
        ++successes;
        for (const auto& [name, d] : g->gradients) EXPECT_TRUE(std::isfinite(d)) << name;
      } else {
        ++failures;
        EXPECT_NE(g.error().message.find("needs the value it did not choose"), std::string::npos) << g.error().message;
      }
    }
  }
  EXPECT_GT(successes, 100);
}

}  // namespace
}  // namespace tc
