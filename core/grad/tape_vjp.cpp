// The tape's reverse pass: op_derivatives.h's rule per node, one case at a
// time, and the host bindings' vjp for calls.
#include <exception>

#include "grad/tape_impl.h"

#include "ir/op_derivatives.h"

namespace tc {

using tape_detail::kNaN;
using tape_detail::num;
using tape_detail::TNode;

// ---------------------------------------------------------------- backward

Status GradientTape::Impl::needs_defined(NodeId decision, NodeId value) const {
  const std::int32_t poison = fail[static_cast<std::size_t>(value)];
  if (!poison) return ok_status();
  Diagnostic d = poison_error(poison);
  d.message = "the hybrid derivative of " + describe_node(program, decision) +
              " needs the value it did not choose, which is undefined: " + d.message;
  // Clients mark the select beside the failing value by these, never by the words.
  d.code = DiagCode::HybridNeedsUnchosen;
  d.related = decision;
  return d;
}

namespace {

/// A tape node as op_derivatives.h's rules and node factors read it.
template <class M>  // GradientTape::Impl, private to the tape
struct RuleNode {
  const M& m;
  const TNode& n;
  const LinearTerms* lin;  ///< affine nodes only
  std::size_t count() const { return static_cast<std::size_t>(n.count); }
  bool carries(int k) const { return m.nodes[static_cast<std::size_t>(m.arg(n, k))].carries; }
  std::size_t terms() const { return lin->coefficients.size(); }
  int term_arg(std::size_t j) const { return lin->indices[j]; }
  double x(std::size_t k) const { return m.v(n, static_cast<int>(k)); }
  double temperature() const { return n.temperature; }
  const SurrogatePolicy& policy() const { return *n.policy; }
};

/// A host call's rule: its binding's vjp, checked.
template <class M>
Status call_vjp(M& m, NodeId id, double g) {
  const TNode& n = m.nodes[static_cast<std::size_t>(id)];
  const Binding& b = *m.binding_of[static_cast<std::size_t>(id)];
  const std::string& name = m.program.nodes[static_cast<std::size_t>(id)].name;
  if (!b.vjp)
    return m.node_error(id, "binding '" + name + "' is forward-only (no vjp), but the derivative passes through it");
  for (int k = 0; k < n.count; ++k) m.scratch[static_cast<std::size_t>(k)] = m.v(n, k);
  std::vector<double> d;
  try {
    d = b.vjp(std::span<const double>(m.scratch.data(), static_cast<std::size_t>(n.count)),
              m.val[static_cast<std::size_t>(id)]);
  } catch (const std::exception& e) {
    return m.node_error(id, "vjp of binding '" + name + "' failed: " + e.what());
  } catch (...) {
    return m.node_error(id, "vjp of binding '" + name + "' failed");
  }
  if (d.size() != static_cast<std::size_t>(n.count))
    return m.node_error(id, "vjp of binding '" + name + "' returned " + std::to_string(d.size()) +
                                " derivatives for " + std::to_string(n.count) + " arguments");
  for (int k = 0; k < n.count; ++k) {
    if (!std::isfinite(d[static_cast<std::size_t>(k)]))
      return m.node_error(id, "vjp of binding '" + name + "' returned a non-finite derivative for argument " +
                                  std::to_string(k));
    m.push(m.arg(n, k), g * d[static_cast<std::size_t>(k)]);
  }
  return ok_status();
}

}  // namespace

// op_derivatives.h's rule for the node, one double per term (the batched
// tape's block kernels run the same terms over a block's lanes).
Status GradientTape::Impl::vjp(NodeId id, double g) {
  const TNode& n = nodes[static_cast<std::size_t>(id)];
  if (n.op == Op::Call) return call_vjp(*this, id, g);
  using L = sem::GradLanes<double>;
  const Node& node = program.nodes[static_cast<std::size_t>(id)];
  const RuleNode<Impl> rn{*this, n, op_info(n.op).has(kHasCoefficients) ? &node.linear() : nullptr};
  double d = 0.0;
  bool factored = false;  // d and the weights (scratch) are computed on the first term that reads them
  Status status = ok_status();
  sem::vjp_terms(n.op, n.sem, rn, [&](int k, sem::TermKind kind, std::size_t j) {
    if (!status) return;
    const bool known = sem::with_term(kind, n.op, [&](auto term) {
      using Tm = decltype(term);
      // A value a term reads was defined in the forward; only a hybrid
      // select's condition reads the branch it did not choose, which may
      // have failed.
      double r[2] = {0.0, 0.0};
      for (int q = 0; q < Tm::reads.count; ++q) {
        const NodeId a = arg(n, Tm::reads.at(q, j));
        if (fail[static_cast<std::size_t>(a)]) {
          status = needs_defined(id, a);
          return;
        }
        r[q] = val[static_cast<std::size_t>(a)];
      }
      double f = 0.0;
      if constexpr (Tm::factor == sem::Factor::Coef) {
        f = node.linear().coefficients[j];
      } else if constexpr (Tm::factor != sem::Factor::None) {
        if (!factored) {
          d = sem::node_factors(n.op, n.sem, rn, [&](std::size_t w) -> double& { return scratch[w]; });
          factored = true;
        }
        f = Tm::factor == sem::Factor::Slope ? d : scratch[j];
      }
      if constexpr (Tm::pick) {
        if (!Tm::template mask<L>(r[0], L::lit(static_cast<double>(j)))) return;
      }
      push(arg(n, k), Tm::template value<L>(g, r[0], r[1], f));
    });
    if (!known) internal_error(__FILE__, __LINE__, ("no derivative term for op " + std::string(op_name(n.op))).c_str());
  });
  return status;
}

Status GradientTape::Impl::backward_pass(std::span<const double> seeds) {
  for (NodeId id : order) {
    adj[static_cast<std::size_t>(id)] = 0.0;
    reached[static_cast<std::size_t>(id)] = 0;
  }
  for (std::size_t k = 0; k < out_ids.size(); ++k) push(out_ids[k], seeds[k]);
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const auto i = static_cast<std::size_t>(*it);
    if (!reached[i]) continue;
    if (Status s = vjp(*it, adj[i]); !s) return s;
  }
  return ok_status();
}

}  // namespace tc
