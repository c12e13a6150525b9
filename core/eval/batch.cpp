// The batched fast path. Cases are processed in blocks; each step (one node)
// runs over the block's contiguous column, so the inner loops are plain
// element-wise loops the compiler vectorises. The fast path computes with
// IEEE semantics, never stops, and only *flags* a case when something
// suspicious happened (a non-finite value anywhere, a failed domain, index
// or selector check). Flagged cases are then re-run with the precise, lazy
// scalar evaluator, which decides whether the problem was live (an error in
// an unchosen select branch is not) and produces the exact message.
//
// Flags accumulate in a per-case double `acc`: acc += r * 0.0 stays 0 for
// finite r and becomes NaN for the first inf/NaN; failed checks add NaN.
// This keeps the hot loops free of branches and byte-wide stores.
//
// Not every node's value needs the finiteness test. add, sub, mul, neg and
// the affine ops keep a non-finite operand non-finite (inf*0 and inf-inf are
// NaN), and so does the branch an exact select takes. A non-finite value can
// only turn finite again at a "laundering" op: a comparison, relu, sigmoid,
// division (x/inf == 0), floordiv, mod, gather, gather_one_hot, call, a
// relaxed select, as an exact select's condition, or as a sparse_affine
// argument no index uses. So only the values that feed such an argument, and
// the targets, are tested (fused into the loop that produces them); a live
// non-finite value always reaches one of them. batch_plan.cpp decides which.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <type_traits>

#include <tbb/blocked_range.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/info.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "eval/op_math.h"
#include "eval/prepared.h"

