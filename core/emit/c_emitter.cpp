#include "emit/c_emitter.h"
#include "emit/emit_form.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <set>
#include <unordered_map>

namespace tc::emit {

namespace {

/// Exact C99 spelling of a finite double (hexadecimal float).
std::string c_double(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%a", v);
  return buf;
}

std::string kind_lit(ErrorKind k) { return std::to_string(static_cast<unsigned>(k)); }

/// A C identifier made of `text`: other bytes become '_'.
std::string identifier(const std::string& text) {
  std::string s;
  for (unsigned char ch : text) s += std::isalnum(ch) ? static_cast<char>(ch) : '_';
  if (s.empty()) s = "_";
  return s;
}

/// C string literal of arbitrary bytes (octal escapes for anything unusual).
std::string c_string(const std::string& text) {
  std::string s = "\"";
  for (unsigned char ch : text) {
    if (ch == '"' || ch == '\\') {
      s += '\\';
      s += static_cast<char>(ch);
    } else if (ch < 32 || ch >= 127 || ch == '?') {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\%03o", ch);
      s += buf;
    } else {
      s += static_cast<char>(ch);
    }
  }
  return s + "\"";
}

/// Comment text safe inside /* */ and on one line.
std::string comment(const std::string& text) {
  std::string s;
  for (unsigned char ch : text) s += (ch < 32 || ch >= 127) ? '?' : static_cast<char>(ch);
  for (std::size_t p; (p = s.find("*/")) != std::string::npos;) s.replace(p, 2, "*?");
  return s;
}

class CGen {
 public:
  CGen(const CheckedPlan& plan, const CExportOptions& o) : p_(plan), prog_(plan.program), o_(o) {
    const std::size_t n = prog_.nodes.size();
    has_f_.assign(n, 0);
    has_k_.assign(n, 0);
  }

  CExport run() {
    params_of_api();
    forward();
    liveness();
    errors();
    return assemble();
  }

 private:
  const CheckedPlan& p_;
  const Program& prog_;
  const CExportOptions& o_;
  std::vector<std::string> lines_;
  std::vector<std::uint8_t> has_f_, has_k_;
  std::vector<std::string> in_params_, out_params_;
  bool use_r32_ = false, use_floordiv_ = false, use_mod_ = false, use_sigmoid_ = false;

  void line(const std::string& s) { lines_.push_back(s); }

  /// The function body without the `const` declarations nothing reads
  /// (liveness and failed flags that no check needs), so that the code
  /// compiles cleanly with -Wall. Linear: each removal releases the names
  /// its right-hand side reads.
  std::string body() const {
    std::unordered_map<std::string, std::size_t> index;  // declared name -> line
    std::vector<std::vector<std::size_t>> reads(lines_.size());
    std::vector<std::size_t> uses(lines_.size(), 0);
    auto declared = [](const std::string& l) -> std::string {
      for (const char* prefix : {"const int ", "const double "})
        if (l.rfind(prefix, 0) == 0) {
          const std::size_t b = std::strlen(prefix), e = l.find(' ', b);
          return l.substr(b, e - b);
        }
      return {};
    };
    for (std::size_t i = 0; i < lines_.size(); ++i)
      if (auto d = declared(lines_[i]); !d.empty()) index.emplace(d, i);
    for (std::size_t i = 0; i < lines_.size(); ++i) {
      const std::string& l = lines_[i];
      const std::string self = declared(l);
      for (std::size_t p = 0; p < l.size();) {
        if (!std::isalnum(static_cast<unsigned char>(l[p])) && l[p] != '_') {
          ++p;
          continue;
        }
        std::size_t q = p;
        while (q < l.size() && (std::isalnum(static_cast<unsigned char>(l[q])) || l[q] == '_')) ++q;
        const std::string word = l.substr(p, q - p);
        p = q;
        if (word == self) continue;
        auto it = index.find(word);
        if (it == index.end()) continue;
        reads[i].push_back(it->second);
        ++uses[it->second];
      }
    }
    std::vector<std::uint8_t> dropped(lines_.size(), 0);
    std::vector<std::size_t> work;
    for (const auto& [name, i] : index)
      if (uses[i] == 0) work.push_back(i);
    while (!work.empty()) {
      const std::size_t i = work.back();
      work.pop_back();
      if (dropped[i]) continue;
      dropped[i] = 1;
      for (std::size_t r : reads[i])
        if (--uses[r] == 0) work.push_back(r);
    }
    std::string out;
    for (std::size_t i = 0; i < lines_.size(); ++i)
      if (!dropped[i]) out += "  " + lines_[i] + "\n";
    return out;
  }
  static std::string v(NodeId id) { return "v" + std::to_string(id); }
  static std::string f(NodeId id) { return "f" + std::to_string(id); }
  static std::string k(NodeId id) { return "k" + std::to_string(id); }
  static std::string L(NodeId id) { return "L" + std::to_string(id); }

