// Names (reads, assignments, parameters), branch narrowing of intervals,
// and expressions.
#include "frontend/lowerer.h"

#include <algorithm>
#include <cmath>

#include "ir/op_semantics.h"

namespace tc::py::lowering {

std::optional<double> Lowerer::const_of(const Expr& e, const Env& env) const {
  if (e.kind == ExprKind::Number && !e.too_large) return e.number;
  if (e.kind == ExprKind::Bool) return e.number;
  if (e.kind == ExprKind::Unary && e.text == "-") {
    auto v = const_of(*e.kids[0], env);
    if (v) return -*v;
  }
  if (e.kind == ExprKind::Name) {
    auto it = env.find(e.text);
    if (it != env.end() && !it->second.maybe_unbound && !it->second.conflict && !it->second.v.array &&
        it->second.v.is_const)
      return it->second.v.c;
  }
  return std::nullopt;
}

void Lowerer::narrow(const std::string& name, CmpOp op, double c, Env& env) {
  auto it = env.find(name);
  if (it == env.end() || it->second.maybe_unbound || it->second.conflict) return;
  Val& v = it->second.v;
  if (v.array || v.is_const || !std::isfinite(c)) return;
  const bool ints = !(v.ty & kF);
  double lo = v.lo, hi = v.hi;
  switch (op) {
    case CmpOp::Lt: hi = std::min(hi, ints ? std::ceil(c) - 1 : c); break;
    case CmpOp::Le: hi = std::min(hi, ints ? std::floor(c) : c); break;
    case CmpOp::Gt: lo = std::max(lo, ints ? std::floor(c) + 1 : c); break;
    case CmpOp::Ge: lo = std::max(lo, ints ? std::ceil(c) : c); break;
    case CmpOp::Eq: lo = std::max(lo, c), hi = std::min(hi, c); break;
    case CmpOp::Ne:  // an integer that is not an end of its interval leaves that end
      if (ints && c == lo) lo += 1;
      else if (ints && c == hi) hi -= 1;
      break;
  }
  if (lo <= hi) {
    v.lo = lo, v.hi = hi;
  } else {
    make_empty(v.lo, v.hi);  // this branch cannot be taken
  }
}

void Lowerer::refine(const Expr& cond, bool truth, Env& env) {
  if (cond.kind == ExprKind::Unary && cond.text == "not") return refine(*cond.kids[0], !truth, env);
  if (cond.kind == ExprKind::BoolOp) {
    if ((cond.text == "and") == truth)
      for (const auto& k : cond.kids) refine(*k, truth, env);
    return;
  }
  if (cond.kind != ExprKind::Compare || (!truth && cond.ops.size() != 1)) return;
  const std::vector<CmpOp>& cmps = facts(cond).cmps;
  for (std::size_t i = 0; i < cmps.size(); ++i) {
    const CmpOp op = truth ? cmps[i] : negated(cmps[i]);
    const Expr& l = *cond.kids[i];
    const Expr& r = *cond.kids[i + 1];
    if (l.kind == ExprKind::Name)
      if (auto c = const_of(r, env)) narrow(l.text, op, *c, env);
    if (r.kind == ExprKind::Name)
      if (auto c = const_of(l, env)) narrow(r.text, flipped(op), *c, env);
  }
}

Val Lowerer::read(const Expr& e, const ExprInfo& info, const Env& env) {
  const std::string& name = e.text;
  const SourceLoc loc = e.loc;
  if (info.name == NameKind::Constant) {  // a module constant, or pi after `from math import pi`
    if (info.constant_type & kF) return cnum(rnd(info.constant), kF, loc);
    check_exact(info.constant, info.constant, loc, "constant");
    return cnum(info.constant, info.constant_type, loc);
  }
  if (info.error) throw Fail{*info.error};  // not a variable
  auto it = env.find(name);
  if (it == env.end()) throw Fail{*info.unbound};
  const Binding& b = it->second;
  if (b.maybe_unbound)
    fail("name '" + name + "' might be unbound here: it is not assigned on every path that reaches this line; "
         "assign it before the if/for",
         loc);
  if (b.conflict)
    fail("'" + name + "' holds values of different shapes on different paths (a number or lists of different "
         "lengths); give it the same shape on every path",
         loc);
  for (int d : b.defs) defs_[static_cast<std::size_t>(d)].read = true;
  return b.v;
}

void Lowerer::collect_nodes(const Val& v, std::vector<NodeId>& out) {
  if (v.array) {
    for (const Val& x : v.items) collect_nodes(x, out);
  } else if (v.node.valid()) {
    out.push_back(v.node.id());
  }
}

void Lowerer::assign(const Expr& t, const Val& v, Env& env, bool silent) {
  if (t.kind == ExprKind::Name) {
    Binding b;
    b.v = v;
    const bool warnable = !silent && (t.text.empty() || t.text[0] != '_');
    if (warnable) {
      auto [site, fresh] = site_ids_.try_emplace(std::make_pair(t.loc, t.text), static_cast<int>(sites_.size()));
      if (fresh) sites_.push_back(site->first);
      DefRecord d;
      d.site = site->second;
      d.nodes_begin = static_cast<std::uint32_t>(def_nodes_.size());
      collect_nodes(v, def_nodes_);
      d.nodes_end = static_cast<std::uint32_t>(def_nodes_.size());
      defs_.push_back(d);
      b.defs = {static_cast<int>(defs_.size() - 1)};
    }
    env[t.text] = std::move(b);
    return;
  }
  if (t.kind == ExprKind::Tuple || t.kind == ExprKind::List) {
    if (!v.array)
      fail("cannot unpack a number into " + std::to_string(t.kids.size()) + " names", t.loc);
    if (v.items.size() != t.kids.size())
      fail("cannot unpack " + std::to_string(v.items.size()) + " values into " + std::to_string(t.kids.size()) +
               " names",
           t.loc);
    for (std::size_t i = 0; i < t.kids.size(); ++i) assign(*t.kids[i], v.items[i], env, silent);
    return;
  }
  fail("cannot assign to this expression", t.loc);
}

Env Lowerer::parameters() {
  Env env;
  for (const ParamInfo& p : res_.params) {
    if (p.error) throw Fail{*p.error};
    Val v;
    v.ty = p.type;
    v.lo = p.lo;
    v.hi = p.hi;
    v.loc = p.loc;
    b_.set_location(p.loc);
    v.node = b_.input(p.name, p.domain);
    inputs_.push_back(v.node.id());
    check_nodes(p.loc);
    Binding b;
    b.v = v;
    env[p.name] = std::move(b);
  }
  return env;
}

const ExprInfo& Lowerer::facts(const Expr& e) const {
  const ExprInfo* info = res_.find(e);
  if (!info) fail("internal error: the resolver did not see this expression", e.loc);
  return *info;
}

const StmtInfo& Lowerer::facts(const Stmt& s) const {
  const StmtInfo* info = res_.find(s);
  if (!info) fail("internal error: the resolver did not see this statement", s.loc);
  return *info;
}

void Lowerer::check_static_type(const Val& v, const StaticType& t, const Expr& e) const {
  const bool ok = v.array ? t.list() : (t.number() && (v.ty & ~t.numbers) == 0);
  if (!ok)
    fail("internal error: the value here does not have the static type the resolver gave it (" +
             static_type_text(t) + ")",
         e.loc);
  if (v.array)
    for (const Val& x : v.items) check_static_type(x, t.element(), e);
}

Val Lowerer::expr(const Expr& e, const Env& env) {
  const ExprInfo& info = facts(e);
  Val v = expr_value(e, info, env);
  check_static_type(v, info.type, e);
  return v;
}

Val Lowerer::expr_value(const Expr& e, const ExprInfo& info, const Env& env) {
  switch (e.kind) {
    case ExprKind::Name:
      return read(e, info, env);
    case ExprKind::Number: {
      if (info.error) throw Fail{*info.error};
      return cnum(e.number, e.is_float ? kF : kI, e.loc);
    }
    case ExprKind::Bool:
      return cbool(e.number != 0.0, e.loc);
    case ExprKind::Tuple:
    case ExprKind::List:
      return list(e, env);
    case ExprKind::Binary: {
      Val a = expr(*e.kids[0], env);
      Val b = expr(*e.kids[1], env);
      if (info.arith == ArithOp::Pow) return power(a, b, e.loc);
      return arith(info.arith, a, b, e.loc);
    }
    case ExprKind::Unary: {
      Val a = expr(*e.kids[0], env);
      if (e.text == "-") return neg(a, e.loc);
      if (e.text == "not") return not_(truth(a, e.loc), e.loc);
      scalar(a, e.loc, "unary plus");
      if (a.ty == kB) a.ty = kI;  // +True is 1
      return a;
    }
    case ExprKind::BoolOp:
      return bool_op(e, env);
    case ExprKind::Compare:
      return comparison(e, info, env);
    case ExprKind::IfExp:
      return if_exp(e, env);
    case ExprKind::Call:
      return call(e, info, env);
    case ExprKind::Subscript: {
      Val arr = expr(*e.kids[0], env);
      Val i = expr(*e.kids[1], env);
      return index(arr, i, e.loc);
    }
    case ExprKind::Attribute:
      if (info.name == NameKind::Constant) return read(e, info, env);  // math.pi
      break;
    case ExprKind::NoneLit:
    case ExprKind::String:
    case ExprKind::Unsupported:
      break;
  }
  fail("this expression is not supported", e.loc);
}

Val Lowerer::list(const Expr& e, const Env& env) {
  Val r;
  r.array = true;
  r.tuple = e.kind == ExprKind::Tuple;
  r.loc = e.loc;
  for (const auto& k : e.kids) r.items.push_back(expr(*k, env));
  check_list(scalars(r), e.loc);
  return r;
}

Val Lowerer::if_exp(const Expr& e, const Env& env) {
  Val c = truth(expr(*e.kids[0], env), e.kids[0]->loc);
  if (c.is_const) return expr(*e.kids[c.c != 0.0 ? 1 : 2], env);
  Env yes_env = env, no_env = env;
  refine(*e.kids[0], true, yes_env);
  refine(*e.kids[0], false, no_env);
  Val yes = expr(*e.kids[1], yes_env);
  Val no = expr(*e.kids[2], no_env);
  if (!same_shape(yes, no))
    fail("the two branches of this conditional expression have different shapes (" + shape_text(yes) + " and " +
             shape_text(no) + ")",
         e.loc);
  return sel(c, yes, no, e.loc);
}

Val Lowerer::bool_op(const Expr& e, const Env& env) {
  const bool is_and = e.text == "and";
  std::vector<Val> vals, truths;
  for (const auto& k : e.kids) {
    Val v = expr(*k, env);
    if (&k != &e.kids.back()) {
      Val t = truth(v, k->loc);
      if (t.is_const && (is_and ? t.c == 0.0 : t.c != 0.0)) {  // decided at compile time
        vals.push_back(v);
        truths.push_back(cbool(true, k->loc));
        break;
      }
      if (t.is_const) continue;  // an operand that never decides drops out
      vals.push_back(v);
      truths.push_back(t);
    } else {
      vals.push_back(v);
      truths.push_back(cbool(true, k->loc));
    }
  }
  Val r = vals.back();
  for (std::size_t i = vals.size() - 1; i-- > 0;) {
    if (!same_shape(vals[i], r)) fail("operands of '" + e.text + "' must all be numbers", e.loc);
    r = is_and ? sel(truths[i], r, vals[i], e.loc) : sel(truths[i], vals[i], r, e.loc);
  }
  return r;
}

Val Lowerer::comparison(const Expr& e, const ExprInfo& info, const Env& env) {
  Val left = expr(*e.kids[0], env);
  std::vector<Val> cmps;
  for (std::size_t i = 0; i < info.cmps.size(); ++i) {
    Val right = expr(*e.kids[i + 1], env);
    Val c = compare(info.cmps[i], left, right, e.kids[i]->loc);
    if (is_false(c)) {
      cmps.push_back(c);
      break;
    }
    if (!is_true(c) || i + 1 == info.cmps.size()) cmps.push_back(c);
    left = right;
  }
  Val r = cmps.back();
  for (std::size_t i = cmps.size() - 1; i-- > 0;) r = and_(cmps[i], r, e.loc);
  return r;
}

namespace {

/// Constant arguments as op_semantics.h's kernels read them (a builtin of
/// the table folded at compile time; exact semantics).
struct ConstArgs {
  const std::vector<double>& c;
  double x(std::size_t k) const { return c[k]; }
  std::size_t count() const { return c.size(); }
  double temperature() const { return 1.0; }
  static double greater(double x, double y, double t) { return sem::Contract::greater(x, y, t); }
  static double equal(double x, double y, double t) { return sem::Contract::equal(x, y, t); }
  std::size_t terms() const { return 0; }  // no builtin spells an affine op
  double coef(std::size_t) const { return 0.0; }
  std::size_t term_arg(std::size_t) const { return 0; }
  bool has_bias() const { return false; }
  double bias() const { return 0.0; }
  double round(double v) const { return v; }
};

}  // namespace

// A builtin spelling an op of the table (ops.def, python column): its row
// gives the result type (kPyFloat: a float; else the argument's numbers);
// constant arguments fold through the op's kernel, a float result rounded
// to the dtype like the evaluator's (an argument-typed one, a choice such
// as relu's, rounds nothing). A kernel failure is left to run time.
Val Lowerer::table_op(Op op, const std::string& f, const std::vector<Val>& args, SourceLoc loc) {
  const OpInfo& row = op_info(op);
  const bool to_float = row.has(kPyFloat);
  std::vector<Val> xs;
  bool all_const = true;
  unsigned numbers = 0;
  for (const Val& a : args) {
    xs.push_back(scalar(a, loc, (f + "()").c_str()));
    all_const = all_const && xs.back().is_const;
    numbers |= xs.back().ty;
  }
  const unsigned ty = to_float ? kF : numbers;
  if (all_const) {
    std::vector<double> c;
    for (const Val& x : xs) c.push_back(to_float ? rnd(x.c) : x.c);
    double r = 0.0;
    if (!sem::value(op, true, ConstArgs{c}, r)) return cnum(to_float ? rnd(r) : r, ty, loc);
  }
  return emit(op, xs, loc, ty);
}

Val Lowerer::call(const Expr& e, const ExprInfo& info, const Env& env) {
  const std::string& f = e.kids[0]->text;
  std::vector<Val> args;
  // isinstance's second argument is a type, read by the resolver, not a value.
  const std::size_t values = info.builtin == Builtin::IsInstance ? std::min<std::size_t>(e.kids.size(), 2) : e.kids.size();
  for (std::size_t i = 1; i < values; ++i) args.push_back(expr(*e.kids[i], env));
  if (info.error) throw Fail{*info.error};  // arity, or not a builtin
  SourceLoc loc = e.loc;
  const Builtin fb = info.builtin;
  if (fb == Builtin::TableOp) return table_op(info.op, f, args, loc);
  if (fb == Builtin::Helper) return inline_call(*info.callee, args, loc);
  if (fb == Builtin::Math) return math_call(info.math, args, loc);
  if (fb != Builtin::Abs && fb != Builtin::Min && fb != Builtin::Max) return builtin_call(fb, info, f, args, loc);
  if (fb == Builtin::Abs) {
    const Val& x = scalar(args[0], loc, (f + "()").c_str());
    unsigned ty = (int_like(x.ty) ? kI : 0u) | (x.ty & kF);
    if (x.is_const) return cnum(std::fabs(x.c), ty, loc);
    Val negx = neg(x, loc);
    Val r = sel(compare(CmpOp::Lt, x, cnum(0, kI, loc), loc), negx, x, loc);
    r.ty = ty;
    const Interval range = ival::abs(range_of(x));
    r.lo = range.lo;
    r.hi = range.hi;
    if (empty(x)) make_empty(r.lo, r.hi);
    return r;
  }
  if (fb == Builtin::Min || fb == Builtin::Max) {
    std::vector<Val> items = args;
    if (items.size() == 1) {
      if (!items[0].array) fail(f + "() of a single number: pass two or more values, or a list", loc);
      // Copy out first: assigning a vector from one of its own elements is
      // not safe with every standard library (libc++ clears it first).
      std::vector<Val> inner = items[0].items;
      items = std::move(inner);
    }
    if (items.empty()) fail(f + "() of an empty list", loc);
    Val m = scalar(items[0], loc, (f + "()").c_str());
    for (std::size_t i = 1; i < items.size(); ++i) {
      // CPython keeps the first extreme: it replaces only on a strict < (min) or > (max).
      const Val& x = scalar(items[i], loc, (f + "()").c_str());
      m = sel(compare(fb == Builtin::Min ? CmpOp::Lt : CmpOp::Gt, x, m, loc), x, m, loc);
    }
    return m;
  }
  fail("calling '" + f + "' is not supported", loc);
}

}  // namespace tc::py::lowering
