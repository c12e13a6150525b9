// The per-op kernels of the batched fast path (see batch.cpp for the design:
// blocks of cases, per-case flags, scalar re-run of flagged cases). This
// file is compiled once per SIMD target by Google Highway (foreach_target.h
// re-includes it) and run_steps picks the best target the processor has at
// run time (HWY_DYNAMIC_DISPATCH), so no -march flag is needed.
//
// Each op's arithmetic is op_semantics.h's kernel. The hot ops (add, sub,
// mul, div, the fused product-sum, the Native one-argument ops such as neg
// and relu, exact comparisons and exact select) instantiate it with Highway
// vectors (VecLanes below), one loop per op over the block; the others are
// plain loops compiled for the same target. Every vector operation is the
// IEEE operation the scalar evaluator performs, lane by lane: no FMA (MulAdd
// is never used, and -ffp-contract=off keeps the compiler from fusing a Mul
// and an Add), no reassociation, so the results are bit-identical on every target.
// Highway's Ne is an ordered comparison on some targets (false when an
// operand is NaN), unlike C++'s !=, so "not equal" is written Not(Eq(...)).

// clang-format off
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "eval/batch_steps.cpp"
#include <hwy/foreach_target.h>  // re-includes this file once per target
#include <hwy/highway.h>
// clang-format on

#include <algorithm>
#include <cmath>
#include <type_traits>

#include "eval/batch_columns.h"
#include "ir/op_semantics.h"

// Each op's loop is a function of its own in the WebAssembly build. Inlined
// into run_steps, as natively, they made one function of 340 KB of wasm,
// which V8 runs from its baseline compiler (Liftoff: chain64's batch about
// 2x slower) until TurboFan has compiled it in the background, 0.8-1.3 s
// on this machine, so a page's first second of batches ran at half speed;
// the small functions tier up within a few blocks each. Natively the
// per-op loops stay inlined. (The wasm link keeps Binaryen from inlining
// them back: sdk/typescript/native/CMakeLists.txt.)
// The per-vector lambdas of the kernels are always inlined: run_steps
// inlines every kernel into one large function, and past GCC's growth
// limits for it the inliner left them out of line on the AVX2 target, one
// call per vector of four doubles (long_loop's batch measured 4.4x slower
// than on AVX-512 there, 536 against 121 ns a case).
#if defined(__GNUC__)
#define TC_LANE_BODY __attribute__((always_inline))
#else
#define TC_LANE_BODY
#endif

#ifndef TC_STEP_KERNEL
#if defined(__EMSCRIPTEN__)
#define TC_STEP_KERNEL HWY_NOINLINE
#else
#define TC_STEP_KERNEL HWY_INLINE
#endif
#endif

