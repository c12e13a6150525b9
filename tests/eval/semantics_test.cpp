// Evaluator semantics beyond single ops: every error kind with its message,
// laziness in both entry points, float32 rounding at every node, per-node
// semantics from include, bindings, state and traces.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <functional>
#include <stdexcept>

#include "eval/evaluator.h"
#include "eval_util.h"
#include "ir/builder.h"
#include "ir/kernels.h"

namespace tc {
namespace {

using testing::built;
using testing::evaluator;
using testing::inputs;
using testing::same_bits;

std::string error_of(const Evaluator& e, const Env& env) {
  auto r = e.run(env);
  EXPECT_FALSE(r.ok()) << "unexpected value " << (r.ok() ? r->outputs[0] : 0.0);
  return r.ok() ? "" : r.error().message;
}

/// Runs one case through run_batch and returns its error message ("" if none).
std::string batch_error_of(const Evaluator& e, std::vector<double> values, const Env& fixed = {}) {
  std::vector<std::span<const double>> cols;
  for (double& v : values) cols.emplace_back(&v, 1);
  BatchResult br;
  auto s = e.run_batch(cols, 1, fixed, br);
  EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().message);
  if (!s.ok() || br.errors.empty()) return "";
  return br.errors[0].second.message;
}

// --- every error kind names node, op and location ---------------------------

struct ErrorCase {
  const char* what;
  std::function<Value(Builder&, Value x)> make;
  double x;
  std::string expected;  // after "node N (op) at line 4, column 9: "
};

TEST(EvalErrors, EachKindNamesNodeOpAndLocation) {
  const std::vector<ErrorCase> cases = {
      {"division by zero", [](Builder&, Value x) { return 1 / x; }, 0, "division by zero"},
      {"floordiv by zero", [](Builder& b, Value x) { return b.op("floordiv", 1, x); }, 0, "division by zero"},
      {"mod by zero", [](Builder& b, Value x) { return b.op("mod", 1, x); }, 0, "division by zero"},
      {"infinity", [](Builder&, Value x) { return x * 1e300; }, 1e10, "result is infinite"},
      {"index out of range", [](Builder& b, Value x) { return b.gather({1, 2, 3}, x); }, 3,
       "index 3 is out of range for 3 values"},
      {"negative index", [](Builder& b, Value x) { return b.gather({1, 2, 3}, x); }, -1,
       "index -1 is out of range for 3 values"},
      {"fractional index", [](Builder& b, Value x) { return b.gather({1, 2, 3}, x); }, 0.5,
       "index 0.5 is not an integer"},
      {"no selector", [](Builder& b, Value x) { return b.gather_one_hot({x, x}, {1, 2}); }, 0,
       "no selector is 1, expected exactly one"},
      {"two selectors", [](Builder& b, Value x) { return b.gather_one_hot({x, x}, {1, 2}); }, 1,
       "2 selectors are 1, expected exactly one"},
      {"bad selector", [](Builder& b, Value x) { return b.gather_one_hot({x, 1}, {1, 2}); }, 0.25,
       "selector 0 is 0.25, expected 0 or 1"},
      {"domain", [](Builder& b, Value x) {
         Value v = x + 1;
         b.set_domain(v, Domain::int32(0, 10));
         return v;
       }, 10, "value 11 is above the maximum 10 (domain int32:0:10)"},
      {"domain fraction", [](Builder& b, Value x) {
         Value v = x + 1;
         b.set_domain(v, Domain::int32(0, 10));
         return v;
       }, 0.5, "value 1.5 is not an integer (int32 domain) (domain int32:0:10)"},
  };
  for (const ErrorCase& c : cases) {
    SCOPED_TRACE(c.what);
    Builder b;
    Value x = b.input("x");
    b.set_location(SourceLoc{4, 9});
    Value r = c.make(b, x);
    Program p = built(b, r);
    Evaluator e = evaluator(p);
    auto res = e.run(inputs({{"x", c.x}}));
    ASSERT_FALSE(res.ok());
    const Diagnostic& d = res.error();
    ASSERT_TRUE(d.node.has_value());
    const std::string prefix = describe_node(p, *d.node) + ": ";
    EXPECT_EQ(d.message, prefix + c.expected);
    EXPECT_NE(prefix.find(" at line 4, column 9"), std::string::npos) << prefix;
    ASSERT_TRUE(d.loc.has_value());
    EXPECT_EQ(d.loc->line, 4);
    EXPECT_EQ(d.format(), "<input>:4:9: error: " + d.message);
    EXPECT_EQ(batch_error_of(e, {c.x}), d.message);
  }
}

TEST(EvalErrors, TheFirstNonFiniteValueIsReported) {
  Builder b;
  Value x = b.input("x");
  Value inf = x * 1e300;
  Program p = built(b, b.op("mod", inf - inf, 2));
  Evaluator e = evaluator(p);
  // the product, not the NaN difference or the modulo, is where it went wrong
  EXPECT_EQ(error_of(e, inputs({{"x", 1e10}})), describe_node(p, 2) + ": result is infinite");
  EXPECT_EQ(batch_error_of(e, {1e10}), describe_node(p, 2) + ": result is infinite");
}

TEST(EvalErrors, TheEarliestFailingNodeIsReportedLikePythonWouldMeetIt) {
  // a = 1 / x; b = 1 / y; return b + a  -> CPython raises at `1 / x` first.
  for (bool with_select : {false, true}) {
    SCOPED_TRACE(with_select ? "demand-driven walk" : "straight-line order");
    Builder b;
    Value x = b.input("x");
    Value y = b.input("y");
    b.set_location(SourceLoc{1, 5});
    Value a = 1 / x;
    b.set_location(SourceLoc{2, 5});
    Value bb = 1 / y;
    b.set_location(SourceLoc{3, 12});
    Value r = bb + a;
    if (with_select) r = b.select(x > 100, 0, r);  // an exact select forces the lazy walk
    Program p = built(b, r);
    Evaluator e = evaluator(p);
    const std::string first = describe_node(p, a.id()) + ": division by zero";
    EXPECT_EQ(error_of(e, inputs({{"x", 0}, {"y", 0}})), first);
    EXPECT_EQ(batch_error_of(e, {0, 0}), first);
    EXPECT_EQ(error_of(e, inputs({{"x", 1}, {"y", 0}})), describe_node(p, bb.id()) + ": division by zero");
    // A failed condition explores neither branch.
    if (with_select) {
      Builder b2;
      Value x2 = b2.input("x");
      Value late_error = 1 / (x2 - x2);
      Program p2 = built(b2, b2.select(1 / x2, late_error, 1));
      Evaluator e2 = evaluator(p2);
      EXPECT_EQ(error_of(e2, inputs({{"x", 0}})), describe_node(p2, p2.nodes.back().args[0]) + ": division by zero");
    }
  }
}

TEST(EvalErrors, BindingsAreRequiredAndCheckedForFiniteResults) {
  Builder b;
  Value x = b.input("x");
  b.set_location(SourceLoc{2, 3});
  Program p = built(b, b.call("f", {x, 2}));
  auto missing = Evaluator::create(p);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message, "node 2 (call 'f') at line 2, column 3: no binding named 'f' was provided");
  Bindings bindings;
  bindings["f"].forward = [](std::span<const double> a) { return a[0] > 0 ? a[0] * a[1] : std::log(a[0]); };
  EvalOptions o;
  o.bindings = &bindings;
  Evaluator e = evaluator(p, o);
  EXPECT_EQ(e.run(inputs({{"x", 4}}))->outputs[0], 8);
  EXPECT_EQ(error_of(e, inputs({{"x", 0}})), "node 2 (call 'f') at line 2, column 3: binding 'f' returned -inf");
  EXPECT_EQ(error_of(e, inputs({{"x", -1}})), "node 2 (call 'f') at line 2, column 3: binding 'f' returned nan");
  EXPECT_EQ(batch_error_of(e, {-1}), "node 2 (call 'f') at line 2, column 3: binding 'f' returned nan");
}

