#pragma once
/// The math module's one-argument functions (ops.def rows marked
/// kMathModule), one row each: the op's value and slope, the domain CPython
/// checks, and how each backend spells it. Every consumer (op_semantics.h's
/// kernel and slope, the interval transfer, the frontend's domain guard, the
/// C writer, the WGSL, WebAssembly and ONNX emitters) reads its row here, so
/// a further C library function is its ops.def row plus one row below.
///
/// The value is the C library's function: CPython's math module calls the
/// same one (Modules/mathmodule.c, math_1), so on one host the evaluator and
/// CPython agree bit for bit. CPython checks two things around the call:
///   - a domain error: ValueError("math domain error") for an argument
///     outside the function's domain (sqrt(-1), log(0), log1p(-1)). The
///     frontend lowers math.f(x) to `ValueError where x is outside, else
///     f(x)` (a raise node behind a select), so every backend fails there
///     with the exception CPython raises;
///   - a range error: OverflowError("math range error") when a finite
///     argument gives an infinite result (exp(710)). That result is a
///     non-finite value, which every evaluator and backend already fails.
/// Underflow returns the C library's value (exp(-1000) == 0.0), as CPython.
#include <cmath>
#include <cstddef>
#include <string_view>

#include "ir/op.h"

namespace tc::math_fn {

/// A backend's spelling of the function around one builtin F of its own:
/// post_add + post_mul * F(pre_add + x), each step written only where it is
/// not the identity. log10 in WGSL is log2(x) * log10(2), say. Such a
/// composition rounds more than once: that backend's tolerance class
/// (docs/evaluator.md) covers it.
struct Around {
  const char* name = nullptr;  ///< nullptr: the backend has no spelling (the emitter refuses by name)
  double pre_add = 0.0;
  double post_mul = 1.0;
  double post_add = 0.0;
};

struct MathFunction {
  Op op;
  double (*value)(double);  ///< the C library's function (binary64)
  double (*slope)(double);  ///< its derivative
  /// The domain CPython accepts: x >= bound, or x > bound when `open`;
  /// below (or at) it, ValueError("math domain error"). No bound: -inf.
  double bound;
  bool open;
  /// The values it can give: increasing on its domain (the interval of
  /// f(x) is f at the ends, a few ulps wider), or anywhere in
  /// [range_lo, range_hi] (sin, cos, tan); an increasing one is also
  /// clamped to that range (exp >= 0, tanh in [-1, 1]).
  bool increasing;
  double range_lo, range_hi;
  const char* c;   ///< the C99 <math.h> name (C writer, compiled plans)
  const char* js;  ///< JavaScript's Math.<js> (WebAssembly import env.<js>); nullptr: a WebAssembly instruction
  Around wgsl;     ///< WGSL builtin over f32
  Around onnx;     ///< ONNX operator over float64
};

inline constexpr double kLn2 = 0.6931471805599453;     // log(2)
inline constexpr double kInvLn2 = 1.4426950408889634;  // 1 / log(2)
inline constexpr double kInvLn10 = 0.4342944819032518; // 1 / log(10)
inline constexpr double kLog10Of2 = 0.30102999566398120;

inline constexpr double kInf = HUGE_VAL;
inline constexpr double kHalfPi = 1.5707963267948968;  // one ulp above pi/2: atan's bound

inline constexpr MathFunction kFunctions[] = {
    // sqrt is correctly rounded in IEEE 754 (C, f32.sqrt, ONNX's Sqrt);
    // WGSL's sqrt need not be: its class says so.
    {Op::Sqrt, [](double x) { return std::sqrt(x); }, [](double x) { return 0.5 / std::sqrt(x); }, 0.0, false, true,
     0.0, kInf, "sqrt", nullptr, {"sqrt"}, {"Sqrt"}},
    {Op::Exp, [](double x) { return std::exp(x); }, [](double x) { return std::exp(x); }, -kInf, false, true, 0.0, kInf,
     "exp", "exp", {"exp"}, {"Exp"}},
    {Op::Expm1, [](double x) { return std::expm1(x); }, [](double x) { return std::exp(x); }, -kInf, false, true, -1.0,
     kInf, "expm1", "expm1", {"exp", 0.0, 1.0, -1.0}, {"Exp", 0.0, 1.0, -1.0}},
    {Op::Log, [](double x) { return std::log(x); }, [](double x) { return 1.0 / x; }, 0.0, true, true, -kInf, kInf, "log",
     "log", {"log"}, {"Log"}},
    {Op::Log2, [](double x) { return std::log2(x); }, [](double x) { return 1.0 / (x * kLn2); }, 0.0, true, true, -kInf,
     kInf, "log2", "log2", {"log2"}, {"Log", 0.0, kInvLn2}},
    {Op::Log10, [](double x) { return std::log10(x); }, [](double x) { return kInvLn10 / x; }, 0.0, true, true, -kInf,
     kInf, "log10", "log10", {"log2", 0.0, kLog10Of2}, {"Log", 0.0, kInvLn10}},
    {Op::Log1p, [](double x) { return std::log1p(x); }, [](double x) { return 1.0 / (1.0 + x); }, -1.0, true, true, -kInf,
     kInf, "log1p", "log1p", {"log", 1.0}, {"Log", 1.0}},
    // Defined for every finite argument (CPython's ValueError is for an
    // infinite one, which a circuit never holds). tan of a double is at
    // most about 1.6e16 in magnitude (no double is that close to pi/2).
    // ONNX Runtime's CPU kernels for Tan and Atan take float only: the
    // ONNX export refuses them by name.
    {Op::Sin, [](double x) { return std::sin(x); }, [](double x) { return std::cos(x); }, -kInf, false, false, -1.0, 1.0,
     "sin", "sin", {"sin"}, {"Sin"}},
    {Op::Cos, [](double x) { return std::cos(x); }, [](double x) { return -std::sin(x); }, -kInf, false, false, -1.0, 1.0,
     "cos", "cos", {"cos"}, {"Cos"}},
    {Op::Tan, [](double x) { return std::tan(x); }, [](double x) { const double t = std::tan(x); return 1.0 + t * t; },
     -kInf, false, false, -1e17, 1e17, "tan", "tan", {"tan"}, {nullptr}},
    {Op::Atan, [](double x) { return std::atan(x); }, [](double x) { return 1.0 / (1.0 + x * x); }, -kInf, false, true,
     -kHalfPi, kHalfPi, "atan", "atan", {"atan"}, {nullptr}},
    {Op::Tanh, [](double x) { return std::tanh(x); }, [](double x) { const double t = std::tanh(x); return 1.0 - t * t; },
     -kInf, false, true, -1.0, 1.0, "tanh", "tanh", {"tanh"}, {"Tanh"}},
};

/// The row of `op`, or nullptr when it is not a math-module function.
constexpr const MathFunction* find(Op op) {
  for (const MathFunction& f : kFunctions)
    if (f.op == op) return &f;
  return nullptr;
}
constexpr bool is_math(Op op) { return find(op) != nullptr; }
/// The row of a math-module op (is_math(op) holds).
constexpr const MathFunction& of(Op op) { return *find(op); }

/// Whether x is outside the domain (CPython raises ValueError there).
inline bool outside(const MathFunction& f, double x) { return f.open ? x <= f.bound : x < f.bound; }
/// Whether `target` (an emit plan's backend name) can spell f: the ONNX
/// export needs an operator, the others always have one.
inline bool spelled_by(const MathFunction& f, std::string_view target) {
  return target != "onnx" || f.onnx.name != nullptr;
}

/// The smallest argument inside the domain (a bound of the interval transfer).
inline double lowest(const MathFunction& f) { return f.open ? std::nextafter(f.bound, HUGE_VAL) : f.bound; }

/// The exception CPython raises for an argument outside the domain.
inline constexpr const char* kDomainError = "ValueError: math domain error";

}  // namespace tc::math_fn
