#pragma once
/// Each op's derivative rule, written once, beside its value
/// (op_semantics.h). The per-case tape (grad/tape_vjp.cpp) and the batched
/// tape's block kernels (grad/batch_fast.cpp) both run these; neither
/// spells a derivative of its own.
///
/// A rule is a list of terms: for node n with adjoint g, term (k, T, j)
/// adds T's contribution to argument k's adjoint. vjp_terms() lists a
/// node's terms in the order they are added (the order is part of the
/// bits: adjoints are sums). A term is a type (Term<T> below) that says
///   reads        which argument values it reads (at most two; j picks one
///                for the terms over a list of arguments)
///   factor       a number of the node it multiplies by: a surrogate slope
///                or a gather weight, which the consumer computes once per
///                node and lane (node_factors()), or an affine coefficient
///   pick         whether it is added only where a per-lane mask holds
///                (an exact choice: the chosen branch, the indexed value)
///   value<L>     its contribution, lane-generic over op_semantics.h's lane
///                types plus floordiv() and slope<K>() (GradLanes below)
///   mask<L>      a pick's mask
/// so a consumer runs a term over any lane type: one double (the per-case
/// tape), a block's lane loop (with a blend for if_then_else, so the loop
/// vectorises), or a lane type whose values are expression text, which is
/// how a C writer would spell the same rule (tests/grad/
/// derivative_rules_test.cpp spells every term that way).
///
/// A new op adds its case to vjp_terms() (a switch over every op, so the
/// compiler asks for it) and, when no existing term fits, one Term with
/// its case in with_term().
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "ir/domain.h"
#include "ir/op.h"
#include "ir/op_semantics.h"

