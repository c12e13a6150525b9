// Block kernels of the batched reverse pass: one op at a time over a block
// of cases, each lane doing exactly the arithmetic of the per-case tape
// (tape_forward.cpp's compute, tape_vjp.cpp's rules) in the same order, so
// its bits are the per-case bits.
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
#include "ir/op_semantics.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
// flatten: the kernels are lambdas, which must be inlined into each clone to
// be compiled for its ISA (a lambda called out of line is x86-64 code).
#define TC_BATCH_CLONES __attribute__((target_clones("avx512f", "avx2", "default"), flatten))
#else
#define TC_BATCH_CLONES
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

/// The contributions the reverse pass pushes, one per (node, argument), in
/// the per-case rule's order (tape_vjp.cpp).
enum class Rule : std::uint8_t {
  G,         ///< g
  NegG,      ///< -g
  TimesArg,  ///< g * the other argument (mul)
  DivNum,    ///< g / b
  DivDen,    ///< -g * (a / b) / b
  ModDen,    ///< -g * floordiv(a, b)
  Slope,     ///< g * dx (a relaxed comparison's slope)
  NegSlope,  ///< -g * dx
  SelDiff,   ///< g * (a - b) (select's condition)
  SelC,      ///< g * c (relaxed select's first branch)
  SelNotC,   ///< g * (1 - c)
  PickYes,   ///< g where the hard condition holds
  PickNo,    ///< g where it does not
  Relu,      ///< g where the argument is > 0, else +0
  UnarySlope,  ///< g * the op's slope at its argument (sem::unary's kernels: sigmoid)
  Coef,      ///< g * coefficient j (affine)
};

/// Calls f(k, rule, j) for each push of node n's derivative rule, in the
/// order the per-case rule pushes, skipping arguments that carry nothing.
/// The reverse pass runs these; its plan (assign_adjoints) is made from
/// the same calls, so the two cannot disagree.
template <class M, class N, class F>
void for_each_push(const M& m, const N& n, NodeId id, F&& f) {
  auto go = [&](int k, Rule r, std::size_t j = 0) {
    if (m.nodes[static_cast<std::size_t>(m.arg(n, k))].carries) f(k, r, j);
  };
  switch (n.op) {
    case Op::Input: case Op::Parameter: case Op::Constant: case Op::State: case Op::FloorDiv:
      return;
    case Op::Add: go(0, Rule::G); go(1, Rule::G); return;
    case Op::Sub: go(0, Rule::G); go(1, Rule::NegG); return;
    case Op::Mul: go(0, Rule::TimesArg); go(1, Rule::TimesArg); return;
    case Op::Div: go(0, Rule::DivNum); go(1, Rule::DivDen); return;
    case Op::Neg: go(0, Rule::NegG); return;
    case Op::Mod: go(0, Rule::G); go(1, Rule::ModDen); return;
    case Op::Lt: case Op::Le: case Op::Gt: case Op::Ge: case Op::Eq: case Op::Ne:
      if (n.sem == Semantics::Exact) return;
      go(0, Rule::Slope);
      go(1, Rule::NegSlope);
      return;
    case Op::Select:
      if (n.sem == Semantics::Relaxed) {
        go(0, Rule::SelDiff);
        go(1, Rule::SelC);
        go(2, Rule::SelNotC);
        return;
      }
      go(1, Rule::PickYes);
      go(2, Rule::PickNo);
      if (n.sem == Semantics::Hybrid) go(0, Rule::SelDiff);
      return;
    case Op::Relu: go(0, Rule::Relu); return;
    case Op::Sigmoid: case Op::Square: go(0, Rule::UnarySlope); return;
    case Op::Affine: case Op::SparseAffine: {
      const LinearTerms& lin = m.program.nodes[static_cast<std::size_t>(id)].linear();
      for (std::size_t j = 0; j < lin.coefficients.size(); ++j)
        go(n.op == Op::Affine ? static_cast<int>(j) : lin.indices[j], Rule::Coef, j);
      return;
    }
    case Op::Gather: case Op::GatherOneHot: case Op::Call:
      return;  // not eligible
  }
}

bool is_uniform_op(Op op) { return op == Op::Constant || op == Op::Parameter || op == Op::State; }

}  // namespace

