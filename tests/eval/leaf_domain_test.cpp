// Domains on constant and parameter nodes hold in exact and hybrid
// evaluation (issue 13, defect 8): a constant outside its domain fails the
// cases that evaluate it, a parameter outside its domain is refused on entry,
// in the scalar and the batched evaluator alike; relaxed nodes skip domains.
#include <gtest/gtest.h>

#include <span>
#include <vector>

#include "eval/evaluator.h"
#include "ir/builder.h"

namespace tc {
namespace {

/// f(x) = x + k with k = 4 under the domain int32:0:1; with `guarded` the
/// constant only feeds the branch taken when x > 0.
Program constant_program(Semantics sem, bool guarded) {
  Builder b(sem);
  Value x = b.input("x", Domain::int32(-5, 5));
  b.set_location(SourceLoc{2, 9});
  Value k = b.constant(4);
  b.set_domain(k, Domain::int32(0, 1));
  b.set_location(SourceLoc{3, 5});
  Value sum = x + k;
  auto p = guarded ? b.build(b.select(x > 0, sum, x)) : b.build(sum);
  EXPECT_TRUE(p.ok());
  return *p;
}

Program parameter_program(Semantics sem) {
  Builder b(sem);
  Value x = b.input("x", Domain::int32(-5, 5));
  Value w = b.parameter("w", 1);
  b.set_domain(w, Domain::int32(0, 1));
  auto p = b.build(x * w);
  EXPECT_TRUE(p.ok());
  return *p;
}

BatchResult batch(const Evaluator& ev, const std::vector<double>& xs, const Env& fixed = {}, Status* status = nullptr) {
  std::vector<std::span<const double>> cols{std::span<const double>(xs)};
  BatchResult out;
  Status s = ev.run_batch(cols, xs.size(), fixed, out);
  if (status) *status = s;
  else EXPECT_TRUE(s.ok());
  return out;
}

TEST(EvalLeafDomains, ConstantOutsideItsDomainFails) {
  for (Semantics sem : {Semantics::Exact, Semantics::Hybrid}) {
    auto ev = Evaluator::create(constant_program(sem, false));
    ASSERT_TRUE(ev.ok());
    Env env;
    env.inputs["x"] = 1;
    auto r = ev->run(env);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().message, "node 1 (constant) at line 2, column 9: value 4 is above the maximum 1 (domain int32:0:1)");
    EXPECT_EQ(r.error().node, 1);
    const BatchResult br = batch(*ev, {1, -2, 3});
    ASSERT_EQ(br.errors.size(), 3u);
    EXPECT_EQ(br.errors[0].second.message, r.error().message);
  }
}

TEST(EvalLeafDomains, ConstantOnlyFailsWhereItIsEvaluated) {
  auto ev = Evaluator::create(constant_program(Semantics::Exact, true));
  ASSERT_TRUE(ev.ok());
  Env env;
  env.inputs["x"] = -2;  // the select takes the other branch
  auto r = ev->run(env);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->outputs[0], -2);
  const BatchResult br = batch(*ev, {-2, 3, 0, 5});
  EXPECT_EQ(br.failed, (std::vector<std::uint8_t>{0, 1, 0, 1}));
  EXPECT_EQ(br.outputs[0][0], -2);
  EXPECT_EQ(br.outputs[0][2], 0);
}

TEST(EvalLeafDomains, RelaxedConstantSkipsItsDomain) {
  auto ev = Evaluator::create(constant_program(Semantics::Relaxed, false));
  ASSERT_TRUE(ev.ok());
  Env env;
  env.inputs["x"] = 1;
  auto r = ev->run(env);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->outputs[0], 5);
}

TEST(EvalLeafDomains, ParameterOutsideItsDomainIsRefused) {
  for (Semantics sem : {Semantics::Exact, Semantics::Hybrid}) {
    auto ev = Evaluator::create(parameter_program(sem));
    ASSERT_TRUE(ev.ok());
    Env env;
    env.inputs["x"] = 3;
    env.params["w"] = 100;
    auto r = ev->run(env);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().message, "parameter 'w': 100 is above the maximum 1");
    env.params["w"] = 0.5;
    r = ev->run(env);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().message, "parameter 'w': 0.5 is not an integer (int32 domain)");
    env.params["w"] = 1;
    r = ev->run(env);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->outputs[0], 3);
    Env fixed;
    fixed.params["w"] = 100;
    Status s = ok_status();
    batch(*ev, {1, 2}, fixed, &s);
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.error().message, "parameter 'w': 100 is above the maximum 1");
  }
  auto relaxed = Evaluator::create(parameter_program(Semantics::Relaxed));
  ASSERT_TRUE(relaxed.ok());
  Env env;
  env.inputs["x"] = 3;
  env.params["w"] = 100;
  EXPECT_TRUE(relaxed->run(env).ok());
}

}  // namespace
}  // namespace tc
