// The CPython reference (worker processes): injected relu/sigmoid, exceptions as
// raising, return conventions, budgets against hanging code, isolation.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <chrono>
#include <thread>

#include "ir/builder.h"
#include "ir/kernels.h"
#include "verify/python_reference.h"

namespace tc {
namespace {

#ifndef TC_HAVE_PYTHON
TEST(PythonReference, UnavailableWithoutPython) {
  EXPECT_FALSE(python_reference_available());
  PythonReferenceOptions o;
  o.source = "def f(a):\n    return a\n";
  auto r = make_python_reference(o);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("TC_ENABLE_PYTHON"), std::string::npos);
}
#else

std::unique_ptr<Reference> load(const std::string& source, PythonReferenceOptions o = {}) {
  o.source = source;
  o.filename = "ref.py";
  auto r = make_python_reference(o);
  EXPECT_TRUE(r) << (r ? "" : r.error().format());
  return r ? std::move(*r) : nullptr;
}

Diagnostic load_error(const std::string& source, PythonReferenceOptions o = {}) {
  o.source = source;
  o.filename = "ref.py";
  auto r = make_python_reference(o);
  EXPECT_FALSE(r);
  return r ? Diagnostic{} : r.error();
}

/// Runs the reference on the given values of its inputs (one column each).
std::vector<Outcome> call(Reference& ref, const std::vector<CaseInput>& inputs,
                          const std::vector<std::vector<double>>& columns) {
  EXPECT_TRUE(ref.bind(inputs));
  std::vector<Outcome> out;
  Status s = ref.evaluate(columns, columns.empty() ? 1 : columns[0].size(), out, nullptr);
  EXPECT_TRUE(s) << (s ? "" : s.error().format());
  return out;
}

Outcome value(double v) { return Outcome{false, {}, {{"result", v}}}; }

PythonReferenceOptions pick(std::string function, std::string preferred = {}) {
  PythonReferenceOptions o;
  o.function = std::move(function);
  o.preferred_function = std::move(preferred);
  return o;
}

PythonReferenceOptions module(std::string source, std::string filename) {
  PythonReferenceOptions o;
  o.source = std::move(source);
  o.filename = std::move(filename);
  return o;
}

TEST(PythonReference, Starts) {
  std::string why;
  EXPECT_TRUE(python_reference_available(&why)) << why;
}

TEST(PythonReference, SigmoidAndReluMatchTheContractBitForBit) {
  auto ref = load("def f(x):\n    return sigmoid(x)\n\ndef g(x):\n    return relu(x)\n",
                  pick("f"));
  auto relu_ref = load("def f(x):\n    return sigmoid(x)\n\ndef g(x):\n    return relu(x)\n", pick("g"));
  std::vector<double> xs;
  for (double x = -750; x <= 750; x += 0.37) xs.push_back(x);
  for (double x : {0.0, -0.0, 1e-300, -1e-300, 36.7, -36.7, 709.7, -745.1}) xs.push_back(x);
  std::vector<CaseInput> in{{"x", Domain::float64()}};
  auto s = call(*ref, in, {xs});
  auto r = call(*relu_ref, in, {xs});
  ASSERT_EQ(s.size(), xs.size());
  for (std::size_t i = 0; i < xs.size(); ++i) {
    ASSERT_FALSE(s[i].raised) << xs[i] << " " << s[i].error;
    double want = kernels::sigmoid(xs[i]);
    EXPECT_EQ(std::memcmp(&s[i].outputs[0].second, &want, sizeof want), 0) << "sigmoid(" << xs[i] << ")";
    EXPECT_EQ(r[i].outputs[0].second, kernels::relu(xs[i])) << "relu(" << xs[i] << ")";
  }
}

TEST(PythonReference, VerifiesACircuitExactlyAgainstTheSameFormula) {
  Builder b;
  auto x = b.input("x", Domain::float64(-40, 40));
  auto p = b.build(b.sigmoid(x * 3 - 1) + b.relu(x));
  ASSERT_TRUE(p);
  auto ref = load("def f(x):\n    return sigmoid(x * 3 - 1) + relu(x)\n");
  VerifyOptions o;
  o.samples = 2000;
  auto r = verify(*p, *ref, o);
  ASSERT_TRUE(r) << r.error().format();
  EXPECT_TRUE(r->passed) << report_to_json(*r).dump();
  EXPECT_FALSE(r->exhaustive);
  EXPECT_EQ(r->cases, 2000u);
}

TEST(PythonReference, ExceptionsCountAsRaising) {
  auto ref = load(
      "def f(a):\n"
      "    if a == 0:\n"
      "        return 12 // a\n"
      "    if a == 1:\n"
      "        return [1, 2][a + 5]\n"
      "    if a == 2:\n"
      "        return 10.0 ** 400\n"
      "    if a == 3:\n"
      "        return undefined_name\n"
      "    if a == 4:\n"
      "        raise SystemExit(3)\n"
      "    return a\n");
  auto out = call(*ref, {{"a", Domain::int32(0, 5)}}, {{0, 1, 2, 3, 4, 5}});
  ASSERT_EQ(out.size(), 6u);
  EXPECT_EQ(out[0], Outcome::failure("ZeroDivisionError: integer division or modulo by zero"));
  EXPECT_EQ(out[1], Outcome::failure("IndexError: list index out of range"));
  EXPECT_TRUE(out[2].raised);
  EXPECT_NE(out[2].error.find("OverflowError"), std::string::npos) << out[2].error;
  EXPECT_EQ(out[3], Outcome::failure("NameError: name 'undefined_name' is not defined"));
  EXPECT_EQ(out[4], Outcome::failure("SystemExit: 3"));
  EXPECT_EQ(out[5], value(5));
}

TEST(PythonReference, VerifyAgainstPythonInOneCall) {
  Builder b;
  auto a = b.input("a", Domain::int32(-128, 127));
  auto p = b.build(b.select(a > 4, 10, 12));
  ASSERT_TRUE(p);
  auto r = verify_against_python(*p, module("def choose(a):\n    return 10 if a > 4 else 12\n", "choose.py"));
  ASSERT_TRUE(r) << r.error().format();
  EXPECT_EQ(report_to_json(*r).dump(), R"({"cases":256,"exhaustive":true,"passed":true,"mismatches":[]})");
  auto bad = verify_against_python(*p, module("def choose(a)\n", "choose.py"));
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().format().rfind("choose.py:1:", 0), 0u) << bad.error().format();
}

