// The resolver: names, operators, builtins, the signature and static types
// of one function, from its syntax tree alone (see resolver.h).
//
// Types are inferred flow-insensitively: a variable's type joins the types
// of every assignment to it anywhere in the body, and the walk repeats until
// nothing grows (types only grow, over a finite lattice, so it ends). That
// covers every path and every expansion of every loop, which is what the
// lowering's per-iteration types are checked against.
#include "frontend/resolver.h"

#include <cmath>
#include <cstdio>
#include <map>
#include <utility>

#include "frontend/subset.h"

namespace tc::py {

bool StaticType::join(const StaticType& o) {
  StaticType before = *this;
  numbers |= o.numbers;
  shapes |= o.shapes;
  return !(before == *this);
}

StaticType StaticType::element() const {
  constexpr unsigned deepest = 1u << kDeepest;
  StaticType t{numbers, (shapes & ~1u) >> 1};
  if (shapes & deepest) t.shapes |= deepest;  // "kDeepest or more" may be one level less, or still as deep
  return t;
}

StaticType StaticType::listed() const {
  constexpr unsigned deepest = 1u << kDeepest;
  StaticType t{numbers, (shapes << 1) & ((deepest << 1) - 1)};
  if (shapes & (deepest | (deepest >> 1))) t.shapes |= deepest;
  return t;
}

std::string type_text(unsigned ty) {
  std::string out;
  for (auto [bit, name] : {std::pair{kB, "bool"}, std::pair{kI, "int"}, std::pair{kF, "float"}})
    if (ty & bit) out += (out.empty() ? "" : " or ") + std::string(name);
  return out.empty() ? "nothing" : out;
}

std::string static_type_text(const StaticType& t) {
  std::string out;
  for (unsigned k = 0; k <= StaticType::kDeepest; ++k) {
    if (!(t.shapes & (1u << k))) continue;
    if (!out.empty()) out += " or ";
    for (unsigned d = 0; d < k; ++d) out += "list of ";
    if (k == StaticType::kDeepest) out += "(or deeper) ";
    out += type_text(t.numbers);
  }
  return out.empty() ? "nothing" : out;
}

const char* spelling(ArithOp op) {
  switch (op) {
    case ArithOp::Add: return "+";
    case ArithOp::Sub: return "-";
    case ArithOp::Mul: return "*";
    case ArithOp::Div: return "/";
    case ArithOp::FloorDiv: return "//";
    case ArithOp::Mod: return "%";
    case ArithOp::Pow: return "**";
  }
  return "?";
}

Op circuit_op(ArithOp op) {
  switch (op) {
    case ArithOp::Add: return Op::Add;
    case ArithOp::Sub: return Op::Sub;
    case ArithOp::Mul:
    case ArithOp::Pow: return Op::Mul;
    case ArithOp::Div: return Op::Div;
    case ArithOp::FloorDiv: return Op::FloorDiv;
    case ArithOp::Mod: return Op::Mod;
  }
  return Op::Add;
}

Op circuit_op(CmpOp op) {
  switch (op) {
    case CmpOp::Lt: return Op::Lt;
    case CmpOp::Le: return Op::Le;
    case CmpOp::Gt: return Op::Gt;
    case CmpOp::Ge: return Op::Ge;
    case CmpOp::Eq: return Op::Eq;
    case CmpOp::Ne: return Op::Ne;
  }
  return Op::Eq;
}

CmpOp negated(CmpOp op) {
  switch (op) {
    case CmpOp::Lt: return CmpOp::Ge;
    case CmpOp::Le: return CmpOp::Gt;
    case CmpOp::Gt: return CmpOp::Le;
    case CmpOp::Ge: return CmpOp::Lt;
    case CmpOp::Eq: return CmpOp::Ne;
    case CmpOp::Ne: return CmpOp::Eq;
  }
  return op;
}

CmpOp flipped(CmpOp op) {
  switch (op) {
    case CmpOp::Lt: return CmpOp::Gt;
    case CmpOp::Le: return CmpOp::Ge;
    case CmpOp::Gt: return CmpOp::Lt;
    case CmpOp::Ge: return CmpOp::Le;
    case CmpOp::Eq:
    case CmpOp::Ne: return op;
  }
  return op;
}

bool compare_values(CmpOp op, double a, double b) {
  switch (op) {
    case CmpOp::Lt: return a < b;
    case CmpOp::Le: return a <= b;
    case CmpOp::Gt: return a > b;
    case CmpOp::Ge: return a >= b;
    case CmpOp::Eq: return a == b;
    case CmpOp::Ne: return a != b;
  }
  return false;
}

double exact_limit(Dtype d) { return d == Dtype::Float32 ? 16777216.0 : 9007199254740992.0; }

std::string exact_limit_text(Dtype d, HintSpelling hints) {
  return d == Dtype::Float32 ? std::string("2^24 (beyond it float32, the ") +
                                   (hints == HintSpelling::Cli ? "--dtype" : "dtype=") +
                                   ", does not represent every integer exactly)"
                             : "2^53 (beyond it float64 does not represent every integer exactly)";
}

std::string number_text(double v) {
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e18) return std::to_string(static_cast<long long>(v));
  if (std::isinf(v)) return v > 0 ? "infinity" : "-infinity";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

const ExprInfo* Resolution::find(const Expr& e) const {
  auto it = exprs.find(&e);
  return it == exprs.end() ? nullptr : &it->second;
}

const StmtInfo* Resolution::find(const Stmt& s) const {
  auto it = stmts.find(&s);
  return it == stmts.end() ? nullptr : &it->second;
}

namespace {

std::optional<ArithOp> arith_of(const std::string& s) {
  if (s == "+") return ArithOp::Add;
  if (s == "-") return ArithOp::Sub;
  if (s == "*") return ArithOp::Mul;
  if (s == "/") return ArithOp::Div;
  if (s == "//") return ArithOp::FloorDiv;
  if (s == "%") return ArithOp::Mod;
  if (s == "**") return ArithOp::Pow;
  return std::nullopt;
}

std::optional<CmpOp> cmp_of(const std::string& s) {
  if (s == "<") return CmpOp::Lt;
  if (s == "<=") return CmpOp::Le;
  if (s == ">") return CmpOp::Gt;
  if (s == ">=") return CmpOp::Ge;
  if (s == "==") return CmpOp::Eq;
  if (s == "!=") return CmpOp::Ne;
  return std::nullopt;
}

Builtin builtin_of(const std::string& s, Op& op) {
  if (auto o = op_from_python(s)) {
    op = *o;
    return Builtin::TableOp;
  }
  static const std::pair<const char*, Builtin> composed[] = {
      {"abs", Builtin::Abs},     {"min", Builtin::Min},           {"max", Builtin::Max},
      {"round", Builtin::Round}, {"int", Builtin::Int},           {"float", Builtin::Float},
      {"pow", Builtin::Pow},     {"divmod", Builtin::DivMod},     {"isinstance", Builtin::IsInstance},
      {"len", Builtin::Len}};
  for (const auto& [name, b] : composed)
    if (s == name) return b;
  return Builtin::None;
}

// Python's result type of `a op b` on numbers (the lowering's rule).
unsigned arith_numbers(ArithOp op, unsigned a, unsigned b) {
  if (op == ArithOp::Div) return kF;
  // A float exponent (only a constant one compiles) makes a float, as in Python.
  if (op == ArithOp::Pow) return (int_like(a) && int_like(b) ? kI : 0u) | ((a | (b & kF)) & kF);
  return (int_like(a) && int_like(b) ? kI : 0u) | ((a | b) & kF);
}

// The type of `a op b`: numbers combine by the operator; a list operand
// means concatenation or repetition, a list of the list operands' elements.
StaticType arith_type(ArithOp op, const StaticType& a, const StaticType& b) {
  StaticType t;
  t.numbers = arith_numbers(op, a.numbers, b.numbers);
  if ((a.number() && b.number()) || op == ArithOp::Pow) t.shapes = 1u;
  if (a.list() || b.list()) {
    t.numbers |= a.numbers | b.numbers;
    t.shapes |= (a.shapes | b.shapes) & ~1u;
  }
  return t;
}

// The types of one function's variables and return value: the entry
// function's live in the Resolution, a helper's here (joined over every
// call, so each helper is typed once for all its call sites).
struct Frame {
  const FunctionDef* fn = nullptr;
  std::set<std::string> assigned;
  std::unordered_map<std::string, StaticType>* vars = nullptr;
  StaticType* returns = nullptr;
};
struct HelperTypes {
  std::set<std::string> assigned;
  std::unordered_map<std::string, StaticType> vars;
  StaticType returns;
  bool collected = false;
};

unsigned isinstance_bits(const Expr& t, bool& ok) {
  if (t.kind == ExprKind::Tuple) {
    unsigned bits = 0;
    for (const auto& k : t.kids) bits |= isinstance_bits(*k, ok);
    return bits;
  }
  if (t.kind == ExprKind::Name) {
    if (t.text == "int") return kB | kI;  // bool is a subclass of int
    if (t.text == "float") return kF;
    if (t.text == "bool") return kB;
    if (t.text == "complex") return 0;
  }
  ok = false;
  return 0;
}

static_assert(kB == 1 && kI == 2 && kF == 4, "module_scope.cpp's ModuleConstant::type uses these bits");

class Resolver {
 public:
  Resolver(const FunctionDef& fn, const ModuleScope& scope, const CompileOptions& o, Resolution& r)
      : fn_(fn), scope_(scope), o_(o), r_(r) {}

