#pragma once
/// What every backend emitter (WGSL, WebAssembly) needs to know about a
/// program before writing code: which nodes are needed, their float32
/// constants, the liveness edges that give exact select/gather semantics, and
/// the per-case error codes the generated code reports.
///
/// Backends run stateless, call-free programs in float32 with the exact (or
/// hybrid, whose forward pass is exact) semantics. Every needed node is
/// computed for every case, because GPU and WASM arithmetic never traps; a
/// node's failure only counts when the node is *live* for that case, that is
/// when the checked CPU evaluator would have evaluated it. Liveness follows
/// the argument edges backwards from the outputs; the edge into a select
/// branch holds only when that branch is chosen (like the CPU evaluator,
/// gather and gather_one_hot need all of their arguments). The reported error is the live failing node with the
/// lowest id.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "ir/program.h"

namespace tc::codegen {

/// Why a case failed; stored in the low 3 bits of an error code.
enum class ErrorKind : std::uint32_t {
  None = 0,
  NonFinite = 1,        ///< NaN or infinity (includes float32 overflow)
  DivisionByZero = 2,   ///< div, floordiv or mod by zero
  InvalidIndex = 3,     ///< gather index not an integer in [0, n)
  OneHotSelection = 4,  ///< gather_one_hot selectors not 0/1 with exactly one 1
  Domain = 5,           ///< value outside the node's (or input's) domain
  QuotientRange = 6,    ///< floordiv/mod with |a/b| >= 2^24: beyond the exact float32 algorithm
  Raised = 7,           ///< a raise node was reached (its name is the exception)
};

/// Per-case error code: 0 = the case succeeded, else (node << 3) | kind.
constexpr std::uint32_t encode_error(NodeId node, ErrorKind kind) {
  return (static_cast<std::uint32_t>(node) << 3) | static_cast<std::uint32_t>(kind);
}
constexpr NodeId error_node(std::uint32_t code) { return static_cast<NodeId>(code >> 3); }
constexpr ErrorKind error_kind(std::uint32_t code) { return static_cast<ErrorKind>(code & 7u); }
/// Largest node id an error code can carry.
inline constexpr NodeId kMaxEncodableNode = (1 << 28) - 1;

/// A user -> argument edge, for liveness.
struct UseEdge {
  enum Kind : std::uint8_t {
    Always,       ///< the argument is needed whenever the user is live
    SelectYes,    ///< needed when the select's condition (arg 0) is non-zero
    SelectNo,     ///< needed when the select's condition is zero
  };
  NodeId user = 0;
  Kind kind = Always;
};

/// Float32 bounds of a domain check: v passes when lo <= v <= hi (and v is
/// an integer / 0 or 1 when `integral` / `boolean`). The bounds are the
/// binary32 values closest inside the double bounds, so the float32 test
/// gives the same answer as the double test for every float32 v.
struct F32Check {
  float lo = 0;
  float hi = 0;
  bool empty = false;  ///< no float32 value passes
  bool integral = false;
  bool boolean = false;
};

struct Plan {
  Program program;                     ///< as given (parameters already applied)
  std::vector<NodeId> inputs;          ///< input node ids ascending: column order
  std::vector<NodeId> output_nodes;    ///< node of each output, Program::outputs order
  std::vector<std::uint8_t> needed;    ///< [node] 1 when some output depends on it
  std::vector<std::uint8_t> always_live;  ///< [node] live in every case (no conditional edge on any path)
  std::vector<std::vector<UseEdge>> users;  ///< [node] edges from needed users
  std::vector<float> leaf_value;       ///< [node] float32 value of constants/parameters
  std::vector<std::uint8_t> leaf_nonfinite;  ///< [node] constant/parameter rounds to inf in float32
  /// [node] the ErrorKind a live constant/parameter raises (its float32 value
  /// is not finite, or lies outside its domain), 0 when none.
  std::vector<std::uint8_t> leaf_error;
  std::vector<std::optional<F32Check>> check;  ///< [node] domain check to apply in code
  std::vector<float> constants;        ///< distinct float32 constant values (by bit pattern), first-use order
  std::vector<std::int32_t> constant_index;  ///< [node] index into `constants`, -1 if not a constant leaf
  bool has_control = false;            ///< some needed node has a conditional edge
  std::size_t needed_count = 0;
};

/// What every plan starts from: which nodes some output needs, which are
/// live in every case (reached from an output without passing a select's
/// branch), and each needed node's users.
struct UseGraph {
  std::vector<std::uint8_t> needed;
  std::vector<std::uint8_t> always_live;
  std::vector<std::vector<UseEdge>> users;
  std::vector<NodeId> output_nodes;  ///< in the program's output order
};

/// The refusals every code generator shares (a program that does not
/// validate, has state, calls the host, has no outputs, has more nodes than
/// an error code can name, or computes a needed node in relaxed semantics),
/// then the use graph. `target` names the backend in error messages.
Result<UseGraph> trace_uses(const Program& program, std::string_view target);

/// Checks that `program` can run on a backend (validated, no state, no calls,
/// no relaxed semantics on a needed node, at most kMaxEncodableNode nodes)
/// and analyses it. `target` names the backend in error messages ("wgsl").
Result<Plan> make_plan(const Program& program, std::string_view target);

/// Rough size of the code a node becomes (1 for a plain operation; floordiv
/// and mod expand to a 24-step long division), for splitting large circuits.
std::size_t node_cost(const Node& node);
/// Sum of node_cost over the needed computing nodes.
std::size_t plan_cost(const Plan& plan);

/// Whether the forward code of node `id` can set an error kind (a checked
/// domain, or an op that can overflow, divide by zero or index badly). Both
/// emitters give exactly these nodes an error-kind value.
bool node_can_fail(const Plan& plan, const Program& program, NodeId id);

/// The message the CPU evaluator would give for an error code, naming the node.
Diagnostic error_diagnostic(const Program& program, std::uint32_t code);

/// Float32 domain-check bounds for `d` (see F32Check).
F32Check f32_check(const Domain& d);

}  // namespace tc::codegen
