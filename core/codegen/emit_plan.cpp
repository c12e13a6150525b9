#include "codegen/emit_plan.h"

#include "base/bits.h"
#include "ir/math_functions.h"
#include "ir/op_semantics.h"
#include <cfloat>
#include <cmath>
#include <cstring>
#include <unordered_map>

namespace tc::codegen {

namespace {

std::uint32_t bits_of(float f) { return float_bits(f); }

/// Smallest float >= v (v finite double), clamped to the finite float range.
float f32_at_least(double v) {
  if (v <= -static_cast<double>(FLT_MAX)) return -FLT_MAX;
  float f = static_cast<float>(v);
  if (static_cast<double>(f) < v) f = std::nextafter(f, INFINITY);
  return f;
}
/// Largest float <= v (v finite double), clamped to the finite float range.
float f32_at_most(double v) {
  if (v >= static_cast<double>(FLT_MAX)) return FLT_MAX;
  float f = static_cast<float>(v);
  if (static_cast<double>(f) > v) f = std::nextafter(f, -INFINITY);
  return f;
}

}  // namespace

F32Check f32_check(const Domain& d) {
  F32Check c;
  double lo = d.lo(), hi = d.hi();
  c.integral = d.type == DomainType::Int32;
  c.boolean = d.type == DomainType::Boolean;
  if (lo > static_cast<double>(FLT_MAX) || hi < -static_cast<double>(FLT_MAX)) {
    c.empty = true;
    return c;
  }
  c.lo = f32_at_least(lo);
  c.hi = f32_at_most(hi);
  if (c.lo > c.hi) c.empty = true;
  return c;
}

Result<UseGraph> trace_uses(const Program& program, std::string_view target) {
  if (Status s = validate(program); !s.ok()) return s.error();
  const std::string t(target);
  if (program.has_state())
    return make_error("the " + t + " backend runs stateless programs only; this program has state");
  if (program.has_calls()) {
    NodeId c = program.nodes_of(Op::Call).front();
    return make_error("the " + t + " backend cannot run host calls: " + describe_node(program, c) +
                          " calls binding '" + program.nodes[static_cast<std::size_t>(c)].name + "'",
                      program.nodes[static_cast<std::size_t>(c)].location, c);
  }
  if (program.outputs.empty()) return make_error("the program has no outputs");
  if (program.nodes.size() > static_cast<std::size_t>(kMaxEncodableNode))
    return make_error("the " + t + " backend supports at most " + std::to_string(kMaxEncodableNode) + " nodes");

  UseGraph g;
  const std::size_t n = program.nodes.size();
  g.needed.assign(n, 0);
  g.always_live.assign(n, 0);
  g.users.assign(n, {});
  for (const auto& [name, id] : program.outputs) {
    g.output_nodes.push_back(id);
    g.needed[static_cast<std::size_t>(id)] = 1;
    g.always_live[static_cast<std::size_t>(id)] = 1;
  }
  // Users come before their arguments (ids are topological), so one walk
  // from the last node down sees every user of a node before the node.
  for (std::size_t i = n; i-- > 0;) {
    if (!g.needed[i]) continue;
    const Node& node = program.nodes[i];
    const NodeId id = static_cast<NodeId>(i);
    if (program.semantics_of(node) == Semantics::Relaxed && !is_leaf(node.op))
      return make_error("the " + t + " backend runs exact (or hybrid) forward semantics only; " +
                            describe_node(program, id) + " uses relaxed semantics",
                        node.location, id);
    if (const math_fn::MathFunction* f = math_fn::find(node.op); f && !math_fn::spelled_by(*f, t))
      return make_error("the " + t + " backend has no " + std::string(op_name(node.op)) + " in float64 (ONNX Runtime's " +
                            "kernel takes float only): " + describe_node(program, id),
                        node.location, id);
    const bool live = g.always_live[i] != 0;
    auto edge = [&](NodeId arg, UseEdge::Kind kind) {
      const auto a = static_cast<std::size_t>(arg);
      g.needed[a] = 1;
      g.users[a].push_back({id, kind});
      if (live && kind == UseEdge::Always) g.always_live[a] = 1;
    };
    const auto& args = node.args;
    switch (node.op) {
      case Op::Select:
        edge(args[0], UseEdge::Always);
        edge(args[1], UseEdge::SelectYes);
        edge(args[2], UseEdge::SelectNo);
        break;
      default:  // every other op reads all its arguments
        for (NodeId a : args) edge(a, UseEdge::Always);
        break;
    }
  }
  return g;
}

Result<Plan> make_plan(const Program& program, std::string_view target) {
  auto uses = trace_uses(program, target);
  if (!uses) return uses.error();

  Plan plan;
  plan.program = program;
  const std::size_t n = program.nodes.size();
  plan.needed = std::move(uses->needed);
  plan.always_live = std::move(uses->always_live);
  plan.users = std::move(uses->users);
  plan.output_nodes = std::move(uses->output_nodes);
  plan.leaf_value.assign(n, 0.0f);
  plan.leaf_nonfinite.assign(n, 0);
  plan.leaf_error.assign(n, 0);
  plan.check.assign(n, std::nullopt);
  plan.constant_index.assign(n, -1);
  // Every input is a column of the case buffer, needed or not, so the case
  // layout depends only on the program's inputs.
  plan.inputs = program.nodes_of(Op::Input);

  std::unordered_map<std::uint32_t, std::int32_t> by_bits;
  for (std::size_t i = 0; i < n; ++i) {
    const Node& node = program.nodes[i];
    if (node.op == Op::Input) plan.check[i] = f32_check(*node.domain);
    if (!plan.needed[i]) continue;
    ++plan.needed_count;
    if (!plan.always_live[i]) plan.has_control = true;
    if (node.op != Op::Input && node.domain) plan.check[i] = f32_check(*node.domain);
    if (node.op == Op::Constant || node.op == Op::Parameter) {
      const float f = static_cast<float>(node.value);
      if (!std::isfinite(f)) {
        plan.leaf_nonfinite[i] = 1;
        plan.leaf_error[i] = static_cast<std::uint8_t>(ErrorKind::NonFinite);
        continue;
      }
      plan.leaf_value[i] = f;
      // The value is known here, so its domain is checked once, now; the
      // case fails only where the leaf is live, as on the CPU.
      if (node.domain && program.semantics_of(node) != Semantics::Relaxed && node.domain->check(static_cast<double>(f)))
        plan.leaf_error[i] = static_cast<std::uint8_t>(ErrorKind::Domain);
      auto [it, fresh] = by_bits.try_emplace(bits_of(f), static_cast<std::int32_t>(plan.constants.size()));
      if (fresh) plan.constants.push_back(f);
      plan.constant_index[i] = it->second;
    }
  }
  return plan;
}

std::size_t node_cost(const Node& node) {
  switch (op_info(node.op).cost) {
    case OpCost::Free: return 0;
    case OpCost::Unit: return 1;
    case OpCost::PerArg: return 1 + node.args.size();
    case OpCost::LongDivision: return 30;
  }
  return 1;
}

std::size_t plan_cost(const Plan& plan) {
  std::size_t cost = 0;
  for (std::size_t i = 0; i < plan.program.nodes.size(); ++i)
    if (plan.needed[i]) cost += node_cost(plan.program.nodes[i]);
  return cost;
}

Diagnostic error_diagnostic(const Program& program, std::uint32_t code) {
  const NodeId id = error_node(code);
  std::string what;
  switch (error_kind(code)) {
    case ErrorKind::None: what = "no error"; break;
    case ErrorKind::NonFinite: what = "non-finite result"; break;
    case ErrorKind::DivisionByZero: what = "division by zero"; break;
    case ErrorKind::InvalidIndex: what = "index is not an integer in range"; break;
    case ErrorKind::OneHotSelection: what = "selectors are not exactly one 1 among 0s"; break;
    case ErrorKind::QuotientRange:
      what = "the quotient's magnitude is 2^24 or more, beyond what the float32 backends compute exactly";
      break;
    case ErrorKind::Raised:
      what = sem::raised_message(id >= 0 && static_cast<std::size_t>(id) < program.nodes.size()
                                     ? std::string_view(program.nodes[static_cast<std::size_t>(id)].name)
                                     : std::string_view());
      break;
    case ErrorKind::Domain: {
      what = "value outside its domain";
      if (id >= 0 && static_cast<std::size_t>(id) < program.nodes.size()) {
        const auto& d = program.nodes[static_cast<std::size_t>(id)].domain;
        if (d) what.append(" ").append(d->to_string());
      }
      break;
    }
  }
  std::optional<SourceLoc> loc;
  if (id >= 0 && static_cast<std::size_t>(id) < program.nodes.size())
    loc = program.nodes[static_cast<std::size_t>(id)].location;
  return make_error(describe_node(program, id) + ": " + what, loc, id);
}

bool node_can_fail(const Plan& plan, const Program& program, NodeId id) {
  const auto i = static_cast<std::size_t>(id);
  const Op op = program.nodes[i].op;
  if (plan.check[i] && op != Op::Input) return true;
  // Arithmetic and linear results are checked for non-finite values (the
  // only kinds that can overflow: tests/eval/op_columns_test.cpp), and ops
  // marked kCanFail raise their own errors. Host calls never reach an emitter.
  const OpInfo& info = op_info(op);
  if (info.kind == OpKind::Host) return false;
  return info.kind == OpKind::Arith || info.kind == OpKind::Linear || info.has(kCanFail);
}

}  // namespace tc::codegen