  Status run() {
    Frame entry;
    entry.fn = &fn_;
    collect(fn_.body, entry.assigned);
    entry.vars = &r_.variables;
    entry.returns = &r_.returns;
    cur_ = &entry;
    if (Status st = signature(); !st) return st;
    stack_.push_back(&fn_);
    do {
      changed_ = false;
      walked_.clear();
      block(fn_.body);
    } while (changed_);
    return ok_status();
  }

 private:
  void collect(const std::vector<StmtPtr>& body, std::set<std::string>& out) {
    for (const auto& s : body) {
      for (const auto& t : s->targets) collect_target(*t, out);
      collect(s->body, out);
      collect(s->orelse, out);
    }
  }
  void collect_target(const Expr& t, std::set<std::string>& out) {
    if (t.kind == ExprKind::Name) out.insert(t.text);
    if (t.kind == ExprKind::Tuple || t.kind == ExprKind::List)
      for (const auto& k : t.kids) collect_target(*k, out);
  }

  Status signature() {
    std::set<std::string> names;
    for (const Param& p : fn_.params) {
      if (!names.insert(p.name).second) return make_error("duplicate parameter '" + p.name + "'", p.loc);
      if (is_supported_builtin(p.name) || p.name == "range")
        return make_error("parameter '" + p.name + "' hides the builtin of the same name: rename it", p.loc);
    }
    for (const auto& [name, domain] : o_.inputs)
      if (!names.count(name)) {
        std::string list;
        for (const Param& p : fn_.params) list += (list.empty() ? "" : ", ") + p.name;
        return make_error((o_.hints == HintSpelling::Cli ? "--input '" + name + "'" : "inputs[\"" + name + "\"]") +
                              " names no parameter of '" + fn_.name + "' (its parameters: " +
                              (list.empty() ? "none" : list) + ")",
                          fn_.name_loc);
      }
    const double limit = exact_limit(o_.dtype);
    for (const Param& p : fn_.params) {
      ParamInfo info;
      info.name = p.name;
      info.loc = p.loc;
      const Domain* dom = nullptr;
      for (const auto& [name, domain] : o_.inputs)
        if (name == p.name) dom = &domain;
      if (!dom) {
        const HintSpelling h = o_.hints;
        info.error = make_error("parameter '" + p.name + "' has no input domain: give it with " +
                                    hints::input(h, p.name, "DOMAIN") + " (e.g. " +
                                    hints::domain(h, "int32", "-128", "127") + ", " + hints::domain(h, "bool") + ", " +
                                    hints::domain(h, "float64", "-1", "1") + ")",
                                p.loc);
      } else {
        info.domain = *dom;
        info.type = dom->type == DomainType::Boolean ? kB : dom->type == DomainType::Int32 ? kI : kF;
        info.lo = dom->lo();
        info.hi = dom->hi();
        if (dom->is_integral() && !(info.lo > -limit && info.hi < limit))
          info.error = make_error("input '" + p.name + "' ranges over [" + number_text(info.lo) + ", " +
                                      number_text(info.hi) + "], beyond " + exact_limit_text(o_.dtype, o_.hints) +
                                      ": narrow its domain",
                                  p.loc);
      }
      r_.variables[p.name] = StaticType::scalar(info.type);
      r_.params.push_back(std::move(info));
    }
    return ok_status();
  }

