// Case generation: exhaustive enumeration, sampling (ends and zero, fixed
// seed, values inside their domains), supplied JSON Lines cases, planning.
#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <set>

#include "ir/builder.h"
#include "verify/cases.h"

namespace tc {
namespace {

std::vector<double> column(const CaseSet& s, std::size_t k) {
  std::vector<std::vector<double>> cols;
  s.fill(0, s.size(), cols);
  return cols[k];
}

bool contains(const std::vector<double>& v, double x) { return std::find(v.begin(), v.end(), x) != v.end(); }

TEST(Cases, EnumeratesTheProductWithTheLastInputFastest) {
  std::vector<CaseInput> in{{"a", Domain::int32(-1, 1)}, {"b", Domain::boolean()}};
  ASSERT_EQ(enumerable_count(in, 100), 6u);
  CaseSet s = CaseSet::enumerate(in);
  EXPECT_TRUE(s.exhaustive());
  ASSERT_EQ(s.size(), 6u);
  EXPECT_EQ(column(s, 0), (std::vector<double>{-1, -1, 0, 0, 1, 1}));
  EXPECT_EQ(column(s, 1), (std::vector<double>{0, 1, 0, 1, 0, 1}));
  EXPECT_EQ(s.at(3), (std::vector<double>{0, 1}));
  // fill() of a later block continues the same sequence
  std::vector<std::vector<double>> cols;
  s.fill(4, 2, cols);
  EXPECT_EQ(cols[0], (std::vector<double>{1, 1}));
  EXPECT_EQ(cols[1], (std::vector<double>{0, 1}));
}

TEST(Cases, EnumerationLimitAndFloatingInputs) {
  std::vector<CaseInput> byte{{"a", Domain::int32(-128, 127)}};
  EXPECT_EQ(enumerable_count(byte, 256), 256u);
  EXPECT_FALSE(enumerable_count(byte, 255));
  std::vector<CaseInput> wide{{"a", Domain::int32()}, {"b", Domain::int32()}};
  EXPECT_FALSE(enumerable_count(wide, 100000));  // 2^64 must not overflow into a small number
  std::vector<CaseInput> mixed{{"a", Domain::int32(0, 1)}, {"x", Domain::float64(0, 1)}};
  EXPECT_FALSE(enumerable_count(mixed, 100000));
  EXPECT_EQ(enumerable_count({}, 100000), 1u);  // no inputs: the single empty case
}

TEST(Cases, SpecialValuesAreEndsAndZeroInRange) {
  EXPECT_EQ(domain_special_values(Domain::int32(-5, 7)), (std::vector<double>{-5, 0, 7}));
  EXPECT_EQ(domain_special_values(Domain::int32(3, 9)), (std::vector<double>{3, 9}));
  EXPECT_EQ(domain_special_values(Domain::float64(0, 2.5)), (std::vector<double>{0, 2.5}));
  EXPECT_EQ(domain_special_values(Domain::boolean()), (std::vector<double>{0, 1}));
}

TEST(Cases, SamplesIncludeEveryEndAndZeroAndStayInTheirDomains) {
  std::vector<CaseInput> in{{"x", Domain::float64(-3.5, 1e6)},
                            {"n", Domain::int32()},
                            {"f", Domain::float32(0.25, 8)},
                            {"b", Domain::boolean()}};
  CaseSet s = sample_cases(in, 1000, 42);
  EXPECT_FALSE(s.exhaustive());
  ASSERT_EQ(s.size(), 1000u);
  for (std::size_t k = 0; k < in.size(); ++k) {
    auto col = column(s, k);
    for (double v : domain_special_values(in[k].domain)) EXPECT_TRUE(contains(col, v)) << in[k].name << " " << v;
    for (double v : col) EXPECT_FALSE(in[k].domain.check(v)) << in[k].name << " " << v;
    std::set<double> distinct(col.begin(), col.end());
    if (in[k].name != "b") {
      EXPECT_GT(distinct.size(), 200u) << in[k].name;
    }
  }
  for (double v : column(s, 2)) EXPECT_EQ(v, round_f32(v)) << "float32 samples are binary32 values";
  // the full int32 domain still yields small values, not only huge ones
  auto n = column(s, 1);
  EXPECT_GT(std::count_if(n.begin(), n.end(), [](double v) { return std::fabs(v) <= 16; }), 100);
}

TEST(Cases, SmallProductsOfSpecialValuesAreAllCombined) {
  std::vector<CaseInput> in{{"x", Domain::float64(-1, 1)}, {"y", Domain::float64(2, 3)}};
  CaseSet s = sample_cases(in, 100, 1);
  std::set<std::pair<double, double>> seen;
  auto xs = column(s, 0), ys = column(s, 1);
  for (std::size_t c = 0; c < s.size(); ++c) seen.insert({xs[c], ys[c]});
  for (double x : {-1.0, 0.0, 1.0})
    for (double y : {2.0, 3.0}) EXPECT_TRUE(seen.count({x, y})) << x << "," << y;
}

TEST(Cases, SamplingIsDeterministicPerSeed) {
  std::vector<CaseInput> in{{"x", Domain::float64()}, {"n", Domain::int32(-1000000, 1000000)}};
  CaseSet a = sample_cases(in, 500, kDefaultVerifySeed);
  CaseSet b = sample_cases(in, 500, kDefaultVerifySeed);
  CaseSet c = sample_cases(in, 500, kDefaultVerifySeed + 1);
  EXPECT_EQ(column(a, 0), column(b, 0));
  EXPECT_EQ(column(a, 1), column(b, 1));
  EXPECT_NE(column(a, 0), column(c, 0));
  // Pinned values: a change of the generator changes what "fixed seed" means.
  CaseSet d = sample_cases({{"n", Domain::int32(0, 1000)}}, 8, 7);
  EXPECT_EQ(column(d, 0), (std::vector<double>{0, 1000, 56, 468, 2, 16, 411, 880}));
  CaseSet f = sample_cases({{"x", Domain::float64(-1, 1)}}, 6, 7);
  EXPECT_EQ(column(f, 0), (std::vector<double>{-1, 0, 1, 2.9306939994989522e-08, -0.064093991554253105,
                                               -2.3075268688345522e-16}));
}

TEST(Cases, RandomSamplesDoNotRepeatACase) {
  // The small-integer draws used to repeat: a=5 came 90 times in 10,000
  // cases of int32:-1000000:1000000 (issue 38 item 6).
  for (const auto& in : {std::vector<CaseInput>{{"a", Domain::int32(-1000000, 1000000)}},
                         std::vector<CaseInput>{{"a", Domain::int32(-20, 20)}, {"b", Domain::int32(-20, 20)}},
                         std::vector<CaseInput>{{"x", Domain::float32(-2, 2)}}}) {
    CaseSet set = sample_cases(in, 1000);
    std::set<std::vector<double>> distinct;
    std::vector<std::vector<double>> cols;
    for (std::size_t k = 0; k < in.size(); ++k) cols.push_back(column(set, k));
    for (std::size_t c = 0; c < set.size(); ++c) {
      std::vector<double> row;
      for (const auto& col : cols) row.push_back(col[c]);
      distinct.insert(row);
    }
    EXPECT_EQ(distinct.size(), set.size()) << in.front().name << " over " << in.size() << " input(s)";
  }
  // A domain with fewer values than the samples still ends (with repeats).
  CaseSet small = sample_cases({{"a", Domain::int32(0, 3)}}, 50);
  EXPECT_EQ(small.size(), 50u);
  std::vector<double> values = column(small, 0);
  EXPECT_EQ(std::set<double>(values.begin(), values.end()), (std::set<double>{0, 1, 2, 3}));
}

TEST(Cases, MaxCasesBoundaryIsInclusive) {
  EXPECT_EQ(enumerable_count({{"a", Domain::int32(0, 99999)}}, 100000), 100000u);
  EXPECT_FALSE(enumerable_count({{"a", Domain::int32(0, 100000)}}, 100000));
  EXPECT_EQ(enumerable_count({{"a", Domain::int32(0, 9)}, {"b", Domain::int32(0, 9999)}}, 100000), 100000u);
  EXPECT_FALSE(enumerable_count({{"a", Domain::int32(0, 9)}, {"b", Domain::int32(0, 9999)}, {"c", Domain::boolean()}},
                                100000));
}

TEST(Cases, FullFloatRangeSamplesAreFinite) {
  CaseSet s = sample_cases({{"x", Domain::float64()}, {"y", Domain::float32()}}, 400);
  for (std::size_t k = 0; k < 2; ++k)
    for (double v : column(s, k)) EXPECT_TRUE(std::isfinite(v));
  auto xs = column(s, 0);
  EXPECT_TRUE(contains(xs, -DBL_MAX));
  EXPECT_TRUE(contains(xs, DBL_MAX));
  EXPECT_TRUE(contains(xs, 0.0));
  EXPECT_GT(std::count_if(xs.begin(), xs.end(), [](double v) { return v != 0 && std::fabs(v) < 1e6; }), 50);
}

TEST(Cases, ParsesJsonLines) {
  std::vector<CaseInput> in{{"a", Domain::int32(-128, 127)}, {"on", Domain::boolean()}, {"x", Domain::float64()}};
  auto s = parse_cases_jsonl("{\"a\": 5, \"on\": true, \"x\": 0.5}\n\n{\"x\": -1e300, \"a\": -128, \"on\": 0}\r\n",
                             in, "c.jsonl");
  ASSERT_TRUE(s) << s.error().format();
  EXPECT_FALSE(s->exhaustive());
  ASSERT_EQ(s->size(), 2u);
  EXPECT_EQ(s->at(0), (std::vector<double>{5, 1, 0.5}));
  EXPECT_EQ(s->at(1), (std::vector<double>{-128, 0, -1e300}));
}

TEST(Cases, RejectsBadLinesNamingTheLine) {
  std::vector<CaseInput> in{{"a", Domain::int32(-128, 127)}};
  struct Bad {
    const char* text;
    int line;
    const char* says;
  } cases[] = {
      {"{\"a\": 1}\n{\"a\": \n", 2, "invalid json"},
      {"{\"a\": 1}\n\n[1]\n", 3, "json object"},
      {"{\"b\": 1}\n", 1, "'b' is not an input"},
      {"{}\n", 1, "input 'a' is missing"},
      {"{\"a\": 300}\n", 1, "above the maximum 127"},
      {"{\"a\": 1.5}\n", 1, "not an integer"},
      {"{\"a\": \"1\"}\n", 1, "must be a number"},
  };
  for (const Bad& b : cases) {
    auto s = parse_cases_jsonl(b.text, in, "c.jsonl");
    ASSERT_FALSE(s) << b.text;
    EXPECT_EQ(s.error().loc->line, b.line) << b.text;
    EXPECT_NE(s.error().message.find(b.says), std::string::npos) << s.error().message;
    EXPECT_EQ(s.error().format().rfind("c.jsonl:" + std::to_string(b.line) + ":1: error: ", 0), 0u)
        << s.error().format();
  }
}

TEST(Cases, PlanFollowsTheContractOrder) {
  std::vector<CaseInput> small{{"a", Domain::int32(0, 9)}};
  std::vector<CaseInput> floating{{"x", Domain::float64(0, 1)}};
  auto supplied = parse_cases_jsonl("{\"x\": 0.5}\n{\"x\": 0.25}\n", floating, "c.jsonl");
  ASSERT_TRUE(supplied);

  CasePlanOptions o;
  auto p = plan_cases(small, o);
  ASSERT_TRUE(p);
  EXPECT_TRUE(p->exhaustive());
  EXPECT_EQ(p->size(), 10u);

  o.max_cases = 5;  // too many to enumerate: sample
  p = plan_cases(small, o);
  ASSERT_TRUE(p);
  EXPECT_FALSE(p->exhaustive());
  EXPECT_EQ(p->size(), o.samples);

  o = {};
  o.samples = 33;
  p = plan_cases(floating, o);
  ASSERT_TRUE(p);
  EXPECT_FALSE(p->exhaustive());
  EXPECT_EQ(p->size(), 33u);

  o.supplied = &*supplied;  // supplied cases win over sampling
  p = plan_cases(floating, o);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->size(), 2u);
  EXPECT_EQ(p->at(1), (std::vector<double>{0.25}));

  o = {};
  o.samples = 0;
  EXPECT_FALSE(plan_cases(floating, o));
}

TEST(Cases, ProgramInputsInIdOrder) {
  Builder b;
  auto y = b.input("y", Domain::int32(0, 3));
  auto x = b.input("x", Domain::boolean());
  auto p = b.build(y + x);
  ASSERT_TRUE(p);
  auto in = program_inputs(*p);
  ASSERT_EQ(in.size(), 2u);
  EXPECT_EQ(in[0].name, "y");
  EXPECT_EQ(in[1].name, "x");
  EXPECT_EQ(in[1].domain.type, DomainType::Boolean);
}

}  // namespace
}  // namespace tc
