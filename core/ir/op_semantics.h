#pragma once
/// Each op's checked meaning, written once: its value, where it rounds, the
/// errors it raises (and their wording), and the affine accumulation order.
/// The scalar evaluator (eval/scalar.cpp), the batched steps
/// (eval/batch_steps.cpp, with a Highway lane type), constant folding
/// (passes/fold_constants.cpp), the gradient tape's forward
/// (grad/tape_forward.cpp) and its block kernels (grad/batch_fast.cpp) all
/// instantiate these templates; none of them spells an op's arithmetic.
///
/// Kernels are written over a lane type L: L::V is one lane's value (a
/// double, a float, or a SIMD vector of them), L::M a per-lane truth value,
/// and L's static functions are single IEEE operations. No kernel fuses or
/// reassociates, so every instantiation gives the same bits lane by lane.
/// Lanes<T> below is the scalar lane type; eval/batch_steps.cpp defines the
/// Highway one. Ops that ops.def marks Widened (sigmoid, floordiv, mod, the
/// relaxed forms) are defined in binary64 only: a float32 program computes
/// them there and rounds, which is what "rounding in the program's dtype"
/// means for them.
///
/// value() is the per-op dispatch (a switch over every op, so -Werror=switch
/// makes a new op's author write its kernel here); consumers that run one
/// op over many lanes call the per-op templates directly.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"
#include "ir/kernels.h"
#include "ir/math_functions.h"
#include "ir/op.h"

// A lane-generic kernel is always inlined: GCC inlines a function only into
// a caller compiled for a superset of its target, and a SIMD lane type's
// operations need the caller's target (eval/batch_steps.cpp is compiled once
// per target). Inlined there, the kernel's lane calls inline too.
#if defined(__GNUC__)
#define TC_KERNEL __attribute__((always_inline)) inline
#else
#define TC_KERNEL inline
#endif

