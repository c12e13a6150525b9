#include "emit/wgsl_emitter.h"
#include "codegen/emit_form.h"
#include "ir/math_functions.h"

#include "base/bits.h"
#include <cmath>
#include <cstdio>
#include <map>

namespace tc::emit {

// The plans this emitter reads (which nodes are live, what each checks) are codegen's.
using namespace codegen;

std::string wgsl_float(float v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%af", static_cast<double>(v));
  return buf;
}

namespace {

std::string u32lit(std::uint32_t v) { return std::to_string(v) + "u"; }

/// Writes one shader: the whole circuit, a forward stage or a reverse stage.
class Gen {
 public:
  enum Mode { Whole, StageForward, StageReverse };

  Gen(const Plan& plan, Mode mode, NodeId lo, NodeId hi, bool first_reverse)
      : p_(plan), prog_(plan.program), mode_(mode), lo_(lo), hi_(hi), first_reverse_(first_reverse) {
    const std::size_t n = prog_.nodes.size();
    have_v_.assign(n, 0);
    have_l_.assign(n, 0);
    input_col_.assign(n, -1);
    for (std::size_t k = 0; k < p_.inputs.size(); ++k) input_col_[static_cast<std::size_t>(p_.inputs[k])] = static_cast<int>(k);
  }

  std::string run() {
    if (mode_ == Whole || mode_ == StageForward) forward();
    if (mode_ == Whole || mode_ == StageReverse) reverse();
    return assemble();
  }

 private:
  const Plan& p_;
  const Program& prog_;
  Mode mode_;
  NodeId lo_, hi_;
  bool first_reverse_;
  std::string body_;
  std::vector<std::uint8_t> have_v_, have_l_;
  std::vector<int> input_col_;
  std::map<std::uint32_t, std::string> consts_;  // bit pattern -> name, ordered for stable output
  std::vector<std::string> const_decls_;
  std::vector<std::string> kind_;  // [node] name of its kind let, "" when it cannot fail
  bool staged() const { return mode_ != Whole; }
  bool in_range(NodeId id) const { return id >= lo_ && id < hi_; }

  void line(const std::string& s) { body_ += "    " + s + "\n"; }

  std::string konst(float f) {
    auto bits = float_bits(f);
    auto it = consts_.find(bits);
    if (it != consts_.end()) return it->second;
    std::string name = "K" + std::to_string(consts_.size());
    consts_.emplace(bits, name);
    const_decls_.push_back("const " + name + ": f32 = " + wgsl_float(f) + ";");
    return name;
  }

  static std::string v(NodeId id) { return "v" + std::to_string(id); }

  /// Expression for node `id`'s float32 value, loading it from the values
  /// buffer (once) when another stage computed it.
  std::string val(NodeId id) {
    const auto i = static_cast<std::size_t>(id);
    const Node& node = prog_.nodes[i];
    if (node.op == Op::Constant || node.op == Op::Parameter)
      return p_.leaf_nonfinite[i] ? "0.0f" : konst(p_.leaf_value[i]);
    if (!have_v_[i]) {
      TC_ASSERT(staged());
      line("let " + v(id) + ": f32 = values[" + u32lit(static_cast<std::uint32_t>(id)) + " * n + c];");
      have_v_[i] = 1;
    }
    return v(id);
  }

  /// Liveness of `id` as a bool expression.
  std::string live(NodeId id) {
    const auto i = static_cast<std::size_t>(id);
    if (p_.always_live[i]) return "true";
    if (!have_l_[i]) {
      TC_ASSERT(staged() && !in_range(id));
      line("let L" + std::to_string(id) + ": bool = aux[" + u32lit(static_cast<std::uint32_t>(id)) + " * n + c] != 0u;");
      have_l_[i] = 1;
    }
    return "L" + std::to_string(id);
  }

  static std::string nonfinite(const std::string& x) {
    return "(bitcast<u32>(" + x + ") & 0x7f800000u) == 0x7f800000u";
  }