  void bind(const Expr& t, const StaticType& type) {
    if (t.kind == ExprKind::Name) {
      if ((*cur_->vars)[t.text].join(type)) changed_ = true;
      return;
    }
    if (t.kind == ExprKind::Tuple || t.kind == ExprKind::List)
      for (const auto& k : t.kids) bind(*k, type.element());
  }

  void block(const std::vector<StmtPtr>& body) {
    for (const auto& s : body)
      if (!s->deferred) stmt(*s);  // outside the subset: raised if the lowering reaches it
  }

  void stmt(const Stmt& s) {
    StmtInfo info;
    switch (s.kind) {
      case StmtKind::Assign:
      case StmtKind::AnnAssign: {
        if (!s.value) break;
        StaticType v = expr(*s.value);
        for (const auto& t : s.targets) bind(*t, v);
        break;
      }
      case StmtKind::AugAssign: {
        if (!s.value || s.targets.empty()) break;
        info.arith = arith_of(s.text).value_or(ArithOp::Add);
        StaticType cur = expr(*s.targets[0]);
        StaticType rhs = expr(*s.value);
        // Like `x = x OP rhs`: `s *= a, 2` repeats the tuple, so s may become a list.
        bind(*s.targets[0], arith_type(info.arith, cur, rhs));
        break;
      }
      case StmtKind::Return:
        if (s.value && cur_->returns->join(expr(*s.value)) && cur_->fn != &fn_) changed_ = true;
        break;
      case StmtKind::If:
        if (s.value) expr(*s.value);
        block(s.body);
        block(s.orelse);
        break;
      case StmtKind::For:
        for_loop(s, info);
        break;
      case StmtKind::Assert:
        expr(*s.value);
        break;
      case StmtKind::Expr:  // a call on its own line (the subset refused any other expression)
        if (s.value->kind == ExprKind::Call) expr(*s.value);
        break;
      case StmtKind::Raise:  // an exception class and a literal message: nothing to resolve
      case StmtKind::Pass:
      case StmtKind::Break:
      case StmtKind::Continue:
      case StmtKind::Def:
      case StmtKind::Import:
      case StmtKind::Unsupported:
        break;
    }
    r_.stmts[&s] = std::move(info);
  }

