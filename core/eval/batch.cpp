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

#include <tbb/blocked_range.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/info.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "eval/op_math.h"
#include "eval/prepared.h"

namespace tc::eval_detail {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// An operand: a column, or one value for the whole block.
struct Col {
  const double* p;
  double u;
};

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

template <bool F32>
TC_INLINE double rnd(double v) {
  if constexpr (F32) return round_f32(v);
  return v;
}

template <bool F32, bool Check, bool AC, bool BC, class F>
TC_INLINE void loop2(const double* __restrict a, double ua, const double* __restrict b, double ub, double* __restrict out,
           double* __restrict acc, std::size_t m, F f) {
  for (std::size_t i = 0; i < m; ++i) {
    const double x = AC ? a[i] : ua;
    const double y = BC ? b[i] : ub;
    const double r = rnd<F32>(f(x, y));
    out[i] = r;
    if constexpr (Check) acc[i] += r * 0.0;
  }
}

template <bool F32, bool Check, class F>
TC_INLINE void map2(Col a, Col b, double* out, double* acc, std::size_t m, F f) {
  if (a.p && b.p) return loop2<F32, Check, true, true>(a.p, 0, b.p, 0, out, acc, m, f);
  if (a.p) return loop2<F32, Check, true, false>(a.p, 0, nullptr, b.u, out, acc, m, f);
  if (b.p) return loop2<F32, Check, false, true>(nullptr, a.u, b.p, 0, out, acc, m, f);
  return loop2<F32, Check, false, false>(nullptr, a.u, nullptr, b.u, out, acc, m, f);
}

template <bool F32, bool Check, class F>
TC_INLINE void map1(Col a, double* __restrict out, double* __restrict acc, std::size_t m, F f) {
  if (a.p) {
    const double* __restrict x = a.p;
    for (std::size_t i = 0; i < m; ++i) {
      const double r = rnd<F32>(f(x[i]));
      out[i] = r;
      if constexpr (Check) acc[i] += r * 0.0;
    }
  } else {
    const double r = rnd<F32>(f(a.u));
    for (std::size_t i = 0; i < m; ++i) {
      out[i] = r;
      if constexpr (Check) acc[i] += r * 0.0;
    }
  }
}

/// r = s + x*y (Kind 0), s - x*y (Kind 1) or x*y - s (Kind 2), each
/// operation rounded as its own node would be: a mul and the add or sub
/// that is its only reader, in one pass (see fused_mul in batch_plan.cpp).
template <bool F32, bool Check, int Kind, bool SC, bool XC, bool YC>
TC_INLINE void loop_mul_add(const double* __restrict s, double us, const double* __restrict x, double ux,
                            const double* __restrict y, double uy, double* __restrict out, double* __restrict acc,
                            std::size_t m) {
  for (std::size_t i = 0; i < m; ++i) {
    const double sv = SC ? s[i] : us;
    const double pr = rnd<F32>((XC ? x[i] : ux) * (YC ? y[i] : uy));
    const double r = rnd<F32>(Kind == 0 ? sv + pr : Kind == 1 ? sv - pr : pr - sv);
    out[i] = r;
    if constexpr (Check) acc[i] += r * 0.0;
  }
}

template <bool F32, bool Check, int Kind>
TC_INLINE void map_mul_add(Col s, Col x, Col y, double* out, double* acc, std::size_t m) {
  const int shape = (s.p ? 4 : 0) | (x.p ? 2 : 0) | (y.p ? 1 : 0);
  switch (shape) {
    case 7: return loop_mul_add<F32, Check, Kind, true, true, true>(s.p, 0, x.p, 0, y.p, 0, out, acc, m);
    case 6: return loop_mul_add<F32, Check, Kind, true, true, false>(s.p, 0, x.p, 0, nullptr, y.u, out, acc, m);
    case 5: return loop_mul_add<F32, Check, Kind, true, false, true>(s.p, 0, nullptr, x.u, y.p, 0, out, acc, m);
    case 4: return loop_mul_add<F32, Check, Kind, true, false, false>(s.p, 0, nullptr, x.u, nullptr, y.u, out, acc, m);
    case 3: return loop_mul_add<F32, Check, Kind, false, true, true>(nullptr, s.u, x.p, 0, y.p, 0, out, acc, m);
    case 2: return loop_mul_add<F32, Check, Kind, false, true, false>(nullptr, s.u, x.p, 0, nullptr, y.u, out, acc, m);
    case 1: return loop_mul_add<F32, Check, Kind, false, false, true>(nullptr, s.u, nullptr, x.u, y.p, 0, out, acc, m);
    default: return loop_mul_add<F32, Check, Kind, false, false, false>(nullptr, s.u, nullptr, x.u, nullptr, y.u, out, acc, m);
  }
}

/// Everything one run_batch call owns; allocated once per call.
struct Batch {
  const Prepared& p;
  std::size_t B;
  std::unique_ptr<double[]> slots;  ///< every slot is written before it is read: no zero fill
  std::vector<const double*> col;  ///< per node: current column, or nullptr when uniform
  std::vector<double> uval;        ///< per node: uniform value
  std::vector<double> acc;
  std::vector<double> scratch;
  std::vector<const double*> ptrs;
  std::vector<double> call_args;

