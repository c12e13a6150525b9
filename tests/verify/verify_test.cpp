// The comparison rule and the verify loop, with Builder-made circuits against
// C++ and circuit references (no CPython involved here).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ir/builder.h"
#include "ir/kernels.h"
#include "verify/verify.h"
#include "support/examples.h"

namespace tc {
namespace {

Program build(Builder& b, Arg result) {
  auto p = b.build(result);
  EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.error().message);
  return p.value();
}

using examples::choose;  // choose(a) = 10 if a > 4 else 12 over int32 [-128, 127]

Outcome value(double v) { return Outcome{false, {}, {{"result", v}}}; }

std::unique_ptr<Reference> python_like_choose(double threshold = 4) {
  return make_function_reference([threshold](const std::vector<double>& v) { return value(v[0] > threshold ? 10 : 12); },
                                 "choose in c++");
}

TEST(Compare, ToleranceRule) {
  EXPECT_TRUE(within_tolerance(1.0, 1.0, {}));
  EXPECT_TRUE(within_tolerance(-0.0, 0.0, {}));
  EXPECT_FALSE(within_tolerance(1.0, std::nextafter(1.0, 2.0), {}));  // atol = rtol = 0: bit-exact values
  EXPECT_TRUE(within_tolerance(1.5, 1.0, {0.5, 0}));
  EXPECT_FALSE(within_tolerance(1.5000001, 1.0, {0.5, 0}));
  EXPECT_TRUE(within_tolerance(110, 100, {0, 0.1}));   // relative to the reference value b
  EXPECT_FALSE(within_tolerance(100, 110, {0, 0.05}));  // |100-110| = 10 > 0.05*110 = 5.5
  EXPECT_TRUE(within_tolerance(100, 110, {0, 0.1}));   // 10 <= 11
  EXPECT_TRUE(within_tolerance(3, 1, {1, 1}));         // 2 <= 1 + 1*1
  EXPECT_FALSE(within_tolerance(3.1, 1, {1, 1}));
  double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_FALSE(within_tolerance(nan, nan, {1e300, 1e300}));
}

// A raise node's failure agrees only with the same exception class; other
// failures (a division by zero) agree with any exception, as before.
TEST(Compare, ARaiseAgreesWithTheSameExceptionClassOnly) {
  const Outcome raised =
      Outcome::failure("node 4 (raise 'ValueError: x is negative') at line 3, column 9: raised ValueError: x is negative");
  EXPECT_EQ(raised_type(raised.error), "ValueError");
  EXPECT_EQ(raised_type("raised AssertionError"), "AssertionError");
  EXPECT_EQ(raised_type("node 3 (div): division by zero"), "");
  EXPECT_TRUE(same_exception(raised, Outcome::failure("ValueError: x is negative")));
  EXPECT_TRUE(same_exception(raised, Outcome::failure("ValueError")));
  EXPECT_FALSE(same_exception(raised, Outcome::failure("TypeError: x is negative")));
  EXPECT_FALSE(same_exception(raised, Outcome::failure("ValueErrorX: no")));
  EXPECT_FALSE(same_exception(raised, Outcome::failure("node 7 (div) at line 2, column 5: division by zero")));
  EXPECT_TRUE(same_exception(raised, Outcome::failure("node 2 (raise 'ValueError') at line 1, column 1: raised ValueError")));
  const Outcome div = Outcome::failure("node 3 (div): division by zero");
  EXPECT_TRUE(same_exception(div, Outcome::failure("TypeError: whatever")));
  EXPECT_TRUE(same_exception(raised, value(1)));  // not both raising: outcomes_agree decides
}

TEST(Compare, BothRaisingAgreesAndNonFiniteReferenceRaises) {
  Outcome boom = Outcome::failure("node 3 (div): division by zero");
  Outcome zero_div = Outcome::failure("ZeroDivisionError: division by zero");
  EXPECT_TRUE(outcomes_agree(boom, zero_div, {}));
  EXPECT_FALSE(outcomes_agree(boom, value(1), {1e9, 1e9}));
  EXPECT_FALSE(outcomes_agree(value(1), zero_div, {1e9, 1e9}));

  Outcome inf = normalize_reference(value(std::numeric_limits<double>::infinity()));
  EXPECT_TRUE(inf.raised);
  EXPECT_NE(inf.error.find("inf"), std::string::npos);
  EXPECT_TRUE(outcomes_agree(boom, inf, {}));
  EXPECT_TRUE(normalize_reference(value(std::nan(""))).raised);
  EXPECT_FALSE(normalize_reference(value(2)).raised);
}

TEST(Compare, OutputsAreMatchedByName) {
  Outcome a{false, {}, {{"result[0]", 1}, {"result[1]", 2}}};
  Outcome b{false, {}, {{"result[1]", 2}, {"result[0]", 1}}};
  Outcome c{false, {}, {{"result[0]", 1}}};
  Outcome d{false, {}, {{"result[0]", 1}, {"other", 2}}};
  EXPECT_TRUE(outcomes_agree(a, b, {}));
  EXPECT_FALSE(outcomes_agree(a, c, {}));
  EXPECT_FALSE(outcomes_agree(a, d, {}));
}

TEST(Verify, ChooseIsExhaustiveOver256Cases) {
  Program p = choose();
  auto ref = python_like_choose();
  auto r = verify(p, *ref);
  ASSERT_TRUE(r) << r.error().format();
  EXPECT_EQ(r->cases, 256u);
  EXPECT_TRUE(r->exhaustive);
  EXPECT_TRUE(r->passed);
  EXPECT_TRUE(r->mismatches.empty());
  EXPECT_EQ(report_to_json(*r).dump(), R"({"cases":256,"exhaustive":true,"passed":true,"mismatches":[]})");
}

TEST(Verify, ReportsTheFirstTenMismatchesInCaseOrderAndCountsAll) {
  Program p = choose();
  auto ref = python_like_choose(20);  // disagrees for a in 5..20: 16 cases
  VerifyOptions o;
  o.block = 7;  // mismatches straddle blocks
  auto r = verify(p, *ref, o);
  ASSERT_TRUE(r) << r.error().format();
  EXPECT_FALSE(r->passed);
  EXPECT_EQ(r->mismatch_count, 16u);
  ASSERT_EQ(r->mismatches.size(), 10u);
  for (std::size_t i = 0; i < 10; ++i) {
    const Mismatch& m = r->mismatches[i];
    ASSERT_EQ(m.inputs.size(), 1u);
    EXPECT_EQ(m.inputs[0].first, "a");
    EXPECT_EQ(m.inputs[0].second, 5.0 + static_cast<double>(i));
    EXPECT_EQ(m.circuit, value(10));
    EXPECT_EQ(m.reference, value(12));
  }
  EXPECT_EQ(report_to_json(*r)["mismatches"][0].dump(),
            R"({"inputs":{"a":5},"circuit":{"result":10},"reference":{"result":12}})");
  o.max_reported = 3;
  r = verify(p, *ref, o);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->mismatches.size(), 3u);
}

