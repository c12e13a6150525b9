// The batched reverse pass (batch_gradients.h): per-case runs of the
// gradient tape's own code, with each case's value table in a row of the
// batch record, shared between workers by oneTBB.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>

#include <tbb/blocked_range.h>
#include <tbb/info.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "grad/batch_gradients.h"
#include "grad/batch_state.h"

namespace tc {

void BatchBufferRelease::operator()(double* p) const {
  if (pool) pool->give(size, p);
  else free_aligned(p);
}

namespace {

constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();

/// Marks the tape busy for the call that made it, and clears the mark on
/// every way out of that call.
struct BusyGuard {
  bool& busy;
  explicit BusyGuard(bool& b) : busy(b) { busy = true; }
  ~BusyGuard() { busy = false; }
  BusyGuard(const BusyGuard&) = delete;
  BusyGuard& operator=(const BusyGuard&) = delete;
};

std::size_t thread_count(unsigned threads) {
  return threads == 0 ? static_cast<std::size_t>(tbb::info::default_concurrency()) : threads;
}

/// Runs body(worker, begin, end) over [0, count): on the calling thread
/// alone, or on `nthreads` workers of an arena (worker = the arena slot).
template <class Body>
void for_cases(std::size_t count, std::size_t nthreads, Body&& body) {
  if (nthreads <= 1 || count < 2) {
    body(std::size_t{0}, std::size_t{0}, count);
    return;
  }
  tbb::task_arena arena(static_cast<int>(nthreads));
  arena.execute([&] {
    const std::size_t grain = std::max<std::size_t>(1, std::min<std::size_t>(64, count / (nthreads * 8)));
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, count, grain), [&](const tbb::blocked_range<std::size_t>& r) {
      const int slot = tbb::this_task_arena::current_thread_index();
      body(static_cast<std::size_t>(slot < 0 ? 0 : slot), r.begin(), r.end());
    });
  });
}

void lower(std::atomic<std::size_t>& first, std::size_t c) {
  std::size_t seen = first.load(std::memory_order_relaxed);
  while (c < seen && !first.compare_exchange_weak(seen, c, std::memory_order_relaxed)) {
  }
}

CaseErrors merge(std::vector<CaseErrors>& parts) {
  CaseErrors all;
  for (auto& p : parts)
    for (auto& e : p) all.push_back(std::move(e));
  std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return all;
}

Diagnostic with_case(const Diagnostic& d, std::size_t c) {
  Diagnostic copy = d;
  copy.message = "case " + std::to_string(c) + ": " + d.message;
  return copy;
}

}  // namespace

BatchGradientTape::BatchGradientTape(std::unique_ptr<State> state) : s_(std::move(state)) {}
BatchGradientTape::BatchGradientTape(BatchGradientTape&&) noexcept = default;
BatchGradientTape& BatchGradientTape::operator=(BatchGradientTape&&) noexcept = default;
BatchGradientTape::~BatchGradientTape() = default;

const Program& BatchGradientTape::program() const { return s_->base.program(); }
const std::vector<std::string>& BatchGradientTape::outputs() const { return s_->base.outputs(); }
const std::vector<std::string>& BatchGradientTape::inputs() const { return s_->input_names; }
const std::vector<GradLeaf>& BatchGradientTape::leaves() const { return s_->base.leaves(); }
bool BatchGradientTape::uses_blocks() const { return s_->fast; }
bool BatchGradientTape::compiled() const { return s_->plan && s_->plan->loaded(); }
PlanStatus BatchGradientTape::plan_status() const {
  PlanStatus s = s_->plan->status();
  if (!s.compiled && !s_->compiled_refusal.empty() && s.reason.empty()) {
    s.reason = s_->compiled_refusal;
    s.summary = "interpreting: " + s.reason;
  }
  return s;
}
std::size_t BatchGradientTape::input_leaf_count() const { return s_->n_input_leaves; }
std::size_t BatchGradientTape::parameter_leaf_count() const { return s_->n_param_leaves; }

