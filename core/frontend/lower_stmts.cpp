// Statements: blocks, predicated if/else, early exits and the expansion of
// for loops, joining the paths with select nodes.
#include "frontend/lowerer.h"

#include <algorithm>
#include <cmath>

namespace tc::py::lowering {

Flow Lowerer::block(const std::vector<StmtPtr>& stmts, Env env, bool function_body) {
  Flow f;
  f.env = std::move(env);
  for (std::size_t i = 0; i < stmts.size(); ++i) {
    const Stmt& s = *stmts[i];
    if (function_body && i == 0 && s.kind == StmtKind::Expr && s.value->kind == ExprKind::String) continue;
    if (is_false(f.active)) break;  // unreachable (its syntax was checked)
    if (s.deferred) throw Fail{*s.deferred};  // outside the subset, and reached
    switch (s.kind) {
      case StmtKind::Assign: {
        Val v = expr(*s.value, f.env);
        for (const auto& t : s.targets) assign(*t, v, f.env, false);
        break;
      }
      case StmtKind::AnnAssign:
        assign(*s.targets[0], expr(*s.value, f.env), f.env, false);
        break;
      case StmtKind::AugAssign: {
        const Expr& t = *s.targets[0];
        Val cur = expr(t, f.env);
        Val rhs = expr(*s.value, f.env);
        if (cur.array) fail("augmented assignment to a list is not supported: write x = x " + s.text + " ...", s.loc);
        const ArithOp op = facts(s).arith;
        Val r = op == ArithOp::Pow ? power(cur, rhs, s.loc) : arith(op, cur, rhs, s.loc);
        assign(t, r, f.env, false);
        break;
      }
      case StmtKind::Pass:
      case StmtKind::Import:  // binds the math module's names; nothing to compute
        break;
      default: {
        // The statement reads f.env before f is moved: argument evaluation
        // order is unspecified (clang goes left to right, gcc right to left).
        Flow next = statement(s, f.env);
        f = seq(std::move(f), std::move(next), s.loc);
        break;
      }
    }
  }
  return f;
}

Flow Lowerer::statement(const Stmt& s, const Env& env) {
  switch (s.kind) {
    case StmtKind::Return: {
      Flow g;
      g.env = env;
      Val v = expr(*s.value, env);
      if (v.array)
        for (const Val& x : v.items)
          if (x.array) fail("returning a nested list is not supported: return a flat list of numbers", s.loc);
      if (v.array && v.items.empty()) fail("returning an empty list is not supported", s.loc);
      if (ret_shape_ && !same_shape(*ret_shape_, v))
        fail("this return gives " + shape_text(v) + " but an earlier return gives " + shape_text(*ret_shape_) +
                 ": every return must have the same shape",
             s.loc);
      if (!ret_shape_) ret_shape_ = v;
      g.active = cbool(false, s.loc);
      g.may_return = true;
      g.rv = v;
      return g;
    }
    case StmtKind::Break:
    case StmtKind::Continue: {
      Flow g;
      g.env = env;
      g.active = cbool(false, s.loc);
      if (s.kind == StmtKind::Break) {
        g.brk = cbool(true, s.loc);
        g.brk_env = env;
      } else {
        g.cont = cbool(true, s.loc);
        g.cont_env = env;
      }
      return g;
    }
    case StmtKind::If: {
      Val c = truth(expr(*s.value, env), s.value->loc);
      if (c.is_const) return block(c.c != 0.0 ? s.body : s.orelse, env);
      if (c.node.valid()) conditions_.emplace_back(s.value->loc, c.node.id());
      Env yes_env = env, no_env = env;
      refine(*s.value, true, yes_env);
      refine(*s.value, false, no_env);
      Flow a = block(s.body, std::move(yes_env));
      Flow b = block(s.orelse, std::move(no_env));
      return if_merge(c, std::move(a), std::move(b), s.loc);
    }
    case StmtKind::For:
      return for_loop(s, env);
    case StmtKind::Expr:
      if (s.value->kind == ExprKind::Call) return call_statement(*s.value, env);
      fail("an expression on its own line has no effect: assign it to a name or return it", s.loc);
    case StmtKind::Raise:
      // Lowered only where the path can be taken: a raise behind a condition
      // the input domains decide against is never reached, and makes no node.
      return raising(raised_exception(s), s.loc, env);
    case StmtKind::Assert: {
      // `if not cond: raise AssertionError(msg)`, and cond holds after it.
      Val c = truth(expr(*s.value, env), s.value->loc);
      if (is_true(c)) return block({}, env);
      Flow bad = raising(raised_exception(s), s.loc, env);
      if (is_false(c)) return bad;
      Env ok_env = env;
      refine(*s.value, true, ok_env);
      return if_merge(c, block({}, std::move(ok_env)), std::move(bad), s.loc);
    }
    default:
      fail("this statement is not supported", s.loc);
  }
}

Env Lowerer::merge_env(const Val& c, const Env& a, const Env& b, SourceLoc loc) {
  Env r;
  auto ia = a.begin();
  auto ib = b.begin();
  while (ia != a.end() || ib != b.end()) {
    if (ib == b.end() || (ia != a.end() && ia->first < ib->first)) {
      Binding x = ia->second;
      x.maybe_unbound = true;
      r.emplace(ia->first, std::move(x));
      ++ia;
    } else if (ia == a.end() || ib->first < ia->first) {
      Binding x = ib->second;
      x.maybe_unbound = true;
      r.emplace(ib->first, std::move(x));
      ++ib;
    } else {
      const Binding& x = ia->second;
      const Binding& y = ib->second;
      Binding m;
      m.maybe_unbound = x.maybe_unbound || y.maybe_unbound;
      m.conflict = x.conflict || y.conflict || !same_shape(x.v, y.v);
      m.defs = x.defs;
      for (int d : y.defs)
        if (std::find(m.defs.begin(), m.defs.end(), d) == m.defs.end()) m.defs.push_back(d);
      m.v = m.conflict ? x.v : sel(c, x.v, y.v, loc);
      r.emplace(ia->first, std::move(m));
      ++ia;
      ++ib;
    }
  }
  return r;
}

std::optional<Val> Lowerer::pick_rv(const Val& c, const Flow& a, const Flow& b, SourceLoc loc) {
  if (!a.may_return) return b.rv;
  if (!b.may_return) return a.rv;
  return sel(c, *a.rv, *b.rv, loc);
}

Env Lowerer::pick_env(const Val& c, const Val& fa, const Env& ea, const Val& fb, const Env& eb, SourceLoc loc) {
  if (is_false(fa)) return eb;
  if (is_false(fb)) return ea;
  return merge_env(c, ea, eb, loc);
}

Flow Lowerer::if_merge(const Val& c, Flow a, Flow b, SourceLoc loc) {
  Flow r;
  r.active = sel(c, a.active, b.active, loc);
  if (is_false(a.active)) {
    r.env = std::move(b.env);
  } else if (is_false(b.active)) {
    r.env = std::move(a.env);
  } else {
    r.env = merge_env(c, a.env, b.env, loc);
  }
  merge_exits(c, a, b, r, loc);
  return r;
}

void Lowerer::merge_exits(const Val& c, const Flow& yes, const Flow& no, Flow& r, SourceLoc loc) {
  r.may_return = yes.may_return || no.may_return;
  r.rv = pick_rv(c, yes, no, loc);
  r.brk = sel(c, yes.brk, no.brk, loc);
  r.brk_env = pick_env(c, yes.brk, yes.brk_env, no.brk, no.brk_env, loc);
  r.cont = sel(c, yes.cont, no.cont, loc);
  r.cont_env = pick_env(c, yes.cont, yes.cont_env, no.cont, no.cont_env, loc);
}

Flow Lowerer::seq(Flow f, Flow g, SourceLoc loc) {
  if (is_true(f.active)) return g;
  if (no_exits(g)) {
    f.env = std::move(g.env);
    return f;
  }
  const Val a = f.active;
  Flow r;
  r.env = std::move(g.env);
  r.active = and_(a, g.active, loc);
  merge_exits(a, g, f, r, loc);
  return r;
}

Flow Lowerer::for_loop(const Stmt& s, const Env& env) {
  const Expr& it = *s.value;
  const Expr& target = *s.targets[0];
  std::vector<Val> items;
  long long start = 0, stop = 0, step = 1;
  const StmtInfo& info = facts(s);
  const bool is_range = info.range;
  // A bound known only at run time (range(n) with n an input): the loop is
  // expanded as often as the bound's interval allows, each iteration guarded
  // by `v < stop` (`v > stop` stepping down), which once false stays false.
  bool guarded = false;
  Val start_v, stop_v;
  long long expansions = 0;
  if (is_range) {
    if (info.error) throw Fail{*info.error};  // the number of arguments
    std::size_t n = it.kids.size() - 1;
    Val xs[3];
    for (std::size_t k = 0; k < n; ++k) {
      const Expr& a = *it.kids[k + 1];
      Val x = expr(a, env);
      if (x.array) fail("range() arguments must be integers, not lists", a.loc);
      if (x.ty & kF) fail("range() arguments must be integers, not floats", a.loc);
      if (!x.is_const) guarded = true;
      xs[k] = x;
    }
    if (n == 3 && !xs[2].is_const)
      fail("range() step must be known at compile time: use an integer literal", it.kids[3]->loc);
    start_v = n == 1 ? cnum(0, kI, it.loc) : xs[0];
    stop_v = n == 1 ? xs[0] : xs[1];
    if (n == 3) step = static_cast<long long>(xs[2].c);
    if (step == 0) fail("range() step must not be zero", it.kids[3]->loc);
    if (!guarded) {
      start = static_cast<long long>(start_v.c);
      stop = static_cast<long long>(stop_v.c);
    } else if (!empty(start_v) && !empty(stop_v)) {
      // The most iterations any case can run; a bound's interval is finite (an int below the exact limit).
      const double span = step > 0 ? stop_v.hi - start_v.lo : start_v.hi - stop_v.lo;
      const double most = std::ceil(span / static_cast<double>(step > 0 ? step : -step));
      if (!(most <= static_cast<double>(opts_.max_iterations)))
        fail("this range() may run " + num_text(most) + " iterations given the input domains, beyond the iteration "
                 "budget of " + std::to_string(opts_.max_iterations) + ": narrow the domains or raise it with " +
                 hints::budget(opts_.hints, "max-iterations"),
             it.loc, DiagCode::IterationBudget);
      expansions = most > 0 ? static_cast<long long>(most) : 0;
    }
  } else {
    Val arr = expr(it, env);
    if (!arr.array)
      fail("a for loop must iterate over range(...) or over a literal list", it.loc);
    items = arr.items;
  }

  Flow st;
  st.env = env;
  std::size_t k = 0;
  long long v = start;
  long long expanded = 0;
  while (true) {
    Val item;
    Val guard = cbool(true);
    if (guarded) {
      if (expanded >= expansions) break;
      const double offset = static_cast<double>(expanded) * static_cast<double>(step);
      ++expanded;
      item = start_v.is_const ? cnum(start_v.c + offset, kI, target.loc)
                              : arith(ArithOp::Add, start_v, cnum(offset, kI, target.loc), target.loc);
      guard = compare(step > 0 ? CmpOp::Lt : CmpOp::Gt, item, stop_v, it.loc);
      if (is_false(guard)) break;  // no case runs this iteration, nor any later one
    } else if (is_range) {
      if (step > 0 ? v >= stop : v <= stop) break;
      if (std::fabs(static_cast<double>(v)) >= limit())
        fail("the loop variable would reach " + num_text(static_cast<double>(v)) + ", beyond " + limit_text(), s.loc);
      item = cnum(static_cast<double>(v), kI, target.loc);
      v += step;
    } else {
      if (k >= items.size()) break;
      item = items[k++];
    }
    if (is_false(st.active)) break;  // every path left the loop already
    if (++iterations_ > opts_.max_iterations)
      fail("loop expansion exceeds the iteration budget of " + std::to_string(opts_.max_iterations) +
               " expanded iterations (all loops of the function together): raise it with " +
               hints::budget(opts_.hints, "max-iterations") + " or "
               "use smaller ranges",
           s.loc, DiagCode::IterationBudget);
    // Nodes of this iteration (its joins included) record which one it is.
    const bool tracked = is_range && target.kind == ExprKind::Name && item.is_const;
    if (tracked) {
      loop_path_.push_back(LoopStep{target.text, static_cast<std::int64_t>(item.c)});
      b_.set_iteration(loop_path_);
    }
    // When every path reaches this iteration, seq() below keeps only the
    // body's flow, so the variables move into it instead of being copied.
    Env e = is_true(st.active) && is_true(guard) ? std::move(st.env) : st.env;
    Env skipped = is_true(guard) ? Env{} : e;  // the cases past the bound: the target is not assigned
    assign(target, item, e, /*silent=*/true);
    if (!is_true(guard) && item.is_const) {
      // Inside the guard the bound is beyond the loop variable (n > i in range(n)).
      const Expr& bound = *it.kids[it.kids.size() == 2 ? 1 : 2];
      if (bound.kind == ExprKind::Name) narrow(bound.text, flipped(step > 0 ? CmpOp::Lt : CmpOp::Gt), item.c, e);
    }
    Flow body = block(s.body, std::move(e));
    if (!is_false(body.cont)) {  // continue joins the fall-through path
      body.env = is_false(body.active) ? std::move(body.cont_env) : merge_env(body.cont, body.cont_env, body.env, s.loc);
      body.active = or_(body.cont, body.active, s.loc);
      body.cont = cbool(false);
      body.cont_env.clear();
    }
    if (!is_true(guard)) {
      Flow skip;
      skip.env = std::move(skipped);
      body = if_merge(guard, std::move(body), std::move(skip), s.loc);
    }
    st = seq(std::move(st), std::move(body), s.loc);
    if (tracked) {
      loop_path_.pop_back();
      b_.set_iteration(loop_path_);
    }
  }
  // `break` leaves this loop only: it joins the path after the loop, and
  // skips the else block.
  Val brk = st.brk;
  Env brk_env = std::move(st.brk_env);
  st.brk = cbool(false);
  st.brk_env.clear();
  if (!s.orelse.empty() && !is_false(st.active)) {
    Flow e = block(s.orelse, st.env);
    st = seq(std::move(st), std::move(e), s.loc);
  }
  if (!is_false(brk)) {
    st.env = is_false(st.active) ? std::move(brk_env) : merge_env(brk, brk_env, st.env, s.loc);
    st.active = or_(brk, st.active, s.loc);
  }
  return st;
}

}  // namespace tc::py::lowering