  /// The float32 dtype's rounding of an expression (identity in float64).
  std::string R(const std::string& e) {
    if (!p_.f32) return e;
    use_r32_ = true;
    return o_.name + "_r32(" + e + ")";
  }

  /// Parameter names of the scalar function: in_/out_ + the name, unique.
  void params_of_api() {
    std::set<std::string> used;
    auto unique = [&](std::string s) {
      std::string base = s;
      for (int i = 2; used.count(s); ++i) s = base + "_" + std::to_string(i);
      used.insert(s);
      return s;
    };
    for (NodeId id : p_.inputs) in_params_.push_back(unique("in_" + identifier(prog_.nodes[static_cast<std::size_t>(id)].name)));
    for (const auto& [name, id] : prog_.outputs) out_params_.push_back(unique("out_" + identifier(name)));
  }

  static std::string domain_fails(const std::string& x, const Domain& d) {
    std::string ok = "(" + x + " >= " + c_double(d.lo()) + " && " + x + " <= " + c_double(d.hi());
    if (d.is_integral()) ok += " && " + x + " == floor(" + x + ")";
    return "!" + ok + ")";
  }

  void fail_line(NodeId id, const std::string& cond, ErrorKind kind) {
    line("if (" + cond + ") { *error_node = " + std::to_string(id) + "; return " + kind_lit(kind) + "; }");
  }

  /// Reads and checks the inputs in ascending id order, like the evaluator
  /// before it evaluates any node: the first rejected input is the error.
  void inputs() {
    for (std::size_t k = 0; k < p_.inputs.size(); ++k) {
      const NodeId id = p_.inputs[k];
      const Node& node = prog_.nodes[static_cast<std::size_t>(id)];
      const Domain& d = *node.domain;
      line("double " + v(id) + " = in[" + std::to_string(k) + "]; /* input " +
           comment(node.name) + " */");
      fail_line(id, "!isfinite(" + v(id) + ")", ErrorKind::NonFinite);
      fail_line(id, domain_fails(v(id), d), ErrorKind::Domain);
      if (p_.f32 || d.type == DomainType::Float32) {
        use_r32_ = true;
        const std::string r = "r" + std::to_string(id);
        line("{ double " + r + " = " + o_.name + "_r32(" + v(id) + ");");
        line("  if (!isfinite(" + r + ")) { *error_node = " + std::to_string(id) + "; return " +
             kind_lit(ErrorKind::NonFinite) + "; }");
        if (d.is_integral())
          line("  if (" + r + " != " + v(id) + ") { *error_node = " + std::to_string(id) + "; return " +
               kind_lit(ErrorKind::Domain) + "; }");
        line("  " + v(id) + " = " + r + "; }");
      }
    }
  }

  /// `fI` (the evaluator's failed flag) as an expression, "0" when it is
  /// statically false.
  std::string fexpr(NodeId id) const { return has_f_[static_cast<std::size_t>(id)] ? f(id) : "0"; }

