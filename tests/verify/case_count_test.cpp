// Case counts never overflow: the product of domain sizes is exact up to the
// largest limit, so no count wraps to a small number and no huge product is
// "enumerable" (the replace gate once accepted after 0 "exhaustive" cases).
#include <gtest/gtest.h>

#include <cstdint>

#include "verify/cases.h"

namespace tc {
namespace {

const std::vector<CaseInput> kTwoFullInt32{{"a", Domain::int32()}, {"b", Domain::int32()}};

TEST(CaseCount, TwoFullInt32InputsAreNeverEnumerable) {
  // 2^32 * 2^32 = 2^64, one more than any size_t limit.
  EXPECT_FALSE(enumerable_count(kTwoFullInt32, SIZE_MAX));
  EXPECT_FALSE(enumerable_count(kTwoFullInt32, SIZE_MAX - 1));
  EXPECT_FALSE(enumerable_count(kTwoFullInt32, std::size_t(1) << 63));
}

TEST(CaseCount, ExactAtTheEdges) {
  const std::vector<CaseInput> one{{"a", Domain::int32()}};
  EXPECT_EQ(enumerable_count(one, SIZE_MAX), std::size_t(1) << 32);
  EXPECT_EQ(enumerable_count(one, std::size_t(1) << 32), std::size_t(1) << 32);
  EXPECT_FALSE(enumerable_count(one, (std::size_t(1) << 32) - 1));
  // 2^32 * 2^31 = 2^63 fits; a third input of one value keeps it.
  const std::vector<CaseInput> big{{"a", Domain::int32()}, {"b", Domain::int32(0, 2147483647)}, {"c", Domain::int32(5, 5)}};
  EXPECT_EQ(enumerable_count(big, SIZE_MAX), std::size_t(1) << 63);
  CaseSet s = CaseSet::enumerate(big);
  EXPECT_EQ(s.size(), std::size_t(1) << 63);
  EXPECT_TRUE(s.exhaustive());
  // The last case is every input at its maximum.
  EXPECT_EQ(s.at(s.size() - 1), (std::vector<double>{2147483647.0, 2147483647.0, 5.0}));
}

TEST(CaseCount, PlanRefusesAbsurdSampleCounts) {
  CasePlanOptions o;
  o.samples = kMaxSamples + 1;
  auto r = plan_cases({{"x", Domain::float64()}}, o);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("at most 100000000"), std::string::npos) << r.error().message;
}

}  // namespace
}  // namespace tc