namespace tc::sem {

/// The lane type the derivative terms are written over: op_semantics.h's
/// IEEE operations, a constant, and the two binary64 functions a term
/// calls (Python's floor division, a one-argument kernel's slope).
template <class T>
struct GradLanes : Lanes<T> {
  static T lit(double c) { return static_cast<T>(c); }
  static T floordiv(T a, T b) { return sem::floordiv(a, b); }
  template <class K>
  static T slope(T x) { return K::slope(x); }
};

/// The terms of the derivative rules. Each is defined once below.
enum class TermKind : std::uint8_t {
  G,            ///< g (add, sub's first argument, mod's dividend)
  NegG,         ///< -g
  TimesOther,   ///< g * argument j (mul; gather_one_hot's selectors and values)
  DivNum,       ///< g / b
  DivDen,       ///< -g * (a / b) / b
  ModDen,       ///< -g * floordiv(a, b)
  Slope,        ///< g * d, d the relaxed comparison's slope
  NegSlope,     ///< -g * d
  SelDiff,      ///< g * (a - b): select's condition
  SelC,         ///< g * c: relaxed select's first branch
  SelNotC,      ///< g * (1 - c)
  PickYes,      ///< g where the hard condition holds
  PickNo,       ///< g where it does not
  Relu,         ///< g where the argument is > 0, else +0
  UnarySlope,   ///< g * the one-argument kernel's slope (sem::unary)
  Coef,         ///< g * affine coefficient j
  GatherPick,   ///< g where the index is j
  GatherWeight, ///< g * the normalised weight of value j (relaxed gather)
  GatherIndex,  ///< g * d, d the weighted sum's slope in the index
  OneHotPick,   ///< g where selector j is 1
};
inline constexpr int kTermKinds = static_cast<int>(TermKind::OneHotPick) + 1;

/// What a term multiplies by besides g and the values it reads.
enum class Factor : std::uint8_t {
  None,
  Slope,   ///< the node's d (node_factors(): a comparison's or gather index's slope)
  Weight,  ///< the node's normalised weight j (node_factors())
  Coef,    ///< the node's stored coefficient j (affine, not rounded)
};

/// Which argument values a term reads: reads[r] for r < count, where
/// kJ stands for argument j.
inline constexpr int kJ = -1;
struct Reads {
  int count = 0;
  std::array<int, 2> arg{0, 0};
  constexpr int at(int r, std::size_t j) const { return arg[static_cast<std::size_t>(r)] == kJ ? static_cast<int>(j) : arg[static_cast<std::size_t>(r)]; }
};

template <TermKind T> struct Term;

// value<L>(g, a, b, f): a, b the values `reads` names (unused ones are
// zero), f the factor. mask<L>(a, jv): jv is j as a value.
template <> struct Term<TermKind::G> {
  static constexpr Reads reads{};
  static constexpr Factor factor = Factor::None;
  static constexpr bool pick = false;
  template <class L> static TC_KERNEL V<L> value(V<L> g, V<L>, V<L>, V<L>) { return g; }
};
template <> struct Term<TermKind::NegG> {
  static constexpr Reads reads{};
  static constexpr Factor factor = Factor::None;
  static constexpr bool pick = false;
  template <class L> static TC_KERNEL V<L> value(V<L> g, V<L>, V<L>, V<L>) { return L::neg(g); }
};
template <> struct Term<TermKind::TimesOther> {
  static constexpr Reads reads{1, {kJ, 0}};
  static constexpr Factor factor = Factor::None;
  static constexpr bool pick = false;
  template <class L> static TC_KERNEL V<L> value(V<L> g, V<L> y, V<L>, V<L>) { return L::mul(g, y); }
};
template <> struct Term<TermKind::DivNum> {
  static constexpr Reads reads{1, {1, 0}};
  static constexpr Factor factor = Factor::None;
  static constexpr bool pick = false;
  template <class L> static TC_KERNEL V<L> value(V<L> g, V<L> b, V<L>, V<L>) { return L::div(g, b); }
};
template <> struct Term<TermKind::DivDen> {
  static constexpr Reads reads{2, {0, 1}};
  static constexpr Factor factor = Factor::None;
  static constexpr bool pick = false;
  template <class L> static TC_KERNEL V<L> value(V<L> g, V<L> a, V<L> b, V<L>) {
    return L::div(L::mul(L::neg(g), L::div(a, b)), b);
  }
};
template <> struct Term<TermKind::ModDen> {  // mod = a - b*floor(a/b): slope -floor(a/b) in b
  static constexpr Reads reads{2, {0, 1}};
  static constexpr Factor factor = Factor::None;
  static constexpr bool pick = false;
  template <class L> static TC_KERNEL V<L> value(V<L> g, V<L> a, V<L> b, V<L>) {
    return L::mul(L::neg(g), L::floordiv(a, b));
  }
};
template <> struct Term<TermKind::Slope> {
  static constexpr Reads reads{};
  static constexpr Factor factor = Factor::Slope;
  static constexpr bool pick = false;
  template <class L> static TC_KERNEL V<L> value(V<L> g, V<L>, V<L>, V<L> d) { return L::mul(g, d); }
};
template <> struct Term<TermKind::NegSlope> {
  static constexpr Reads reads{};
  static constexpr Factor factor = Factor::Slope;
  static constexpr bool pick = false;
  template <class L> static TC_KERNEL V<L> value(V<L> g, V<L>, V<L>, V<L> d) { return L::mul(L::neg(g), d); }
};
template <> struct Term<TermKind::SelDiff> {  // hybrid: the hard c's slope as the relaxed form's
  static constexpr Reads reads{2, {1, 2}};
  static constexpr Factor factor = Factor::None;
  static constexpr bool pick = false;
  template <class L> static TC_KERNEL V<L> value(V<L> g, V<L> a, V<L> b, V<L>) { return L::mul(g, L::sub(a, b)); }
};
template <> struct Term<TermKind::SelC> {
  static constexpr Reads reads{1, {0, 0}};
  static constexpr Factor factor = Factor::None;
  static constexpr bool pick = false;
  template <class L> static TC_KERNEL V<L> value(V<L> g, V<L> c, V<L>, V<L>) { return L::mul(g, c); }
};
template <> struct Term<TermKind::SelNotC> {
  static constexpr Reads reads{1, {0, 0}};
  static constexpr Factor factor = Factor::None;
  static constexpr bool pick = false;
  template <class L> static TC_KERNEL V<L> value(V<L> g, V<L> c, V<L>, V<L>) { return L::mul(g, L::sub(L::one(), c)); }
};
template <> struct Term<TermKind::PickYes> {  // the branch select_exact chooses
  static constexpr Reads reads{1, {0, 0}};
  static constexpr Factor factor = Factor::None;
  static constexpr bool pick = true;
  template <class L> static TC_KERNEL V<L> value(V<L> g, V<L>, V<L>, V<L>) { return g; }
  template <class L> static TC_KERNEL typename L::M mask(V<L> c, V<L>) { return L::ne(c, L::zero()); }
};
template <> struct Term<TermKind::PickNo> {
  static constexpr Reads reads{1, {0, 0}};
  static constexpr Factor factor = Factor::None;
  static constexpr bool pick = true;
  template <class L> static TC_KERNEL V<L> value(V<L> g, V<L>, V<L>, V<L>) { return g; }
  /// c == 0 is exactly "not c != 0" (a NaN condition chooses the first branch).
  template <class L> static TC_KERNEL typename L::M mask(V<L> c, V<L>) { return L::eq(c, L::zero()); }
};
template <> struct Term<TermKind::Relu> {  // +0 where x <= 0 (or NaN), as relu's own choice
  static constexpr Reads reads{1, {0, 0}};
  static constexpr Factor factor = Factor::None;
  static constexpr bool pick = false;
  template <class L> static TC_KERNEL V<L> value(V<L> g, V<L> x, V<L>, V<L>) {
    return L::if_then_else(L::gt(x, L::zero()), g, L::zero());
  }
};
/// K: op_semantics.h's Unary<op> (sigmoid, square).
template <class K> struct UnarySlopeTerm {
  static constexpr Reads reads{1, {0, 0}};
  static constexpr Factor factor = Factor::None;
  static constexpr bool pick = false;
  template <class L> static TC_KERNEL V<L> value(V<L> g, V<L> x, V<L>, V<L>) { return L::mul(g, L::template slope<K>(x)); }
};
template <> struct Term<TermKind::Coef> {
  static constexpr Reads reads{};
  static constexpr Factor factor = Factor::Coef;
  static constexpr bool pick = false;
  template <class L> static TC_KERNEL V<L> value(V<L> g, V<L>, V<L>, V<L> c) { return L::mul(g, c); }
};
template <> struct Term<TermKind::GatherPick> {  // a checked index is an integer in range: one j matches
  static constexpr Reads reads{1, {0, 0}};
  static constexpr Factor factor = Factor::None;
  static constexpr bool pick = true;
  template <class L> static TC_KERNEL V<L> value(V<L> g, V<L>, V<L>, V<L>) { return g; }
  template <class L> static TC_KERNEL typename L::M mask(V<L> index, V<L> jv) { return L::eq(index, jv); }
};
template <> struct Term<TermKind::GatherWeight> {
  static constexpr Reads reads{};
  static constexpr Factor factor = Factor::Weight;
  static constexpr bool pick = false;
  template <class L> static TC_KERNEL V<L> value(V<L> g, V<L>, V<L>, V<L> w) { return L::mul(g, w); }
};
template <> struct Term<TermKind::GatherIndex> {
  static constexpr Reads reads{};
  static constexpr Factor factor = Factor::Slope;
  static constexpr bool pick = false;
  template <class L> static TC_KERNEL V<L> value(V<L> g, V<L>, V<L>, V<L> d) { return L::mul(g, d); }
};
template <> struct Term<TermKind::OneHotPick> {
  static constexpr Reads reads{1, {kJ, 0}};
  static constexpr Factor factor = Factor::None;
  static constexpr bool pick = true;
  template <class L> static TC_KERNEL V<L> value(V<L> g, V<L>, V<L>, V<L>) { return g; }
  template <class L> static TC_KERNEL typename L::M mask(V<L> sel, V<L>) { return L::eq(sel, L::one()); }
};

/// Calls fn(Tm{}) with the term type of `kind` (UnarySlope: of node op
/// `op`'s kernel), so a consumer compiles each term's loop once. Returns
/// false when `op` has no one-argument kernel for UnarySlope.
template <class Fn>
TC_KERNEL bool with_term(TermKind kind, Op op, Fn&& fn) {
  switch (kind) {
    case TermKind::G: fn(Term<TermKind::G>{}); return true;
    case TermKind::NegG: fn(Term<TermKind::NegG>{}); return true;
    case TermKind::TimesOther: fn(Term<TermKind::TimesOther>{}); return true;
    case TermKind::DivNum: fn(Term<TermKind::DivNum>{}); return true;
    case TermKind::DivDen: fn(Term<TermKind::DivDen>{}); return true;
    case TermKind::ModDen: fn(Term<TermKind::ModDen>{}); return true;
    case TermKind::Slope: fn(Term<TermKind::Slope>{}); return true;
    case TermKind::NegSlope: fn(Term<TermKind::NegSlope>{}); return true;
    case TermKind::SelDiff: fn(Term<TermKind::SelDiff>{}); return true;
    case TermKind::SelC: fn(Term<TermKind::SelC>{}); return true;
    case TermKind::SelNotC: fn(Term<TermKind::SelNotC>{}); return true;
    case TermKind::PickYes: fn(Term<TermKind::PickYes>{}); return true;
    case TermKind::PickNo: fn(Term<TermKind::PickNo>{}); return true;
    case TermKind::Relu: fn(Term<TermKind::Relu>{}); return true;
    case TermKind::UnarySlope:
      return unary(op, [&](auto k) { fn(UnarySlopeTerm<decltype(k)>{}); });
    case TermKind::Coef: fn(Term<TermKind::Coef>{}); return true;
    case TermKind::GatherPick: fn(Term<TermKind::GatherPick>{}); return true;
    case TermKind::GatherWeight: fn(Term<TermKind::GatherWeight>{}); return true;
    case TermKind::GatherIndex: fn(Term<TermKind::GatherIndex>{}); return true;
    case TermKind::OneHotPick: fn(Term<TermKind::OneHotPick>{}); return true;
  }
  return false;
}

/// The reads, factor and pick of `kind` at run time (for planning).
struct TermFacts {
  Reads reads;
  Factor factor = Factor::None;
  bool pick = false;
};
inline TermFacts term_facts(TermKind kind, Op op) {
  TermFacts f;
  with_term(kind, op, [&](auto t) {
    using Tm = decltype(t);
    f = TermFacts{Tm::reads, Tm::factor, Tm::pick};
  });
  return f;
}

// ------------------------------------------------------------ the rules

/// Each op's rule in semantics `s`: f(k, kind, j) per term, in the order the
/// terms are added, skipping arguments through which no derivative can
/// reach a reported leaf. S describes the node:
///   std::size_t count()          number of arguments
///   bool carries(int k)          argument k can take a derivative
///   std::size_t terms(), int term_arg(j)   affine terms (sparse: the argument of term j)
/// Returns false for a host call (its binding's vjp is the rule); every
/// other op's rule is here (leaves and floordiv have no terms).
template <class S, class F>
inline bool vjp_terms(Op op, Semantics s, const S& n, F&& f) {
  auto go = [&](int k, TermKind t, std::size_t j = 0) {
    if (n.carries(k)) f(k, t, j);
  };
  switch (op) {
    case Op::Input: case Op::Parameter: case Op::Constant: case Op::State:
      return true;
    case Op::FloorDiv:
      return true;  // piecewise constant
    case Op::Raise:
      return true;  // no arguments; a case that reaches it fails and has no gradient
    case Op::Add: go(0, TermKind::G); go(1, TermKind::G); return true;
    case Op::Sub: go(0, TermKind::G); go(1, TermKind::NegG); return true;
    case Op::Mul: go(0, TermKind::TimesOther, 1); go(1, TermKind::TimesOther, 0); return true;
    case Op::Div: go(0, TermKind::DivNum); go(1, TermKind::DivDen); return true;
    case Op::Neg: go(0, TermKind::NegG); return true;
    case Op::Mod: go(0, TermKind::G); go(1, TermKind::ModDen); return true;
    case Op::Lt: case Op::Le: case Op::Gt: case Op::Ge: case Op::Eq: case Op::Ne:
      // Exact: a decision, no slope. Relaxed, and hybrid's surrogate: the
      // relaxed form's slope at this point.
      if (s == Semantics::Exact) return true;
      go(0, TermKind::Slope);
      go(1, TermKind::NegSlope);
      return true;
    case Op::Select:
      if (s == Semantics::Relaxed) {
        go(0, TermKind::SelDiff);
        go(1, TermKind::SelC);
        go(2, TermKind::SelNotC);
        return true;
      }
      go(1, TermKind::PickYes);
      go(2, TermKind::PickNo);
      if (s == Semantics::Hybrid) go(0, TermKind::SelDiff);  // dc = a - b with the hard c
      return true;
    case Op::Relu: go(0, TermKind::Relu); return true;
    case Op::Sigmoid: case Op::Square: go(0, TermKind::UnarySlope); return true;
    // The math module's functions: g times the row's slope (math_functions.h).
    case Op::Sqrt: case Op::Exp: case Op::Expm1: case Op::Log: case Op::Log2: case Op::Log10: case Op::Log1p:
    case Op::Sin: case Op::Cos: case Op::Tan: case Op::Atan: case Op::Tanh:
      go(0, TermKind::UnarySlope);
      return true;
    case Op::Affine: case Op::SparseAffine:
      for (std::size_t j = 0; j < n.terms(); ++j)
        go(op == Op::Affine ? static_cast<int>(j) : n.term_arg(j), TermKind::Coef, j);
      return true;
    case Op::Gather: {
      // The chosen value gets g; relaxed, every value its weight's share;
      // relaxed and hybrid (where the index carries), the index the
      // weighted sum's slope.
      const std::size_t values = n.count() - 1;
      if (s != Semantics::Relaxed)
        for (std::size_t k = 0; k < values; ++k) go(1 + static_cast<int>(k), TermKind::GatherPick, k);
      if (s == Semantics::Exact || (s == Semantics::Hybrid && !n.carries(0))) return true;
      if (s == Semantics::Relaxed)
        for (std::size_t k = 0; k < values; ++k) go(1 + static_cast<int>(k), TermKind::GatherWeight, k);
      go(0, TermKind::GatherIndex);
      return true;
    }
    case Op::GatherOneHot: {
      const std::size_t half = n.count() / 2;
      if (s == Semantics::Relaxed) {
        for (std::size_t k = 0; k < half; ++k) {
          go(static_cast<int>(k), TermKind::TimesOther, half + k);
          go(static_cast<int>(half + k), TermKind::TimesOther, k);
        }
        return true;
      }
      for (std::size_t k = 0; k < half; ++k) go(static_cast<int>(half + k), TermKind::OneHotPick, k);
      if (s == Semantics::Hybrid)  // the weighted sum's slope in selector k
        for (std::size_t k = 0; k < half; ++k) go(static_cast<int>(k), TermKind::TimesOther, half + k);
      return true;
    }
    case Op::Call:
      return false;
  }
  return false;
}

// ------------------------------------------------------------ node factors

/// A relaxed comparison's slope in its first argument (the second's is its
/// negative) through surrogate S (grad/surrogate.h's policy: step_slope,
/// equal, log_bump_slope) at temperature t.
template <class S>
inline double compare_slope(Op op, double x, double y, double t, const S& s) {
  switch (op) {
    case Op::Gt: case Op::Ge: return s.step_slope((x - y) / t) / t;
    case Op::Lt: case Op::Le: return -s.step_slope((y - x) / t) / t;
    case Op::Eq: case Op::Ne: {
      const double z = (x - y) / t;
      const double d = s.equal(x, y, t) * s.log_bump_slope(z) / t;
      return op == Op::Ne ? -d : d;
    }
    default: return 0.0;
  }
}

/// The relaxed gather's weights: w(k), the normalised weight of value k,
/// is bump(index - k) as the forward weighs it (the surrogate's equal)
/// over their sum in argument order, as sem::gather_relaxed adds them.
template <class S, class W>
inline void gather_normalised_weights(std::size_t values, double index, const S& s, double t, W&& w) {
  for (std::size_t k = 0; k < values; ++k) w(k) = s.equal(index, static_cast<double>(k), t);
  double den = 0.0;
  for (std::size_t k = 0; k < values; ++k) den = den + w(k);
  for (std::size_t k = 0; k < values; ++k) w(k) /= den;
}
/// d/dindex of sum_k w_k v_k with w_k = bump_k / sum_j bump_j, from the
/// normalised weights: dw_k = w_k (l_k - sum_j w_j l_j), l_k = d log bump_k
/// / d index. value(k) is value k (argument k + 1).
template <class S, class W, class X>
inline double gather_index_slope(std::size_t values, double index, const S& s, double t, W&& w, X&& value) {
  double dl_mean = 0.0;
  for (std::size_t k = 0; k < values; ++k) dl_mean += w(k) * s.log_bump_slope((index - static_cast<double>(k)) / t) / t;
  double dindex = 0.0;
  for (std::size_t k = 0; k < values; ++k) {
    const double l = s.log_bump_slope((index - static_cast<double>(k)) / t) / t;
    dindex += w(k) * (l - dl_mean) * value(k);
  }
  return dindex;
}

/// How many weights node_factors() writes for a node (0: none).
inline std::size_t factor_width(Op op, std::size_t count) { return op == Op::Gather ? count - 1 : 0; }

/// The factors a node's terms read, for one lane, computed once per node:
/// returns d (Factor::Slope) and writes w(k) (Factor::Weight). N reads the
/// node for the lane: double x(k), double temperature(), the surrogate
/// (step_slope, equal, log_bump_slope) through policy(), bool carries(k),
/// std::size_t count(). Call it only for a node some term of which has
/// Factor::Slope or Factor::Weight; it reads what factor_reads() names.
template <class N, class W>
inline double node_factors(Op op, Semantics s, const N& n, W&& w) {
  if (op == Op::Gather) {
    const std::size_t values = n.count() - 1;
    const double index = n.x(0);
    gather_normalised_weights(values, index, n.policy(), n.temperature(), w);
    if (!n.carries(0) || s == Semantics::Exact) return 0.0;
    return gather_index_slope(values, index, n.policy(), n.temperature(), w,
                              [&](std::size_t k) { return n.x(k + 1); });
  }
  return compare_slope(op, n.x(0), n.x(1), n.temperature(), n.policy());
}
/// The argument values node_factors() reads: f(k) for each.
template <class F>
inline void factor_reads(Op op, std::size_t count, bool index_carries, F&& f) {
  if (op == Op::Gather) {
    f(0);
    if (index_carries)
      for (std::size_t k = 1; k < count; ++k) f(static_cast<int>(k));
    return;
  }
  f(0);
  f(1);
}

}  // namespace tc::sem
