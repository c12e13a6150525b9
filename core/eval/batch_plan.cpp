// The batch plan (see BatchPlan in prepared.h): which nodes run as steps,
// which column slot holds each value (reused after the value's last reader),
// which uniform values need a broadcast column, and which values must be
// tested for inf/NaN where they are produced (the "laundering" rule
// explained at the top of batch.cpp).
#include <algorithm>
#include <limits>

#include "eval/prepared.h"

namespace tc::eval_detail {

namespace {

/// Ops whose batch kernels read uniform (scalar) operands directly (the
/// table's kTakesUniform).
bool takes_uniform(Op op) { return op_info(op).has(kTakesUniform); }

/// Whether argument `k` of `op` (in `mode`) can turn a non-finite value into a
/// finite one, so the value must be tested where it is produced: every op
/// the table does not mark kKeepsNonFinite, except that a lazy exact select
/// passes its chosen branch through (only its condition launders).
bool launders(Op op, Mode mode, std::uint32_t k) {
  if (op == Op::Select) return mode == Mode::Relaxed || k == 0;
  return !op_info(op).has(kKeepsNonFinite);
}

}  // namespace

void build_plan(Prepared& p) {
  BatchPlan& plan = p.plan;
  const std::size_t n = p.instrs.size();
  plan.slot_of.assign(n, -1);
  plan.uniform.assign(n, 0);
  plan.input_rounds.assign(p.inputs.size(), 0);
  std::vector<std::uint8_t> wants_column(n, 0);
  for (NodeId t : p.targets) wants_column[static_cast<std::size_t>(t)] = 1;
  plan.check.assign(n, 0);
  for (NodeId t : p.targets) plan.check[static_cast<std::size_t>(t)] = 1;
  plan.native.assign(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const Instr& in = p.instrs[i];
    const OpInfo& info = op_info(in.op);
    const bool relaxed_form = in.mode == Mode::Relaxed && (info.kind == OpKind::Compare || info.kind == OpKind::Control);
    plan.native[i] = info.binary32 == OpBinary32::Native && !relaxed_form;
  }
  for (std::size_t i = 0; i < n; ++i) {
    const Instr& in = p.instrs[i];
    if (in.op == Op::Constant || in.op == Op::Parameter || in.op == Op::State) plan.uniform[i] = 1;
    if (!p.needed[i] || is_leaf(in.op)) continue;
    plan.steps.push_back(static_cast<NodeId>(i));
    plan.max_args = std::max(plan.max_args, in.nargs);
    for (std::uint32_t k = 0; k < in.nargs; ++k) {
      const auto arg = static_cast<std::size_t>(p.args[in.arg_begin + k]);
      if (!takes_uniform(in.op)) wants_column[arg] = 1;
      bool drops = launders(in.op, in.mode, k);
      if (in.op == Op::SparseAffine) {
        // An argument no index refers to is evaluated but its value dropped.
        const std::int32_t* pos = p.positions.data() + in.coef_begin;
        drops = std::find(pos, pos + in.ncoef, static_cast<std::int32_t>(k)) == pos + in.ncoef;
      }
      if (drops) plan.check[arg] = 1;
    }
  }
  // Superinstructions: a mul whose only reader is the add or sub step right
  // after it is computed inside that step's loop (the product is rounded
  // as its own node would be, so values stay bit-identical) and never
  // written to a column. The pair must be adjacent so the mul's operands are
  // still live; the mul must need no value test and no domain check.
  plan.fused_mul.assign(n, -1);
  {
    std::vector<std::uint32_t> readers(n, 0);
    for (NodeId id : plan.steps) {
      const Instr& in = p.instrs[static_cast<std::size_t>(id)];
      for (std::uint32_t k = 0; k < in.nargs; ++k) ++readers[static_cast<std::size_t>(p.args[in.arg_begin + k])];
    }
    std::vector<NodeId> kept;
    kept.reserve(plan.steps.size());
    for (std::size_t s = 0; s < plan.steps.size(); ++s) {
      const NodeId m = plan.steps[s];
      const auto mi = static_cast<std::size_t>(m);
      if (s + 1 < plan.steps.size() && p.instrs[mi].op == Op::Mul && !p.instrs[mi].check_domain && !plan.check[mi] &&
          readers[mi] == 1 && !wants_column[mi]) {
        const NodeId a = plan.steps[s + 1];
        const Instr& ain = p.instrs[static_cast<std::size_t>(a)];
        if ((ain.op == Op::Add || ain.op == Op::Sub) &&
            (p.args[ain.arg_begin] == m || p.args[ain.arg_begin + 1] == m)) {
          plan.fused_mul[static_cast<std::size_t>(a)] = m;
          continue;  // no step of its own
        }
      }
      kept.push_back(m);
    }
    plan.steps = std::move(kept);
  }
  // The arguments a step really reads: a fused mul's operands instead of the mul.
  auto for_each_read = [&](NodeId id, auto&& f) {
    const Instr& in = p.instrs[static_cast<std::size_t>(id)];
    const NodeId fm = plan.fused_mul[static_cast<std::size_t>(id)];
    for (std::uint32_t k = 0; k < in.nargs; ++k) {
      const NodeId arg = p.args[in.arg_begin + k];
      if (arg != fm) {
        f(arg);
        continue;
      }
      const Instr& min = p.instrs[static_cast<std::size_t>(fm)];
      for (std::uint32_t j = 0; j < min.nargs; ++j) f(p.args[min.arg_begin + j]);
    }
  };
  // Last reader of every value (targets live to the end of the block).
  constexpr std::size_t kForever = std::numeric_limits<std::size_t>::max();
  std::vector<std::size_t> last(n, 0);
  for (NodeId t : p.targets) last[static_cast<std::size_t>(t)] = kForever;
  for (std::size_t s = 0; s < plan.steps.size(); ++s)
    for_each_read(plan.steps[s], [&](NodeId arg) {
      std::size_t& l = last[static_cast<std::size_t>(arg)];
      if (l != kForever) l = std::max(l, s + 1);  // step index + 1, so 0 means "never read"
    });
  std::vector<std::int32_t> free_slots;
  auto take = [&]() {
    if (!free_slots.empty()) {
      std::int32_t s = free_slots.back();
      free_slots.pop_back();
      return s;
    }
    return plan.nslots++;
  };
  for (std::size_t i = 0; i < n; ++i)
    if (plan.uniform[i] && p.needed[i] && wants_column[i]) {
      plan.broadcast.push_back(static_cast<NodeId>(i));
      plan.slot_of[i] = take();
    }
  for (std::size_t k = 0; k < p.inputs.size(); ++k) {
    const NodeId id = p.inputs[k];
    const bool rounds = p.f32 || p.program.nodes[static_cast<std::size_t>(id)].domain->type == DomainType::Float32;
    if (rounds && p.needed[static_cast<std::size_t>(id)]) {
      plan.input_rounds[k] = 1;
      plan.slot_of[static_cast<std::size_t>(id)] = take();
    }
  }
  std::vector<std::uint8_t> released(n, 0);
  for (std::size_t s = 0; s < plan.steps.size(); ++s) {
    const NodeId id = plan.steps[s];
    plan.slot_of[static_cast<std::size_t>(id)] = take();
    for_each_read(id, [&](NodeId a) {
      const auto arg = static_cast<std::size_t>(a);
      if (last[arg] == s + 1 && !released[arg] && plan.slot_of[arg] >= 0 && !plan.uniform[arg]) {
        released[arg] = 1;
        free_slots.push_back(plan.slot_of[arg]);
      }
    });
  }
}

}  // namespace tc::eval_detail
