#pragma once
/// The ONNX exporter: a model (IR version 8, default opset 17) that runs a
/// stateless, call-free program over a batch of N cases with the checked
/// CPU evaluator's semantics (see checked_plan.h).
///
/// Graph interface:
///   inputs       one [N] tensor per program input, by name, in the program's
///                dtype (tensor(double), or tensor(float) under float32)
///   initializers one scalar per parameter, by name, in the program's dtype
///   outputs      one [N] tensor per program output, by name and in artifact
///                order, in the program's dtype; then `failed` [N] bool and
///                `error_node` [N] int64 (-1 where the case succeeded)
/// Every node is an elementwise operator over binary64 values (float32
/// programs round each result through a Cast pair); checks are computed in
/// the graph; nothing relies on MatMul or any reassociating operator.
#include <cstdint>
#include <vector>

#include "base/result.h"
#include "codegen/checked_plan.h"
#include "ir/program.h"

namespace tc::emit {

inline constexpr std::int64_t kOnnxIrVersion = 8;
inline constexpr std::int64_t kOnnxOpset = 17;

Result<std::vector<std::uint8_t>> emit_onnx(const Program& program);
Result<std::vector<std::uint8_t>> emit_onnx(const codegen::CheckedPlan& plan);

}  // namespace tc::emit