TEST(Verify, BothRaisingCasesAgree) {
  // 12 / a raises at a = 0 on both sides.
  Builder b;
  auto a = b.input("a", Domain::int32(-3, 3));
  Program p = build(b, 12 / a);
  auto ref = make_function_reference(
      [](const std::vector<double>& v) {
        if (v[0] == 0) return Outcome::failure("ZeroDivisionError: division by zero");
        return value(12 / v[0]);
      },
      "c++");
  auto r = verify(p, *ref);
  ASSERT_TRUE(r) << r.error().format();
  EXPECT_TRUE(r->passed);
  EXPECT_EQ(r->cases, 7u);

  // A reference that does not raise at 0 disagrees there, and the report
  // carries the circuit's error message.
  auto lenient = make_function_reference(
      [](const std::vector<double>& v) { return value(v[0] == 0 ? 0 : 12 / v[0]); }, "c++");
  r = verify(p, *lenient);
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->passed);
  ASSERT_EQ(r->mismatches.size(), 1u);
  EXPECT_EQ(r->mismatches[0].inputs[0].second, 0.0);
  EXPECT_TRUE(r->mismatches[0].circuit.raised);
  EXPECT_NE(r->mismatches[0].circuit.error.find("div"), std::string::npos) << r->mismatches[0].circuit.error;
  auto j = report_to_json(*r)["mismatches"][0];
  EXPECT_TRUE(j["circuit"].contains("error"));
  EXPECT_EQ(j["reference"].dump(), R"({"result":0})");
}

TEST(Verify, ToleranceAppliesToFloatingSamples) {
  Builder b;
  auto x = b.input("x", Domain::float64(-10, 10));
  Program p = build(b, x * 0.1);
  auto ref = make_function_reference([](const std::vector<double>& v) { return value(v[0] / 10); }, "c++");
  VerifyOptions o;
  o.samples = 500;
  auto exact = verify(p, *ref, o);
  ASSERT_TRUE(exact);
  EXPECT_FALSE(exact->exhaustive);
  EXPECT_EQ(exact->cases, 500u);
  EXPECT_FALSE(exact->passed) << "x*0.1 and x/10 differ in the last bit for some x";
  o.tolerance = {0, 1e-15};
  auto loose = verify(p, *ref, o);
  ASSERT_TRUE(loose);
  EXPECT_TRUE(loose->passed);
}

TEST(Verify, SuppliedCasesAreUsedForFloatingInputs) {
  Builder b;
  auto x = b.input("x", Domain::float64(-10, 10));
  Program p = build(b, b.relu(x));
  std::vector<double> seen;
  auto ref = make_function_reference(
      [&seen](const std::vector<double>& v) {
        seen.push_back(v[0]);
        return value(kernels::relu(v[0]));
      },
      "c++");
  VerifyOptions o;
  auto cases = parse_cases_jsonl("{\"x\": -2}\n{\"x\": 3.5}\n", program_inputs(p));
  ASSERT_TRUE(cases);
  o.cases = *cases;
  auto r = verify(p, *ref, o);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->cases, 2u);
  EXPECT_FALSE(r->exhaustive);
  EXPECT_TRUE(r->passed);
  EXPECT_EQ(seen, (std::vector<double>{-2, 3.5}));
}