  void forward() {
    inputs();
    for (std::size_t i = 0; i < prog_.nodes.size(); ++i) {
      if (!p_.needed[i]) continue;
      const auto id = static_cast<NodeId>(i);
      const Node& node = prog_.nodes[i];
      if (node.op == Op::Input) continue;
      forward_node(id, node);
    }
  }

  void forward_node(NodeId id, const Node& node) {
    const auto i = static_cast<std::size_t>(id);
    const EmitForm form = emit_form(node);  // a composition is written as the op it is
    const auto& a = form.args;
    auto arg = [&](std::size_t j) { return v(a[j]); };
    // (condition, kind) pairs in the evaluator's order of checks.
    std::vector<std::pair<std::string, ErrorKind>> checks;
    std::string value;
    const std::string out = v(id);
    auto finite_check = [&] { checks.push_back({"!isfinite(" + out + ")", ErrorKind::NonFinite}); };
    std::string fail_extra;  // select: the failed flags it depends on
    switch (form.op) {
      case Op::Input:
      case Op::State:
      case Op::Call:
        return;  // inputs are read up front; state and calls are refused by the plan
      case Op::Constant:
        value = std::isfinite(p_.value[i]) ? c_double(p_.value[i]) : "0.0";
        line("const double " + out + " = " + value + "; /* constant " + comment(std::to_string(node.value)) + " */");
        if (p_.leaf_error[i]) {
          line("const int " + k(id) + " = " + std::to_string(p_.leaf_error[i]) + ";");
          line("const int " + f(id) + " = 1;");
          has_k_[i] = has_f_[i] = 1;
        }
        return;
      case Op::Parameter:
        line("const double " + out + " = " + c_double(p_.value[i]) + "; /* parameter " + comment(node.name) + " */");
        return;
      case Op::Add: value = R(arg(0) + " + " + arg(1)); finite_check(); break;
      case Op::Sub: value = R(arg(0) + " - " + arg(1)); finite_check(); break;
      case Op::Mul: value = R(arg(0) + " * " + arg(1)); finite_check(); break;
      case Op::Neg: value = "-" + arg(0); finite_check(); break;
      case Op::Div:
        value = R(arg(0) + " / " + arg(1));
        checks.push_back({arg(1) + " == 0.0", ErrorKind::DivisionByZero});
        finite_check();
        break;
      case Op::FloorDiv:
      case Op::Mod:
        (node.op == Op::FloorDiv ? use_floordiv_ : use_mod_) = true;
        value = R(o_.name + (node.op == Op::FloorDiv ? "_floordiv(" : "_mod(") + arg(0) + ", " + arg(1) + ")");
        checks.push_back({arg(1) + " == 0.0", ErrorKind::DivisionByZero});
        finite_check();
        break;
      case Op::Lt: value = "(" + arg(0) + " < " + arg(1) + " ? 1.0 : 0.0)"; break;
      case Op::Le: value = "(" + arg(0) + " <= " + arg(1) + " ? 1.0 : 0.0)"; break;
      case Op::Gt: value = "(" + arg(0) + " > " + arg(1) + " ? 1.0 : 0.0)"; break;
      case Op::Ge: value = "(" + arg(0) + " >= " + arg(1) + " ? 1.0 : 0.0)"; break;
      case Op::Eq: value = "(" + arg(0) + " == " + arg(1) + " ? 1.0 : 0.0)"; break;
      case Op::Ne: value = "(" + arg(0) + " != " + arg(1) + " ? 1.0 : 0.0)"; break;
      case Op::Select: {
        value = "(" + arg(0) + " != 0.0 ? " + arg(1) + " : " + arg(2) + ")";
        // Failed when the condition failed, or the chosen branch did.
        const std::string fc = fexpr(a[0]), fy = fexpr(a[1]), fn = fexpr(a[2]);
        std::string chosen = fy == "0" && fn == "0" ? "" : "(" + arg(0) + " != 0.0 ? " + fy + " : " + fn + ")";
        if (fc != "0") fail_extra = fc;
        if (!chosen.empty()) fail_extra += (fail_extra.empty() ? "" : " || ") + chosen;
        break;
      }
      case Op::Relu: value = "(" + arg(0) + " > 0.0 ? " + arg(0) + " : 0.0)"; break;
      case Op::Sigmoid:
        use_sigmoid_ = true;
        value = R(o_.name + "_sigmoid(" + arg(0) + ")");
        break;
      case Op::Gather: {
        const std::size_t count = a.size() - 1;
        value = arg(count);
        for (std::size_t j = count - 1; j-- > 0;)
          value = "(" + arg(0) + " == " + c_double(static_cast<double>(j)) + " ? " + arg(j + 1) + " : " + value + ")";
        checks.push_back({"!(" + arg(0) + " >= 0.0 && " + arg(0) + " < " + c_double(static_cast<double>(count)) + " && " +
                              arg(0) + " == floor(" + arg(0) + "))",
                          ErrorKind::InvalidIndex});
        break;
      }
      case Op::GatherOneHot: {
        const std::size_t half = a.size() / 2;
        value = "0.0";
        std::string bad, ones;
        for (std::size_t j = half; j-- > 0;) value = "(" + arg(j) + " == 1.0 ? " + arg(half + j) + " : " + value + ")";
        for (std::size_t j = 0; j < half; ++j) {
          bad += (j ? " || " : "") + std::string("(") + arg(j) + " != 0.0 && " + arg(j) + " != 1.0)";
          ones += (j ? " + " : "") + std::string("(") + arg(j) + " == 1.0)";
        }
        checks.push_back({bad + " || " + ones + " != 1", ErrorKind::OneHotSelection});
        break;
      }
      case Op::Affine:
      case Op::SparseAffine: {
        // acc = c0*x0, then acc + ci*xi in order, then + bias, rounding
        // (float32) after every product and every sum, as the evaluator.
        const LinearTerms& lin = node.linear();
        std::string acc;
        for (std::size_t j = 0; j < lin.coefficients.size(); ++j) {
          const NodeId x = node.op == Op::Affine ? a[j] : a[static_cast<std::size_t>(lin.indices[j])];
          const std::string term = R(c_double(plan_round(p_, lin.coefficients[j])) + " * " + v(x));
          acc = acc.empty() ? term : R("(" + acc + ") + (" + term + ")");
        }
        if (lin.bias) acc = R("(" + acc + ") + " + c_double(plan_round(p_, *lin.bias)));
        value = acc;
        finite_check();
        break;
      }
      default: no_emitter_form("c", node.op);
    }
    line("const double " + out + " = " + value + "; /* " + comment(describe_node(prog_, id)) + " */");
    if (p_.check_domain[i]) checks.push_back({domain_fails(out, *node.domain), ErrorKind::Domain});
    if (!checks.empty()) {
      std::string e = "0";
      for (auto it = checks.rbegin(); it != checks.rend(); ++it) e = it->first + " ? " + kind_lit(it->second) + " : " + e;
      line("const int " + k(id) + " = " + e + ";");
      has_k_[i] = 1;
    }
    if (!p_.may_fail[i]) return;
    std::string fe = has_k_[i] ? k(id) + " != 0" : "";
    if (node.op == Op::Select) {
      if (!fail_extra.empty()) fe += (fe.empty() ? "" : " || ") + fail_extra;
    } else {
      for (NodeId x : a)
        if (has_f_[static_cast<std::size_t>(x)]) fe += (fe.empty() ? "" : " || ") + f(x);
    }
    if (fe.empty()) return;
    line("const int " + f(id) + " = " + fe + ";");
    has_f_[i] = 1;
  }

