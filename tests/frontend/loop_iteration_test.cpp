// The loop iteration path the frontend records on the nodes it expands from
// `for ... in range(...)` loops (outermost loop first).
#include <gtest/gtest.h>

#include <ostream>
#include <set>
#include <utility>

#include "frontend_util.h"
#include "ir/artifact.h"

namespace tc {

void PrintTo(const LoopStep& step, std::ostream* os) { *os << step.variable << "=" << step.value; }

namespace {

using test::compile_text;

using Path = std::vector<LoopStep>;

TEST(LoopIteration, NestedLoopsStampEveryNodeWithItsIterations) {
  const char* src =
      "def f(a):\n"
      "    t = 0\n"
      "    for i in range(2):\n"
      "        for j in range(3):\n"
      "            t = t + a * 5\n"
      "            if i == 1:\n"
      "                t = t - a * 7\n"
      "    return t\n";
  auto c = compile_text(src, {"a=int32:-10:10"});
  ASSERT_TRUE(c.ok()) << c.error().format();
  const Program& p = c->program;
  std::set<std::pair<std::int64_t, std::int64_t>> body_iterations;
  int checked = 0;
  for (const Node& n : p.nodes) {
    SCOPED_TRACE(describe_node(p, n.id));
    if (n.op == Op::Input) {
      EXPECT_TRUE(n.iteration.empty()) << "the parameter is outside every loop";
      continue;
    }
    ASSERT_TRUE(n.location.has_value());
    if (n.op == Op::Constant && n.value == 5) {
      EXPECT_TRUE(n.iteration.empty()) << "shared by all six iterations, so it belongs to none";
    } else if (n.op == Op::Constant && n.value == 7) {
      EXPECT_EQ(n.iteration, (Path{{"i", 1}})) << "shared by the three inner iterations of i=1 only";
    } else if (n.op == Op::Mul) {
      ASSERT_EQ(n.iteration.size(), 2u);
      EXPECT_EQ(n.iteration[0].variable, "i");
      EXPECT_EQ(n.iteration[1].variable, "j");
      if (n.location->line == 5) body_iterations.emplace(n.iteration[0].value, n.iteration[1].value);
      if (n.location->line == 7) EXPECT_EQ(n.iteration[0].value, 1);
      ++checked;
    }
  }
  EXPECT_EQ(checked, 9) << "six products on line 5, three on line 7";
  EXPECT_EQ(body_iterations, (std::set<std::pair<std::int64_t, std::int64_t>>{
                                 {0, 0}, {0, 1}, {0, 2}, {1, 0}, {1, 1}, {1, 2}}));
}

TEST(LoopIteration, RangeStartAndStepGiveTheVariablesValues) {
  auto c = compile_text(
      "def f(a):\n"
      "    t = a\n"
      "    for k in range(10, 4, -3):\n"
      "        t = t * a + k\n"
      "    return t\n",
      {"a=int32:-3:3"});
  ASSERT_TRUE(c.ok()) << c.error().format();
  std::set<std::int64_t> seen;
  for (const Node& n : c->program.nodes)
    if (n.op == Op::Mul) {
      ASSERT_EQ(n.iteration.size(), 1u);
      EXPECT_EQ(n.iteration[0].variable, "k");
      seen.insert(n.iteration[0].value);
    }
  EXPECT_EQ(seen, (std::set<std::int64_t>{10, 7}));
}

TEST(LoopIteration, ProgramsWithoutRangeLoopsHaveNone) {
  auto c = compile_text(
      "def f(a):\n"
      "    t = 0\n"
      "    for v in [a, a * 2]:\n"
      "        t = t + v\n"
      "    return t if a > 0 else -t\n",
      {"a=int32:-10:10"});
  ASSERT_TRUE(c.ok()) << c.error().format();
  for (const Node& n : c->program.nodes) EXPECT_TRUE(n.iteration.empty()) << describe_node(c->program, n.id);
}

TEST(LoopIteration, SavedInTheArtifactAndReadBack) {
  auto c = compile_text(
      "def f(a):\n"
      "    for i in range(3):\n"
      "        a = a * a - i\n"
      "    return a\n",
      {"a=float64:-1:1"});
  ASSERT_TRUE(c.ok()) << c.error().format();
  std::string text = save_artifact(c->program);
  EXPECT_NE(text.find("\"iteration\""), std::string::npos) << text;
  auto back = load_artifact(text);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(*back, c->program);
}

// The builder stamps one shared path object per iteration, and the loader
// shares the paths of neighbouring nodes again, instead of a copy per node.
TEST(LoopIteration, NodesOfOneIterationShareOnePath) {
  auto c = compile_text(
      "def f(a):\n"
      "    s = 0\n"
      "    for i in range(3):\n"
      "        s = s * a - i\n"
      "    return s\n",
      {"a=int32:-9:9"});
  ASSERT_TRUE(c.ok()) << c.error().format();
  auto distinct_paths = [](const Program& p) {
    std::set<const LoopStep*> seen;
    for (const Node& n : p.nodes)
      if (!n.iteration.empty()) seen.insert(&n.iteration.front());
    return seen.size();
  };
  EXPECT_EQ(distinct_paths(c->program), 3u);
  auto back = load_artifact(save_artifact(c->program));
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(*back, c->program);
  EXPECT_EQ(distinct_paths(*back), 3u);
}

}  // namespace
}  // namespace tc
