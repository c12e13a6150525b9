// The compiled plan's C source (compiled_plan.h): the program as the
// evaluator prepared it (its dtype and per-node semantics), handed to the C
// exporter's kernel writer, so an op's meaning is spelled once, in
// core/codegen/c_emitter.cpp, for the exporter and for this plan alike.
#include "codegen/c_emitter.h"
#include "codegen/checked_plan.h"
#include "eval/compiled_plan.h"
#include "eval/plan_target.h"
#include "eval/prepared.h"

#include <cstdlib>

namespace tc::eval_detail {

namespace {

/// The target the plan's code is written and compiled for: its registers
/// decide the block's shape. Each vector is one register; 4 per node in
/// flight on the 16-register ISAs (long_loop's chain of sums keeps the
/// sum, the input and a product live: 3 x 4 registers, where 8 copies
/// spilled every value to the stack on AVX2), 8 on AVX-512's 32 registers
/// (enough independent additions for two FP ports of latency 4). The flags
/// name the matching x86-64 level, so the code runs on every processor of
/// that level, and go into the cache key with the compiler's.
struct Isa {
  const char* name;
  std::size_t vector_bytes, copies;
  std::vector<std::string> flags;
};

/// Nodes per function of the block function (see CKernelOptions): gcc -O1
/// compiled long_loop's 3,002 nodes in 0.56 s cut at 300 (one function:
/// 0.94 s), and ran it no slower (docs/evaluator.md).
constexpr std::size_t kSegmentNodes = 256;

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
const Isa kTargets[] = {
    {"avx512", 64, 8, {"-march=x86-64-v4", "-mprefer-vector-width=512"}},
    {"avx2", 32, 4, {"-march=x86-64-v3"}},
    {"sse2", 16, 4, {"-march=x86-64-v2"}},
};
#define TC_PLAN_X86 1
#endif

}  // namespace

std::vector<std::string> plan_isas() {
#ifdef TC_PLAN_X86
  return {"avx512", "avx2", "sse2"};
#else
  return {};
#endif
}

bool host_runs_isa(std::string_view isa) {
#ifdef TC_PLAN_X86
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
  if (isa == "avx512") return __builtin_cpu_supports("x86-64-v4");
  if (isa == "avx2") return __builtin_cpu_supports("x86-64-v3");
  if (isa == "sse2") return __builtin_cpu_supports("x86-64-v2");
#else
  if (isa == "avx512")
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
  if (isa == "avx2")
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("bmi2");
  if (isa == "sse2") return __builtin_cpu_supports("sse4.2") && __builtin_cpu_supports("popcnt");
#endif
#endif
  (void)isa;
  return false;
}

Result<PlanTarget> plan_target(std::string_view want) {
#ifdef TC_PLAN_X86
  for (const Isa& t : kTargets) {
    if (want.empty() ? !host_runs_isa(t.name) : want != t.name) continue;
    if (!host_runs_isa(t.name))
      return make_error("TC_PLAN_ISA=" + std::string(want) + ": this processor cannot run " + t.flags[0].substr(7) +
                        " code, so the plan is not compiled for it");
    return PlanTarget{t.name, t.vector_bytes, t.copies, t.flags};
  }
  if (want.empty()) return make_error("this processor lacks SSE4.2 (x86-64-v2), the oldest target of the compiled plan");
  return make_error("TC_PLAN_ISA='" + std::string(want) + "' is not one of sse2, avx2, avx512");
#else
  // Elsewhere (AArch64 NEON, ...): 16-byte vectors and the compiler's own
  // choice for this machine.
  if (!want.empty()) return make_error("TC_PLAN_ISA=" + std::string(want) + ": only x86-64 targets can be chosen");
  return PlanTarget{"native", 16, 4, {"-march=native"}};
#endif
}

Result<PlanTarget> plan_target_from_env() {
  const char* env = std::getenv("TC_PLAN_ISA");
  return plan_target(env ? std::string_view(env) : std::string_view());
}

Result<PlanSource> compiled_source(const Prepared& p) {
  // The exporter reads dtype and semantics from the program: the
  // evaluator's is already under the caller's policy (ir/policy.h). State
  // becomes a parameter of the kernel (one value per run, checked by
  // resolve_fixed) and each update's next value an extra output.
  Program prog = p.program;
  for (Node& n : prog.nodes) {
    if (n.op == Op::State) {
      n.op = Op::Parameter;
      n.name = "state:" + n.name;
    }
  }
  for (std::size_t u = 0; u < prog.updates.size(); ++u)
    prog.outputs.emplace_back("update:" + std::to_string(u), prog.updates[u].second);
  prog.updates.clear();
  auto plan = codegen::make_checked_plan(prog, "compiled plan");
  if (!plan) return plan.error();
  auto target = plan_target_from_env();
  if (!target) return target.error();

  PlanSource src;
  for (NodeId id : plan->params) {
    const Instr& in = p.instrs[static_cast<std::size_t>(id)];
    src.prm.emplace_back(p.program.nodes[static_cast<std::size_t>(id)].op == Op::State, static_cast<std::size_t>(in.slot));
  }
  src.outputs = plan->output_nodes.size();
  codegen::CKernelOptions ko;
  ko.name = "tc_plan";
  // The batch plan's laundering rule (batch.cpp): a non-finite value is
  // tested only where it could turn finite again, and at the targets.
  ko.finite_check = p.plan.check;
  ko.native_f32 = p.plan.native;
  ko.vector_bytes = target->vector_bytes;
  ko.copies = target->copies;
  ko.segment_nodes = kSegmentNodes;
  ko.isa = target->isa;
  src.text = codegen::emit_c_kernel(*plan, ko);
  src.isa = target->isa;
  src.flags = std::move(target->flags);
  return src;
}

}  // namespace tc::eval_detail
