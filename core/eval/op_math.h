#pragma once
/// Private to core/eval: per-op scalar formulas shared by the scalar checked
/// evaluator and the batched fast path, so both produce bit-identical values.
/// The exact arithmetic itself comes from ir/kernels.h.
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "ir/kernels.h"
#include "ir/program.h"

namespace tc::eval_detail {

/// Exact comparisons of contract section 4 (1 or 0). `op` is a comparison;
/// written as a chain of tests (not a switch with a default) so the op table
/// stays the only place where the full list of ops lives. T is double, or
/// float in a float32 batch (comparing two binary32 values gives the same
/// answer in either width).
template <class T>
inline T exact_compare(Op op, T a, T b) {
  if (op == Op::Lt) return a < b ? T(1) : T(0);
  if (op == Op::Le) return a <= b ? T(1) : T(0);
  if (op == Op::Gt) return a > b ? T(1) : T(0);
  if (op == Op::Ge) return a >= b ? T(1) : T(0);
  if (op == Op::Eq) return a == b ? T(1) : T(0);
  return a != b ? T(1) : T(0);  // Op::Ne
}

/// The one-operation arithmetic ops (add, sub, mul, div) in T. With T =
/// float this is the op's binary32 form, which ops.def marks Native: the
/// float32 batch computes it directly instead of in binary64 and rounding.
template <class T>
inline T exact_arith(Op op, T a, T b) {
  if (op == Op::Add) return a + b;
  if (op == Op::Sub) return a - b;
  if (op == Op::Mul) return a * b;
  return a / b;  // Op::Div
}

/// neg and relu in T (neither rounds).
template <class T>
inline T exact_unary(Op op, T a) {
  if (op == Op::Neg) return -a;
  return a > T(0) ? a : T(0);  // Op::Relu, as kernels::relu
}

/// Relaxed comparisons at temperature t. `op` is a comparison.
inline double relaxed_compare(Op op, double a, double b, double t) {
  if (op == Op::Lt || op == Op::Le) return kernels::relaxed_lt(a, b, t);
  if (op == Op::Gt || op == Op::Ge) return kernels::relaxed_gt(a, b, t);
  if (op == Op::Eq) return kernels::relaxed_eq(a, b, t);
  return kernels::relaxed_ne(a, b, t);  // Op::Ne
}

/// True when `index` selects one of `n` values (an integer in [0, n)).
inline bool valid_index(double index, std::size_t n) {
  return index >= 0.0 && index < static_cast<double>(n) && index == std::floor(index);
}

/// Relaxed gather: value k weighted by eq(index, k), normalised to sum 1.
/// The weighted sum and the weight sum accumulate in argument order; the
/// result is their quotient (0/0 when every weight underflows: an error).
template <class Get>
inline double relaxed_gather(double index, std::size_t n, double t, Get value_of) {
  double num = 0.0, den = 0.0;
  for (std::size_t k = 0; k < n; ++k) {
    double w = kernels::relaxed_eq(index, static_cast<double>(k), t);
    num = num + w * value_of(k);
    den = den + w;
  }
  return num / den;
}

/// Relaxed gather_one_hot: sum of selector_k * value_k in order.
template <class Sel, class Val>
inline double relaxed_one_hot(std::size_t n, Sel sel, Val val) {
  double acc = sel(0) * val(0);
  for (std::size_t k = 1; k < n; ++k) acc = acc + sel(k) * val(k);
  return acc;
}

}  // namespace tc::eval_detail
