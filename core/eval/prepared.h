#pragma once
/// Private to core/eval: the flat form of a program that both the scalar
/// checked evaluator and the batched fast path read. Built once in
/// Evaluator::create so that running a case touches no Program structures,
/// no strings and no maps.
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "eval/evaluator.h"
#include "ir/program.h"

namespace tc::eval_detail {

/// Exact and hybrid forward share the checked exact semantics; relaxed is the
/// continuous form of contract section 4.
enum class Mode : std::uint8_t { Exact, Relaxed };

/// One node, flattened. Arguments, coefficients and sparse positions live in
/// the Prepared arrays so that an Instr is small and trivially copyable.
struct Instr {
  Op op = Op::Constant;
  Mode mode = Mode::Exact;
  bool check_domain = false;   ///< exact node whose domain is not implied by its op
  bool has_bias = false;
  std::uint32_t arg_begin = 0;  ///< into Prepared::args
  std::uint32_t nargs = 0;
  std::uint32_t coef_begin = 0;  ///< into Prepared::coefs and (sparse_affine) Prepared::positions
  std::uint32_t ncoef = 0;
  std::int32_t domain = -1;     ///< into Prepared::domains, or -1
  std::int32_t slot = -1;       ///< input/parameter/state index, or binding index for call
  double value = 0.0;           ///< constant (as stored), default parameter/state value
  double bias = 0.0;
  double temperature = 1.0;
};

/// The batched fast path's schedule, built once at create(): which nodes run
/// as steps and which column slot holds each value. Slots are reused once a
/// value's last reader has run, so a block of a long chain stays in cache.
struct BatchPlan {
  std::size_t block = 256;             ///< cases per block of a float64 program (4x as many for float32: see batch.cpp)
  std::vector<NodeId> steps;           ///< needed computing nodes, ascending
  std::vector<std::int32_t> slot_of;   ///< per node: column slot, or -1 (uniform scalar / caller's input column)
  std::vector<std::uint8_t> uniform;   ///< per node: constant, parameter or state (one value for the whole batch)
  std::vector<std::uint8_t> check;     ///< per node: test its values for inf/NaN where produced (see batch.cpp)
  std::vector<NodeId> broadcast;       ///< uniform nodes that also need a filled column (permanent slots)
  std::vector<std::uint8_t> input_rounds;  ///< per input: copied into its slot as binary32
  /// Per node: for an add/sub step, the mul argument computed inside its loop
  /// (that mul has no step and no column of its own), else -1.
  std::vector<NodeId> fused_mul;
  /// Per node: a float32 batch computes it in binary32 (the op's b32 column
  /// is Native, and the node's form is the exact one: relaxed decisions
  /// are computed in binary64 and rounded).
  std::vector<std::uint8_t> native;
  std::int32_t nslots = 0;
  std::uint32_t max_args = 0;
};

/// One step of Prepared::lazy. Eval computes a node unless it was visited;
/// an exact select is SelectBegin (skip to `jump` if already visited),
/// its condition's steps, SelectBranch (condition failed: the select fails,
/// go to `jump2`; false: go to `jump`), the `yes` steps, Jump, the `no`
/// steps, SelectFinish.
struct LazyStep {
  enum Kind : std::uint8_t { Eval, SelectBegin, SelectBranch, Jump, SelectFinish };
  Kind kind = Eval;
  NodeId id = 0;
  std::uint32_t jump = 0;
  std::uint32_t jump2 = 0;
};

struct Prepared {
  Program program;
  bool f32 = false;
  std::vector<Instr> instrs;          ///< one per node, by id
  std::vector<NodeId> args;           ///< flattened argument lists
  std::vector<double> coefs;          ///< affine coefficients (rounded for float32)
  std::vector<std::int32_t> positions;  ///< sparse_affine indices
  std::vector<Domain> domains;
  std::vector<const Binding*> bindings;
  std::vector<NodeId> inputs, params, states;  ///< ids ascending
  std::map<std::string, int, std::less<>> input_index, param_index, state_index;
  std::vector<NodeId> targets;        ///< output nodes, then update next-value nodes
  std::vector<std::uint8_t> needed;   ///< reachable from a target through any argument
  std::vector<NodeId> order;          ///< needed node ids, ascending
  bool straight = false;              ///< no needed exact select: evaluate `order` without a stack
  /// With an exact select: the same lazy evaluation as the stack walk,
  /// flattened into steps with jumps (see scalar.cpp); empty when the plan
  /// would be too long, and then the walk runs.
  std::vector<LazyStep> lazy;
  BatchPlan plan;

