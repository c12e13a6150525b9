#include "prove/encode.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>

#include "base/number_text.h"
#include "ir/op_semantics.h"
#include "passes/analyze.h"

namespace tc::prove {

namespace {

using z3::expr;

// Single IEEE operations in round-to-nearest-even, through the C API so that
// no operator of z3++ chooses the equality (SMT's '=' tells -0 from +0 and
// equates NaNs; the evaluator's == is fp.eq).
struct Fp {
  z3::context& c;
  expr wrap(Z3_ast a) const {
    c.check_error();
    return expr(c, a);
  }
  expr rne() const { return wrap(Z3_mk_fpa_rne(c)); }
  // Normal forms: IEEE addition, multiplication and equality commute (the
  // sign of a zero sum and NaN included), and a > b is b < a. Ordering the
  // operands of commutative ops by term id makes x*y and y*x one term, so
  // the miter drops them instead of asking a solver to prove a multiplier
  // commutative (55 s for binary64 in Z3 4.8.12 on this machine).
  bool ordered(const expr& a, const expr& b) const { return Z3_get_ast_id(c, a) <= Z3_get_ast_id(c, b); }
  // Further normal forms, each an exact IEEE identity (RNE is symmetric, and
  // subtraction is addition of the negation, zeros' signs included):
  // x*1 = x, x*(-k) = -(x*k), a + (-b) = a - b, a - (-b) = a + b,
  // -(-x) = x. They make an affine node's c*x + ... the same terms as the
  // multiplications and subtractions it was packed from (optimize's
  // output against its input).
  static bool is_neg(const expr& a) { return a.is_app() && a.decl().decl_kind() == Z3_OP_FPA_NEG; }
  /// The value of a constant built by fp_constant; NaN for anything else.
  static double constant_value(const expr& a) {
    if (!a.is_app() || a.decl().decl_kind() != Z3_OP_FPA_FP) return std::nan("");
    for (unsigned k = 0; k < 3; ++k)
      if (!a.arg(k).is_numeral()) return std::nan("");
    return fp_numeral_value(a);
  }
  expr add(const expr& a, const expr& b) const {
    if (is_neg(b)) return sub(a, b.arg(0));
    if (is_neg(a)) return sub(b, a.arg(0));
    return ordered(a, b) ? wrap(Z3_mk_fpa_add(c, rne(), a, b)) : wrap(Z3_mk_fpa_add(c, rne(), b, a));
  }
  expr sub(const expr& a, const expr& b) const {
    if (is_neg(b)) return add(a, b.arg(0));
    return wrap(Z3_mk_fpa_sub(c, rne(), a, b));
  }
  expr mul(const expr& a, const expr& b) const {
    for (const auto& [k, x] : {std::pair{a, b}, std::pair{b, a}}) {
      const double v = constant_value(k);
      if (v == 1.0 && !std::signbit(v)) return x;
      if (std::signbit(v) && !std::isnan(v)) return neg(mul(fp_constant(c, -v, k.get_sort().fpa_ebits() == 8), x));
    }
    return ordered(a, b) ? wrap(Z3_mk_fpa_mul(c, rne(), a, b)) : wrap(Z3_mk_fpa_mul(c, rne(), b, a));
  }
  expr div(const expr& a, const expr& b) const { return wrap(Z3_mk_fpa_div(c, rne(), a, b)); }
  expr sqrt(const expr& a) const { return wrap(Z3_mk_fpa_sqrt(c, rne(), a)); }
  expr neg(const expr& a) const { return is_neg(a) ? a.arg(0) : wrap(Z3_mk_fpa_neg(c, a)); }
  expr abs(const expr& a) const { return wrap(Z3_mk_fpa_abs(c, a)); }
  /// IEEE remainder (quotient rounded to nearest, ties to even).
  expr rem(const expr& a, const expr& b) const { return wrap(Z3_mk_fpa_rem(c, a, b)); }
  expr floor(const expr& a) const { return wrap(Z3_mk_fpa_round_to_integral(c, wrap(Z3_mk_fpa_rtn(c)), a)); }
  expr nearest_int(const expr& a) const { return wrap(Z3_mk_fpa_round_to_integral(c, rne(), a)); }
  expr eq(const expr& a, const expr& b) const {
    return ordered(a, b) ? wrap(Z3_mk_fpa_eq(c, a, b)) : wrap(Z3_mk_fpa_eq(c, b, a));
  }
  expr lt(const expr& a, const expr& b) const { return wrap(Z3_mk_fpa_lt(c, a, b)); }
  expr le(const expr& a, const expr& b) const { return wrap(Z3_mk_fpa_leq(c, a, b)); }
  expr gt(const expr& a, const expr& b) const { return lt(b, a); }
  expr ge(const expr& a, const expr& b) const { return le(b, a); }
  expr is_zero(const expr& a) const { return wrap(Z3_mk_fpa_is_zero(c, a)); }
  expr is_negative(const expr& a) const { return wrap(Z3_mk_fpa_is_negative(c, a)); }
  expr finite(const expr& a) const {
    return !wrap(Z3_mk_fpa_is_nan(c, a)) && !wrap(Z3_mk_fpa_is_infinite(c, a));
  }
  /// `a` in the float sort `s`: exact when widening, rounded when narrowing.
  expr to(const expr& a, const z3::sort& s) const { return wrap(Z3_mk_fpa_to_fp_float(c, rne(), a, s)); }
  /// A signed 32-bit integer as binary64 (exact).
  expr from_int(const expr& bv) const { return wrap(Z3_mk_fpa_to_fp_signed(c, rne(), bv, c.fpa_sort(11, 53))); }
  expr f64(double v) const { return fp_constant(c, v, false); }
};

/// Python's float.__divmod__ (kernels::py_divmod) over finite binary64
/// terms with b != 0, step for step. C's fmod is the IEEE remainder moved by
/// |b| towards a's sign where their signs differ (both are a - q*b, with q
/// the quotient rounded to nearest or towards zero; fmod is exact, so the
/// correcting addition rounds nothing).
void py_divmod(const Fp& f, const expr& a, const expr& b, expr& div, expr& mod) {
  z3::context& c = f.c;
  const expr r = f.rem(a, b);
  const expr moved = z3::ite(f.is_negative(a), f.sub(r, f.abs(b)), f.add(r, f.abs(b)));
  const expr fm = z3::ite(!f.is_zero(r) && (f.is_negative(r) != f.is_negative(a)), moved, r);
  const expr zero_b = z3::ite(f.is_negative(b), f.f64(-0.0), f.f64(0.0));
  const expr d0 = f.div(f.sub(a, fm), b);
  const expr flip = (f.lt(b, f.f64(0.0)) != f.lt(fm, f.f64(0.0)));
  const expr m1 = z3::ite(f.is_zero(fm), zero_b, z3::ite(flip, f.add(fm, b), fm));
  const expr d1 = z3::ite(!f.is_zero(fm) && flip, f.sub(d0, f.f64(1.0)), d0);
  const expr fl = f.floor(d1);
  const expr up = f.gt(f.sub(d1, fl), f.f64(0.5));
  const expr fl1 = z3::ite(up, f.add(fl, f.f64(1.0)), fl);
  const expr zero_q = z3::ite(f.is_negative(f.div(a, b)), f.f64(-0.0), f.f64(0.0));
  div = z3::ite(f.is_zero(d1), zero_q, fl1);
  mod = m1;
  (void)c;
}

/// Python's floor division and modulo of integer-valued binary64 terms
/// whose magnitudes the interval analysis bounds by 2^(bits-2) <= 2^53: in
/// `bits`-bit two's complement, where the divider is small, instead of the
/// IEEE remainder, whose circuit spans the whole exponent range (a 60 s
/// timeout for `100 // (x - 17)` over int32:-1000:1000). Every such value
/// converts exactly, and py_divmod computes the exact floor quotient and
/// remainder of integers this small, so only the zeros' signs need care:
/// a zero quotient has the sign of a/b, a zero remainder b's.
void int_divmod(const Fp& f, const expr& a, const expr& b, unsigned bits, expr& div, expr& mod) {
  z3::context& c = f.c;
  const expr rtz = f.wrap(Z3_mk_fpa_rtz(c));
  const expr ia = f.wrap(Z3_mk_fpa_to_sbv(c, rtz, a, bits)), ib = f.wrap(Z3_mk_fpa_to_sbv(c, rtz, b, bits));
  const expr zero = c.bv_val(0, bits);
  const expr q0 = f.wrap(Z3_mk_bvsdiv(c, ia, ib)), r0 = f.wrap(Z3_mk_bvsrem(c, ia, ib));
  const expr adjust = r0 != zero && (z3::slt(r0, zero) != z3::slt(ib, zero));
  const expr q = z3::ite(adjust, q0 - c.bv_val(1, bits), q0);
  const expr m = z3::ite(adjust, r0 + ib, r0);
  const z3::sort s64 = c.fpa_sort(11, 53);
  auto back = [&](const expr& v) { return f.wrap(Z3_mk_fpa_to_fp_signed(c, f.rne(), v, s64)); };
  const expr signed_zero_q = z3::ite(f.is_negative(a) != f.is_negative(b), f.f64(-0.0), f.f64(0.0));
  const expr signed_zero_m = z3::ite(f.is_negative(b), f.f64(-0.0), f.f64(0.0));
  div = z3::ite(q == zero, signed_zero_q, back(q));
  mod = z3::ite(m == zero, signed_zero_m, back(m));
}

std::string refused(const Program& p, NodeId id, const std::string& why) {
  return describe_node(p, id) + ": " + why;
}

}  // namespace

z3::expr fp_constant(z3::context& c, double v, bool f32) {
  if (f32) {
    const float x = static_cast<float>(v);
    std::uint32_t bits = 0;
    std::memcpy(&bits, &x, sizeof bits);
    return expr(c, Z3_mk_fpa_fp(c, c.bv_val(bits >> 31, 1), c.bv_val((bits >> 23) & 0xffu, 8),
                                c.bv_val(bits & 0x7fffffu, 23)));
  }
  std::uint64_t bits = 0;
  std::memcpy(&bits, &v, sizeof bits);
  return expr(c, Z3_mk_fpa_fp(c, c.bv_val(static_cast<std::uint64_t>(bits >> 63), 1),
                              c.bv_val(static_cast<std::uint64_t>((bits >> 52) & 0x7ffu), 11),
                              c.bv_val(static_cast<std::uint64_t>(bits & 0xfffffffffffffull), 52)));
}

double fp_numeral_value(const z3::expr& numeral) {
  z3::context& c = numeral.ctx();
  const expr bv = expr(c, Z3_mk_fpa_to_ieee_bv(c, numeral)).simplify();
  std::uint64_t bits = 0;
  if (!Z3_get_numeral_uint64(c, bv, &bits)) return std::nan("");
  if (numeral.get_sort().fpa_ebits() == 8) {
    const auto b32 = static_cast<std::uint32_t>(bits);
    float x = 0;
    std::memcpy(&x, &b32, sizeof x);
    return static_cast<double>(x);
  }
  double x = 0;
  std::memcpy(&x, &bits, sizeof x);
  return x;
}

Encoder::Encoder(z3::context& c) : c_(c) {}

z3::expr Encoder::domains() const {
  expr all = c_.bool_val(true);
  for (const auto& [name, in] : inputs_) all = all && in.in_domain;
  return all;
}

Result<InputVar*> Encoder::input(const Node& n) {
  const Domain d = n.domain.value_or(Domain::float64());
  if (auto it = inputs_.find(n.name); it != inputs_.end()) {
    if (!(it->second.domain == d))
      return make_error("input '" + n.name + "' has domain " + d.to_string() + " here and " +
                            it->second.domain.to_string() + " in the other program",
                        n.location, n.id);
    return &it->second;
  }
  const Fp f{c_};
  const std::string name = "in_" + std::to_string(inputs_.size());
  expr var(c_), as_f64(c_), in_domain(c_);
  if (d.is_integral()) {
    // The integer itself: every value of the bit-vector is an int32, and
    // int32 -> binary64 is exact.
    var = c_.bv_const(name.c_str(), 32);
    const double lo = std::ceil(d.lo()), hi = std::floor(d.hi());
    in_domain = z3::sge(var, c_.bv_val(static_cast<std::int64_t>(lo), 32)) &&
                z3::sle(var, c_.bv_val(static_cast<std::int64_t>(hi), 32));
    as_f64 = f.from_int(var);
  } else if (d.type == DomainType::Float32) {
    // The input enters as the binary32 nearest the given value (evaluator's
    // check_input); rounding is monotone, so those are the binary32 values
    // between the rounded bounds.
    var = c_.fpa_const(name.c_str(), 8, 24);
    in_domain = f.finite(var) && f.le(fp_constant(c_, d.lo(), true), var) && f.le(var, fp_constant(c_, d.hi(), true));
    as_f64 = f.to(var, c_.fpa_sort(11, 53));
  } else {
    var = c_.fpa_const(name.c_str(), 11, 53);
    in_domain = f.finite(var) && f.le(f.f64(d.lo()), var) && f.le(var, f.f64(d.hi()));
    as_f64 = var;
  }
  auto [it, fresh] = inputs_.emplace(n.name, InputVar{d, var, as_f64, in_domain});
  (void)fresh;
  return &it->second;
}

namespace {
/// What `run --set` takes for an input whose variable holds `v`.
double input_value(const InputVar& in, double v) {
  // A float32 bound that is not a binary32 rounds to the nearest one, which
  // may lie just outside the domain: the bound itself enters as that value.
  if (!in.domain.is_integral()) v = std::clamp(v, in.domain.lo(), in.domain.hi());
  return v;
}
}  // namespace

std::map<std::string, double, std::less<>> Encoder::values_in(const z3::model& m) const {
  std::map<std::string, double, std::less<>> out;
  for (const auto& [name, in] : inputs_) {
    const expr v = m.eval(in.var, true);
    double x = 0;
    if (in.domain.is_integral()) {
      std::uint64_t u = 0;
      Z3_get_numeral_uint64(c_, v, &u);
      x = static_cast<double>(static_cast<std::int32_t>(static_cast<std::uint32_t>(u)));
    } else {
      x = fp_numeral_value(v);
    }
    out.emplace(name, input_value(in, x));
  }
  return out;
}

std::vector<std::string> Encoder::variable_names() const {
  std::vector<std::string> out;
  for (const auto& [name, in] : inputs_) out.push_back(in.var.decl().name().str());
  return out;
}

std::optional<std::map<std::string, double, std::less<>>> Encoder::values_from(
    const std::map<std::string, double>& by_variable) const {
  std::map<std::string, double, std::less<>> out;
  for (const auto& [name, in] : inputs_) {
    auto it = by_variable.find(in.var.decl().name().str());
    if (it == by_variable.end()) return std::nullopt;
    out.emplace(name, input_value(in, it->second));
  }
  return out;
}

namespace {
/// The disjunction of `terms` without the constant false and repeats, in
/// term-id order: a node's failure is then the same term in two programs
/// whenever its parts are, which lets the miter drop it.
z3::expr any_of(z3::context& c, std::vector<z3::expr> terms) {
  std::vector<z3::expr> keep;
  for (auto& t : terms)
    if (!t.is_false()) keep.push_back(t);
  std::sort(keep.begin(), keep.end(),
            [&](const z3::expr& a, const z3::expr& b) { return Z3_get_ast_id(c, a) < Z3_get_ast_id(c, b); });
  keep.erase(std::unique(keep.begin(), keep.end(), [](const z3::expr& a, const z3::expr& b) { return z3::eq(a, b); }),
             keep.end());
  if (keep.empty()) return c.bool_val(false);
  if (keep.size() == 1) return keep[0];
  z3::expr_vector v(c);
  for (auto& t : keep) v.push_back(t);
  return z3::mk_or(v);
}
}  // namespace

Result<ProgramTerms> Encoder::encode(const Program& p, const Merge& merge) {
  if (Status s = validate(p); !s) return s.error();
  const bool f32 = p.dtype == Dtype::Float32;
  const Fp f{c_};
  const z3::sort s64 = c_.fpa_sort(11, 53);
  const z3::sort sv = f32 ? c_.fpa_sort(8, 24) : s64;
  auto konst = [&](double v) { return fp_constant(c_, v, f32); };
  auto widen = [&](const expr& v) { return f32 ? f.to(v, s64) : v; };
  auto narrow = [&](const expr& v) { return f32 ? f.to(v, sv) : v; };
  const std::size_t n = p.nodes.size();

  // Only what an output needs is evaluated (and so can fail or be refused).
  std::vector<std::uint8_t> needed(n, 0);
  for (const auto& [name, id] : p.outputs) needed[static_cast<std::size_t>(id)] = 1;
  for (std::size_t i = n; i-- > 0;)
    if (needed[i])
      for (NodeId a : p.nodes[i].args) needed[static_cast<std::size_t>(a)] = 1;

  // Floor division and modulo of small integers take the bit-vector route
  // (int_divmod) where the interval analysis bounds both operands: its
  // intervals hold for every value the evaluator computes at a node that
  // runs (a branch's nodes under the branch's condition), and the encoding
  // reads a node's value only where it runs.
  std::optional<Analysis> ranges;
  if (!p.nodes_of(Op::FloorDiv).empty() || !p.nodes_of(Op::Mod).empty())
    if (auto a = analyze(p)) ranges = std::move(*a);
  auto small_integer_bits = [&](const Node& node) -> unsigned {
    if (!ranges) return 0;
    double most = 0;
    for (NodeId a : node.args) {
      const Interval& iv = ranges->intervals[static_cast<std::size_t>(a)];
      if (!iv.integral || !(iv.lo >= -9007199254740992.0) || !(iv.hi <= 9007199254740992.0)) return 0;
      most = std::max({most, std::fabs(iv.lo), std::fabs(iv.hi)});
    }
    unsigned bits = 2;  // a sign bit, and room for -most - 1 after the adjustment
    while (bits < 64 && std::ldexp(1.0, static_cast<int>(bits) - 2) < most) ++bits;
    return bits + 1;
  };

  ProgramTerms t{{}, {}, c_.bool_val(false), {}, {}};
  t.value.assign(n, expr(c_));
  t.fail.assign(n, expr(c_));
  expr global_fail = c_.bool_val(false);

  // Before any node runs, the evaluator checks every input (its
  // conversion to the dtype) and every parameter, needed or not.
  for (const Node& node : p.nodes) {
    if (node.op == Op::State)
      return make_error(refused(p, node.id, "a program with state cannot be proved (its values come from events)"),
                        node.location, node.id);
    if (node.op == Op::Call)
      return make_error(refused(p, node.id, "host call '" + node.name +
                                                "' cannot be proved (its function is outside the circuit)"),
                        node.location, node.id);
    if (node.op == Op::Parameter) {
      double v = node.value;
      const bool exact = p.semantics_of(node) != Semantics::Relaxed;
      bool bad = !std::isfinite(v) || (node.domain && exact && node.domain->check(v));
      v = sem::round_to(v, f32);
      t.value[static_cast<std::size_t>(node.id)] = konst(v);
      t.fail[static_cast<std::size_t>(node.id)] = c_.bool_val(false);
      if (bad) global_fail = c_.bool_val(true);
    }
    if (node.op == Op::Input) {
      auto in = input(node);
      if (!in) return in.error();
      const InputVar& v = **in;
      expr value = v.as_f64, bad = c_.bool_val(false);
      if (f32 || v.domain.type == DomainType::Float32) {
        const expr r = v.domain.type == DomainType::Float32 ? v.var : f.to(v.as_f64, c_.fpa_sort(8, 24));
        if (v.domain.type != DomainType::Float32) {
          bad = !f.finite(r);                                      // beyond float32's range
          if (v.domain.is_integral()) bad = bad || !f.eq(f.to(r, s64), v.as_f64);  // not a binary32
        }
        value = f32 ? r : f.to(r, s64);
      }
      t.value[static_cast<std::size_t>(node.id)] = value;
      t.fail[static_cast<std::size_t>(node.id)] = c_.bool_val(false);
      global_fail = global_fail || bad;
    }
  }

  for (std::size_t i = 0; i < n; ++i) {
    if (!needed[i]) continue;
    const Node& node = p.nodes[i];
    const NodeId id = node.id;
    if (is_leaf(node.op) && node.op != Op::Constant) continue;  // done above
    const bool exact = p.semantics_of(node) != Semantics::Relaxed;
    auto x = [&](std::size_t k) { return t.value[static_cast<std::size_t>(node.args[k])]; };
    auto xf = [&](std::size_t k) { return t.fail[static_cast<std::size_t>(node.args[k])]; };
    std::vector<expr> arg_fails;
    for (std::size_t k = 0; k < node.args.size(); ++k) arg_fails.push_back(xf(k));
    expr args_fail = any_of(c_, arg_fails);
    auto refuse = [&](const std::string& why) {
      return make_error(refused(p, id, why), node.location, id);
    };
    std::optional<expr> r;            // the value before the finish check
    expr own = c_.bool_val(false);    // the node's own failure, beside its arguments'
    bool check_finite = true;
    switch (node.op) {
      case Op::Input: case Op::Parameter: case Op::State: case Op::Call:
        break;  // handled (or refused) above
      case Op::Constant: {
        double v = sem::round_to(node.value, f32);
        r = konst(v);
        if (!std::isfinite(v)) own = c_.bool_val(true);
        check_finite = false;
        break;
      }
      case Op::Add: r = f.add(x(0), x(1)); break;
      case Op::Sub: r = f.sub(x(0), x(1)); break;
      case Op::Mul: r = f.mul(x(0), x(1)); break;
      case Op::Square: r = f.mul(x(0), x(0)); break;
      case Op::Neg: r = f.neg(x(0)); break;
      case Op::Div:
        own = f.is_zero(x(1));
        r = f.div(x(0), x(1));
        break;
      case Op::Relu: {
        const expr zero = konst(0.0);
        r = z3::ite(f.gt(x(0), zero), x(0), zero);
        break;
      }
      case Op::FloorDiv: case Op::Mod: {
        own = f.is_zero(x(1));
        expr q(c_), m(c_);
        if (unsigned bits = small_integer_bits(node)) int_divmod(f, widen(x(0)), widen(x(1)), bits, q, m);
        else py_divmod(f, widen(x(0)), widen(x(1)), q, m);
        r = narrow(node.op == Op::FloorDiv ? q : m);
        break;
      }
      case Op::Raise:  // a failure term: it fails wherever the encoding reaches it
        own = c_.bool_val(true);
        r = konst(0.0);
        check_finite = false;
        break;
      case Op::Sigmoid:
        return refuse("sigmoid has no exact encoding (exp is outside the smt floating-point theory)");
      // IEEE square root, correctly rounded as the C library's: exact. A
      // negative argument gives NaN (the finish check fails it); the
      // frontend's select raises ValueError before it is live.
      case Op::Sqrt: r = f.sqrt(x(0)); break;
      case Op::Exp: case Op::Expm1: case Op::Log: case Op::Log2: case Op::Log10: case Op::Log1p:
      case Op::Sin: case Op::Cos: case Op::Tan: case Op::Atan: case Op::Tanh:
        return refuse("math." + std::string(op_name(node.op)) +
                      " has no exact encoding (the C library's function is outside the smt floating-point theory)");
      case Op::Lt: case Op::Le: case Op::Gt: case Op::Ge: case Op::Eq: case Op::Ne: {
        if (!exact)
          return refuse("a relaxed comparison has no exact encoding (its surrogate needs exp)");
        const expr a = x(0), b = x(1);
        expr m = node.op == Op::Lt   ? f.lt(a, b)
                 : node.op == Op::Le ? f.le(a, b)
                 : node.op == Op::Gt ? f.gt(a, b)
                 : node.op == Op::Ge ? f.ge(a, b)
                 : node.op == Op::Eq ? f.eq(a, b)
                                     : !f.eq(a, b);
        r = z3::ite(m, konst(1.0), konst(0.0));
        check_finite = false;
        break;
      }
      case Op::Select:
        if (exact) {
          // Only the branch taken is evaluated, so only its failure counts.
          const expr yes = !f.is_zero(x(0));
          args_fail = xf(0) || z3::ite(yes, xf(1), xf(2));
          r = z3::ite(yes, x(1), x(2));
          check_finite = false;
        } else {
          // c*a + (1-c)*b in binary64 (a relaxed decision is widened).
          const expr c0 = widen(x(0));
          r = narrow(f.add(f.mul(c0, widen(x(1))), f.mul(f.sub(f.f64(1.0), c0), widen(x(2)))));
        }
        break;
      case Op::Gather: {
        if (!exact) return refuse("a relaxed gather has no exact encoding (its weights need exp)");
        const std::size_t values = node.args.size() - 1;
        expr ok = c_.bool_val(false);
        expr v = x(values);  // unreachable when !ok
        for (std::size_t k = values; k-- > 0;) {
          const expr hit = f.eq(x(0), konst(static_cast<double>(k)));
          ok = ok || hit;
          v = z3::ite(hit, x(1 + k), v);
        }
        own = !ok;
        r = v;
        check_finite = false;
        break;
      }
      case Op::GatherOneHot: {
        const std::size_t half = node.args.size() / 2;
        if (exact) {
          // Every selector 0 or 1 (-0 counts as 0), exactly one of them 1.
          expr binary = c_.bool_val(true), seen = c_.bool_val(false), twice = c_.bool_val(false);
          std::vector<expr> one;
          for (std::size_t k = 0; k < half; ++k) {
            const expr is1 = f.eq(x(k), konst(1.0));
            binary = binary && (is1 || f.is_zero(x(k)));
            twice = twice || (is1 && seen);
            seen = seen || is1;
            one.push_back(is1);
          }
          own = !binary || !seen || twice;
          expr v = x(half);
          for (std::size_t k = half; k-- > 0;) v = z3::ite(one[k], x(half + k), v);
          r = v;
          check_finite = false;
        } else {
          expr acc = f.mul(widen(x(0)), widen(x(half)));
          for (std::size_t k = 1; k < half; ++k) acc = f.add(acc, f.mul(widen(x(k)), widen(x(half + k))));
          r = narrow(acc);
        }
        break;
      }
      case Op::Affine: case Op::SparseAffine: {
        // contract section 2's order; coefficients and bias rounded to the
        // dtype first, each product and sum rounded (binary32 directly:
        // Native, see ops.def).
        const LinearTerms& lin = node.linear();
        auto term = [&](std::size_t j) {
          const std::size_t arg = node.op == Op::SparseAffine ? static_cast<std::size_t>(lin.indices[j]) : j;
          return f.mul(konst(sem::round_to(lin.coefficients[j], f32)), x(arg));
        };
        expr acc = term(0);
        for (std::size_t j = 1; j < lin.coefficients.size(); ++j) acc = f.add(acc, term(j));
        if (lin.bias) acc = f.add(acc, konst(sem::round_to(*lin.bias, f32)));
        r = acc;
        break;
      }
    }
    if (!r) continue;
    if (merge && node.op != Op::Constant) merge(id, t.value, *r);
    // sem::finish: a non-finite result is an error wherever it appears.
    if (check_finite) own = own.is_false() ? !f.finite(*r) : own || !f.finite(*r);
    // A computed node's (or constant's) declared domain, in exact evaluation
    // only, unless the op's range implies it (evaluator.cpp domain_implied).
    if (node.domain && exact && !(is_comparison(node.op) && node.domain->lo() <= 0.0 && node.domain->hi() >= 1.0)) {
      const Domain& d = *node.domain;
      const expr w = widen(*r);
      expr out = f.lt(w, f.f64(d.lo())) || f.gt(w, f.f64(d.hi()));
      if (d.is_integral()) out = out || !f.eq(f.nearest_int(w), w);
      own = own.is_false() ? out : own || out;
    }
    t.value[i] = *r;
    t.fail[i] = any_of(c_, {args_fail, own});
  }

  t.fails = global_fail;
  for (const auto& [name, id] : p.outputs) {
    t.output_names.push_back(name);
    t.outputs.push_back(widen(t.value[static_cast<std::size_t>(id)]));
    t.fails = t.fails || t.fail[static_cast<std::size_t>(id)];
  }
  return t;
}

}  // namespace tc::prove
