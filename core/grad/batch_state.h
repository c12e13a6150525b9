#pragma once
// Private to core/grad: the batch tape's prepared state, shared by
// batch_tape.cpp (cases, threads, records) and batch_fast.cpp (the block
// kernels).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <new>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "eval/compiled_plan.h"
#include "grad/batch_gradients.h"
#include "grad/tape_impl.h"
#include "ir/op_derivatives.h"

namespace tc {

/// A node as op_derivatives.h's vjp_terms() reads it (M: the tape's Impl).
template <class M, class N>
struct RuleShape {
  const M& m;
  const N& n;
  NodeId id;
  std::size_t count() const { return static_cast<std::size_t>(n.count); }
  bool carries(int k) const { return m.nodes[static_cast<std::size_t>(m.arg(n, k))].carries; }
  std::size_t terms() const { return m.program.nodes[static_cast<std::size_t>(id)].linear().coefficients.size(); }
  int term_arg(std::size_t j) const { return m.program.nodes[static_cast<std::size_t>(id)].linear().indices[j]; }
};

/// Calls f(k, term, j) for each term of node n's rule (op_derivatives.h),
/// in the order the rule adds them, skipping arguments that carry nothing.
/// The reverse pass's plan (assign_adjoints: State::pushes, which the pass
/// runs) is made from these calls alone.
template <class M, class N, class F>
inline void for_each_push(const M& m, const N& n, NodeId id, F&& f) {
  (void)sem::vjp_terms(n.op, n.sem, RuleShape<M, N>{m, n, id}, f);
}


/// Block buffers start on a cache line: a column is then 2 KiB-aligned, and
/// no 64-byte vector load or store of it straddles two lines (from plain
/// 16-byte-aligned buffers three in four did, and long_loop's forward ran
/// at about half speed).
inline double* aligned_doubles(std::size_t n) {
  return static_cast<double*>(::operator new(std::max<std::size_t>(n, 1) * sizeof(double), std::align_val_t(64)));
}
inline void free_aligned(double* p) { ::operator delete(p, std::align_val_t(64)); }
template <class T>
struct CacheLineAllocator {
  using value_type = T;
  CacheLineAllocator() = default;
  template <class U>
  CacheLineAllocator(const CacheLineAllocator<U>&) {}
  T* allocate(std::size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t(64))); }
  void deallocate(T* p, std::size_t) { ::operator delete(p, std::align_val_t(64)); }
  template <class U>
  bool operator==(const CacheLineAllocator<U>&) const { return true; }
};
using AlignedColumns = std::vector<double, CacheLineAllocator<double>>;

struct BatchBufferPool {
  std::mutex mu;
  std::vector<std::pair<std::size_t, double*>> free;  ///< (size, buffer)
  static constexpr std::size_t kKeep = 4;
  ~BatchBufferPool() {
    for (auto& [_, p] : free) free_aligned(p);
  }
  double* take(std::size_t size) {
    std::lock_guard<std::mutex> lock(mu);
    for (std::size_t k = 0; k < free.size(); ++k)
      if (free[k].first == size) {
        double* p = free[k].second;
        free.erase(free.begin() + static_cast<std::ptrdiff_t>(k));
        return p;
      }
    return aligned_doubles(size);
  }
  void give(std::size_t size, double* p) {
    std::lock_guard<std::mutex> lock(mu);
    if (free.size() >= kKeep) {
      free_aligned(free.front().second);
      free.erase(free.begin());
    }
    free.emplace_back(size, p);
  }
};