  [[nodiscard]] const NodeId* args_of(const Instr& in) const { return args.data() + in.arg_begin; }
  [[nodiscard]] double round(double v) const { return f32 ? round_f32(v) : v; }
};

/// Node status in Workspace::status.
enum : std::uint8_t { kUnvisited = 0, kInProgress = 1, kDone = 2, kFailed = 3 };

/// Per-call scratch of the scalar evaluator, reusable across cases.
struct Workspace {
  std::vector<double> values;
  std::vector<std::uint8_t> status;  ///< kUnvisited, kInProgress, kDone or kFailed
  std::vector<std::int8_t> branch;
  std::vector<std::pair<NodeId, std::uint8_t>> stack;
  std::vector<double> call_args;
  void reset(std::size_t n);
};

/// Values that are the same for every case of a run: parameters and state.
struct Fixed {
  std::vector<double> params;  ///< Prepared::params order, rounded
  std::vector<double> states;  ///< Prepared::states order, rounded and checked
};

/// Resolves and checks parameter and state values from `env` (defaults from
/// the program). Unknown names and invalid values are errors.
Result<Fixed> resolve_fixed(const Prepared& p, const Env& env);

/// Checks one input value against its domain and applies the float32 input
/// rounding. `k` is the input's index in Prepared::inputs.
std::optional<Diagnostic> check_input(const Prepared& p, int k, double raw, double& out);

/// Evaluates every target of one case lazily (exact select takes one branch),
/// with all checks. `inputs` are already checked and rounded. On success the
/// target values are in ws.values; on failure `err` holds the first error.
bool eval_case(const Prepared& p, const double* inputs, const Fixed& fixed, Workspace& ws, Diagnostic& err);

/// "node 7 (div) at line 3, column 12: REASON" as a Diagnostic for node `id`.
Diagnostic node_error(const Prepared& p, NodeId id, const std::string& reason);

/// Shortest text that reads back as `v` (for messages).
std::string format_number(double v);

/// The reference form of eval_case: the demand-driven walk with a stack.
bool eval_case_walk(const Prepared& p, const double* inputs, const Fixed& fixed, Workspace& ws, Diagnostic& err);

/// Fills p.lazy (after p.straight and p.order).
void build_lazy_plan(Prepared& p);

/// Fills p.plan (after everything else in `p` is prepared).
void build_plan(Prepared& p);

/// A case the batched paths flagged, decided by the checked scalar
/// evaluator: its outputs, or its error (appended to `errors`).
void rerun_case(const Prepared& p, std::span<const std::span<const double>> columns, std::size_t c, const Fixed& fixed,
                Workspace& ws, std::vector<double>& case_inputs, Diagnostic& err, BatchResult& out,
                std::vector<std::pair<std::size_t, Diagnostic>>& errors);

/// run_batch's argument checks (one column per input, each `count` long).
Status check_batch_columns(const Prepared& p, std::span<const std::span<const double>> columns, std::size_t count);

/// The batched fast path; see batch.cpp.
Status run_batch_impl(const Prepared& p, std::span<const std::span<const double>> columns, std::size_t count,
                      const Env& fixed_env, BatchResult& out, unsigned threads);

}  // namespace tc::eval_detail
