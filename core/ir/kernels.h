#pragma once
/// Scalar arithmetic with the exact semantics of contract section 4. Every
/// evaluator, folding pass and reference check calls these, so there is one
/// definition of Python's floor division, modulo, relu and sigmoid.
#include <cmath>

namespace tc::kernels {

/// Python's float.__divmod__ (CPython floatobject.c): b must be non-zero.
inline void py_divmod(double a, double b, double& div, double& mod) {
  mod = std::fmod(a, b);
  div = (a - mod) / b;
  if (mod != 0.0) {
    if ((b < 0) != (mod < 0)) {
      mod += b;
      div -= 1.0;
    }
  } else {
    mod = std::copysign(0.0, b);
  }
  double floordiv;
  if (div != 0.0) {
    floordiv = std::floor(div);
    if (div - floordiv > 0.5) floordiv += 1.0;
  } else {
    floordiv = std::copysign(0.0, a / b);
  }
  div = floordiv;
}

inline double py_floordiv(double a, double b) {
  double d, m;
  py_divmod(a, b, d, m);
  return d;
}

inline double py_mod(double a, double b) {
  double d, m;
  py_divmod(a, b, d, m);
  return m;
}

inline double relu(double x) { return x > 0.0 ? x : 0.0; }

/// Overflow-free logistic: 1/(1+exp(-x)) for x >= 0, exp(x)/(1+exp(x)) otherwise.
inline double sigmoid(double x) {
  if (x >= 0.0) return 1.0 / (1.0 + std::exp(-x));
  double e = std::exp(x);
  return e / (1.0 + e);
}

inline double b2d(bool b) { return b ? 1.0 : 0.0; }

}  // namespace tc::kernels

namespace tc::kernels {

/// Relaxed forms of contract section 4 at temperature t (> 0).
inline double relaxed_gt(double x, double y, double t) { return sigmoid((x - y) / t); }  // also ge
inline double relaxed_lt(double x, double y, double t) { return sigmoid((y - x) / t); }  // also le
inline double relaxed_eq(double x, double y, double t) {
  double z = (x - y) / t;
  return std::exp(-(z * z));
}
inline double relaxed_ne(double x, double y, double t) { return 1.0 - relaxed_eq(x, y, t); }
inline double relaxed_select(double c, double a, double b) { return c * a + (1.0 - c) * b; }

}  // namespace tc::kernels