Result<BatchGradientTape> BatchGradientTape::create(const Program& program, const std::vector<std::string>& outputs,
                                                    const GradOptions& options) {
  auto tape = GradientTape::create(program, outputs, options);
  if (!tape) return tape.error();
  auto state = std::make_unique<State>(std::move(tape.value()));
  const TapeImpl& m = *state->base.impl_;
  for (const auto& [name, id] : m.inputs) {
    state->input_names.push_back(name);
    state->input_ids.push_back(id);
  }
  for (const GradLeaf& leaf : m.leaves) {
    const bool input = leaf.op == Op::Input;
    state->input_rows.push_back(input ? state->n_input_leaves++ : kNone);
    state->param_rows.push_back(input ? kNone : state->n_param_leaves++);
  }
  for (NodeId id : m.order)
    if (m.nodes[static_cast<std::size_t>(id)].sem == Semantics::Hybrid) state->keep_messages = true;
  state->fast = State::fast_eligible(m);
  if (state->fast) {
    state->assign_slots(m);
    state->assign_columns(m);
    state->assign_adjoints(m);
  }
  state->compiled_refusal = state->compiled_unsupported(m);
  state->plan = std::make_unique<eval_detail::PlanState>(options.plan);
  return BatchGradientTape(std::move(state));
}