struct BatchGradientTape::State {
  using Impl = TapeImpl;
  GradientTape base;
  /// Copies of base's prepared form, one per worker (worker 0 is base's own).
  std::vector<std::unique_ptr<Impl>> extra;
  std::vector<std::string> input_names;
  std::vector<NodeId> input_ids;
  std::vector<std::size_t> input_rows, param_rows;  ///< leaf index -> row
  std::size_t n_input_leaves = 0, n_param_leaves = 0;
  /// A hybrid derivative rule may quote the failure of an unchosen value.
  bool keep_messages = false;
  bool busy = false;
  std::shared_ptr<BatchBufferPool> pool = std::make_shared<BatchBufferPool>();
  /// Every op of the cone has a block kernel (batch_fast.cpp): cases run
  /// kBlock at a time, one op over all of them at once, and only cases the
  /// block flags (any failure or non-finite value anywhere, even where the
  /// per-case semantics would not look) run the per-case code.
  bool fast = false;
  /// 256 lanes, as run_batch's float64 blocks: a block pays a dispatch per
  /// node, so short blocks spend more on dispatch than on arithmetic (64
  /// lanes: long_loop's reverse pass cost 3x more per case).
  static constexpr std::size_t kBlock = 256;
  static constexpr std::size_t kMinBlockCases = 8;
  /// Constants, parameters and state: one value for every case, read as a
  /// scalar by the kernels of both passes (never a column).
  std::vector<std::uint8_t> uniform;
  /// Per node: its column in a record's block (the values some derivative
  /// rule reads), or -1. The forward writes these nodes there directly.
  std::vector<std::int32_t> slot_of;
  std::size_t nslots = 0;
  void assign_slots(const Impl& m);
  /// Per add or sub: the mul it computes inside its own loop (the mul's only
  /// reader, and nothing else needs the product: not the reverse pass, not a
  /// value test, not a domain check), or -1. The product is rounded as its
  /// own node would be, so the bits are the same; the mul gets no column.
  std::vector<NodeId> fused_mul;
  /// Per node: its column in the forward's block scratch T, or -1 (uniform
  /// values, record slots, fused muls, nodes outside the cone). A column is
  /// given back once the last node that reads it is done and reused for a
  /// later node, so the block's working set is the live values, not the
  /// whole circuit. Inputs and outputs hold their column to the end. Set
  /// after assign_slots.
  std::vector<std::int32_t> col_of;
  std::size_t ncols = 0;
  /// Per node: 1 when the float64 forward tests its value for finiteness.
  /// An op the table marks kKeepsNonFinite (+ - * neg affine) gives a
  /// non-finite result for a non-finite argument, so a value read only by
  /// such ops is tested where they are; values some other op reads (which
  /// may launder it: a comparison, a select, relu, sigmoid, a division) and
  /// the outputs are tested themselves. Every non-finite value of a lane
  /// thus still flags it.
  std::vector<std::uint8_t> finite_check;
  /// A constant of the cone is non-finite or outside its domain: every lane
  /// is flagged and the per-case code says whether a case really meets it.
  bool constant_bad = false;
  void assign_columns(const Impl& m);
  /// The reverse pass's plan, fixed by the program's structure alone:
  /// rev_nodes are the nodes it differentiates (carrying, reached from an
  /// output at all), in the order it does. A node's adjoint lives in column
  /// acol from its first push to the end of its own rule, then the column
  /// is reused (leaves keep theirs to the end), so the working set is the
  /// live adjoints. full: every lane of the block reaches the node (all its
  /// paths from the outputs avoid a select's unchosen side in some case),
  /// so it keeps no per-lane reached mask and its pushes blend nothing.
  /// alias_args (bit k: argument k): the arguments whose adjoint starts as
  /// this node's adjoint itself (an add's or sub's first push of g: 0.0 + g
  /// is g, since no adjoint is ever -0.0: it is a sum that starts at +0.0),
  /// so they share its column and the push computes nothing. For
  /// long_loop's chain of sums every add's push is such a one.
  std::vector<NodeId> rev_nodes;
  std::vector<std::int32_t> acol;
  std::vector<std::uint8_t> full;
  std::vector<std::uint8_t> alias_args;
  /// Per push the pass runs (rev_nodes' rules in order): 1 when it is the
  /// first push to its node (it sets the adjoint rather than adding); per
  /// output the same for its seed; per leaf whether any push reaches it.
  /// rev_nodes leaves out the nodes all of whose pushes are shared.
  std::vector<std::uint8_t> seed_first, leaf_reached;
  /// The pushes the pass runs, rev_nodes' rules in order (for_each_push's
  /// calls, fixed once): argument k, the term (op_derivatives.h's TermKind) and
  /// its index j, and whether it is the first push to its node. One list
  /// and one dispatch over it (not the rule's switch inlined at each of
  /// for_each_push's call sites). push_end[r]: the end of rev_nodes[r]'s.
  struct PlannedPush {
    std::int32_t k;
    std::uint32_t j;
    std::uint8_t rule, first;
  };
  std::vector<PlannedPush> pushes;
  std::vector<std::uint32_t> push_end;
  /// Per rev_nodes entry: 1 when some term reads a node factor (a slope or
  /// a gather weight), which the pass computes before the node's pushes.
  std::vector<std::uint8_t> rev_factored;
  std::size_t nacols = 0;
  /// The most weights a node factor of the reverse pass writes (a relaxed
  /// or hybrid gather's, kept per lane while its pushes run; 0: none).
  std::size_t gather_width = 0;
  void assign_adjoints(const Impl& m);
  /// Per worker, kept between calls (fresh buffers of this size cost page
  /// faults on every call): the forward's block columns and record block
  /// (for a forward without a record), its column pointers, and the
  /// reverse's adjoints, reached lanes, leaf gradients and a gather's
  /// weights.
  struct Scratch {
    AlignedColumns T, K, A, G, W;
    std::vector<std::uint8_t> R;
    std::vector<const double*> P;
    AlignedColumns O;               ///< the compiled forward's outputs (output x kBlock)
    std::vector<long long> F;       ///< the compiled forward's flags (kBlock)
  };
  std::vector<Scratch> scratch;
  Scratch& scratch_of(std::size_t w, const Impl& m) {
    if (scratch.size() <= w) scratch.resize(w + 1);
    Scratch& s = scratch[w];
    if (s.P.empty()) {
      s.T.resize(std::max<std::size_t>(ncols, 1) * kBlock);
      s.K.resize(std::max<std::size_t>(nslots, 1) * kBlock);
      s.A.resize(std::max<std::size_t>(nacols, 1) * kBlock);
      s.R.resize(std::max<std::size_t>(nacols, 1) * kBlock);
      s.G.resize(std::max<std::size_t>(m.leaves.size(), 1) * kBlock);
      s.W.resize(std::max<std::size_t>(gather_width, 1) * kBlock);
      s.P.resize(std::max<std::size_t>(m.nodes.size(), 1));
      s.O.resize(std::max<std::size_t>(m.out_ids.size(), 1) * kBlock);
      s.F.resize(kBlock);
    }
    return s;
  }

