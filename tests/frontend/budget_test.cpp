// Budgets at their edges: expanded iterations, nodes, list lengths, node
// arguments and source size, each failing fast with a located message.
#include <gtest/gtest.h>

#include <cmath>

#include "lower_util.h"

namespace tc {
namespace {

using test::compile_text;
using test::evaluate;
using test::Outcome;
using test::result;
using test::loop_source;
using test::run;


TEST(Budget, IterationsDefaultEdge) {
  EXPECT_TRUE(compile_text(loop_source(1024), {"a=int32:0:3"}).ok());
  auto r = compile_text(loop_source(1025), {"a=int32:0:3"});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("iteration budget of 1024"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("--max-iterations"), std::string::npos);
  EXPECT_EQ(r.error().loc, (SourceLoc{3, 5}));
  EXPECT_EQ(r.error().code, DiagCode::IterationBudget);  // clients offer the setting by the code
}

TEST(Budget, TheIdeSpellsItsOwnSetting) {
  CompileOptions o;
  o.inputs = {{"a", Domain::int32(0, 3)}};
  o.hints = HintSpelling::Ide;
  o.max_nodes = 20;
  auto r = compile_python(loop_source(100), o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, DiagCode::NodeBudget);
  EXPECT_NE(r.error().message.find("Max nodes setting (Program > Compile Options)"), std::string::npos)
      << r.error().message;
  EXPECT_EQ(r.error().message.find("--max"), std::string::npos);
}

TEST(Budget, NestedLoopsCountEveryExpansion) {
  // 32 outer + 32 * 31 inner = 1024 expansions; one more inner step is 1056.
  auto nest = [](int inner) {
    return "def f(a):\n    s = 0\n    for i in range(32):\n        for j in range(" + std::to_string(inner) +
           "):\n            s = s + a\n    return s\n";
  };
  EXPECT_TRUE(compile_text(nest(31), {"a=int32:0:3"}).ok());
  EXPECT_FALSE(compile_text(nest(32), {"a=int32:0:3"}).ok());
}

TEST(Budget, IterationsConfigurable) {
  CompileOptions o;
  o.inputs = {{"a", Domain::int32(0, 3)}};
  o.max_iterations = 2000;
  EXPECT_TRUE(compile_python(loop_source(2000), o).ok());
  EXPECT_FALSE(compile_python(loop_source(2001), o).ok());
}

TEST(Budget, UnconditionalExitStopsExpansion) {
  EXPECT_TRUE(compile_text("def f(a):\n    for i in range(100000):\n        return a + i\n    return 0\n",
                           {"a=int32:0:3"})
                  .ok());
}

TEST(Budget, NodesEdge) {
  // input, constant 1, add: three nodes.
  CompileOptions o;
  o.inputs = {{"a", Domain::int32(0, 3)}};
  o.max_nodes = 3;
  EXPECT_TRUE(compile_python("def f(a):\n    return a + 1\n", o).ok());
  o.max_nodes = 2;
  auto r = compile_python("def f(a):\n    return a + 1\n", o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("node budget"), std::string::npos);
  EXPECT_NE(r.error().message.find("--max-nodes"), std::string::npos);
}

// Issue 13, defect 4: each of these grew memory for seconds before failing.
TEST(Budget, DoublingAListFailsAtTheBudget) {
  auto r = compile_text("def f(a):\n    x = [a]\n    for i in range(40):\n        x = x + x\n    return x[0]\n",
                        {"a=int32:0:3"});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("more than the node budget of 100000"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("--max-nodes"), std::string::npos);
  EXPECT_EQ(r.error().loc, (SourceLoc{4, 13}));
}

TEST(Budget, RepeatingAListIsCheckedBeforeItIsBuilt) {
  auto r = compile_text("def f(a):\n    x = [[a, a]] * 60000\n    return x[0][0]\n", {"a=int32:0:3"});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("larger than the node budget"), std::string::npos) << r.error().message;
  EXPECT_EQ(r.error().loc, (SourceLoc{2, 9}));
  EXPECT_TRUE(compile_text("def f(a):\n    return [a] * 100000\n", {"a=int32:0:3"}).ok());
  EXPECT_TRUE(compile_text("def f(a):\n    x = [] * 1000000000000\n    return a\n", {"a=int32:0:3"}).ok());
}

TEST(Budget, GatherArgumentsAreCounted) {
  // 1,000 run-time indexings of a 90,000-element list: 90 million arguments
  // in only 1,000 gather nodes.
  std::string src = "def f(a, i):\n    t = [a] * 90000\n    s = 0\n";
  for (int k = 0; k < 1000; ++k) src += "    s = s + t[i + " + std::to_string(k) + "]\n";
  src += "    return s\n";
  auto r = compile_text(src, {"a=int32:0:3", "i=int32:0:10"});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("more than 800000 node arguments"), std::string::npos) << r.error().message;
  ASSERT_TRUE(r.error().loc.has_value());
  EXPECT_EQ(r.error().loc->line, 12) << "the ninth indexing passes 8 x 100,000 arguments";
  CompileOptions o;
  o.inputs = {{"a", Domain::int32(0, 3)}, {"i", Domain::int32(0, 10)}};
  o.max_nodes = 2'000'000;
  EXPECT_TRUE(compile_python("def f(a, i):\n    t = [a] * 90000\n    return t[i] + t[i + 1] + t[i + 2]\n", o).ok());
}

TEST(Budget, OversizedSourceFailsBeforeParsing) {
  std::string src = "def f(a):\n    return a\n";
  while (src.size() <= (std::size_t(4) << 20)) src += "# " + std::string(98, 'x') + "\n";
  auto r = compile_text(src, {"a=int32:0:3"});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("4 MiB limit"), std::string::npos) << r.error().message;
  ASSERT_TRUE(r.error().loc.has_value());
  EXPECT_GT(r.error().loc->line, 40000);
}

}  // namespace
}  // namespace tc
