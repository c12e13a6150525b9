// A program with an exact select runs single cases through a flat plan with
// jumps (Prepared::lazy) instead of the demand-driven stack walk. Both must
// evaluate exactly the same nodes, with the same values, branches and
// failures, and report the same error. This test compares them on random
// programs full of exact selects nested in each other's branches, shared
// subexpressions, divisions by zero, gathers out of range and domain
// failures, over inputs chosen so that those errors happen often.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "eval/evaluator.h"
#include "eval/prepared.h"
#include "eval_util.h"
#include "ir/builder.h"

namespace tc {
namespace {

using eval_detail::Prepared;
using eval_detail::Workspace;

Program random_program(std::mt19937& rng, int nodes, int outputs) {
  Builder b(Semantics::Exact);
  std::vector<Value> pool = {b.input("x", Domain::float64(-4, 4)), b.input("y", Domain::float64(-4, 4)),
                             b.input("z", Domain::float64(-4, 4)), b.constant(1.0), b.constant(0.0)};
  auto any = [&] { return pool[std::uniform_int_distribution<std::size_t>(0, pool.size() - 1)(rng)]; };
  // Late nodes mostly read recent ones, so branches are deep and shared.
  auto recent = [&] {
    const std::size_t lo = pool.size() > 6 ? pool.size() - 6 : 0;
    return pool[std::uniform_int_distribution<std::size_t>(lo, pool.size() - 1)(rng)];
  };
  for (int k = 0; k < nodes; ++k) {
    switch (std::uniform_int_distribution<int>(0, 8)(rng)) {
      case 0: pool.push_back(b.op("add", recent(), any())); break;
      case 1: pool.push_back(b.op("sub", any(), recent())); break;
      case 2: pool.push_back(b.op("mul", recent(), any())); break;
      case 3: pool.push_back(b.op("div", any(), recent())); break;  // often by zero
      case 4: pool.push_back(b.op("lt", recent(), any())); break;
      case 5: pool.push_back(b.op("eq", any(), recent())); break;
      case 6:
      case 7: pool.push_back(b.select(any(), recent(), recent())); break;
      default: pool.push_back(b.gather({recent(), any()}, any())); break;  // often out of range
    }
    if (std::uniform_int_distribution<int>(0, 9)(rng) == 0) b.set_domain(pool.back(), Domain::float64(-8, 8));
  }
  std::vector<std::pair<std::string, Arg>> outs;
  for (int o = 0; o < outputs; ++o) outs.emplace_back("r" + std::to_string(o), recent());
  auto p = b.build(outs);
  EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.error().message);
  return p.ok() ? std::move(p.value()) : Program{};
}

TEST(LazyPlan, SameEvaluationAsTheWalkOnRandomPrograms) {
  std::mt19937 rng(11);
  const std::vector<double> values = {0, 1, -1, 2, 0.5, 3, -0.0};
  int planned = 0, failures = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const Program program = random_program(rng, 10 + trial % 40, 1 + trial % 3);
    Evaluator ev = testing::evaluator(program);
    const Prepared& p = eval_detail::prepared_of(ev);
    if (p.straight) continue;
    planned += !p.lazy.empty();
    auto fixed = eval_detail::resolve_fixed(p, Env{});
    ASSERT_TRUE(fixed.ok());
    Workspace flat, walk;
    for (int c = 0; c < 40; ++c) {
      std::vector<double> in(p.inputs.size());
      for (double& x : in) x = values[std::uniform_int_distribution<std::size_t>(0, values.size() - 1)(rng)];
      Diagnostic e1, e2;
      const bool ok1 = eval_detail::eval_case(p, in.data(), *fixed, flat, e1);
      const bool ok2 = eval_detail::eval_case_walk(p, in.data(), *fixed, walk, e2);
      ASSERT_EQ(ok1, ok2) << "trial " << trial << " case " << c;
      failures += !ok1;
      if (!ok1) {
        ASSERT_EQ(e1.message, e2.message) << "trial " << trial << " case " << c;
        ASSERT_EQ(e1.node, e2.node);
      }
      for (std::size_t i = 0; i < p.instrs.size(); ++i) {
        ASSERT_EQ(flat.status[i], walk.status[i]) << "trial " << trial << " case " << c << " node " << i;
        ASSERT_EQ(flat.branch[i], walk.branch[i]) << "trial " << trial << " case " << c << " node " << i;
        if (flat.status[i] == eval_detail::kDone) {
          ASSERT_TRUE(testing::same_bits(flat.values[i], walk.values[i])) << "trial " << trial << " node " << i;
        }
      }
    }
  }
  // The comparison is only worth something if plans ran and cases failed.
  EXPECT_GT(planned, 100);
  EXPECT_GT(failures, 1000);
}

}  // namespace
}  // namespace tc
