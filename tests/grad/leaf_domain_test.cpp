// The tape's forward pass checks constant and parameter domains as the
// evaluator does (issue 13, defect 8): same verdicts, same messages.
#include <gtest/gtest.h>

#include "eval/evaluator.h"
#include "grad/gradients.h"
#include "ir/builder.h"

namespace tc {
namespace {

std::string tape_error(const Program& p, const Env& env) {
  auto tape = GradientTape::create(p);
  EXPECT_TRUE(tape.ok()) << (tape.ok() ? "" : tape.error().message);
  double out = 0;
  Status s = tape->forward(env, std::span<double>(&out, 1));
  return s.ok() ? "" : s.error().message;
}

std::string eval_error(const Program& p, const Env& env) {
  auto ev = Evaluator::create(p);
  EXPECT_TRUE(ev.ok());
  auto r = ev->run(env);
  return r.ok() ? "" : r.error().message;
}

TEST(GradLeafDomains, ConstantAndParameterDomainsMatchTheEvaluator) {
  for (Semantics sem : {Semantics::Hybrid, Semantics::Exact, Semantics::Relaxed}) {
    SCOPED_TRACE(std::string(to_string(sem)));
    Builder b(sem);
    Value x = b.input("x", Domain::float64(-5, 5));
    Value w = b.parameter("w", 1);
    b.set_domain(w, Domain::int32(0, 1));
    b.set_location(SourceLoc{4, 2});
    Value k = b.constant(4);
    b.set_domain(k, Domain::int32(0, 1));
    auto p = b.build(b.select(x > 0, x * w + k, x));
    ASSERT_TRUE(p.ok()) << p.error().message;
    Env env;
    env.inputs["x"] = 2;
    const std::string constant_error =
        sem == Semantics::Relaxed ? "" : "node 2 (constant) at line 4, column 2: value 4 is above the maximum 1 (domain int32:0:1)";
    EXPECT_EQ(tape_error(*p, env), constant_error);
    EXPECT_EQ(eval_error(*p, env), constant_error);
    env.params["w"] = 100;
    const std::string param_error = sem == Semantics::Relaxed ? "" : "parameter 'w': 100 is above the maximum 1";
    EXPECT_EQ(tape_error(*p, env), param_error);
    EXPECT_EQ(eval_error(*p, env), param_error);
  }
}

}  // namespace
}  // namespace tc