TEST(PythonReference, BothRaiseAgreesInVerify) {
  Builder b;
  auto a = b.input("a", Domain::int32(-4, 4));
  auto p = b.build(b.op("floordiv", 12, a));
  ASSERT_TRUE(p);
  auto ref = load("def f(a):\n    return 12 // a\n");
  auto r = verify(*p, *ref);
  ASSERT_TRUE(r) << r.error().format();
  EXPECT_TRUE(r->passed) << report_to_json(*r).dump();
  EXPECT_EQ(r->cases, 9u);
  EXPECT_TRUE(r->exhaustive);
}

TEST(PythonReference, ReturnConventions) {
  auto ref = load(
      "def f(a):\n"
      "    if a == 0:\n"
      "        return (a, a + 1)\n"
      "    if a == 1:\n"
      "        return [True, 2.5]\n"
      "    if a == 2:\n"
      "        return {'y': 7}\n"
      "    if a == 3:\n"
      "        return None\n"
      "    if a == 4:\n"
      "        return 10 ** 400\n"
      "    if a == 5:\n"
      "        return float('nan')\n"
      "    return a > 5\n");
  auto out = call(*ref, {{"a", Domain::int32(0, 6)}}, {{0, 1, 2, 3, 4, 5, 6}});
  ASSERT_EQ(out.size(), 7u);
  EXPECT_EQ(out[0], (Outcome{false, {}, {{"result[0]", 0}, {"result[1]", 1}}}));
  EXPECT_EQ(out[1], (Outcome{false, {}, {{"result[0]", 1}, {"result[1]", 2.5}}}));
  EXPECT_EQ(out[2], (Outcome{false, {}, {{"y", 7}}}));
  EXPECT_TRUE(out[3].raised);
  EXPECT_NE(out[3].error.find("NoneType, not a number"), std::string::npos) << out[3].error;
  EXPECT_TRUE(out[4].raised);
  EXPECT_NE(out[4].error.find("OverflowError"), std::string::npos);
  EXPECT_FALSE(out[5].raised);  // verify's normalisation, not the reference, turns NaN into raising
  EXPECT_TRUE(normalize_reference(out[5]).raised);
  EXPECT_EQ(out[6], value(1));
}

TEST(PythonReference, IntegralInputsArePythonIntsAndFloatingInputsFloats) {
  auto ref = load("def f(a, b, x):\n    return (type(a) is int) + 2 * (type(b) is int) + 4 * (type(x) is float)\n");
  auto out = call(*ref, {{"a", Domain::int32(0, 9)}, {"b", Domain::boolean()}, {"x", Domain::float64()}},
                  {{3}, {1}, {2.0}});
  EXPECT_EQ(out.at(0), value(7));
}

