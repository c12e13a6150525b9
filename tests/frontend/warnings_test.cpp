// Warnings: unused assignments and conditions that decide nothing.
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

TEST(Warnings, UnusedAssignments) {
  auto c = compile_text(
      "def f(a):\n    t = a * 2\n    x = 1\n    x = a\n    _ignored = a + 5\n    for i in range(3):\n"
      "        pass\n    return x\n",
      {"a=int32:0:3"});
  ASSERT_TRUE(c.ok()) << c.error().format();
  ASSERT_EQ(c->warnings.size(), 2u);
  EXPECT_EQ(c->warnings[0].severity, Severity::Warning);
  EXPECT_EQ(c->warnings[0].loc, (SourceLoc{2, 5}));
  EXPECT_NE(c->warnings[0].message.find("'t'"), std::string::npos);
  EXPECT_EQ(c->warnings[1].loc, (SourceLoc{3, 5}));
  EXPECT_EQ(c->warnings[0].file, "test.py");
  // The unused value is not part of the circuit.
  for (const Node& n : c->program.nodes) EXPECT_NE(n.op, Op::Mul);
}

TEST(Warnings, ValueReadOnlyByUnusedCodeIsUnused) {
  auto c = compile_text("def f(a):\n    y = a * 3\n    z = y + 1\n    return a\n", {"a=int32:0:3"});
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->warnings.size(), 2u);
}

TEST(Warnings, ConditionThatDecidesNothing) {
  auto c = compile_text("def f(a, b):\n    if 10 // b > a:\n        pass\n    if a > 1:\n        a = 0\n    return a\n",
                        {"a=int32:0:3", "b=int32:-2:2"});
  ASSERT_TRUE(c.ok());
  ASSERT_EQ(c->warnings.size(), 1u);
  EXPECT_EQ(c->warnings[0].loc, (SourceLoc{2, 8}));
  EXPECT_NE(c->warnings[0].message.find("not computed"), std::string::npos);
}

TEST(Warnings, LoopCarriedValuesAreUsed) {
  auto c = compile_text(loop_source(5), {"a=int32:0:3"});
  ASSERT_TRUE(c.ok());
  EXPECT_TRUE(c->warnings.empty()) << c->warnings[0].format();
}

}  // namespace
}  // namespace tc