  // Constants are numbered (K0, K1, ...) in the order konst() first meets
  // them, and val() calls konst() for a constant leaf. The order in which
  // the operands of one expression are evaluated is the C++ compiler's own
  // (gcc went right to left, clang left to right), so the emitter spells
  // every operand that may name a constant in a statement of its own, in
  // the order gcc's builds always used: the shader is then the same text
  // whichever compiler built tensorcode.
  std::string infix(const NodeArgs& args, const char* op) {
    const std::string b = val(args[1]);
    const std::string a = val(args[0]);
    return a + op + b;
  }

  std::string domain_fails(const std::string& x, const F32Check& c) {
    if (c.empty) return "true";
    // One konst() per statement (see spell_right_to_left): hi, then lo.
    const std::string hi = konst(c.hi);
    const std::string lo = konst(c.lo);
    std::string ok = "(" + x + " >= " + lo + ") && (" + x + " <= " + hi + ")";
    if (c.boolean) ok = "((" + x + " == 0.0f) || (" + x + " == 1.0f))";
    else if (c.integral) ok += " && (floor(" + x + ") == " + x + ")";
    return "!(" + ok + ")";
  }

  /// Emits `let kI: u32 = ...` from (condition, kind) pairs in priority order.
  void emit_kind(NodeId id, const std::vector<std::pair<std::string, ErrorKind>>& checks) {
    if (checks.empty()) return;
    std::string e = "0u";
    for (auto it = checks.rbegin(); it != checks.rend(); ++it)
      e = "select(" + e + ", " + u32lit(static_cast<std::uint32_t>(it->second)) + ", " + it->first + ")";
    const std::string name = "k" + std::to_string(id);
    line("let " + name + ": u32 = " + e + ";");
    kind_[static_cast<std::size_t>(id)] = name;
  }

  /// Whether a forward pass gives node `id` an error-kind let (mirrors forward_node).
  bool can_fail(NodeId id) const {
    return node_can_fail(p_, prog_, id);
  }

  void forward() {
    kind_.assign(prog_.nodes.size(), "");
    std::string input_error = "0u";
    for (NodeId id = lo_; id < hi_; ++id) {
      const auto i = static_cast<std::size_t>(id);
      const Node& node = prog_.nodes[i];
      if (node.op == Op::Input && mode_ == Whole) {
        // Whole shaders check every input column, needed or not, first.
        const std::string x = "inputs[" + u32lit(static_cast<std::uint32_t>(input_col_[i])) + " * n + c]";
        line("let " + v(id) + ": f32 = " + x + ";");
        have_v_[i] = 1;
        std::vector<std::pair<std::string, ErrorKind>> checks{{nonfinite(v(id)), ErrorKind::NonFinite}};
        if (p_.check[i]) checks.push_back({domain_fails(v(id), *p_.check[i]), ErrorKind::Domain});
        emit_kind(id, checks);
        const std::string nm = "ie" + std::to_string(id);
        line("let " + nm + ": u32 = select(" + input_error + ", " + u32lit(encode_error(id, ErrorKind::None)) + " | k" +
             std::to_string(id) + ", " + input_error + " == 0u && k" + std::to_string(id) + " != 0u);");
        input_error = nm;
        continue;
      }
      if (!p_.needed[i]) continue;
      if (node.op == Op::Constant || node.op == Op::Parameter) continue;
      forward_node(id);
      if (mode_ == StageForward) {
        line("values[" + u32lit(static_cast<std::uint32_t>(id)) + " * n + c] = " + v(id) + ";");
        if (!kind_[i].empty()) line("aux[" + u32lit(static_cast<std::uint32_t>(id)) + " * n + c] = " + kind_[i] + ";");
      }
    }
    input_error_ = input_error;
  }
  std::string input_error_ = "0u";

