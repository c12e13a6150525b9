// The tape's forward pass (see tape_impl.h for how failures are tracked).
#include <exception>

#include "grad/tape_impl.h"

#include "ir/op_semantics.h"

namespace tc {

using tape_detail::kNaN;
using tape_detail::num;
using tape_detail::TNode;

// ---------------------------------------------------------------- forward

// Env checks and messages follow the evaluator's, so `run` and `grad` report
// the same problem the same way.
Status GradientTape::Impl::load_leaves(const Env& env) {
  for (const auto& [name, _] : env.inputs)
    if (!inputs.count(name)) return make_error("unknown input '" + name + "'");
  for (const auto& [name, _] : env.params)
    if (!params.count(name)) return make_error("unknown parameter '" + name + "'");
  for (const auto& [name, _] : env.state)
    if (!states.count(name)) return make_error("unknown state '" + name + "'");
  for (const auto& [name, id] : inputs) {
    auto it = env.inputs.find(name);
    if (it == env.inputs.end()) return make_error("missing input '" + name + "'");
    if (Status s = load_input(id, it->second); !s) return s;
  }
  return load_fixed(env);
}

Diagnostic GradientTape::Impl::leaf_error(NodeId id, const char* what, const std::string& reason) const {
  const Node& n = program.nodes[static_cast<std::size_t>(id)];
  return make_error(std::string(what) + " '" + n.name + "': " + reason, n.location, id);
}

Status GradientTape::Impl::load_input(NodeId id, double x) {
  const Domain& d = *program.nodes[static_cast<std::size_t>(id)].domain;
  if (!std::isfinite(x)) return leaf_error(id, "input", num(x) + " is not a finite number");
  if (options.check_input_domains)
    if (auto bad = d.check(x)) return leaf_error(id, "input", *bad);
  // A float32 domain is a binary32 input representation whatever the dtype.
  const double r = f32 || d.type == DomainType::Float32 ? round_f32(x) : x;
  if (!std::isfinite(r)) return leaf_error(id, "input", num(x) + " is outside the float32 range");
  val[static_cast<std::size_t>(id)] = r;
  return ok_status();
}

Status GradientTape::Impl::load_fixed(const Env& env) {
  for (const auto& [name, id] : params) {
    auto it = env.params.find(name);
    const double x = it != env.params.end() ? it->second : program.nodes[static_cast<std::size_t>(id)].value;
    if (!std::isfinite(x)) return leaf_error(id, "parameter", num(x) + " is not a finite number");
    if (const auto& d = program.nodes[static_cast<std::size_t>(id)].domain;
        d && nodes[static_cast<std::size_t>(id)].sem != Semantics::Relaxed)
      if (auto bad = d->check(x)) return leaf_error(id, "parameter", *bad);
    val[static_cast<std::size_t>(id)] = f32 ? round_f32(x) : x;
  }
  for (const auto& [name, id] : states) {
    const Node& n = program.nodes[static_cast<std::size_t>(id)];
    auto it = env.state.find(name);
    const double x = it != env.state.end() ? it->second : n.value;
    if (!std::isfinite(x)) return leaf_error(id, "state", num(x) + " is not a finite number");
    if (auto bad = n.domain->check(x)) return leaf_error(id, "state", *bad);
    val[static_cast<std::size_t>(id)] = f32 ? round_f32(x) : x;
  }
  return ok_status();
}

void GradientTape::Impl::forward_pass() {
  for (NodeId id : order) compute(id);
}

namespace {

/// A tape node as op_semantics.h's kernels read it: values of the current
/// case, the node's surrogate for relaxed comparisons.
struct TapeNode : tape_detail::TapeNodeFacts {
  const double* val;
  const NodeId* args;  ///< the node's arguments
  double x(std::size_t k) const { return val[static_cast<std::size_t>(args[k])]; }
};

}  // namespace

void GradientTape::Impl::compute(NodeId id) {
  const auto i = static_cast<std::size_t>(id);
  const TNode& n = nodes[i];
  const bool hard = n.sem != Semantics::Relaxed;
  std::int32_t poison = 0;
  // Poisons are 1 + the failing node's id: the smallest nonzero one is the earliest failure.
  auto first_poison = [&](int from, int to) {
    for (int k = from; k < to; ++k) {
      const std::int32_t q = p(n, k);
      if (q && (!poison || q < poison)) poison = q;
    }
  };
  auto own = [&](std::string what) {
    why[i] = std::move(what);
    fail[i] = id + 1;
    val[i] = kNaN;
  };
  double r = kNaN;
  switch (n.op) {
    case Op::Input: case Op::Parameter: case Op::State:
      fail[i] = 0;  // loaded by load_leaves
      return;
    case Op::Constant:
      // Rounded and checked (finite, domain) below like every computed value.
      r = program.nodes[i].value;
      break;
    case Op::Select:
      if (hard) {
        first_poison(0, 1);
        if (poison) break;  // a failed condition explores neither branch
        const int chosen = v(n, 0) != 0.0 ? 1 : 2;
        first_poison(chosen, chosen + 1);
      } else {
        first_poison(0, 3);
      }
      if (!poison) (void)sem::value(n.op, hard, TapeNode{{n, program.nodes[i], f32}, val, args.data() + n.first}, r);
      break;
    case Op::Call: {
      first_poison(0, n.count);
      if (poison) break;
      for (int k = 0; k < n.count; ++k) scratch[static_cast<std::size_t>(k)] = v(n, k);
      const Binding& b = *binding_of[i];
      try {
        r = b.forward(std::span<const double>(scratch.data(), static_cast<std::size_t>(n.count)));
      } catch (const std::exception& e) {
        return own(sem::binding_threw(program.nodes[i].name, e.what()));
      } catch (...) {
        return own(sem::binding_threw(program.nodes[i].name, nullptr));
      }
      if (!std::isfinite(r)) return own(sem::binding_returned(program.nodes[i].name, num(r)));
      break;
    }
    default:
      // Every other op needs all of its arguments (only select is lazy).
      first_poison(0, n.count);
      if (poison) break;
      if (sem::Failure f = sem::value(n.op, hard, TapeNode{{n, program.nodes[i], f32}, val, args.data() + n.first}, r))
        return own(sem::describe(f, num));
      break;
  }
  if (poison) {
    fail[i] = poison;
    val[i] = kNaN;
    return;
  }
  if (sem::Failure f = sem::finish(r, f32)) return own(sem::describe(f, num));
  if (n.checked_domain && hard)
    if (auto bad = program.nodes[i].domain->check(r))
      return own(sem::domain_message(*bad, program.nodes[i].domain->to_string()));
  fail[i] = 0;
  val[i] = r;
}

}  // namespace tc
