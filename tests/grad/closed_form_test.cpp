// Every computing op's value and gradient under every semantics, against the
// hand-derived closed forms in tests/data/grad/closed_form.json.
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "grad/gradients.h"
#include "ir/builder.h"

namespace tc {
namespace {

nlohmann::json load_cases() {
  std::ifstream in(std::string(TC_TEST_DATA) + "/grad/closed_form.json");
  EXPECT_TRUE(in.good());
  std::stringstream ss;
  ss << in.rdbuf();
  return nlohmann::json::parse(ss.str())["cases"];
}

bool close(double got, double want) { return std::fabs(got - want) <= 1e-13 * std::max(1.0, std::fabs(want)); }

/// Builds one op over inputs x0..x{n-1} and differentiates it.
Result<GradResult> run_case(const nlohmann::json& c) {
  Semantics sem = *semantics_from(c["semantics"].get<std::string>());
  Builder b(sem, Surrogate::Sigmoid, c["temperature"].get<double>());
  std::vector<Arg> xs;
  Env env;
  const auto& args = c["args"];
  for (std::size_t k = 0; k < args.size(); ++k) {
    std::string name = "x" + std::to_string(k);
    xs.emplace_back(b.input(name, Domain::float64()));
    env.inputs[name] = args[k].get<double>();
  }
  const std::string op = c["op"];
  Value out;
  if (op == "affine") {
    out = b.affine(xs, c["coefficients"].get<std::vector<double>>(), c["bias"].get<double>());
  } else if (op == "sparse_affine") {
    out = b.sparse_affine(xs, c["indices"].get<std::vector<std::int32_t>>(), c["coefficients"].get<std::vector<double>>());
  } else if (op == "gather") {
    out = b.gather(std::vector<Arg>(xs.begin() + 1, xs.end()), xs[0]);
  } else if (op == "gather_one_hot") {
    const auto half = static_cast<std::ptrdiff_t>(xs.size() / 2);
    out = b.gather_one_hot(std::vector<Arg>(xs.begin(), xs.begin() + half), std::vector<Arg>(xs.begin() + half, xs.end()));
  } else if (op == "select") {
    out = b.select(xs[0], xs[1], xs[2]);
  } else {
    out = b.op(op, xs);
  }
  auto program = b.build(out);
  if (!program) return program.error();
  return gradients(*program, env);
}

TEST(GradClosedForm, EveryOpEverySemantics) {
  auto cases = load_cases();
  ASSERT_GT(cases.size(), 100u);
  for (const auto& c : cases) {
    SCOPED_TRACE(c.dump());
    auto r = run_case(c);
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_TRUE(close(r->result, c["result"].get<double>())) << "result " << r->result;
    const auto& want = c["gradients"];
    ASSERT_EQ(r->gradients.size(), want.size());
    for (std::size_t k = 0; k < want.size(); ++k) {
      EXPECT_EQ(r->gradients[k].first, "x" + std::to_string(k));
      EXPECT_TRUE(std::isfinite(r->gradients[k].second));
      EXPECT_TRUE(close(r->gradients[k].second, want[k].get<double>()))
          << "d/dx" << k << " = " << r->gradients[k].second << ", want " << want[k];
    }
  }
}

// A case that reaches a raise fails, as a division by zero does, and has
// no gradient; in exact semantics a case whose select takes the other
// branch differentiates that branch. Hybrid's derivative of the select's
// condition needs the value it did not choose (a - b), which a raise does
// not have: that case fails by the rule for any failing unchosen value
// (DiagCode::HybridNeedsUnchosen, naming the raise).
TEST(GradClosedForm, ARaiseFailsTheGradientOfTheCasesThatReachIt) {
  for (Semantics sem : {Semantics::Exact, Semantics::Hybrid}) {
    SCOPED_TRACE(to_string(sem));
    Builder b(sem, Surrogate::Sigmoid, 1.0);
    Value x = b.input("x", Domain::float64());
    Value out = b.select(b.op("lt", x, b.constant(0)), b.raise("ValueError: x must not be negative"), x * x);
    auto program = b.build(out);
    ASSERT_TRUE(program.ok()) << program.error().message;
    Env at;
    at.inputs["x"] = 3.0;
    auto other = gradients(*program, at);
    if (sem == Semantics::Exact) {
      ASSERT_TRUE(other.ok()) << other.error().message;
      EXPECT_EQ(other->result, 9.0);
      EXPECT_EQ(other->gradients.at(0).second, 6.0);
    } else {
      ASSERT_FALSE(other.ok());
      EXPECT_EQ(other.error().code, DiagCode::HybridNeedsUnchosen);
      EXPECT_NE(other.error().message.find("raised ValueError"), std::string::npos) << other.error().message;
    }
    at.inputs["x"] = -1.0;
    auto failed = gradients(*program, at);
    ASSERT_FALSE(failed.ok());
    EXPECT_NE(failed.error().message.find("raised ValueError: x must not be negative"), std::string::npos)
        << failed.error().message;
  }
}

// A new op in ops.def must come with closed-form cases in all three semantics.
TEST(GradClosedForm, TableCoversEveryComputingOp) {
  std::set<std::pair<std::string, std::string>> seen;
  std::set<std::string> at_temperature_2;
  for (const auto& c : load_cases()) {
    seen.emplace(c["op"], c["semantics"]);
    if (c["temperature"].get<double>() == 2.0) at_temperature_2.insert(c["op"]);
  }
  for (int i = 0; i < kOpCount; ++i) {
    const Op op = static_cast<Op>(i);
    // Leaves and bindings: see gradients_test.cpp; a raise never has a
    // gradient (ARaiseFailsTheGradientOfTheCasesThatReachIt below).
    if (is_leaf(op) || op == Op::Call || op == Op::Raise) continue;
    for (const char* sem : {"exact", "relaxed", "hybrid"})
      EXPECT_TRUE(seen.count({std::string(op_name(op)), sem})) << op_name(op) << " under " << sem;
    EXPECT_TRUE(at_temperature_2.count(std::string(op_name(op)))) << op_name(op) << " at temperature 2";
  }
}

}  // namespace
}  // namespace tc