  void for_loop(const Stmt& s, StmtInfo& info) {
    if (!s.value || s.targets.empty()) return;
    const Expr& it = *s.value;
    info.range = it.kind == ExprKind::Call && !it.kids.empty() && it.kids[0]->kind == ExprKind::Name &&
                 it.kids[0]->text == "range";
    if (info.range) {
      const std::size_t n = it.kids.size() - 1;
      if (n < 1 || n > 3) info.error = make_error("range() takes 1 to 3 arguments", it.loc);
      for (std::size_t k = 1; k < it.kids.size(); ++k) expr(*it.kids[k]);
      bind(*s.targets[0], StaticType::scalar(kI));
    } else {
      bind(*s.targets[0], expr(it).element());
    }
    block(s.body);
    block(s.orelse);
  }

  StaticType expr(const Expr& e) {
    // Filled in place (references into an unordered_map survive the
    // insertions of the subexpressions), so deep expressions do not carry
    // an ExprInfo in every stack frame.
    ExprInfo& info = r_.exprs[&e];
    info = ExprInfo{};
    const StaticType t = type_of(e, info);
    info.type = t;
    return t;
  }

  StaticType type_of(const Expr& e, ExprInfo& info) {
    switch (e.kind) {
      case ExprKind::Name:
        return name(e, info);
      case ExprKind::Number:
        if (e.too_large)
          info.error = make_error(
              "integer literal " + quote_user(e.text) + " is beyond 2^53, where float64 stops representing integers exactly",
              e.loc);
        else if (!e.is_float && std::fabs(e.number) >= exact_limit(o_.dtype))
          info.error = make_error("integer literal " + quote_user(e.text) + " is beyond " + exact_limit_text(o_.dtype, o_.hints), e.loc);
        return StaticType::scalar(e.is_float ? kF : kI);
      case ExprKind::Bool:
        return StaticType::scalar(kB);
      case ExprKind::Tuple:
      case ExprKind::List: {
        StaticType items;
        for (const auto& k : e.kids) items.join(expr(*k));
        StaticType t = items.listed();
        if (e.kids.empty()) t.shapes = 2u;  // an empty list
        return t;
      }
      case ExprKind::Binary: {
        StaticType a = expr(*e.kids[0]);
        StaticType b = expr(*e.kids[1]);
        info.arith = arith_of(e.text).value_or(ArithOp::Add);
        return arith_type(info.arith, a, b);
      }
      case ExprKind::Unary: {
        StaticType a = expr(*e.kids[0]);
        if (e.text == "-") return StaticType::scalar((int_like(a.numbers) ? kI : 0u) | (a.numbers & kF));
        if (e.text == "not") return StaticType::scalar(kB);
        // +True is 1; a value that may be a bool may become an int.
        return StaticType::scalar(a.numbers | ((a.numbers & kB) ? kI : 0u));
      }
      case ExprKind::BoolOp: {
        StaticType t;
        for (const auto& k : e.kids) t.join(expr(*k));
        return t;
      }
      case ExprKind::Compare:
        for (const auto& k : e.kids) expr(*k);
        for (const std::string& op : e.ops) info.cmps.push_back(cmp_of(op).value_or(CmpOp::Eq));
        return StaticType::scalar(kB);
      case ExprKind::IfExp: {
        expr(*e.kids[0]);
        StaticType t = expr(*e.kids[1]);
        t.join(expr(*e.kids[2]));
        return t;
      }
      case ExprKind::Call:
        return call(e, info);
      case ExprKind::Subscript: {
        StaticType a = expr(*e.kids[0]);
        expr(*e.kids[1]);
        return a.element();
      }
      case ExprKind::Attribute:
        if (math_constant(e, info)) return StaticType::scalar(kF);
        break;
      case ExprKind::NoneLit:
      case ExprKind::String:
      case ExprKind::Unsupported:
        break;
    }
    for (const auto& k : e.kids) expr(*k);
    return {kB | kI | kF, ~0u & ((2u << StaticType::kDeepest) - 1)};
  }