namespace tc::sem {

// ------------------------------------------------------------ lane types

/// One value of T per lane: the scalar instantiation.
template <class T>
struct Lanes {
  using V = T;
  using M = bool;
  static V zero() { return T(0); }
  static V one() { return T(1); }
  static V add(V a, V b) { return a + b; }
  static V sub(V a, V b) { return a - b; }
  static V mul(V a, V b) { return a * b; }
  static V div(V a, V b) { return a / b; }
  static V neg(V a) { return -a; }
  static M lt(V a, V b) { return a < b; }
  static M le(V a, V b) { return a <= b; }
  static M gt(V a, V b) { return a > b; }
  static M ge(V a, V b) { return a >= b; }
  static M eq(V a, V b) { return a == b; }
  /// Unordered: true when either operand is NaN (as C++ and Python).
  static M ne(V a, V b) { return a != b; }
  static V if_then_else(M m, V a, V b) { return m ? a : b; }
};

template <class L>
using V = typename L::V;

// ------------------------------------------------------------ failures

/// Why a node's checked evaluation fails. The numbers it names travel in
/// Failure so that describe() words every message in one place.
enum class Fault : std::uint8_t {
  None,
  DivisionByZero,    ///< div, floordiv, mod with a zero divisor
  IndexNotInteger,   ///< exact gather: x = the index
  IndexOutOfRange,   ///< exact gather: x = the index, n = the value count
  GatherWeightsZero, ///< relaxed gather: x = the index
  SelectorNotBinary, ///< exact gather_one_hot: k = the selector, x = its value
  SelectorCount,     ///< exact gather_one_hot: n = how many selectors are 1 (not 1)
  ResultNaN,
  ResultInfinite,
  ResultOverflows,   ///< x = the binary64 value that rounds to an infinite binary32
  Raised,            ///< a raise node was reached: text = its exception ("ValueError: message")
};

struct Failure {
  Fault fault = Fault::None;
  double x = 0.0;
  std::size_t k = 0, n = 0;
  std::string_view text;  ///< Raised: the node's exception, as the raise statement wrote it
  explicit operator bool() const { return fault != Fault::None; }
};

/// How a consumer writes a number in a message (the evaluator and folding
/// use the shortest round-trip text, the gradient tape its own).
using NumberText = std::string (*)(double);

/// A reached raise node's message: "raised ValueError: x must be positive".
inline std::string raised_message(std::string_view exception) {
  return "raised " + (exception.empty() ? std::string("an exception") : std::string(exception));
}

/// The message of a failure, without the node (the consumer prefixes it).
inline std::string describe(const Failure& f, NumberText num) {
  switch (f.fault) {
    case Fault::None: return {};
    case Fault::DivisionByZero: return "division by zero";
    case Fault::IndexNotInteger: return "index " + num(f.x) + " is not an integer";
    case Fault::IndexOutOfRange:
      return "index " + num(f.x) + " is out of range for " + std::to_string(f.n) + " values";
    case Fault::GatherWeightsZero:
      return "relaxed gather weights are all zero (index " + num(f.x) + " is far from every position)";
    case Fault::SelectorNotBinary:
      return "selector " + std::to_string(f.k) + " is " + num(f.x) + ", expected 0 or 1";
    case Fault::SelectorCount:
      return f.n == 0 ? std::string("no selector is 1, expected exactly one")
                      : std::to_string(f.n) + " selectors are 1, expected exactly one";
    case Fault::ResultNaN: return "result is nan";
    case Fault::ResultInfinite: return "result is infinite";
    case Fault::ResultOverflows: return "result " + num(f.x) + " overflows float32";
    case Fault::Raised: return raised_message(f.text);
  }
  return {};
}

/// The same failure met while folding constants: the rule is the same, the
/// words say that the operands were constants ("constant division by
/// zero"). The selector count reads as a property of the constants.
inline std::string describe_constant(const Failure& f, NumberText num) {
  if (f.fault == Fault::Raised) return describe(f, num);  // a raise has no operands
  if (f.fault == Fault::SelectorCount)
    return "constant selectors have " + std::to_string(f.n) + " ones, expected exactly one";
  return "constant " + describe(f, num);
}

/// A value outside the node's declared domain ("value 3 is above 2 (domain
/// int[0, 2])"); `why` is Domain::check's text.
inline std::string domain_message(const std::string& why, const std::string& domain) {
  return "value " + why + " (domain " + domain + ")";
}

/// A host binding's failures (call nodes).
inline std::string binding_threw(const std::string& name, const char* what) {
  return "binding '" + name + "' failed" + (what ? std::string(": ") + what : std::string());
}
inline std::string binding_returned(const std::string& name, const std::string& value) {
  return "binding '" + name + "' returned " + value;
}

// ------------------------------------------------------------ rounding

/// The program's dtype: every computed value is rounded to it.
inline double round_to(double v, bool f32) { return f32 ? static_cast<double>(static_cast<float>(v)) : v; }

/// Rounds a computed value to the dtype and checks that it is finite
/// (contract: a non-finite result is an error wherever it appears).
inline Failure finish(double& r, bool f32) {
  const double unrounded = r;
  r = round_to(r, f32);
  if (std::isfinite(r)) return {};
  if (std::isfinite(unrounded)) return Failure{Fault::ResultOverflows, unrounded};
  return Failure{std::isnan(r) ? Fault::ResultNaN : Fault::ResultInfinite};
}

// ------------------------------------------------------------ kernels

// One-operation ops (ops.def b32 Native: in binary32 directly gives the
// bits of binary64 then rounding).
template <class L> TC_KERNEL V<L> add(V<L> a, V<L> b) { return L::add(a, b); }
template <class L> TC_KERNEL V<L> sub(V<L> a, V<L> b) { return L::sub(a, b); }
template <class L> TC_KERNEL V<L> mul(V<L> a, V<L> b) { return L::mul(a, b); }
/// The quotient; a zero divisor is an error (zero_divisor), which every
/// IEEE quotient of it also shows as a non-finite value.
template <class L> TC_KERNEL V<L> div(V<L> a, V<L> b) { return L::div(a, b); }
template <class L> TC_KERNEL V<L> neg(V<L> a) { return L::neg(a); }
/// max(x, 0) with relu(-0) = relu(NaN) = +0 (neither rounds).
template <class L> TC_KERNEL V<L> relu(V<L> a) { return L::if_then_else(L::gt(a, L::zero()), a, L::zero()); }
/// x*x: one product, one rounding (the same bits as mul(x, x)).
template <class L> TC_KERNEL V<L> square(V<L> a) { return L::mul(a, a); }

/// The lanes where div, floordiv and mod fail.
template <class L> TC_KERNEL typename L::M zero_divisor(V<L> b) { return L::eq(b, L::zero()); }

// Widened ops: binary64 only (Python's floor division and modulo, the
// overflow-free logistic).
inline double floordiv(double a, double b) { return kernels::py_floordiv(a, b); }
inline double mod(double a, double b) { return kernels::py_mod(a, b); }
inline double sigmoid(double x) { return kernels::sigmoid(x); }
/// sigmoid'(x) = e/(1+e)^2 with e = exp(-|x|) (never overflows); also the
/// sigmoid surrogate's step slope (grad/surrogate.cpp).
inline double sigmoid_slope(double x) {
  const double e = std::exp(-std::fabs(x));
  const double d = 1.0 + e;
  return e / (d * d);
}

// ------------------------------------------------------------ one-argument ops

/// Whether ops.def's b32 column says Native for `op`, at compile time.
constexpr bool native_b32(Op op) {
  switch (op) {
#define TC_OP(E, name, lo, hi, kind, cost, grad, colour, b32, flags, python) \
  case Op::E: return OpBinary32::b32 == OpBinary32::Native;
#include "ir/ops.def"
#undef TC_OP
  }
  return false;
}

/// A one-argument op with no error of its own and the same form in every
/// semantics, as a type, so that a consumer running it over many lanes
/// instantiates its kernel once and needs no case of its own:
///   K::op           the op
///   K::native       ops.def's b32 column: K::f runs over any lane type
///                   (Native), or over binary64 only (Widened: the consumer
///                   computes in binary64 and rounds)
///   K::f<L>(x)      its value
///   K::slope(x)     its derivative at x (binary64): the reverse passes
///                   multiply the adjoint by it. Neg and relu have it too, but
///                   the tapes keep their own rules for them, whose zeros
///                   and signs are the existing bits (-g, a blend to +0).
/// unary() below hands a consumer the K of a runtime op.
template <Op O>
struct UnaryOp {
  static constexpr Op op = O;
  static constexpr bool native = native_b32(O);
};
template <Op O> struct Unary;
template <> struct Unary<Op::Neg> : UnaryOp<Op::Neg> {
  template <class L> static TC_KERNEL V<L> f(V<L> x) { return neg<L>(x); }
  static double slope(double) { return -1.0; }
};
template <> struct Unary<Op::Relu> : UnaryOp<Op::Relu> {
  template <class L> static TC_KERNEL V<L> f(V<L> x) { return relu<L>(x); }
  static double slope(double x) { return x > 0.0 ? 1.0 : 0.0; }
};
template <> struct Unary<Op::Square> : UnaryOp<Op::Square> {
  template <class L> static TC_KERNEL V<L> f(V<L> x) { return square<L>(x); }
  /// 2x, over any lane type (so a C writer spells it too): (1 + 1) * x is
  /// exactly 2.0 * x.
  template <class L = Lanes<double>> static TC_KERNEL V<L> slope(V<L> x) { return L::mul(L::add(L::one(), L::one()), x); }
};
template <> struct Unary<Op::Sigmoid> : UnaryOp<Op::Sigmoid> {
  template <class L> static TC_KERNEL V<L> f(V<L> x) { return sigmoid(x); }  // L is binary64 (Widened)
  static double slope(double x) { return sigmoid_slope(x); }
};

/// The math module's functions (ir/math_functions.h's rows): the C
/// library's value and the row's slope, binary64 only (Widened: a float32
/// program computes them in binary64 and rounds, which for sqrt is also the
/// correctly rounded binary32 square root, since 53 >= 2*24 + 2).
template <Op O>
  requires(math_fn::is_math(O))
struct Unary<O> : UnaryOp<O> {
  template <class L> static TC_KERNEL V<L> f(V<L> x) { return math_fn::of(O).value(x); }  // L is binary64 (Widened)
  static double slope(double x) { return math_fn::of(O).slope(x); }
};

/// Calls fn(Unary<op>{}) and returns true when `op` is one of the unary
/// kernels above; false for every other op. The switch lists every op, so
/// a new op is classed here (-Werror=switch).
template <class Fn>
TC_KERNEL bool unary(Op op, Fn&& fn) {
  switch (op) {
    case Op::Neg: fn(Unary<Op::Neg>{}); return true;
    case Op::Relu: fn(Unary<Op::Relu>{}); return true;
    case Op::Sigmoid: fn(Unary<Op::Sigmoid>{}); return true;
    case Op::Square: fn(Unary<Op::Square>{}); return true;
    case Op::Sqrt: fn(Unary<Op::Sqrt>{}); return true;
    case Op::Exp: fn(Unary<Op::Exp>{}); return true;
    case Op::Expm1: fn(Unary<Op::Expm1>{}); return true;
    case Op::Log: fn(Unary<Op::Log>{}); return true;
    case Op::Log2: fn(Unary<Op::Log2>{}); return true;
    case Op::Log10: fn(Unary<Op::Log10>{}); return true;
    case Op::Log1p: fn(Unary<Op::Log1p>{}); return true;
    case Op::Sin: fn(Unary<Op::Sin>{}); return true;
    case Op::Cos: fn(Unary<Op::Cos>{}); return true;
    case Op::Tan: fn(Unary<Op::Tan>{}); return true;
    case Op::Atan: fn(Unary<Op::Atan>{}); return true;
    case Op::Tanh: fn(Unary<Op::Tanh>{}); return true;
    case Op::Input: case Op::Parameter: case Op::Constant: case Op::State: case Op::Add: case Op::Sub:
    case Op::Mul: case Op::Div: case Op::FloorDiv: case Op::Mod: case Op::Lt: case Op::Le: case Op::Gt:
    case Op::Ge: case Op::Eq: case Op::Ne: case Op::Select: case Op::Gather: case Op::GatherOneHot:
    case Op::Affine: case Op::SparseAffine: case Op::Call: case Op::Raise:
      return false;
  }
  return false;
}

/// An op that is, bit for bit and error for error, another op over its
/// argument repeated (square(x) is mul(x, x)): consumers with
/// nothing of their own to say about it (the emitters) compute it as that
/// op. nullopt for every other op.
struct Composition {
  Op op;      ///< the op it is computed as
  int arity;  ///< how many times argument 0 is passed to it
};
inline std::optional<Composition> composition(Op op) {
  if (op == Op::Square) return Composition{Op::Mul, 2};
  return std::nullopt;
}

/// Exact comparison O (a comparison op): 1 or 0.
template <Op O, class L>
TC_KERNEL V<L> compare(V<L> a, V<L> b) {
  auto m = [&] {
    if constexpr (O == Op::Lt) return L::lt(a, b);
    else if constexpr (O == Op::Le) return L::le(a, b);
    else if constexpr (O == Op::Gt) return L::gt(a, b);
    else if constexpr (O == Op::Ge) return L::ge(a, b);
    else if constexpr (O == Op::Eq) return L::eq(a, b);
    else {
      static_assert(O == Op::Ne, "compare<O>: O is not a comparison");
      return L::ne(a, b);
    }
  }();
  return L::if_then_else(m, L::one(), L::zero());
}

/// Exact select: the chosen value (a choice rounds nothing).
template <class L> TC_KERNEL V<L> select_exact(V<L> c, V<L> yes, V<L> no) {
  return L::if_then_else(L::ne(c, L::zero()), yes, no);
}
/// Relaxed select: c*a + (1-c)*b.
template <class L> TC_KERNEL V<L> select_relaxed(V<L> c, V<L> a, V<L> b) {
  return L::add(L::mul(c, a), L::mul(L::sub(L::one(), c), b));
}

/// The relaxed forms of comparisons through a surrogate S (S::greater,
/// S::equal: see grad/surrogate.h; Contract is the evaluator's, contract
/// section 4). Lt and Le read greater(b, a), Ne is 1 - equal.
struct Contract {
  static double greater(double x, double y, double t) { return kernels::relaxed_gt(x, y, t); }
  static double equal(double x, double y, double t) { return kernels::relaxed_eq(x, y, t); }
};
template <class S>
inline double compare_relaxed(Op op, double a, double b, double t, const S& s) {
  if (op == Op::Lt || op == Op::Le) return s.greater(b, a, t);
  if (op == Op::Gt || op == Op::Ge) return s.greater(a, b, t);
  if (op == Op::Eq) return s.equal(a, b, t);
  return 1.0 - s.equal(a, b, t);  // Op::Ne
}

/// Affine accumulation order (contract section 2): acc = c0*x0, then
/// acc = acc + cj*xj in order, then acc + bias, each product and each sum
/// rounded by `round` (the dtype's rounding, or none where L computes in
/// it). Coefficients and bias are already in the dtype. The three steps
/// let a block consumer run them column by column.
template <class L, class R> TC_KERNEL V<L> affine_first(V<L> c0, V<L> x0, R round) { return round(L::mul(c0, x0)); }
template <class L, class R> TC_KERNEL V<L> affine_next(V<L> acc, V<L> c, V<L> x, R round) {
  return round(L::add(acc, round(L::mul(c, x))));
}
template <class L, class R> TC_KERNEL V<L> affine_bias(V<L> acc, V<L> bias, R round) { return round(L::add(acc, bias)); }
/// The whole accumulation for one lane: coef(j), x(j) for j < terms.
template <class L, class C, class X, class R>
TC_KERNEL V<L> affine(std::size_t terms, C coef, X x, bool has_bias, V<L> bias, R round) {
  V<L> acc = affine_first<L>(coef(0), x(0), round);
  for (std::size_t j = 1; j < terms; ++j) acc = affine_next<L>(acc, coef(j), x(j), round);
  if (has_bias) acc = affine_bias<L>(acc, bias, round);
  return acc;
}

/// Whether `index` selects one of `n` values (an integer in [0, n)).
inline bool index_ok(double index, std::size_t n) {
  return index >= 0.0 && index < static_cast<double>(n) && index == std::floor(index);
}
/// Exact gather's check of its index.
inline Failure gather_index(double index, std::size_t n) {
  if (index_ok(index, n)) return {};
  if (index != std::floor(index)) return Failure{Fault::IndexNotInteger, index};
  return Failure{Fault::IndexOutOfRange, index, 0, n};
}
/// Relaxed gather: value k weighted by weight(k) (the surrogate's
/// equal(index, k)), the weighted sum and the weight sum accumulated in
/// argument order, then their quotient; NaN (an error: GatherWeightsZero)
/// when every weight underflows.
template <class W, class X>
inline double gather_relaxed(std::size_t n, W weight, X value) {
  double num = 0.0, den = 0.0;
  for (std::size_t k = 0; k < n; ++k) {
    const double w = weight(k);
    num = num + w * value(k);
    den = den + w;
  }
  return num / den;
}

/// Exact gather_one_hot, one selector at a time (folding stops at the
/// first selector that is not constant) and then the count of ones.
inline bool selector_ok(double s) { return s == 0.0 || s == 1.0; }
inline Failure one_hot_selector(std::size_t k, double s) {
  if (selector_ok(s)) return {};
  return Failure{Fault::SelectorNotBinary, s, k};
}
inline Failure one_hot_count(std::size_t ones) {
  if (ones == 1) return {};
  return Failure{Fault::SelectorCount, 0.0, 0, ones};
}
/// Exact gather_one_hot over selectors sel(k), k < n: the first selector
/// that is 1 is `chosen`.
template <class S>
inline Failure one_hot_exact(std::size_t n, S sel, std::size_t& chosen) {
  std::size_t ones = 0;
  chosen = n;
  for (std::size_t k = 0; k < n; ++k) {
    const double s = sel(k);
    if (Failure f = one_hot_selector(k, s)) return f;
    if (s == 1.0 && ones++ == 0) chosen = k;
  }
  return one_hot_count(ones);
}
/// Relaxed gather_one_hot: sel(0)*val(0), then + sel(k)*val(k) in order.
template <class S, class X>
inline double one_hot_relaxed(std::size_t n, S sel, X val) {
  double acc = sel(0) * val(0);
  for (std::size_t k = 1; k < n; ++k) acc = acc + sel(k) * val(k);
  return acc;
}

// ------------------------------------------------------------ dispatch

/// The checked binary64 value, before rounding to the dtype (finish() does
/// that), of a computing node whose arguments are all available. N reads
/// the node for one case:
///   double x(std::size_t k)        argument k
///   std::size_t count()            number of arguments
///   double temperature()           relaxed forms
///   double greater/equal(x, y, t)  the relaxed comparison surrogate
///   std::size_t terms(), double coef(j), std::size_t term_arg(j),
///   bool has_bias(), double bias() affine terms (coefficients and bias in
///                                  the dtype), and double round(double)
/// Leaves (loaded by their consumer) and calls (host functions) are not
/// kernels. Exact select reads only the chosen branch's x(k). A raise
/// always fails; where N has name() (the node's exception) the failure
/// carries it.
template <class N>
inline Failure value(Op op, bool exact, const N& n, double& r) {
  using D = Lanes<double>;
  switch (op) {
    case Op::Input: case Op::Parameter: case Op::Constant: case Op::State: case Op::Call:
      TC_ASSERT(false && "leaves and calls are not kernels");
      return {};
    case Op::Raise: {
      Failure f{Fault::Raised};
      if constexpr (requires { n.name(); }) f.text = n.name();
      return f;
    }
    case Op::Add: r = add<D>(n.x(0), n.x(1)); return {};
    case Op::Sub: r = sub<D>(n.x(0), n.x(1)); return {};
    case Op::Mul: r = mul<D>(n.x(0), n.x(1)); return {};
    case Op::Neg: case Op::Relu: case Op::Sigmoid: case Op::Square:
    case Op::Sqrt: case Op::Exp: case Op::Expm1: case Op::Log: case Op::Log2: case Op::Log10: case Op::Log1p:
    case Op::Sin: case Op::Cos: case Op::Tan: case Op::Atan: case Op::Tanh: {
      const double x = n.x(0);
      unary(op, [&](auto k) { r = decltype(k)::template f<D>(x); });
      return {};
    }
    case Op::Div: case Op::FloorDiv: case Op::Mod: {
      const double a = n.x(0), b = n.x(1);
      if (zero_divisor<D>(b)) return Failure{Fault::DivisionByZero};
      r = op == Op::Div ? div<D>(a, b) : op == Op::FloorDiv ? floordiv(a, b) : mod(a, b);
      return {};
    }
    case Op::Lt: case Op::Le: case Op::Gt: case Op::Ge: case Op::Eq: case Op::Ne: {
      const double a = n.x(0), b = n.x(1);
      if (!exact) r = compare_relaxed(op, a, b, n.temperature(), n);
      else if (op == Op::Lt) r = compare<Op::Lt, D>(a, b);
      else if (op == Op::Le) r = compare<Op::Le, D>(a, b);
      else if (op == Op::Gt) r = compare<Op::Gt, D>(a, b);
      else if (op == Op::Ge) r = compare<Op::Ge, D>(a, b);
      else if (op == Op::Eq) r = compare<Op::Eq, D>(a, b);
      else r = compare<Op::Ne, D>(a, b);
      return {};
    }
    case Op::Select:
      if (exact) r = n.x(n.x(0) != 0.0 ? 1 : 2);
      else r = select_relaxed<D>(n.x(0), n.x(1), n.x(2));
      return {};
    case Op::Gather: {
      const std::size_t values = n.count() - 1;
      const double index = n.x(0);
      if (exact) {
        if (Failure f = gather_index(index, values)) return f;
        r = n.x(1 + static_cast<std::size_t>(index));
        return {};
      }
      const double t = n.temperature();
      r = gather_relaxed(
          values, [&](std::size_t k) { return n.equal(index, static_cast<double>(k), t); },
          [&](std::size_t k) { return n.x(1 + k); });
      if (std::isnan(r)) return Failure{Fault::GatherWeightsZero, index};
      return {};
    }
    case Op::GatherOneHot: {
      const std::size_t half = n.count() / 2;
      if (exact) {
        std::size_t chosen = 0;
        if (Failure f = one_hot_exact(half, [&](std::size_t k) { return n.x(k); }, chosen)) return f;
        r = n.x(half + chosen);
        return {};
      }
      r = one_hot_relaxed(half, [&](std::size_t k) { return n.x(k); }, [&](std::size_t k) { return n.x(half + k); });
      return {};
    }
    case Op::Affine: case Op::SparseAffine: {
      auto round = [&](double v) { return n.round(v); };
      r = affine<D>(
          n.terms(), [&](std::size_t j) { return n.coef(j); },
          [&](std::size_t j) { return n.x(op == Op::SparseAffine ? n.term_arg(j) : j); }, n.has_bias(),
          n.has_bias() ? n.bias() : 0.0, round);
      return {};
    }
  }
  return {};
}

}  // namespace tc::sem
