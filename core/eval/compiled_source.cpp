// The compiled plan's C source (compiled_plan.h): the program as the
// evaluator prepared it (its dtype and per-node semantics), handed to the C
// exporter's kernel writer, so an op's meaning is spelled once, in
// core/codegen/c_emitter.cpp, for the exporter and for this plan alike.
#include "codegen/c_emitter.h"
#include "codegen/checked_plan.h"
#include "eval/compiled_plan.h"
#include "eval/prepared.h"

namespace tc::eval_detail {

namespace {

/// Vectors per node in the kernel's block: 8 keep two FP ports busy through
/// a chain of dependent additions of latency 4 (long_loop, AVX-512: 4 copies
/// are latency-bound; see docs/evaluator.md).
constexpr std::size_t kCopies = 8;

}  // namespace

Result<PlanSource> compiled_source(const Prepared& p) {
  // The exporter reads dtype and semantics from the program: give it the
  // evaluator's (EvalOptions may have replaced both). State becomes a
  // parameter of the kernel (one value per run, checked by resolve_fixed)
  // and each update's next value an extra output.
  Program prog = p.program;
  prog.dtype = p.f32 ? Dtype::Float32 : Dtype::Float64;
  for (std::size_t i = 0; i < prog.nodes.size(); ++i) {
    Node& n = prog.nodes[i];
    n.semantics = p.instrs[i].mode == Mode::Relaxed ? Semantics::Relaxed : Semantics::Exact;
    if (n.op == Op::State) {
      n.op = Op::Parameter;
      n.name = "state:" + n.name;
    }
  }
  for (std::size_t u = 0; u < prog.updates.size(); ++u)
    prog.outputs.emplace_back("update:" + std::to_string(u), prog.updates[u].second);
  prog.updates.clear();
  auto plan = emit::make_checked_plan(prog, "compiled plan");
  if (!plan) return plan.error();

  PlanSource src;
  for (NodeId id : plan->params) {
    const Instr& in = p.instrs[static_cast<std::size_t>(id)];
    src.prm.emplace_back(p.program.nodes[static_cast<std::size_t>(id)].op == Op::State, static_cast<std::size_t>(in.slot));
  }
  src.outputs = plan->output_nodes.size();
  emit::CKernelOptions ko;
  ko.name = "tc_plan";
  // The batch plan's laundering rule (batch.cpp): a non-finite value is
  // tested only where it could turn finite again, and at the targets.
  ko.finite_check = p.plan.check;
  ko.native_f32 = p.plan.native;
  ko.copies = kCopies;
  src.text = emit::emit_c_kernel(*plan, ko);
  return src;
}

}  // namespace tc::eval_detail