  /// Visited flags, from the outputs down: an argument edge holds when its
  /// user is visited; a select's branch edge also needs a condition that did
  /// not fail and that chose it.
  void liveness() {
    for (std::size_t i = prog_.nodes.size(); i-- > 0;) {
      if (!p_.needed[i] || p_.always_live[i] || prog_.nodes[i].op == Op::Input) continue;
      const auto id = static_cast<NodeId>(i);
      std::string e;
      for (const UseEdge& edge : p_.users[i]) {
        const Node& u = prog_.nodes[static_cast<std::size_t>(edge.user)];
        std::string term = p_.always_live[static_cast<std::size_t>(edge.user)] ? "" : L(edge.user);
        if (edge.kind != UseEdge::Always) {
          const NodeId c = u.args[0];
          std::string cond = v(c) + (edge.kind == UseEdge::SelectYes ? " != 0.0" : " == 0.0");
          if (has_f_[static_cast<std::size_t>(c)]) cond = "!" + f(c) + " && " + cond;
          term = term.empty() ? cond : term + " && " + cond;
        }
        if (term.empty()) term = "1";
        e += (e.empty() ? "" : " || ") + std::string("(") + term + ")";
      }
      if (e.empty()) e = "0";
      line("const int " + L(id) + " = " + e + ";");
    }
  }