TEST(EvalErrors, AThrowingBindingBecomesAnError) {
  Builder b;
  Value x = b.input("x");
  Value g = b.call("g", {x});
  Program p = built(b, b.select(x > 0, g, 0));
  Bindings bindings;
  bindings["g"].forward = [](std::span<const double> a) -> double {
    if (a[0] > 10) throw std::runtime_error("too large");
    return a[0];
  };
  EvalOptions o;
  o.bindings = &bindings;
  Evaluator e = evaluator(p, o);
  EXPECT_EQ(error_of(e, inputs({{"x", 11}})), describe_node(p, g.id()) + ": binding 'g' failed: too large");
  EXPECT_EQ(batch_error_of(e, {11}), describe_node(p, g.id()) + ": binding 'g' failed: too large");
  EXPECT_EQ(e.run(inputs({{"x", 5}}))->outputs[0], 5);
  // In the batch the binding runs for every case (both branches are computed
  // there), but a throw in an unchosen branch does not fail the case.
  EXPECT_EQ(batch_error_of(e, {-20}), "");
}

TEST(EvalErrors, ParameterAndStateValues) {
  Builder b;
  Value x = b.input("x");
  Value w = b.parameter("w", 2);
  Value s = b.state("s", 0, Domain::int32(0, 100));
  b.update(s, s + 1);
  Program p = built(b, x * w + s);
  Evaluator e = evaluator(p);
  Env env = inputs({{"x", 1}});
  env.params["w"] = NAN;
  EXPECT_EQ(error_of(e, env), "parameter 'w': nan is not a finite number");
  env.params.clear();
  env.state["s"] = 101;
  EXPECT_EQ(error_of(e, env), "state 's': 101 is above the maximum 100");
  env.state["s"] = 0.5;
  EXPECT_EQ(error_of(e, env), "state 's': 0.5 is not an integer (int32 domain)");
  // run_batch reports the same as a failed Status (they are not per case).
  std::vector<double> xs{1};
  std::vector<std::span<const double>> cols{xs};
  BatchResult br;
  auto st = e.run_batch(cols, 1, env, br);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message, "state 's': 0.5 is not an integer (int32 domain)");
}

