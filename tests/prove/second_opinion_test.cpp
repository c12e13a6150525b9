// The second solver's side: the script it is given and the values read
// back from its (get-value ...) answer, then one real cvc5 run (SKIPPED in
// the gtest sense where the cvc5 binary is not installed).
#include <gtest/gtest.h>

#include <cmath>

#include <z3++.h>

#include "prove/encode.h"
#include "prove/second_opinion.h"

namespace tc {
namespace {

TEST(ProveSecondOpinion, ReadsBinary64Binary32AndIntegerValues) {
  // cvc5 1.0.3's answer for a binary64 1.0, a binary32 -0.0 and the int32
  // -2147483648 (captured from the binary).
  const std::string text =
      "sat\n((x (fp #b0 #b01111111111 #b0000000000000000000000000000000000000000000000000000)) "
      "(y (fp #b1 #b00000000 #b00000000000000000000000)) (z #b10000000000000000000000000000000) (w (_ +zero 11 53)))\n";
  const auto v = prove::read_cvc5_values(text, {"x", "y", "z", "w", "missing"});
  ASSERT_EQ(v.size(), 4u);
  EXPECT_EQ(v.at("x"), 1.0);
  EXPECT_EQ(v.at("y"), 0.0);
  EXPECT_TRUE(std::signbit(v.at("y")));
  EXPECT_EQ(v.at("z"), -2147483648.0);
  EXPECT_FALSE(std::signbit(v.at("w")));
}

TEST(ProveSecondOpinion, Cvc5AnswersAndItsValuesSatisfyTheQuery) {
  z3::context c;
  z3::expr x = c.fpa_const("in_0", 11, 53);
  z3::expr n = c.bv_const("in_1", 32);
  const z3::expr rne(c, Z3_mk_fpa_rne(c));
  // x * 3 == 7.5 has the one solution 2.5; n + 5 == 0 has -5.
  const z3::expr q = z3::expr(c, Z3_mk_fpa_eq(c, z3::expr(c, Z3_mk_fpa_mul(c, rne, x, prove::fp_constant(c, 3.0, false))),
                                               prove::fp_constant(c, 7.5, false))) &&
                     (n + c.bv_val(5, 32)) == c.bv_val(0, 32);
  const std::vector<std::string> vars = {"in_0", "in_1"};
  const std::string script = prove::smtlib_script(q, vars);
  EXPECT_NE(script.find("(check-sat)"), std::string::npos);
  EXPECT_NE(script.find("(get-value (in_0 in_1))"), std::string::npos) << script;
  const auto r = prove::ask_cvc5("cvc5", script, vars, 30);
  if (r.answer.answer == "unavailable") GTEST_SKIP() << "cvc5 is not installed";
  ASSERT_EQ(r.answer.answer, "sat") << r.answer.detail;
  EXPECT_EQ(r.model.at("in_0"), 2.5);
  EXPECT_EQ(r.model.at("in_1"), -5.0);
  // The negation has no model: unsat.
  const auto u = prove::ask_cvc5("cvc5", prove::smtlib_script(q && !z3::expr(c, Z3_mk_fpa_eq(c, x, prove::fp_constant(c, 2.5, false)))), {}, 30);
  EXPECT_EQ(u.answer.answer, "unsat") << u.answer.detail;
}

}  // namespace
}  // namespace tc