  Col operand(NodeId id) const { return Col{col[static_cast<std::size_t>(id)], uval[static_cast<std::size_t>(id)]}; }
  double* out_of(NodeId id) {
    return slots.get() + static_cast<std::size_t>(p.plan.slot_of[static_cast<std::size_t>(id)]) * B;
  }
};

/// A failed domain check of a step's value flags the case.
TC_INLINE void check_domain(const Prepared& p, const Instr& in, const double* __restrict out, double* __restrict acc,
                            std::size_t m) {
  const Domain& d = p.domains[static_cast<std::size_t>(in.domain)];
  const double lo = d.lo(), hi = d.hi();
  if (d.is_integral()) {
    for (std::size_t i = 0; i < m; ++i) {
      const double r = out[i];
      acc[i] += (r >= lo && r <= hi && r == std::floor(r)) ? 0.0 : kNaN;
    }
  } else {
    for (std::size_t i = 0; i < m; ++i) {
      const double r = out[i];
      acc[i] += (r >= lo && r <= hi) ? 0.0 : kNaN;
    }
  }
}

template <bool F32, bool Chk>
TC_INLINE void exec_step(Batch& bt, NodeId id, std::size_t m) {
  const Prepared& p = bt.p;
  const Instr& in = p.instrs[static_cast<std::size_t>(id)];
  const NodeId* a = p.args_of(in);
  double* out = bt.out_of(id);
  double* acc = bt.acc.data();
  const bool exact = in.mode == Mode::Exact;
  const double t = in.temperature;
  if (const NodeId fm = p.plan.fused_mul[static_cast<std::size_t>(id)]; fm >= 0) {
    const NodeId* ma = p.args_of(p.instrs[static_cast<std::size_t>(fm)]);
    const Col x = bt.operand(ma[0]), y = bt.operand(ma[1]);
    const bool mul_first = a[0] == fm;
    const Col other = bt.operand(mul_first ? a[1] : a[0]);
    if (in.op == Op::Add) map_mul_add<F32, Chk, 0>(other, x, y, out, acc, m);
    else if (mul_first) map_mul_add<F32, Chk, 2>(other, x, y, out, acc, m);
    else map_mul_add<F32, Chk, 1>(other, x, y, out, acc, m);
    if (in.check_domain) check_domain(p, in, out, acc, m);
    return;
  }
  switch (in.op) {
    case Op::Input: case Op::Parameter: case Op::Constant: case Op::State:
      break;  // leaves are not steps
    case Op::Add: map2<F32, Chk>(bt.operand(a[0]), bt.operand(a[1]), out, acc, m, [](double x, double y) { return x + y; }); break;
    case Op::Sub: map2<F32, Chk>(bt.operand(a[0]), bt.operand(a[1]), out, acc, m, [](double x, double y) { return x - y; }); break;
    case Op::Mul: map2<F32, Chk>(bt.operand(a[0]), bt.operand(a[1]), out, acc, m, [](double x, double y) { return x * y; }); break;
    case Op::Div: map2<F32, Chk>(bt.operand(a[0]), bt.operand(a[1]), out, acc, m, [](double x, double y) { return x / y; }); break;
    // Division by zero yields a non-finite value here (IEEE, or NaN from fmod), which flags the case.
    case Op::FloorDiv: map2<F32, Chk>(bt.operand(a[0]), bt.operand(a[1]), out, acc, m, [](double x, double y) { return kernels::py_floordiv(x, y); }); break;
    case Op::Mod: map2<F32, Chk>(bt.operand(a[0]), bt.operand(a[1]), out, acc, m, [](double x, double y) { return kernels::py_mod(x, y); }); break;
    case Op::Neg: map1<F32, Chk>(bt.operand(a[0]), out, acc, m, [](double x) { return -x; }); break;
    case Op::Relu: map1<F32, Chk>(bt.operand(a[0]), out, acc, m, [](double x) { return kernels::relu(x); }); break;
    case Op::Sigmoid: map1<F32, Chk>(bt.operand(a[0]), out, acc, m, [](double x) { return kernels::sigmoid(x); }); break;
    case Op::Lt: case Op::Le: case Op::Gt: case Op::Ge: case Op::Eq: case Op::Ne: {
      const Col x = bt.operand(a[0]), y = bt.operand(a[1]);
      if (exact) {
        if (in.op == Op::Lt) map2<false, false>(x, y, out, acc, m, [](double u, double v) { return u < v ? 1.0 : 0.0; });
        else if (in.op == Op::Le) map2<false, false>(x, y, out, acc, m, [](double u, double v) { return u <= v ? 1.0 : 0.0; });
        else if (in.op == Op::Gt) map2<false, false>(x, y, out, acc, m, [](double u, double v) { return u > v ? 1.0 : 0.0; });
        else if (in.op == Op::Ge) map2<false, false>(x, y, out, acc, m, [](double u, double v) { return u >= v ? 1.0 : 0.0; });
        else if (in.op == Op::Eq) map2<false, false>(x, y, out, acc, m, [](double u, double v) { return u == v ? 1.0 : 0.0; });
        else map2<false, false>(x, y, out, acc, m, [](double u, double v) { return u != v ? 1.0 : 0.0; });
      } else {
        const Op op = in.op;
        map2<F32, Chk>(x, y, out, acc, m, [op, t](double u, double v) { return relaxed_compare(op, u, v, t); });
      }
      break;
    }
    case Op::Select: {
      const double* __restrict c = bt.col[static_cast<std::size_t>(a[0])];
      const double* __restrict y = bt.col[static_cast<std::size_t>(a[1])];
      const double* __restrict n = bt.col[static_cast<std::size_t>(a[2])];
      if (exact) {
        // The chosen branch's value only; the other branch's flags (if
        // any) send the case to the scalar re-run, which ignores them.
        for (std::size_t i = 0; i < m; ++i) {
          const double r = c[i] != 0.0 ? y[i] : n[i];
          out[i] = r;
          if constexpr (Chk) acc[i] += r * 0.0;
        }
      } else {
        for (std::size_t i = 0; i < m; ++i) {
          const double r = rnd<F32>(kernels::relaxed_select(c[i], y[i], n[i]));
          out[i] = r;
          acc[i] += r * 0.0;
        }
      }
      break;
    }
    case Op::Gather: {
      const std::size_t n = in.nargs - 1;
      const double* __restrict idx = bt.col[static_cast<std::size_t>(a[0])];
      const double** vp = bt.ptrs.data();
      for (std::size_t k = 0; k < n; ++k) vp[k] = bt.col[static_cast<std::size_t>(a[1 + k])];
      if (exact) {
        for (std::size_t i = 0; i < m; ++i) {
          const double x = idx[i];
          const bool ok = valid_index(x, n);
          const double r = vp[ok ? static_cast<std::size_t>(x) : 0][i];
          out[i] = r;
          acc[i] += ok ? 0.0 : kNaN;
          if constexpr (Chk) acc[i] += r * 0.0;
        }
      } else {
        for (std::size_t i = 0; i < m; ++i) {
          const double r = rnd<F32>(relaxed_gather(idx[i], n, t, [&](std::size_t k) { return vp[k][i]; }));
          out[i] = r;
          acc[i] += r * 0.0;
        }
      }
      break;
    }
    case Op::GatherOneHot: {
      const std::size_t n = in.nargs / 2;
      const double** vp = bt.ptrs.data();
      for (std::size_t k = 0; k < in.nargs; ++k) vp[k] = bt.col[static_cast<std::size_t>(a[k])];
      if (exact) {
        double* __restrict cnt = bt.scratch.data();
        std::fill(cnt, cnt + m, 0.0);
        std::fill(out, out + m, 0.0);
        for (std::size_t k = 0; k < n; ++k) {
          const double* __restrict s = vp[k];
          const double* __restrict v = vp[n + k];
          for (std::size_t i = 0; i < m; ++i) {
            const double si = s[i];
            acc[i] += (si == 0.0 || si == 1.0) ? 0.0 : kNaN;
            cnt[i] += si;
            out[i] = si == 1.0 ? v[i] : out[i];
          }
        }
        for (std::size_t i = 0; i < m; ++i) acc[i] += cnt[i] == 1.0 ? 0.0 : kNaN;
        if constexpr (Chk)
          for (std::size_t i = 0; i < m; ++i) acc[i] += out[i] * 0.0;
      } else {
        for (std::size_t i = 0; i < m; ++i) {
          const double r = rnd<F32>(relaxed_one_hot(
              n, [&](std::size_t k) { return vp[k][i]; }, [&](std::size_t k) { return vp[n + k][i]; }));
          out[i] = r;
          acc[i] += r * 0.0;
        }
      }
      break;
    }
    case Op::Affine:
    case Op::SparseAffine: {
      const double* c = p.coefs.data() + in.coef_begin;
      const std::int32_t* pos = in.op == Op::SparseAffine ? p.positions.data() + in.coef_begin : nullptr;
      auto xcol = [&](std::uint32_t j) -> const double* {
        return bt.col[static_cast<std::size_t>(a[pos ? static_cast<std::uint32_t>(pos[j]) : j])];
      };
      {
        const double* __restrict x = xcol(0);
        const double c0 = c[0];
        for (std::size_t i = 0; i < m; ++i) out[i] = rnd<F32>(c0 * x[i]);
      }
      for (std::uint32_t j = 1; j < in.ncoef; ++j) {
        const double* __restrict x = xcol(j);
        const double cj = c[j];
        for (std::size_t i = 0; i < m; ++i) out[i] = rnd<F32>(out[i] + rnd<F32>(cj * x[i]));
      }
      if (in.has_bias) {
        const double b = in.bias;
        for (std::size_t i = 0; i < m; ++i) out[i] = rnd<F32>(out[i] + b);
      }
      if constexpr (Chk)
        for (std::size_t i = 0; i < m; ++i) acc[i] += out[i] * 0.0;
      break;
    }
    case Op::Call: {
      const Binding& b = *p.bindings[static_cast<std::size_t>(in.slot)];
      const double** vp = bt.ptrs.data();
      for (std::size_t k = 0; k < in.nargs; ++k) vp[k] = bt.col[static_cast<std::size_t>(a[k])];
      double* args = bt.call_args.data();
      for (std::size_t i = 0; i < m; ++i) {
        for (std::size_t k = 0; k < in.nargs; ++k) args[k] = vp[k][i];
        double r;
        try {
          r = rnd<F32>(b.forward(std::span<const double>(args, in.nargs)));
        } catch (...) {
          r = kNaN;  // flagged; the scalar re-run reports the exception
        }
        out[i] = r;
        acc[i] += r * 0.0;
      }
      break;
    }
  }
  if (in.check_domain) check_domain(p, in, out, acc, m);
}

/// Every step of the plan over one block of `m` cases.
TC_VECTOR_CLONES void run_steps(Batch& bt, std::size_t m) {
  const BatchPlan& plan = bt.p.plan;
  const bool f32 = bt.p.f32;
  for (NodeId id : plan.steps) {
    const bool chk = plan.check[static_cast<std::size_t>(id)] != 0;
    if (f32) {
      chk ? exec_step<true, true>(bt, id, m) : exec_step<true, false>(bt, id, m);
    } else {
      chk ? exec_step<false, true>(bt, id, m) : exec_step<false, false>(bt, id, m);
    }
  }
}

}  // namespace

