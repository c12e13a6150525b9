#include "ir/domain.h"

#include <gtest/gtest.h>

#include <cmath>

namespace tc {
namespace {

struct DomainCase {
  const char* text;
  bool ok;
  DomainType type;
  double lo, hi;
};

class ParseDomain : public ::testing::TestWithParam<DomainCase> {};

TEST_P(ParseDomain, Spelling) {
  const DomainCase& c = GetParam();
  auto d = parse_domain(c.text);
  ASSERT_EQ(d.ok(), c.ok) << c.text;
  if (!c.ok) {
    EXPECT_FALSE(d.error().message.empty());
    return;
  }
  EXPECT_EQ(d->type, c.type);
  EXPECT_EQ(d->lo(), c.lo);
  EXPECT_EQ(d->hi(), c.hi);
}

INSTANTIATE_TEST_SUITE_P(
    Contract, ParseDomain,
    ::testing::Values(DomainCase{"int32", true, DomainType::Int32, -2147483648.0, 2147483647.0},
                      DomainCase{"int32:-128:127", true, DomainType::Int32, -128, 127},
                      DomainCase{"bool", true, DomainType::Boolean, 0, 1},
                      DomainCase{"float64:-1.5:2", true, DomainType::Float64, -1.5, 2},
                      DomainCase{"float32:0:1", true, DomainType::Float32, 0, 1},
                      DomainCase{"float64", true, DomainType::Float64, -1.7976931348623157e308, 1.7976931348623157e308},
                      DomainCase{"int64", false, DomainType::Int32, 0, 0},
                      DomainCase{"int32:5:1", false, DomainType::Int32, 0, 0},
                      DomainCase{"int32:0.5:1", false, DomainType::Int32, 0, 0},
                      DomainCase{"int32:0:1e10", false, DomainType::Int32, 0, 0},
                      DomainCase{"float32:0:1e39", false, DomainType::Float32, 0, 0},
                      DomainCase{"float64:nan:1", false, DomainType::Float64, 0, 0},
                      DomainCase{"float64:0", false, DomainType::Float64, 0, 0},
                      DomainCase{"bool:0:1", false, DomainType::Boolean, 0, 0},
                      DomainCase{"", false, DomainType::Int32, 0, 0}));

TEST(Domain, CheckRejectsFractionsRangeAndNonFinite) {
  Domain d = Domain::int32(-128, 127);
  EXPECT_FALSE(d.check(5).has_value());
  EXPECT_NE(d.check(5.5)->find("not an integer"), std::string::npos);
  EXPECT_NE(d.check(128)->find("above the maximum 127"), std::string::npos);
  EXPECT_NE(d.check(-129)->find("below the minimum -128"), std::string::npos);
  EXPECT_TRUE(d.check(NAN).has_value());
  EXPECT_TRUE(Domain::float64().check(INFINITY).has_value());
  EXPECT_FALSE(Domain::boolean().check(1).has_value());
  EXPECT_TRUE(Domain::boolean().check(2).has_value());
  EXPECT_EQ(d.size(), 256.0);
  EXPECT_FALSE(Domain::float64().size().has_value());
}

TEST(Domain, ToStringRoundTrips) {
  for (const char* s : {"int32:-128:127", "bool", "float64", "float32:-1:1"}) {
    auto d = parse_domain(s);
    ASSERT_TRUE(d.ok());
    EXPECT_EQ(d->to_string(), s);
  }
}

}  // namespace
}  // namespace tc
