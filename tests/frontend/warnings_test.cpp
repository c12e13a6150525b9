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

// Issue 23 (smaller): a 50,000-name tuple assignment printed 49,999
// warnings (4 MB of stderr); after 100 the rest are one line.
TEST(Warnings, ManyUnusedAssignmentsEndInOneSummaryLine) {
  std::string names, values;
  for (int i = 0; i < 500; ++i) {
    names += (i ? ", v" : "v") + std::to_string(i);
    values += i ? ", 1" : "1";
  }
  auto c = compile_text("def f(a):\n    " + names + " = " + values + "\n    return a\n", {"a=int32:0:3"});
  ASSERT_TRUE(c.ok()) << c.error().format();
  ASSERT_EQ(c->warnings.size(), 101u);
  EXPECT_NE(c->warnings[99].message.find("'v99'"), std::string::npos) << c->warnings[99].message;
  EXPECT_EQ(c->warnings[100].message, "and 400 more assigned values that are never used, from here on");
  // Placed at the first name it stands for, v100, right after v99.
  ASSERT_TRUE(c->warnings[99].loc && c->warnings[100].loc);
  EXPECT_EQ(c->warnings[100].loc->line, 2);
  EXPECT_EQ(c->warnings[100].loc->column, c->warnings[99].loc->column + 5);
}

// A huge integer literal is quoted like other user text (120 bytes at most).
TEST(Warnings, AHugeIntegerLiteralIsQuotedShort) {
  auto c = compile_text("def f(a):\n    return a + " + std::string(4000, '9') + "\n", {"a=int32:0:3"});
  ASSERT_FALSE(c.ok());
  EXPECT_LT(c.error().message.size(), 300u) << c.error().message.size();
  EXPECT_NE(c.error().message.find("integer literal 999"), std::string::npos);
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
