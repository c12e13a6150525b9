// op_derivatives.h, the one home of the derivative rules: every op of the
// table has a rule whose terms reach exactly the arguments ops.def's grad
// column says a derivative flows through, in each semantics; every term is
// defined and reads arguments the node has; and each term instantiates
// over a lane type whose values are C expression text (codegen/c_lanes.h),
// the spelling the batched tape's compiled reverse pass writes.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "codegen/c_lanes.h"
#include "ir/op.h"
#include "ir/op_derivatives.h"

namespace tc {
namespace {

/// A node of `count` arguments, all of which carry (affine: one term per
/// argument; sparse: in reverse order).
struct Shape {
  Op op;
  std::size_t n;
  std::size_t count() const { return n; }
  bool carries(int) const { return true; }
  std::size_t terms() const { return n; }
  int term_arg(std::size_t j) const { return static_cast<int>(n - 1 - j); }
};

/// An argument count the op accepts (variadic ops: a few values).
std::size_t arity(const OpInfo& info) {
  if (info.max_args >= 0) return static_cast<std::size_t>(info.max_args);
  if (info.op == Op::GatherOneHot) return 6;  // three selectors, three values
  return static_cast<std::size_t>(std::max(info.min_args, 3));
}

struct Term {
  int k;
  sem::TermKind kind;
  std::size_t j;
};

std::vector<Term> terms_of(Op op, Semantics s, std::size_t count, bool* has_rule) {
  std::vector<Term> out;
  *has_rule = sem::vjp_terms(op, s, Shape{op, count}, [&](int k, sem::TermKind kind, std::size_t j) {
    out.push_back({k, kind, j});
  });
  return out;
}

TEST(DerivativeRules, EveryOpOfTheTableHasARuleThatReachesTheArgumentsItsRowSays) {
  for (int o = 0; o < kOpCount; ++o) {
    const Op op = static_cast<Op>(o);
    const OpInfo& info = op_info(op);
    const std::size_t count = arity(info);
    for (Semantics s : {Semantics::Exact, Semantics::Relaxed, Semantics::Hybrid}) {
      SCOPED_TRACE(std::string(info.name) + " " + std::string(to_string(s)));
      bool has_rule = false;
      const std::vector<Term> terms = terms_of(op, s, count, &has_rule);
      if (info.kind == OpKind::Host) {
        // A host call's rule is its binding's vjp.
        EXPECT_FALSE(has_rule);
        continue;
      }
      ASSERT_TRUE(has_rule) << "no derivative rule in op_derivatives.h";
      // The arguments the terms reach are those ops.def's grad column lets
      // a derivative flow through (tape.cpp's edge_may_carry): a Smooth op
      // without terms, or one that forgets an argument, fails here.
      std::set<int> reached, expected;
      for (const Term& t : terms) reached.insert(t.k);
      if (info.grad != OpGrad::Flat)
        for (int k = 0; k < static_cast<int>(count); ++k)
          if (!info.is_decision_arg(k, static_cast<int>(count)) || s != Semantics::Exact) expected.insert(k);
      EXPECT_EQ(reached, expected);
      for (const Term& t : terms) {
        EXPECT_LT(t.k, static_cast<int>(count));
        sem::TermFacts facts;
        const bool defined = sem::with_term(t.kind, op, [&](auto term) {
          using Tm = decltype(term);
          facts = sem::TermFacts{Tm::reads, Tm::factor, Tm::pick};
        });
        EXPECT_TRUE(defined) << "term " << static_cast<int>(t.kind) << " has no definition for this op";
        for (int q = 0; q < facts.reads.count; ++q) {
          EXPECT_GE(facts.reads.at(q, t.j), 0);
          EXPECT_LT(facts.reads.at(q, t.j), static_cast<int>(count));
        }
        if (facts.factor == sem::Factor::Weight) {
          EXPECT_LT(t.j, sem::factor_width(op, count));
        }
        if (facts.factor == sem::Factor::Coef) {
          EXPECT_LT(t.j, count);
        }
      }
    }
  }
}

/// A term as the C writers spell it (codegen/c_lanes.h's spell_term, the
/// one spelling the batched tape's compiled plan writes): a pick as
/// "(mask ? value : skip)".
std::string spell(sem::TermKind kind, Op op) {
  const codegen::SpelledTerm t = codegen::spell_term(kind, op, "g", "a", "b", "f", "j");
  if (!t.defined) return "undefined";
  return t.mask.empty() ? t.value : "(" + t.mask + " ? " + t.value + " : skip)";
}

TEST(DerivativeRules, EveryTermSpellsAsACExpression) {
  using K = sem::TermKind;
  // a, b: the values the term reads (Term::reads); f: its factor; values
  // are vectors (tc_v), masks lane masks (tc_m).
  EXPECT_EQ(spell(K::G, Op::Add), "g");
  EXPECT_EQ(spell(K::NegG, Op::Sub), "(-g)");
  EXPECT_EQ(spell(K::TimesOther, Op::Mul), "(g * a)");
  EXPECT_EQ(spell(K::DivNum, Op::Div), "(g / a)");
  EXPECT_EQ(spell(K::DivDen, Op::Div), "(((-g) * (a / b)) / b)");
  EXPECT_EQ(spell(K::ModDen, Op::Mod), "((-g) * tc_floordiv(a, b))");
  EXPECT_EQ(spell(K::Slope, Op::Lt), "(g * f)");
  EXPECT_EQ(spell(K::NegSlope, Op::Lt), "((-g) * f)");
  EXPECT_EQ(spell(K::SelDiff, Op::Select), "(g * (a - b))");
  EXPECT_EQ(spell(K::SelC, Op::Select), "(g * a)");
  EXPECT_EQ(spell(K::SelNotC, Op::Select), "(g * (TC_ONE - a))");
  EXPECT_EQ(spell(K::PickYes, Op::Select), "(((tc_m)(a != TC_ZERO)) ? g : skip)");
  EXPECT_EQ(spell(K::PickNo, Op::Select), "(((tc_m)(a == TC_ZERO)) ? g : skip)");
  EXPECT_EQ(spell(K::Relu, Op::Relu), "TC_SEL(((tc_m)(a > TC_ZERO)), g, TC_ZERO)");
  // sigmoid's slope is binary64 only: the host's, lane by lane; square's is
  // written over any lane type.
  EXPECT_EQ(spell(K::UnarySlope, Op::Sigmoid), "(g * tc_slope(" + std::to_string(static_cast<int>(Op::Sigmoid)) + ", a))");
  EXPECT_EQ(spell(K::UnarySlope, Op::Square), "(g * ((TC_ONE + TC_ONE) * a))");
  EXPECT_EQ(spell(K::UnarySlope, Op::Add), "undefined");  // add is not a one-argument kernel
  EXPECT_EQ(spell(K::Coef, Op::Affine), "(g * f)");
  EXPECT_EQ(spell(K::GatherPick, Op::Gather), "(((tc_m)(a == j)) ? g : skip)");
  EXPECT_EQ(spell(K::GatherWeight, Op::Gather), "(g * f)");
  EXPECT_EQ(spell(K::GatherIndex, Op::Gather), "(g * f)");
  EXPECT_EQ(spell(K::OneHotPick, Op::GatherOneHot), "(((tc_m)(a == TC_ONE)) ? g : skip)");
  static_assert(sem::kTermKinds == 20, "a new term: spell it here");
}

}  // namespace
}  // namespace tc
