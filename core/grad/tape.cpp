// The gradient tape: a poison-tracking forward pass over the outputs' cone and
// a reverse pass driven by per-op derivative rules.
//
// Forward evaluates every node of the cone in id order, but a failure does not
// stop it: the node is marked "poisoned" with the id of the node that failed.
// A node's poison is the earliest (smallest id) failure among the arguments it
// actually needs (exact/hybrid select: its condition, then only the chosen
// branch; a failed condition needs neither branch), or its own failure when
// they are all defined. That is exactly the failure the evaluator reports: the
// earliest failing node among those a lazy evaluation of the output visits.
// Meanwhile the unchosen branches keep their values (or their own poison) for
// the hybrid derivative rules, which need them.
#include <cmath>
#include <cstdio>
#include <exception>
#include <limits>
#include <map>

#include "grad/gradients.h"
#include "grad/surrogate.h"
#include "ir/kernels.h"

namespace tc {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string num(double v) {
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e15) return std::to_string(static_cast<long long>(v));
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

/// Compact per-node record: what the two passes read in their inner loops.
struct TNode {
  Op op = Op::Constant;
  Semantics sem = Semantics::Exact;
  bool carries = false;  ///< a derivative can reach here from a reported leaf
  bool checked_domain = false;
  std::int32_t first = 0;  ///< into Impl::args
  std::int32_t count = 0;
  double temperature = 1.0;
  const SurrogatePolicy* policy = nullptr;
};

}  // namespace

struct GradientTape::Impl {
  Program program;
  GradOptions options;
  bool f32 = false;
  std::vector<TNode> nodes;
  std::vector<NodeId> args;
  std::vector<NodeId> order;  ///< the outputs' cone, ascending
  std::vector<std::string> out_names;
  std::vector<NodeId> out_ids;
  std::vector<GradLeaf> leaves;
  std::vector<const Binding*> binding_of;
  std::map<std::string, NodeId, std::less<>> inputs, params, states;

  // Per-run buffers, sized once.
  std::vector<double> val, adj, scratch;
  std::vector<std::int32_t> fail;  ///< 0: defined; else 1 + id of the node that failed
  std::vector<std::uint8_t> reached;
  std::vector<std::string> why;  ///< failure message of a node that failed itself
  bool ready = false;            ///< the buffers hold a successful forward pass

  NodeId arg(const TNode& n, int k) const { return args[static_cast<std::size_t>(n.first + k)]; }
  double v(const TNode& n, int k) const { return val[static_cast<std::size_t>(arg(n, k))]; }
  std::int32_t p(const TNode& n, int k) const { return fail[static_cast<std::size_t>(arg(n, k))]; }

  Diagnostic node_error(NodeId id, const std::string& what) const {
    const Node& n = program.nodes[static_cast<std::size_t>(id)];
    return make_error(describe_node(program, id) + ": " + what, n.location, id);
  }
  Diagnostic poison_error(std::int32_t poison) const { return node_error(poison - 1, why[static_cast<std::size_t>(poison - 1)]); }

  Status load_leaves(const Env& env);
  void forward_pass();
  void compute(NodeId id);
  Status backward_pass(std::span<const double> seeds);
  Status vjp(NodeId id, double g);
  void push(NodeId a, double contribution) {
    const auto i = static_cast<std::size_t>(a);
    if (!nodes[i].carries) return;
    reached[i] = 1;
    adj[i] += contribution;
  }
  Status needs_defined(NodeId decision, NodeId value) const;
  double gather_weights(const TNode& n, double index, double& den);
};

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
  switch (n.op) {
    case Op::Input: case Op::Parameter: case Op::Constant: case Op::State:
      return false;
    case Op::Add: case Op::Sub: case Op::Mul: case Op::Div: case Op::Neg: case Op::Mod:
    case Op::Relu: case Op::Sigmoid: case Op::Affine: case Op::SparseAffine: case Op::Call:
      return true;
    case Op::FloorDiv:  // piecewise constant: zero derivative in every semantics
      return false;
    case Op::Lt: case Op::Le: case Op::Gt: case Op::Ge: case Op::Eq: case Op::Ne:
      return n.sem != Semantics::Exact;
    case Op::Select:
    case Op::Gather:
      return k > 0 || n.sem != Semantics::Exact;
    case Op::GatherOneHot:
      return k >= n.count / 2 || n.sem != Semantics::Exact;
  }
  return false;
}

}  // namespace

