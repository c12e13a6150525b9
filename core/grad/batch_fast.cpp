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
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "grad/batch_state.h"
#include "grad/surrogate.h"
#include "ir/op_semantics.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define TC_BATCH_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define TC_BATCH_CLONES
#endif

namespace tc {

namespace {

constexpr std::size_t B = 64;  // BatchGradientTape::State::kBlock (checked below)
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
  slot_of.assign(m.nodes.size(), -1);
  uniform_of.assign(m.nodes.size(), -1);
  auto need = [&](NodeId id) {
    const auto i = static_cast<std::size_t>(id);
    const Op op = m.nodes[i].op;
    if (op == Op::Constant || op == Op::Parameter || op == Op::State) {
      if (uniform_of[i] < 0) {
        uniform_of[i] = static_cast<std::int32_t>(uniform_ids.size());
        uniform_ids.push_back(id);
      }
      return;
    }
    auto& s = slot_of[i];
    if (s < 0) s = static_cast<std::int32_t>(nslots++);
  };
  // Exactly the values fast_reverse's rules read (v(k) below).
  for (NodeId id : m.order) {
    const Impl::TNode& n = m.nodes[static_cast<std::size_t>(id)];
    if (!n.carries) continue;
    switch (n.op) {
      case Op::Mul: case Op::Div: case Op::Mod:
        need(m.arg(n, 0));
        need(m.arg(n, 1));
        break;
      case Op::Lt: case Op::Le: case Op::Gt: case Op::Ge: case Op::Eq: case Op::Ne:
        if (n.sem != Semantics::Exact) {
          need(m.arg(n, 0));
          need(m.arg(n, 1));
        }
        break;
      case Op::Select:
        need(m.arg(n, 0));
        if (n.sem != Semantics::Exact) {
          need(m.arg(n, 1));
          need(m.arg(n, 2));
        }
        break;
      case Op::Relu: case Op::Sigmoid: case Op::Square:
        need(m.arg(n, 0));
        break;
      default:
        break;
    }
  }
}

void BatchGradientTape::State::assign_columns(const Impl& m) {
  const std::size_t n = m.nodes.size();
  col_of.assign(n, -1);
  ncols = 0;
  std::vector<std::int32_t> free_cols;
  std::vector<std::uint8_t> pinned(n, 0);
  // Leaves first: the forward writes every input, parameter and state
  // before its first op, so their columns can never be a reused one.
  auto give = [&](std::size_t i) {
    if (col_of[i] >= 0) return;
    if (!free_cols.empty()) {
      col_of[i] = free_cols.back();
      free_cols.pop_back();
    } else {
      col_of[i] = static_cast<std::int32_t>(ncols++);
    }
  };
  for (const auto* names : {&m.inputs, &m.params, &m.states})
    for (const auto& [_, id] : *names) {
      pinned[static_cast<std::size_t>(id)] = 1;
      give(static_cast<std::size_t>(id));
    }
  for (NodeId id : m.out_ids) pinned[static_cast<std::size_t>(id)] = 1;
  for (std::size_t i = 0; i < n; ++i)
    if (slot_of[i] >= 0) pinned[i] = 1;
  // The last position in the order where each value is read.
  std::vector<std::size_t> last(n, 0);
  for (std::size_t p = 0; p < m.order.size(); ++p) {
    const Impl::TNode& t = m.nodes[static_cast<std::size_t>(m.order[p])];
    for (int k = 0; k < t.count; ++k) last[static_cast<std::size_t>(m.arg(t, k))] = p;
  }
  // finite_check: see batch_state.h.
  finite_check.assign(n, 0);
  for (NodeId id : m.out_ids) finite_check[static_cast<std::size_t>(id)] = 1;
  for (NodeId id : m.order) {
    const Impl::TNode& t = m.nodes[static_cast<std::size_t>(id)];
    for (int k = 0; k < t.count; ++k) {
      // ops.def's kKeepsNonFinite: a non-finite argument gives a
      // non-finite result, so the value is tested downstream.
      const bool propagates = op_info(t.op).has(kKeepsNonFinite);
      if (!propagates) finite_check[static_cast<std::size_t>(m.arg(t, k))] = 1;
    }
  }
  for (std::size_t p = 0; p < m.order.size(); ++p) {
    const auto i = static_cast<std::size_t>(m.order[p]);
    // The result's column is taken before the arguments' are given back, so
    // it is never one of its own arguments (the kernels write r while
    // reading them, and the affine accumulates in place).
    give(i);
    const Impl::TNode& t = m.nodes[i];
    for (int k = 0; k < t.count; ++k) {
      const auto a = static_cast<std::size_t>(m.arg(t, k));
      if (!pinned[a] && last[a] == p && col_of[a] >= 0) {
        free_cols.push_back(col_of[a]);
        pinned[a] = 1;  // given back once, even when read twice by this node
      }
    }
    // A value nothing reads keeps its column (one column, not a leak per
    // block).
  }
}

// Compiled three times, for x86-64, AVX2 and AVX-512F (picked at load time):
// the lane loops vectorise 2, 4 or 8 wide; no FMA (the build keeps
// -ffp-contract=off), so every lane's bits are the same on each. AVX-512
// gave the batch_grad_bench forward 226 -> 200 ns/case (thermostat) and
// 540 -> 360 (long_loop) over AVX2 on the development machine.
TC_BATCH_CLONES void BatchGradientTape::State::fast_forward(Impl& m, double* T, const std::int32_t* cols,
                                            const std::uint8_t* finite_check, std::size_t start, std::size_t lanes,
                                            std::span<const std::span<const double>> columns,
                                            const std::vector<NodeId>& input_ids,
                                            const std::vector<std::pair<std::size_t, double>>& fixed, bool fixed_ok,
                                            double* flag) {
  auto col = [&](NodeId id) { return T + static_cast<std::size_t>(cols[static_cast<std::size_t>(id)]) * B; };
  const bool f32 = m.f32;
  for (std::size_t l = 0; l < lanes; ++l) flag[l] = fixed_ok ? 0.0 : kNaN;
  // Inputs: load_input's checks and rounding.
  for (std::size_t k = 0; k < input_ids.size(); ++k) {
    const NodeId id = input_ids[k];
    const Domain& d = *m.program.nodes[static_cast<std::size_t>(id)].domain;
    const bool round = f32 || d.type == DomainType::Float32;
    double* out = col(id);
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
  for (const auto& [id, v] : fixed) {
    double* out = col(static_cast<NodeId>(id));
    for (std::size_t l = 0; l < lanes; ++l) out[l] = v;
  }

  for (NodeId id : m.order) {
    const auto i = static_cast<std::size_t>(id);
    const Impl::TNode& n = m.nodes[i];
    const bool hard = n.sem != Semantics::Relaxed;
    double* __restrict r = col(id);
    auto a = [&](int k) -> const double* { return col(m.arg(n, k)); };
    switch (n.op) {
      case Op::Input: case Op::Parameter: case Op::State:
        continue;
      case Op::Constant: {
        double v = m.program.nodes[i].value;
        const double unrounded = v;
        if (f32) v = round_f32(v);
        bool bad = !std::isfinite(v) || !std::isfinite(unrounded);
        if (n.checked_domain && hard && !bad) bad = m.program.nodes[i].domain->check(v).has_value();
        for (std::size_t l = 0; l < lanes; ++l) {
          r[l] = v;
          if (bad) flag[l] = kNaN;
        }
        continue;  // rounded and checked here
      }
      // op_semantics.h's kernels, one lane at a time (the loops vectorise).
      case Op::Add: { const double *x = a(0), *y = a(1); for (std::size_t l = 0; l < lanes; ++l) r[l] = sem::add<D>(x[l], y[l]); break; }
      case Op::Sub: { const double *x = a(0), *y = a(1); for (std::size_t l = 0; l < lanes; ++l) r[l] = sem::sub<D>(x[l], y[l]); break; }
      case Op::Mul: { const double *x = a(0), *y = a(1); for (std::size_t l = 0; l < lanes; ++l) r[l] = sem::mul<D>(x[l], y[l]); break; }
      case Op::Neg: { const double* x = a(0); for (std::size_t l = 0; l < lanes; ++l) r[l] = sem::neg<D>(x[l]); break; }
      case Op::Div: case Op::FloorDiv: case Op::Mod: {
        const double *x = a(0), *y = a(1);
        for (std::size_t l = 0; l < lanes; ++l) {
          if (sem::zero_divisor<D>(y[l])) flag[l] = kNaN;
          r[l] = n.op == Op::Div ? sem::div<D>(x[l], y[l])
                 : n.op == Op::FloorDiv ? sem::floordiv(x[l], y[l]) : sem::mod(x[l], y[l]);
        }
        break;
      }
      case Op::Lt: case Op::Le: case Op::Gt: case Op::Ge: case Op::Eq: case Op::Ne: {
        const double *x = a(0), *y = a(1), t = n.temperature;
        if (hard) {
          switch (n.op) {
            case Op::Lt: for (std::size_t l = 0; l < lanes; ++l) r[l] = sem::compare<Op::Lt, D>(x[l], y[l]); break;
            case Op::Le: for (std::size_t l = 0; l < lanes; ++l) r[l] = sem::compare<Op::Le, D>(x[l], y[l]); break;
            case Op::Gt: for (std::size_t l = 0; l < lanes; ++l) r[l] = sem::compare<Op::Gt, D>(x[l], y[l]); break;
            case Op::Ge: for (std::size_t l = 0; l < lanes; ++l) r[l] = sem::compare<Op::Ge, D>(x[l], y[l]); break;
            case Op::Eq: for (std::size_t l = 0; l < lanes; ++l) r[l] = sem::compare<Op::Eq, D>(x[l], y[l]); break;
            default: for (std::size_t l = 0; l < lanes; ++l) r[l] = sem::compare<Op::Ne, D>(x[l], y[l]); break;
          }
        } else {
          const SurrogatePolicy& s = *n.policy;
          for (std::size_t l = 0; l < lanes; ++l) r[l] = sem::compare_relaxed(n.op, x[l], y[l], t, s);
        }
        break;
      }
      case Op::Select: {
        const double *c = a(0), *y = a(1), *z = a(2);
        // Both loads unconditional: a blend, not a branch per lane.
        if (hard) for (std::size_t l = 0; l < lanes; ++l) r[l] = sem::select_exact<D>(c[l], y[l], z[l]);
        else for (std::size_t l = 0; l < lanes; ++l) r[l] = sem::select_relaxed<D>(c[l], y[l], z[l]);
        break;
      }
      case Op::Relu: { const double* x = a(0); for (std::size_t l = 0; l < lanes; ++l) r[l] = sem::relu<D>(x[l]); break; }
      case Op::Sigmoid: { const double* x = a(0); for (std::size_t l = 0; l < lanes; ++l) r[l] = sem::sigmoid(x[l]); break; }
      case Op::Square: { const double* x = a(0); for (std::size_t l = 0; l < lanes; ++l) r[l] = sem::square<D>(x[l]); break; }
      case Op::Affine: case Op::SparseAffine: {
        // sem's accumulation order, term by term over the block.
        const LinearTerms& lin = m.program.nodes[i].linear();
        auto round = [&](double v) { return sem::round_to(v, f32); };
        for (std::size_t j = 0; j < lin.coefficients.size(); ++j) {
          const int k = n.op == Op::Affine ? static_cast<int>(j) : lin.indices[j];
          const double coef = round(lin.coefficients[j]);
          const double* x = a(k);
          if (j == 0) for (std::size_t l = 0; l < lanes; ++l) r[l] = sem::affine_first<D>(coef, x[l], round);
          else for (std::size_t l = 0; l < lanes; ++l) r[l] = sem::affine_next<D>(r[l], coef, x[l], round);
        }
        if (lin.bias) {
          const double bias = round(*lin.bias);
          for (std::size_t l = 0; l < lanes; ++l) r[l] = sem::affine_bias<D>(r[l], bias, round);
        }
        break;
      }
      case Op::Gather: case Op::GatherOneHot: case Op::Call:
        for (std::size_t l = 0; l < lanes; ++l) flag[l] = kNaN;  // not eligible: never reached
        continue;
    }
    // Rounding, finiteness and domain, as compute() ends.
    if (f32) {
      for (std::size_t l = 0; l < lanes; ++l) {
        const double v = round_f32(r[l]);
        flag[l] += (r[l] - r[l]) + (v - v);  // NaN when either is not finite
        r[l] = v;
      }
    } else if (finite_check[i]) {
      for (std::size_t l = 0; l < lanes; ++l) flag[l] += r[l] - r[l];
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

TC_BATCH_CLONES void BatchGradientTape::State::fast_reverse(Impl& m, const double* T, const double* U, const State& st,
                                            std::size_t start, std::size_t lanes,
                                            std::span<const std::span<const double>> seeds,
                                            const std::uint8_t* active, double* A, std::uint8_t* R, double* G) {
  // A node's adjoint and reached lanes are set by the first push to it (all
  // pushes come from higher ids, processed first), so nothing is zeroed
  // per block but one flag per node; an untouched node was reached nowhere.
  std::vector<std::uint8_t>& touched = m.reached;  // the tape's per-node flags, unused by the block path
  for (NodeId id : m.order) touched[static_cast<std::size_t>(id)] = 0;
  auto val = [&](NodeId id) {
    const auto i = static_cast<std::size_t>(id);
    return st.uniform_of[i] >= 0 ? U + static_cast<std::size_t>(st.uniform_of[i]) * B
                                 : T + static_cast<std::size_t>(st.slot_of[i]) * B;
  };
  // push(): only carrying nodes take derivatives; only reached lanes of the
  // node being differentiated (and where `where` holds) contribute, exactly
  // as adj += contribution from 0 in the per-case pass.
  auto push = [&](NodeId to, const std::uint8_t* reached, auto&& contribution) {
    const auto t = static_cast<std::size_t>(to);
    if (!m.nodes[t].carries) return;
    double* __restrict adj = A + t * B;
    std::uint8_t* __restrict hit = R + t * B;
    if (!touched[t]) {
      touched[t] = 1;
      // Every lane computes its sum and blend() keeps it or not.
      for (std::size_t l = 0; l < lanes; ++l) {
        const double c = contribution(l);
        adj[l] = blend(reached[l] != 0, 0.0 + c, 0.0);
        hit[l] = reached[l];
      }
      return;
    }
    for (std::size_t l = 0; l < lanes; ++l) {
      const double c = contribution(l);
      const double a = adj[l];
      adj[l] = blend(reached[l] != 0, a + c, a);
      hit[l] = hit[l] | reached[l];
    }
  };
  for (std::size_t o = 0; o < m.out_ids.size(); ++o) {
    const std::span<const double> s = seeds[o];
    push(m.out_ids[o], active, [&](std::size_t l) { return s.size() == 1 ? s[0] : s[start + l]; });
  }
  std::uint8_t pick[B];
  for (auto it = m.order.rbegin(); it != m.order.rend(); ++it) {
    const NodeId id = *it;
    const auto i = static_cast<std::size_t>(id);
    const Impl::TNode& n = m.nodes[i];
    if (!n.carries || !touched[i]) continue;
    const double* g = A + i * B;
    const std::uint8_t* rr = R + i * B;
    auto v = [&](int k) { return val(m.arg(n, k)); };
    switch (n.op) {
      case Op::Input: case Op::Parameter: case Op::Constant: case Op::State: case Op::FloorDiv:
        break;
      case Op::Add:
        push(m.arg(n, 0), rr, [&](std::size_t l) { return g[l]; });
        push(m.arg(n, 1), rr, [&](std::size_t l) { return g[l]; });
        break;
      case Op::Sub:
        push(m.arg(n, 0), rr, [&](std::size_t l) { return g[l]; });
        push(m.arg(n, 1), rr, [&](std::size_t l) { return -g[l]; });
        break;
      case Op::Mul: {
        const double *x = v(0), *y = v(1);
        push(m.arg(n, 0), rr, [&](std::size_t l) { return g[l] * y[l]; });
        push(m.arg(n, 1), rr, [&](std::size_t l) { return g[l] * x[l]; });
        break;
      }
      case Op::Div: {
        const double *x = v(0), *y = v(1);
        push(m.arg(n, 0), rr, [&](std::size_t l) { return g[l] / y[l]; });
        push(m.arg(n, 1), rr, [&](std::size_t l) { return -g[l] * (x[l] / y[l]) / y[l]; });
        break;
      }
      case Op::Neg:
        push(m.arg(n, 0), rr, [&](std::size_t l) { return -g[l]; });
        break;
      case Op::Mod: {
        const double *x = v(0), *y = v(1);
        push(m.arg(n, 0), rr, [&](std::size_t l) { return g[l]; });
        push(m.arg(n, 1), rr, [&](std::size_t l) { return -g[l] * sem::floordiv(x[l], y[l]); });
        break;
      }
      case Op::Lt: case Op::Le: case Op::Gt: case Op::Ge: case Op::Eq: case Op::Ne: {
        if (n.sem == Semantics::Exact) break;
        const double *x = v(0), *y = v(1), t = n.temperature;
        double dx[B];
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
        push(m.arg(n, 0), rr, [&](std::size_t l) { return g[l] * dx[l]; });
        push(m.arg(n, 1), rr, [&](std::size_t l) { return -g[l] * dx[l]; });
        break;
      }
      case Op::Select: {
        const double* c = v(0);
        // The branches' values are kept only where a rule reads them (assign_slots).
        const double* y = n.sem == Semantics::Exact ? nullptr : v(1);
        const double* z = n.sem == Semantics::Exact ? nullptr : v(2);
        if (n.sem == Semantics::Relaxed) {
          push(m.arg(n, 0), rr, [&](std::size_t l) { return g[l] * (y[l] - z[l]); });
          push(m.arg(n, 1), rr, [&](std::size_t l) { return g[l] * c[l]; });
          push(m.arg(n, 2), rr, [&](std::size_t l) { return g[l] * (1.0 - c[l]); });
          break;
        }
        // & rather than &&: no branch per lane.
        for (std::size_t l = 0; l < lanes; ++l) pick[l] = rr[l] & static_cast<std::uint8_t>(c[l] != 0.0);
        push(m.arg(n, 1), pick, [&](std::size_t l) { return g[l]; });
        for (std::size_t l = 0; l < lanes; ++l) pick[l] = rr[l] & static_cast<std::uint8_t>(c[l] == 0.0);
        push(m.arg(n, 2), pick, [&](std::size_t l) { return g[l]; });
        if (n.sem == Semantics::Hybrid && m.nodes[static_cast<std::size_t>(m.arg(n, 0))].carries)
          push(m.arg(n, 0), rr, [&](std::size_t l) { return g[l] * (y[l] - z[l]); });
        break;
      }
      case Op::Relu: {
        const double* x = v(0);
        push(m.arg(n, 0), rr, [&](std::size_t l) { return blend(x[l] > 0.0, g[l], 0.0); });
        break;
      }
      case Op::Sigmoid: {
        const double* x = v(0);
        push(m.arg(n, 0), rr, [&](std::size_t l) { return g[l] * sigmoid_slope(x[l]); });
        break;
      }
      case Op::Square: {
        const double* x = v(0);
        push(m.arg(n, 0), rr, [&](std::size_t l) { return g[l] * sem::Unary<Op::Square>::slope(x[l]); });
        break;
      }
      case Op::Affine: case Op::SparseAffine: {
        const LinearTerms& lin = m.program.nodes[i].linear();
        for (std::size_t j = 0; j < lin.coefficients.size(); ++j) {
          const int k = n.op == Op::Affine ? static_cast<int>(j) : lin.indices[j];
          const double coef = lin.coefficients[j];
          push(m.arg(n, k), rr, [&](std::size_t l) { return g[l] * coef; });
        }
        break;
      }
      case Op::Gather: case Op::GatherOneHot: case Op::Call:
        break;  // not eligible
    }
  }
  for (std::size_t k = 0; k < m.leaves.size(); ++k) {
    const auto leaf = static_cast<std::size_t>(m.leaves[k].node);
    if (!touched[leaf]) {
      for (std::size_t l = 0; l < lanes; ++l) G[k * B + l] = 0.0;
      continue;
    }
    for (std::size_t l = 0; l < lanes; ++l) G[k * B + l] = blend(R[leaf * B + l] != 0, A[leaf * B + l], 0.0);
  }
}

}  // namespace tc