  void forward_node(NodeId id) {
    const auto i = static_cast<std::size_t>(id);
    const Node& node = prog_.nodes[i];
    const EmitForm form = emit_form(node);  // a composition is written as the op it is
    const auto& args = form.args;
    const std::string out = v(id);
    const std::string sid = std::to_string(id);
    std::vector<std::pair<std::string, ErrorKind>> checks;
    auto def = [&](const std::string& e) { line("let " + out + ": f32 = " + e + ";"); };
    auto arith_check = [&] { checks.push_back({nonfinite(out), ErrorKind::NonFinite}); };
    switch (form.op) {
      case Op::Input:  // staged: the host already checked the domain
        def("inputs[" + u32lit(static_cast<std::uint32_t>(input_col_[i])) + " * n + c]");
        break;
      case Op::Parameter:
      case Op::Constant:
      case Op::State:
      case Op::Call:
        TC_ASSERT(false);
        break;
      case Op::Add: def(infix(args, " + ")); arith_check(); break;
      case Op::Sub: def(infix(args, " - ")); arith_check(); break;
      case Op::Mul: def(infix(args, " * ")); arith_check(); break;
      case Op::Neg: def("-" + val(args[0])); arith_check(); break;
      case Op::Div: {
        const std::string b = val(args[1]);
        def(val(args[0]) + " / " + b);
        checks.push_back({b + " == 0.0f", ErrorKind::DivisionByZero});
        arith_check();
        break;
      }
      case Op::FloorDiv:
      case Op::Mod: {
        // Python's divmod with an exact fmod: long division of |a| by |b|
        // over 24 quotient bits (each subtraction is exact by Sterbenz's
        // lemma), then Python's sign fix-up. Quotients of 2^24 or more are
        // refused with an error instead of being approximated.
        const std::string a = val(args[0]), b = val(args[1]);
        line("let A" + sid + ": f32 = abs(" + a + ");");
        line("let B" + sid + ": f32 = abs(" + b + ");");
        std::string r = "A" + sid, q = "0.0f";
        for (int k = 23; k >= 0; --k) {
          const std::string ks = sid + "_" + std::to_string(k);
          const std::string p2 = konst(std::ldexp(1.0f, k));
          line("let b" + ks + ": f32 = B" + sid + " * " + p2 + ";");
          line("let t" + ks + ": bool = " + r + " >= b" + ks + ";");
          line("let r" + ks + ": f32 = select(" + r + ", " + r + " - b" + ks + ", t" + ks + ");");
          line("let q" + ks + ": f32 = select(" + q + ", " + q + " + " + p2 + ", t" + ks + ");");
          r = "r" + ks;
          q = "q" + ks;
        }
        line("let m" + sid + ": f32 = select(" + r + ", -" + r + ", " + a + " < 0.0f);");
        line("let Q" + sid + ": f32 = select(" + q + ", -" + q + ", (" + a + " < 0.0f) != (" + b + " < 0.0f));");
        line("let j" + sid + ": bool = (m" + sid + " != 0.0f) && ((" + b + " < 0.0f) != (m" + sid + " < 0.0f));");
        if (node.op == Op::FloorDiv) def("select(Q" + sid + ", Q" + sid + " - 1.0f, j" + sid + ")");
        else def("select(m" + sid + ", m" + sid + " + " + b + ", j" + sid + ")");
        checks.push_back({b + " == 0.0f", ErrorKind::DivisionByZero});
        checks.push_back({"A" + sid + " >= B" + sid + " * " + konst(16777216.0f), ErrorKind::QuotientRange});
        arith_check();
        break;
      }
      case Op::Raise:  // fails wherever it is live; the value is never read
        def("0.0f");
        checks.push_back({"true", ErrorKind::Raised});
        break;
      case Op::Lt: def("select(0.0f, 1.0f, " + infix(args, " < ") + ")"); break;
      case Op::Le: def("select(0.0f, 1.0f, " + infix(args, " <= ") + ")"); break;
      case Op::Gt: def("select(0.0f, 1.0f, " + infix(args, " > ") + ")"); break;
      case Op::Ge: def("select(0.0f, 1.0f, " + infix(args, " >= ") + ")"); break;
      case Op::Eq: def("select(0.0f, 1.0f, " + infix(args, " == ") + ")"); break;
      case Op::Ne: def("select(0.0f, 1.0f, " + infix(args, " != ") + ")"); break;
      case Op::Select: {
        const std::string c = val(args[0]);
        const std::string t = val(args[1]);
        const std::string f = val(args[2]);
        def("select(" + f + ", " + t + ", " + c + " != 0.0f)");
        break;
      }
      case Op::Relu: {
        const std::string x = val(args[0]);
        def("select(0.0f, " + x + ", " + x + " > 0.0f)");
        break;
      }
      case Op::Sigmoid: {
        // 1/(1+exp(-x)) for x >= 0, exp(x)/(1+exp(x)) otherwise: exp(-|x|) is
        // exp(-x) or exp(x) respectively and never overflows.
        const std::string x = val(args[0]);
        line("let e" + sid + ": f32 = exp(-abs(" + x + "));");
        line("let d" + sid + ": f32 = 1.0f + e" + sid + ";");
        def("select(e" + sid + " / d" + sid + ", 1.0f / d" + sid + ", " + x + " >= 0.0f)");
        break;
      }
      case Op::Sqrt: case Op::Exp: case Op::Expm1: case Op::Log: case Op::Log2: case Op::Log10: case Op::Log1p:
      case Op::Sin: case Op::Cos: case Op::Tan: case Op::Atan: case Op::Tanh: {
        // The row's WGSL builtin, in f32 (math_functions.h; its tolerance
        // class is in docs/evaluator.md).
        const math_fn::Around& w = math_fn::of(form.op).wgsl;
        std::string x = val(args[0]);
        if (w.pre_add != 0.0) x = "(" + konst(static_cast<float>(w.pre_add)) + " + " + x + ")";
        std::string e = std::string(w.name) + "(" + x + ")";
        if (w.post_mul != 1.0) e += " * " + konst(static_cast<float>(w.post_mul));
        if (w.post_add != 0.0) e += (w.post_add < 0 ? " - " : " + ") + konst(static_cast<float>(std::fabs(w.post_add)));
        def(e);
        arith_check();
        break;
      }
      case Op::Gather: {
        const std::string ix = val(args[0]);
        const std::size_t count = args.size() - 1;
        std::string acc = val(args[1]);
        for (std::size_t k = 1; k < count; ++k) {
          const std::string nm = "g" + sid + "_" + std::to_string(k);
          line("let " + nm + ": f32 = select(" + acc + ", " + val(args[k + 1]) + ", " + ix + " == " +
               konst(static_cast<float>(k)) + ");");
          acc = nm;
        }
        def(acc);
        checks.push_back({"!((" + ix + " >= 0.0f) && (" + ix + " < " + konst(static_cast<float>(count)) + ") && (floor(" +
                              ix + ") == " + ix + "))",
                          ErrorKind::InvalidIndex});
        break;
      }
      case Op::GatherOneHot: {
        const std::size_t half = args.size() / 2;
        std::string acc = "0.0f", ones = "0u", bad = "false";
        for (std::size_t k = 0; k < half; ++k) {
          const std::string s = val(args[k]);
          const std::string ks = sid + "_" + std::to_string(k);
          line("let h" + ks + ": f32 = select(" + acc + ", " + val(args[half + k]) + ", " + s + " == 1.0f);");
          line("let m" + ks + ": u32 = " + ones + " + select(0u, 1u, " + s + " == 1.0f);");
          line("let z" + ks + ": bool = " + bad + " || ((" + s + " != 0.0f) && (" + s + " != 1.0f));");
          acc = "h" + ks;
          ones = "m" + ks;
          bad = "z" + ks;
        }
        def(acc);
        checks.push_back({bad + " || (" + ones + " != 1u)", ErrorKind::OneHotSelection});
        break;
      }
      case Op::Affine:
      case Op::SparseAffine: {
        // acc = c0*x0, then acc + ci*xi in order, then + bias: a float32
        // rounding after every product and every sum.
        const LinearTerms& lin = node.linear();
        std::string acc;
        for (std::size_t j = 0; j < lin.coefficients.size(); ++j) {
          const NodeId a = node.op == Op::Affine ? args[j] : args[static_cast<std::size_t>(lin.indices[j])];
          const std::string term = "p" + sid + "_" + std::to_string(j);
          const std::string v = val(a);
          const std::string k = konst(static_cast<float>(lin.coefficients[j]));
          line("let " + term + ": f32 = " + k + " * " + v + ";");
          if (acc.empty()) acc = term;
          else {
            const std::string nm = "s" + sid + "_" + std::to_string(j);
            line("let " + nm + ": f32 = " + acc + " + " + term + ";");
            acc = nm;
          }
        }
        if (acc.empty()) acc = "0.0f";
        if (lin.bias) acc = acc + " + " + konst(static_cast<float>(*lin.bias));
        def(acc);
        arith_check();
        break;
      }
      default: no_emitter_form("wgsl", node.op);
    }
    have_v_[i] = 1;
    if (p_.check[i] && node.op != Op::Input) checks.push_back({domain_fails(out, *p_.check[i]), ErrorKind::Domain});
    emit_kind(id, checks);
  }