Result<GradientTape> GradientTape::create(const Program& program, const std::vector<std::string>& outputs,
                                          const GradOptions& options) {
  if (Status s = validate(program); !s) return s.error();
  if (options.temperature && (!std::isfinite(*options.temperature) || *options.temperature <= 0))
    return make_error("temperature must be finite and greater than 0");
  auto impl = std::make_unique<Impl>();
  Impl& m = *impl;
  m.program = program;
  if (options.semantics) m.program.semantics = *options.semantics;
  if (options.temperature) m.program.temperature = *options.temperature;
  if (options.surrogate) m.program.surrogate = *options.surrogate;
  if (options.dtype) m.program.dtype = *options.dtype;
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
    t.checked_domain = n.domain.has_value() && !is_leaf(n.op);
    widest = std::max(widest, n.args.size());
    m.args.insert(m.args.end(), n.args.begin(), n.args.end());
    if (n.op == Op::Input) m.inputs.emplace(n.name, n.id);
    if (n.op == Op::Parameter) m.params.emplace(n.name, n.id);
    if (n.op == Op::State) m.states.emplace(n.name, n.id);
    // Which leaves are reported and where derivatives can come from.
    if (n.op == Op::Input || n.op == Op::Parameter) {
      bool wanted = n.differentiable && (n.op == Op::Parameter || options.wrt == GradWrt::InputsAndParameters);
      t.carries = wanted;
      if (wanted) m.leaves.push_back({n.name, n.op, n.id});
    } else if (n.op == Op::SparseAffine) {
      for (std::int32_t j : n.indices) t.carries = t.carries || m.nodes[static_cast<std::size_t>(n.args[j])].carries;
    } else {
      for (int k = 0; k < t.count; ++k)
        if (edge_may_carry(t, k) && m.nodes[static_cast<std::size_t>(n.args[k])].carries) t.carries = true;
    }
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

  m.val.assign(count, kNaN);
  m.adj.assign(count, 0.0);
  m.fail.assign(count, 0);
  m.reached.assign(count, 0);
  m.why.resize(count);
  m.scratch.assign(widest, 0.0);
  return GradientTape(std::move(impl));
}

// ---------------------------------------------------------------- forward

