#pragma once
/// Lowering of one parsed function to the circuit (see docs/frontend.md).
#include "base/result.h"
#include "frontend/ast.h"
#include "frontend/compile.h"

namespace tc::py {

/// Checks that `fn` uses only the accepted subset (source order: the first
/// offending construct is reported), then lowers it through tc::Builder.
Result<CompileOutput> lower_function(const Module& module, const FunctionDef& fn, const CompileOptions& options);

}  // namespace tc::py
