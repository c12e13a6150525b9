// The tape's forward pass (see tape_impl.h for how failures are tracked).
#include <exception>

#include "grad/tape_impl.h"

#include "ir/kernels.h"

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

/// Relaxed gather as the evaluator computes it: bump(index - k) weights
/// accumulated in argument order, value sum over weight sum. Leaves the raw
/// weights in scratch[0..n) and their sum in `den` for the derivative.
double GradientTape::Impl::gather_weights(const TNode& n, double index, double& den) {
  const int values = n.count - 1;
  double num = 0.0;
  den = 0.0;
  for (int k = 0; k < values; ++k) {
    const double w = n.policy->equal(index, static_cast<double>(k), n.temperature);
    scratch[static_cast<std::size_t>(k)] = w;
    num = num + w * v(n, k + 1);
    den = den + w;
  }
  return num / den;
}

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
    case Op::Add: first_poison(0, 2); r = v(n, 0) + v(n, 1); break;
    case Op::Sub: first_poison(0, 2); r = v(n, 0) - v(n, 1); break;
    case Op::Mul: first_poison(0, 2); r = v(n, 0) * v(n, 1); break;
    case Op::Neg: first_poison(0, 1); r = -v(n, 0); break;
    case Op::Div:
    case Op::FloorDiv:
    case Op::Mod:
      first_poison(0, 2);
      if (!poison && v(n, 1) == 0.0) return own("division by zero");
      r = n.op == Op::Div ? v(n, 0) / v(n, 1)
          : n.op == Op::FloorDiv ? kernels::py_floordiv(v(n, 0), v(n, 1))
                                 : kernels::py_mod(v(n, 0), v(n, 1));
      break;
    case Op::Lt: case Op::Le: case Op::Gt: case Op::Ge: case Op::Eq: case Op::Ne: {
      first_poison(0, 2);
      const double x = v(n, 0), y = v(n, 1), t = n.temperature;
      if (hard) {
        bool b = n.op == Op::Lt ? x < y : n.op == Op::Le ? x <= y : n.op == Op::Gt ? x > y
                 : n.op == Op::Ge ? x >= y : n.op == Op::Eq ? x == y : x != y;
        r = kernels::b2d(b);
      } else {
        switch (n.op) {
          case Op::Gt: case Op::Ge: r = n.policy->greater(x, y, t); break;
          case Op::Lt: case Op::Le: r = n.policy->greater(y, x, t); break;
          case Op::Eq: r = n.policy->equal(x, y, t); break;
          default: r = 1.0 - n.policy->equal(x, y, t); break;
        }
      }
      break;
    }
    case Op::Select:
      if (hard) {
        first_poison(0, 1);
        if (poison) break;  // a failed condition explores neither branch
        const int chosen = v(n, 0) != 0.0 ? 1 : 2;
        first_poison(chosen, chosen + 1);
        r = v(n, chosen);
      } else {
        first_poison(0, 3);
        r = kernels::relaxed_select(v(n, 0), v(n, 1), v(n, 2));
      }
      break;
    case Op::Relu: first_poison(0, 1); r = kernels::relu(v(n, 0)); break;
    case Op::Sigmoid: first_poison(0, 1); r = kernels::sigmoid(v(n, 0)); break;
    case Op::Gather: {
      const int values = n.count - 1;
      // Like the evaluator, gather needs every value (only select is lazy).
      first_poison(0, n.count);
      if (poison) break;
      const double index = v(n, 0);
      if (hard) {
        if (index != std::floor(index)) return own("index " + num(index) + " is not an integer");
        if (index < 0 || index >= values)
          return own("index " + num(index) + " is out of range for " + std::to_string(values) + " values");
        r = v(n, 1 + static_cast<int>(index));
      } else {
        double den = 0.0;
        r = gather_weights(n, index, den);
        if (std::isnan(r))
          return own("relaxed gather weights are all zero (index " + num(index) + " is far from every position)");
      }
      break;
    }
    case Op::GatherOneHot: {
      const int half = n.count / 2;
      first_poison(0, n.count);
      if (poison) break;
      if (hard) {
        int chosen = -1, ones = 0;
        for (int k = 0; k < half; ++k) {
          const double s = v(n, k);
          if (s != 0.0 && s != 1.0) return own("selector " + std::to_string(k) + " is " + num(s) + ", expected 0 or 1");
          if (s == 1.0 && ones++ == 0) chosen = k;
        }
        if (ones != 1)
          return own(ones == 0 ? std::string("no selector is 1, expected exactly one")
                               : std::to_string(ones) + " selectors are 1, expected exactly one");
        r = v(n, half + chosen);
      } else {
        r = v(n, 0) * v(n, half);
        for (int k = 1; k < half; ++k) r = r + v(n, k) * v(n, half + k);
      }
      break;
    }
    case Op::Affine:
    case Op::SparseAffine: {
      first_poison(0, n.count);
      const LinearTerms& lin = program.nodes[i].linear();
      // Stored coefficients are constants: binary32 under float32, like the evaluator.
      auto round = [&](double x) { return f32 ? round_f32(x) : x; };
      for (std::size_t j = 0; j < lin.coefficients.size(); ++j) {
        const int k = n.op == Op::Affine ? static_cast<int>(j) : lin.indices[j];
        double term = round(round(lin.coefficients[j]) * v(n, k));
        r = j == 0 ? term : round(r + term);
      }
      if (lin.bias) r = round(r + round(*lin.bias));
      break;
    }
    case Op::Call: {
      first_poison(0, n.count);
      if (poison) break;
      for (int k = 0; k < n.count; ++k) scratch[static_cast<std::size_t>(k)] = v(n, k);
      const Binding& b = *binding_of[i];
      try {
        r = b.forward(std::span<const double>(scratch.data(), static_cast<std::size_t>(n.count)));
      } catch (const std::exception& e) {
        return own("binding '" + program.nodes[i].name + "' failed: " + e.what());
      } catch (...) {
        return own("binding '" + program.nodes[i].name + "' failed");
      }
      if (!std::isfinite(r)) return own("binding '" + program.nodes[i].name + "' returned " + num(r));
      break;
    }
  }
  if (poison) {
    fail[i] = poison;
    val[i] = kNaN;
    return;
  }
  const double unrounded = r;
  if (f32) r = round_f32(r);
  if (!std::isfinite(r)) {
    if (std::isfinite(unrounded)) return own("result " + num(unrounded) + " overflows float32");
    return own(std::isnan(r) ? "result is nan" : "result is infinite");
  }
  if (n.checked_domain && hard)
    if (auto bad = program.nodes[i].domain->check(r))
      return own("value " + *bad + " (domain " + program.nodes[i].domain->to_string() + ")");
  fail[i] = 0;
  val[i] = r;
}

}  // namespace tc
