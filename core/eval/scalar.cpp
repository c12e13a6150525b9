// The checked scalar evaluator: demand-driven from the targets with an
// explicit stack (circuits can be 100,000 nodes deep, so no recursion).
// Exact select evaluates its condition, then only the chosen branch; every
// other op evaluates all of its arguments first. A node nobody demands is
// never computed, so its errors never surface.
#include <cmath>
#include <exception>
#include <string>

#include "eval/prepared.h"
#include "ir/op_semantics.h"

namespace tc::eval_detail {

namespace {

/// Node `in` as op_semantics.h's kernels read it (sem::value).
struct ScalarNode {
  const Prepared& p;
  const Instr& in;
  const NodeId* a;
  const double* v;
  double x(std::size_t k) const { return v[a[k]]; }
  std::size_t count() const { return in.nargs; }
  double temperature() const { return in.temperature; }
  static double greater(double x, double y, double t) { return sem::Contract::greater(x, y, t); }
  static double equal(double x, double y, double t) { return sem::Contract::equal(x, y, t); }
  std::size_t terms() const { return in.ncoef; }
  double coef(std::size_t j) const { return p.coefs[in.coef_begin + j]; }  // rounded at create()
  std::size_t term_arg(std::size_t j) const { return static_cast<std::size_t>(p.positions[in.coef_begin + j]); }
  bool has_bias() const { return in.has_bias; }
  double bias() const { return in.bias; }
  double round(double r) const { return p.round(r); }
  std::string_view name() const { return p.program.nodes[static_cast<std::size_t>(&in - p.instrs.data())].name; }
};

/// Computes node `id` from already computed arguments. Returns false with a
/// reason (the op-specific part of the message) on an error.
bool compute(const Prepared& p, const Instr& in, const double* v, const Fixed& fixed, const double* inputs,
             Workspace& ws, double& r, std::string& reason) {
  const NodeId* a = p.args_of(in);
  switch (in.op) {
    case Op::Input: r = inputs[in.slot]; return true;
    case Op::Parameter: r = fixed.params[static_cast<std::size_t>(in.slot)]; return true;
    case Op::State: r = fixed.states[static_cast<std::size_t>(in.slot)]; return true;
    case Op::Constant: r = in.value; break;
    case Op::Call: {
      ws.call_args.resize(in.nargs);
      for (std::uint32_t k = 0; k < in.nargs; ++k) ws.call_args[k] = v[a[k]];
      const Binding& b = *p.bindings[static_cast<std::size_t>(in.slot)];
      const std::string& name = p.program.nodes[static_cast<std::size_t>(&in - p.instrs.data())].name;
      // A host function is outside our control: an exception it throws
      // becomes this node's error instead of crossing core's API.
      try {
        r = b.forward(std::span<const double>(ws.call_args.data(), in.nargs));
      } catch (const std::exception& e) {
        reason = sem::binding_threw(name, e.what());
        return false;
      } catch (...) {
        reason = sem::binding_threw(name, nullptr);
        return false;
      }
      if (!std::isfinite(r)) {
        reason = sem::binding_returned(name, format_number(r));
        return false;
      }
      break;
    }
    default:
      // Every computing op (exact select is resolved by the caller, one
      // branch only; this is reached by the relaxed blend).
      if (sem::Failure f = sem::value(in.op, in.mode == Mode::Exact, ScalarNode{p, in, a, v}, r)) {
        reason = sem::describe(f, format_number);
        return false;
      }
      break;
  }
  if (sem::Failure f = sem::finish(r, p.f32)) {
    reason = sem::describe(f, format_number);
    return false;
  }
  if (in.check_domain) {
    if (auto why = p.domains[static_cast<std::size_t>(in.domain)].check(r)) {
      reason = sem::domain_message(*why, p.domains[static_cast<std::size_t>(in.domain)].to_string());
      return false;
    }
  }
  return true;
}

/// Runs Prepared::lazy: the walk's evaluation (the same nodes, the same
/// failures, the earliest failing node reported), without a stack.
bool run_lazy(const Prepared& p, const double* inputs, const Fixed& fixed, Workspace& ws, Diagnostic& err) {
  double* v = ws.values.data();
  std::uint8_t* st = ws.status.data();
  std::string reason;
  NodeId first_error = -1;
  std::string first_reason;
  auto fail = [&](NodeId id, std::string&& why) {
    st[id] = kFailed;
    if (first_error < 0 || id < first_error) {
      first_error = id;
      first_reason = std::move(why);
    }
  };
  const LazyStep* code = p.lazy.data();
  const std::size_t len = p.lazy.size();
  for (std::size_t pc = 0; pc < len; ++pc) {
    const LazyStep& s = code[pc];
    const NodeId id = s.id;
    const Instr& in = p.instrs[static_cast<std::size_t>(id)];
    const NodeId* a = p.args_of(in);
    switch (s.kind) {
      case LazyStep::Eval: {
        if (st[id] != kUnvisited) break;
        bool arg_failed = false;
        for (std::uint32_t k = 0; k < in.nargs && !arg_failed; ++k) arg_failed = st[a[k]] == kFailed;
        if (arg_failed) {
          st[id] = kFailed;
          break;
        }
        double r = 0.0;
        if (!compute(p, in, v, fixed, inputs, ws, r, reason)) {
          fail(id, std::move(reason));
          break;
        }
        v[id] = r;
        st[id] = kDone;
        break;
      }
      case LazyStep::SelectBegin:
        if (st[id] != kUnvisited) pc = s.jump - 1;
        else st[id] = kInProgress;
        break;
      case LazyStep::SelectBranch: {
        if (st[a[0]] == kFailed) {  // explores neither branch
          st[id] = kFailed;
          pc = s.jump2 - 1;
          break;
        }
        const bool yes = v[a[0]] != 0.0;
        ws.branch[static_cast<std::size_t>(id)] = yes ? 1 : 0;
        if (!yes) pc = s.jump - 1;
        break;
      }
      case LazyStep::Jump:
        pc = s.jump - 1;
        break;
      case LazyStep::SelectFinish: {
        const NodeId chosen = ws.branch[static_cast<std::size_t>(id)] ? a[1] : a[2];
        if (st[chosen] == kFailed) {
          st[id] = kFailed;
          break;
        }
        v[id] = v[chosen];
        if (in.check_domain) {
          const Domain& d = p.domains[static_cast<std::size_t>(in.domain)];
          if (auto why = d.check(v[id])) {
            fail(id, sem::domain_message(*why, d.to_string()));
            break;
          }
        }
        st[id] = kDone;
        break;
      }
    }
  }
  if (first_error >= 0) {
    err = node_error(p, first_error, first_reason);
    return false;
  }
  return true;
}

}  // namespace

void build_lazy_plan(Prepared& p) {
  // The walk of eval_case_walk, simulated once: instead of evaluating a node
  // it emits a step. `known` marks nodes visited on every path reaching the
  // current step; what a branch visits is known only inside it, so it is
  // undone when the branch ends. A node not known may still be visited at
  // run time (a shared node reached through an earlier branch): every step
  // checks the status first, so it runs at most once.
  p.lazy.clear();
  if (p.straight) return;
  const std::size_t n = p.instrs.size();
  const std::size_t budget = 4 * p.order.size() + 64;
  std::vector<std::uint8_t> known(n, 0);
  std::vector<NodeId> undo;
  auto mark = [&](NodeId id) {
    known[static_cast<std::size_t>(id)] = 1;
    undo.push_back(id);
  };
  auto rollback = [&](std::size_t to) {
    while (undo.size() > to) {
      known[static_cast<std::size_t>(undo.back())] = 0;
      undo.pop_back();
    }
  };
  auto emit = [&](LazyStep::Kind kind, NodeId id) {
    p.lazy.push_back(LazyStep{kind, id, 0, 0});
    return p.lazy.size() - 1;
  };
  struct Frame {
    NodeId id;
    std::uint8_t phase;
    std::size_t begin_at, branch_at, jump_at, undo_mark;
  };
  std::vector<Frame> stack;
  auto push = [&](NodeId id) {
    if (!known[static_cast<std::size_t>(id)]) stack.push_back(Frame{id, 0, 0, 0, 0, 0});
  };
  for (NodeId target : p.targets) {
    push(target);
    while (!stack.empty()) {
      if (p.lazy.size() > budget) {  // many branches sharing large subgraphs: keep the walk
        p.lazy.clear();
        return;
      }
      Frame& f = stack.back();
      const NodeId id = f.id;
      const Instr& in = p.instrs[static_cast<std::size_t>(id)];
      const NodeId* a = p.args_of(in);
      if (f.phase == 0 && known[static_cast<std::size_t>(id)]) {
        stack.pop_back();
        continue;
      }
      if (in.op == Op::Select && in.mode == Mode::Exact) {
        if (f.phase == 0) {
          f.begin_at = emit(LazyStep::SelectBegin, id);
          f.phase = 1;
          push(a[0]);
        } else if (f.phase == 1) {
          f.branch_at = emit(LazyStep::SelectBranch, id);
          f.undo_mark = undo.size();
          f.phase = 2;
          push(a[1]);
        } else if (f.phase == 2) {
          rollback(f.undo_mark);
          f.jump_at = emit(LazyStep::Jump, id);
          p.lazy[f.branch_at].jump = static_cast<std::uint32_t>(p.lazy.size());
          f.phase = 3;
          push(a[2]);
        } else {
          rollback(f.undo_mark);
          p.lazy[f.jump_at].jump = static_cast<std::uint32_t>(p.lazy.size());
          emit(LazyStep::SelectFinish, id);
          const auto end = static_cast<std::uint32_t>(p.lazy.size());
          p.lazy[f.begin_at].jump = end;
          p.lazy[f.branch_at].jump2 = end;
          stack.pop_back();
          mark(id);
        }
        continue;
      }
      if (f.phase == 0 && in.nargs > 0) {
        f.phase = 1;
        // Reverse order so the first argument is evaluated first.
        for (std::uint32_t k = in.nargs; k-- > 0;) push(a[k]);
        continue;
      }
      emit(LazyStep::Eval, id);
      stack.pop_back();
      mark(id);
    }
  }
}

bool eval_case(const Prepared& p, const double* inputs, const Fixed& fixed, Workspace& ws, Diagnostic& err) {
  ws.reset(p.instrs.size());
  double* v = ws.values.data();
  std::uint8_t* st = ws.status.data();
  std::string reason;
  if (p.straight) {
    // No exact select among the needed nodes: every needed node is demanded,
    // so evaluating them in id order is the same evaluation, without a stack,
    // and the first error met is the earliest one.
    for (NodeId id : p.order) {
      const Instr& in = p.instrs[static_cast<std::size_t>(id)];
      double r = 0.0;
      if (!compute(p, in, v, fixed, inputs, ws, r, reason)) {
        err = node_error(p, id, reason);
        return false;
      }
      v[id] = r;
      st[id] = kDone;
    }
    return true;
  }
  if (!p.lazy.empty()) return run_lazy(p, inputs, fixed, ws, err);
  return eval_case_walk(p, inputs, fixed, ws, err);
}

bool eval_case_walk(const Prepared& p, const double* inputs, const Fixed& fixed, Workspace& ws, Diagnostic& err) {
  ws.reset(p.instrs.size());
  double* v = ws.values.data();
  std::uint8_t* st = ws.status.data();
  std::string reason;
  // Demand-driven walk. A node that fails is marked and the walk goes on, so
  // that among all errors of the nodes this case evaluates, the one at the
  // earliest node (program order, as Python would meet it) is reported. A
  // node with a failed argument fails without an error of its own; an exact
  // select whose condition failed explores neither branch.
  NodeId first_error = -1;
  std::string first_reason;
  auto fail = [&](NodeId id, std::string&& why) {
    st[id] = kFailed;
    if (first_error < 0 || id < first_error) {
      first_error = id;
      first_reason = std::move(why);
    }
  };
  enum : std::uint8_t { kNew = 0, kArgsPushed = 1, kBranchPushed = 2 };
  for (NodeId target : p.targets) {
    if (st[target] != kUnvisited) continue;
    ws.stack.emplace_back(target, kNew);
    while (!ws.stack.empty()) {
      const NodeId id = ws.stack.back().first;
      const std::uint8_t phase = ws.stack.back().second;
      if (st[id] == kDone || st[id] == kFailed) {
        ws.stack.pop_back();
        continue;
      }
      const Instr& in = p.instrs[static_cast<std::size_t>(id)];
      const NodeId* a = p.args_of(in);
      if (in.op == Op::Select && in.mode == Mode::Exact) {
        if (phase == kNew) {
          ws.stack.back().second = kArgsPushed;
          st[id] = kInProgress;
          if (st[a[0]] == kUnvisited) ws.stack.emplace_back(a[0], kNew);
          continue;
        }
        if (st[a[0]] == kFailed) {
          st[id] = kFailed;
          ws.stack.pop_back();
          continue;
        }
        const bool yes = v[a[0]] != 0.0;
        const NodeId chosen = yes ? a[1] : a[2];
        if (phase == kArgsPushed) {
          ws.stack.back().second = kBranchPushed;
          ws.branch[static_cast<std::size_t>(id)] = yes ? 1 : 0;
          if (st[chosen] == kUnvisited) ws.stack.emplace_back(chosen, kNew);
          continue;
        }
        ws.stack.pop_back();
        if (st[chosen] == kFailed) {
          st[id] = kFailed;
          continue;
        }
        v[id] = v[chosen];
        if (in.check_domain) {
          const Domain& d = p.domains[static_cast<std::size_t>(in.domain)];
          if (auto why = d.check(v[id])) {
            fail(id, sem::domain_message(*why, d.to_string()));
            continue;
          }
        }
        st[id] = kDone;
        continue;
      }
      if (phase == kNew && in.nargs > 0) {
        ws.stack.back().second = kArgsPushed;
        st[id] = kInProgress;
        // Reverse order so the first argument is evaluated first.
        for (std::uint32_t k = in.nargs; k-- > 0;)
          if (st[a[k]] == kUnvisited) ws.stack.emplace_back(a[k], kNew);
        continue;
      }
      ws.stack.pop_back();
      bool arg_failed = false;
      for (std::uint32_t k = 0; k < in.nargs && !arg_failed; ++k) arg_failed = st[a[k]] == kFailed;
      if (arg_failed) {
        st[id] = kFailed;
        continue;
      }
      double r = 0.0;
      if (!compute(p, in, v, fixed, inputs, ws, r, reason)) {
        fail(id, std::move(reason));
        continue;
      }
      v[id] = r;
      st[id] = kDone;
    }
  }
  if (first_error >= 0) {
    err = node_error(p, first_error, first_reason);
    return false;
  }
  return true;
}

}  // namespace tc::eval_detail