  /// Block forward over `lanes` cases from `start`: node id's values at
  /// P[id][lane] once it returns (nullptr for uniform values, which are
  /// uval[id], and for fused muls); the record's values go to K (slot_of).
  /// flag[lane] != 0 for a case the block cannot vouch for. Inputs from the
  /// columns; uval holds the constants (rounded) and the parameters and
  /// state of the call.
  static void fast_forward(Impl& m, const State& st, double* T, double* K, const double** P, const double* uval,
                           std::size_t start, std::size_t lanes, std::span<const std::span<const double>> columns,
                           bool fixed_ok, double* flag);
  /// Block reverse over a record block K (values at K[slot_of[id] * kBlock
  /// + lane], uniform ones uval[id]): writes per lane and reported leaf the
  /// gradient into G[leaf * kBlock + lane]. Every lane is computed; the
  /// caller reads only the lanes whose forward the block vouched for.
  static void fast_reverse(Impl& m, const State& st, const double* K, const double* uval, std::size_t start,
                           std::size_t lanes, std::span<const std::span<const double>> seeds, Scratch& sc);
  /// The per-lane parts, out of line: the relaxed gathers' forward
  /// (op_semantics.h's checked kernel) and the reverse pass's node factors
  /// (op_derivatives.h's node_factors: a surrogate slope into dx[lane], a
  /// relaxed gather's weights into W[k * kBlock + lane]), lane by lane,
  /// unvectorised (the surrogate is called through function pointers). Inlined into the
  /// flattened block kernels, the forward's made every other op's loop
  /// slower (long_loop's forward by about a sixth in one build).
  static void gather_forward(const Impl& m, std::size_t i, const double* const* P, const double* uval,
                             std::size_t lanes, double* r, double* flag);
  static void node_factors(const Impl& m, const State& st, std::size_t i, const double* K, const double* uval,
                           std::size_t lanes, double* W, double* dx);
  static bool fast_eligible(const Impl& m);
  /// Per node: a constant's value (rounded to the dtype), a parameter's or
  /// state's value of this call (`fixed`: node, value), 0 elsewhere.
  std::vector<double> uniform_values(const Impl& m, const std::vector<std::pair<std::size_t, double>>& fixed) const {
    std::vector<double> u(m.nodes.size(), 0.0);
    for (std::size_t i = 0; i < u.size(); ++i)
      if (m.nodes[i].op == Op::Constant) u[i] = m.f32 ? round_f32(m.program.nodes[i].value) : m.program.nodes[i].value;
    for (const auto& [id, v] : fixed) u[id] = v;
    return u;
  }