HWY_BEFORE_NAMESPACE();
namespace tc::eval_detail {
namespace HWY_NAMESPACE {
namespace {

namespace hn = hwy::HWY_NAMESPACE;

/// op_semantics.h's lane type over Highway vectors of tag D: the kernels
/// written there, instantiated with it, are this file's vector loops.
/// (Highway's Ne may be ordered, so "not equal" is Not(Eq).)
template <class D>
struct VecLanes {
  using V = hn::Vec<D>;
  using M = hn::Mask<D>;
  static V zero() { return hn::Zero(D()); }
  static V one() { return hn::Set(D(), hn::TFromD<D>(1)); }
  static V add(V a, V b) { return hn::Add(a, b); }
  static V sub(V a, V b) { return hn::Sub(a, b); }
  static V mul(V a, V b) { return hn::Mul(a, b); }
  static V div(V a, V b) { return hn::Div(a, b); }
  static V neg(V a) { return hn::Neg(a); }
  static M lt(V a, V b) { return hn::Lt(a, b); }
  static M le(V a, V b) { return hn::Le(a, b); }
  static M gt(V a, V b) { return hn::Gt(a, b); }
  static M ge(V a, V b) { return hn::Ge(a, b); }
  static M eq(V a, V b) { return hn::Eq(a, b); }
  static M ne(V a, V b) { return hn::Not(hn::Eq(a, b)); }
  static V if_then_else(M m, V a, V b) { return hn::IfThenElse(m, a, b); }
};

/// The scalar lane type of a value (T, or double for a widened op).
template <class X>
using ScalarOf = sem::Lanes<X>;

// An op the table marks Native (ops.def, column b32) is computed in T; any
// other op is computed in binary64 and rounded to T, as the scalar
// evaluator rounds its result.

/// f applied in T (Native) or in binary64 then rounded to T.
template <class T, bool Native, class F>
HWY_INLINE T apply(F f, T x) {
  if constexpr (Native) return static_cast<T>(f(x));
  return static_cast<T>(f(static_cast<double>(x)));
}
template <class T, bool Native, class F>
HWY_INLINE T apply(F f, T x, T y) {
  if constexpr (Native) return static_cast<T>(f(x, y));
  return static_cast<T>(f(static_cast<double>(x), static_cast<double>(y)));
}

template <class T, bool Native, bool Check, bool AC, bool BC, class F>
TC_STEP_KERNEL void loop2(const T* __restrict a, T ua, const T* __restrict b, T ub, T* __restrict out, T* __restrict acc,
                         std::size_t m, F f) {
  for (std::size_t i = 0; i < m; ++i) {
    const T x = AC ? a[i] : ua;
    const T y = BC ? b[i] : ub;
    const T r = apply<T, Native>(f, x, y);
    out[i] = r;
    if constexpr (Check) acc[i] += r * T(0);
  }
}

template <class T, bool Native, bool Check, class F>
HWY_INLINE void map2(Col<T> a, Col<T> b, T* out, T* acc, std::size_t m, F f) {
  if (a.p && b.p) return loop2<T, Native, Check, true, true>(a.p, T(0), b.p, T(0), out, acc, m, f);
  if (a.p) return loop2<T, Native, Check, true, false>(a.p, T(0), nullptr, b.u, out, acc, m, f);
  if (b.p) return loop2<T, Native, Check, false, true>(nullptr, a.u, b.p, T(0), out, acc, m, f);
  return loop2<T, Native, Check, false, false>(nullptr, a.u, nullptr, b.u, out, acc, m, f);
}

template <class T, bool Native, bool Check, class F>
TC_STEP_KERNEL void map1(Col<T> a, T* __restrict out, T* __restrict acc, std::size_t m, F f) {
  if (a.p) {
    const T* __restrict x = a.p;
    for (std::size_t i = 0; i < m; ++i) {
      const T r = apply<T, Native>(f, x[i]);
      out[i] = r;
      if constexpr (Check) acc[i] += r * T(0);
    }
  } else {
    const T r = apply<T, Native>(f, a.u);
    for (std::size_t i = 0; i < m; ++i) {
      out[i] = r;
      if constexpr (Check) acc[i] += r * T(0);
    }
  }
}

/// r = s + x*y (Kind 0), s - x*y (Kind 1) or x*y - s (Kind 2), each
/// operation rounded as its own node would be: a mul and the add or sub
/// that is its only reader, in one pass (see fused_mul in batch_plan.cpp).
template <class T, bool Native, bool Check, int Kind, bool SC, bool XC, bool YC>
TC_STEP_KERNEL void loop_mul_add(const T* __restrict s, T us, const T* __restrict x, T ux, const T* __restrict y, T uy,
                                T* __restrict out, T* __restrict acc, std::size_t m) {
  auto mul = [](auto u, auto v) { return sem::mul<ScalarOf<decltype(u)>>(u, v); };
  auto add = [](auto u, auto v) { return sem::add<ScalarOf<decltype(u)>>(u, v); };
  auto sub = [](auto u, auto v) { return sem::sub<ScalarOf<decltype(u)>>(u, v); };
  for (std::size_t i = 0; i < m; ++i) {
    const T sv = SC ? s[i] : us;
    const T pr = apply<T, Native>(mul, XC ? x[i] : ux, YC ? y[i] : uy);
    T r;
    if constexpr (Kind == 0) r = apply<T, Native>(add, sv, pr);
    else if constexpr (Kind == 1) r = apply<T, Native>(sub, sv, pr);
    else r = apply<T, Native>(sub, pr, sv);
    out[i] = r;
    if constexpr (Check) acc[i] += r * T(0);
  }
}

template <class T, bool Native, bool Check, int Kind>
HWY_INLINE void map_mul_add(Col<T> s, Col<T> x, Col<T> y, T* out, T* acc, std::size_t m) {
  const int shape = (s.p ? 4 : 0) | (x.p ? 2 : 0) | (y.p ? 1 : 0);
  constexpr T z = T(0);
  switch (shape) {
    case 7: return loop_mul_add<T, Native, Check, Kind, true, true, true>(s.p, z, x.p, z, y.p, z, out, acc, m);
    case 6: return loop_mul_add<T, Native, Check, Kind, true, true, false>(s.p, z, x.p, z, nullptr, y.u, out, acc, m);
    case 5: return loop_mul_add<T, Native, Check, Kind, true, false, true>(s.p, z, nullptr, x.u, y.p, z, out, acc, m);
    case 4: return loop_mul_add<T, Native, Check, Kind, true, false, false>(s.p, z, nullptr, x.u, nullptr, y.u, out, acc, m);
    case 3: return loop_mul_add<T, Native, Check, Kind, false, true, true>(nullptr, s.u, x.p, z, y.p, z, out, acc, m);
    case 2: return loop_mul_add<T, Native, Check, Kind, false, true, false>(nullptr, s.u, x.p, z, nullptr, y.u, out, acc, m);
    case 1: return loop_mul_add<T, Native, Check, Kind, false, false, true>(nullptr, s.u, nullptr, x.u, y.p, z, out, acc, m);
    default: return loop_mul_add<T, Native, Check, Kind, false, false, false>(nullptr, s.u, nullptr, x.u, nullptr, y.u, out, acc, m);
  }
}


// ---- Highway vector kernels for the hot ops (T native) --------------------

/// Lane i of an operand: a column load, or the uniform value broadcast.
template <bool C, class D>
HWY_INLINE hn::Vec<D> lanes(D d, const hn::TFromD<D>* HWY_RESTRICT p, hn::Vec<D> u, std::size_t i) {
  if constexpr (C) return hn::LoadU(d, p + i);
  else return u;
}

/// vec(i) for each full vector of a block of m cases, four independent
/// vectors per turn (N lanes each), then scalar(i) for the cases after the
/// last full vector.
template <class VecF, class ScalarF>
HWY_INLINE void over_block(std::size_t m, std::size_t N, VecF&& vec, ScalarF&& scalar) {
  std::size_t i = 0;
  for (; i + 4 * N <= m; i += 4 * N) {
    vec(i);
    vec(i + N);
    vec(i + 2 * N);
    vec(i + 3 * N);
  }
  for (; i + N <= m; i += N) vec(i);
  for (; i < m; ++i) scalar(i);
}

/// out = vf(a, b) over the block (sf for the cases after the last full
/// vector), with the finiteness flag when Check.
template <class T, bool Check, bool AC, bool BC, class VF, class SF>
TC_STEP_KERNEL void vloop2(const T* HWY_RESTRICT a, T ua, const T* HWY_RESTRICT b, T ub, T* HWY_RESTRICT out,
                           T* HWY_RESTRICT acc, std::size_t m, VF vf, SF sf) {
  const hn::ScalableTag<T> d;
  const std::size_t N = hn::Lanes(d);
  const auto va = hn::Set(d, ua), vb = hn::Set(d, ub), z = hn::Zero(d);
  auto one = [&](std::size_t i) HWY_ATTR TC_LANE_BODY {
    const auto r = vf(d, lanes<AC>(d, a, va, i), lanes<BC>(d, b, vb, i));
    hn::StoreU(r, d, out + i);
    if constexpr (Check) hn::StoreU(hn::Add(hn::LoadU(d, acc + i), hn::Mul(r, z)), d, acc + i);
  };
  over_block(m, N, one, [&](std::size_t i) {
    const T r = sf(AC ? a[i] : ua, BC ? b[i] : ub);
    out[i] = r;
    if constexpr (Check) acc[i] += r * T(0);
  });
}

template <class T, bool Check, class VF, class SF>
HWY_INLINE void vmap2(Col<T> a, Col<T> b, T* out, T* acc, std::size_t m, VF vf, SF sf) {
  if (a.p && b.p) return vloop2<T, Check, true, true>(a.p, T(0), b.p, T(0), out, acc, m, vf, sf);
  if (a.p) return vloop2<T, Check, true, false>(a.p, T(0), nullptr, b.u, out, acc, m, vf, sf);
  if (b.p) return vloop2<T, Check, false, true>(nullptr, a.u, b.p, T(0), out, acc, m, vf, sf);
  return vloop2<T, Check, false, false>(nullptr, a.u, nullptr, b.u, out, acc, m, vf, sf);
}

/// The fused product-sum s + x*y (Kind 0), s - x*y (1), x*y - s (2): a Mul
/// then an Add or Sub, each rounded (never MulAdd).
template <class T, bool Check, int Kind, bool SC, bool XC, bool YC>
TC_STEP_KERNEL void vloop_mul_add(const T* HWY_RESTRICT s, T us, const T* HWY_RESTRICT x, T ux, const T* HWY_RESTRICT y,
                                  T uy, T* HWY_RESTRICT out, T* HWY_RESTRICT acc, std::size_t m) {
  const hn::ScalableTag<T> d;
  using VL = VecLanes<hn::ScalableTag<T>>;
  using SL = sem::Lanes<T>;
  const std::size_t N = hn::Lanes(d);
  const auto vs = hn::Set(d, us), vx = hn::Set(d, ux), vy = hn::Set(d, uy), z = hn::Zero(d);
  auto one = [&](std::size_t i) HWY_ATTR TC_LANE_BODY {
    const auto sv = lanes<SC>(d, s, vs, i);
    const auto pr = sem::mul<VL>(lanes<XC>(d, x, vx, i), lanes<YC>(d, y, vy, i));
    hn::Vec<decltype(d)> r;
    if constexpr (Kind == 0) r = sem::add<VL>(sv, pr);
    else if constexpr (Kind == 1) r = sem::sub<VL>(sv, pr);
    else r = sem::sub<VL>(pr, sv);
    hn::StoreU(r, d, out + i);
    if constexpr (Check) hn::StoreU(hn::Add(hn::LoadU(d, acc + i), hn::Mul(r, z)), d, acc + i);
  };
  over_block(m, N, one, [&](std::size_t i) {
    const T sv = SC ? s[i] : us;
    const T pr = sem::mul<SL>(XC ? x[i] : ux, YC ? y[i] : uy);
    const T r = Kind == 0 ? sem::add<SL>(sv, pr) : Kind == 1 ? sem::sub<SL>(sv, pr) : sem::sub<SL>(pr, sv);
    out[i] = r;
    if constexpr (Check) acc[i] += r * T(0);
  });
}

template <class T, bool Check, int Kind>
HWY_INLINE void vmap_mul_add(Col<T> s, Col<T> x, Col<T> y, T* out, T* acc, std::size_t m) {
  const int shape = (s.p ? 4 : 0) | (x.p ? 2 : 0) | (y.p ? 1 : 0);
  constexpr T z = T(0);
  switch (shape) {
    case 7: return vloop_mul_add<T, Check, Kind, true, true, true>(s.p, z, x.p, z, y.p, z, out, acc, m);
    case 6: return vloop_mul_add<T, Check, Kind, true, true, false>(s.p, z, x.p, z, nullptr, y.u, out, acc, m);
    case 5: return vloop_mul_add<T, Check, Kind, true, false, true>(s.p, z, nullptr, x.u, y.p, z, out, acc, m);
    case 4: return vloop_mul_add<T, Check, Kind, true, false, false>(s.p, z, nullptr, x.u, nullptr, y.u, out, acc, m);
    case 3: return vloop_mul_add<T, Check, Kind, false, true, true>(nullptr, s.u, x.p, z, y.p, z, out, acc, m);
    case 2: return vloop_mul_add<T, Check, Kind, false, true, false>(nullptr, s.u, x.p, z, nullptr, y.u, out, acc, m);
    case 1: return vloop_mul_add<T, Check, Kind, false, false, true>(nullptr, s.u, nullptr, x.u, y.p, z, out, acc, m);
    default: return vloop_mul_add<T, Check, Kind, false, false, false>(nullptr, s.u, nullptr, x.u, nullptr, y.u, out, acc, m);
  }
}

/// A failed domain check of a step's value flags the case.
template <class T>
TC_STEP_KERNEL void check_domain(const Prepared& p, const Instr& in, const T* __restrict out, T* __restrict acc,
                                std::size_t m) {
  const Domain& d = p.domains[static_cast<std::size_t>(in.domain)];
  const double lo = d.lo(), hi = d.hi();
  if (d.is_integral()) {
    for (std::size_t i = 0; i < m; ++i) {
      const double r = out[i];
      acc[i] += (r >= lo && r <= hi && r == std::floor(r)) ? T(0) : kNaNOf<T>;
    }
  } else {
    for (std::size_t i = 0; i < m; ++i) {
      const double r = out[i];
      acc[i] += (r >= lo && r <= hi) ? T(0) : kNaNOf<T>;
    }
  }
}

template <class T, bool Chk>
TC_STEP_KERNEL void step_select(Batch<T>& bt, NodeId id, const Instr& in, const NodeId* a, T* out, T* acc, std::size_t m) {
  (void)id;
  const bool exact = in.mode == Mode::Exact;
  using VL = VecLanes<hn::ScalableTag<T>>;
  using SL = sem::Lanes<T>;
  using D = sem::Lanes<double>;
  const T* __restrict c = bt.col[static_cast<std::size_t>(a[0])];
  const T* __restrict y = bt.col[static_cast<std::size_t>(a[1])];
  const T* __restrict n = bt.col[static_cast<std::size_t>(a[2])];
  if (exact) {
    // The chosen branch's value only (a choice: no rounding in any
    // width); the other branch's flags (if any) send the case to the
    // scalar re-run, which ignores them.
    const hn::ScalableTag<T> d;
    const std::size_t N = hn::Lanes(d);
    const auto z = hn::Zero(d);
    auto one = [&](std::size_t i) HWY_ATTR TC_LANE_BODY {
      const auto r = sem::select_exact<VL>(hn::LoadU(d, c + i), hn::LoadU(d, y + i), hn::LoadU(d, n + i));
      hn::StoreU(r, d, out + i);
      if constexpr (Chk) hn::StoreU(hn::Add(hn::LoadU(d, acc + i), hn::Mul(r, z)), d, acc + i);
    };
    over_block(m, N, one, [&](std::size_t i) {
      const T r = sem::select_exact<SL>(c[i], y[i], n[i]);
      out[i] = r;
      if constexpr (Chk) acc[i] += r * T(0);
    });
  } else {
    for (std::size_t i = 0; i < m; ++i) {
      const T r = static_cast<T>(sem::select_relaxed<D>(c[i], y[i], n[i]));
      out[i] = r;
      acc[i] += r * T(0);
    }
  }
}

template <class T, bool Chk>
TC_STEP_KERNEL void step_gather(Batch<T>& bt, NodeId id, const Instr& in, const NodeId* a, T* out, T* acc, std::size_t m) {
  (void)id;
  const bool exact = in.mode == Mode::Exact;
  const double t = in.temperature;
  const std::size_t n = in.nargs - 1;
  const T* __restrict idx = bt.col[static_cast<std::size_t>(a[0])];
  const T** vp = bt.ptrs.data();
  for (std::size_t k = 0; k < n; ++k) vp[k] = bt.col[static_cast<std::size_t>(a[1 + k])];
  if (exact) {
    for (std::size_t i = 0; i < m; ++i) {
      const double x = idx[i];
      const bool ok = sem::index_ok(x, n);
      const T r = vp[ok ? static_cast<std::size_t>(x) : 0][i];
      out[i] = r;
      acc[i] += ok ? T(0) : kNaNOf<T>;
      if constexpr (Chk) acc[i] += r * T(0);
    }
  } else {
    for (std::size_t i = 0; i < m; ++i) {
      const double index = idx[i];
      const T r = static_cast<T>(sem::gather_relaxed(
          n, [&](std::size_t k) { return sem::Contract::equal(index, static_cast<double>(k), t); },
          [&](std::size_t k) { return static_cast<double>(vp[k][i]); }));
      out[i] = r;
      acc[i] += r * T(0);
    }
  }
}

template <class T, bool Chk>
TC_STEP_KERNEL void step_gather_one_hot(Batch<T>& bt, NodeId id, const Instr& in, const NodeId* a, T* out, T* acc, std::size_t m) {
  (void)id;
  const bool exact = in.mode == Mode::Exact;
  const std::size_t n = in.nargs / 2;
  const T** vp = bt.ptrs.data();
  for (std::size_t k = 0; k < in.nargs; ++k) vp[k] = bt.col[static_cast<std::size_t>(a[k])];
  if (exact) {
    // Selectors other than 0 and 1 flag the case; with 0s and 1s only,
    // the count is a small integer, exact in either width.
    T* __restrict cnt = bt.scratch.data();
    std::fill(cnt, cnt + m, T(0));
    std::fill(out, out + m, T(0));
    for (std::size_t k = 0; k < n; ++k) {
      const T* __restrict s = vp[k];
      const T* __restrict v = vp[n + k];
      for (std::size_t i = 0; i < m; ++i) {
        const T si = s[i];
        acc[i] += sem::selector_ok(si) ? T(0) : kNaNOf<T>;
        cnt[i] += si;
        out[i] = si == T(1) ? v[i] : out[i];
      }
    }
    for (std::size_t i = 0; i < m; ++i) acc[i] += cnt[i] == T(1) ? T(0) : kNaNOf<T>;
    if constexpr (Chk)
      for (std::size_t i = 0; i < m; ++i) acc[i] += out[i] * T(0);
  } else {
    for (std::size_t i = 0; i < m; ++i) {
      const T r = static_cast<T>(sem::one_hot_relaxed(
          n, [&](std::size_t k) { return static_cast<double>(vp[k][i]); },
          [&](std::size_t k) { return static_cast<double>(vp[n + k][i]); }));
      out[i] = r;
      acc[i] += r * T(0);
    }
  }
}

/// An affine of K terms (all columns) in one pass over the block, the sum
/// kept in a register: the same products and sums in the same order, each
/// rounded in T, as the column-by-column loops of step_affine, which read
/// and write `out` once per term.
template <class T, bool Chk, int K>
TC_STEP_KERNEL void affine_fused(const T* const* HWY_RESTRICT xs, const double* c, bool has_bias, double bias,
                                 T* HWY_RESTRICT out, T* HWY_RESTRICT acc, std::size_t m) {
  const hn::ScalableTag<T> d;
  using VL = VecLanes<hn::ScalableTag<T>>;
  using SL = sem::Lanes<T>;
  const std::size_t N = hn::Lanes(d);
  const auto same = [](auto v) HWY_ATTR { return v; };
  T cs[K];
  hn::Vec<decltype(d)> vc[K];
  for (int j = 0; j < K; ++j) {
    cs[j] = static_cast<T>(c[j]);
    vc[j] = hn::Set(d, cs[j]);
  }
  const T b = static_cast<T>(bias);
  const auto vb = hn::Set(d, b), z = hn::Zero(d);
  auto one = [&](std::size_t i) HWY_ATTR TC_LANE_BODY {
    auto r = sem::affine_first<VL>(vc[0], hn::LoadU(d, xs[0] + i), same);
    for (int j = 1; j < K; ++j) r = sem::affine_next<VL>(r, vc[j], hn::LoadU(d, xs[j] + i), same);
    if (has_bias) r = sem::affine_bias<VL>(r, vb, same);
    hn::StoreU(r, d, out + i);
    if constexpr (Chk) hn::StoreU(hn::Add(hn::LoadU(d, acc + i), hn::Mul(r, z)), d, acc + i);
  };
  over_block(m, N, one, [&](std::size_t i) {
    T r = sem::affine_first<SL>(cs[0], xs[0][i], same);
    for (int j = 1; j < K; ++j) r = sem::affine_next<SL>(r, cs[j], xs[j][i], same);
    if (has_bias) r = sem::affine_bias<SL>(r, b, same);
    out[i] = r;
    if constexpr (Chk) acc[i] += r * T(0);
  });
}

template <class T, bool Chk>
TC_STEP_KERNEL void step_affine(Batch<T>& bt, NodeId id, const Instr& in, const NodeId* a, T* out, T* acc, std::size_t m) {
  const Prepared& p = bt.p;
  const bool native = bt.p.plan.native[static_cast<std::size_t>(id)] != 0;
  using SL = sem::Lanes<T>;
  using D = sem::Lanes<double>;
  // Every product and every sum rounded (contract section 2): in T when
  // the table says the op is Native, else in binary64 and rounded.
  const double* c = p.coefs.data() + in.coef_begin;
  const std::int32_t* pos = in.op == Op::SparseAffine ? p.positions.data() + in.coef_begin : nullptr;
  auto xcol = [&](std::uint32_t j) -> const T* {
    return bt.col[static_cast<std::size_t>(a[pos ? static_cast<std::uint32_t>(pos[j]) : j])];
  };
  // sem's accumulation order, column by column: in T when native (L =
  // SL, nothing to round), else in binary64 rounded to T after every
  // product and sum (L = D).
  auto affine = [&](auto lanes, auto round) {
    using L = decltype(lanes);
    using W = typename L::V;
    {
      const T* __restrict x = xcol(0);
      const W c0 = static_cast<T>(c[0]);
      for (std::size_t i = 0; i < m; ++i) out[i] = static_cast<T>(sem::affine_first<L>(c0, W(x[i]), round));
    }
    for (std::uint32_t j = 1; j < in.ncoef; ++j) {
      const T* __restrict x = xcol(j);
      const W cj = static_cast<T>(c[j]);
      for (std::size_t i = 0; i < m; ++i) out[i] = static_cast<T>(sem::affine_next<L>(W(out[i]), cj, W(x[i]), round));
    }
    if (in.has_bias) {
      const W b = static_cast<T>(in.bias);
      for (std::size_t i = 0; i < m; ++i) out[i] = static_cast<T>(sem::affine_bias<L>(W(out[i]), b, round));
    }
  };
  if ((std::is_same_v<T, double> || native) && in.ncoef >= 1 && in.ncoef <= 4) {
    const T* xs[4];
    for (std::uint32_t j = 0; j < in.ncoef; ++j) xs[j] = xcol(j);
    switch (in.ncoef) {
      case 1: return affine_fused<T, Chk, 1>(xs, c, in.has_bias, in.bias, out, acc, m);
      case 2: return affine_fused<T, Chk, 2>(xs, c, in.has_bias, in.bias, out, acc, m);
      case 3: return affine_fused<T, Chk, 3>(xs, c, in.has_bias, in.bias, out, acc, m);
      default: return affine_fused<T, Chk, 4>(xs, c, in.has_bias, in.bias, out, acc, m);
    }
  }
  if (std::is_same_v<T, double> || native) affine(SL{}, [](T v) { return v; });
  else affine(D{}, [](double v) { return static_cast<double>(static_cast<T>(v)); });
  if constexpr (Chk)
    for (std::size_t i = 0; i < m; ++i) acc[i] += out[i] * T(0);
}

template <class T, bool Chk>
TC_STEP_KERNEL void step_call(Batch<T>& bt, NodeId id, const Instr& in, const NodeId* a, T* out, T* acc, std::size_t m) {
  (void)id;
  const Prepared& p = bt.p;
  const Binding& b = *p.bindings[static_cast<std::size_t>(in.slot)];
  const T** vp = bt.ptrs.data();
  for (std::size_t k = 0; k < in.nargs; ++k) vp[k] = bt.col[static_cast<std::size_t>(a[k])];
  double* args = bt.call_args.data();
  for (std::size_t i = 0; i < m; ++i) {
    for (std::size_t k = 0; k < in.nargs; ++k) args[k] = vp[k][i];
    T r;
    try {
      r = static_cast<T>(b.forward(std::span<const double>(args, in.nargs)));
    } catch (...) {
      r = kNaNOf<T>;  // flagged; the scalar re-run reports the exception
    }
    out[i] = r;
    acc[i] += r * T(0);
  }
}

template <class T, bool Chk>
HWY_INLINE void exec_step(Batch<T>& bt, NodeId id, std::size_t m) {
  const Prepared& p = bt.p;
  const Instr& in = p.instrs[static_cast<std::size_t>(id)];
  const NodeId* a = p.args_of(in);
  T* out = bt.out_of(id);
  T* acc = bt.acc.get();
  const bool exact = in.mode == Mode::Exact;
  const bool native = p.plan.native[static_cast<std::size_t>(id)] != 0;
  const double t = in.temperature;
  using VL = VecLanes<hn::ScalableTag<T>>;
  using SL = sem::Lanes<T>;
  using D = sem::Lanes<double>;
  if (const NodeId fm = p.plan.fused_mul[static_cast<std::size_t>(id)]; fm >= 0) {
    const NodeId* ma = p.args_of(p.instrs[static_cast<std::size_t>(fm)]);
    const Col<T> x = bt.operand(ma[0]), y = bt.operand(ma[1]);
    const bool mul_first = a[0] == fm;
    const Col<T> other = bt.operand(mul_first ? a[1] : a[0]);
    const bool both = native && p.plan.native[static_cast<std::size_t>(fm)] != 0;
    if (both) {
      if (in.op == Op::Add) vmap_mul_add<T, Chk, 0>(other, x, y, out, acc, m);
      else if (mul_first) vmap_mul_add<T, Chk, 2>(other, x, y, out, acc, m);
      else vmap_mul_add<T, Chk, 1>(other, x, y, out, acc, m);
    } else {
      if (in.op == Op::Add) map_mul_add<T, false, Chk, 0>(other, x, y, out, acc, m);
      else if (mul_first) map_mul_add<T, false, Chk, 2>(other, x, y, out, acc, m);
      else map_mul_add<T, false, Chk, 1>(other, x, y, out, acc, m);
    }
    if (in.check_domain) check_domain(p, in, out, acc, m);
    return;
  }
  switch (in.op) {
    case Op::Input: case Op::Parameter: case Op::Constant: case Op::State:
      break;  // leaves are not steps
    // The kernels of op_semantics.h: VL over Highway vectors (the block's
    // full vectors), SL over T (the cases after them, and ops computed in
    // T by plain loops), D over binary64 (ops the table marks Widened, and
    // native ones if it ever marks them otherwise), rounded to T by map1/map2.
    case Op::Add: case Op::Sub: case Op::Mul: case Op::Div: {
      const Col<T> x = bt.operand(a[0]), y = bt.operand(a[1]);
      if (!native) {  // only if the table ever marks one of them Widened
        if (in.op == Op::Add) map2<T, false, Chk>(x, y, out, acc, m, [](double u, double v) { return sem::add<D>(u, v); });
        else if (in.op == Op::Sub) map2<T, false, Chk>(x, y, out, acc, m, [](double u, double v) { return sem::sub<D>(u, v); });
        else if (in.op == Op::Mul) map2<T, false, Chk>(x, y, out, acc, m, [](double u, double v) { return sem::mul<D>(u, v); });
        else map2<T, false, Chk>(x, y, out, acc, m, [](double u, double v) { return sem::div<D>(u, v); });
      } else if (in.op == Op::Add) {
        vmap2<T, Chk>(x, y, out, acc, m, [](auto, auto u, auto v) TC_LANE_BODY { return sem::add<VL>(u, v); }, [](T u, T v) { return sem::add<SL>(u, v); });
      } else if (in.op == Op::Sub) {
        vmap2<T, Chk>(x, y, out, acc, m, [](auto, auto u, auto v) TC_LANE_BODY { return sem::sub<VL>(u, v); }, [](T u, T v) { return sem::sub<SL>(u, v); });
      } else if (in.op == Op::Mul) {
        vmap2<T, Chk>(x, y, out, acc, m, [](auto, auto u, auto v) TC_LANE_BODY { return sem::mul<VL>(u, v); }, [](T u, T v) { return sem::mul<SL>(u, v); });
      } else {
        vmap2<T, Chk>(x, y, out, acc, m, [](auto, auto u, auto v) TC_LANE_BODY { return sem::div<VL>(u, v); }, [](T u, T v) { return sem::div<SL>(u, v); });
      }
      break;
    }
    // A zero divisor (sem::zero_divisor) yields a non-finite value here (IEEE,
    // or NaN from fmod), which flags the case; the scalar re-run words it.
    case Op::FloorDiv: map2<T, false, Chk>(bt.operand(a[0]), bt.operand(a[1]), out, acc, m, [](double x, double y) { return sem::floordiv(x, y); }); break;
    case Op::Mod: map2<T, false, Chk>(bt.operand(a[0]), bt.operand(a[1]), out, acc, m, [](double x, double y) { return sem::mod(x, y); }); break;
    case Op::Lt: case Op::Le: case Op::Gt: case Op::Ge: case Op::Eq: case Op::Ne: {
      const Col<T> x = bt.operand(a[0]), y = bt.operand(a[1]);
      if (exact) {
        // 1 or 0 (comparing binary32 values in binary32 gives the binary64
        // answer): never non-finite, so never tested.
        if (in.op == Op::Lt) vmap2<T, false>(x, y, out, acc, m, [](auto, auto u, auto v) TC_LANE_BODY { return sem::compare<Op::Lt, VL>(u, v); }, [](T u, T v) { return sem::compare<Op::Lt, SL>(u, v); });
        else if (in.op == Op::Le) vmap2<T, false>(x, y, out, acc, m, [](auto, auto u, auto v) TC_LANE_BODY { return sem::compare<Op::Le, VL>(u, v); }, [](T u, T v) { return sem::compare<Op::Le, SL>(u, v); });
        else if (in.op == Op::Gt) vmap2<T, false>(x, y, out, acc, m, [](auto, auto u, auto v) TC_LANE_BODY { return sem::compare<Op::Gt, VL>(u, v); }, [](T u, T v) { return sem::compare<Op::Gt, SL>(u, v); });
        else if (in.op == Op::Ge) vmap2<T, false>(x, y, out, acc, m, [](auto, auto u, auto v) TC_LANE_BODY { return sem::compare<Op::Ge, VL>(u, v); }, [](T u, T v) { return sem::compare<Op::Ge, SL>(u, v); });
        else if (in.op == Op::Eq) vmap2<T, false>(x, y, out, acc, m, [](auto, auto u, auto v) TC_LANE_BODY { return sem::compare<Op::Eq, VL>(u, v); }, [](T u, T v) { return sem::compare<Op::Eq, SL>(u, v); });
        else vmap2<T, false>(x, y, out, acc, m, [](auto, auto u, auto v) TC_LANE_BODY { return sem::compare<Op::Ne, VL>(u, v); }, [](T u, T v) { return sem::compare<Op::Ne, SL>(u, v); });
      } else {
        const Op op = in.op;
        map2<T, false, Chk>(x, y, out, acc, m, [op, t](double u, double v) { return sem::compare_relaxed(op, u, v, t, sem::Contract{}); });
      }
      break;
    }
    case Op::Select:
      step_select<T, Chk>(bt, id, in, a, out, acc, m);
      break;
    case Op::Gather:
      step_gather<T, Chk>(bt, id, in, a, out, acc, m);
      break;
    case Op::GatherOneHot:
      step_gather_one_hot<T, Chk>(bt, id, in, a, out, acc, m);
      break;
    case Op::Affine:
    case Op::SparseAffine:
      step_affine<T, Chk>(bt, id, in, a, out, acc, m);
      break;
    case Op::Call:
      step_call<T, Chk>(bt, id, in, a, out, acc, m);
      break;
    case Op::Raise:
      // No value: NaN, which the plan's non-finite discipline flags wherever
      // it matters, as for an overflow. A select that does not choose it
      // drops it (its branches are not tested where they are produced), so
      // only the cases that reach the raise go to the scalar re-run, which
      // words the failure; a raise that is an output is tested (Chk).
      for (std::size_t i = 0; i < m; ++i) {
        out[i] = kNaNOf<T>;
        if constexpr (Chk) acc[i] += kNaNOf<T>;
      }
      break;
    default: {
      // The one-argument kernels (op_semantics.h's unary(): neg, relu,
      // sigmoid, and any op added there), one map of the kernel: over
      // Highway vectors when the table marks it Native and the plan computes
      // it in T (the operand read as the first of two, the second unused),
      // else in binary64 and rounded to T.
      const Col<T> x = bt.operand(a[0]);
      const bool one_argument = sem::unary(in.op, [&](auto k) {
        using K = decltype(k);
        if constexpr (K::native) {
          if (native) {
            vmap2<T, Chk>(x, Col<T>{nullptr, T(0)}, out, acc, m, [](auto, auto u, auto) TC_LANE_BODY { return K::template f<VL>(u); },
                          [](T u, T) { return K::template f<SL>(u); });
            return;
          }
        }
        map1<T, false, Chk>(x, out, acc, m, [](double u) { return K::template f<D>(u); });
      });
      // An op with no kernel here sends every case to the scalar re-run.
      if (!one_argument)
        for (std::size_t i = 0; i < m; ++i) acc[i] += kNaNOf<T>;
      break;
    }
  }
  if (in.check_domain) check_domain(p, in, out, acc, m);
}


/// Every step of the plan over one block of `m` cases.
template <class T>
HWY_INLINE void run_steps_in(Batch<T>& bt, std::size_t m) {
  const BatchPlan& plan = bt.p.plan;
  for (NodeId id : plan.steps) {
    if (plan.check[static_cast<std::size_t>(id)] != 0) exec_step<T, true>(bt, id, m);
    else exec_step<T, false>(bt, id, m);
  }
}

/// acc holds 0 or NaN per case: the sum is 0 exactly when no case is flagged.
template <class T>
HWY_INLINE bool any_flagged_in(const T* HWY_RESTRICT acc, std::size_t m) {
  const hn::ScalableTag<T> d;
  const std::size_t N = hn::Lanes(d);
  auto sum = hn::Zero(d);
  std::size_t i = 0;
  for (; i + N <= m; i += N) sum = hn::Add(sum, hn::LoadU(d, acc + i));
  T rest = hn::GetLane(hn::SumOfLanes(d, sum));
  for (; i < m; ++i) rest += acc[i];
  return rest != T(0);
}

}  // namespace

void RunStepsF64(Batch<double>& bt, std::size_t m) { run_steps_in(bt, m); }
void RunStepsF32(Batch<float>& bt, std::size_t m) { run_steps_in(bt, m); }
bool AnyFlaggedF64(const double* acc, std::size_t m) { return any_flagged_in(acc, m); }
bool AnyFlaggedF32(const float* acc, std::size_t m) { return any_flagged_in(acc, m); }

}  // namespace HWY_NAMESPACE
}  // namespace tc::eval_detail
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tc::eval_detail {

HWY_EXPORT(RunStepsF64);
HWY_EXPORT(RunStepsF32);
HWY_EXPORT(AnyFlaggedF64);
HWY_EXPORT(AnyFlaggedF32);

void run_steps(Batch<double>& bt, std::size_t m) { HWY_DYNAMIC_DISPATCH(RunStepsF64)(bt, m); }
void run_steps(Batch<float>& bt, std::size_t m) { HWY_DYNAMIC_DISPATCH(RunStepsF32)(bt, m); }
bool any_flagged(const double* acc, std::size_t m) { return HWY_DYNAMIC_DISPATCH(AnyFlaggedF64)(acc, m); }
bool any_flagged(const float* acc, std::size_t m) { return HWY_DYNAMIC_DISPATCH(AnyFlaggedF32)(acc, m); }

}  // namespace tc::eval_detail
#endif  // HWY_ONCE