  // Out of line, as call() and helper(): expr() and type_of() recurse once
  // per level of an expression (up to 1,000), so what is inlined into them
  // is paid for in every frame.
  // math.pi and the other constants of the math module.
  [[gnu::noinline]] bool math_constant(const Expr& e, ExprInfo& info) const {
    if (!scope_.is_math_module(*e.kids[0])) return false;
    const MathMember m = math_member(e.text);
    if (m.kind != MathKind::Constant) return false;
    info.name = NameKind::Constant;
    info.constant = m.value;
    return true;
  }

  [[gnu::noinline]] StaticType name(const Expr& e, ExprInfo& info) {
    const std::string& n = e.text;
    if (cur_->assigned.count(n) || is_param(n)) {
      info.name = NameKind::Variable;
      info.unbound = make_error("name '" + n + "' is used before it is assigned", e.loc);
      auto it = cur_->vars->find(n);
      return it == cur_->vars->end() ? StaticType{} : it->second;
    }
    // Python looks in the module (its functions, constants and imports), then in the builtins.
    if (auto c = scope_.constants.find(n); c != scope_.constants.end()) {
      info.name = NameKind::Constant;
      info.constant = c->second.value;
      info.constant_type = c->second.type;
      return StaticType::scalar(c->second.type);
    }
    if (scope_.functions.count(n)) {
      info.name = NameKind::Function;
      info.error = make_error("'" + n + "' is a function: functions are not values; call it, e.g. " + n + "(...)",
                              e.loc);
      return {};
    }
    if (const ImportBinding* b = scope_.import(n)) {
      info.name = NameKind::Undefined;
      if (b->module == "math" && !b->member.empty()) {
        const MathMember m = math_member(b->member);
        if (m.kind == MathKind::Constant) {
          info.name = NameKind::Constant;
          info.constant = m.value;
          return StaticType::scalar(kF);
        }
        info.error = make_error("'" + n + "' is a function of the math module: call it, e.g. " + n + "(x)", e.loc);
      } else if (b->module == "math") {
        info.error = make_error("'" + n + "' is the math module: use one of its members, e.g. " + n + ".floor(x)",
                                e.loc);
      } else {
        info.error = make_error("'" + n + "' comes from '" + b->module + "': it may be used only in annotations",
                                e.loc);
      }
      return {};
    }
    if (is_supported_builtin(n)) {
      info.name = NameKind::Builtin;
      info.error = make_error("'" + n + "' is a builtin function: call it, e.g. " + n + "(x)", e.loc);
    } else if (n == "range") {
      info.name = NameKind::Range;
      info.error = make_error("range() is only supported as the iterable of a for loop", e.loc);
    } else {
      info.name = NameKind::Undefined;
      // compile() in Python reads only the function's own source: a
      // module-level constant is the usual reason, so say how to pass it.
      info.error = make_error(o_.hints == HintSpelling::Cli
                                  ? "name '" + n + "' is not defined"
                                  : "name '" + n + "' is not defined: module-level names are not captured (compile() "
                                    "reads only the function's source); pass the value as an input (add a parameter "
                                    "'" + n + "' with " + hints::input(o_.hints, n, "float64(...)") +
                                    ") or write it as a constant in the function",
                              e.loc);
    }
    return {};
  }