namespace {

/// One worker's scratch: the block columns plus the scalar re-run's state.
struct Worker {
  Batch bt;
  Workspace ws;
  std::vector<double> case_inputs;
  Diagnostic err;
  double acc_init;
  Worker(const Prepared& p, std::size_t B, const std::vector<double>& uval, double acc_init0)
      : bt{p, B, {}, {}, {}, {}, {}, {}, {}}, case_inputs(p.inputs.size()), acc_init(acc_init0) {
    const BatchPlan& plan = p.plan;
    const std::size_t n = p.instrs.size();
    bt.slots.reset(new double[std::max<std::size_t>(static_cast<std::size_t>(plan.nslots) * B, 1)]);
    bt.col.assign(n, nullptr);
    bt.uval = uval;
    bt.acc.assign(B, 0.0);
    bt.scratch.assign(B, 0.0);
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
void run_range(Worker& w, std::span<const std::span<const double>> columns, std::size_t begin, std::size_t end,
               const Fixed& fixed, BatchResult& out, std::vector<std::pair<std::size_t, Diagnostic>>& errors) {
  Batch& bt = w.bt;
  const Prepared& p = bt.p;
  const BatchPlan& plan = p.plan;
  const std::size_t B = bt.B;
  const std::size_t nout = p.program.outputs.size();
  const std::size_t nupd = p.program.updates.size();
  for (std::size_t start = begin; start < end; start += B) {
    const std::size_t m = std::min(B, end - start);
    double* acc = bt.acc.data();
    std::fill(acc, acc + m, w.acc_init);
    for (std::size_t k = 0; k < p.inputs.size(); ++k) {
      const auto id = static_cast<std::size_t>(p.inputs[k]);
      const double* __restrict src = columns[k].data() + start;
      const Domain& d = *p.program.nodes[id].domain;
      const double lo = d.lo(), hi = d.hi();
      if (d.is_integral()) {
        for (std::size_t i = 0; i < m; ++i)
          acc[i] += (src[i] >= lo && src[i] <= hi && src[i] == std::floor(src[i])) ? 0.0 : kNaN;
        if (p.f32)  // integers beyond 2^24 that binary32 cannot hold exactly
          for (std::size_t i = 0; i < m; ++i) acc[i] += round_f32(src[i]) == src[i] ? 0.0 : kNaN;
      } else {
        for (std::size_t i = 0; i < m; ++i) acc[i] += (src[i] >= lo && src[i] <= hi) ? 0.0 : kNaN;
      }
      if (plan.input_rounds[k]) {
        // Rounded to binary32 on entry; a value beyond the binary32 range
        // rounds to infinity, which is an input error.
        double* __restrict dst = bt.slots.get() + static_cast<std::size_t>(plan.slot_of[id]) * B;
        for (std::size_t i = 0; i < m; ++i) {
          dst[i] = round_f32(src[i]);
          acc[i] += dst[i] * 0.0;
        }
      } else {
        if (p.f32)  // an unused input is still checked like run() checks it
          for (std::size_t i = 0; i < m; ++i) acc[i] += round_f32(src[i]) * 0.0;
        bt.col[id] = src;
      }
    }
    run_steps(bt, m);
    for (std::size_t o = 0; o < nout; ++o) {
      const double* src = bt.col[static_cast<std::size_t>(p.targets[o])];
      std::copy(src, src + m, out.outputs[o].begin() + static_cast<std::ptrdiff_t>(start));
    }
    for (std::size_t u = 0; u < nupd; ++u) {
      const double* src = bt.col[static_cast<std::size_t>(p.targets[nout + u])];
      std::copy(src, src + m, out.next_state[u].begin() + static_cast<std::ptrdiff_t>(start));
    }
    for (std::size_t i = 0; i < m; ++i) {
      if (acc[i] == 0.0) continue;
      const std::size_t c = start + i;
      // The precise verdict: check the inputs, then evaluate lazily.
      std::optional<Diagnostic> bad;
      for (std::size_t k = 0; k < p.inputs.size() && !bad; ++k)
        bad = check_input(p, static_cast<int>(k), columns[k][c], w.case_inputs[k]);
      if (!bad && !eval_case(p, w.case_inputs.data(), fixed, w.ws, w.err)) bad = w.err;
      if (bad) {
        out.failed[c] = 1;
        for (auto& col : out.outputs) col[c] = kNaN;
        for (auto& col : out.next_state) col[c] = kNaN;
        errors.emplace_back(c, std::move(*bad));
        continue;
      }
      for (std::size_t o = 0; o < nout; ++o) out.outputs[o][c] = w.ws.values[static_cast<std::size_t>(p.targets[o])];
      for (std::size_t u = 0; u < nupd; ++u)
        out.next_state[u][c] = w.ws.values[static_cast<std::size_t>(p.targets[nout + u])];
    }
  }
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
  out.outputs.assign(p.program.outputs.size(), std::vector<double>(count, kNaN));
  out.next_state.assign(p.program.updates.size(), std::vector<double>(count, kNaN));
  out.failed.assign(count, 0);
  out.errors.clear();
  if (count == 0) return ok_status();

  // A program that keeps very many values alive at once (thousands of
  // outputs, a huge affine) gets shorter blocks, so the columns stay within
  // a bounded amount of memory.
  constexpr std::size_t kColumnBudgetBytes = std::size_t{64} << 20;
  std::size_t block = plan.block;
  while (block > 8 && static_cast<std::size_t>(plan.nslots) * block * sizeof(double) > kColumnBudgetBytes) block /= 2;
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
    if (p.needed[i] && !std::isfinite(v)) acc_init = kNaN;
    // A constant outside its domain also flags every case; the scalar
    // re-run reports it where a case really evaluates the constant.
    if (p.needed[i] && in.check_domain && p.domains[static_cast<std::size_t>(in.domain)].check(v)) acc_init = kNaN;
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
  if (nthreads <= 1 || nchunks <= 1) {
    Worker w(p, block, uval, acc_init);
    run_range(w, columns, 0, count, *fixed, out, out.errors);
    return ok_status();
  }
  std::vector<std::vector<std::pair<std::size_t, Diagnostic>>> errors(nchunks);
  tbb::enumerable_thread_specific<std::unique_ptr<Worker>> workers;
  tbb::task_arena arena(static_cast<int>(nthreads));
  arena.execute([&] {
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, nchunks, 1), [&](const tbb::blocked_range<std::size_t>& r) {
      auto& w = workers.local();
      if (!w) w = std::make_unique<Worker>(p, block, uval, acc_init);
      for (std::size_t k = r.begin(); k < r.end(); ++k)
        run_range(*w, columns, k * chunk, std::min(count, (k + 1) * chunk), *fixed, out, errors[k]);
    });
  });
  for (auto& e : errors)
    for (auto& item : e) out.errors.push_back(std::move(item));
  return ok_status();
}

}  // namespace tc::eval_detail
