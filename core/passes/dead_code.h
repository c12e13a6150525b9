#pragma once
/// Dead-code elimination.
#include "base/result.h"
#include "ir/program.h"

namespace tc {

/// Removes every computing node and constant that no output or state update
/// needs, renumbering the rest in order. Inputs, parameters and state are
/// always kept, used or not, so the program's signature (what `run` accepts
/// and what `grad` reports) does not change. Such nodes are never evaluated
/// anyway, so results and errors are unchanged. Validates before and after.
Result<Program> eliminate_dead_code(const Program& program);

}  // namespace tc