  bool is_param(const std::string& n) const {
    for (const Param& p : cur_->fn->params)
      if (p.name == n) return true;
    return false;
  }

  [[gnu::noinline]] StaticType arity_error(ExprInfo& info, const Expr& e, const std::string& f, int lo, int hi) {
    info.error = make_error(f + "() takes " + builtin_arity_text(lo, hi), e.loc);
    return {};
  }

  [[gnu::noinline]] StaticType call(const Expr& e, ExprInfo& info) {
    const Expr& callee = *e.kids[0];
    std::string f = callee.text;
    std::vector<StaticType> args;
    for (std::size_t i = 1; i < e.kids.size(); ++i) args.push_back(expr(*e.kids[i]));
    const auto n = static_cast<int>(args.size());
    unsigned all = 0;
    for (const StaticType& a : args) all |= a.numbers;
    const unsigned as_int = (int_like(all) ? kI : 0u) | (all & kF);
    // What the callee names: a member of math, a function of this file, a builtin.
    std::string member;
    if (callee.kind == ExprKind::Attribute && scope_.is_math_module(*callee.kids[0])) {
      member = callee.text;
      f = callee.kids[0]->text + "." + callee.text;
    } else if (callee.kind == ExprKind::Name && !scope_.functions.count(f)) {
      if (const ImportBinding* b = scope_.import(f); b && b->module == "math" && !b->member.empty()) member = b->member;
    }
    if (!member.empty()) {
      const MathMember m = math_member(member);
      info.builtin = Builtin::Math;
      info.math = member;
      if (m.kind != MathKind::Composed) {
        info.error = make_error("calling '" + f + "' is not supported yet", e.loc);
        return {};
      }
      if (n < m.min_args || (m.max_args >= 0 && n > m.max_args)) return arity_error(info, e, f, m.min_args, m.max_args);
      if (member == "floor" || member == "ceil" || member == "trunc") return StaticType::scalar(kI);
      if (member == "isfinite" || member == "isinf" || member == "isnan") return StaticType::scalar(kB);
      return StaticType::scalar(kF);  // fabs, radians, degrees, pow
    }
    if (callee.kind == ExprKind::Name && scope_.functions.count(f)) return helper(e, info, f, args);
    info.builtin = builtin_of(f, info.op);
    switch (info.builtin) {
      case Builtin::TableOp: {
        // Arity and result type from the op's row (min_args..max_args, kPyFloat).
        const OpInfo& row = op_info(info.op);
        if (n < row.min_args || (row.max_args >= 0 && n > row.max_args))
          return arity_error(info, e, f, row.min_args, row.max_args);
        return StaticType::scalar(row.has(kPyFloat) ? kF : all);
      }
      case Builtin::Abs:
        if (n != 1) return arity_error(info, e, f, 1, 1);
        return StaticType::scalar(as_int);
      case Builtin::Min:
      case Builtin::Max:
        return StaticType::scalar(all);
      case Builtin::Round:
        if (n < 1 || n > 2) return arity_error(info, e, f, 1, 2);
        // round(x) is an int; round(x, n) has x's type.
        return StaticType::scalar(n == 1 ? kI : (int_like(args[0].numbers) ? kI : 0u) | (args[0].numbers & kF));
      case Builtin::Int:
        if (n != 1) return arity_error(info, e, f, 1, 1);
        return StaticType::scalar(kI);
      case Builtin::Float:
        if (n != 1) return arity_error(info, e, f, 1, 1);
        return StaticType::scalar(kF);
      case Builtin::Pow:
        if (n != 2) {
          if (n == 3) info.error = make_error("pow() with a modulus is not supported: write (a ** b) % m", e.loc);
          else arity_error(info, e, f, 2, 2);
          return {};
        }
        return StaticType::scalar(arith_numbers(ArithOp::Pow, args[0].numbers, args[1].numbers));
      case Builtin::DivMod:
        if (n != 2) return arity_error(info, e, f, 2, 2);
        return StaticType::scalar(arith_numbers(ArithOp::FloorDiv, args[0].numbers, args[1].numbers)).listed();
      case Builtin::IsInstance: {
        if (n != 2) return arity_error(info, e, f, 2, 2);
        bool ok = true;
        info.isinstance_types = isinstance_bits(*e.kids[2], ok);
        if (!ok)
          info.error = make_error("isinstance() is supported with int, float or bool, or a tuple of them, as its "
                                  "second argument",
                                  e.kids[2]->loc);
        return StaticType::scalar(kB);
      }
      case Builtin::Len:
        if (n != 1) return arity_error(info, e, f, 1, 1);
        return StaticType::scalar(kI);
      case Builtin::Math:
      case Builtin::Helper:
      case Builtin::None:
        break;
    }
    info.error = make_error("calling '" + f + "' is not supported", e.loc);
    return {};
  }