TEST(PythonReference, StopsAHangingCase) {
  PythonReferenceOptions o;
  o.max_seconds_per_case = 0.1;
  auto ref = load("def f(a):\n    while a > 2:\n        pass\n    return a\n", o);
  Builder b;
  auto a = b.input("a", Domain::int32(0, 5));
  auto p = b.build(a + 0);
  ASSERT_TRUE(p);
  auto r = verify(*p, *ref);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("ran longer than 0.1 s on the case a=3 (does it loop forever?)"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("a=3"), std::string::npos) << r.error().message;
  EXPECT_EQ(r.error().format().rfind("ref.py:1:1: error: reference function f", 0), 0u) << r.error().format();
}

TEST(PythonReference, StopsAHangThatSwallowsExceptions) {
  PythonReferenceOptions o;
  o.max_seconds_per_case = 0.1;
  auto ref = load(
      "def f(a):\n"
      "    while True:\n"
      "        try:\n"
      "            while True:\n"
      "                pass\n"
      "        except BaseException:\n"
      "            pass\n",
      o);
  std::vector<Outcome> out;
  ASSERT_TRUE(ref->bind({{"a", Domain::int32(0, 1)}}));
  Status s = ref->evaluate({{0}}, 1, out, nullptr);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("ran longer than 0.1 s"), std::string::npos) << s.error().message;
  // The interpreter is still usable afterwards.
  auto again = load("def f(a):\n    return a * 2\n");
  EXPECT_EQ(call(*again, {{"a", Domain::int32(0, 9)}}, {{4}}).at(0), value(8));
  // The stopped one refuses further work instead of hanging again.
  Status later = ref->evaluate({{0}}, 1, out, nullptr);
  ASSERT_FALSE(later);
  EXPECT_NE(later.error().message.find("was stopped earlier"), std::string::npos) << later.error().message;
}

TEST(PythonReference, StopsOnTheTimeBudget) {
  PythonReferenceOptions o;
  o.max_seconds_per_case = 0.05;
  auto ref = load("def f(a):\n    n = 0\n    while True:\n        n += 1\n", o);
  ASSERT_TRUE(ref->bind({{"a", Domain::int32(0, 1)}}));
  std::vector<Outcome> out;
  Status s = ref->evaluate({{1}}, 1, out, nullptr);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("ran longer than 0.05 s"), std::string::npos) << s.error().message;
}

TEST(PythonReference, StopsAHangInsideACallback) {
  // The loop runs in a Python function called back from C (sorted's key).
  PythonReferenceOptions timed = pick("f");
  timed.max_seconds_per_case = 0.1;
  auto ref = load(
      "def key(v):\n"
      "    while True:\n"
      "        pass\n"
      "\n"
      "def f(a):\n"
      "    return sorted([a, 1], key=key)[0]\n",
      timed);
  ASSERT_TRUE(ref->bind({{"a", Domain::int32(0, 1)}}));
  std::vector<Outcome> out;
  Status s = ref->evaluate({{0}}, 1, out, nullptr);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("ran longer than 0.1 s"), std::string::npos) << s.error().message;
}

TEST(PythonReference, StopsAHangingModule) {
  PythonReferenceOptions o;
  o.max_seconds_per_case = 0.1;
  Diagnostic d = load_error("x = 0\nwhile True:\n    x += 1\n", o);
  EXPECT_NE(d.message.find("loading the reference ran longer than 0.1 s"), std::string::npos) << d.message;
}

class CancelAfter : public Progress {
 public:
  void update(std::uint64_t, std::uint64_t, std::string_view) override {}
  bool cancelled() const override { return ++polls > 3; }
  mutable int polls = 0;
};

TEST(PythonReference, CancellationIsPolledWhileTheReferenceRuns) {
  auto ref = load("import time\ndef f(a):\n    time.sleep(0.05)\n    return a\n");
  ASSERT_TRUE(ref->bind({{"a", Domain::int32(0, 100)}}));
  CancelAfter cancel;
  std::vector<Outcome> out;
  std::vector<double> many(100, 1.0);
  const auto start = std::chrono::steady_clock::now();
  Status s = ref->evaluate({many}, many.size(), out, &cancel);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message, "cancelled");
  EXPECT_EQ(cancel.polls, 4);
  EXPECT_TRUE(out.empty());
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(3)) << "100 x 50 ms ran to the end";
}

TEST(PythonReference, LoadErrorsAreLocated) {
  Diagnostic syntax = load_error("def f(a):\n    return a +\n");
  EXPECT_EQ(syntax.format().rfind("ref.py:2:", 0), 0u) << syntax.format();
  EXPECT_NE(syntax.message.find("SyntaxError"), std::string::npos);

  Diagnostic raised = load_error("def f(a):\n    return a\n\nx = 1 / 0\n");
  EXPECT_EQ(raised.format(),
            "ref.py:4:1: error: the reference raised ZeroDivisionError: division by zero while loading");
}

