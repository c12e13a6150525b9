// The diff on random circuits (tests/emit/program_gen.h) and random edits
// of them: it always ends, pairs one to one, accounts for every node, is
// the same run after run, finds a program equal to itself, and finds the
// single edit that was made, for several hundred seeds. The artifact loader
// it reads from has its own fuzzer (fuzz/artifact_fuzz.cpp).
#include <gtest/gtest.h>

#include <random>

#include "diff/diff.h"
#include "diff/diff_report.h"
#include "emit/program_gen.h"

namespace tc {
namespace {

constexpr int kSeeds = 300;

Program random(std::uint64_t seed, int nodes = 60) {
  testgen::GenOptions o;
  o.nodes = nodes;
  o.seed = seed;
  return testgen::random_program(o);
}

/// `p` with a new unused node (an affine term of x0 no generated node has)
/// at position `at`: every later id
/// moves up by one, so nothing lines up by id any more.
Program insert_node(const Program& p, NodeId at) {
  Program q = p;
  auto moved = [&](NodeId id) { return id >= at ? id + 1 : id; };
  for (Node& n : q.nodes)
    for (NodeId& arg : n.args) arg = moved(arg);
  for (auto& [name, id] : q.outputs) id = moved(id);
  for (auto& [s, next] : q.updates) {
    s = moved(s);
    next = moved(next);
  }
  Node extra;
  extra.op = Op::Affine;
  extra.args = {0};
  extra.edit_linear().coefficients = {7.77};
  q.nodes.insert(q.nodes.begin() + at, extra);
  for (std::size_t i = 0; i < q.nodes.size(); ++i) q.nodes[i].id = static_cast<NodeId>(i);
  return q;
}

void expect_consistent(const Diff& d, const Program& a, const Program& b, const std::string& what) {
  SCOPED_TRACE(what);
  ASSERT_EQ(d.match.a_to_b.size(), a.nodes.size());
  ASSERT_EQ(d.match.b_to_a.size(), b.nodes.size());
  std::size_t paired = 0;
  for (std::size_t i = 0; i < a.nodes.size(); ++i) {
    const NodeId y = d.match.a_to_b[i];
    if (y < 0) continue;
    ++paired;
    ASSERT_LT(static_cast<std::size_t>(y), b.nodes.size());
    ASSERT_EQ(d.match.b_to_a[static_cast<std::size_t>(y)], static_cast<NodeId>(i));
  }
  EXPECT_EQ(d.unchanged + d.changed.size(), paired);
  EXPECT_EQ(paired + d.removed.size(), a.nodes.size());
  EXPECT_EQ(paired + d.added.size(), b.nodes.size());
  // Both forms print whatever the pairing is.
  EXPECT_FALSE(diff_to_text(d, a, b).empty());
  EXPECT_EQ(diff_to_json(d, a, b)["summary"]["added"], d.added.size());
}

Diff diff_of(const Program& a, const Program& b) {
  auto d = diff_programs(a, b);
  EXPECT_TRUE(d.ok()) << d.error().message;
  return std::move(d.value());
}

TEST(DiffRobustness, EveryProgramEqualsItself) {
  for (int seed = 1; seed <= kSeeds; ++seed) {
    const Program p = random(static_cast<std::uint64_t>(seed));
    ASSERT_TRUE(validate(p).ok());
    Diff d = diff_of(p, p);
    ASSERT_TRUE(d.same()) << "seed " << seed << "\n" << diff_to_text(d, p, p);
    expect_consistent(d, p, p, "seed " + std::to_string(seed));
  }
}

TEST(DiffRobustness, UnrelatedProgramsStillAccountForEveryNode) {
  for (int seed = 1; seed <= kSeeds; ++seed) {
    const Program a = random(static_cast<std::uint64_t>(seed), 40);
    const Program b = random(static_cast<std::uint64_t>(seed) + 7919, 70);
    Diff d = diff_of(a, b);
    expect_consistent(d, a, b, "seed " + std::to_string(seed));
    Diff again = diff_of(a, b);
    ASSERT_EQ(d.match.a_to_b, again.match.a_to_b) << "seed " << seed;
    EXPECT_EQ(diff_to_json(d, a, b).dump(), diff_to_json(again, a, b).dump());
  }
}

TEST(DiffRobustness, AnInsertedNodeIsTheOnlyAddition) {
  std::mt19937_64 rng(5);
  for (int seed = 1; seed <= kSeeds; ++seed) {
    const Program a = random(static_cast<std::uint64_t>(seed));
    const auto at = static_cast<NodeId>(std::uniform_int_distribution<std::size_t>(1, a.nodes.size())(rng));
    const Program b = insert_node(a, at);
    ASSERT_TRUE(validate(b).ok()) << "seed " << seed;
    Diff d = diff_of(a, b);
    expect_consistent(d, a, b, "seed " + std::to_string(seed));
    ASSERT_EQ(d.added, std::vector<NodeId>{at}) << "seed " << seed << "\n" << diff_to_text(d, a, b);
    EXPECT_TRUE(d.changed.empty()) << "seed " << seed << "\n" << diff_to_text(d, a, b);
    EXPECT_TRUE(d.removed.empty()) << "seed " << seed;
  }
}

TEST(DiffRobustness, AnEditedConstantIsTheOnlyChange) {
  for (int seed = 1; seed <= kSeeds; ++seed) {
    const Program a = random(static_cast<std::uint64_t>(seed));
    Program b = a;
    const auto constants = b.nodes_of(Op::Constant);
    if (constants.empty()) continue;
    const NodeId edited = constants[static_cast<std::size_t>(seed) % constants.size()];
    b.nodes[static_cast<std::size_t>(edited)].value = 1234.5;  // a value no generated constant has
    Diff d = diff_of(a, b);
    expect_consistent(d, a, b, "seed " + std::to_string(seed));
    ASSERT_EQ(d.changed.size(), 1u) << "seed " << seed << "\n" << diff_to_text(d, a, b);
    EXPECT_EQ(d.changed[0].b, edited);
    EXPECT_EQ(d.changed[0].fields, unsigned{kFieldValue});
    EXPECT_TRUE(d.added.empty() && d.removed.empty()) << "seed " << seed << "\n" << diff_to_text(d, a, b);
  }
}

TEST(DiffRobustness, ValuesOfEqualProgramsAgreeOnEveryCase) {
  for (int seed = 1; seed <= 40; ++seed) {
    const Program p = random(static_cast<std::uint64_t>(seed));
    const auto cols = testgen::random_cases(p, 64, static_cast<std::uint64_t>(seed));
    DiffCases cases;
    for (NodeId id : p.nodes_of(Op::Input)) cases.names.push_back(p.nodes[static_cast<std::size_t>(id)].name);
    cases.columns = cols;
    cases.count = 64;
    DiffOptions o;
    o.cases = &cases;
    auto d = diff_programs(p, insert_node(p, 3), o);
    ASSERT_TRUE(d.ok()) << d.error().message;
    for (const OutputItem& out : d->outputs) EXPECT_EQ(out.differing, 0u) << "seed " << seed << " " << out.name;
    EXPECT_TRUE(d->same_values());
    EXPECT_FALSE(d->same_structure());
  }
}

}  // namespace
}  // namespace tc
