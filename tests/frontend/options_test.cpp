// Compile options: policy, dtype and function selection reach the program.
#include <gtest/gtest.h>

#include <cmath>

#include "lower_util.h"

namespace tc {
namespace {

using test::compile_text;
using test::evaluate;
using test::Outcome;
using test::result;
using test::run;

TEST(Options, PolicyAndDtypeReachTheProgram) {
  CompileOptions o;
  o.inputs = {{"x", Domain::float64(-1, 1)}};
  o.semantics = Semantics::Hybrid;
  o.temperature = 0.5;
  o.dtype = Dtype::Float32;
  auto c = compile_python("def f(x):\n    return x\n", o);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->program.semantics, Semantics::Hybrid);
  EXPECT_EQ(c->program.temperature, 0.5);
  EXPECT_EQ(c->program.dtype, Dtype::Float32);
  EXPECT_TRUE(c->program.nodes[0].differentiable);
}

TEST(Options, FunctionSelection) {
  const char* src = "def f(a):\n    return a\n\ndef g(a):\n    return a + 1\n";
  EXPECT_FALSE(compile_text(src, {"a=int32:0:3"}).ok());
  auto c = compile_text(src, {"a=int32:0:3"}, "g");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->program.nodes.back().op, Op::Add);
}

// Issue 37 item 3: from a node budget of 2^61 the argument budget (8 per
// node) wrapped to 0 and every program "needed more than 0 node arguments".
// Clients refuse such budgets (options/option_table.h); a C++ caller that
// sets one gets the largest argument budget instead of a wrapped one.
TEST(Options, AHugeNodeBudgetDoesNotWrapTheArgumentBudget) {
  for (std::size_t nodes : {std::size_t(1) << 61, static_cast<std::size_t>(-1)}) {
    CompileOptions o;
    o.inputs = {{"a", Domain::float64(-1, 1)}};
    o.max_nodes = nodes;
    auto c = compile_python("def f(a):\n    s = a\n    for i in range(50):\n        s = s * a + 1\n    return s\n", o);
    EXPECT_TRUE(c.ok()) << nodes << ": " << c.error().message;
  }
}

}  // namespace
}  // namespace tc
