#include "frontend/module_scope.h"

#include <cmath>
#include <optional>
#include <set>

#include "ir/kernels.h"
#include "ir/op.h"

namespace tc::py {

namespace {

struct Row {
  const char* name;
  MathKind kind;
  double value;
  int min_args, max_args;
};

// Every member of CPython 3.11's math module. Composed ones are lowered in
// lower_math.cpp from ops of the table; NotYet ones need an op of their own.
constexpr double kPi = 3.141592653589793;
constexpr Row kMath[] = {
    {"pi", MathKind::Constant, kPi, 0, 0},
    {"e", MathKind::Constant, 2.718281828459045, 0, 0},
    {"tau", MathKind::Constant, 6.283185307179586, 0, 0},
    {"inf", MathKind::NotYet, 0, 0, 0},
    {"nan", MathKind::NotYet, 0, 0, 0},
    {"floor", MathKind::Composed, 0, 1, 1},
    {"ceil", MathKind::Composed, 0, 1, 1},
    {"trunc", MathKind::Composed, 0, 1, 1},
    {"fabs", MathKind::Composed, 0, 1, 1},
    {"radians", MathKind::Composed, 0, 1, 1},
    {"degrees", MathKind::Composed, 0, 1, 1},
    {"isfinite", MathKind::Composed, 0, 1, 1},
    {"isinf", MathKind::Composed, 0, 1, 1},
    {"isnan", MathKind::Composed, 0, 1, 1},
    {"pow", MathKind::Composed, 0, 2, 2},
    {"sqrt", MathKind::NotYet, 0, 1, 1},
    {"exp", MathKind::NotYet, 0, 1, 1},
    {"exp2", MathKind::NotYet, 0, 1, 1},
    {"expm1", MathKind::NotYet, 0, 1, 1},
    {"log", MathKind::NotYet, 0, 1, 2},
    {"log1p", MathKind::NotYet, 0, 1, 1},
    {"log2", MathKind::NotYet, 0, 1, 1},
    {"log10", MathKind::NotYet, 0, 1, 1},
    {"sin", MathKind::NotYet, 0, 1, 1},
    {"cos", MathKind::NotYet, 0, 1, 1},
    {"tan", MathKind::NotYet, 0, 1, 1},
    {"asin", MathKind::NotYet, 0, 1, 1},
    {"acos", MathKind::NotYet, 0, 1, 1},
    {"atan", MathKind::NotYet, 0, 1, 1},
    {"atan2", MathKind::NotYet, 0, 2, 2},
    {"sinh", MathKind::NotYet, 0, 1, 1},
    {"cosh", MathKind::NotYet, 0, 1, 1},
    {"tanh", MathKind::NotYet, 0, 1, 1},
    {"asinh", MathKind::NotYet, 0, 1, 1},
    {"acosh", MathKind::NotYet, 0, 1, 1},
    {"atanh", MathKind::NotYet, 0, 1, 1},
    {"hypot", MathKind::NotYet, 0, 0, -1},
    {"dist", MathKind::NotYet, 0, 2, 2},
    {"copysign", MathKind::NotYet, 0, 2, 2},
    {"fmod", MathKind::NotYet, 0, 2, 2},
    {"remainder", MathKind::NotYet, 0, 2, 2},
    {"modf", MathKind::NotYet, 0, 1, 1},
    {"frexp", MathKind::NotYet, 0, 1, 1},
    {"ldexp", MathKind::NotYet, 0, 2, 2},
    {"isqrt", MathKind::NotYet, 0, 1, 1},
    {"cbrt", MathKind::NotYet, 0, 1, 1},
    {"factorial", MathKind::NotYet, 0, 1, 1},
    {"gcd", MathKind::NotYet, 0, 0, -1},
    {"lcm", MathKind::NotYet, 0, 0, -1},
    {"comb", MathKind::NotYet, 0, 2, 2},
    {"perm", MathKind::NotYet, 0, 1, 2},
    {"isclose", MathKind::NotYet, 0, 2, 2},
    {"erf", MathKind::NotYet, 0, 1, 1},
    {"erfc", MathKind::NotYet, 0, 1, 1},
    {"gamma", MathKind::NotYet, 0, 1, 1},
    {"lgamma", MathKind::NotYet, 0, 1, 1},
    {"fsum", MathKind::NotYet, 0, 1, 1},
    {"prod", MathKind::NotYet, 0, 1, 1},
    {"nextafter", MathKind::NotYet, 0, 2, 2},
    {"ulp", MathKind::NotYet, 0, 1, 1},
};

bool allowed_module(const std::string& m) { return m == "math" || m == "__future__" || m == "typing"; }

}  // namespace

const ImportBinding* ModuleScope::import(const std::string& name) const {
  auto it = imports.find(name);
  return it == imports.end() ? nullptr : &it->second;
}

bool ModuleScope::is_math_module(const Expr& e) const {
  if (e.kind != ExprKind::Name) return false;
  const ImportBinding* b = import(e.text);
  return b && b->module == "math" && b->member.empty();
}

// A member the op table spells (ops.def's kMathModule rows) is lowered to
// its op, whatever its row above says.
static MathKind kind_of(const Row& r) { return op_from_math(r.name) ? MathKind::Composed : r.kind; }

MathMember math_member(const std::string& name) {
  for (const Row& r : kMath)
    if (name == r.name) return {kind_of(r), r.value, r.min_args, r.max_args};
  return {};
}

std::string math_supported_text() {
  std::string out;
  for (const Row& r : kMath)
    if (kind_of(r) == MathKind::Constant || kind_of(r) == MathKind::Composed) out += (out.empty() ? "" : ", ") + std::string(r.name);
  return out;
}

Status check_import(const Stmt& s) {
  if (!allowed_module(s.text))
    return make_error("importing '" + s.text + "' is not supported: only the math module (and __future__ and typing, "
                      "for annotations) can be imported",
                      s.loc);
  if (s.text == "math")
    for (const ImportedName& n : s.imports)
      if (!n.member.empty() && n.member != "*" && math_member(n.member).kind == MathKind::Unknown)
        return make_error("cannot import name '" + n.member + "' from 'math': it has no such member", n.loc);
  return ok_status();
}

namespace {

constexpr unsigned kBool = 1, kInt = 2, kFloat = 4;  // the resolver's kB, kI, kF
constexpr double kExact = 9007199254740992.0;          // 2^53

struct NotConstant {
  Diagnostic d;
};
[[noreturn]] void not_constant(const std::string& why, SourceLoc loc) {
  throw NotConstant{make_error("a module-level assignment must give a constant: " + why, loc)};
}

ModuleConstant number(double v, unsigned type, SourceLoc loc) {
  if (type != kFloat && !(std::fabs(v) < kExact)) not_constant("this integer is beyond 2^53", loc);
  if (type == kFloat && !std::isfinite(v)) not_constant("this value overflows to infinity", loc);
  if (type != kFloat && v == 0.0) v = 0.0;  // an integer zero has no sign
  return {v, type, loc};
}

// CPython's value of a constant expression (ints exact below 2^53, floats
// through the same IEEE operations and C library calls).
ModuleConstant evaluate(const Expr& e, const ModuleScope& scope) {
  auto is_int = [](const ModuleConstant& c) { return c.type != kFloat; };
  auto power = [&](const ModuleConstant& a, const ModuleConstant& b, SourceLoc loc) {
    if (is_int(a) && is_int(b) && b.value >= 0) {
      double r = 1;
      for (double k = 0; k < b.value; ++k) {
        r *= a.value;
        if (!(std::fabs(r) < kExact)) not_constant("this power is beyond 2^53", loc);
      }
      return number(r, kInt, loc);
    }
    if (a.value == 0.0 && b.value < 0) not_constant("0 to a negative power divides by zero", loc);
    return number(std::pow(a.value, b.value), kFloat, loc);  // CPython's float pow calls pow()
  };
  switch (e.kind) {
    case ExprKind::Number:
      if (e.too_large) not_constant("this integer is beyond 2^53", e.loc);
      return number(e.number, e.is_float ? kFloat : kInt, e.loc);
    case ExprKind::Bool:
      return number(e.number, kBool, e.loc);
    case ExprKind::Name: {
      auto c = scope.constants.find(e.text);
      if (c != scope.constants.end()) return {c->second.value, c->second.type, e.loc};
      if (const ImportBinding* b = scope.import(e.text); b && b->module == "math")
        if (MathMember m = math_member(b->member); m.kind == MathKind::Constant) return {m.value, kFloat, e.loc};
      not_constant("'" + e.text + "' is not a constant defined before it", e.loc);
    }
    case ExprKind::Attribute:
      if (scope.is_math_module(*e.kids[0]))
        if (MathMember m = math_member(e.text); m.kind == MathKind::Constant) return {m.value, kFloat, e.loc};
      break;
    case ExprKind::Unary: {
      ModuleConstant a = evaluate(*e.kids[0], scope);
      if (e.text == "-") return number(-a.value, a.type == kBool ? kInt : a.type, e.loc);
      if (e.text == "+") return number(a.value, a.type == kBool ? kInt : a.type, e.loc);
      if (e.text == "not") return number(a.value == 0.0 ? 1 : 0, kBool, e.loc);
      break;
    }
    case ExprKind::Binary: {
      ModuleConstant a = evaluate(*e.kids[0], scope);
      ModuleConstant b = evaluate(*e.kids[1], scope);
      const unsigned type = is_int(a) && is_int(b) ? kInt : kFloat;
      if (e.text == "+") return number(a.value + b.value, type, e.loc);
      if (e.text == "-") return number(a.value - b.value, type, e.loc);
      if (e.text == "*") return number(a.value * b.value, type, e.loc);
      if (e.text == "**") return power(a, b, e.loc);
      if (e.text == "/" || e.text == "//" || e.text == "%") {
        if (b.value == 0.0) not_constant("division by zero", e.loc);
        if (e.text == "/") return number(a.value / b.value, kFloat, e.loc);
        if (e.text == "//") return number(kernels::py_floordiv(a.value, b.value), type, e.loc);
        return number(kernels::py_mod(a.value, b.value), type, e.loc);
      }
      break;
    }
    case ExprKind::Call: {
      const Expr& f = *e.kids[0];
      if (f.kind != ExprKind::Name || !e.problem.empty() || scope.functions.count(f.text) || scope.import(f.text))
        break;
      std::vector<ModuleConstant> args;
      for (std::size_t k = 1; k < e.kids.size(); ++k) args.push_back(evaluate(*e.kids[k], scope));
      if (f.text == "pow" && args.size() == 2) return power(args[0], args[1], e.loc);
      if (args.size() != 1) break;
      const ModuleConstant& x = args[0];
      if (f.text == "float") return number(x.value, kFloat, e.loc);
      if (f.text == "int") return number(std::trunc(x.value), kInt, e.loc);
      if (f.text == "abs") return number(std::fabs(x.value), x.type == kBool ? kInt : x.type, e.loc);
      if (f.text == "round") return number(is_int(x) ? x.value : std::nearbyint(x.value), kInt, e.loc);
      break;
    }
    default:
      break;
  }
  not_constant("only numbers, earlier constants, the math module's constants, arithmetic and pow, float, int, "
               "abs and round are allowed",
               e.loc);
}

void add(const Stmt& s, ModuleScope& scope) {
  if (s.kind == StmtKind::Import && allowed_module(s.text)) {
    for (const ImportedName& n : s.imports) {
      if (n.member == "*") {
        if (s.text == "math")
          for (const Row& r : kMath) scope.imports[r.name] = {"math", r.name, n.loc};
        continue;
      }
      scope.imports[n.as] = {s.text, n.member, n.loc};
    }
  }
  for (const auto& b : s.body) add(*b, scope);
  for (const auto& b : s.orelse) add(*b, scope);
}

}  // namespace

ModuleScope module_scope(const Module& module) {
  ModuleScope scope;
  for (const auto& s : module.body) {
    if (s->kind == StmtKind::Def) {
      scope.functions.emplace(s->def->name, s->def.get());
      for (const auto& b : s->def->body) add(*b, scope);
    } else if (s->kind != StmtKind::Assign && s->kind != StmtKind::AnnAssign) {
      add(*s, scope);
    }
  }
  // Constants in source order, each seeing the ones before it.
  for (const auto& s : module.body) {
    if ((s->kind != StmtKind::Assign && s->kind != StmtKind::AnnAssign) || !s->value) continue;
    try {
      for (const auto& t : s->targets)
        if (t->kind != ExprKind::Name) not_constant("assign one name, e.g. G = 6.674e-11", t->loc);
      const ModuleConstant c = evaluate(*s->value, scope);
      for (const auto& t : s->targets) scope.constants[t->text] = c;
    } catch (const NotConstant& n) {
      scope.not_constant.emplace(s.get(), n.d);
      for (const auto& t : s->targets)
        if (t->kind == ExprKind::Name) scope.constants.erase(t->text);
    }
  }
  return scope;
}

}  // namespace tc::py
