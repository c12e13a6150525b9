// The tape's reverse pass: one derivative rule per op, in each semantics.
#include <exception>

#include "grad/tape_impl.h"

#include "ir/kernels.h"
#include "ir/op_semantics.h"

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

Status GradientTape::Impl::vjp(NodeId id, double g) {
  const TNode& n = nodes[static_cast<std::size_t>(id)];
  switch (n.op) {
    case Op::Input: case Op::Parameter: case Op::Constant: case Op::State:
      return ok_status();
    case Op::Add: push(arg(n, 0), g); push(arg(n, 1), g); return ok_status();
    case Op::Sub: push(arg(n, 0), g); push(arg(n, 1), -g); return ok_status();
    case Op::Mul: push(arg(n, 0), g * v(n, 1)); push(arg(n, 1), g * v(n, 0)); return ok_status();
    case Op::Div: {
      const double a = v(n, 0), b = v(n, 1);
      push(arg(n, 0), g / b);
      push(arg(n, 1), -g * (a / b) / b);
      return ok_status();
    }
    case Op::Neg: push(arg(n, 0), -g); return ok_status();
    case Op::FloorDiv: return ok_status();  // piecewise constant
    case Op::Mod:  // a - b*floor(a/b): slope 1 in a, -floor(a/b) in b
      push(arg(n, 0), g);
      push(arg(n, 1), -g * kernels::py_floordiv(v(n, 0), v(n, 1)));
      return ok_status();
    case Op::Lt: case Op::Le: case Op::Gt: case Op::Ge: case Op::Eq: case Op::Ne: {
      if (n.sem == Semantics::Exact) return ok_status();
      // Relaxed, and hybrid's surrogate: the relaxed form's slope at this point.
      const double x = v(n, 0), y = v(n, 1), t = n.temperature;
      double dx = 0.0;
      switch (n.op) {
        case Op::Gt: case Op::Ge: dx = n.policy->step_slope((x - y) / t) / t; break;
        case Op::Lt: case Op::Le: dx = -n.policy->step_slope((y - x) / t) / t; break;
        case Op::Eq: case Op::Ne: {
          const double z = (x - y) / t;
          dx = n.policy->equal(x, y, t) * n.policy->log_bump_slope(z) / t;
          if (n.op == Op::Ne) dx = -dx;
          break;
        }
        default: break;
      }
      push(arg(n, 0), g * dx);
      push(arg(n, 1), -g * dx);
      return ok_status();
    }
    case Op::Select: {
      if (n.sem == Semantics::Relaxed) {
        const double c = v(n, 0);
        push(arg(n, 0), g * (v(n, 1) - v(n, 2)));
        push(arg(n, 1), g * c);
        push(arg(n, 2), g * (1.0 - c));
        return ok_status();
      }
      const int chosen = v(n, 0) != 0.0 ? 1 : 2;
      push(arg(n, chosen), g);
      if (n.sem == Semantics::Hybrid && nodes[static_cast<std::size_t>(arg(n, 0))].carries) {
        if (Status s = needs_defined(id, arg(n, 3 - chosen)); !s) return s;
        push(arg(n, 0), g * (v(n, 1) - v(n, 2)));  // dc = a - b with the hard c
      }
      return ok_status();
    }
    case Op::Relu: push(arg(n, 0), v(n, 0) > 0.0 ? g : 0.0); return ok_status();
    case Op::Gather: {
      const int values = n.count - 1;
      const double index = v(n, 0);
      const bool index_carries = nodes[static_cast<std::size_t>(arg(n, 0))].carries;
      if (n.sem != Semantics::Relaxed) push(arg(n, 1 + static_cast<int>(index)), g);
      if (n.sem == Semantics::Exact || (n.sem == Semantics::Hybrid && !index_carries)) return ok_status();
      // The relaxed weights and their slope in the index (tape_impl.h's
      // rule, which the block kernels run per lane too).
      const auto nv = static_cast<std::size_t>(values);
      auto w = [&](std::size_t k) -> double& { return scratch[k]; };
      tape_detail::gather_normalised_weights(nv, index, *n.policy, n.temperature, w);
      const double dindex = tape_detail::gather_index_slope(nv, index, *n.policy, n.temperature, w,
                                                            [&](std::size_t k) { return v(n, static_cast<int>(k) + 1); });
      if (n.sem == Semantics::Relaxed)
        for (int k = 0; k < values; ++k) push(arg(n, k + 1), g * scratch[static_cast<std::size_t>(k)]);
      push(arg(n, 0), g * dindex);
      return ok_status();
    }
    case Op::GatherOneHot: {
      const int half = n.count / 2;
      if (n.sem == Semantics::Relaxed) {
        for (int k = 0; k < half; ++k) {
          push(arg(n, k), g * v(n, half + k));
          push(arg(n, half + k), g * v(n, k));
        }
        return ok_status();
      }
      for (int k = 0; k < half; ++k)
        if (v(n, k) == 1.0) push(arg(n, half + k), g);
      if (n.sem == Semantics::Hybrid)
        for (int k = 0; k < half; ++k) {
          if (!nodes[static_cast<std::size_t>(arg(n, k))].carries) continue;
          push(arg(n, k), g * v(n, half + k));  // every value was needed by the forward  // the weighted sum's slope in selector k
        }
      return ok_status();
    }
    case Op::Affine:
    case Op::SparseAffine: {
      const LinearTerms& lin = program.nodes[static_cast<std::size_t>(id)].linear();
      for (std::size_t j = 0; j < lin.coefficients.size(); ++j) {
        const int k = n.op == Op::Affine ? static_cast<int>(j) : lin.indices[j];
        push(arg(n, k), g * lin.coefficients[j]);
      }
      return ok_status();
    }
    case Op::Call: {
      const Binding& b = *binding_of[static_cast<std::size_t>(id)];
      const std::string& name = program.nodes[static_cast<std::size_t>(id)].name;
      if (!b.vjp)
        return node_error(id, "binding '" + name +
                                  "' is forward-only (no vjp), but the derivative passes through it");
      for (int k = 0; k < n.count; ++k) scratch[static_cast<std::size_t>(k)] = v(n, k);
      std::vector<double> d;
      try {
        d = b.vjp(std::span<const double>(scratch.data(), static_cast<std::size_t>(n.count)),
                  val[static_cast<std::size_t>(id)]);
      } catch (const std::exception& e) {
        return node_error(id, "vjp of binding '" + name + "' failed: " + e.what());
      } catch (...) {
        return node_error(id, "vjp of binding '" + name + "' failed");
      }
      if (d.size() != static_cast<std::size_t>(n.count))
        return node_error(id, "vjp of binding '" + name + "' returned " + std::to_string(d.size()) +
                                  " derivatives for " + std::to_string(n.count) + " arguments");
      for (int k = 0; k < n.count; ++k) {
        if (!std::isfinite(d[static_cast<std::size_t>(k)]))
          return node_error(id, "vjp of binding '" + name + "' returned a non-finite derivative for argument " +
                                    std::to_string(k));
        push(arg(n, k), g * d[static_cast<std::size_t>(k)]);
      }
      return ok_status();
    }
    default: {
      // Every other op is a one-argument kernel of op_semantics.h (sigmoid,
      // and any op added there): the adjoint times its slope. unary() lists
      // every op, so one that is not there fails here, by name, in the
      // closed-form tests rather than giving a silent zero.
      const bool one_argument = sem::unary(n.op, [&](auto k) { push(arg(n, 0), g * decltype(k)::slope(v(n, 0))); });
      if (!one_argument) internal_error(__FILE__, __LINE__, ("no derivative rule for op " + std::string(op_name(n.op))).c_str());
      return ok_status();
    }
  }
  return ok_status();
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