  // A call of a function of this file: its parameters' types join the
  // arguments' (over every call), its body is walked in its own frame, and
  // the call has its return type. A cycle of calls is refused at the call
  // that closes it, naming the functions on the way.
  [[gnu::noinline]] StaticType helper(const Expr& e, ExprInfo& info, const std::string& f,
                                      const std::vector<StaticType>& args) {
    const FunctionDef* g = scope_.functions.at(f);
    info.builtin = Builtin::Helper;
    info.callee = g;
    if (!g) {
      info.error = make_error("calling '" + f + "' is not supported", e.loc);
      return {};
    }
    for (std::size_t k = 0; k < stack_.size(); ++k)
      if (stack_[k] == g) {
        std::string path = "'" + stack_[k]->name + "' calls '" + (k + 1 < stack_.size() ? stack_[k + 1]->name : f) + "'";
        for (std::size_t j = k + 2; j <= stack_.size(); ++j)
          path += ", which calls '" + (j < stack_.size() ? stack_[j]->name : f) + "'";
        info.error = make_error("recursion is not supported: " + path +
                                    "; write the computation as a bounded loop",
                                e.loc);
        return {};
      }
    if (stack_.size() >= kMaxInlineDepth) {
      info.error = make_error("calls of this file's functions are nested more than " +
                                  std::to_string(kMaxInlineDepth) + " deep: simplify the chain of calls",
                              e.loc);
      return {};
    }
    if (args.size() != g->params.size()) {
      info.error = make_error(f + "() takes " + std::to_string(g->params.size()) + " positional argument" +
                                  (g->params.size() == 1 ? "" : "s") + " but " + std::to_string(args.size()) +
                                  (args.size() == 1 ? " was" : " were") + " given",
                              e.loc);
      return {};
    }
    HelperTypes& h = helpers_[g];
    if (!h.collected) {
      collect(g->body, h.assigned);
      h.collected = true;
    }
    for (std::size_t k = 0; k < args.size(); ++k)
      if (h.vars[g->params[k].name].join(args[k])) changed_ = true;
    if (walked_.insert(g).second) {
      Frame frame;
      frame.fn = g;
      frame.assigned = h.assigned;
      frame.vars = &h.vars;
      frame.returns = &h.returns;
      Frame* outer = cur_;
      cur_ = &frame;
      stack_.push_back(g);
      block(g->body);
      stack_.pop_back();
      cur_ = outer;
    }
    return h.returns;
  }

  const FunctionDef& fn_;
  const ModuleScope& scope_;
  const CompileOptions& o_;
  Resolution& r_;
  Frame* cur_ = nullptr;
  std::vector<const FunctionDef*> stack_;
  std::map<const FunctionDef*, HelperTypes> helpers_;
  std::set<const FunctionDef*> walked_;  // helpers whose body this pass has walked
  bool changed_ = false;
};

}  // namespace

Result<Resolution> resolve(const FunctionDef& fn, const ModuleScope& scope, const CompileOptions& o) {
  Resolution r;
  Resolver resolver(fn, scope, o, r);
  if (Status st = resolver.run(); !st) return st.error();
  return r;
}

Result<Resolution> resolve(const FunctionDef& fn, const std::set<std::string>& functions, const CompileOptions& o) {
  ModuleScope scope;
  for (const std::string& f : functions) scope.functions.emplace(f, nullptr);
  return resolve(fn, scope, o);
}

}  // namespace tc::py