Status BatchGradientTape::forward(std::span<const std::span<const double>> columns, std::size_t count,
                                  const Env& fixed, std::span<double> outputs, BatchRecord* record,
                                  const BatchGradOptions& options, CaseErrors* errors) {
  State& st = *s_;
  TapeImpl& base = st.worker(0);
  const std::size_t nout = base.out_ids.size();
  if (columns.size() != st.input_ids.size())
    return make_error("expected " + std::to_string(st.input_ids.size()) + " input columns, got " +
                      std::to_string(columns.size()));
  for (std::size_t k = 0; k < columns.size(); ++k)
    if (columns[k].size() != count && columns[k].size() != 1)
      return make_error("the column of input '" + st.input_names[k] + "' has " + std::to_string(columns[k].size()) +
                        " values, expected " + std::to_string(count) + " (or 1 for every case)");
  if (outputs.size() != nout * count)
    return make_error("expected room for " + std::to_string(nout * count) + " output values");
  if (!fixed.inputs.empty()) return make_error("input '" + fixed.inputs.begin()->first + "' belongs in a column");
  for (const auto& [name, _] : fixed.params)
    if (!base.params.count(name)) return make_error("unknown parameter '" + name + "'");
  for (const auto& [name, _] : fixed.state)
    if (!base.states.count(name)) return make_error("unknown state '" + name + "'");
  if (st.busy) return make_error("this batch tape is already running (a binding called back into it)");
  BusyGuard release(st.busy);

  // Parameters and state once: their values, or the error every case
  // reports once its inputs pass (load_leaves checks inputs first).
  base.use_own_tables();
  const Status fixed_status = base.load_fixed(fixed);
  std::vector<std::pair<std::size_t, double>> fixed_values;
  if (fixed_status)
    for (const auto* table : {&base.params, &base.states})
      for (const auto& [_, id] : *table) fixed_values.emplace_back(static_cast<std::size_t>(id), base.val[static_cast<std::size_t>(id)]);

  const std::size_t stride = base.program.nodes.size();
  constexpr std::size_t Bk = State::kBlock;
  // A handful of cases is faster one by one (a block's per-op overhead is
  // paid for every lane it has, used or not), unless the compiled plan is
  // loaded: its block of a few vectors costs less than one case of the
  // per-case code. (The Auto rule counts a small call as per-case work.)
  const bool few = count < State::kMinBlockCases;
  const eval_detail::CompiledKernel* ck =
      st.fast && count > 0 ? st.compiled_kernel(base, static_cast<double>(count), !few) : nullptr;
  const bool blocks = st.fast && (!few || ck);
  const std::size_t nblocks = (count + Bk - 1) / Bk;
  if (record) {
    record->owner_ = this;
    record->blocks_used_ = blocks;
    record->count_ = count;
    record->stride_ = stride;
    // Every row is written before it is read (leaves and the cone by the
    // forward; the reverse reads nothing else): no fill needed.
    if (blocks && (record->blocks_size_ != nblocks * st.nslots * Bk || !record->blocks_)) {
      record->blocks_.reset();
      record->blocks_size_ = nblocks * st.nslots * Bk;
      record->blocks_ = std::unique_ptr<double[], BatchBufferRelease>(
          st.pool->take(record->blocks_size_), BatchBufferRelease{st.pool, record->blocks_size_});
    }
    if (!blocks && record->val_.size() != count * stride) {
      record->val_ = std::vector<double>();
      record->val_.resize(count * stride);
    }
    if (!blocks && record->fail_.size() != count * stride) {
      record->fail_ = std::vector<std::int32_t>();
      record->fail_.resize(count * stride);
    }
    record->failed_.assign(count, 0);
    record->slow_.assign(blocks ? count : 0, 0);
    record->fixed_ = fixed_values;
    record->slow_rows_.clear();
    record->why_.assign(st.keep_messages ? count : 0, {});
    record->errors_.clear();
  }
  const std::size_t nthreads = std::min(thread_count(options.threads), std::max<std::size_t>(count, 1));
  st.ensure_workers(nthreads);
  std::atomic<std::size_t> first_bad{kNone};
  std::vector<std::uint8_t> failed_here(record ? 0 : count, 0);
  std::vector<std::uint8_t>& failed = record ? record->failed_ : failed_here;
  std::vector<CaseErrors> errs(nthreads);  // per worker, merged in case order below
  std::vector<std::vector<BatchRecord::SlowRows>> slow_parts(record && blocks ? nthreads : 0);  // likewise

  // One case through the per-case code, in m's current tables; false when it fails.
  auto run_case = [&](TapeImpl& m, std::size_t w, std::size_t c) {
    auto fail = [&](Diagnostic d) {
      failed[c] = 1;
      errs[w].emplace_back(c, std::move(d));
      for (std::size_t o = 0; o < nout; ++o) outputs[o * count + c] = tape_detail::kNaN;
      if (!options.mask_failures) lower(first_bad, c);
      return false;
    };
    Status loaded = ok_status();
    for (std::size_t k = 0; k < st.input_ids.size() && loaded; ++k)
      loaded = m.load_input(st.input_ids[k], columns[k].size() == 1 ? columns[k][0] : columns[k][c]);
    if (!loaded) return fail(loaded.error());
    if (!fixed_status) return fail(fixed_status.error());
    for (const auto& [id, v] : fixed_values) m.val[id] = v;
    m.forward_pass();
    std::int32_t poison = 0;
    for (std::size_t o = 0; o < nout; ++o) {
      const auto id = static_cast<std::size_t>(m.out_ids[o]);
      const std::int32_t q = m.fail[id];
      if (q && (!poison || q < poison)) poison = q;
      outputs[o * count + c] = m.val[id];
    }
    if (poison) return fail(m.poison_error(poison));
    if (record && st.keep_messages)
      for (NodeId id : m.order)
        if (m.fail[static_cast<std::size_t>(id)] == id + 1)
          record->why_[c].emplace_back(id, m.why[static_cast<std::size_t>(id)]);
    return true;
  };

  if (blocks) {
    st.scratch.resize(std::max(st.scratch.size(), nthreads));  // no resizing inside the workers
    const std::vector<double> uval = st.uniform_values(base, fixed_values);
    // The compiled plan, where it is loaded (GradOptions::plan): the same
    // blocks, record and flags as the block kernels.
    for_cases(nblocks, nthreads, [&](std::size_t w, std::size_t begin, std::size_t end) {
      TapeImpl& m = st.worker(w);
      State::Scratch& sc = st.scratch_of(w, m);
      const double** P = sc.P.data();
      alignas(64) double flag[Bk];
      std::vector<const double*> in(std::max<std::size_t>(columns.size(), 1));
      std::vector<long> stride(in.size());
      std::uint64_t ran = 0, flagged = 0;
      for (std::size_t blk = begin; blk < end; ++blk) {
        const std::size_t start = blk * Bk, lanes = std::min(Bk, count - start);
        if (!options.mask_failures && start > first_bad.load(std::memory_order_relaxed)) break;
        // The block's columns live in the worker's scratch (they stay in
        // cache); the values the reverse pass reads go straight to the record.
        double* K = record ? record->blocks_.get() + blk * st.nslots * Bk : sc.K.data();
        if (ck) {
          for (std::size_t k = 0; k < columns.size(); ++k) {
            const bool one = columns[k].size() == 1;
            in[k] = one ? columns[k].data() : columns[k].data() + start;
            stride[k] = one ? 0 : 1;
          }
          reinterpret_cast<State::CompiledForward>(ck->fns[0])(static_cast<long>(lanes), in.data(), stride.data(),
                                                               uval.data(), K, sc.O.data(), sc.F.data(),
                                                               &State::host_kernel, &m);
          const bool all_bad = !fixed_status.ok() || st.constant_bad;
          for (std::size_t l = 0; l < lanes; ++l) {
            const bool bad = all_bad || sc.F[l] != 0;
            flag[l] = bad ? tape_detail::kNaN : 0.0;
            flagged += bad;
          }
          ran += lanes;
        } else {
          State::fast_forward(m, st, sc.T.data(), K, P, uval.data(), start, lanes, columns, fixed_status.ok(), flag);
        }
        for (std::size_t l = 0; l < lanes; ++l) {
          const std::size_t c = start + l;
          if (flag[l] == 0.0) {
            for (std::size_t o = 0; o < nout; ++o) {
              const auto out = static_cast<std::size_t>(m.out_ids[o]);
              outputs[o * count + c] = ck ? sc.O[o * Bk + l] : P[out] ? P[out][l] : uval[out];
            }
            continue;
          }
          if (!options.mask_failures && c > first_bad.load(std::memory_order_relaxed)) break;
          m.use_own_tables();
          if (!run_case(m, w, c) || !record) continue;
          record->slow_[c] = 1;
          slow_parts[w].push_back({c, m.own_val, m.own_fail});
        }
      }
      if (ck) {
        ck->cases.fetch_add(ran, std::memory_order_relaxed);
        ck->handed_back.fetch_add(flagged, std::memory_order_relaxed);
      }
    });
  } else {
    for_cases(count, nthreads, [&](std::size_t w, std::size_t begin, std::size_t end) {
      TapeImpl& m = st.worker(w);
      for (std::size_t c = begin; c < end; ++c) {
        if (!options.mask_failures && c > first_bad.load(std::memory_order_relaxed)) return;
        if (record) m.use_tables(record->val_.data() + c * stride, record->fail_.data() + c * stride);
        else m.use_own_tables();
        run_case(m, w, c);
      }
    });
  }
  base.use_own_tables();
  if (record) {
    for (auto& part : slow_parts)
      for (auto& rows : part) record->slow_rows_.push_back(std::move(rows));
    std::sort(record->slow_rows_.begin(), record->slow_rows_.end(),
              [](const auto& a, const auto& b) { return a.c < b.c; });
  }

  CaseErrors found = merge(errs);
  if (!options.mask_failures && found.size() > 1) found.resize(1);
  if (errors) *errors = found;
  if (record) record->errors_ = found;
  if (!options.mask_failures && !found.empty()) {
    if (record) record->owner_ = nullptr;  // not reversible
    return with_case(found.front().second, found.front().first);
  }
  return ok_status();
}

