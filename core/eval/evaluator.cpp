// Evaluator: preparation (flattening the program once) and the single-case
// entry point. The lazy checked evaluation itself is in scalar.cpp, the
// batched fast path in batch.cpp.
#include "eval/evaluator.h"

#include <charconv>
#include <cmath>
#include <limits>

#include "eval/compiled_plan.h"
#include "eval/prepared.h"
#include "ir/policy.h"
#include "base/number_text.h"

namespace tc {

using eval_detail::Instr;
using eval_detail::Mode;
using eval_detail::Prepared;

struct Evaluator::Impl {
  explicit Impl(EvalPlan choice) : plan(choice) {}
  Prepared p;
  eval_detail::PlanState plan;  ///< the compiled plan, if any (compiled_plan.h)
};

const eval_detail::Prepared& eval_detail::prepared_of(const Evaluator& ev) { return ev.impl_->p; }

namespace eval_detail {

std::string format_number(double v) {
  return shortest_number(v);
}

Diagnostic node_error(const Prepared& p, NodeId id, const std::string& reason) {
  const Node& n = p.program.nodes[static_cast<std::size_t>(id)];
  return make_error(describe_node(p.program, id) + ": " + reason, n.location, id);
}

void Workspace::reset(std::size_t n) {
  values.assign(n, std::numeric_limits<double>::quiet_NaN());
  status.assign(n, 0);
  branch.assign(n, -1);
  stack.clear();
}

namespace {

/// A domain check that the op's own result range already guarantees
/// (a comparison always yields 0 or 1) is skipped.
bool domain_implied(Op op, const Domain& d) { return is_comparison(op) && d.lo() <= 0.0 && d.hi() >= 1.0; }

Diagnostic named_error(const Prepared& p, NodeId id, const std::string& what, const std::string& reason) {
  const Node& n = p.program.nodes[static_cast<std::size_t>(id)];
  return make_error(what + " '" + n.name + "': " + reason, n.location, id);
}

}  // namespace

Result<Fixed> resolve_fixed(const Prepared& p, const Env& env) {
  Fixed f;
  f.params.resize(p.params.size());
  for (std::size_t k = 0; k < p.params.size(); ++k) f.params[k] = p.instrs[static_cast<std::size_t>(p.params[k])].value;
  for (const auto& [name, v] : env.params) {
    auto it = p.param_index.find(name);
    if (it == p.param_index.end()) return make_error("unknown parameter '" + name + "'");
    f.params[static_cast<std::size_t>(it->second)] = v;
  }
  for (std::size_t k = 0; k < p.params.size(); ++k) {
    if (!std::isfinite(f.params[k]))
      return named_error(p, p.params[k], "parameter", format_number(f.params[k]) + " is not a finite number");
    // A parameter's domain holds in exact and hybrid evaluation (relaxed
    // nodes skip domain checks), checked like an input's, before rounding.
    const Node& pn = p.program.nodes[static_cast<std::size_t>(p.params[k])];
    if (pn.domain && p.instrs[static_cast<std::size_t>(p.params[k])].mode == Mode::Exact)
      if (auto why = pn.domain->check(f.params[k])) return named_error(p, pn.id, "parameter", *why);
    f.params[k] = p.round(f.params[k]);
  }
  f.states.resize(p.states.size());
  for (std::size_t k = 0; k < p.states.size(); ++k) f.states[k] = p.instrs[static_cast<std::size_t>(p.states[k])].value;
  for (const auto& [name, v] : env.state) {
    auto it = p.state_index.find(name);
    if (it == p.state_index.end()) return make_error("unknown state '" + name + "'");
    f.states[static_cast<std::size_t>(it->second)] = v;
  }
  for (std::size_t k = 0; k < p.states.size(); ++k) {
    const Node& n = p.program.nodes[static_cast<std::size_t>(p.states[k])];
    if (auto why = n.domain->check(f.states[k])) return named_error(p, n.id, "state", *why);
    f.states[k] = p.round(f.states[k]);
  }
  return f;
}

std::optional<Diagnostic> check_input(const Prepared& p, int k, double raw, double& out) {
  NodeId id = p.inputs[static_cast<std::size_t>(k)];
  const Node& n = p.program.nodes[static_cast<std::size_t>(id)];
  if (auto why = n.domain->check(raw)) return named_error(p, id, "input", *why);
  // A float32 domain describes a binary32 input representation: the value
  // enters as the nearest binary32 whatever the arithmetic dtype.
  if (p.f32 || n.domain->type == DomainType::Float32) {
    out = round_f32(raw);
    if (!std::isfinite(out)) return named_error(p, id, "input", format_number(raw) + " is outside the float32 range");
    // An integer input must arrive unchanged: rounding 16777217 to 16777216
    // would silently change the value, which domains never do.
    if (n.domain->is_integral() && out != raw)
      return named_error(p, id, "input", format_number(raw) + " is not exactly representable in float32");
  } else {
    out = raw;
  }
  return std::nullopt;
}

}  // namespace eval_detail

Result<Evaluator> Evaluator::create(const Program& program, EvalOptions options) {
  if (Status s = validate(program); !s) return s.error();
  auto impl = std::make_unique<Impl>(options.plan);
  Prepared& p = impl->p;
  // The program under the caller's policy (ir/policy.h), as the tape, the
  // analysis and the clients resolve it: the compiled plan's C writer reads
  // this resolved program as it is.
  p.program = with_policy(program, Policy{.semantics = options.semantics, .dtype = options.dtype});
  p.f32 = p.program.dtype == Dtype::Float32;
  const Semantics root = p.program.semantics;
  const std::size_t n = program.nodes.size();
  p.instrs.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const Node& node = program.nodes[i];
    Instr& in = p.instrs[i];
    in.op = node.op;
    in.mode = node.semantics.value_or(root) == Semantics::Relaxed ? Mode::Relaxed : Mode::Exact;
    in.temperature = program.temperature_of(node);
    in.arg_begin = static_cast<std::uint32_t>(p.args.size());
    in.nargs = static_cast<std::uint32_t>(node.args.size());
    p.args.insert(p.args.end(), node.args.begin(), node.args.end());
    in.value = node.value;
    if (node.domain) {
      in.domain = static_cast<std::int32_t>(p.domains.size());
      p.domains.push_back(*node.domain);
      // A constant's domain is checked where the constant is evaluated (so
      // only when a case reaches it); inputs, parameters and state are
      // checked on entry.
      in.check_domain = (!is_leaf(node.op) || node.op == Op::Constant) && in.mode == Mode::Exact &&
                        !eval_detail::domain_implied(node.op, *node.domain);
    }
    switch (node.op) {
      case Op::Input:
        in.slot = static_cast<std::int32_t>(p.inputs.size());
        p.input_index.emplace(node.name, in.slot);
        p.inputs.push_back(node.id);
        break;
      case Op::Parameter:
        in.slot = static_cast<std::int32_t>(p.params.size());
        p.param_index.emplace(node.name, in.slot);
        p.params.push_back(node.id);
        break;
      case Op::State:
        in.slot = static_cast<std::int32_t>(p.states.size());
        p.state_index.emplace(node.name, in.slot);
        p.states.push_back(node.id);
        break;
      case Op::Constant:
        break;  // rounded where it is read, so an overflow is reported as such
      case Op::Affine:
      case Op::SparseAffine: {
        // Coefficients and bias are stored constants: under float32 they are
        // binary32 values like every constant node.
        const LinearTerms& lin = node.linear();
        in.coef_begin = static_cast<std::uint32_t>(p.coefs.size());
        in.ncoef = static_cast<std::uint32_t>(lin.coefficients.size());
        for (double c : lin.coefficients) p.coefs.push_back(p.round(c));
        if (node.op == Op::SparseAffine) {
          p.positions.resize(in.coef_begin);
          p.positions.insert(p.positions.end(), lin.indices.begin(), lin.indices.end());
        }
        in.has_bias = lin.bias.has_value();
        in.bias = p.round(lin.bias.value_or(0.0));
        break;
      }
      case Op::Call: {
        const Binding* b = nullptr;
        if (options.bindings) {
          auto it = options.bindings->find(node.name);
          if (it != options.bindings->end() && it->second.forward) b = &it->second;
        }
        if (!b) return eval_detail::node_error(p, node.id, "no binding named '" + node.name + "' was provided");
        in.slot = static_cast<std::int32_t>(p.bindings.size());
        p.bindings.push_back(b);
        break;
      }
      default:
        break;  // every other op is its arguments and its mode: nothing more to prepare
    }
  }
  for (const auto& [name, id] : program.outputs) p.targets.push_back(id);
  for (const auto& [state, next] : program.updates) p.targets.push_back(next);
  // Reachability from the targets; arguments have smaller ids, so one
  // backward sweep suffices.
  p.needed.assign(n, 0);
  for (NodeId t : p.targets) p.needed[static_cast<std::size_t>(t)] = 1;
  for (std::size_t i = n; i-- > 0;) {
    if (!p.needed[i]) continue;
    const Instr& in = p.instrs[i];
    for (std::uint32_t k = 0; k < in.nargs; ++k) p.needed[static_cast<std::size_t>(p.args[in.arg_begin + k])] = 1;
  }
  p.straight = true;
  for (std::size_t i = 0; i < n; ++i) {
    if (!p.needed[i]) continue;
    p.order.push_back(static_cast<NodeId>(i));
    if (p.instrs[i].op == Op::Select && p.instrs[i].mode == Mode::Exact) p.straight = false;
  }
  eval_detail::build_lazy_plan(p);
  eval_detail::build_plan(p);
  return Evaluator(std::move(impl));
}

