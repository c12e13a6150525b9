// The gradient tape: preparing a program and the public entry points.
#include <cmath>

#include "grad/tape_impl.h"

#include "ir/kernels.h"
#include "ir/policy.h"

namespace tc {

using tape_detail::kNaN;
using tape_detail::num;
using tape_detail::TNode;

// ---------------------------------------------------------------- preparing

GradientTape::GradientTape(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
GradientTape::GradientTape(GradientTape&&) noexcept = default;
GradientTape& GradientTape::operator=(GradientTape&&) noexcept = default;
GradientTape::~GradientTape() = default;

const Program& GradientTape::program() const { return impl_->program; }
const std::vector<std::string>& GradientTape::outputs() const { return impl_->out_names; }
const std::vector<GradLeaf>& GradientTape::leaves() const { return impl_->leaves; }

Result<GradientTape> GradientTape::create(const Program& program, const GradOptions& options) {
  std::string name = options.output;
  if (name.empty()) {
    if (program.outputs.empty()) return make_error("the program has no outputs");
    name = program.output("result") ? "result" : program.outputs.front().first;
  }
  return create(program, std::vector<std::string>{name}, options);
}

namespace {

/// Whether a derivative can flow along argument k of `n` for some values
/// (the static form of the rules in vjp(); exact select: either branch).
bool edge_may_carry(const TNode& n, int k) {
  const OpInfo& info = op_info(n.op);
  if (info.grad == OpGrad::Flat) return false;
  return !info.is_decision_arg(k, n.count) || n.sem != Semantics::Exact;
}

}  // namespace

Result<GradientTape> GradientTape::create(const Program& program, const std::vector<std::string>& outputs,
                                          const GradOptions& options) {
  if (Status s = validate(program); !s) return s.error();
  const Policy policy{.semantics = options.semantics, .dtype = options.dtype, .temperature = options.temperature,
                      .surrogate = options.surrogate};
  if (Status s = check_policy(policy); !s) return s.error();
  auto impl = std::make_unique<Impl>();
  Impl& m = *impl;
  m.program = with_policy(program, policy);
  m.options = options;
  m.f32 = m.program.dtype == Dtype::Float32;
  const Program& p = m.program;
  const std::size_t count = p.nodes.size();

  for (const std::string& name : outputs) {
    auto id = p.output(name);
    if (!id) {
      std::string known;
      for (const auto& [n, _] : p.outputs) known += (known.empty() ? "" : ", ") + n;
      return make_error("the program has no output '" + name + "' (outputs: " + known + ")");
    }
    m.out_names.push_back(name);
    m.out_ids.push_back(*id);
  }

  m.nodes.resize(count);
  m.binding_of.assign(count, nullptr);
  std::size_t widest = 1;
  for (std::size_t i = 0; i < count; ++i) {
    const Node& n = p.nodes[i];
    TNode& t = m.nodes[i];
    t.op = n.op;
    t.sem = p.semantics_of(n);
    t.temperature = p.temperature_of(n);
    t.policy = &surrogate_policy(p.surrogate_of(n));
    t.first = static_cast<std::int32_t>(m.args.size());
    t.count = static_cast<std::int32_t>(n.args.size());
    t.checked_domain = n.domain.has_value() && (!is_leaf(n.op) || n.op == Op::Constant);
    widest = std::max(widest, n.args.size());
    m.args.insert(m.args.end(), n.args.begin(), n.args.end());
    if (n.op == Op::Input) m.inputs.emplace(n.name, n.id);
    if (n.op == Op::Parameter) m.params.emplace(n.name, n.id);
    if (n.op == Op::State) m.states.emplace(n.name, n.id);
    // Which leaves are reported and where derivatives can come from.
    if (n.op == Op::Input || n.op == Op::Parameter) {
      bool wanted = n.differentiable && (n.op == Op::Parameter || options.wrt != GradWrt::Parameters);
      t.carries = wanted;
      if (wanted) m.leaves.push_back({n.name, n.op, n.id});
    } else if (options.wrt == GradWrt::AllNodes) {
      t.carries = true;
    } else if (n.op == Op::SparseAffine) {
      for (std::int32_t j : n.linear().indices) t.carries = t.carries || m.nodes[static_cast<std::size_t>(n.args[j])].carries;
    } else {
      for (int k = 0; k < t.count; ++k)
        if (edge_may_carry(t, k) && m.nodes[static_cast<std::size_t>(n.args[k])].carries) t.carries = true;
    }
    if (options.wrt == GradWrt::AllNodes) t.carries = true;
    if (n.op == Op::Call) {
      const Binding* b = nullptr;
      if (options.bindings) {
        auto it = options.bindings->find(n.name);
        if (it != options.bindings->end()) b = &it->second;
      }
      if (!b || !b->forward) return m.node_error(n.id, "no binding named '" + n.name + "' was supplied");
      m.binding_of[i] = b;
    }
  }

  // The cone of the requested outputs, ascending.
  std::vector<std::uint8_t> needed(count, 0);
  for (NodeId o : m.out_ids) needed[static_cast<std::size_t>(o)] = 1;
  for (std::size_t i = count; i-- > 0;)
    if (needed[i])
      for (NodeId a : p.nodes[i].args) needed[static_cast<std::size_t>(a)] = 1;
  for (std::size_t i = 0; i < count; ++i)
    if (needed[i]) m.order.push_back(static_cast<NodeId>(i));

  m.own_val.assign(count, kNaN);
  m.adj.assign(count, 0.0);
  m.own_fail.assign(count, 0);
  m.use_own_tables();
  m.reached.assign(count, 0);
  m.why.resize(count);
  m.scratch.assign(widest, 0.0);
  return GradientTape(std::move(impl));
}

// ---------------------------------------------------------------- public runs

Status GradientTape::forward(const Env& env, std::span<double> outputs) {
  Impl& m = *impl_;
  TC_ASSERT(outputs.size() == m.out_ids.size());
  m.ready = m.forwarded = false;
  if (Status s = m.load_leaves(env); !s) return s;
  m.forward_pass();
  m.forwarded = true;
  std::int32_t poison = 0;
  for (std::size_t k = 0; k < m.out_ids.size(); ++k) {
    const std::int32_t q = m.fail[static_cast<std::size_t>(m.out_ids[k])];
    if (q && (!poison || q < poison)) poison = q;
    outputs[k] = m.val[static_cast<std::size_t>(m.out_ids[k])];
  }
  if (poison) return m.poison_error(poison);
  m.ready = true;
  return ok_status();
}

Status GradientTape::backward(const Env& env, std::span<const double> seeds, std::span<double> outputs,
                              std::span<double> gradients) {
  if (Status s = forward(env, outputs); !s) return s;
  return reverse(seeds, gradients);
}

Status GradientTape::reverse(std::span<const double> seeds, std::span<double> gradients) {
  Impl& m = *impl_;
  TC_ASSERT(seeds.size() == m.out_ids.size() && gradients.size() == m.leaves.size());
  if (!m.ready) return make_error("the reverse pass needs a successful forward pass first");
  return m.reverse_pass(seeds, gradients);
}

Status GradientTape::Impl::reverse_pass(std::span<const double> seeds, std::span<double> gradients) {
  Impl& m = *this;
  if (Status s = m.backward_pass(seeds); !s) return s;
  for (std::size_t k = 0; k < m.leaves.size(); ++k) {
    const auto l = static_cast<std::size_t>(m.leaves[k].node);
    // A leaf outside the cone has a stale adjoint: its derivative is 0.
    gradients[k] = m.reached[l] ? m.adj[l] : 0.0;
    if (!std::isfinite(gradients[k])) return m.nonfinite_result(k, gradients[k], [&](std::size_t o) { return seeds[o]; });
  }
  return ok_status();
}

Diagnostic GradientTape::Impl::nonfinite_gradient(std::size_t k, double g) const {
  const GradLeaf& leaf = leaves[k];
  return make_error("the gradient with respect to " + std::string(leaf.op == Op::Input ? "input" : "parameter") +
                        " '" + leaf.name + "' is " + (std::isnan(g) ? "nan" : "infinite"),
                    program.nodes[static_cast<std::size_t>(leaf.node)].location, leaf.node);
}

Diagnostic GradientTape::Impl::nonfinite_seed(std::size_t o, double s) const {
  return make_error("the incoming gradient (the seed) of output '" + out_names[o] + "' is " +
                        (std::isnan(s) ? "nan" : "infinite") +
                        ", so every gradient it reaches is too: check what computes it (a loss of a nan target, "
                        "an overflow in the loss)",
                    program.nodes[static_cast<std::size_t>(out_ids[o])].location, out_ids[o]);
}

Result<GradResult> GradientTape::run(const Env& env) {
  const std::size_t outs = impl_->out_ids.size();
  std::vector<double> seeds(outs, 0.0), values(outs, 0.0), grads(impl_->leaves.size(), 0.0);
  seeds[0] = 1.0;
  if (Status s = backward(env, seeds, values, grads); !s) return s.error();
  GradResult r;
  r.result = values[0];
  for (std::size_t k = 0; k < grads.size(); ++k) r.gradients.emplace_back(impl_->leaves[k].name, grads[k]);
  return r;
}

std::optional<double> GradResult::gradient(std::string_view name) const {
  for (const auto& [n, g] : gradients)
    if (n == name) return g;
  return std::nullopt;
}

Result<GradResult> gradients(const Program& program, const Env& env, const GradOptions& options) {
  auto tape = GradientTape::create(program, options);
  if (!tape) return tape.error();
  return tape->run(env);
}


}  // namespace tc
