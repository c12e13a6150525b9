#include "codegen/checked_plan.h"

#include <cmath>

#include "base/number_text.h"

namespace tc::codegen {

namespace {

/// The evaluator skips a domain check that the op's own result range
/// guarantees (a comparison always yields 0 or 1): so do the exporters.
bool domain_implied(Op op, const Domain& d) { return is_comparison(op) && d.lo() <= 0.0 && d.hi() >= 1.0; }


}  // namespace

Result<CheckedPlan> make_checked_plan(const Program& program, std::string_view target) {
  auto uses = trace_uses(program, target);
  if (!uses) return uses.error();

  CheckedPlan plan;
  plan.program = program;
  plan.f32 = program.dtype == Dtype::Float32;
  const std::size_t n = program.nodes.size();
  plan.needed = std::move(uses->needed);
  plan.always_live = std::move(uses->always_live);
  plan.users = std::move(uses->users);
  plan.output_nodes = std::move(uses->output_nodes);
  plan.own_check.assign(n, 0);
  plan.check_domain.assign(n, 0);
  plan.leaf_error.assign(n, 0);
  plan.may_fail.assign(n, 0);
  plan.value.assign(n, 0.0);
  plan.inputs = program.nodes_of(Op::Input);
  plan.params = program.nodes_of(Op::Parameter);

  // Parameters are checked once per run by the evaluator (a bad value fails
  // every case), so an export with a bad value is refused, with its words.
  for (NodeId id : plan.params) {
    const Node& pn = program.nodes[static_cast<std::size_t>(id)];
    if (!std::isfinite(pn.value))
      return make_error("parameter '" + pn.name + "': " + shortest_number(pn.value) + " is not a finite number", pn.location, id);
    if (pn.domain && program.semantics_of(pn) != Semantics::Relaxed)
      if (auto why = pn.domain->check(pn.value)) return make_error("parameter '" + pn.name + "': " + *why, pn.location, id);
    plan.value[static_cast<std::size_t>(id)] = plan_round(plan, pn.value);
  }

  for (std::size_t i = 0; i < n; ++i) {
    if (!plan.needed[i]) continue;
    const Node& node = program.nodes[i];
    const bool exact = program.semantics_of(node) != Semantics::Relaxed;
    if (node.domain && exact && (!is_leaf(node.op) || node.op == Op::Constant) && !domain_implied(node.op, *node.domain))
      plan.check_domain[i] = 1;
    if (node.op == Op::Constant) {
      const double v = plan_round(plan, node.value);
      plan.value[i] = v;
      if (!std::isfinite(v)) plan.leaf_error[i] = static_cast<std::uint8_t>(ErrorKind::NonFinite);
      else if (plan.check_domain[i] && node.domain->check(v)) plan.leaf_error[i] = static_cast<std::uint8_t>(ErrorKind::Domain);
      plan.may_fail[i] = plan.leaf_error[i] != 0;
      continue;
    }
    if (is_leaf(node.op)) continue;  // inputs are checked before any node; parameters above
    const OpInfo& info = op_info(node.op);
    // Arithmetic and linear results can overflow; div, floordiv, mod,
    // gather and gather_one_hot raise their own errors. Comparisons, relu,
    // sigmoid and select of finite arguments are finite.
    plan.own_check[i] = plan.check_domain[i] || info.kind == OpKind::Arith || info.kind == OpKind::Linear ||
                        info.has(kCanFail);
    bool f = plan.own_check[i] != 0;
    for (NodeId a : node.args) f = f || plan.may_fail[static_cast<std::size_t>(a)];
    plan.may_fail[i] = f;
  }
  return plan;
}

}  // namespace tc::codegen
