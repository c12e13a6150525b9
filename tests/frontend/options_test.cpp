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

}  // namespace
}  // namespace tc