  /// Bool expression: the edge from `e.user` into its argument holds.
  std::string edge_holds(const UseEdge& e) {
    const Node& u = prog_.nodes[static_cast<std::size_t>(e.user)];
    const std::string lu = live(e.user);
    std::string cond;
    switch (e.kind) {
      case UseEdge::Always: return lu;
      case UseEdge::SelectYes: cond = val(u.args[0]) + " != 0.0f"; break;
      case UseEdge::SelectNo: cond = val(u.args[0]) + " == 0.0f"; break;
    }
    return lu == "true" ? "(" + cond + ")" : "(" + lu + " && (" + cond + "))";
  }

  void reverse() {
    std::string r = "0u";
    if (mode_ == StageReverse && !first_reverse_) {
      line("let rin: u32 = errors[c];");
      r = "rin";
    }
    if (mode_ == StageReverse && first_reverse_) write_outputs();
    for (NodeId id = hi_; id-- > lo_;) {
      const auto i = static_cast<std::size_t>(id);
      const Node& node = prog_.nodes[i];
      if (!p_.needed[i]) continue;
      if (node.op == Op::Input && mode_ == Whole) continue;  // checked up front
      const bool is_leaf_const = node.op == Op::Constant || node.op == Op::Parameter;
      if (is_leaf_const && !p_.leaf_error[i]) continue;
      // Liveness.
      if (!p_.always_live[i]) {
        std::string e;
        for (const UseEdge& edge : p_.users[i]) e += (e.empty() ? "" : " || ") + edge_holds(edge);
        if (e.empty()) e = "false";
        line("let L" + std::to_string(id) + ": bool = " + e + ";");
        have_l_[i] = 1;
        if (staged()) {
          bool earlier_arg = false;
          for (NodeId a : node.args) earlier_arg = earlier_arg || a < lo_;
          if (earlier_arg)
            line("aux[" + u32lit(static_cast<std::uint32_t>(id)) + " * n + c] = select(0u, 1u, L" + std::to_string(id) + ");");
        }
      }
      // Error accumulation: descending ids, so the lowest live failure wins.
      std::string kind;
      if (is_leaf_const) kind = u32lit(static_cast<std::uint32_t>(p_.leaf_error[i]));
      else if (mode_ == StageReverse) {
        kind = "k" + std::to_string(id);
        line("let " + kind + ": u32 = aux[" + u32lit(static_cast<std::uint32_t>(id)) + " * n + c];");
      } else {
        kind = kind_[i];
      }
      if (kind.empty()) continue;
      const std::string code = u32lit(encode_error(id, ErrorKind::None)) + " | " + kind;
      std::string cond = kind + " != 0u";
      if (!p_.always_live[i]) cond = "L" + std::to_string(id) + " && (" + cond + ")";
      const std::string nm = "r" + std::to_string(id);
      line("let " + nm + ": u32 = select(" + r + ", " + code + ", " + cond + ");");
      r = nm;
    }
    if (mode_ == Whole) {
      write_outputs();
      line("errors[c] = select(" + r + ", " + input_error_ + ", " + input_error_ + " != 0u);");
    } else {
      line("errors[c] = " + r + ";");
    }
  }