  /// The lowest visited node whose own check failed is the error.
  void errors() {
    for (std::size_t i = 0; i < prog_.nodes.size(); ++i) {
      if (!p_.needed[i] || !has_k_[i]) continue;
      const auto id = static_cast<NodeId>(i);
      std::string cond = k(id) + " != 0";
      if (!p_.always_live[i]) cond = L(id) + " && " + cond;
      line("if (" + cond + ") { *error_node = " + std::to_string(id) + "; return " + k(id) + "; }");
    }
    for (std::size_t m = 0; m < p_.output_nodes.size(); ++m)
      line("out[" + std::to_string(m) + "] = " + v(p_.output_nodes[m]) + ";");
    line("*error_node = -1;");
    line("return 0;");
  }

  std::string declarations() const {
    const std::string& nm = o_.name;
    std::string up;
    for (char ch : nm) up += static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    std::string h;
    h += "#ifndef TC_ERROR_KINDS_DEFINED\n#define TC_ERROR_KINDS_DEFINED\n";
    h += "/* Why a case failed (0: it did not). */\n";
    h += "enum tc_error_kind {\n  TC_OK = 0,\n  TC_NON_FINITE = 1,        /* NaN or infinity (also float32 overflow) */\n"
         "  TC_DIVISION_BY_ZERO = 2,  /* div, floordiv or mod by zero */\n"
         "  TC_INVALID_INDEX = 3,     /* gather index not an integer in [0, n) */\n"
         "  TC_ONE_HOT_SELECTION = 4, /* gather_one_hot selectors not 0/1 with exactly one 1 */\n"
         "  TC_DOMAIN = 5             /* value (or input) outside its domain */\n};\n#endif\n\n";
    h += "#define " + up + "_INPUT_COUNT " + std::to_string(p_.inputs.size()) + "\n";
    h += "#define " + up + "_OUTPUT_COUNT " + std::to_string(p_.output_nodes.size()) + "\n";
    h += "/* Input names (input id order) and output names (artifact order). */\n";
    h += "extern const char *const " + nm + "_input_names[" + std::to_string(std::max<std::size_t>(1, p_.inputs.size())) + "];\n";
    h += "extern const char *const " + nm + "_output_names[" + std::to_string(p_.output_nodes.size()) + "];\n\n";
    h += "/* One case. Returns TC_OK or a tc_error_kind and stores the failing node\n"
         "   id in *error_node (-1 on success); outputs are written on success only. */\n";
    h += "int " + nm + "(" + scalar_params() + ");\n\n";
    h += "/* `count` cases, row-major: inputs[c * " + up + "_INPUT_COUNT + k], outputs[c * " + up +
         "_OUTPUT_COUNT + m]\n   (NaN where the case failed). errors[c] and error_nodes[c] as above; either may be\n"
         "   NULL. Returns the number of failed cases. */\n";
    h += "long " + nm + "_cases(long count, const double *inputs, double *outputs, int *errors, long *error_nodes);\n";
    return h;
  }

