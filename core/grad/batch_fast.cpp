// Block kernels of the batched reverse pass: one op at a time over a block
// of cases, each lane doing exactly the arithmetic of the per-case tape in
// the same order, so its bits are the per-case bits: the forward
// instantiates op_semantics.h's kernels, the reverse op_derivatives.h's
// rules (the terms the per-case tape_vjp.cpp runs one double at a time),
// here over a block's lanes. No derivative is spelled in this file.
//
// The forward does not track failures per node the way the per-case tape
// does; it only flags a lane where anything at all went wrong (a non-finite
// value, division by zero, a failed domain check), even in a branch the
// per-case semantics would not look at. Flagged lanes are handed to the
// per-case code, which decides. An unflagged lane has every node of the
// cone defined, so the hybrid rules that need an unchosen value always have
// it, and the reverse pass needs no failure table.
//
// What keeps the blocks cheap (batch_state.h has the plans): constants,
// parameters and state are scalars in both passes, never columns; a mul
// read only by an add or sub is computed inside that op's loop; the values
// the reverse reads are written straight into the record; the finiteness
// test is folded into the op's own loop; and both passes reuse columns once
// a value (or adjoint) is dead, so a block's working set is what is live.
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "grad/batch_state.h"
#include "grad/surrogate.h"
#include "ir/op_derivatives.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_THREAD__)
// flatten: the kernels are lambdas, which must be inlined into each clone to
// be compiled for its ISA (a lambda called out of line is x86-64 code).
// Not under ThreadSanitizer: the clones' resolver runs while the dynamic
// loader relocates the program, before TSan's runtime is set up, and its
// instrumented entry crashed the TSan test binary at start.
#define TC_BATCH_CLONES __attribute__((target_clones("avx512f", "avx2", "default"), flatten))
#else
#define TC_BATCH_CLONES
#endif
#if defined(__GNUC__)
#define TC_OUT_OF_LINE __attribute__((noinline))  // not inlined by flatten either
#else
#define TC_OUT_OF_LINE
#endif