namespace tc::eval_detail {

namespace {

/// An operand: a column, or one value for the whole block.
template <class T>
struct Col {
  const T* p;
  T u;
};

template <class T>
constexpr T kNaN = std::numeric_limits<T>::quiet_NaN();

// The step kernels are force-inlined into run_steps, which is compiled twice
// on x86-64 (AVX2 and the baseline) and picked at load time, so the block
// loops use the widest vectors the machine has without a -march flag.
#if defined(__GNUC__)
#define TC_INLINE inline __attribute__((always_inline))
#else
#define TC_INLINE inline
#endif
// Not under ThreadSanitizer: the clones' ifunc resolver runs during
// relocation, before the TSan runtime is initialised, and crashes.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(TC_NO_TARGET_CLONES) && \
    !defined(__SANITIZE_THREAD__)
#define TC_VECTOR_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define TC_VECTOR_CLONES
#endif

// Columns hold T: double for a float64 program, float for a float32 one
// (every float32 value is a binary32 number, so nothing is lost, and a
// vector holds twice as many cases). An op the table marks Native
// (ops.def, column b32) is computed in T; any other op is computed in
// binary64 and rounded to T, as the scalar evaluator rounds its result.

/// f applied in T (Native) or in binary64 then rounded to T.
template <class T, bool Native, class F>
TC_INLINE T apply(F f, T x) {
  if constexpr (Native) return static_cast<T>(f(x));
  return static_cast<T>(f(static_cast<double>(x)));
}
template <class T, bool Native, class F>
TC_INLINE T apply(F f, T x, T y) {
  if constexpr (Native) return static_cast<T>(f(x, y));
  return static_cast<T>(f(static_cast<double>(x), static_cast<double>(y)));
}

template <class T, bool Native, bool Check, bool AC, bool BC, class F>
TC_INLINE void loop2(const T* __restrict a, T ua, const T* __restrict b, T ub, T* __restrict out, T* __restrict acc,
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
TC_INLINE void map2(Col<T> a, Col<T> b, T* out, T* acc, std::size_t m, F f) {
  if (a.p && b.p) return loop2<T, Native, Check, true, true>(a.p, T(0), b.p, T(0), out, acc, m, f);
  if (a.p) return loop2<T, Native, Check, true, false>(a.p, T(0), nullptr, b.u, out, acc, m, f);
  if (b.p) return loop2<T, Native, Check, false, true>(nullptr, a.u, b.p, T(0), out, acc, m, f);
  return loop2<T, Native, Check, false, false>(nullptr, a.u, nullptr, b.u, out, acc, m, f);
}

/// map2 with Native taken from the plan (both instantiations are compiled;
/// for T = double they are the same code).
template <class T, bool Check, class F>
TC_INLINE void map2n(bool native, Col<T> a, Col<T> b, T* out, T* acc, std::size_t m, F f) {
  if constexpr (std::is_same_v<T, double>) return map2<T, true, Check>(a, b, out, acc, m, f);
  if (native) return map2<T, true, Check>(a, b, out, acc, m, f);
  return map2<T, false, Check>(a, b, out, acc, m, f);
}

template <class T, bool Native, bool Check, class F>
TC_INLINE void map1(Col<T> a, T* __restrict out, T* __restrict acc, std::size_t m, F f) {
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

template <class T, bool Check, class F>
TC_INLINE void map1n(bool native, Col<T> a, T* out, T* acc, std::size_t m, F f) {
  if constexpr (std::is_same_v<T, double>) return map1<T, true, Check>(a, out, acc, m, f);
  if (native) return map1<T, true, Check>(a, out, acc, m, f);
  return map1<T, false, Check>(a, out, acc, m, f);
}

/// r = s + x*y (Kind 0), s - x*y (Kind 1) or x*y - s (Kind 2), each
/// operation rounded as its own node would be: a mul and the add or sub
/// that is its only reader, in one pass (see fused_mul in batch_plan.cpp).
template <class T, bool Native, bool Check, int Kind, bool SC, bool XC, bool YC>
TC_INLINE void loop_mul_add(const T* __restrict s, T us, const T* __restrict x, T ux, const T* __restrict y, T uy,
                            T* __restrict out, T* __restrict acc, std::size_t m) {
  auto mul = [](auto u, auto v) { return exact_arith(Op::Mul, u, v); };
  auto add = [](auto u, auto v) { return exact_arith(Op::Add, u, v); };
  auto sub = [](auto u, auto v) { return exact_arith(Op::Sub, u, v); };
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
TC_INLINE void map_mul_add(Col<T> s, Col<T> x, Col<T> y, T* out, T* acc, std::size_t m) {
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

template <class T, bool Check, int Kind>
TC_INLINE void map_mul_add_n(bool native, Col<T> s, Col<T> x, Col<T> y, T* out, T* acc, std::size_t m) {
  if constexpr (std::is_same_v<T, double>) return map_mul_add<T, true, Check, Kind>(s, x, y, out, acc, m);
  if (native) return map_mul_add<T, true, Check, Kind>(s, x, y, out, acc, m);
  return map_mul_add<T, false, Check, Kind>(s, x, y, out, acc, m);
}

/// Everything one run_batch call owns; allocated once per call.
template <class T>
struct Batch {
  const Prepared& p;
  std::size_t B;
  std::unique_ptr<T[]> slots;  ///< every slot is written before it is read: no zero fill
  std::vector<const T*> col;   ///< per node: current column, or nullptr when uniform
  std::vector<T> uval;         ///< per node: uniform value
  std::vector<T> acc;
  std::vector<T> scratch;
  std::vector<const T*> ptrs;
  std::vector<double> call_args;

  Col<T> operand(NodeId id) const { return Col<T>{col[static_cast<std::size_t>(id)], uval[static_cast<std::size_t>(id)]}; }
  T* out_of(NodeId id) { return slots.get() + static_cast<std::size_t>(p.plan.slot_of[static_cast<std::size_t>(id)]) * B; }
};

/// A failed domain check of a step's value flags the case.
template <class T>
TC_INLINE void check_domain(const Prepared& p, const Instr& in, const T* __restrict out, T* __restrict acc,
                            std::size_t m) {
  const Domain& d = p.domains[static_cast<std::size_t>(in.domain)];
  const double lo = d.lo(), hi = d.hi();
  if (d.is_integral()) {
    for (std::size_t i = 0; i < m; ++i) {
      const double r = out[i];
      acc[i] += (r >= lo && r <= hi && r == std::floor(r)) ? T(0) : kNaN<T>;
    }
  } else {
    for (std::size_t i = 0; i < m; ++i) {
      const double r = out[i];
      acc[i] += (r >= lo && r <= hi) ? T(0) : kNaN<T>;
    }
  }
}

template <class T, bool Chk>
TC_INLINE void exec_step(Batch<T>& bt, NodeId id, std::size_t m) {
  const Prepared& p = bt.p;
  const Instr& in = p.instrs[static_cast<std::size_t>(id)];
  const NodeId* a = p.args_of(in);
  T* out = bt.out_of(id);
  T* acc = bt.acc.data();
  const bool exact = in.mode == Mode::Exact;
  const bool native = p.plan.native[static_cast<std::size_t>(id)] != 0;
  const double t = in.temperature;
  if (const NodeId fm = p.plan.fused_mul[static_cast<std::size_t>(id)]; fm >= 0) {
    const NodeId* ma = p.args_of(p.instrs[static_cast<std::size_t>(fm)]);
    const Col<T> x = bt.operand(ma[0]), y = bt.operand(ma[1]);
    const bool mul_first = a[0] == fm;
    const Col<T> other = bt.operand(mul_first ? a[1] : a[0]);
    const bool both = native && p.plan.native[static_cast<std::size_t>(fm)] != 0;
    if (in.op == Op::Add) map_mul_add_n<T, Chk, 0>(both, other, x, y, out, acc, m);
    else if (mul_first) map_mul_add_n<T, Chk, 2>(both, other, x, y, out, acc, m);
    else map_mul_add_n<T, Chk, 1>(both, other, x, y, out, acc, m);
    if (in.check_domain) check_domain(p, in, out, acc, m);
    return;
  }
  switch (in.op) {
    case Op::Input: case Op::Parameter: case Op::Constant: case Op::State:
      break;  // leaves are not steps
    case Op::Add: map2n<T, Chk>(native, bt.operand(a[0]), bt.operand(a[1]), out, acc, m, [](auto x, auto y) { return exact_arith(Op::Add, x, y); }); break;
    case Op::Sub: map2n<T, Chk>(native, bt.operand(a[0]), bt.operand(a[1]), out, acc, m, [](auto x, auto y) { return exact_arith(Op::Sub, x, y); }); break;
    case Op::Mul: map2n<T, Chk>(native, bt.operand(a[0]), bt.operand(a[1]), out, acc, m, [](auto x, auto y) { return exact_arith(Op::Mul, x, y); }); break;
    case Op::Div: map2n<T, Chk>(native, bt.operand(a[0]), bt.operand(a[1]), out, acc, m, [](auto x, auto y) { return exact_arith(Op::Div, x, y); }); break;
    // Division by zero yields a non-finite value here (IEEE, or NaN from fmod), which flags the case.
    case Op::FloorDiv: map2<T, false, Chk>(bt.operand(a[0]), bt.operand(a[1]), out, acc, m, [](double x, double y) { return kernels::py_floordiv(x, y); }); break;
    case Op::Mod: map2<T, false, Chk>(bt.operand(a[0]), bt.operand(a[1]), out, acc, m, [](double x, double y) { return kernels::py_mod(x, y); }); break;
    case Op::Neg: map1n<T, Chk>(native, bt.operand(a[0]), out, acc, m, [](auto x) { return exact_unary(Op::Neg, x); }); break;
    case Op::Relu: map1n<T, Chk>(native, bt.operand(a[0]), out, acc, m, [](auto x) { return exact_unary(Op::Relu, x); }); break;
    case Op::Sigmoid: map1<T, false, Chk>(bt.operand(a[0]), out, acc, m, [](double x) { return kernels::sigmoid(x); }); break;
    case Op::Lt: case Op::Le: case Op::Gt: case Op::Ge: case Op::Eq: case Op::Ne: {
      const Col<T> x = bt.operand(a[0]), y = bt.operand(a[1]);
      if (exact) {
        // 1 or 0: never non-finite, so never tested.
        if (in.op == Op::Lt) map2n<T, false>(native, x, y, out, acc, m, [](auto u, auto v) { return exact_compare(Op::Lt, u, v); });
        else if (in.op == Op::Le) map2n<T, false>(native, x, y, out, acc, m, [](auto u, auto v) { return exact_compare(Op::Le, u, v); });
        else if (in.op == Op::Gt) map2n<T, false>(native, x, y, out, acc, m, [](auto u, auto v) { return exact_compare(Op::Gt, u, v); });
        else if (in.op == Op::Ge) map2n<T, false>(native, x, y, out, acc, m, [](auto u, auto v) { return exact_compare(Op::Ge, u, v); });
        else if (in.op == Op::Eq) map2n<T, false>(native, x, y, out, acc, m, [](auto u, auto v) { return exact_compare(Op::Eq, u, v); });
        else map2n<T, false>(native, x, y, out, acc, m, [](auto u, auto v) { return exact_compare(Op::Ne, u, v); });
      } else {
        const Op op = in.op;
        map2<T, false, Chk>(x, y, out, acc, m, [op, t](double u, double v) { return relaxed_compare(op, u, v, t); });
      }
      break;
    }
    case Op::Select: {
      const T* __restrict c = bt.col[static_cast<std::size_t>(a[0])];
      const T* __restrict y = bt.col[static_cast<std::size_t>(a[1])];
      const T* __restrict n = bt.col[static_cast<std::size_t>(a[2])];
      if (exact) {
        // The chosen branch's value only (a choice: no rounding in any
        // width); the other branch's flags (if any) send the case to the
        // scalar re-run, which ignores them.
        for (std::size_t i = 0; i < m; ++i) {
          const T r = c[i] != T(0) ? y[i] : n[i];
          out[i] = r;
          if constexpr (Chk) acc[i] += r * T(0);
        }
      } else {
        for (std::size_t i = 0; i < m; ++i) {
          const T r = static_cast<T>(kernels::relaxed_select(c[i], y[i], n[i]));
          out[i] = r;
          acc[i] += r * T(0);
        }
      }
      break;
    }
    case Op::Gather: {
      const std::size_t n = in.nargs - 1;
      const T* __restrict idx = bt.col[static_cast<std::size_t>(a[0])];
      const T** vp = bt.ptrs.data();
      for (std::size_t k = 0; k < n; ++k) vp[k] = bt.col[static_cast<std::size_t>(a[1 + k])];
      if (exact) {
        for (std::size_t i = 0; i < m; ++i) {
          const double x = idx[i];
          const bool ok = valid_index(x, n);
          const T r = vp[ok ? static_cast<std::size_t>(x) : 0][i];
          out[i] = r;
          acc[i] += ok ? T(0) : kNaN<T>;
          if constexpr (Chk) acc[i] += r * T(0);
        }
      } else {
        for (std::size_t i = 0; i < m; ++i) {
          const T r = static_cast<T>(
              relaxed_gather(idx[i], n, t, [&](std::size_t k) { return static_cast<double>(vp[k][i]); }));
          out[i] = r;
          acc[i] += r * T(0);
        }
      }
      break;
    }
    case Op::GatherOneHot: {
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
            acc[i] += (si == T(0) || si == T(1)) ? T(0) : kNaN<T>;
            cnt[i] += si;
            out[i] = si == T(1) ? v[i] : out[i];
          }
        }
        for (std::size_t i = 0; i < m; ++i) acc[i] += cnt[i] == T(1) ? T(0) : kNaN<T>;
        if constexpr (Chk)
          for (std::size_t i = 0; i < m; ++i) acc[i] += out[i] * T(0);
      } else {
        for (std::size_t i = 0; i < m; ++i) {
          const T r = static_cast<T>(relaxed_one_hot(
              n, [&](std::size_t k) { return static_cast<double>(vp[k][i]); },
              [&](std::size_t k) { return static_cast<double>(vp[n + k][i]); }));
          out[i] = r;
          acc[i] += r * T(0);
        }
      }
      break;
    }
    case Op::Affine:
    case Op::SparseAffine: {
      // Every product and every sum rounded (contract section 2): in T when
      // the table says the op is Native, else in binary64 and rounded.
      const double* c = p.coefs.data() + in.coef_begin;
      const std::int32_t* pos = in.op == Op::SparseAffine ? p.positions.data() + in.coef_begin : nullptr;
      auto xcol = [&](std::uint32_t j) -> const T* {
        return bt.col[static_cast<std::size_t>(a[pos ? static_cast<std::uint32_t>(pos[j]) : j])];
      };
      auto affine = [&](auto native_tag) {
        constexpr bool N = decltype(native_tag)::value;
        auto mul = [](auto u, auto v) { return exact_arith(Op::Mul, u, v); };
        auto add = [](auto u, auto v) { return exact_arith(Op::Add, u, v); };
        {
          const T* __restrict x = xcol(0);
          const T c0 = static_cast<T>(c[0]);
          for (std::size_t i = 0; i < m; ++i) out[i] = apply<T, N>(mul, c0, x[i]);
        }
        for (std::uint32_t j = 1; j < in.ncoef; ++j) {
          const T* __restrict x = xcol(j);
          const T cj = static_cast<T>(c[j]);
          for (std::size_t i = 0; i < m; ++i) out[i] = apply<T, N>(add, out[i], apply<T, N>(mul, cj, x[i]));
        }
        if (in.has_bias) {
          const T b = static_cast<T>(in.bias);
          for (std::size_t i = 0; i < m; ++i) out[i] = apply<T, N>(add, out[i], b);
        }
      };
      if (std::is_same_v<T, double> || native) affine(std::true_type{});
      else affine(std::false_type{});
      if constexpr (Chk)
        for (std::size_t i = 0; i < m; ++i) acc[i] += out[i] * T(0);
      break;
    }
    case Op::Call: {
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
          r = kNaN<T>;  // flagged; the scalar re-run reports the exception
        }
        out[i] = r;
        acc[i] += r * T(0);
      }
      break;
    }
  }
  if (in.check_domain) check_domain(p, in, out, acc, m);
}

/// Every step of the plan over one block of `m` cases.
template <class T>
TC_INLINE void run_steps_in(Batch<T>& bt, std::size_t m) {
  const BatchPlan& plan = bt.p.plan;
  for (NodeId id : plan.steps) {
    if (plan.check[static_cast<std::size_t>(id)] != 0) exec_step<T, true>(bt, id, m);
    else exec_step<T, false>(bt, id, m);
  }
}

TC_VECTOR_CLONES void run_steps(Batch<double>& bt, std::size_t m) { run_steps_in(bt, m); }
TC_VECTOR_CLONES void run_steps(Batch<float>& bt, std::size_t m) { run_steps_in(bt, m); }

}  // namespace

