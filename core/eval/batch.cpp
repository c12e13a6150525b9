// The batched fast path. Cases are processed in blocks; each step (one node)
// runs over the block's contiguous column with one kernel per op
// (batch_steps.cpp: Highway SIMD, the best target picked at run time). The fast path computes with
// IEEE semantics, never stops, and only *flags* a case when something
// suspicious happened (a non-finite value anywhere, a failed domain, index
// or selector check). Flagged cases are then re-run with the precise, lazy
// scalar evaluator, which decides whether the problem was live (an error in
// an unchosen select branch is not) and produces the exact message.
//
// Flags accumulate in a per-case `acc` (of the column type): acc += r * 0
// stays 0 for finite r and becomes NaN for the first inf/NaN; failed checks
// add NaN. This keeps the hot loops free of branches and byte-wide stores.
// After the block one sum tells whether any case is flagged; only then are
// the flagged cases looked for and re-run one by one.
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

#include "eval/batch_columns.h"
#include "eval/prepared.h"

namespace tc::eval_detail {

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
    bt.slots = aligned_array<T>(static_cast<std::size_t>(plan.nslots) * B);
    bt.col.assign(n, nullptr);
    bt.uval.assign(uval.begin(), uval.end());  // float32: already binary32 values
    bt.acc = aligned_array<T>(B);
    std::fill_n(bt.acc.get(), B, T(0));
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
    T* acc = bt.acc.get();
    std::fill(acc, acc + m, w.acc_init);
    for (std::size_t k = 0; k < p.inputs.size(); ++k) {
      const auto id = static_cast<std::size_t>(p.inputs[k]);
      const double* __restrict src = columns[k].data() + start;
      const Domain& d = *p.program.nodes[id].domain;
      const double lo = d.lo(), hi = d.hi();
      if (d.is_integral()) {
        for (std::size_t i = 0; i < m; ++i)
          acc[i] += (src[i] >= lo && src[i] <= hi && src[i] == std::floor(src[i])) ? T(0) : kNaNOf<T>;
        if (p.f32)  // integers beyond 2^24 that binary32 cannot hold exactly
          for (std::size_t i = 0; i < m; ++i) acc[i] += round_f32(src[i]) == src[i] ? T(0) : kNaNOf<T>;
      } else {
        for (std::size_t i = 0; i < m; ++i) acc[i] += (src[i] >= lo && src[i] <= hi) ? T(0) : kNaNOf<T>;
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
    if (!any_flagged(acc, m)) continue;
    for (std::size_t i = 0; i < m; ++i)
      if (acc[i] != T(0)) rerun_case(p, columns, start + i, fixed, w.ws, w.case_inputs, w.err, out, errors);
  }
}

}  // namespace

void rerun_case(const Prepared& p, std::span<const std::span<const double>> columns, std::size_t c, const Fixed& fixed,
                Workspace& ws, std::vector<double>& case_inputs, Diagnostic& err, BatchResult& out,
                std::vector<std::pair<std::size_t, Diagnostic>>& errors) {
  const std::size_t nout = p.program.outputs.size();
  const std::size_t nupd = p.program.updates.size();
  // The precise verdict: check the inputs, then evaluate lazily.
  std::optional<Diagnostic> bad;
  for (std::size_t k = 0; k < p.inputs.size() && !bad; ++k)
    bad = check_input(p, static_cast<int>(k), columns[k][c], case_inputs[k]);
  if (!bad && !eval_case(p, case_inputs.data(), fixed, ws, err)) bad = err;
  if (bad) {
    out.failed[c] = 1;
    for (auto& col : out.outputs) col[c] = kNaNOf<double>;
    for (auto& col : out.next_state) col[c] = kNaNOf<double>;
    errors.emplace_back(c, std::move(*bad));
    return;
  }
  for (std::size_t o = 0; o < nout; ++o) out.outputs[o][c] = ws.values[static_cast<std::size_t>(p.targets[o])];
  for (std::size_t u = 0; u < nupd; ++u) out.next_state[u][c] = ws.values[static_cast<std::size_t>(p.targets[nout + u])];
}

Status check_batch_columns(const Prepared& p, std::span<const std::span<const double>> columns, std::size_t count) {
  if (columns.size() != p.inputs.size())
    return make_error("run_batch: expected " + std::to_string(p.inputs.size()) + " input columns, got " +
                      std::to_string(columns.size()));
  for (std::size_t k = 0; k < columns.size(); ++k)
    if (columns[k].size() < count)
      return make_error("run_batch: the column of input '" +
                        p.program.nodes[static_cast<std::size_t>(p.inputs[k])].name + "' has " +
                        std::to_string(columns[k].size()) + " values, expected " + std::to_string(count));
  return ok_status();
}

namespace {

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
  if (Status s = check_batch_columns(p, columns, count); !s) return s;
  auto fixed = resolve_fixed(p, fixed_env);
  if (!fixed) return fixed.error();

  const BatchPlan& plan = p.plan;
  const std::size_t n = p.instrs.size();
  out.count = count;
  out.outputs.assign(p.program.outputs.size(), std::vector<double>(count, kNaNOf<double>));
  out.next_state.assign(p.program.updates.size(), std::vector<double>(count, kNaNOf<double>));
  out.failed.assign(count, 0);
  out.errors.clear();
  if (count == 0) return ok_status();

  // A program that keeps very many values alive at once (thousands of
  // outputs, a huge affine) gets shorter blocks, so the columns stay within
  // a bounded amount of memory.
  constexpr std::size_t kColumnBudgetBytes = std::size_t{64} << 20;
  // A float32 column holds four times as many cases in twice the bytes of a
  // float64 one: measured on long_loop (AVX-512), 256 doubles (2 KiB) and
  // 1024 floats (4 KiB) per column are the fastest; 1024 doubles are slower.
  std::size_t block = p.f32 ? plan.block * 4 : plan.block;
#ifdef __EMSCRIPTEN__
  // WebAssembly's 128-bit vectors take four times as long over a column as
  // AVX-512, so each step's fixed cost (dispatch, a call per kernel) weighs
  // more: twice the length was measured ~5-10% faster on chain1024 in Node.
  block *= 2;
#endif
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
    if (p.needed[i] && !std::isfinite(v)) acc_init = kNaNOf<double>;
    // A constant outside its domain also flags every case; the scalar
    // re-run reports it where a case really evaluates the constant.
    if (p.needed[i] && in.check_domain && p.domains[static_cast<std::size_t>(in.domain)].check(v)) acc_init = kNaNOf<double>;
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