TEST(EvalErrors, BatchColumnMistakesAreStatusErrors) {
  Builder b;
  Value x = b.input("x");
  Value y = b.input("y");
  Program p = built(b, x + y);
  Evaluator e = evaluator(p);
  std::vector<double> xs{1, 2};
  std::vector<std::span<const double>> one{xs};
  BatchResult br;
  EXPECT_FALSE(e.run_batch(one, 2, {}, br).ok());
  std::vector<std::span<const double>> short_cols{xs, std::span<const double>(xs.data(), 1)};
  auto s = e.run_batch(short_cols, 2, {}, br);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message, "run_batch: the column of input 'y' has 1 values, expected 2");
}

// --- laziness -----------------------------------------------------------------

TEST(EvalLaziness, ErrorOnlyInUnchosenBranchSucceedsInBothEntryPoints) {
  Builder b;
  Value x = b.input("x");
  Value n = b.input("n", Domain::int32(-5, 5));
  Value table = b.gather({10, 20, 30}, n);  // invalid index for n outside 0..2
  // One statement per node, since the test names node ids: the order of a
  // call's arguments is up to the compiler (gcc and clang differ).
  Value minus_x = -x;
  Value inverse = 1 / x;  // node 8
  Value in_table = n < 3;
  Value inner = b.select(in_table, table, inverse);
  Value nonnegative = n >= 0;
  Value r = b.select(nonnegative, inner, minus_x);
  Program p = built(b, r);
  Evaluator e = evaluator(p);
  // n = -1: the gather and the division are in unchosen branches.
  EXPECT_EQ(e.run(inputs({{"x", 0}, {"n", -1}}))->outputs[0], -0.0);
  EXPECT_EQ(batch_error_of(e, {0, -1}), "");
  // n = 4: the division is chosen and fails; the gather is not evaluated.
  EXPECT_EQ(error_of(e, inputs({{"x", 0}, {"n", 4}})), describe_node(p, 8) + ": division by zero");
  EXPECT_EQ(batch_error_of(e, {0, 4}), describe_node(p, 8) + ": division by zero");
  EXPECT_EQ(e.run(inputs({{"x", 0}, {"n", 2}}))->outputs[0], 30);
}