  /// The compiled plan (batch_compiled.cpp): C for the block forward (the
  /// record's values, the outputs and one flag per lane) and the block
  /// reverse pass, written from op_semantics.h's kernels and
  /// op_derivatives.h's terms over codegen::CLanes, compiled, cached and
  /// trusted by the evaluator's plan machinery (eval/compiled_plan.h). It
  /// runs the same blocks, records and per-case hand-back as the block
  /// kernels above; `plan` decides when (EvalPlan, as the evaluator's).
  std::unique_ptr<eval_detail::PlanState> plan;
  /// Why this program has no compiled plan (an op or term without a C
  /// spelling); empty when it can have one.
  std::string compiled_refusal;
  std::string compiled_unsupported(const Impl& m) const;
  Result<eval_detail::PlanSource> compiled_source(const Impl& m) const;
  /// The loaded plan for a call of `cases` cases (under EvalPlan::Auto,
  /// once the work seen pays for it), or null: the block kernels.
  const eval_detail::CompiledKernel* compiled_kernel(const Impl& m, double cases, bool batched);
  /// tc_grad_forward(n, in, stride, uval, K, out, flag): lanes [0, n) of a
  /// block, input k at in[k][lane * stride[k]]; the record's values to K,
  /// output o to out[o * kBlock + lane], flag[lane] != 0 where the block
  /// cannot vouch for the lane.
  /// Both take last the host's kernels (host_kernel) and the worker's Impl.
  using HostKernel = double (*)(const void*, long, long, double, double);
  static double host_kernel(const void* ctx, long what, long arg, double x, double y);
  using CompiledForward = void (*)(long, const double* const*, const long*, const double*, double*, double*,
                                   long long*, HostKernel, const void*);
  /// tc_grad_reverse(n, K, uval, seeds, stride, G): seed o at
  /// seeds[o][lane * stride[o]]; leaf k's gradient to G[k * kBlock + lane].
  using CompiledReverse = void (*)(long, const double*, const double*, const double* const*, const long*, double*,
                                   HostKernel, const void*);

  explicit State(GradientTape t) : base(std::move(t)) {}
  Impl& worker(std::size_t k) { return k == 0 ? *base.impl_ : *extra[k - 1]; }
  void ensure_workers(std::size_t n) {
    while (extra.size() + 1 < n) {
      auto w = std::make_unique<Impl>(*base.impl_);
      w->use_own_tables();
      extra.push_back(std::move(w));
    }
  }
};

}  // namespace tc