namespace {

/// One worker's scratch: the block columns plus the scalar re-run's state.
template <class T>
struct Worker {
  Batch<T> bt;
  Workspace ws;
  std::vector<double> case_inputs;
  Diagnostic err;
  T acc_init;
  Worker(const Prepared& p, std::size_t B, const std::vector<double>& uval, double acc_init0)
      : bt{p, B, {}, {}, {}, {}, {}, {}, {}}, case_inputs(p.inputs.size()), acc_init(static_cast<T>(acc_init0)) {
    const BatchPlan& plan = p.plan;
    const std::size_t n = p.instrs.size();
    bt.slots.reset(new T[std::max<std::size_t>(static_cast<std::size_t>(plan.nslots) * B, 1)]);
    bt.col.assign(n, nullptr);
    bt.uval.assign(uval.begin(), uval.end());  // float32: already binary32 values
    bt.acc.assign(B, T(0));
    bt.scratch.assign(B, T(0));
    bt.ptrs.assign(std::max<std::size_t>(plan.max_args, 1), nullptr);
    bt.call_args.assign(std::max<std::size_t>(plan.max_args, 1), 0.0);
    for (std::size_t i = 0; i < n; ++i)
      if (plan.slot_of[i] >= 0) bt.col[i] = bt.slots.get() + static_cast<std::size_t>(plan.slot_of[i]) * B;
    for (NodeId id : plan.broadcast)
      std::fill_n(bt.slots.get() + static_cast<std::size_t>(plan.slot_of[static_cast<std::size_t>(id)]) * B, B,
                  bt.uval[static_cast<std::size_t>(id)]);
  }
};

/// Cases [begin, end) block by block; errors are appended in case order.
template <class T>
void run_range(Worker<T>& w, std::span<const std::span<const double>> columns, std::size_t begin, std::size_t end,
               const Fixed& fixed, BatchResult& out, std::vector<std::pair<std::size_t, Diagnostic>>& errors) {
  Batch<T>& bt = w.bt;
  const Prepared& p = bt.p;
  const BatchPlan& plan = p.plan;
  const std::size_t B = bt.B;
  const std::size_t nout = p.program.outputs.size();
  const std::size_t nupd = p.program.updates.size();
  for (std::size_t start = begin; start < end; start += B) {
    const std::size_t m = std::min(B, end - start);
    T* acc = bt.acc.data();
    std::fill(acc, acc + m, w.acc_init);
    for (std::size_t k = 0; k < p.inputs.size(); ++k) {
      const auto id = static_cast<std::size_t>(p.inputs[k]);
      const double* __restrict src = columns[k].data() + start;
      const Domain& d = *p.program.nodes[id].domain;
      const double lo = d.lo(), hi = d.hi();
      if (d.is_integral()) {
        for (std::size_t i = 0; i < m; ++i)
          acc[i] += (src[i] >= lo && src[i] <= hi && src[i] == std::floor(src[i])) ? T(0) : kNaN<T>;
        if (p.f32)  // integers beyond 2^24 that binary32 cannot hold exactly
          for (std::size_t i = 0; i < m; ++i) acc[i] += round_f32(src[i]) == src[i] ? T(0) : kNaN<T>;
      } else {
        for (std::size_t i = 0; i < m; ++i) acc[i] += (src[i] >= lo && src[i] <= hi) ? T(0) : kNaN<T>;
      }
      if (plan.input_rounds[k]) {
        // Rounded to binary32 on entry; a value beyond the binary32 range
        // rounds to infinity, which is an input error.
        T* __restrict dst = bt.slots.get() + static_cast<std::size_t>(plan.slot_of[id]) * B;
        for (std::size_t i = 0; i < m; ++i) {
          dst[i] = static_cast<T>(static_cast<float>(src[i]));
          acc[i] += dst[i] * T(0);
        }
      } else {
        if (p.f32)  // an unused input is still checked like run() checks it
          for (std::size_t i = 0; i < m; ++i) acc[i] += static_cast<T>(static_cast<float>(src[i])) * T(0);
        // float64 reads the caller's column in place; a float32 program
        // rounds every needed input (build_plan), so this one is unused.
        if constexpr (std::is_same_v<T, double>) bt.col[id] = src;
      }
    }
    run_steps(bt, m);
    for (std::size_t o = 0; o < nout; ++o) {
      const T* src = bt.col[static_cast<std::size_t>(p.targets[o])];
      std::copy(src, src + m, out.outputs[o].begin() + static_cast<std::ptrdiff_t>(start));
    }
    for (std::size_t u = 0; u < nupd; ++u) {
      const T* src = bt.col[static_cast<std::size_t>(p.targets[nout + u])];
      std::copy(src, src + m, out.next_state[u].begin() + static_cast<std::ptrdiff_t>(start));
    }
    for (std::size_t i = 0; i < m; ++i) {
      if (acc[i] == T(0)) continue;
      const std::size_t c = start + i;
      // The precise verdict: check the inputs, then evaluate lazily.
      std::optional<Diagnostic> bad;
      for (std::size_t k = 0; k < p.inputs.size() && !bad; ++k)
        bad = check_input(p, static_cast<int>(k), columns[k][c], w.case_inputs[k]);
      if (!bad && !eval_case(p, w.case_inputs.data(), fixed, w.ws, w.err)) bad = w.err;
      if (bad) {
        out.failed[c] = 1;
        for (auto& col : out.outputs) col[c] = kNaN<double>;
        for (auto& col : out.next_state) col[c] = kNaN<double>;
        errors.emplace_back(c, std::move(*bad));
        continue;
      }
      for (std::size_t o = 0; o < nout; ++o) out.outputs[o][c] = w.ws.values[static_cast<std::size_t>(p.targets[o])];
      for (std::size_t u = 0; u < nupd; ++u)
        out.next_state[u][c] = w.ws.values[static_cast<std::size_t>(p.targets[nout + u])];
    }
  }
}

/// How the cases are split: block length, chunks of whole blocks, threads.
struct Shape {
  std::size_t block, chunk, nchunks, nthreads;
};

/// Every case, on one thread or on `nthreads`, with T-wide columns.
template <class T>
void run_all(const Prepared& p, std::span<const std::span<const double>> columns, std::size_t count,
             const Fixed& fixed, const std::vector<double>& uval, double acc_init, const Shape& sh,
             BatchResult& out) {
  if (sh.nthreads <= 1 || sh.nchunks <= 1) {
    Worker<T> w(p, sh.block, uval, acc_init);
    run_range(w, columns, 0, count, fixed, out, out.errors);
    return;
  }
  std::vector<std::vector<std::pair<std::size_t, Diagnostic>>> errors(sh.nchunks);
  tbb::enumerable_thread_specific<std::unique_ptr<Worker<T>>> workers;
  tbb::task_arena arena(static_cast<int>(sh.nthreads));
  arena.execute([&] {
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, sh.nchunks, 1), [&](const tbb::blocked_range<std::size_t>& r) {
      auto& w = workers.local();
      if (!w) w = std::make_unique<Worker<T>>(p, sh.block, uval, acc_init);
      for (std::size_t k = r.begin(); k < r.end(); ++k)
        run_range(*w, columns, k * sh.chunk, std::min(count, (k + 1) * sh.chunk), fixed, out, errors[k]);
    });
  });
  for (auto& e : errors)
    for (auto& item : e) out.errors.push_back(std::move(item));
}

}  // namespace