TEST(EvalLaziness, RelaxedSelectEvaluatesBothBranches) {
  Builder b(Semantics::Relaxed);
  Value x = b.input("x");
  Program p = built(b, b.select(x > 0, 1, 1 / x));
  Evaluator e = evaluator(p);
  EXPECT_NE(error_of(e, inputs({{"x", 0}})).find("division by zero"), std::string::npos);
}

TEST(EvalLaziness, HybridForwardIsExactAndLazy) {
  // `1/x if x != 0 else 1`: relaxed blends both branches (and fails at x = 0);
  // hybrid forward takes the exact, lazy path.
  Builder b(Semantics::Relaxed);
  Value x = b.input("x");
  Program p = built(b, b.select(b.op("ne", x, 0), 1 / x, 1));
  Evaluator relaxed = evaluator(p);
  EXPECT_NE(error_of(relaxed, inputs({{"x", 0}})).find("division by zero"), std::string::npos);
  EvalOptions hybrid;
  hybrid.semantics = Semantics::Hybrid;
  Evaluator h = evaluator(p, hybrid);
  EXPECT_EQ(h.run(inputs({{"x", 0}}))->outputs[0], 1);
  EXPECT_EQ(h.run(inputs({{"x", 4}}))->outputs[0], 0.25);
  EXPECT_EQ(batch_error_of(h, {0}), "");
}

TEST(EvalLaziness, UnusedValuesAreNotComputedInEitherEntryPoint) {
  Builder b;
  Value x = b.input("x");
  Value unused = b.gather({1, 2}, x) / 0;
  (void)unused;
  Program p = built(b, x * 2);
  Evaluator e = evaluator(p);
  EXPECT_EQ(e.run(inputs({{"x", 7.5}}))->outputs[0], 15);
  EXPECT_EQ(batch_error_of(e, {7.5}), "");
  CaseTrace t;
  ASSERT_TRUE(e.run(inputs({{"x", 7.5}}), &t).ok());
  for (std::size_t i = 0; i < p.nodes.size(); ++i) {
    const bool live = i == 0 || static_cast<NodeId>(i) == p.outputs[0].second ||
                      p.nodes[static_cast<std::size_t>(p.outputs[0].second)].args[1] == static_cast<NodeId>(i);
    EXPECT_EQ(t.computed[i] != 0, live) << "node " << i;
  }
}

TEST(EvalLaziness, GatherEvaluatesEveryValueLikeAPythonList) {
  // [1/x, 2][i]: CPython builds the list first, so 1/0 raises even for i = 1.
  Builder b;
  Value x = b.input("x");
  Value i = b.input("i", Domain::int32(0, 1));
  Program p = built(b, b.gather({1 / x, 2}, i));
  Evaluator e = evaluator(p);
  EXPECT_NE(error_of(e, inputs({{"x", 0}, {"i", 1}})).find("division by zero"), std::string::npos);
  EXPECT_NE(batch_error_of(e, {0, 1}).find("division by zero"), std::string::npos);
}

// --- float32 ------------------------------------------------------------------