  std::string scalar_params() const {
    std::string s;
    for (const auto& n : in_params_) s += "double " + n + ", ";
    for (const auto& n : out_params_) s += "double *" + n + ", ";
    return s + "long *error_node";
  }

  std::string helpers() const {
    const std::string& nm = o_.name;
    std::string s;
    if (use_r32_)
      s += "/* The float32 dtype's rounding: to the nearest binary32 (ties to even) and\n"
           "   back; magnitudes from the midpoint of FLT_MAX and 2^128 up become infinite,\n"
           "   as in IEEE 754 (a plain conversion of them is undefined in C). */\n"
           "static double " + nm + "_r32(double x) {\n"
           "  if (!(fabs(x) < 0x1.ffffffp+127)) return x != x ? x : (x > 0.0 ? HUGE_VAL : -HUGE_VAL);\n"
           "  return (double)(float)x;\n}\n\n";
    if (use_floordiv_ || use_mod_)
      s += "/* Python's float divmod (CPython floatobject.c); b is not zero when used. */\n"
           "static void " + nm + "_divmod(double a, double b, double *div_out, double *mod_out) {\n"
           "  double mod = fmod(a, b);\n  double div = (a - mod) / b;\n  double floordiv;\n"
           "  if (mod != 0.0) {\n    if ((b < 0.0) != (mod < 0.0)) { mod += b; div -= 1.0; }\n"
           "  } else {\n    mod = copysign(0.0, b);\n  }\n"
           "  if (div != 0.0) {\n    floordiv = floor(div);\n    if (div - floordiv > 0.5) floordiv += 1.0;\n"
           "  } else {\n    floordiv = copysign(0.0, a / b);\n  }\n"
           "  *div_out = floordiv;\n  *mod_out = mod;\n}\n";
    if (use_floordiv_)
      s += "static double " + nm + "_floordiv(double a, double b) { double d, m; " + nm + "_divmod(a, b, &d, &m); return d; }\n";
    if (use_mod_)
      s += "static double " + nm + "_mod(double a, double b) { double d, m; " + nm + "_divmod(a, b, &d, &m); return m; }\n";
    if (use_floordiv_ || use_mod_) s += "\n";
    if (use_sigmoid_)
      s += "/* Overflow-free logistic: 1/(1+exp(-x)) for x >= 0, exp(x)/(1+exp(x)) otherwise. */\n"
           "static double " + nm + "_sigmoid(double x) {\n  double e;\n  if (x >= 0.0) return 1.0 / (1.0 + exp(-x));\n"
           "  e = exp(x);\n  return e / (1.0 + e);\n}\n\n";
    return s;
  }