// Env checks and messages follow the evaluator's, so `run` and `grad` report
// the same problem the same way.
Status GradientTape::Impl::load_leaves(const Env& env) {
  auto named = [&](NodeId id, const char* what, const std::string& reason) {
    const Node& n = program.nodes[static_cast<std::size_t>(id)];
    return make_error(std::string(what) + " '" + n.name + "': " + reason, n.location, id);
  };
  for (const auto& [name, _] : env.inputs)
    if (!inputs.count(name)) return make_error("unknown input '" + name + "'");
  for (const auto& [name, _] : env.params)
    if (!params.count(name)) return make_error("unknown parameter '" + name + "'");
  for (const auto& [name, _] : env.state)
    if (!states.count(name)) return make_error("unknown state '" + name + "'");
  for (const auto& [name, id] : inputs) {
    auto it = env.inputs.find(name);
    if (it == env.inputs.end()) return make_error("missing input '" + name + "'");
    const double x = it->second;
    const Domain& d = *program.nodes[static_cast<std::size_t>(id)].domain;
    if (!std::isfinite(x)) return named(id, "input", num(x) + " is not a finite number");
    if (options.check_input_domains)
      if (auto bad = d.check(x)) return named(id, "input", *bad);
    // A float32 domain is a binary32 input representation whatever the dtype.
    const double r = f32 || d.type == DomainType::Float32 ? round_f32(x) : x;
    if (!std::isfinite(r)) return named(id, "input", num(x) + " is outside the float32 range");
    val[static_cast<std::size_t>(id)] = r;
  }
  for (const auto& [name, id] : params) {
    auto it = env.params.find(name);
    const double x = it != env.params.end() ? it->second : program.nodes[static_cast<std::size_t>(id)].value;
    if (!std::isfinite(x)) return named(id, "parameter", num(x) + " is not a finite number");
    val[static_cast<std::size_t>(id)] = f32 ? round_f32(x) : x;
  }
  for (const auto& [name, id] : states) {
    const Node& n = program.nodes[static_cast<std::size_t>(id)];
    auto it = env.state.find(name);
    const double x = it != env.state.end() ? it->second : n.value;
    if (!std::isfinite(x)) return named(id, "state", num(x) + " is not a finite number");
    if (auto bad = n.domain->check(x)) return named(id, "state", *bad);
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
      fail[i] = 0;
      r = program.nodes[i].value;
      val[i] = f32 ? round_f32(r) : r;
      return;
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
      const Node& src = program.nodes[i];
      // Stored coefficients are constants: binary32 under float32, like the evaluator.
      auto round = [&](double x) { return f32 ? round_f32(x) : x; };
      for (std::size_t j = 0; j < src.coefficients.size(); ++j) {
        const int k = n.op == Op::Affine ? static_cast<int>(j) : src.indices[j];
        double term = round(round(src.coefficients[j]) * v(n, k));
        r = j == 0 ? term : round(r + term);
      }
      if (src.bias) r = round(r + round(*src.bias));
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

// ---------------------------------------------------------------- backward

Status GradientTape::Impl::needs_defined(NodeId decision, NodeId value) const {
  const std::int32_t poison = fail[static_cast<std::size_t>(value)];
  if (!poison) return ok_status();
  Diagnostic d = poison_error(poison);
  d.message = "the hybrid derivative of " + describe_node(program, decision) +
              " needs the value it did not choose, which is undefined: " + d.message;
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
    case Op::Sigmoid: push(arg(n, 0), g * sigmoid_slope(v(n, 0))); return ok_status();
    case Op::Gather: {
      const int values = n.count - 1;
      const double index = v(n, 0);
      const bool index_carries = nodes[static_cast<std::size_t>(arg(n, 0))].carries;
      if (n.sem != Semantics::Relaxed) push(arg(n, 1 + static_cast<int>(index)), g);
      if (n.sem == Semantics::Exact || (n.sem == Semantics::Hybrid && !index_carries)) return ok_status();
      // d/dindex of sum_k w_k v_k with w_k = bump_k / sum_j bump_j:
      // dw_k = w_k (l_k - sum_j w_j l_j), l_k = d log bump_k / d index.
      double den = 0.0;
      (void)gather_weights(n, index, den);
      double dl_mean = 0.0;
      for (int k = 0; k < values; ++k) {
        scratch[static_cast<std::size_t>(k)] /= den;
        dl_mean += scratch[static_cast<std::size_t>(k)] *
                   n.policy->log_bump_slope((index - static_cast<double>(k)) / n.temperature) / n.temperature;
      }
      double dindex = 0.0;
      for (int k = 0; k < values; ++k) {
        const double w = scratch[static_cast<std::size_t>(k)];
        const double l = n.policy->log_bump_slope((index - static_cast<double>(k)) / n.temperature) / n.temperature;
        dindex += w * (l - dl_mean) * v(n, k + 1);
        if (n.sem == Semantics::Relaxed) push(arg(n, k + 1), g * w);
      }
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
      const Node& src = program.nodes[static_cast<std::size_t>(id)];
      for (std::size_t j = 0; j < src.coefficients.size(); ++j) {
        const int k = n.op == Op::Affine ? static_cast<int>(j) : src.indices[j];
        push(arg(n, k), g * src.coefficients[j]);
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

// ---------------------------------------------------------------- public runs

Status GradientTape::forward(const Env& env, std::span<double> outputs) {
  Impl& m = *impl_;
  TC_ASSERT(outputs.size() == m.out_ids.size());
  m.ready = false;
  if (Status s = m.load_leaves(env); !s) return s;
  m.forward_pass();
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
  if (Status s = m.backward_pass(seeds); !s) return s;
  for (std::size_t k = 0; k < m.leaves.size(); ++k) {
    const auto l = static_cast<std::size_t>(m.leaves[k].node);
    // A leaf outside the cone has a stale adjoint: its derivative is 0.
    gradients[k] = m.reached[l] ? m.adj[l] : 0.0;
    if (!std::isfinite(gradients[k])) {
      const GradLeaf& leaf = m.leaves[k];
      return make_error("the gradient with respect to " + std::string(leaf.op == Op::Input ? "input" : "parameter") +
                            " '" + leaf.name + "' is " + (std::isnan(gradients[k]) ? "nan" : "infinite"),
                        m.program.nodes[l].location, leaf.node);
    }
  }
  return ok_status();
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