TEST(EvalFloat32, EveryNodeIsRoundedIncludingConstantsAndInputs) {
  for (Dtype dtype : {Dtype::Float64, Dtype::Float32}) {
    Builder b(Semantics::Exact, Surrogate::Sigmoid, 1.0, dtype);
    Value x = b.input("x");
    Program p = built(b, (x + 0.2) * 3 - 0.1);
    Evaluator e = evaluator(p);
    CaseTrace t;
    auto r = e.run(inputs({{"x", 0.1}}), &t);
    ASSERT_TRUE(r.ok());
    if (dtype == Dtype::Float64) {
      EXPECT_TRUE(same_bits(r->outputs[0], (0.1 + 0.2) * 3 - 0.1));
    } else {
      const float want = (0.1f + 0.2f) * 3.0f - 0.1f;  // binary32 arithmetic, rounded at every step
      EXPECT_TRUE(same_bits(r->outputs[0], static_cast<double>(want))) << r->outputs[0] << " vs " << want;
      for (std::size_t i = 0; i < p.nodes.size(); ++i)
        EXPECT_TRUE(same_bits(t.values[i], round_f32(t.values[i]))) << "node " << i << " is not a binary32 value";
    }
    std::vector<double> xs{0.1};
    std::vector<std::span<const double>> cols{xs};
    BatchResult br;
    ASSERT_TRUE(e.run_batch(cols, 1, {}, br).ok());
    EXPECT_TRUE(same_bits(br.outputs[0][0], r->outputs[0]));
  }
}

TEST(EvalFloat32, OptionOverridesProgramDtype) {
  Builder b;
  Value x = b.input("x");
  Program p = built(b, x * 3);
  EvalOptions o;
  o.dtype = Dtype::Float32;
  Evaluator e = evaluator(p, o);
  EXPECT_TRUE(same_bits(e.run(inputs({{"x", 0.1}}))->outputs[0], static_cast<double>(0.1f * 3.0f)));
}

TEST(EvalFloat32, Float32DomainInputsAreRoundedUnderFloat64) {
  Builder b;
  Value x = b.input("x", Domain::float32());
  Value y = b.input("y", Domain::float64());
  Program p = built(b, b.affine({x, y}, {1, -1}));
  Evaluator e = evaluator(p);
  auto r = e.run(inputs({{"x", 0.1}, {"y", 0.1}}));
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(same_bits(r->outputs[0], static_cast<double>(0.1f) - 0.1));
  EXPECT_EQ(error_of(e, inputs({{"x", 1e39}, {"y", 0}})).rfind("input 'x': ", 0), 0u);
  EXPECT_NE(error_of(e, inputs({{"x", 1e39}, {"y", 0}})).find("is above the maximum"), std::string::npos);
}

TEST(EvalFloat32, OverflowAtANodeIsAnError) {
  Builder b(Semantics::Exact, Surrogate::Sigmoid, 1.0, Dtype::Float32);
  Value x = b.input("x");
  Program p = built(b, x * 1e30);
  Evaluator e = evaluator(p);
  EXPECT_EQ(e.run(inputs({{"x", 2}}))->outputs[0], static_cast<double>(2.0f * 1e30f));
  EXPECT_EQ(error_of(e, inputs({{"x", 1e10}})), describe_node(p, 2) + ": result 1.0000000150474662e+40 overflows float32");
  EXPECT_EQ(error_of(e, inputs({{"x", 1e300}})), "input 'x': 1e+300 is outside the float32 range");
}

// --- semantics per node ---------------------------------------------------------

Program relaxed_region() {
  Builder b(Semantics::Relaxed, Surrogate::Sigmoid, 0.5);
  Value v = b.input("v");
  auto p = b.build(b.select(v > 1, 10, 20));
  return p.value();
}

TEST(EvalPerNodeSemantics, IncludedNodesKeepTheirsAndOptionReplacesOnlyTheRoot) {
  Builder b(Semantics::Exact);
  Value x = b.input("x");
  auto region = b.include(relaxed_region(), {{"v", x}}, "r");
  Value root_gate = b.select(x > 1, 1, 2);
  Program p = built(b, region.at("result") + root_gate * 100);
  const double s = kernels::sigmoid((2.0 - 1.0) / 0.5);
  const double relaxed_part = s * 10 + (1 - s) * 20;
  Evaluator exact = evaluator(p);
  EXPECT_TRUE(same_bits(exact.run(inputs({{"x", 2}}))->outputs[0], relaxed_part + 100));
  EvalOptions o;
  o.semantics = Semantics::Relaxed;
  Evaluator relaxed = evaluator(p, o);
  const double root_s = kernels::sigmoid((2.0 - 1.0) / 1.0);
  EXPECT_TRUE(same_bits(relaxed.run(inputs({{"x", 2}}))->outputs[0],
                        relaxed_part + (root_s * 1 + (1 - root_s) * 2) * 100));
}