Evaluator::Evaluator(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Evaluator::Evaluator(Evaluator&&) noexcept = default;
Evaluator& Evaluator::operator=(Evaluator&&) noexcept = default;
Evaluator::~Evaluator() = default;

const Program& Evaluator::program() const { return impl_->p.program; }
const std::vector<NodeId>& Evaluator::input_ids() const { return impl_->p.inputs; }

Result<CaseResult> Evaluator::run(const Env& env, CaseTrace* trace) const {
  const Prepared& p = impl_->p;
  if (trace) {
    trace->values.assign(p.program.nodes.size(), std::numeric_limits<double>::quiet_NaN());
    trace->computed.assign(p.program.nodes.size(), 0);
    trace->branch.assign(p.program.nodes.size(), -1);
  }
  for (const auto& [name, v] : env.inputs)
    if (!p.input_index.count(name)) return make_error("unknown input '" + name + "'");
  std::vector<double> inputs(p.inputs.size());
  for (std::size_t k = 0; k < p.inputs.size(); ++k) {
    const std::string& name = p.program.nodes[static_cast<std::size_t>(p.inputs[k])].name;
    auto it = env.inputs.find(name);
    if (it == env.inputs.end()) return make_error("missing input '" + name + "'");
    if (auto err = eval_detail::check_input(p, static_cast<int>(k), it->second, inputs[k])) return *err;
  }
  auto fixed = eval_detail::resolve_fixed(p, env);
  if (!fixed) return fixed.error();
  // The compiled plan answers a case that raised no flag; a flagged one (or
  // a traced one) is the interpreter's to decide and to word.
  if (!trace)
    if (const auto* k = impl_->plan.kernel_for(p, static_cast<double>(p.order.size()), eval_detail::PlanWork::Case)) {
      CaseResult out;
      if (eval_detail::run_case_compiled(*k, p, inputs.data(), *fixed, out)) return out;
    }
  // One workspace per thread, reused across calls (and evaluators), so run()
  // allocates nothing for the nodes once it has seen a program this large.
  // A binding that calls run() again from inside gets a fresh one.
  thread_local eval_detail::Workspace shared_ws;
  thread_local bool shared_busy = false;
  eval_detail::Workspace own_ws;
  const bool reuse = !shared_busy;
  eval_detail::Workspace& ws = reuse ? shared_ws : own_ws;
  struct Release {
    bool active;
    ~Release() {
      if (active) shared_busy = false;
    }
  } release{reuse};
  shared_busy = true;
  Diagnostic err;
  const bool ok = eval_detail::eval_case(p, inputs.data(), *fixed, ws, err);
  if (trace) {
    for (std::size_t i = 0; i < p.program.nodes.size(); ++i) {
      if (ws.status[i] != eval_detail::kDone) continue;
      trace->values[i] = ws.values[i];
      trace->computed[i] = 1;
      trace->branch[i] = ws.branch[i];
    }
  }
  if (!ok) return err;
  CaseResult out;
  out.outputs.reserve(p.program.outputs.size());
  for (const auto& [name, id] : p.program.outputs) out.outputs.push_back(ws.values[static_cast<std::size_t>(id)]);
  out.next_state.reserve(p.program.updates.size());
  for (const auto& [state, next] : p.program.updates) out.next_state.push_back(ws.values[static_cast<std::size_t>(next)]);
  return out;
}

Status Evaluator::run_batch(std::span<const std::span<const double>> columns, std::size_t count, const Env& fixed,
                            BatchResult& out, unsigned threads) const {
  const Prepared& p = impl_->p;
  if (const auto* k = impl_->plan.kernel_for(p, static_cast<double>(count) * static_cast<double>(p.order.size()),
                                                eval_detail::PlanWork::Batch))
    return eval_detail::run_batch_compiled(*k, p, columns, count, fixed, out, threads);
  return eval_detail::run_batch_impl(p, columns, count, fixed, out, threads);
}

PlanStatus Evaluator::plan_status() const { return impl_->plan.status(); }

}  // namespace tc
