// Dead-code elimination, on its own.
#include <gtest/gtest.h>

#include <random>

#include "ir/builder.h"
#include "passes/dead_code.h"
#include "passes/pass_util.h"
#include "passes_util.h"

namespace tc {
namespace {

TEST(DeadCode, RemovesUnusedWorkButKeepsTheSignature) {
  Builder b;
  Value x = b.input("x", Domain::float64(-1, 1));
  Value unused_input = b.input("u", Domain::int32(0, 3));
  Value w = b.parameter("w", 0.5);
  Value s = b.state("s", 0, Domain::int32(0, 10));
  (void)(x * 7.0 + unused_input);  // dead: 3 nodes (constant, mul, add)
  Value r = x + 1.0;
  b.update(s, s);
  auto p = b.build(r);
  ASSERT_TRUE(p.ok());
  auto d = eliminate_dead_code(*p);
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_EQ(d->nodes.size(), p->nodes.size() - 3);
  for (const char* name : {"x", "u"}) EXPECT_TRUE(d->find_named(Op::Input, name).has_value()) << name;
  EXPECT_TRUE(d->find_named(Op::Parameter, "w").has_value());
  EXPECT_TRUE(d->find_named(Op::State, "s").has_value());
  (void)w;
  // Ids stay contiguous and outputs / updates follow the renumbering.
  for (std::size_t i = 0; i < d->nodes.size(); ++i) EXPECT_EQ(d->nodes[i].id, static_cast<NodeId>(i));
  EXPECT_EQ(d->nodes[static_cast<std::size_t>(*d->output("result"))].op, Op::Add);
  ASSERT_EQ(d->updates.size(), 1u);
  EXPECT_EQ(d->nodes[static_cast<std::size_t>(d->updates[0].first)].name, "s");
}

TEST(DeadCode, KeepsWhatUpdatesNeed) {
  Builder b;
  Value e = b.input("e", Domain::int32(0, 1));
  Value s = b.state("count", 0, Domain::int32(0, 100));
  b.update(s, s + e * 2);
  auto p = b.build(s);
  ASSERT_TRUE(p.ok());
  auto d = eliminate_dead_code(*p);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->nodes.size(), p->nodes.size());
}

TEST(DeadCode, RejectsAnInvalidProgram) {
  Program p;
  Node n;
  n.op = Op::Add;
  n.args = {0, 0};
  p.nodes.push_back(n);
  p.outputs.emplace_back("result", 0);
  auto d = eliminate_dead_code(p);
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.error().message.find("dead-code elimination: invalid program"), std::string::npos) << d.error().message;
}

TEST(DeadCode, AloneKeepsRandomProgramsBitIdentical) {
  std::mt19937_64 rng(5);
  std::size_t removed = 0;
  for (int k = 0; k < 200; ++k) {
    Program p = testing::random_program(rng);
    auto d = eliminate_dead_code(p);
    ASSERT_TRUE(d.ok()) << d.error().message;
    removed += p.nodes.size() - d->nodes.size();
    auto diff = testing::compare_behaviour(p, *d, testing::sample_envs(p, rng, 20));
    ASSERT_FALSE(diff) << "program " << k << ": " << *diff;
  }
  EXPECT_GT(removed, 0u);
}

}  // namespace
}  // namespace tc

namespace tc {
namespace {

// compact() in place (the frontend's prune moves its program in) gives the
// same program as the copying one, with a random half of the nodes kept
// (plus what the kept ones use) and some nodes aliased to earlier equals.
TEST(Compact, InPlaceEqualsCopying) {
  std::mt19937_64 rng(1405);
  for (int round = 0; round < 200; ++round) {
    Program p = testing::random_program(rng);
    const std::size_t n = p.nodes.size();
    std::vector<bool> keep = passes::live_nodes(p);
    for (std::size_t i = 0; i < n; ++i)
      if (rng() % 2 == 0) keep[i] = true;
    // Keep every argument of a kept node (compact's precondition).
    for (std::size_t i = n; i-- > 0;)
      if (keep[i])
        for (NodeId a : p.nodes[i].args) keep[static_cast<std::size_t>(a)] = true;
    const std::vector<NodeId> alias = passes::identity_alias(p);
    Program copied = passes::compact(p, keep, alias);
    Program moved = passes::compact(Program(p), keep, alias);
    ASSERT_EQ(moved.nodes.size(), copied.nodes.size());
    EXPECT_TRUE(moved == copied) << "round " << round;
    EXPECT_TRUE(validate(moved).ok());
  }
}

}  // namespace
}  // namespace tc
