#pragma once
/// What the C and ONNX exporters need to know about a program to reproduce
/// the checked CPU evaluator case for case: which nodes are needed, which can
/// fail on their own (and how), and the liveness edges of exact select.
///
/// Unlike the float32 GPU backends (emit_plan.h), these exporters compute in
/// binary64 exactly as core/eval does, rounding every node result to binary32
/// under dtype float32, so values are bit-identical to the evaluator.
///
/// Error rule (the evaluator's, see core/eval/scalar.cpp): every needed node
/// is computed for every case; a node's own check counts only when the node
/// is *visited* by the evaluator's demand-driven walk. Visiting follows the
/// argument edges from the outputs; an exact select visits its condition and,
/// only when the condition did not fail, the chosen branch. The reported node
/// is the visited node with the lowest id whose own check failed. A node
/// "failed" (in the evaluator's sense) when its own check failed or a visited
/// argument failed, so `failed` is computed forward, liveness backward.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "codegen/emit_plan.h"
#include "ir/program.h"

namespace tc::codegen {

struct CheckedPlan {
  Program program;                        ///< as given (parameters applied)
  bool f32 = false;                       ///< dtype float32: round every node result to binary32
  std::vector<NodeId> inputs;             ///< input node ids ascending (argument / column order)
  std::vector<NodeId> params;             ///< parameter node ids ascending
  std::vector<NodeId> output_nodes;       ///< node of each output, Program::outputs order
  std::vector<std::uint8_t> needed;       ///< [node] some output depends on it
  std::vector<std::uint8_t> always_live;  ///< [node] visited in every case that reaches the checks
  std::vector<std::vector<UseEdge>> users;  ///< [node] edges from needed users
  /// [node] the node's own check applies (a domain the op does not imply,
  /// an op that can overflow, divide by zero or index badly). Constants: the
  /// check's outcome is known now, see `leaf_error`.
  std::vector<std::uint8_t> own_check;
  std::vector<std::uint8_t> check_domain;  ///< [node] the evaluator checks its domain (non-leaf or constant)
  /// [node] constant whose value fails its own check (non-finite after
  /// rounding, outside its domain): ErrorKind, 0 when none.
  std::vector<std::uint8_t> leaf_error;
  /// [node] its evaluator "failed" flag can be true in some case (its own
  /// check or an argument's); false means it is statically 0.
  std::vector<std::uint8_t> may_fail;
  std::vector<double> value;              ///< [node] constant/parameter value, rounded under float32
};

/// Checks that the program can be exported (validated, stateless, call-free,
/// exact or hybrid forward semantics on every needed node, valid parameter
/// values, at least one output) and analyses it. `target` names the exporter
/// in error messages ("c", "onnx").
Result<CheckedPlan> make_checked_plan(const Program& program, std::string_view target);

/// Rounds as the float32 dtype does (binary32 and back), or returns `v`.
inline double plan_round(const CheckedPlan& p, double v) { return p.f32 ? round_f32(v) : v; }

}  // namespace tc::codegen