TEST(PythonReference, ChoosesTheFunction) {
  const std::string two = "def first(a):\n    return 1\n\ndef second(a):\n    return 2\n";
  Diagnostic several = load_error(two);
  EXPECT_NE(several.message.find("several functions (first, second)"), std::string::npos) << several.message;
  auto by_name = load(two, pick("second"));
  EXPECT_EQ(call(*by_name, {{"a", Domain::int32(0, 1)}}, {{0}}).at(0), value(2));
  auto preferred = load(two, pick("", "first"));
  EXPECT_EQ(call(*preferred, {{"a", Domain::int32(0, 1)}}, {{0}}).at(0), value(1));
  Diagnostic missing = load_error(two, pick("third"));
  EXPECT_NE(missing.message.find("no function 'third' (its functions: first, second)"), std::string::npos)
      << missing.message;
  Diagnostic none = load_error("x = 1\n");
  EXPECT_NE(none.message.find("defines no function"), std::string::npos);
}

TEST(PythonReference, RefusesOtherParameters) {
  auto ref = load("\n\ndef f(x, y):\n    return x\n");
  Status s = ref->bind({{"a", Domain::int32(0, 1)}});
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().format(),
            "ref.py:3:1: error: reference function f takes parameters (x, y) but the program's inputs are (a)");
  auto defaults = load("def f(a, scale=2):\n    return a * scale\n");
  EXPECT_TRUE(defaults->bind({{"a", Domain::int32(0, 1)}}));
  auto posonly = load("def f(a, /):\n    return a\n");
  EXPECT_FALSE(posonly->bind({{"a", Domain::int32(0, 1)}}));
}

TEST(PythonReference, UserCodeCannotWriteToStdoutOrWaitOnStdin) {
  auto ref = load("def f(a):\n    print('noise', a)\n    if a == 1:\n        return int(input())\n    return a\n");
  testing::internal::CaptureStdout();
  auto out = call(*ref, {{"a", Domain::int32(0, 1)}}, {{0, 1}});
  EXPECT_EQ(testing::internal::GetCapturedStdout(), "");
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0], value(0));
  EXPECT_TRUE(out[1].raised);
  EXPECT_NE(out[1].error.find("stdin"), std::string::npos) << out[1].error;
}

TEST(PythonReference, InterpreterIsIsolated) {
  auto ref = load("import sys\ndef f(a):\n    return (sys.flags.isolated, sys.flags.no_site, 'site' in sys.modules)\n");
  auto out = call(*ref, {{"a", Domain::int32(0, 1)}}, {{0}});
  EXPECT_EQ(out.at(0), (Outcome{false, {}, {{"result[0]", 1}, {"result[1]", 1}, {"result[2]", 0}}}));
}

TEST(PythonReference, EachReferenceHasItsOwnNamespace) {
  auto a = load("K = 1\ndef f(a):\n    return a + K\n");
  auto b = load("K = 100\ndef f(a):\n    return a + K\n");
  EXPECT_EQ(call(*a, {{"a", Domain::int32(0, 9)}}, {{1}}).at(0), value(2));
  EXPECT_EQ(call(*b, {{"a", Domain::int32(0, 9)}}, {{1}}).at(0), value(101));
}

TEST(PythonReference, WorksFromOtherThreadsAtOnce) {
  // The IDE verifies on a worker thread; two verifications may overlap.
  Builder b;
  auto a = b.input("a", Domain::int32(-300, 300));
  auto p = b.build(b.op("mod", a * a, 7));
  ASSERT_TRUE(p);
  Result<VerifyReport> r1 = make_error("not run"), r2 = make_error("not run");
  auto work = [&p](Result<VerifyReport>& out) {
    auto ref = make_python_reference(module("def f(a):\n    return (a * a) % 7\n", "t.py"));
    if (!ref) {
      out = ref.error();
      return;
    }
    VerifyOptions o;
    o.block = 16;
    out = verify(*p, **ref, o);
  };
  std::thread t1(work, std::ref(r1)), t2(work, std::ref(r2));
  t1.join();
  t2.join();
  for (auto* r : {&r1, &r2}) {
    ASSERT_TRUE(*r) << r->error().format();
    EXPECT_TRUE((*r)->passed);
    EXPECT_EQ((*r)->cases, 601u);
  }
}

#endif

}  // namespace
}  // namespace tc