  void write_outputs() {
    for (std::size_t k = 0; k < p_.output_nodes.size(); ++k)
      line("outputs[" + u32lit(static_cast<std::uint32_t>(k)) + " * n + c] = " + val(p_.output_nodes[k]) + ";");
  }

  std::string assemble() {
    std::string s;
    s += "// generated by tensorcode: float32, one invocation per case (see docs/backends.md)\n";
    for (const auto& d : const_decls_) s += d + "\n";
    s += "@group(0) @binding(0) var<storage, read> params: array<u32>;\n";
    s += "@group(0) @binding(1) var<storage, read> inputs: array<f32>;\n";
    s += "@group(0) @binding(2) var<storage, read_write> outputs: array<f32>;\n";
    s += "@group(0) @binding(3) var<storage, read_write> errors: array<u32>;\n";
    if (staged()) {
      s += "@group(0) @binding(4) var<storage, read_write> values: array<f32>;\n";
      s += "@group(0) @binding(5) var<storage, read_write> aux: array<u32>;\n";
    }
    s += "@compute @workgroup_size(" + std::to_string(kWorkgroupSize) + ", 1, 1)\n";
    s += "fn main(@builtin(global_invocation_id) gid: vec3<u32>) {\n";
    s += "  let n: u32 = params[0u];\n";
    s += "  let c: u32 = gid.x;\n";
    s += "  if (c < n) {\n";
    s += body_;
    s += "  }\n}\n";
    return s;
  }
};

}  // namespace

std::string emit_wgsl(const Plan& plan) {
  Gen g(plan, Gen::Whole, 0, static_cast<NodeId>(plan.program.nodes.size()), false);
  return g.run();
}

Result<std::string> emit_wgsl(const Program& program) {
  auto plan = make_plan(program, "wgsl");
  if (!plan.ok()) return plan.error();
  return emit_wgsl(*plan);
}

std::vector<WgslStage> emit_wgsl_stages(const Plan& plan, std::size_t max_nodes) {
  if (max_nodes == 0) max_nodes = 1;
  const auto total = static_cast<NodeId>(plan.program.nodes.size());
  std::vector<std::pair<NodeId, NodeId>> ranges;
  NodeId start = 0;
  std::size_t count = 0;
  for (NodeId id = 0; id < total; ++id) {
    const Node& node = plan.program.nodes[static_cast<std::size_t>(id)];
    if (plan.needed[static_cast<std::size_t>(id)]) count += node_cost(node);
    if (count >= max_nodes) {
      ranges.push_back({start, id + 1});
      start = id + 1;
      count = 0;
    }
  }
  if (start < total || ranges.empty()) ranges.push_back({start, total});
  std::vector<WgslStage> out;
  for (auto [lo, hi] : ranges) {
    Gen g(plan, Gen::StageForward, lo, hi, false);
    out.push_back({WgslStage::Forward, lo, hi, g.run()});
  }
  for (std::size_t r = ranges.size(); r-- > 0;) {
    Gen g(plan, Gen::StageReverse, ranges[r].first, ranges[r].second, r + 1 == ranges.size());
    out.push_back({WgslStage::Reverse, ranges[r].first, ranges[r].second, g.run()});
  }
  return out;
}

}  // namespace tc::emit