Status run_batch_impl(const Prepared& p, std::span<const std::span<const double>> columns, std::size_t count,
                      const Env& fixed_env, BatchResult& out, unsigned threads) {
  if (columns.size() != p.inputs.size())
    return make_error("run_batch: expected " + std::to_string(p.inputs.size()) + " input columns, got " +
                      std::to_string(columns.size()));
  for (std::size_t k = 0; k < columns.size(); ++k)
    if (columns[k].size() < count)
      return make_error("run_batch: the column of input '" +
                        p.program.nodes[static_cast<std::size_t>(p.inputs[k])].name + "' has " +
                        std::to_string(columns[k].size()) + " values, expected " + std::to_string(count));
  auto fixed = resolve_fixed(p, fixed_env);
  if (!fixed) return fixed.error();

  const BatchPlan& plan = p.plan;
  const std::size_t n = p.instrs.size();
  out.count = count;
  out.outputs.assign(p.program.outputs.size(), std::vector<double>(count, kNaN<double>));
  out.next_state.assign(p.program.updates.size(), std::vector<double>(count, kNaN<double>));
  out.failed.assign(count, 0);
  out.errors.clear();
  if (count == 0) return ok_status();

  // A program that keeps very many values alive at once (thousands of
  // outputs, a huge affine) gets shorter blocks, so the columns stay within
  // a bounded amount of memory.
  constexpr std::size_t kColumnBudgetBytes = std::size_t{64} << 20;
  std::size_t block = plan.block;
  while (block > 8 && static_cast<std::size_t>(plan.nslots) * block * (p.f32 ? sizeof(float) : sizeof(double)) > kColumnBudgetBytes) block /= 2;
  while (block > 8 && block / 2 >= count) block /= 2;  // a small batch needs no full-length columns
  // Uniform values; a non-finite one (a constant overflowing float32) flags
  // every case so the scalar re-run decides whether it is live.
  std::vector<double> uval(n, 0.0);
  double acc_init = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    if (!plan.uniform[i]) continue;
    const Instr& in = p.instrs[i];
    double v = in.op == Op::Constant    ? p.round(in.value)
               : in.op == Op::Parameter ? fixed->params[static_cast<std::size_t>(in.slot)]
                                        : fixed->states[static_cast<std::size_t>(in.slot)];
    uval[i] = v;
    if (p.needed[i] && !std::isfinite(v)) acc_init = kNaN<double>;
    // A constant outside its domain also flags every case; the scalar
    // re-run reports it where a case really evaluates the constant.
    if (p.needed[i] && in.check_domain && p.domains[static_cast<std::size_t>(in.domain)].check(v)) acc_init = kNaN<double>;
  }

  // Chunks of whole blocks, run in any order on any thread: every case's
  // result depends on its own inputs only, and each chunk keeps its errors
  // apart, joined in chunk order below, so the output is the same for any
  // thread count.
  const std::size_t nthreads = threads == 0 ? static_cast<std::size_t>(tbb::info::default_concurrency()) : threads;
  const std::size_t blocks = (count + block - 1) / block;
  const std::size_t chunk_blocks = std::max<std::size_t>(1, std::min<std::size_t>(16, blocks / (nthreads * 4)));
  const std::size_t chunk = chunk_blocks * block;
  const std::size_t nchunks = (count + chunk - 1) / chunk;
  const Shape shape{block, chunk, nchunks, nthreads};
  if (p.f32) run_all<float>(p, columns, count, *fixed, uval, acc_init, shape, out);
  else run_all<double>(p, columns, count, *fixed, uval, acc_init, shape, out);
  return ok_status();
}

}  // namespace tc::eval_detail
