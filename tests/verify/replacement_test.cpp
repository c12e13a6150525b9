// verified_replacement: accepted only after exhaustive agreement, refused
// with the specific reason otherwise.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ir/builder.h"
#include "verify/python_reference.h"
#include "verify/replacement.h"

namespace tc {
namespace {

const Domain kByte = Domain::int32(-128, 127);

/// choose(a) = 10 if a > 4 else 12.
Program original() {
  Builder b;
  auto a = b.input("a", kByte);
  return b.build(b.select(a > 4, 10, 12)).value();
}

/// The same function written differently: 12 - 2 * (a >= 5).
Program rewritten(Domain d = kByte, const std::string& name = "a") {
  Builder b;
  auto a = b.input(name, d);
  return b.build(12 - 2 * (a >= 5)).value();
}

std::string refusal(const Program& candidate, ReplacementOptions o = {}) {
  auto v = verified_replacement(original(), candidate, o);
  EXPECT_TRUE(v) << (v ? "" : v.error().format());
  if (!v) return "";
  EXPECT_FALSE(v->accepted);
  return v->reason;
}

TEST(Replacement, AcceptsAnExhaustivelyEqualCandidate) {
  auto v = verified_replacement(original(), rewritten());
  ASSERT_TRUE(v) << v.error().format();
  EXPECT_TRUE(v->accepted) << v->reason;
  EXPECT_TRUE(v->reason.empty());
  ASSERT_TRUE(v->report);
  EXPECT_EQ(v->report->cases, 256u);
  EXPECT_TRUE(v->report->exhaustive);
}

// An infinite (or negative, or NaN) tolerance would accept any finite
// candidate: the gate refuses it itself, whoever calls it (issue 23, defect 4).
TEST(Replacement, RefusesAToleranceThatIsNotFiniteAndNonNegative) {
  Builder b;
  (void)b.input("a", kByte);
  Program constant = b.build(b.constant(12345)).value();
  const double inf = std::numeric_limits<double>::infinity();
  for (Tolerance t : {Tolerance{inf, 0}, Tolerance{0, inf}, Tolerance{-1, 0}, Tolerance{0, std::nan("")}}) {
    ReplacementOptions o;
    o.tolerance = t;
    auto v = verified_replacement(original(), constant, o);
    ASSERT_FALSE(v) << "accepted=" << v->accepted << " with atol " << t.atol << " rtol " << t.rtol;
    EXPECT_NE(v.error().message.find("must be finite and not negative"), std::string::npos) << v.error().message;
  }
}

TEST(Replacement, AcceptsAFrozenTrainedCandidate) {
  Builder b;
  auto a = b.input("a", kByte);
  auto w = b.parameter("w", 2);
  b.freeze();
  auto p = b.build(12 - w * (a >= 5));
  ASSERT_TRUE(p);
  auto v = verified_replacement(original(), *p);
  ASSERT_TRUE(v);
  EXPECT_TRUE(v->accepted) << v->reason;
}

TEST(Replacement, RefusesADisagreeingCandidateWithTheReport) {
  Builder b;
  auto a = b.input("a", kByte);
  auto p = b.build(b.select(a > 5, 10, 12)).value();  // differs at a = 5 only
  auto v = verified_replacement(original(), p);
  ASSERT_TRUE(v);
  EXPECT_FALSE(v->accepted);
  EXPECT_EQ(v->reason, "the candidate disagrees with the original on 1 of 256 cases");
  ASSERT_TRUE(v->report);
  ASSERT_EQ(v->report->mismatches.size(), 1u);
  EXPECT_EQ(v->report->mismatches[0].inputs[0].second, 5.0);
}

TEST(Replacement, RefusesParameters) {
  Builder b;
  auto a = b.input("a", kByte);
  auto w = b.parameter("w", 2);
  auto p = b.build(12 - w * (a >= 5)).value();
  EXPECT_EQ(refusal(p), "the candidate has parameters (w): freeze them into constants before replacing");
}

TEST(Replacement, RefusesState) {
  Builder b;
  auto a = b.input("a", kByte);
  auto s = b.state("count", 0, Domain::int32(0, 100));
  b.update(s, s + 1);
  auto p = b.build(12 - 2 * (a >= 5) + s * 0).value();
  EXPECT_EQ(refusal(p), "the candidate has state (count)");
}

TEST(Replacement, RefusesCalls) {
  Builder b;
  auto a = b.input("a", kByte);
  auto p = b.build(b.call("lookup", {a})).value();
  EXPECT_EQ(refusal(p), "the candidate calls host bindings (lookup)");
}

TEST(Replacement, RefusesOtherInputNames) {
  EXPECT_EQ(refusal(rewritten(kByte, "x")), "the candidate's inputs (x) differ from the original's (a)");
}

TEST(Replacement, RefusesOtherDomains) {
  EXPECT_EQ(refusal(rewritten(Domain::int32(-128, 126))),
            "input a: the candidate's domain int32:-128:126 differs from the original's int32:-128:127");
}

TEST(Replacement, RefusesOtherOutputs) {
  Builder b;
  auto a = b.input("a", kByte);
  auto p = b.build({{"result[0]", 12 - 2 * (a >= 5)}, {"result[1]", a}}).value();
  EXPECT_EQ(refusal(p), "the candidate's outputs (result[0], result[1]) differ from the original's (result)");
}

TEST(Replacement, RefusesDomainsThatCannotBeEnumerated) {
  ReplacementOptions o;
  o.max_cases = 100;
  EXPECT_EQ(refusal(rewritten(), o),
            "the input domains have more than 100 combinations: narrow them or raise max_cases");
  Builder b1, b2;
  auto x1 = b1.input("x", Domain::float64(0, 1));
  auto x2 = b2.input("x", Domain::float64(0, 1));
  auto orig = b1.build(x1 * 2).value();
  auto cand = b2.build(x2 + x2).value();
  auto v = verified_replacement(orig, cand);
  ASSERT_TRUE(v);
  EXPECT_FALSE(v->accepted);
  EXPECT_EQ(v->reason, "input x is float64:0:1: only finite int32/bool domains can be checked exhaustively");
  EXPECT_FALSE(v->report);
}

TEST(Replacement, RefusesToReplaceAStatefulOriginal) {
  Builder b;
  auto a = b.input("a", kByte);
  auto s = b.state("count", 0, Domain::int32(0, 100));
  b.update(s, s + 1);
  auto orig = b.build(b.select(a > 4, 10, 12) + s * 0).value();
  auto v = verified_replacement(orig, rewritten());
  ASSERT_TRUE(v);
  EXPECT_FALSE(v->accepted);
  EXPECT_EQ(v->reason, "the original has state (count): a stateless candidate cannot replace it");
}

#ifdef TC_HAVE_PYTHON
PythonReferenceOptions module(std::string source) {
  PythonReferenceOptions o;
  o.source = std::move(source);
  o.filename = "c.py";
  return o;
}

TEST(Replacement, JudgesAgainstTheOriginalsPythonSource) {
  auto ref = make_python_reference(module("def choose(a):\n    return 10 if a > 4 else 12\n"));
  ASSERT_TRUE(ref) << ref.error().format();
  ReplacementOptions o;
  o.original_reference = ref->get();
  auto v = verified_replacement(original(), rewritten(), o);
  ASSERT_TRUE(v) << v.error().format();
  EXPECT_TRUE(v->accepted) << v->reason;

  auto wrong = make_python_reference(module("def choose(a):\n    return 10 if a > 3 else 12\n"));
  ASSERT_TRUE(wrong);
  o.original_reference = wrong->get();
  v = verified_replacement(original(), rewritten(), o);
  ASSERT_TRUE(v);
  EXPECT_FALSE(v->accepted);
  EXPECT_EQ(v->report->mismatch_count, 1u);
}
#endif

}  // namespace
}  // namespace tc