TEST(Verify, ArrayOutputsAreMatchedByName) {
  Builder b;
  auto a = b.input("a", Domain::int32(0, 5));
  auto p = b.build({{"result[0]", a + 1}, {"result[1]", a * 2}});
  ASSERT_TRUE(p);
  auto ref = make_function_reference(
      [](const std::vector<double>& v) { return Outcome{false, {}, {{"result[1]", v[0] * 2}, {"result[0]", v[0] + 1}}}; },
      "c++");
  auto r = verify(*p, *ref);
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->passed);
  auto swapped = make_function_reference(
      [](const std::vector<double>& v) { return Outcome{false, {}, {{"result[0]", v[0] * 2}, {"result[1]", v[0] + 1}}}; },
      "c++");
  r = verify(*p, *swapped);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->mismatch_count, 5u);  // they agree only at a = 1
}

TEST(Verify, CircuitReference) {
  Program p = choose();
  Builder b;
  auto a = b.input("a", Domain::int32(-128, 127));
  Program same = build(b, b.select(a >= 5, 10, 12));
  auto ref = make_program_reference(same);
  ASSERT_TRUE(ref);
  auto r = verify(p, **ref);
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->passed);
  EXPECT_EQ(r->cases, 256u);
}

TEST(Verify, CallNodesNeedBindings) {
  Builder b;
  auto a = b.input("a", Domain::int32(0, 9));
  Program p = build(b, b.call("square", {a}));
  auto ref = make_function_reference([](const std::vector<double>& v) { return value(v[0] * v[0]); }, "c++");
  auto unbound = verify(p, *ref);
  ASSERT_FALSE(unbound);
  EXPECT_NE(unbound.error().message.find("square"), std::string::npos) << unbound.error().message;

  Bindings bindings;
  bindings["square"].forward = [](std::span<const double> x) { return x[0] * x[0]; };
  VerifyOptions o;
  o.eval.bindings = &bindings;
  auto bound = verify(p, *ref, o);
  ASSERT_TRUE(bound) << bound.error().format();
  EXPECT_TRUE(bound->passed);
  EXPECT_EQ(bound->cases, 10u);
}

TEST(Verify, CircuitReferenceMustHaveTheSameInputs) {
  Program p = choose();
  Builder b;
  auto x = b.input("x", Domain::int32(-128, 127));
  Program other = build(b, x + 0);
  auto ref = make_program_reference(other);
  ASSERT_TRUE(ref);
  auto r = verify(p, **ref);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("inputs differ"), std::string::npos) << r.error().message;
}

class CountingProgress : public Progress {
 public:
  void update(std::uint64_t done, std::uint64_t total, std::string_view what) override {
    last_done = done;
    last_total = total;
    EXPECT_EQ(what, "cases");
    ++updates;
  }
  bool cancelled() const override { return updates >= cancel_after; }
  std::uint64_t last_done = 0, last_total = 0;
  int updates = 0;
  int cancel_after = 1 << 30;
};

TEST(Verify, ReportsProgressAndStopsWhenCancelled) {
  Program p = choose();
  auto ref = python_like_choose();
  CountingProgress progress;
  VerifyOptions o;
  o.block = 32;
  o.progress = &progress;
  auto r = verify(p, *ref, o);
  ASSERT_TRUE(r);
  EXPECT_EQ(progress.last_done, 256u);
  EXPECT_EQ(progress.last_total, 256u);
  EXPECT_EQ(progress.updates, 1 + 256 / 32);

  CountingProgress cancel;
  cancel.cancel_after = 3;
  o.progress = &cancel;
  r = verify(p, *ref, o);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, "cancelled");
  EXPECT_LT(cancel.last_done, 256u);
}

TEST(Verify, RequireExhaustiveRefusesFloatingDomains) {
  Builder b;
  auto x = b.input("x", Domain::float64(0, 1));
  Program p = build(b, x + 1);
  auto ref = make_function_reference([](const std::vector<double>& v) { return value(v[0] + 1); }, "c++");
  VerifyOptions o;
  o.require_exhaustive = true;
  auto r = verify(p, *ref, o);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("cannot be enumerated"), std::string::npos) << r.error().message;
}

TEST(Verify, ProgramWithoutInputsHasOneCase) {
  Builder b;
  Program p = build(b, b.constant(3) * 2);
  auto ref = make_function_reference([](const std::vector<double>&) { return value(6); }, "c++");
  auto r = verify(p, *ref);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->cases, 1u);
  EXPECT_TRUE(r->exhaustive);
  EXPECT_TRUE(r->passed);
}

}  // namespace
}  // namespace tc
