// The batched tape's compiled plan (batch_state.h): the block forward and
// the block reverse pass written as C, one statement per node and per
// push over a few vectors of lanes (the whole circuit in registers where
// it fits, not a column per node), compiled by the evaluator's plan
// machinery (eval/compiled_plan.h: the same cache and trust checks, the
// same ISA, the same background compile).
//
// Nothing here spells an op or a derivative: each node's value is
// op_semantics.h's kernel and each push op_derivatives.h's term,
// instantiated over codegen::CLanes (codegen/c_lanes.h), whose values are C
// text. What the plan adds is the wiring the block kernels (batch_fast.cpp)
// have: the record's slots (assign_slots), the flag of every lane where
// anything at all went wrong (any non-finite value or failed check, as
// fast_forward flags it), the first push to each adjoint and the lanes
// that reach a node (a blend where a pick or an unreached lane says so,
// as fast_reverse). A flagged lane goes to the per-case code exactly as
// from the block kernels, so the bits are the per-case tape's.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "codegen/c_lanes.h"
#include "eval/plan_target.h"
#include "grad/batch_state.h"

namespace tc {

namespace {

using codegen::CLanes;
constexpr std::size_t B = 256;  // BatchGradientTape::State::kBlock (batch_fast.cpp checks it)

/// The ops the plan writes: a kernel over any lane type in op_semantics.h
/// (arithmetic, exact comparisons, select, the native one-argument kernels,
/// affine), or, for the binary64-only kernels (floordiv, mod, sigmoid) and
/// the relaxed comparisons (a surrogate through the policy's function
/// pointers), a call of the host's own kernel lane by lane (host_kernel
/// below), so those bits are the host's by construction. Gathers, host
/// calls and raise keep the block kernels.
bool compiled_op(Op op) {
  switch (op) {
    case Op::Input: case Op::Parameter: case Op::Constant: case Op::State: case Op::Add: case Op::Sub:
    case Op::Mul: case Op::Div: case Op::Neg: case Op::Relu: case Op::Square: case Op::Lt: case Op::Le:
    case Op::Gt: case Op::Ge: case Op::Eq: case Op::Ne: case Op::Select: case Op::Affine: case Op::SparseAffine:
    case Op::FloorDiv: case Op::Mod: case Op::Sigmoid: case Op::Sqrt: case Op::Exp: case Op::Expm1: case Op::Log:
    case Op::Log2: case Op::Log10: case Op::Log1p: case Op::Sin: case Op::Cos: case Op::Tan: case Op::Atan: case Op::Tanh:
      return true;
    default:
      return false;
  }
}

bool comparison_op(Op op) {
  return op == Op::Lt || op == Op::Le || op == Op::Gt || op == Op::Ge || op == Op::Eq || op == Op::Ne;
}

/// A number as an exact C literal (infinities by name).
std::string c_num(double x) {
  if (std::isinf(x)) return x > 0 ? "HUGE_VAL" : "(-HUGE_VAL)";
  if (std::isnan(x)) return "NAN";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%a", x);
  return buf;
}

std::string idx(std::size_t i) { return std::to_string(i); }

/// What the compiled code asks the host for (tc_call's `what`).
enum HostCall : long { kFloorDiv = 0, kMod = 1, kUnary = 2, kSlope = 3, kRelaxedCompare = 4, kCompareSlope = 5 };

}  // namespace

/// The host's kernels, one lane at a time, for the compiled code: the same
/// functions the block kernels call (op_semantics.h, op_derivatives.h's
/// compare_slope through the node's surrogate). `arg`: an op (kUnary,
/// kSlope) or a node (the comparisons).
double BatchGradientTape::State::host_kernel(const void* ctx, long what, long arg, double x, double y) {
  const Impl& m = *static_cast<const Impl*>(ctx);
  double r = tape_detail::kNaN;
  switch (what) {
    case kFloorDiv: return sem::floordiv(x, y);
    case kMod: return sem::mod(x, y);
    case kUnary:
      sem::unary(static_cast<Op>(arg), [&](auto k) { r = decltype(k)::template f<sem::Lanes<double>>(x); });
      return r;
    case kSlope:
      sem::unary(static_cast<Op>(arg), [&](auto k) { r = decltype(k)::slope(x); });
      return r;
    case kRelaxedCompare: {
      const Impl::TNode& n = m.nodes[static_cast<std::size_t>(arg)];
      return sem::compare_relaxed(n.op, x, y, n.temperature, *n.policy);
    }
    case kCompareSlope: {
      const Impl::TNode& n = m.nodes[static_cast<std::size_t>(arg)];
      return sem::compare_slope(n.op, x, y, n.temperature, *n.policy);
    }
    default: return r;
  }
}

std::string BatchGradientTape::State::compiled_unsupported(const Impl& m) const {
  if (!fast) return "the program does not run in blocks";
  for (NodeId id : m.order) {
    const Impl::TNode& n = m.nodes[static_cast<std::size_t>(id)];
    if (!compiled_op(n.op)) return "op '" + std::string(op_name(n.op)) + "' has no compiled form in the gradient plan";
    if (!n.carries) continue;
    std::string why;
    for_each_push(m, n, id, [&](int, sem::TermKind kind, std::size_t) {
      const sem::TermFacts f = sem::term_facts(kind, n.op);
      if (f.factor == sem::Factor::Weight || (f.factor == sem::Factor::Slope && !comparison_op(n.op)))
        why = "the derivative of '" + std::string(op_name(n.op)) + "' in " + std::string(to_string(n.sem)) +
              " semantics has no compiled form in the gradient plan";
      else if (!codegen::spell_term(kind, n.op, "g", "a", "b", "f", "j").defined)
        why = "a derivative term of '" + std::string(op_name(n.op)) + "' has no C spelling";
    });
    if (!why.empty()) return why;
  }
  return "";
}

Result<eval_detail::PlanSource> BatchGradientTape::State::compiled_source(const Impl& m) const {
  if (!compiled_refusal.empty()) return make_error(compiled_refusal);
  auto target = eval_detail::plan_target_from_env();
  if (!target) return target.error();
  std::string s;
  // One tc_v is one register of lanes; each statement of the loop body is
  // written `copies` times, for consecutive vectors (names NAME_c, lane
  // base l_c), side by side, so that many independent chains are in flight
  // (a vector wider than a register compiled ten times slower). `@` marks
  // what differs per copy while a statement is built; E() writes the copies.
  const std::size_t LN = target->vector_bytes / 8, C = target->copies;
  const std::string Ls = idx(LN);
  auto E = [&](const std::string& stmt) {
    for (std::size_t c = 0; c < C; ++c) {
      std::string x = stmt;
      for (std::size_t p = x.find('@'); p != std::string::npos; p = x.find('@', p)) x.replace(p, 1, "_" + idx(c));
      s += x;
    }
  };
  std::string lane_bases = "    const long l_0 = l";
  for (std::size_t c = 1; c < C; ++c) lane_bases += ", l_" + idx(c) + " = l + " + idx(c * LN);
  lane_bases += ";\n";
  const std::string step = idx(LN * C);
  const std::size_t n = m.nodes.size();
  const bool f32 = m.f32;

  s = "/* Generated by tensorcode: the batched gradient tape's compiled plan (core/grad/batch_compiled.cpp)";
  s += " for " + target->isa + ", " + Ls + " lanes per vector, " + idx(C) + " vectors per turn. */\n";
  s += "#pragma STDC FP_CONTRACT OFF\n#include <math.h>\n\n";
  s += "typedef double tc_v __attribute__((vector_size(" + idx(LN * 8) + ")));\n";
  s += "typedef long long tc_m __attribute__((vector_size(" + idx(LN * 8) + ")));\n";
  s += "typedef float tc_f __attribute__((vector_size(" + idx(LN * 4) + ")));\n";
  s += "#define TC_INL static inline __attribute__((always_inline))\n";
  s += "TC_INL tc_v tc_splat(double x) { tc_v v = {";
  for (std::size_t j = 0; j < LN; ++j) s += j ? ", x" : "x";
  s += "}; return v; }\n";
  s += "#define TC_ZERO ((tc_v){0})\n#define TC_ONE tc_splat(1.0)\n";
  s += "#define TC_SEL(m, a, b) ((tc_v)(((m) & (tc_m)(a)) | (~(m) & (tc_m)(b))))\n";
  s += "TC_INL tc_v tc_ld(const double *p) { tc_v v; __builtin_memcpy(&v, p, sizeof v); return v; }\n";
  s += "TC_INL void tc_st(double *p, tc_v v) { __builtin_memcpy(p, &v, sizeof v); }\n";
  s += "TC_INL tc_v tc_r32(tc_v x) { return __builtin_convertvector(__builtin_convertvector(x, tc_f), tc_v); }\n";
  s += "TC_INL tc_m tc_nonfinite(tc_v x) { const tc_v d = x - x; return (tc_m)(d != d); }\n";
  s += "typedef double (*tc_host_fn)(const void *ctx, long what, long arg, double x, double y);\n";
  s += "__attribute__((noinline)) static tc_v tc_call(tc_host_fn f, const void *ctx, long what, long arg, tc_v x, tc_v y) {\n"
       "  tc_v r; int j;\n  for (j = 0; j < " + Ls + "; ++j) r[j] = f(ctx, what, arg, x[j], y[j]);\n  return r;\n}\n";
  // Lane-by-lane work out of line: one call per vector, not a loop per
  // statement for the C compiler to optimise (which made it ten times slower).
  s += "static tc_v tc_in(const double *p, long stride, long base, long n) {\n"
       "  tc_v v; int j;\n  for (j = 0; j < " + Ls + "; ++j) v[j] = base + j < n ? p[(base + j) * stride] : 0.0;\n"
       "  return v;\n}\n";
  s += "static tc_m tc_notint(tc_v x) {\n  tc_m r; int j;\n  for (j = 0; j < " + Ls +
       "; ++j) r[j] = -(long long)(x[j] != floor(x[j]));\n  return r;\n}\n";
  s += "#define tc_floordiv(a, b) tc_call(host, ctx, " + idx(kFloorDiv) + ", 0, a, b)\n";
  s += "#define tc_slope(op, x) tc_call(host, ctx, " + idx(kSlope) + ", op, x, TC_ZERO)\n\n";

  auto uni = [&](std::size_t i) { return uniform[i] != 0; };
  // A uniform value (constant, parameter, state) is broadcast where it is
  // read, from `u`, which an empty asm makes opaque in each turn of the
  // lane loop: hoisted out of it, long_loop's 1,000 constants would be
  // 1,000 vectors on the stack.
  auto val = [&](std::size_t i) { return uni(i) ? "tc_splat(u[" + idx(i) + "])" : "v" + idx(i) + "@"; };
  const std::string opaque_u = "    const double *u = uval;\n    __asm__(\"\" : \"+r\"(u));\n";

  // ---- the forward -------------------------------------------------------
  s += "void tc_grad_forward(long n, const double *const *in, const long *stride, const double *uval, double *K,\n"
       "                     double *out, long long *flag, tc_host_fn host, const void *ctx) {\n";
  s += "  for (long l = 0; l < n; l += " + step + ") {\n" + lane_bases + opaque_u;
  E("    tc_m bad@ = {0};\n");
  // Inputs: load_input's checks and rounding, lane by lane.
  for (std::size_t k = 0; k < input_ids.size(); ++k) {
    const auto i = static_cast<std::size_t>(input_ids[k]);
    const Domain& d = *m.program.nodes[i].domain;
    const bool round = f32 || d.type == DomainType::Float32;
    const std::string xv = "x" + idx(i) + "@";
    E("    const tc_v " + xv + " = tc_in(in[" + idx(k) + "], stride[" + idx(k) + "], l@, n);\n");
    E("    bad@ |= tc_nonfinite(" + xv + ") | (tc_m)(" + xv + " < tc_splat(" + c_num(d.lo()) + ")) | (tc_m)(" + xv +
      " > tc_splat(" + c_num(d.hi()) + "))" + (d.is_integral() ? " | tc_notint(" + xv + ")" : "") + ";\n");
    if (round) {
      E("    const tc_v " + val(i) + " = tc_r32(" + xv + ");\n");
      E("    bad@ |= tc_nonfinite(" + val(i) + ");\n");
    } else {
      E("    const tc_v " + val(i) + " = " + xv + ";\n");
    }
  }
  auto store_slot = [&](std::size_t i) {
    if (slot_of[i] >= 0) E("    tc_st(K + " + idx(static_cast<std::size_t>(slot_of[i]) * B) + " + l@, " + val(i) + ");\n");
  };
  for (const auto& [_, id] : m.inputs) store_slot(static_cast<std::size_t>(id));
  for (NodeId id : m.order) {
    const auto i = static_cast<std::size_t>(id);
    const Impl::TNode& t = m.nodes[i];
    if (t.op == Op::Input || uni(i)) continue;
    const bool hard = t.sem != Semantics::Relaxed;
    auto x = [&](int k) { return val(static_cast<std::size_t>(m.arg(t, k))); };
    std::string e;
    switch (t.op) {
      case Op::Add: e = sem::add<CLanes>(x(0), x(1)); break;
      case Op::Sub: e = sem::sub<CLanes>(x(0), x(1)); break;
      case Op::Mul: e = sem::mul<CLanes>(x(0), x(1)); break;
      case Op::Div: e = sem::div<CLanes>(x(0), x(1)); break;
      case Op::FloorDiv:
        e = "tc_call(host, ctx, " + idx(kFloorDiv) + ", 0, " + x(0) + ", " + x(1) + ")";
        break;
      case Op::Mod: e = "tc_call(host, ctx, " + idx(kMod) + ", 0, " + x(0) + ", " + x(1) + ")"; break;
      case Op::Lt: case Op::Le: case Op::Gt: case Op::Ge: case Op::Eq: case Op::Ne:
        if (!hard) e = "tc_call(host, ctx, " + idx(kRelaxedCompare) + ", " + idx(i) + ", " + x(0) + ", " + x(1) + ")";
        break;
      default: break;
    }
    if (e.empty()) switch (t.op) {
      case Op::Lt: e = sem::compare<Op::Lt, CLanes>(x(0), x(1)); break;
      case Op::Le: e = sem::compare<Op::Le, CLanes>(x(0), x(1)); break;
      case Op::Gt: e = sem::compare<Op::Gt, CLanes>(x(0), x(1)); break;
      case Op::Ge: e = sem::compare<Op::Ge, CLanes>(x(0), x(1)); break;
      case Op::Eq: e = sem::compare<Op::Eq, CLanes>(x(0), x(1)); break;
      case Op::Ne: e = sem::compare<Op::Ne, CLanes>(x(0), x(1)); break;
      case Op::Select:
        e = hard ? sem::select_exact<CLanes>(x(0), x(1), x(2)) : sem::select_relaxed<CLanes>(x(0), x(1), x(2));
        break;
      case Op::Affine: case Op::SparseAffine: {
        // sem's accumulation order; the dtype's rounding after each step.
        const LinearTerms& lin = m.program.nodes[i].linear();
        auto rnd = [&](std::string v) { return f32 ? "tc_r32(" + v + ")" : v; };
        for (std::size_t j = 0; j < lin.coefficients.size(); ++j) {
          const int k = t.op == Op::Affine ? static_cast<int>(j) : lin.indices[j];
          const std::string coef = CLanes::lit(sem::round_to(lin.coefficients[j], f32));
          e = j == 0 ? sem::affine_first<CLanes>(coef, x(k), rnd) : sem::affine_next<CLanes>(e, coef, x(k), rnd);
        }
        if (lin.bias) e = sem::affine_bias<CLanes>(e, CLanes::lit(sem::round_to(*lin.bias, f32)), rnd);
        break;
      }
      default:
        sem::unary(t.op, [&](auto kernel) {
          using Kn = decltype(kernel);
          if constexpr (Kn::native) e = Kn::template f<CLanes>(x(0));
          else e = "tc_call(host, ctx, " + idx(kUnary) + ", " + idx(static_cast<std::size_t>(t.op)) + ", " + x(0) + ", TC_ZERO)";
        });
        break;
    }
    if (e.empty()) return make_error("op '" + std::string(op_name(t.op)) + "' has no compiled form in the gradient plan");
    // fast_forward's modes: float32 rounds every value and tests both; the
    // finite_check values are tested themselves.
    if (f32) {
      E("    const tc_v t" + idx(i) + "@ = " + e + ";\n");
      E("    const tc_v " + val(i) + " = tc_r32(t" + idx(i) + "@);\n");
      E("    bad@ |= tc_nonfinite(t" + idx(i) + "@) | tc_nonfinite(" + val(i) + ");\n");
    } else {
      E("    const tc_v " + val(i) + " = " + e + ";\n");
      if (finite_check[i]) E("    bad@ |= tc_nonfinite(" + val(i) + ");\n");
    }
    if (t.op == Op::Div || t.op == Op::FloorDiv || t.op == Op::Mod)
      E("    bad@ |= " + sem::zero_divisor<CLanes>(x(1)) + ";\n");
    if (t.checked_domain && hard) {
      const Domain& d = *m.program.nodes[i].domain;
      const bool skip = comparison_op(t.op) && !d.check(0.0) && !d.check(1.0);
      if (!skip) {
        if (d.is_integral())
          E("    bad@ |= tc_notint(" + val(i) + ") | (tc_m)(" + val(i) + " < tc_splat(" + c_num(d.lo()) + ")) | (tc_m)(" +
            val(i) + " > tc_splat(" + c_num(d.hi()) + "));\n");
        else if (d.lo() > -HUGE_VAL || d.hi() < HUGE_VAL)
          E("    bad@ |= (tc_m)(" + val(i) + " < tc_splat(" + c_num(d.lo()) + ")) | (tc_m)(" + val(i) + " > tc_splat(" +
            c_num(d.hi()) + "));\n");
      }
    }
    store_slot(i);
  }
  for (std::size_t o = 0; o < m.out_ids.size(); ++o)
    E("    tc_st(out + " + idx(o * B) + " + l@, " + val(static_cast<std::size_t>(m.out_ids[o])) + ");\n");
  E("    __builtin_memcpy(flag + l@, &bad@, sizeof bad@);\n");
  s += "  }\n}\n\n";

  // ---- the reverse pass ----------------------------------------------------
  // The plan of fast_reverse without its column reuse: the first push to a
  // node declares its adjoint aI (0.0 + contribution), later ones add; a
  // node some lane does not reach keeps its reached lanes in hI, and its
  // pushes (and the picks) blend.
  std::vector<std::uint8_t> touched(n, 0), full_(n, 0);
  struct Push {
    std::size_t node;
    int k;
    sem::TermKind kind;
    std::size_t j;
  };
  std::vector<Push> pushes_;
  for (std::size_t o = 0; o < m.out_ids.size(); ++o) {
    const auto t = static_cast<std::size_t>(m.out_ids[o]);
    if (m.nodes[t].carries) full_[t] = 1;
  }
  {
    std::vector<std::uint8_t> reach(n, 0);
    for (NodeId id : m.out_ids)
      if (m.nodes[static_cast<std::size_t>(id)].carries) reach[static_cast<std::size_t>(id)] = 1;
    for (auto it = m.order.rbegin(); it != m.order.rend(); ++it) {
      const auto i = static_cast<std::size_t>(*it);
      const Impl::TNode& t = m.nodes[i];
      if (!t.carries || !reach[i]) continue;
      for_each_push(m, t, *it, [&](int k, sem::TermKind kind, std::size_t j) {
        const auto a = static_cast<std::size_t>(m.arg(t, k));
        reach[a] = 1;
        if (!sem::term_facts(kind, t.op).pick && full_[i]) full_[a] = 1;
        pushes_.push_back({i, k, kind, j});
      });
    }
  }
  s += "void tc_grad_reverse(long n, const double *K, const double *uval, const double *const *seeds,\n"
       "                     const long *stride, double *G, tc_host_fn host, const void *ctx) {\n";
  s += "  for (long l = 0; l < n; l += " + step + ") {\n" + lane_bases + opaque_u;
  bool unrecorded = false;  // a value the reverse reads that the record lacks (assign_slots): never
  auto rd = [&](std::size_t i) {
    if (uni(i)) return val(i);
    unrecorded = unrecorded || slot_of[i] < 0;
    return "tc_ld(K + " + idx(static_cast<std::size_t>(std::max(slot_of[i], 0)) * B) + " + l@)";
  };
  std::size_t masks = 0;
  // push(): adj += contribution in the lanes of `mask` (empty: every lane).
  // `adjoint`: the contribution is another node's adjoint itself (term G),
  // so a first push is a copy: 0.0 + g is g, since no adjoint is ever -0.0
  // (a sum that starts at +0.0), as fast_reverse's shared columns rely on.
  // A chain of sums (long_loop) then adds nothing per node.
  auto push = [&](std::size_t to, const std::string& mask, const std::string& c, bool adjoint = false) {
    const std::string a = "a" + idx(to) + "@", h = "h" + idx(to) + "@";
    const bool first = !touched[to];
    touched[to] = 1;
    if (mask.empty()) {
      if (first) E("    tc_v " + a + " = " + (adjoint ? c : "TC_ZERO + " + c) + ";\n");
      else E("    " + a + " = " + a + " + " + c + ";\n");
      return;
    }
    const std::string mk = "m" + idx(masks++) + "@";
    E("    const tc_m " + mk + " = " + mask + ";\n");
    if (first) {
      E("    tc_v " + a + " = TC_SEL(" + mk + ", TC_ZERO + " + c + ", TC_ZERO);\n");
      if (!full_[to]) E("    tc_m " + h + " = " + mk + ";\n");
      return;
    }
    E("    " + a + " = TC_SEL(" + mk + ", " + a + " + " + c + ", " + a + ");\n");
    if (!full_[to]) E("    " + h + " = " + h + " | " + mk + ";\n");
  };
  for (std::size_t o = 0; o < m.out_ids.size(); ++o) {
    const auto t = static_cast<std::size_t>(m.out_ids[o]);
    if (!m.nodes[t].carries) continue;
    const std::string sd = "s" + idx(o) + "@";
    E("    const tc_v " + sd + " = tc_in(seeds[" + idx(o) + "], stride[" + idx(o) + "], l@, n);\n");
    push(t, "", sd);
  }
  std::size_t factored = n;  // the node whose slope dI is computed
  for (const Push& p : pushes_) {
    const Impl::TNode& t = m.nodes[p.node];
    const sem::TermFacts f = sem::term_facts(p.kind, t.op);
    if (f.factor == sem::Factor::Slope && factored != p.node) {
      // node_factors(): a comparison's slope, once per node.
      factored = p.node;
      E("    const tc_v d" + idx(p.node) + "@ = tc_call(host, ctx, " + idx(kCompareSlope) + ", " + idx(p.node) + ", " +
        rd(static_cast<std::size_t>(m.arg(t, 0))) + ", " + rd(static_cast<std::size_t>(m.arg(t, 1))) + ");\n");
    }
    const std::string a = f.reads.count > 0 ? rd(static_cast<std::size_t>(m.arg(t, f.reads.at(0, p.j)))) : "TC_ZERO";
    const std::string b = f.reads.count > 1 ? rd(static_cast<std::size_t>(m.arg(t, f.reads.at(1, p.j)))) : "TC_ZERO";
    std::string fac = "TC_ZERO";
    if (f.factor == sem::Factor::Coef) fac = CLanes::lit(m.program.nodes[p.node].linear().coefficients[p.j]);
    else if (f.factor == sem::Factor::Slope && comparison_op(t.op)) fac = "d" + idx(p.node) + "@";
    else if (f.factor != sem::Factor::None) return make_error("a derivative term reads a gather's weights");
    const codegen::SpelledTerm term =
        codegen::spell_term(p.kind, t.op, "a" + idx(p.node) + "@", a, b, fac, CLanes::lit(static_cast<double>(p.j)));
    if (!term.defined) return make_error("a derivative term of '" + std::string(op_name(t.op)) + "' has no C spelling");
    std::string mask;
    const std::string reached = full_[p.node] ? "" : "h" + idx(p.node) + "@";
    if (f.pick) mask = reached.empty() ? term.mask : "(" + term.mask + " & " + reached + ")";
    else mask = reached;
    push(static_cast<std::size_t>(m.arg(t, p.k)), mask, term.value, term.value == "a" + idx(p.node) + "@");
  }
  for (std::size_t k = 0; k < m.leaves.size(); ++k) {
    const auto leaf = static_cast<std::size_t>(m.leaves[k].node);
    const std::string dst = "G + " + idx(k * B) + " + l@";
    if (!touched[leaf]) E("    tc_st(" + dst + ", TC_ZERO);\n");
    else if (full_[leaf]) E("    tc_st(" + dst + ", a" + idx(leaf) + "@);\n");
    else E("    tc_st(" + dst + ", TC_SEL(h" + idx(leaf) + "@, a" + idx(leaf) + "@, TC_ZERO));\n");
  }
  s += "  }\n}\n";
  if (unrecorded) return make_error("the gradient plan reads a value the batch record does not keep");

  eval_detail::PlanSource src;
  src.text = std::move(s);
  src.isa = target->isa;
  src.flags = std::move(target->flags);
  // The flags are OR chains thousands long; GCC's reassociation of them
  // grew quadratically (4x the whole compile of a 220-node program).
  src.flags.push_back("-fno-tree-reassoc");
  src.symbols = {"tc_grad_forward", "tc_grad_reverse"};
  return src;
}

const eval_detail::CompiledKernel* BatchGradientTape::State::compiled_kernel(const Impl& m, double cases,
                                                                            bool batched) {
  if (!plan || !fast) return nullptr;
  // Forward and reverse, estimated by the Auto rule's own constants.
  const double node_cases = static_cast<double>(m.order.size()) * cases;
  return plan->kernel_for([&] { return compiled_source(m); }, m.order.size(), node_cases,
                          batched ? eval_detail::PlanWork::GradientBatch : eval_detail::PlanWork::GradientCases);
}

}  // namespace tc
