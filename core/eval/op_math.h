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
/// stays the only place where the full list of ops lives.
inline double exact_compare(Op op, double a, double b) {
  if (op == Op::Lt) return kernels::b2d(a < b);
  if (op == Op::Le) return kernels::b2d(a <= b);
  if (op == Op::Gt) return kernels::b2d(a > b);
  if (op == Op::Ge) return kernels::b2d(a >= b);
  if (op == Op::Eq) return kernels::b2d(a == b);
  return kernels::b2d(a != b);  // Op::Ne
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