Status BatchGradientTape::reverse(BatchRecord& record, std::span<const std::span<const double>> seeds,
                                  std::span<double> input_gradients, std::span<double> parameter_gradients,
                                  const BatchGradOptions& options, CaseErrors* errors) {
  State& st = *s_;
  TapeImpl& base = st.worker(0);
  const std::size_t count = record.count_;
  const std::size_t nout = base.out_ids.size();
  const std::size_t nleaves = base.leaves.size();
  if (record.owner_ != this) return make_error("the reverse pass needs a successful forward pass of this tape first");
  if (seeds.size() != nout)
    return make_error("expected " + std::to_string(nout) + " seed columns, got " + std::to_string(seeds.size()));
  for (std::size_t o = 0; o < nout; ++o)
    if (seeds[o].size() != count && seeds[o].size() != 1)
      return make_error("the seed column of output '" + base.out_names[o] + "' has " +
                        std::to_string(seeds[o].size()) + " values, expected " + std::to_string(count) +
                        " (or 1 for every case)");
  if (input_gradients.size() != st.n_input_leaves * count || parameter_gradients.size() != st.n_param_leaves)
    return make_error("the gradient buffers do not fit the tape's leaves");
  if (st.busy) return make_error("this batch tape is already running (a binding called back into it)");
  BusyGuard release(st.busy);

  const std::size_t nthreads = std::min(thread_count(options.threads), std::max<std::size_t>(count, 1));
  st.ensure_workers(nthreads);
  std::vector<double> per_case(st.n_param_leaves * count, 0.0);
  std::vector<std::uint8_t> skip(count, 0);
  std::vector<CaseErrors> errs(nthreads);
  std::atomic<std::size_t> first_bad{kNone};
  const std::size_t stride = record.stride_;

  // One case through the per-case reverse pass, from tables already in m.
  auto slow_case = [&](TapeImpl& m, std::size_t w, std::size_t c, std::vector<double>& seed,
                       std::vector<double>& grads) {
    if (st.keep_messages)
      for (const auto& [id, why] : record.why_[c]) m.why[static_cast<std::size_t>(id)] = why;
    for (std::size_t o = 0; o < nout; ++o) seed[o] = seeds[o].size() == 1 ? seeds[o][0] : seeds[o][c];
    Status s = m.reverse_pass(seed, grads);
    if (!s) {
      skip[c] = 2;
      errs[w].emplace_back(c, s.error());
      if (!options.mask_failures) lower(first_bad, c);
    }
  };
  auto store = [&](std::size_t c, const double* g, std::size_t step) {
    for (std::size_t k = 0; k < nleaves; ++k) {
      const double v = skip[c] ? 0.0 : g[k * step];
      if (st.input_rows[k] != kNone) input_gradients[st.input_rows[k] * count + c] = v;
      else per_case[c * st.n_param_leaves + st.param_rows[k]] = v;
    }
  };

  if (record.blocks_used_) {
    constexpr std::size_t Bk = State::kBlock;
    const std::size_t nblocks = (count + Bk - 1) / Bk;
    st.scratch.resize(std::max(st.scratch.size(), nthreads));  // no resizing inside the workers
    const std::vector<double> uval = st.uniform_values(base, record.fixed_);
    // The compiled reverse reads the record the block forward writes, and
    // the block kernels' one the compiled forward writes: either may run.
    const eval_detail::CompiledKernel* ck = st.compiled_kernel(base, 0.0, true);
    for_cases(nblocks, nthreads, [&](std::size_t w, std::size_t begin, std::size_t end) {
      TapeImpl& m = st.worker(w);
      State::Scratch& sc = st.scratch_of(w, m);
      std::vector<double> seed(nout), grads(nleaves);
      std::uint8_t active[Bk];
      std::vector<const double*> sp(std::max<std::size_t>(nout, 1));
      std::vector<long> sstride(sp.size());
      for (std::size_t blk = begin; blk < end; ++blk) {
        const std::size_t start = blk * Bk, lanes = std::min(Bk, count - start);
        if (!options.mask_failures && start > first_bad.load(std::memory_order_relaxed)) return;
        const double* K = record.blocks_.get() + blk * st.nslots * Bk;
        for (std::size_t l = 0; l < lanes; ++l) active[l] = !record.failed_[start + l] && !record.slow_[start + l];
        if (ck) {
          for (std::size_t o = 0; o < nout; ++o) {
            const bool one = seeds[o].size() == 1;
            sp[o] = one ? seeds[o].data() : seeds[o].data() + start;
            sstride[o] = one ? 0 : 1;
          }
          reinterpret_cast<State::CompiledReverse>(ck->fns[1])(static_cast<long>(lanes), K, uval.data(), sp.data(),
                                                               sstride.data(), sc.G.data(), &State::host_kernel, &m);
        } else {
          State::fast_reverse(m, st, K, uval.data(), start, lanes, seeds, sc);
        }
        for (std::size_t l = 0; l < lanes; ++l) {
          const std::size_t c = start + l;
          if (record.failed_[c]) {
            skip[c] = 1;  // its forward failed: listed there, nothing to differentiate
            store(c, nullptr, 0);
            continue;
          }
          if (active[l]) {
            // The only failure a block lane can have: reverse_pass's check
            // of the leaves' gradients, in leaf order.
            std::size_t bad = kNone;
            for (std::size_t k = 0; k < nleaves && bad == kNone; ++k)
              if (!std::isfinite(sc.G[k * Bk + l])) bad = k;
            if (bad != kNone) {
              skip[c] = 2;
              errs[w].emplace_back(c, m.nonfinite_result(bad, sc.G[bad * Bk + l], [&](std::size_t o) {
                return seeds[o].size() == 1 ? seeds[o][0] : seeds[o][c];
              }));
              if (!options.mask_failures) lower(first_bad, c);
            }
            store(c, sc.G.data() + l, Bk);
            continue;
          }
          // A case the per-case code ran: its tables back in m.
          if (!options.mask_failures && c > first_bad.load(std::memory_order_relaxed)) return;
          m.use_own_tables();
          const auto rows = std::lower_bound(record.slow_rows_.begin(), record.slow_rows_.end(), c,
                                             [](const auto& r, std::size_t key) { return r.c < key; });
          std::copy(rows->val.begin(), rows->val.end(), m.own_val.begin());
          std::copy(rows->fail.begin(), rows->fail.end(), m.own_fail.begin());
          slow_case(m, w, c, seed, grads);
          store(c, grads.data(), 1);
        }
      }
    });
  } else {
    for_cases(count, nthreads, [&](std::size_t w, std::size_t begin, std::size_t end) {
      TapeImpl& m = st.worker(w);
      std::vector<double> seed(nout), grads(nleaves);
      for (std::size_t c = begin; c < end; ++c) {
        if (!options.mask_failures && c > first_bad.load(std::memory_order_relaxed)) return;
        if (record.failed_[c]) {
          skip[c] = 1;  // its forward failed: listed there, nothing to differentiate
        } else {
          m.use_tables(record.val_.data() + c * stride, record.fail_.data() + c * stride);
          slow_case(m, w, c, seed, grads);
        }
        store(c, grads.data(), 1);
      }
    });
  }
  base.use_own_tables();

  CaseErrors failed_reverse = merge(errs);
  if (!options.mask_failures && !failed_reverse.empty()) {
    if (errors) *errors = {failed_reverse.front()};
    return with_case(failed_reverse.front().second, failed_reverse.front().first);
  }
  // Fixed order: case by case, whatever worker ran which case.
  for (std::size_t j = 0; j < st.n_param_leaves; ++j) {
    double sum = 0.0;
    for (std::size_t c = 0; c < count; ++c)
      if (!skip[c]) sum += per_case[c * st.n_param_leaves + j];
    parameter_gradients[j] = sum;
  }
  if (errors) {
    // The forward's failures keep their messages; the reverse's follow, in case order.
    *errors = record.errors_;
    for (auto& e : failed_reverse) errors->push_back(std::move(e));
    std::stable_sort(errors->begin(), errors->end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  }
  return ok_status();
}

}  // namespace tc