namespace tc {

namespace {

constexpr std::size_t B = 256;  // BatchGradientTape::State::kBlock (checked below)
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// c ? a : b as bit operations. With -ftrapping-math (the build's default)
/// GCC will not if-convert a floating-point choice inside a lane loop and
/// leaves the whole loop scalar; a blend of bits is the same value and keeps
/// the reverse pass's loops vectorised.
inline double blend(bool c, double a, double b) {
  const std::uint64_t m = -static_cast<std::uint64_t>(c);
  return std::bit_cast<double>((std::bit_cast<std::uint64_t>(a) & m) | (std::bit_cast<std::uint64_t>(b) & ~m));
}
using D = sem::Lanes<double>;

/// An operand of a block kernel: a column, or one value for every lane.
struct Opnd {
  const double* p;
  double u;
};
struct ColOf {
  const double* __restrict p;
  double operator[](std::size_t l) const { return p[l]; }
};
struct UniOf {
  double u;
  double operator[](std::size_t) const { return u; }
};
/// f(reader) with the operand's reader type, so each kernel is compiled
/// once for a column and once for a scalar (no test per lane).
template <class F>
inline void with(Opnd o, F&& f) {
  if (o.p) f(ColOf{o.p});
  else f(UniOf{o.u});
}

/// How a forward kernel finishes each lane: 0 stores, 1 stores and adds
/// the value's finiteness to the lane's flag, 2 (float32 programs) rounds,
/// stores and adds the finiteness of both values.
template <int Mode, class F>
inline void fill_lanes(double* __restrict r, double* __restrict flag, std::size_t lanes, F&& f) {
  for (std::size_t l = 0; l < lanes; ++l) {
    const double v = f(l);
    if constexpr (Mode == 2) {
      const double w = round_f32(v);
      flag[l] += (v - v) + (w - w);  // NaN when either is not finite
      r[l] = w;
    } else {
      r[l] = v;
      if constexpr (Mode == 1) flag[l] += v - v;
    }
  }
}
template <class F>
inline void fill(int mode, double* r, double* flag, std::size_t lanes, F&& f) {
  if (mode == 0) fill_lanes<0>(r, flag, lanes, f);
  else if (mode == 1) fill_lanes<1>(r, flag, lanes, f);
  else fill_lanes<2>(r, flag, lanes, f);
}

/// The batched reverse pass's lane type for op_derivatives.h's terms: a
/// choice is a blend(), so the term loops vectorise.
struct BlendLanes : sem::GradLanes<double> {
  static double if_then_else(bool c, double a, double b) { return blend(c, a, b); }
};
using BL = BlendLanes;

/// One lane of a block record as op_derivatives.h's node_factors() reads
/// a node (the values it reads are in the record: assign_slots).
template <class M, class St, class N>
struct LaneFactors {
  const M& m;
  const St& st;
  const N& n;
  const double* K;
  const double* uval;
  std::size_t l;
  std::size_t count() const { return static_cast<std::size_t>(n.count); }
  bool carries(int k) const { return m.nodes[static_cast<std::size_t>(m.arg(n, k))].carries; }
  double x(std::size_t k) const {
    const auto a = static_cast<std::size_t>(m.arg(n, static_cast<int>(k)));
    return st.uniform[a] ? uval[a] : K[static_cast<std::size_t>(st.slot_of[a]) * B + l];
  }
  double temperature() const { return n.temperature; }
  const SurrogatePolicy& policy() const { return *n.policy; }
};

/// One lane of a block node as op_semantics.h's sem::value reads a node
/// (tape_forward.cpp's TapeNode over a block): the relaxed gathers run the
/// checked kernel itself per lane, so their failures are the per-case ones
/// and a failing lane is flagged.
struct LaneNode : tape_detail::TapeNodeFacts {
  const Opnd* ops;  ///< the node's arguments
  std::size_t l;    ///< the lane
  double x(std::size_t k) const { return ops[k].p ? ops[k].p[l] : ops[k].u; }
};

bool is_uniform_op(Op op) { return op == Op::Constant || op == Op::Parameter || op == Op::State; }

}  // namespace

namespace {

/// Whether fast_forward has a block kernel for `op`: its own case, or a
/// one-argument kernel of op_semantics.h (sem::unary), which its default
/// case maps over the block. An op without one (a host call, or a new op
/// until it gets a case) runs case by case, through the same rules.
bool has_block_kernel(Op op) {
  switch (op) {
    case Op::Call: return false;  // the host is called case by case
    case Op::Input: case Op::Parameter: case Op::Constant: case Op::State: case Op::Add: case Op::Sub:
    case Op::Mul: case Op::Div: case Op::FloorDiv: case Op::Mod: case Op::Lt: case Op::Le: case Op::Gt:
    case Op::Ge: case Op::Eq: case Op::Ne: case Op::Select: case Op::Gather: case Op::GatherOneHot:
    case Op::Affine: case Op::SparseAffine:
      return true;
    default:
      return sem::unary(op, [](auto) {});
  }
}

}  // namespace

bool BatchGradientTape::State::fast_eligible(const Impl& m) {
  static_assert(B == kBlock);
  if (!m.options.check_input_domains) return false;
  for (NodeId id : m.order)
    if (!has_block_kernel(m.nodes[static_cast<std::size_t>(id)].op)) return false;
  return true;
}

void BatchGradientTape::State::assign_slots(const Impl& m) {
  const std::size_t n = m.nodes.size();
  slot_of.assign(n, -1);
  uniform.assign(n, 0);
  for (std::size_t i = 0; i < n; ++i) uniform[i] = is_uniform_op(m.nodes[i].op);
  auto need = [&](NodeId id) {
    const auto i = static_cast<std::size_t>(id);
    if (uniform[i]) return;  // a scalar of the call, kept by no record
    auto& s = slot_of[i];
    if (s < 0) s = static_cast<std::int32_t>(nslots++);
  };
  // Exactly the values the rules' terms and node factors read, as
  // op_derivatives.h declares them (fast_reverse reads them there).
  for (NodeId id : m.order) {
    const Impl::TNode& t = m.nodes[static_cast<std::size_t>(id)];
    if (!t.carries) continue;
    bool factored = false;
    for_each_push(m, t, id, [&](int, sem::TermKind kind, std::size_t j) {
      const sem::TermFacts f = sem::term_facts(kind, t.op);
      for (int q = 0; q < f.reads.count; ++q) need(m.arg(t, f.reads.at(q, j)));
      factored = factored || f.factor == sem::Factor::Slope || f.factor == sem::Factor::Weight;
    });
    if (factored)
      sem::factor_reads(t.op, static_cast<std::size_t>(t.count), m.nodes[static_cast<std::size_t>(m.arg(t, 0))].carries,
                        [&](int k) { need(m.arg(t, k)); });
  }
}

void BatchGradientTape::State::assign_columns(const Impl& m) {
  const std::size_t n = m.nodes.size();
  // finite_check: see batch_state.h.
  finite_check.assign(n, 0);
  for (NodeId id : m.out_ids) finite_check[static_cast<std::size_t>(id)] = 1;
  std::vector<std::uint32_t> readers(n, 0);
  for (NodeId id : m.order) {
    const Impl::TNode& t = m.nodes[static_cast<std::size_t>(id)];
    for (int k = 0; k < t.count; ++k) {
      ++readers[static_cast<std::size_t>(m.arg(t, k))];
      // ops.def's kKeepsNonFinite: a non-finite argument gives a
      // non-finite result, so the value is tested downstream.
      if (!op_info(t.op).has(kKeepsNonFinite)) finite_check[static_cast<std::size_t>(m.arg(t, k))] = 1;
    }
  }
  std::vector<std::uint8_t> is_output(n, 0);
  for (NodeId id : m.out_ids) is_output[static_cast<std::size_t>(id)] = 1;
  constant_bad = false;
  for (NodeId id : m.order) {
    const auto i = static_cast<std::size_t>(id);
    if (m.nodes[i].op != Op::Constant) continue;
    const double unrounded = m.program.nodes[i].value;
    const double v = m.f32 ? round_f32(unrounded) : unrounded;
    bool bad = !std::isfinite(v) || !std::isfinite(unrounded);
    if (m.nodes[i].checked_domain && m.nodes[i].sem != Semantics::Relaxed && !bad)
      bad = m.program.nodes[i].domain->check(v).has_value();
    constant_bad = constant_bad || bad;
  }
  // Fused muls: see batch_state.h. A float32 program rounds every product,
  // which the fused loops do not: none there.
  fused_mul.assign(n, -1);
  std::vector<std::uint8_t> fused(n, 0);
  if (!m.f32)
    for (NodeId id : m.order) {
      const auto i = static_cast<std::size_t>(id);
      const Impl::TNode& t = m.nodes[i];
      if (t.op != Op::Add && t.op != Op::Sub) continue;
      for (int k = 0; k < 2; ++k) {
        const auto a = static_cast<std::size_t>(m.arg(t, k));
        const Impl::TNode& mt = m.nodes[a];
        if (mt.op == Op::Mul && readers[a] == 1 && !is_output[a] && slot_of[a] < 0 && !finite_check[a] &&
            !mt.checked_domain && !fused[a]) {
          fused_mul[i] = static_cast<NodeId>(a);
          fused[a] = 1;
          break;
        }
      }
    }
  // What node i reads when it runs: a fused mul's arguments in its place.
  auto for_each_read = [&](std::size_t i, auto&& f) {
    const Impl::TNode& t = m.nodes[i];
    for (int k = 0; k < t.count; ++k) {
      const NodeId a = m.arg(t, k);
      if (a != fused_mul[i]) {
        f(static_cast<std::size_t>(a));
        continue;
      }
      const Impl::TNode& mt = m.nodes[static_cast<std::size_t>(a)];
      for (int j = 0; j < mt.count; ++j) f(static_cast<std::size_t>(m.arg(mt, j)));
    }
  };
  col_of.assign(n, -1);
  ncols = 0;
  std::vector<std::int32_t> free_cols;
  std::vector<std::uint8_t> pinned(n, 0);
  auto give = [&](std::size_t i) {
    if (col_of[i] >= 0) return;
    if (!free_cols.empty()) {
      col_of[i] = free_cols.back();
      free_cols.pop_back();
    } else {
      col_of[i] = static_cast<std::int32_t>(ncols++);
    }
  };
  // Inputs first (the forward writes them all before its first op, so
  // their columns can never be a reused one); outputs hold theirs to the
  // end. Values the record keeps live in the record, uniform ones nowhere.
  for (const auto& [_, id] : m.inputs) {
    const auto i = static_cast<std::size_t>(id);
    pinned[i] = 1;
    if (slot_of[i] < 0) give(i);
  }
  for (NodeId id : m.out_ids) pinned[static_cast<std::size_t>(id)] = 1;
  // The last position in the order where each value is read.
  std::vector<std::size_t> last(n, 0);
  for (std::size_t p = 0; p < m.order.size(); ++p)
    for_each_read(static_cast<std::size_t>(m.order[p]), [&](std::size_t a) { last[a] = p; });
  for (std::size_t p = 0; p < m.order.size(); ++p) {
    const auto i = static_cast<std::size_t>(m.order[p]);
    // The result's column is taken before the arguments' are given back, so
    // it is never one of its own arguments (the kernels write r while
    // reading them, and the affine accumulates in place).
    if (!uniform[i] && slot_of[i] < 0 && !fused[i] && m.nodes[i].op != Op::Input) give(i);
    for_each_read(i, [&](std::size_t a) {
      if (!pinned[a] && last[a] == p && col_of[a] >= 0) {
        free_cols.push_back(col_of[a]);
        pinned[a] = 1;  // given back once, even when read twice by this node
      }
    });
    // A value nothing reads keeps its column (one column, not a leak per
    // block).
  }
}

void BatchGradientTape::State::assign_adjoints(const Impl& m) {
  const std::size_t n = m.nodes.size();
  acol.assign(n, -1);
  full.assign(n, 0);
  alias_args.assign(n, 0);
  rev_nodes.clear();
  rev_factored.clear();
  gather_width = 0;
  this->pushes.clear();
  push_end.clear();
  seed_first.assign(m.out_ids.size(), 0);
  nacols = 0;
  std::vector<std::int32_t> free_cols, holders;  // holders: per column, the nodes whose adjoint it is
  std::vector<std::uint8_t> touched(n, 0), leaf(n, 0);
  std::vector<std::uint32_t> pushes(n, 0);  // pushes each node can get (an upper bound)
  for (const GradLeaf& l : m.leaves) leaf[static_cast<std::size_t>(l.node)] = 1;
  for (NodeId id : m.out_ids) ++pushes[static_cast<std::size_t>(id)];
  for (NodeId id : m.order) {
    const Impl::TNode& t = m.nodes[static_cast<std::size_t>(id)];
    if (t.carries)
      for_each_push(m, t, id, [&](int k, sem::TermKind, std::size_t) { ++pushes[static_cast<std::size_t>(m.arg(t, k))]; });
  }
  auto take = [&](std::size_t t) {
    if (!free_cols.empty()) {
      acol[t] = free_cols.back();
      free_cols.pop_back();
    } else {
      acol[t] = static_cast<std::int32_t>(nacols++);
      holders.push_back(0);
    }
    holders[static_cast<std::size_t>(acol[t])] = 1;
  };
  auto release = [&](std::size_t t) {
    if (--holders[static_cast<std::size_t>(acol[t])] == 0) free_cols.push_back(acol[t]);
  };
  // The seeds reach every lane.
  for (std::size_t o = 0; o < m.out_ids.size(); ++o) {
    const auto t = static_cast<std::size_t>(m.out_ids[o]);
    if (!m.nodes[t].carries) continue;
    seed_first[o] = !touched[t];
    if (!touched[t]) take(t);
    touched[t] = 1;
    full[t] = 1;
  }
  struct Push {
    int k;
    sem::TermKind rule;
    std::size_t j;
  };
  std::vector<Push> rule;
  std::vector<std::uint8_t> firsts;
  for (auto it = m.order.rbegin(); it != m.order.rend(); ++it) {
    const auto i = static_cast<std::size_t>(*it);
    const Impl::TNode& t = m.nodes[i];
    if (!t.carries || !touched[i]) continue;
    rule.clear();
    firsts.clear();
    for_each_push(m, t, *it, [&](int k, sem::TermKind r, std::size_t j) { rule.push_back({k, r, j}); });
    // An add's or sub's first push of g (unmasked) to an argument it reads
    // once starts that adjoint as g itself: the argument shares this
    // node's column. One that gets no other push only reads it (any number
    // may); otherwise one argument may take the column over and accumulate
    // into it, when nothing else reads the column (no other argument, and
    // this node is not itself a reader of another node's column).
    auto may_alias = [&](const Push& p) {
      const auto a = static_cast<std::size_t>(m.arg(t, p.k));
      int uses = 0;
      for (int q = 0; q < t.count; ++q) uses += m.arg(t, q) == static_cast<NodeId>(a);
      return (t.op == Op::Add || t.op == Op::Sub) && p.rule == sem::TermKind::G && full[i] && !touched[a] && uses == 1;
    };
    bool shared = false;
    for (const Push& p : rule)
      if (may_alias(p) && pushes[static_cast<std::size_t>(m.arg(t, p.k))] == 1) shared = true;
    bool kept = leaf[i] != 0;  // a leaf's column is its gradient: kept to the end
    for (const Push& p : rule) {
      const auto a = static_cast<std::size_t>(m.arg(t, p.k));
      const bool masked = sem::term_facts(p.rule, t.op).pick || !full[i];
      firsts.push_back(!touched[a]);
      if (!touched[a]) {
        const bool alias = may_alias(p);
        if (alias && pushes[a] == 1) {
          acol[a] = acol[i];
          ++holders[static_cast<std::size_t>(acol[i])];
          alias_args[i] |= static_cast<std::uint8_t>(1u << p.k);
        } else if (alias && !shared && !kept && holders[static_cast<std::size_t>(acol[i])] == 1) {
          // Takes this node's hold over (only when no other node reads the
          // column: it will accumulate into it).
          acol[a] = acol[i];
          alias_args[i] |= static_cast<std::uint8_t>(1u << p.k);
          kept = true;
        } else {
          take(a);
        }
        touched[a] = 1;
      }
      if (!masked) full[a] = 1;
    }
    if (!kept) release(i);
    // A node whose every push is shared computes nothing: the pass skips it.
    if (std::popcount(static_cast<unsigned>(alias_args[i])) != static_cast<int>(rule.size())) {
      rev_nodes.push_back(*it);
      bool factored = false;
      for (const Push& p : rule) {
        const sem::Factor f = sem::term_facts(p.rule, t.op).factor;
        factored = factored || f == sem::Factor::Slope || f == sem::Factor::Weight;
      }
      rev_factored.push_back(factored);
      if (factored) gather_width = std::max(gather_width, sem::factor_width(t.op, static_cast<std::size_t>(t.count)));
      for (std::size_t q = 0; q < rule.size(); ++q)
        this->pushes.push_back(
            {rule[q].k, static_cast<std::uint32_t>(rule[q].j), static_cast<std::uint8_t>(rule[q].rule), firsts[q]});
      push_end.push_back(static_cast<std::uint32_t>(this->pushes.size()));
    }
  }
  leaf_reached.assign(m.leaves.size(), 0);
  for (std::size_t k = 0; k < m.leaves.size(); ++k) leaf_reached[k] = touched[static_cast<std::size_t>(m.leaves[k].node)];
}

// sem::value per lane (the relaxed gathers: surrogate weights through the
// policy's function pointers, nothing to vectorise): the checked kernel (here
// relaxed weights that all underflow) flags the lane, whose case the
// per-case code then reports; a failing lane's value is NaN.
TC_OUT_OF_LINE void BatchGradientTape::State::gather_forward(const Impl& m, std::size_t i, const double* const* P,
                                                             const double* uval, std::size_t lanes, double* r,
                                                             double* flag) {
  const Impl::TNode& n = m.nodes[i];
  std::vector<Opnd> ops(static_cast<std::size_t>(n.count));
  for (int k = 0; k < n.count; ++k) {
    const auto a = static_cast<std::size_t>(m.arg(n, k));
    ops[static_cast<std::size_t>(k)] = Opnd{P[a], uval[a]};
  }
  const Node& node = m.program.nodes[i];
  const bool hard = n.sem != Semantics::Relaxed;
  for (std::size_t l = 0; l < lanes; ++l) {
    double v = kNaN;
    const bool bad = static_cast<bool>(sem::value(n.op, hard, LaneNode{{n, node, m.f32}, ops.data(), l}, v));
    r[l] = bad ? kNaN : v;
    flag[l] += bad ? kNaN : 0.0;
  }
}

// op_derivatives.h's node factors, lane by lane (unvectorised: the
// surrogate is called through function pointers): d (a relaxed
// comparison's slope, or a relaxed or hybrid gather's slope in its index)
// into dx, a relaxed gather's normalised weights into W[k * B + lane].
TC_OUT_OF_LINE void BatchGradientTape::State::node_factors(const Impl& m, const State& st, std::size_t i,
                                                           const double* K, const double* uval, std::size_t lanes,
                                                           double* W, double* dx) {
  const Impl::TNode& n = m.nodes[i];
  for (std::size_t l = 0; l < lanes; ++l)
    dx[l] = sem::node_factors(n.op, n.sem, LaneFactors<Impl, State, Impl::TNode>{m, st, n, K, uval, l},
                              [&](std::size_t k) -> double& { return W[k * B + l]; });
}

// Compiled three times, for x86-64, AVX2 and AVX-512F (picked at load time):
// the lane loops vectorise 2, 4 or 8 wide; no FMA (the build keeps
// -ffp-contract=off), so every lane's bits are the same on each.
TC_BATCH_CLONES void BatchGradientTape::State::fast_forward(Impl& m, const State& st, double* T, double* K,
                                                            const double** P, const double* uval, std::size_t start,
                                                            std::size_t lanes,
                                                            std::span<const std::span<const double>> columns,
                                                            bool fixed_ok, double* flag) {
  const bool f32 = m.f32;
  for (std::size_t l = 0; l < lanes; ++l) flag[l] = fixed_ok && !st.constant_bad ? 0.0 : kNaN;
  // Where each node's values go: the record, a column of T, or nowhere.
  auto dest = [&](std::size_t i) -> double* {
    if (st.slot_of[i] >= 0) return K + static_cast<std::size_t>(st.slot_of[i]) * B;
    if (st.col_of[i] >= 0) return T + static_cast<std::size_t>(st.col_of[i]) * B;
    return nullptr;
  };
  // Inputs: load_input's checks and rounding.
  for (std::size_t k = 0; k < st.input_ids.size(); ++k) {
    const auto i = static_cast<std::size_t>(st.input_ids[k]);
    const Domain& d = *m.program.nodes[i].domain;
    const bool round = f32 || d.type == DomainType::Float32;
    double* out = dest(i);
    P[i] = out;
    const std::span<const double> src = columns[k];
    for (std::size_t l = 0; l < lanes; ++l) {
      const double x = src.size() == 1 ? src[0] : src[start + l];
      bool bad = !std::isfinite(x) || (d.is_integral() && x != std::floor(x)) || x < d.lo() || x > d.hi();
      const double r = round ? round_f32(x) : x;
      bad = bad || !std::isfinite(r);
      out[l] = r;
      if (bad) flag[l] = kNaN;
    }
  }

  for (NodeId id : m.order) {
    const auto i = static_cast<std::size_t>(id);
    const Impl::TNode& n = m.nodes[i];
    if (n.op == Op::Input) continue;
    if (st.uniform[i]) {
      P[i] = nullptr;  // uval[i]; constants were checked once (constant_bad)
      continue;
    }
    double* r = dest(i);
    P[i] = r;
    if (!r) continue;  // a fused mul: its reader computes it
    const bool hard = n.sem != Semantics::Relaxed;
    const int mode = f32 ? 2 : st.finite_check[i] ? 1 : 0;
    auto op = [&](int k) {
      const auto a = static_cast<std::size_t>(m.arg(n, k));
      return Opnd{P[a], uval[a]};
    };
    // The rounding and test that fill() folds into its loop, for the ops
    // that write r first (affine, the gathers).
    auto round_and_test = [&] {
      if (mode == 2)
        for (std::size_t l = 0; l < lanes; ++l) {
          const double v = round_f32(r[l]);
          flag[l] += (r[l] - r[l]) + (v - v);
          r[l] = v;
        }
      else if (mode == 1)
        for (std::size_t l = 0; l < lanes; ++l) flag[l] += r[l] - r[l];
    };
    // op_semantics.h's kernels, one lane at a time (the loops vectorise).
    switch (n.op) {
      case Op::Input: case Op::Parameter: case Op::State: case Op::Constant:
        continue;
      case Op::Add: case Op::Sub: {
        const NodeId fm = st.fused_mul[i];
        if (fm < 0) {
          with(op(0), [&](auto x) {
            with(op(1), [&](auto y) {
              if (n.op == Op::Add) fill(mode, r, flag, lanes, [&](std::size_t l) { return sem::add<D>(x[l], y[l]); });
              else fill(mode, r, flag, lanes, [&](std::size_t l) { return sem::sub<D>(x[l], y[l]); });
            });
          });
          break;
        }
        // s + a*b in one loop, the product rounded as the mul's own node.
        const Impl::TNode& mt = m.nodes[static_cast<std::size_t>(fm)];
        const int side = m.arg(n, 0) == fm ? 0 : 1;  // which argument is the product
        const auto sa = static_cast<std::size_t>(m.arg(n, 1 - side));
        const auto a0 = static_cast<std::size_t>(m.arg(mt, 0)), a1 = static_cast<std::size_t>(m.arg(mt, 1));
        with(Opnd{P[sa], uval[sa]}, [&](auto s) {
          with(Opnd{P[a0], uval[a0]}, [&](auto x) {
            with(Opnd{P[a1], uval[a1]}, [&](auto y) {
              auto p = [&](std::size_t l) { return sem::mul<D>(x[l], y[l]); };
              if (n.op == Op::Add && side == 1)
                fill(mode, r, flag, lanes, [&](std::size_t l) { return sem::add<D>(s[l], p(l)); });
              else if (n.op == Op::Add)
                fill(mode, r, flag, lanes, [&](std::size_t l) { return sem::add<D>(p(l), s[l]); });
              else if (side == 1)
                fill(mode, r, flag, lanes, [&](std::size_t l) { return sem::sub<D>(s[l], p(l)); });
              else
                fill(mode, r, flag, lanes, [&](std::size_t l) { return sem::sub<D>(p(l), s[l]); });
            });
          });
        });
        break;
      }
      case Op::Mul:
        with(op(0), [&](auto x) {
          with(op(1), [&](auto y) { fill(mode, r, flag, lanes, [&](std::size_t l) { return sem::mul<D>(x[l], y[l]); }); });
        });
        break;
      case Op::Div: case Op::FloorDiv: case Op::Mod:
        with(op(0), [&](auto x) {
          with(op(1), [&](auto y) {
            if (n.op == Op::Div) fill(mode, r, flag, lanes, [&](std::size_t l) { return sem::div<D>(x[l], y[l]); });
            else if (n.op == Op::FloorDiv)
              fill(mode, r, flag, lanes, [&](std::size_t l) { return sem::floordiv(x[l], y[l]); });
            else fill(mode, r, flag, lanes, [&](std::size_t l) { return sem::mod(x[l], y[l]); });
            for (std::size_t l = 0; l < lanes; ++l) flag[l] += sem::zero_divisor<D>(y[l]) ? kNaN : 0.0;
          });
        });
        break;
      case Op::Lt: case Op::Le: case Op::Gt: case Op::Ge: case Op::Eq: case Op::Ne: {
        const double t = n.temperature;
        with(op(0), [&](auto x) {
          with(op(1), [&](auto y) {
            if (!hard) {
              const SurrogatePolicy& s = *n.policy;
              fill(mode, r, flag, lanes, [&](std::size_t l) { return sem::compare_relaxed(n.op, x[l], y[l], t, s); });
              return;
            }
            switch (n.op) {
              case Op::Lt: fill(mode, r, flag, lanes, [&](std::size_t l) { return sem::compare<Op::Lt, D>(x[l], y[l]); }); break;
              case Op::Le: fill(mode, r, flag, lanes, [&](std::size_t l) { return sem::compare<Op::Le, D>(x[l], y[l]); }); break;
              case Op::Gt: fill(mode, r, flag, lanes, [&](std::size_t l) { return sem::compare<Op::Gt, D>(x[l], y[l]); }); break;
              case Op::Ge: fill(mode, r, flag, lanes, [&](std::size_t l) { return sem::compare<Op::Ge, D>(x[l], y[l]); }); break;
              case Op::Eq: fill(mode, r, flag, lanes, [&](std::size_t l) { return sem::compare<Op::Eq, D>(x[l], y[l]); }); break;
              default: fill(mode, r, flag, lanes, [&](std::size_t l) { return sem::compare<Op::Ne, D>(x[l], y[l]); }); break;
            }
          });
        });
        break;
      }
      case Op::Select:
        // Every operand read for every lane: a blend, not a branch per lane.
        with(op(0), [&](auto c) {
          with(op(1), [&](auto y) {
            with(op(2), [&](auto z) {
              if (hard) fill(mode, r, flag, lanes, [&](std::size_t l) { return sem::select_exact<D>(c[l], y[l], z[l]); });
              else fill(mode, r, flag, lanes, [&](std::size_t l) { return sem::select_relaxed<D>(c[l], y[l], z[l]); });
            });
          });
        });
        break;
      case Op::Affine: case Op::SparseAffine: {
        // sem's accumulation order, term by term over the block.
        const LinearTerms& lin = m.program.nodes[i].linear();
        auto round = [&](double v) { return sem::round_to(v, f32); };
        for (std::size_t j = 0; j < lin.coefficients.size(); ++j) {
          const int k = n.op == Op::Affine ? static_cast<int>(j) : lin.indices[j];
          const double coef = round(lin.coefficients[j]);
          with(op(k), [&](auto x) {
            if (j == 0) for (std::size_t l = 0; l < lanes; ++l) r[l] = sem::affine_first<D>(coef, x[l], round);
            else for (std::size_t l = 0; l < lanes; ++l) r[l] = sem::affine_next<D>(r[l], coef, x[l], round);
          });
        }
        if (lin.bias) {
          const double bias = round(*lin.bias);
          for (std::size_t l = 0; l < lanes; ++l) r[l] = sem::affine_bias<D>(r[l], bias, round);
        }
        round_and_test();
        break;
      }
      case Op::Gather: case Op::GatherOneHot: {
        if (!hard) {
          gather_forward(m, i, P, uval, lanes, r, flag);
        } else if (n.op == Op::Gather) {
          // Exact: op_semantics.h's index check per lane, and the value at
          // the index as a blend over the positions (a checked index
          // matches exactly one; a failing lane is flagged and stays NaN).
          const auto values = static_cast<std::size_t>(n.count - 1);
          for (std::size_t l = 0; l < lanes; ++l) r[l] = kNaN;
          with(op(0), [&](auto c) {
            for (std::size_t l = 0; l < lanes; ++l) flag[l] += sem::index_ok(c[l], values) ? 0.0 : kNaN;
            for (std::size_t k = 0; k < values; ++k) {
              const auto pos = static_cast<double>(k);
              with(op(1 + static_cast<int>(k)), [&](auto x) {
                for (std::size_t l = 0; l < lanes; ++l) r[l] = blend(c[l] == pos, x[l], r[l]);
              });
            }
          });
        } else {
          // Exact gather_one_hot: each selector is 0 or 1 and exactly one is
          // 1 (sem::one_hot_exact's checks, per lane); its value is taken.
          const int half = n.count / 2;
          alignas(64) std::size_t ones[B];
          for (std::size_t l = 0; l < lanes; ++l) {
            r[l] = kNaN;
            ones[l] = 0;
          }
          for (int k = 0; k < half; ++k)
            with(op(k), [&](auto sel) {
              with(op(half + k), [&](auto x) {
                for (std::size_t l = 0; l < lanes; ++l) {
                  flag[l] += sem::selector_ok(sel[l]) ? 0.0 : kNaN;
                  const bool one = sel[l] == 1.0;
                  ones[l] += one;
                  r[l] = blend(one, x[l], r[l]);
                }
              });
            });
          for (std::size_t l = 0; l < lanes; ++l) flag[l] += sem::one_hot_count(ones[l]) ? kNaN : 0.0;
        }
        round_and_test();
        break;
      }
      case Op::Call:
        for (std::size_t l = 0; l < lanes; ++l) flag[l] = kNaN;  // not eligible: never reached
        continue;
      default:
        // op_semantics.h's one-argument kernels (neg, relu, sigmoid,
        // square, and any added there); Widened ones compute in binary64,
        // which D is. has_block_kernel() admits no other op.
        if (!sem::unary(n.op, [&](auto kernel) {
              using Kernel = decltype(kernel);
              with(op(0), [&](auto x) {
                fill(mode, r, flag, lanes, [&](std::size_t l) { return Kernel::template f<D>(x[l]); });
              });
            }))
          for (std::size_t l = 0; l < lanes; ++l) flag[l] = kNaN;  // not eligible: never reached
        break;
    }
    if (n.checked_domain && hard) {
      // Domain::check for a finite value (non-finite ones are flagged above).
      const Domain& d = *m.program.nodes[i].domain;
      // A hard comparison is 0 or 1: nothing to check when both pass.
      const bool comparison = n.op == Op::Lt || n.op == Op::Le || n.op == Op::Gt || n.op == Op::Ge ||
                              n.op == Op::Eq || n.op == Op::Ne;
      if (comparison && !d.check(0.0) && !d.check(1.0)) continue;
      const double lo = d.lo(), hi = d.hi();
      if (d.is_integral()) {
        for (std::size_t l = 0; l < lanes; ++l) {
          const bool bad = (r[l] != std::floor(r[l])) | (r[l] < lo) | (r[l] > hi);
          flag[l] += bad ? kNaN : 0.0;
        }
      } else if (lo > -HUGE_VAL || hi < HUGE_VAL) {
        for (std::size_t l = 0; l < lanes; ++l) {
          const bool bad = (r[l] < lo) | (r[l] > hi);
          flag[l] += bad ? kNaN : 0.0;
        }
      }
    }
  }
}

TC_BATCH_CLONES void BatchGradientTape::State::fast_reverse(Impl& m, const State& st, const double* K,
                                                            const double* uval, std::size_t start, std::size_t lanes,
                                                            std::span<const std::span<const double>> seeds,
                                                            Scratch& sc) {
  double* A = sc.A.data();
  std::uint8_t* R = sc.R.data();
  double* G = sc.G.data();
  // A node's adjoint (and reached lanes, where it keeps them) is set by the
  // first push to it (all pushes come from later nodes, processed first):
  // nothing is zeroed per block. Which push is first is the plan's
  // (st.pushes, in the order the rules run).
  const PlannedPush* planned = st.pushes.data();
  auto val = [&](NodeId id) {
    const auto i = static_cast<std::size_t>(id);
    return st.uniform[i] ? Opnd{nullptr, uval[i]} : Opnd{K + static_cast<std::size_t>(st.slot_of[i]) * B, 0.0};
  };
  // push(): adj += contribution from 0, as in the per-case pass, in the
  // lanes of `mask` (nullptr: every lane). A node every lane reaches keeps
  // no mask; the others record the lanes that reached them.
  auto push_to = [&](NodeId to, bool first, const std::uint8_t* mask, auto&& contribution) {
    const auto t = static_cast<std::size_t>(to);
    double* __restrict adj = A + static_cast<std::size_t>(st.acol[t]) * B;
    std::uint8_t* __restrict hit = st.full[t] ? nullptr : R + static_cast<std::size_t>(st.acol[t]) * B;
    if (!mask) {  // then t is full: hit is nullptr
      if (first) for (std::size_t l = 0; l < lanes; ++l) adj[l] = 0.0 + contribution(l);
      else for (std::size_t l = 0; l < lanes; ++l) adj[l] = adj[l] + contribution(l);
      return;
    }
    // Every lane computes its sum and blend() keeps it or not.
    if (first) {
      for (std::size_t l = 0; l < lanes; ++l) adj[l] = blend(mask[l] != 0, 0.0 + contribution(l), 0.0);
      if (hit) std::memcpy(hit, mask, lanes);
      return;
    }
    for (std::size_t l = 0; l < lanes; ++l) {
      const double a = adj[l];
      adj[l] = blend(mask[l] != 0, a + contribution(l), a);
    }
    if (hit)
      for (std::size_t l = 0; l < lanes; ++l) hit[l] = hit[l] | mask[l];
  };
  for (std::size_t o = 0; o < m.out_ids.size(); ++o) {
    const NodeId out = m.out_ids[o];
    if (!m.nodes[static_cast<std::size_t>(out)].carries) continue;
    const std::span<const double> s = seeds[o];
    const bool first = st.seed_first[o] != 0;
    if (s.size() == 1) push_to(out, first, nullptr, [&](std::size_t) { return s[0]; });
    else push_to(out, first, nullptr, [&](std::size_t l) { return s[start + l]; });
  }
  alignas(64) std::uint8_t pick[B];
  alignas(64) double dx[B];
  double* W = sc.W.data();
  for (std::size_t rn = 0; rn < st.rev_nodes.size(); ++rn) {
    const NodeId id = st.rev_nodes[rn];
    const auto i = static_cast<std::size_t>(id);
    const Impl::TNode& n = m.nodes[i];
    const double* g = A + static_cast<std::size_t>(st.acol[i]) * B;
    const std::uint8_t* rr = st.full[i] ? nullptr : R + static_cast<std::size_t>(st.acol[i]) * B;
    auto v = [&](int k) { return val(m.arg(n, k)); };
    if (st.rev_factored[rn]) node_factors(m, st, i, K, uval, lanes, W, dx);
    // One planned push: op_derivatives.h's term over the block's lanes,
    // its reads and factor as columns or uniform values (each term's loop
    // compiled once per combination it meets).
    auto run_push = [&](int k, sem::TermKind kind, std::size_t j, bool first) {
      if (kind == sem::TermKind::G && (st.alias_args[i] >> k & 1)) return;  // its column is g already
      const NodeId to = m.arg(n, k);
      sem::with_term(kind, n.op, [&](auto term) {
        using Tm = decltype(term);
        auto run = [&](auto a, auto b, auto f) {
          if constexpr (Tm::pick) {
            // & rather than &&: no branch per lane.
            const double jv = static_cast<double>(j);
            if (rr) for (std::size_t l = 0; l < lanes; ++l) pick[l] = rr[l] & static_cast<std::uint8_t>(Tm::template mask<BL>(a[l], jv));
            else for (std::size_t l = 0; l < lanes; ++l) pick[l] = static_cast<std::uint8_t>(Tm::template mask<BL>(a[l], jv));
            push_to(to, first, pick, [&](std::size_t l) { return Tm::template value<BL>(g[l], a[l], b[l], f[l]); });
          } else {
            push_to(to, first, rr, [&](std::size_t l) { return Tm::template value<BL>(g[l], a[l], b[l], f[l]); });
          }
        };
        // The factor, then the values read (none, one or two).
        auto with_factor = [&](auto&& next) {
          if constexpr (Tm::factor == sem::Factor::None) next(UniOf{0.0});
          else if constexpr (Tm::factor == sem::Factor::Coef) next(UniOf{m.program.nodes[i].linear().coefficients[j]});
          else if constexpr (Tm::factor == sem::Factor::Slope) next(ColOf{dx});
          else next(ColOf{W + j * B});
        };
        with_factor([&](auto f) {
          if constexpr (Tm::reads.count == 0) {
            run(UniOf{0.0}, UniOf{0.0}, f);
          } else if constexpr (Tm::reads.count == 1) {
            with(v(Tm::reads.at(0, j)), [&](auto a) { run(a, UniOf{0.0}, f); });
          } else {
            with(v(Tm::reads.at(0, j)), [&](auto a) { with(v(Tm::reads.at(1, j)), [&](auto b) { run(a, b, f); }); });
          }
        });
      });
    };
    for (const PlannedPush* end = st.pushes.data() + st.push_end[rn]; planned != end; ++planned)
      run_push(planned->k, static_cast<sem::TermKind>(planned->rule), planned->j, planned->first != 0);
  }
  for (std::size_t k = 0; k < m.leaves.size(); ++k) {
    const auto leaf = static_cast<std::size_t>(m.leaves[k].node);
    double* out = G + k * B;
    if (!st.leaf_reached[k]) {
      for (std::size_t l = 0; l < lanes; ++l) out[l] = 0.0;
      continue;
    }
    const double* a = A + static_cast<std::size_t>(st.acol[leaf]) * B;
    if (st.full[leaf]) {
      std::memcpy(out, a, lanes * sizeof(double));
      continue;
    }
    const std::uint8_t* h = R + static_cast<std::size_t>(st.acol[leaf]) * B;
    for (std::size_t l = 0; l < lanes; ++l) out[l] = blend(h[l] != 0, a[l], 0.0);
  }
}

}  // namespace tc
