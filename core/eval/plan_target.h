#pragma once
/// Private to core/eval: the target the compiled plan's C is written and
/// compiled for (docs/evaluator.md, "The compiled plan"). Each x86-64 level
/// the plan knows has its vector width and vectors per node (one register
/// each, as many per node as keep a block's live values in the register
/// file) and the -march flag its code is compiled with.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace tc::eval_detail {

struct PlanTarget {
  std::string isa;                 ///< "sse2", "avx2", "avx512"; "native" off x86-64
  std::size_t vector_bytes = 16;   ///< one register
  std::size_t copies = 4;          ///< vectors per node in flight
  std::vector<std::string> flags;  ///< the compiler's -march=... (part of the cache key)
};

/// The x86-64 targets the plan knows, best first.
std::vector<std::string> plan_isas();

/// Whether this processor runs code of `isa` (one of plan_isas()).
bool host_runs_isa(std::string_view isa);

/// The target named by `want` (one of plan_isas()), refused with the reason
/// where this processor cannot run it; empty: the best one it runs.
Result<PlanTarget> plan_target(std::string_view want);

/// plan_target($TC_PLAN_ISA): what every new compiled plan is written for.
Result<PlanTarget> plan_target_from_env();

}  // namespace tc::eval_detail