bool BatchGradientTape::State::fast_eligible(const Impl& m) {
  static_assert(B == kBlock);
  if (!m.options.check_input_domains) return false;
  for (NodeId id : m.order) {
    switch (m.nodes[static_cast<std::size_t>(id)].op) {
      case Op::Gather: case Op::GatherOneHot: case Op::Call: return false;
      default: break;
    }
  }
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
  // Exactly the values fast_reverse's rules read (val() there).
  for (NodeId id : m.order) {
    const Impl::TNode& t = m.nodes[static_cast<std::size_t>(id)];
    if (!t.carries) continue;
    switch (t.op) {
      case Op::Mul: case Op::Div: case Op::Mod:
        need(m.arg(t, 0));
        need(m.arg(t, 1));
        break;
      case Op::Lt: case Op::Le: case Op::Gt: case Op::Ge: case Op::Eq: case Op::Ne:
        if (t.sem != Semantics::Exact) {
          need(m.arg(t, 0));
          need(m.arg(t, 1));
        }
        break;
      case Op::Select:
        need(m.arg(t, 0));
        if (t.sem != Semantics::Exact) {
          need(m.arg(t, 1));
          need(m.arg(t, 2));
        }
        break;
      case Op::Relu: case Op::Sigmoid: case Op::Square:
        need(m.arg(t, 0));
        break;
      default:
        break;
    }
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
  push_first.clear();
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
      for_each_push(m, t, id, [&](int k, Rule, std::size_t) { ++pushes[static_cast<std::size_t>(m.arg(t, k))]; });
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
    Rule rule;
  };
  std::vector<Push> rule;
  std::vector<std::uint8_t> firsts;
  for (auto it = m.order.rbegin(); it != m.order.rend(); ++it) {
    const auto i = static_cast<std::size_t>(*it);
    const Impl::TNode& t = m.nodes[i];
    if (!t.carries || !touched[i]) continue;
    rule.clear();
    firsts.clear();
    for_each_push(m, t, *it, [&](int k, Rule r, std::size_t) { rule.push_back({k, r}); });
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
      return (t.op == Op::Add || t.op == Op::Sub) && p.rule == Rule::G && full[i] && !touched[a] && uses == 1;
    };
    bool shared = false;
    for (const Push& p : rule)
      if (may_alias(p) && pushes[static_cast<std::size_t>(m.arg(t, p.k))] == 1) shared = true;
    bool kept = leaf[i] != 0;  // a leaf's column is its gradient: kept to the end
    for (const Push& p : rule) {
      const auto a = static_cast<std::size_t>(m.arg(t, p.k));
      const bool masked = p.rule == Rule::PickYes || p.rule == Rule::PickNo || !full[i];
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
      push_first.insert(push_first.end(), firsts.begin(), firsts.end());
    }
  }
  leaf_reached.assign(m.leaves.size(), 0);
  for (std::size_t k = 0; k < m.leaves.size(); ++k) leaf_reached[k] = touched[static_cast<std::size_t>(m.leaves[k].node)];
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
      case Op::Neg:
        with(op(0), [&](auto x) { fill(mode, r, flag, lanes, [&](std::size_t l) { return sem::neg<D>(x[l]); }); });
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
      case Op::Relu:
        with(op(0), [&](auto x) { fill(mode, r, flag, lanes, [&](std::size_t l) { return sem::relu<D>(x[l]); }); });
        break;
      case Op::Sigmoid:
        with(op(0), [&](auto x) { fill(mode, r, flag, lanes, [&](std::size_t l) { return sem::sigmoid(x[l]); }); });
        break;
      case Op::Square:
        with(op(0), [&](auto x) { fill(mode, r, flag, lanes, [&](std::size_t l) { return sem::square<D>(x[l]); }); });
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
        // The rounding and test the other ops fold into their loops.
        if (mode == 2)
          for (std::size_t l = 0; l < lanes; ++l) {
            const double v = round_f32(r[l]);
            flag[l] += (r[l] - r[l]) + (v - v);
            r[l] = v;
          }
        else if (mode == 1)
          for (std::size_t l = 0; l < lanes; ++l) flag[l] += r[l] - r[l];
        break;
      }
      case Op::Gather: case Op::GatherOneHot: case Op::Call:
        for (std::size_t l = 0; l < lanes; ++l) flag[l] = kNaN;  // not eligible: never reached
        continue;
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
  // (push_first, one per push in the order the rules run).
  const std::uint8_t* first_of = st.push_first.data();
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
  for (NodeId id : st.rev_nodes) {
    const auto i = static_cast<std::size_t>(id);
    const Impl::TNode& n = m.nodes[i];
    const double* g = A + static_cast<std::size_t>(st.acol[i]) * B;
    const std::uint8_t* rr = st.full[i] ? nullptr : R + static_cast<std::size_t>(st.acol[i]) * B;
    auto v = [&](int k) { return val(m.arg(n, k)); };
    if ((n.op == Op::Lt || n.op == Op::Le || n.op == Op::Gt || n.op == Op::Ge || n.op == Op::Eq || n.op == Op::Ne) &&
        n.sem != Semantics::Exact) {
      const double t = n.temperature;
      with(v(0), [&](auto x) {
        with(v(1), [&](auto y) {
          for (std::size_t l = 0; l < lanes; ++l) {
            double d = 0.0;
            switch (n.op) {
              case Op::Gt: case Op::Ge: d = n.policy->step_slope((x[l] - y[l]) / t) / t; break;
              case Op::Lt: case Op::Le: d = -n.policy->step_slope((y[l] - x[l]) / t) / t; break;
              default: {
                const double z = (x[l] - y[l]) / t;
                d = n.policy->equal(x[l], y[l], t) * n.policy->log_bump_slope(z) / t;
                if (n.op == Op::Ne) d = -d;
                break;
              }
            }
            dx[l] = d;
          }
        });
      });
    }
    for_each_push(m, n, id, [&](int k, Rule rule, std::size_t j) {
      const NodeId to = m.arg(n, k);
      const bool first = *first_of++ != 0;
      // (push below is this push's: it reads `first` and `to`.)
      auto push = [&](NodeId t, const std::uint8_t* mask, auto&& contribution) { push_to(t, first, mask, contribution); };
      switch (rule) {
        case Rule::G:
          if (st.alias_args[i] >> k & 1) return;  // its column is g already
          push(to, rr, [&](std::size_t l) { return g[l]; });
          return;
        case Rule::NegG: push(to, rr, [&](std::size_t l) { return -g[l]; }); return;
        case Rule::TimesArg:
          with(v(1 - k), [&](auto y) { push(to, rr, [&](std::size_t l) { return g[l] * y[l]; }); });
          return;
        case Rule::DivNum:
          with(v(1), [&](auto y) { push(to, rr, [&](std::size_t l) { return g[l] / y[l]; }); });
          return;
        case Rule::DivDen:
          with(v(0), [&](auto x) {
            with(v(1), [&](auto y) { push(to, rr, [&](std::size_t l) { return -g[l] * (x[l] / y[l]) / y[l]; }); });
          });
          return;
        case Rule::ModDen:
          with(v(0), [&](auto x) {
            with(v(1), [&](auto y) { push(to, rr, [&](std::size_t l) { return -g[l] * sem::floordiv(x[l], y[l]); }); });
          });
          return;
        case Rule::Slope: push(to, rr, [&](std::size_t l) { return g[l] * dx[l]; }); return;
        case Rule::NegSlope: push(to, rr, [&](std::size_t l) { return -g[l] * dx[l]; }); return;
        case Rule::SelDiff:
          with(v(1), [&](auto y) {
            with(v(2), [&](auto z) { push(to, rr, [&](std::size_t l) { return g[l] * (y[l] - z[l]); }); });
          });
          return;
        case Rule::SelC:
          with(v(0), [&](auto c) { push(to, rr, [&](std::size_t l) { return g[l] * c[l]; }); });
          return;
        case Rule::SelNotC:
          with(v(0), [&](auto c) { push(to, rr, [&](std::size_t l) { return g[l] * (1.0 - c[l]); }); });
          return;
        case Rule::PickYes: case Rule::PickNo: {
          const bool yes = rule == Rule::PickYes;
          // & rather than &&: no branch per lane.
          with(v(0), [&](auto c) {
            if (rr) for (std::size_t l = 0; l < lanes; ++l) pick[l] = rr[l] & static_cast<std::uint8_t>((c[l] != 0.0) == yes);
            else for (std::size_t l = 0; l < lanes; ++l) pick[l] = static_cast<std::uint8_t>((c[l] != 0.0) == yes);
          });
          push(to, pick, [&](std::size_t l) { return g[l]; });
          return;
        }
        case Rule::Relu:
          with(v(0), [&](auto x) { push(to, rr, [&](std::size_t l) { return blend(x[l] > 0.0, g[l], 0.0); }); });
          return;
        case Rule::UnarySlope:  // op_semantics.h's one-argument kernel's slope
          sem::unary(n.op, [&](auto kernel) {
            using Kernel = decltype(kernel);
            with(v(0), [&](auto x) { push(to, rr, [&](std::size_t l) { return g[l] * Kernel::slope(x[l]); }); });
          });
          return;
        case Rule::Coef: {
          const double coef = m.program.nodes[i].linear().coefficients[j];
          push(to, rr, [&](std::size_t l) { return g[l] * coef; });
          return;
        }
      }
    });
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
