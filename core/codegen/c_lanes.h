#pragma once
/// A lane type whose values are C expressions (text), for writing
/// op_semantics.h's kernels and op_derivatives.h's derivative terms as C:
/// instantiating a kernel or a term over CLanes spells it, so the C a
/// writer emits is the rule itself, never a copy of it. The batched
/// gradient tape's compiled plan (grad/batch_compiled.cpp) writes its block
/// forward and its reverse pass this way; tests/grad/derivative_rules_test.cpp
/// checks every term's spelling through spell_term() below.
///
/// The text is over GCC/Clang vector extensions: a value is a `tc_v` (a
/// vector of doubles), a mask a `tc_m` (lanes all ones or zero), and the
/// source that uses it defines
///   TC_ZERO, TC_ONE     the constant vectors 0.0 and 1.0
///   tc_splat(x)         x in every lane
///   TC_SEL(m, a, b)     a where m holds, else b (a blend of bits)
///   tc_floordiv(a, b)   Python's floor division, lane by lane
///   tc_slope(op, x)     a binary64-only kernel's slope (sem::Unary<op>::slope), lane by lane
/// Every operation is the IEEE one of the lane type the tapes run
/// (sem::Lanes<double>), lane by lane, so the bits are theirs when the C is
/// compiled without contraction or fast-math.
#include <cstdio>
#include <string>

#include "ir/op.h"
#include "ir/op_derivatives.h"

namespace tc::codegen {

struct CLanes {
  using V = std::string;
  using M = std::string;
  static V zero() { return "TC_ZERO"; }
  static V one() { return "TC_ONE"; }
  /// Exact: a hexadecimal literal.
  static V lit(double c) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%a", c);
    return "tc_splat(" + std::string(buf) + ")";
  }
  static V add(V a, V b) { return "(" + a + " + " + b + ")"; }
  static V sub(V a, V b) { return "(" + a + " - " + b + ")"; }
  static V mul(V a, V b) { return "(" + a + " * " + b + ")"; }
  static V div(V a, V b) { return "(" + a + " / " + b + ")"; }
  static V neg(V a) { return "(-" + a + ")"; }
  static M lt(V a, V b) { return cmp(a, "<", b); }
  static M le(V a, V b) { return cmp(a, "<=", b); }
  static M gt(V a, V b) { return cmp(a, ">", b); }
  static M ge(V a, V b) { return cmp(a, ">=", b); }
  static M eq(V a, V b) { return cmp(a, "==", b); }
  static M ne(V a, V b) { return cmp(a, "!=", b); }
  static V if_then_else(M m, V a, V b) { return "TC_SEL(" + m + ", " + a + ", " + b + ")"; }
  static V floordiv(V a, V b) { return "tc_floordiv(" + a + ", " + b + ")"; }
  /// A one-argument kernel's slope, where op_semantics.h writes it over
  /// any lane type (square); the others' (sigmoid's, binary64 only) as
  /// tc_slope(op, x), which the source defines as a call of the host's
  /// K::slope lane by lane.
  template <class K>
  static V slope(V x) {
    if constexpr (requires { K::template slope<CLanes>(x); }) return K::template slope<CLanes>(x);
    else return "tc_slope(" + std::to_string(static_cast<int>(K::op)) + ", " + x + ")";
  }

 private:
  static M cmp(const V& a, const char* op, const V& b) { return "((tc_m)(" + a + " " + op + " " + b + "))"; }
};

/// One derivative term (op_derivatives.h) as C: `value` is its
/// contribution from the adjoint g, the values it reads a and b and its
/// factor f (expressions); `mask`, for a pick term, the lanes it adds to
/// (jv: j as a value). `defined` is false where the term has no rule for
/// `op` or no C spelling.
struct SpelledTerm {
  bool defined = false;
  std::string value, mask;
};
inline SpelledTerm spell_term(sem::TermKind kind, Op op, const std::string& g, const std::string& a,
                              const std::string& b, const std::string& f, const std::string& jv) {
  SpelledTerm t;
  t.defined = sem::with_term(kind, op, [&](auto term) {
    using Tm = decltype(term);
    t.value = Tm::template value<CLanes>(g, a, b, f);
    if constexpr (Tm::pick) t.mask = Tm::template mask<CLanes>(a, jv);
  });
  return t;
}

}  // namespace tc::codegen
