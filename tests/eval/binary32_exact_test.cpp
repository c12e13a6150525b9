// The ops table's b32 column (core/ir/ops.def) lets a float32 batch compute
// an op directly in binary32 when the op is marked Native. That is only
// allowed if the binary32 result is, bit for bit, the binary64 result
// rounded to binary32 (what the scalar evaluator computes). This test walks
// the table and, for every Native row:
//   1. evaluates the op's kernel from core/ir/op_semantics.h (the templates
//      the batch instantiates) in float and in double-then-rounded on edge values
//      (signed zeros, subnormals, the binary32 limits, infinities, NaN) and
//      on random bit patterns, and demands identical bits (NaN: both NaN);
//   2. runs a float32 program of that op through run_batch (native binary32
//      columns) and through run() (binary64, rounded per node) on many
//      cases, and demands identical outputs, failures and messages, with
//      the batch kernels forced onto each SIMD target Highway compiled.
// A row marked Native for an op this file cannot evaluate in binary32 fails.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <hwy/targets.h>

#include "eval/evaluator.h"
#include "eval_util.h"
#include "ir/builder.h"
#include "ir/op_semantics.h"

namespace tc {
namespace {

using testing::same_bits;

// The kernels of op_semantics.h in lane type T, by runtime op.
template <class T>
T exact_arith(Op op, T a, T b) {
  using L = sem::Lanes<T>;
  if (op == Op::Add) return sem::add<L>(a, b);
  if (op == Op::Sub) return sem::sub<L>(a, b);
  if (op == Op::Mul) return sem::mul<L>(a, b);
  return sem::div<L>(a, b);  // Op::Div
}
template <class T>
T exact_compare(Op op, T a, T b) {
  using L = sem::Lanes<T>;
  if (op == Op::Lt) return sem::compare<Op::Lt, L>(a, b);
  if (op == Op::Le) return sem::compare<Op::Le, L>(a, b);
  if (op == Op::Gt) return sem::compare<Op::Gt, L>(a, b);
  if (op == Op::Ge) return sem::compare<Op::Ge, L>(a, b);
  if (op == Op::Eq) return sem::compare<Op::Eq, L>(a, b);
  return sem::compare<Op::Ne, L>(a, b);
}
/// A Native one-argument kernel (op_semantics.h's unary()) in width T.
template <class T>
T exact_unary(Op op, T a) {
  T r{};
  sem::unary(op, [&](auto k) {
    using K = decltype(k);
    if constexpr (K::native) r = K::template f<sem::Lanes<T>>(a);
  });
  return r;
}

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kMax = std::numeric_limits<float>::max();
constexpr float kMin = std::numeric_limits<float>::min();          // smallest normal
constexpr float kTiny = std::numeric_limits<float>::denorm_min();  // smallest subnormal

/// Edge values of binary32 with both signs.
std::vector<float> edge_values() {
  const float base[] = {0.0f, kTiny, 2 * kTiny, 3 * kTiny, kMin, std::nextafter(kMin, 0.0f), std::nextafter(kMin, 1.0f),
                        kMin * 0.5f, 1e-30f, 1e-20f, 0.1f, 0.5f, 1.0f, std::nextafter(1.0f, 2.0f),
                        std::nextafter(1.0f, 0.0f), 1.5f, 2.0f, 3.0f, 7.0f, 1e10f, 16777216.0f, 16777217.0f, 1e20f,
                        1.8446744e19f, 3e38f, kMax, std::nextafter(kMax, 0.0f), kInf};
  std::vector<float> v;
  for (float x : base) {
    v.push_back(x);
    v.push_back(-x);
  }
  v.push_back(std::numeric_limits<float>::quiet_NaN());
  return v;
}

/// Random binary32 bit patterns (every exponent, subnormals, inf and NaN
/// included), plus values near 1 so sums and quotients round often.
std::vector<float> random_values(std::mt19937& rng, std::size_t n) {
  std::uniform_int_distribution<std::uint32_t> bits;
  std::uniform_real_distribution<float> unit(-4.0f, 4.0f);
  std::vector<float> v;
  for (std::size_t i = 0; i < n; ++i) v.push_back(i % 2 ? std::bit_cast<float>(bits(rng)) : unit(rng));
  return v;
}

bool same_f32(float native, double wide) {
  const float rounded = static_cast<float>(wide);
  if (std::isnan(native) || std::isnan(rounded)) return std::isnan(native) && std::isnan(rounded);
  return std::bit_cast<std::uint32_t>(native) == std::bit_cast<std::uint32_t>(rounded);
}

enum class Form { Binary, Unary, Compare, Choice, Linear, Unknown };

/// How this test evaluates a Native op in binary32.
Form form_of(Op op) {
  bool native_unary = false;
  sem::unary(op, [&](auto k) { native_unary = decltype(k)::native; });
  if (native_unary) return Form::Unary;  // neg, relu, ...: the kernel in both widths
  switch (op) {
    case Op::Add: case Op::Sub: case Op::Mul: case Op::Div:
      return Form::Binary;
    case Op::Lt: case Op::Le: case Op::Gt: case Op::Ge: case Op::Eq: case Op::Ne:
      return Form::Compare;
    case Op::Select: case Op::Gather: case Op::GatherOneHot:
      return Form::Choice;  // picks an argument: nothing to round (checked end to end)
    case Op::Affine: case Op::SparseAffine:
      return Form::Linear;  // products and sums, each one exact_arith step
    default:
      return Form::Unknown;  // leaves, calls, Widened ops: EveryNativeRowHasABinary32Form names a Native one
  }
}

/// Step 1: the kernel in float against the kernel in double, rounded.
void check_kernel(Op op, const std::vector<float>& xs) {
  int bad = 0;
  auto report = [&](float x, float y, float native, double wide) {
    if (++bad <= 5)
      ADD_FAILURE() << op_name(op) << "(" << x << ", " << y << "): binary32 " << native << ", binary64 rounded "
                    << static_cast<float>(wide);
  };
  for (float x : xs)
    for (float y : xs) {
      switch (form_of(op)) {
        case Form::Binary: {
          const float n = exact_arith(op, x, y);
          const double w = exact_arith(op, static_cast<double>(x), static_cast<double>(y));
          if (!same_f32(n, w)) report(x, y, n, w);
          break;
        }
        case Form::Compare: {
          const float n = exact_compare(op, x, y);
          const double w = exact_compare(op, static_cast<double>(x), static_cast<double>(y));
          if (!same_f32(n, w)) report(x, y, n, w);
          break;
        }
        case Form::Linear:
          for (Op step : {Op::Mul, Op::Add}) {
            const float n = exact_arith(step, x, y);
            const double w = exact_arith(step, static_cast<double>(x), static_cast<double>(y));
            if (!same_f32(n, w)) report(x, y, n, w);
          }
          break;
        case Form::Unary:
        case Form::Choice:
        case Form::Unknown:
          break;
      }
    }
  if (form_of(op) == Form::Unary)
    for (float x : xs) {
      const float n = exact_unary(op, x);
      const double w = exact_unary(op, static_cast<double>(x));
      if (!same_f32(n, w)) report(x, 0, n, w);
    }
}

/// A float32 program of one `op` node over inputs a0..a(n-1).
Program single_op_f32(Op op, int& nargs) {
  Builder b(Semantics::Exact, Surrogate::Sigmoid, 1.0, Dtype::Float32);
  const OpInfo& info = op_info(op);
  nargs = op == Op::Gather ? 4 : op == Op::GatherOneHot ? 6 : op == Op::Affine ? 3 : op == Op::SparseAffine ? 3
                                                                                     : info.min_args;
  std::vector<Arg> xs;
  for (int k = 0; k < nargs; ++k) xs.push_back(b.input("a" + std::to_string(k), Domain::float64()));
  Value r;
  switch (op) {
    case Op::Gather: r = b.gather({xs[1], xs[2], xs[3]}, xs[0]); break;
    case Op::GatherOneHot: r = b.gather_one_hot({xs[0], xs[1], xs[2]}, {xs[3], xs[4], xs[5]}); break;
    case Op::Affine: r = b.affine(xs, {0.1, -3.0, 1e-3}, 0.7); break;
    case Op::SparseAffine: r = b.sparse_affine(xs, {0, 2}, {1.1, 2.5e10}, -1.0); break;
    default: r = b.op(op, xs);
  }
  return testing::built(b, r);
}

void compare_batch(Op op, const std::vector<std::vector<double>>& cols, const Evaluator& ev,
                   const std::vector<Result<CaseResult>>& want);

/// Step 2: run_batch (binary32 columns) against run() (binary64, rounded),
/// on every SIMD target.
void check_end_to_end(Op op, const std::vector<float>& pool, std::mt19937& rng) {
  int nargs = 0;
  const Program p = single_op_f32(op, nargs);
  Evaluator ev = testing::evaluator(p);
  const auto n = static_cast<std::size_t>(nargs);
  // Finite values only: a non-finite input is an input error on both paths.
  std::vector<double> finite;
  for (float x : pool)
    if (std::isfinite(x)) finite.push_back(x);
  const std::vector<double> index_pool = {0, 1, 2, 3, -1, 0.5, -0.0};
  const std::vector<double> selector_pool = {0, 1, 1, 0, 0.5, -0.0};
  std::vector<std::vector<double>> cols(n);
  auto pick = [&](const std::vector<double>& from) {
    return from[std::uniform_int_distribution<std::size_t>(0, from.size() - 1)(rng)];
  };
  // Binary ops: every pair of edge values, then random cases.
  if (n == 2)
    for (double x : finite)
      for (double y : finite) {
        if (cols[0].size() > 40000) break;
        cols[0].push_back(x);
        cols[1].push_back(y);
      }
  for (std::size_t c = 0; c < 20000; ++c)
    for (std::size_t k = 0; k < n; ++k) {
      const bool decision = (op == Op::Gather && k == 0) || (op == Op::GatherOneHot && k < 3);
      const bool condition = op == Op::Select && k == 0;
      cols[k].push_back(decision && op == Op::Gather ? pick(index_pool)
                        : decision || condition      ? pick(selector_pool)
                                                     : pick(finite));
    }
  const std::size_t count = cols[0].size();
  std::vector<Result<CaseResult>> want;
  want.reserve(count);
  for (std::size_t c = 0; c < count; ++c) {
    Env env;
    for (std::size_t k = 0; k < n; ++k) env.inputs["a" + std::to_string(k)] = cols[k][c];
    want.push_back(ev.run(env));
  }
  // Every SIMD target this build made for the batch kernels (Highway), so a
  // target whose vector ops differed from the scalar ones would show here.
  for (std::int64_t target : hwy::SupportedAndGeneratedTargets()) {
    SCOPED_TRACE(hwy::TargetName(target));
    hwy::SetSupportedTargetsForTest(target);
    compare_batch(op, cols, ev, want);
  }
  hwy::SetSupportedTargetsForTest(0);
}

void compare_batch(Op op, const std::vector<std::vector<double>>& cols, const Evaluator& ev,
                   const std::vector<Result<CaseResult>>& want) {
  const std::size_t n = cols.size(), count = cols[0].size();
  std::vector<std::span<const double>> spans(cols.begin(), cols.end());
  BatchResult out;
  ASSERT_TRUE(ev.run_batch(spans, count, Env{}, out).ok());
  std::size_t next_error = 0;
  int bad = 0;
  for (std::size_t c = 0; c < count && bad < 5; ++c) {
    const Result<CaseResult>& r = want[c];
    auto args = [&] {
      std::string text;
      for (std::size_t k = 0; k < n; ++k) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%s%.9g", k ? ", " : "", cols[k][c]);
        text += buf;
      }
      return text;
    };
    if (!r) {
      const bool listed = next_error < out.errors.size() && out.errors[next_error].first == c;
      EXPECT_TRUE(out.failed[c] && listed) << op_name(op) << "(" << args() << "): run() failed, run_batch did not";
      if (listed) {
        EXPECT_EQ(out.errors[next_error++].second.message, r.error().message);
      }
      bad += !(out.failed[c] && listed);
      continue;
    }
    if (out.failed[c] || !same_bits(out.outputs[0][c], r->outputs[0])) {
      ++bad;
      ADD_FAILURE() << op_name(op) << "(" << args() << "): run_batch " << out.outputs[0][c] << " (failed "
                    << int(out.failed[c]) << "), run() " << r->outputs[0];
    }
  }
  EXPECT_EQ(bad, 0);
}

TEST(Binary32Exact, EveryNativeRowHasABinary32Form) {
  for (int i = 0; i < kOpCount; ++i) {
    const Op op = static_cast<Op>(i);
    // A raise computes no value in any width, only its failure (ops_table.jsonl).
    if (op_info(op).binary32 != OpBinary32::Native || is_leaf(op) || op == Op::Raise) continue;
    EXPECT_NE(form_of(op), Form::Unknown) << op_name(op) << " is marked Native in ops.def, but nothing shows that "
                                          << "its binary32 form equals binary64 rounded";
  }
}

TEST(Binary32Exact, NativeKernelsEqualBinary64ThenRounded) {
  std::mt19937 rng(2024);
  std::vector<float> xs = edge_values();
  const std::vector<float> more = random_values(rng, 700);
  xs.insert(xs.end(), more.begin(), more.end());
  for (int i = 0; i < kOpCount; ++i) {
    const Op op = static_cast<Op>(i);
    // A raise computes no value in any width, only its failure (ops_table.jsonl).
    if (op_info(op).binary32 != OpBinary32::Native || is_leaf(op) || op == Op::Raise) continue;
    SCOPED_TRACE(std::string(op_name(op)));
    check_kernel(op, xs);
  }
}

TEST(Binary32Exact, NativeBatchEqualsScalarFloat32) {
  std::mt19937 rng(7);
  std::vector<float> pool = edge_values();
  const std::vector<float> more = random_values(rng, 200);
  pool.insert(pool.end(), more.begin(), more.end());
  for (int i = 0; i < kOpCount; ++i) {
    const Op op = static_cast<Op>(i);
    // A raise computes no value in any width, only its failure (ops_table.jsonl).
    if (op_info(op).binary32 != OpBinary32::Native || is_leaf(op) || op == Op::Raise) continue;
    SCOPED_TRACE(std::string(op_name(op)));
    check_end_to_end(op, pool, rng);
  }
}

}  // namespace
}  // namespace tc