TEST(EvalPerNodeSemantics, RelaxedNodesSkipDomainChecks) {
  Builder b(Semantics::Relaxed);
  Value x = b.input("x");
  Value v = x * 2;
  b.set_domain(v, Domain::int32(0, 1));
  Program p = built(b, v);
  Evaluator relaxed = evaluator(p);
  EXPECT_EQ(relaxed.run(inputs({{"x", 2.25}}))->outputs[0], 4.5);
  EvalOptions o;
  o.semantics = Semantics::Exact;
  Evaluator exact = evaluator(p, o);
  EXPECT_EQ(error_of(exact, inputs({{"x", 2.25}})),
            describe_node(p, 2) + ": value 4.5 is not an integer (int32 domain) (domain int32:0:1)");
}

// --- state and traces -------------------------------------------------------------

TEST(EvalState, NextStateFollowsUpdatesOrderAndDefaults) {
  Builder b;
  Value ev = b.input("event", Domain::int32(0, 1));
  Value count = b.state("count", 0, Domain::int32(0, 100));
  Value total = b.state("total", 5, Domain::float64());
  b.update(total, total + ev * 2);
  b.update(count, count + ev);
  Program p = built(b, count);
  Evaluator e = evaluator(p);
  auto r = e.run(inputs({{"event", 1}}));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->outputs, std::vector<double>{0});
  EXPECT_EQ(r->next_state, (std::vector<double>{7, 1}));  // updates order: total, then count
  Env env = inputs({{"event", 1}});
  env.state["count"] = 41;
  r = e.run(env);
  EXPECT_EQ(r->outputs, std::vector<double>{41});
  EXPECT_EQ(r->next_state, (std::vector<double>{7, 42}));
  std::vector<double> evs{0, 1, 1};
  std::vector<std::span<const double>> cols{evs};
  BatchResult br;
  ASSERT_TRUE(e.run_batch(cols, 3, env, br).ok());
  EXPECT_EQ(br.next_state[0], (std::vector<double>{5, 7, 7}));
  EXPECT_EQ(br.next_state[1], (std::vector<double>{41, 42, 42}));
}

TEST(EvalTrace, RecordsValuesComputedNodesAndBranches) {
  Builder b;
  Value a = b.input("a", Domain::int32(-128, 127));
  Program p = built(b, b.select(a > 4, 10, 12));
  Evaluator e = evaluator(p);
  CaseTrace t;
  ASSERT_TRUE(e.run(inputs({{"a", 5}}), &t).ok());
  ASSERT_EQ(t.values.size(), p.nodes.size());
  // nodes: 0 a, 1 const 4, 2 gt, 3 const 10, 4 const 12, 5 select
  EXPECT_EQ(t.values[0], 5);
  EXPECT_EQ(t.values[2], 1);
  EXPECT_EQ(t.computed[3], 1);
  EXPECT_EQ(t.computed[4], 0);
  EXPECT_TRUE(std::isnan(t.values[4]));
  EXPECT_EQ(t.branch[5], 1);
  EXPECT_EQ(t.branch[2], -1);
  // A failing case keeps what was computed before the error.
  Builder b2;
  Value x = b2.input("x");
  Value num = x + 1;  // nodes 1 (constant) and 2
  Value den = x - x;  // node 3
  Program p2 = built(b2, num / den);
  Evaluator e2 = evaluator(p2);
  CaseTrace t2;
  ASSERT_FALSE(e2.run(inputs({{"x", 3}}), &t2).ok());
  EXPECT_EQ(t2.values[2], 4);
  EXPECT_EQ(t2.values[3], 0);
  EXPECT_EQ(t2.computed[4], 0);
}

}  // namespace
}  // namespace tc
