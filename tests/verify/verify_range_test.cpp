// Case ranges (VerifyOptions::first_case/end_case) + merge_report, the
// pieces the MPI layer splits verify into: any split of the planned cases
// into consecutive ranges, verified range by range and merged in order,
// gives exactly verify()'s report.
#include <gtest/gtest.h>

#include "ir/builder.h"
#include "verify/verify.h"

namespace tc {
namespace {

Outcome value(double v) { return Outcome{false, {}, {{"result", v}}}; }

/// a * b over [-20, 20]^2 against a reference that is wrong on 37 cases
/// spread over the whole space (and that raises on some, too).
struct Fixture {
  Program program;
  std::unique_ptr<Reference> reference;
};

Fixture make_fixture() {
  Builder b;
  auto a = b.input("a", Domain::int32(-20, 20));
  auto c = b.input("b", Domain::int32(-20, 20));
  Fixture s{b.build(a * c).value(), nullptr};
  s.reference = make_function_reference(
      [](const std::vector<double>& v) {
        const auto a = static_cast<long>(v[0]), b = static_cast<long>(v[1]);
        if ((a * 7 + b) % 45 == 3) return Outcome::failure("ValueError: wrong");
        if ((a * 3 + b * 5) % 44 == 1) return value(static_cast<double>(a * b + 1));
        return value(static_cast<double>(a * b));
      },
      "a*b with mistakes");
  return s;
}

std::string json_of(const VerifyReport& r) {
  auto j = report_to_json(r);
  j["mismatch_count"] = r.mismatch_count;
  return j.dump();
}

TEST(VerifyRange, MergedRangesEqualTheWholeRun) {
  Fixture s = make_fixture();
  VerifyOptions o;
  o.block = 64;  // ranges cut through blocks
  auto whole = verify(s.program, *s.reference, o);
  ASSERT_TRUE(whole.ok());
  ASSERT_GT(whole->mismatch_count, 20u);  // so the first 10 come from different ranges
  auto cases = plan_verify_cases(s.program, o);
  ASSERT_TRUE(cases.ok());
  ASSERT_EQ(cases->size(), 41u * 41u);
  for (std::size_t parts : {1u, 2u, 3u, 7u, 64u, 2000u}) {
    VerifyReport merged;
    for (std::size_t k = 0; k < parts; ++k) {
      const std::size_t begin = cases->size() * k / parts, end = cases->size() * (k + 1) / parts;
      VerifyOptions range = o;
      range.first_case = begin;
      range.end_case = end;
      auto part = verify(s.program, *s.reference, range);
      ASSERT_TRUE(part.ok());
      EXPECT_EQ(part->cases, end - begin);
      if (k == 0)
        merged = std::move(*part);
      else
        merge_report(merged, std::move(*part), o.max_reported);
    }
    merged.exhaustive = cases->exhaustive();  // the caller knows the ranges covered the plan
    EXPECT_EQ(json_of(merged), json_of(*whole)) << parts << " parts";
    EXPECT_EQ(merged.planned_cases, whole->planned_cases);
    for (std::size_t k = 0; k < merged.mismatches.size(); ++k)
      EXPECT_EQ(merged.mismatches[k].index, whole->mismatches[k].index);
  }
}

TEST(VerifyRange, SampledPlanIsTheSameEveryTime) {
  Builder b;
  auto x = b.input("x", Domain::float64(-1, 1));
  Program p = b.build(x * 2).value();
  VerifyOptions o;
  o.samples = 500;
  auto first = plan_verify_cases(p, o), second = plan_verify_cases(p, o);
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_FALSE(first->exhaustive());
  EXPECT_EQ(first->size(), 500u);
  for (std::size_t i = 0; i < first->size(); i += 37) EXPECT_EQ(first->at(i), second->at(i));
}

}  // namespace
}  // namespace tc