  CExport assemble() {
    const std::string& nm = o_.name;
    std::string up;
    for (char ch : nm) up += static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    CExport out;
    const std::string guard = up + "_H";
    const std::string about =
        "/* Generated by tensorcode (emit --target c): the checked circuit in C99, computed\n"
        "   like the CPU evaluator (" +
        std::string(p_.f32 ? "binary64 arithmetic rounded to binary32 after every node" : "binary64 arithmetic") +
        "), bit for bit.\n   Compile without contraction and fast-math, e.g. cc -std=c99 -O2 -ffp-contract=off;\n"
        "   link with -lm. See docs/backends.md. */\n";
    out.header = about + "#ifndef " + guard + "\n#define " + guard + "\n\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n" +
                 declarations() + "\n#ifdef __cplusplus\n}\n#endif\n\n#endif\n";
    std::string s = about;
    s += "#pragma STDC FP_CONTRACT OFF\n#include <math.h>\n";
    if (o_.header_file.empty()) s += "\n" + declarations() + "\n";
    else s += "#include " + c_string(o_.header_file) + "\n\n";
    s += "const char *const " + nm + "_input_names[" + std::to_string(std::max<std::size_t>(1, p_.inputs.size())) + "] = {";
    for (std::size_t k = 0; k < p_.inputs.size(); ++k)
      s += (k ? ", " : "") + c_string(prog_.nodes[static_cast<std::size_t>(p_.inputs[k])].name);
    if (p_.inputs.empty()) s += "0";
    s += "};\nconst char *const " + nm + "_output_names[" + std::to_string(p_.output_nodes.size()) + "] = {";
    for (std::size_t m = 0; m < prog_.outputs.size(); ++m) s += (m ? ", " : "") + c_string(prog_.outputs[m].first);
    s += "};\n\n";
    s += helpers();
    s += "/* in[k]: input k (input id order); out[m]: output m (artifact order). */\n";
    s += "static int " + nm + "_eval(const double *in, double *out, long *error_node) {\n";
    if (p_.inputs.empty()) s += "  (void)in;\n";
    s += body() + "}\n\n";
    s += "int " + nm + "(" + scalar_params() + ") {\n";
    s += "  double in[" + std::to_string(std::max<std::size_t>(1, p_.inputs.size())) + "], out[" +
         std::to_string(p_.output_nodes.size()) + "] = {0.0};\n  int code;\n";
    for (std::size_t k = 0; k < in_params_.size(); ++k) s += "  in[" + std::to_string(k) + "] = " + in_params_[k] + ";\n";
    if (in_params_.empty()) s += "  in[0] = 0.0;\n";
    s += "  code = " + nm + "_eval(in, out, error_node);\n  if (code != 0) return code;\n";
    for (std::size_t m = 0; m < out_params_.size(); ++m) s += "  *" + out_params_[m] + " = out[" + std::to_string(m) + "];\n";
    s += "  return 0;\n}\n\n";
    s += "long " + nm + "_cases(long count, const double *inputs, double *outputs, int *errors, long *error_nodes) {\n";
    s += "  long c, failed = 0;\n  int m;\n";
    s += "  for (c = 0; c < count; ++c) {\n    long node;\n";
    s += "    double *out = outputs + c * " + up + "_OUTPUT_COUNT;\n";
    s += "    int code = " + nm + "_eval(inputs + c * " + up + "_INPUT_COUNT, out, &node);\n";
    s += "    if (code != 0) {\n      ++failed;\n      for (m = 0; m < " + up + "_OUTPUT_COUNT; ++m) out[m] = NAN;\n    }\n";
    s += "    if (errors) errors[c] = code;\n    if (error_nodes) error_nodes[c] = node;\n  }\n  return failed;\n}\n";
    out.source = std::move(s);
    return out;
  }
};

}  // namespace

bool valid_c_name(const std::string& name) {
  if (name.empty() || name.size() > 63) return false;
  if (!(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_')) return false;
  for (unsigned char ch : name)
    if (!(std::isalnum(ch) || ch == '_')) return false;
  if (name[0] == '_' && name.size() > 1 && (name[1] == '_' || std::isupper(static_cast<unsigned char>(name[1]))))
    return false;  // reserved for the implementation
  static const std::set<std::string> keywords = {
      "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum", "extern",
      "float", "for", "goto", "if", "inline", "int", "long", "register", "restrict", "return", "short", "signed",
      "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned", "void", "volatile", "while", "_Bool",
      "_Complex", "_Imaginary", "main"};
  return !keywords.count(name);
}

CExport emit_c(const CheckedPlan& plan, const CExportOptions& options) {
  CGen g(plan, options);
  return g.run();
}

Result<CExport> emit_c(const Program& program, const CExportOptions& options) {
  if (!valid_c_name(options.name))
    return make_error("'" + quote_user(options.name) +
                      "' cannot name the C functions: use a C identifier (letters, digits, '_'; not a keyword, "
                      "not starting with a digit, '__' or '_' and a capital)");
  auto plan = make_checked_plan(program, "c");
  if (!plan.ok()) return plan.error();
  return emit_c(*plan, options);
}

}  // namespace tc::emit
