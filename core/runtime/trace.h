#pragma once
/// The step trace behind the IDE timeline: for every committed event, its
/// input values, its outputs, the state after it and which way each select
/// went. Rows are stored column-packed in flat arrays (doubles for values,
/// two bits per select for branches), so recording 100,000 steps of a small
/// program costs a few megabytes and no per-step allocation; every other
/// node's value is recomputed on demand from a row's inputs and the state
/// before it (evaluation is deterministic), which keeps memory independent of
/// the program's size.
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "base/result.h"
#include "eval/evaluator.h"
#include "ir/program.h"
#include "runtime/runtime.h"

namespace tc {

class StepTrace {
 public:
  /// Branch codes of branch().
  static constexpr std::int8_t kNotEvaluated = -1;
  static constexpr std::int8_t kNo = 0;
  static constexpr std::int8_t kYes = 1;

  StepTrace() = default;

  /// Starts an empty trace at `runtime`'s current state and step count.
  void begin(const Runtime& runtime);
  /// Drops every row (the layout and start state stay).
  void clear_rows();

  /// Number of recorded steps (rows).
  [[nodiscard]] std::size_t size() const { return rows_; }
  [[nodiscard]] bool empty() const { return rows_ == 0; }
  /// Committed step count before row 0.
  [[nodiscard]] std::uint64_t first_step() const { return first_step_; }
  /// The step number of row i (the committed count after it, as `replay` prints).
  [[nodiscard]] std::uint64_t step_number(std::size_t row) const { return first_step_ + row + 1; }
  /// Committed step count after the last row.
  [[nodiscard]] std::uint64_t end_step() const { return first_step_ + rows_; }

  /// Input node ids (the evaluator's column order), output node ids
  /// (Program::outputs order), state node ids (ascending), select node ids (ascending).
  [[nodiscard]] const std::vector<NodeId>& input_ids() const { return input_ids_; }
  [[nodiscard]] const std::vector<NodeId>& output_ids() const { return output_ids_; }
  [[nodiscard]] const std::vector<NodeId>& state_ids() const { return state_ids_; }
  [[nodiscard]] const std::vector<NodeId>& select_ids() const { return select_ids_; }

  /// Row i's input values (input_ids() order).
  [[nodiscard]] std::span<const double> inputs(std::size_t row) const;
  /// Row i's outputs (output_ids() order).
  [[nodiscard]] std::span<const double> outputs(std::size_t row) const;
  /// The state after row i (state_ids() order).
  [[nodiscard]] std::span<const double> state_after(std::size_t row) const;
  /// The state row i saw (the start state for row 0).
  [[nodiscard]] std::span<const double> state_before(std::size_t row) const;
  /// Which branch select number `k` (select_ids()[k]) took in row i:
  /// kYes, kNo, or kNotEvaluated when no output or update needed it.
  [[nodiscard]] std::int8_t branch(std::size_t row, std::size_t k) const;
  /// Same, by node id; kNotEvaluated for a node that is not a select.
  [[nodiscard]] std::int8_t branch_of(std::size_t row, NodeId select) const;

  /// Appends one committed event. `node_trace` is the evaluation's CaseTrace.
  void append(std::span<const double> inputs, std::span<const double> outputs, std::span<const double> state_after,
              const CaseTrace& node_trace);
  /// Reserves room for `rows` more rows.
  void reserve(std::size_t rows);

  /// Bytes held by the recorded rows (capacity of the row storage).
  [[nodiscard]] std::size_t memory_bytes() const;

 private:
  std::vector<NodeId> input_ids_, output_ids_, state_ids_, select_ids_;
  std::vector<int> select_index_;  ///< node id -> index into select_ids_, -1 otherwise
  std::vector<double> start_state_;
  std::uint64_t first_step_ = 0;
  std::size_t rows_ = 0;
  std::vector<double> inputs_, outputs_, states_;
  std::vector<std::uint64_t> branches_;  ///< 2 bits per (row, select): bit0 evaluated, bit1 took yes
};

/// Every node's value in recorded row `row`, recomputed from the row's
/// inputs and the state before it.
Result<CaseTrace> evaluate_row(const Runtime& runtime, const StepTrace& trace, std::size_t row);

/// A node's value in one row: nullopt when the evaluation did not compute it.
Result<std::optional<double>> node_value(const Runtime& runtime, const StepTrace& trace, std::size_t row, NodeId node);

/// "Jump to change": the first row after `after` whose value of `node`
/// differs from the row before it (a value that is computed in one row and
/// not in the other counts as a change). nullopt when it never changes.
/// Inputs, outputs and state nodes (whose value in a row is the state that
/// row saw) are answered from the stored columns; any other node is
/// recomputed row by row.
Result<std::optional<std::size_t>> next_change(const Runtime& runtime, const StepTrace& trace, NodeId node,
                                               std::size_t after = 0);
/// The IDE's first change of a node over the whole trace: next_change from row 0.
inline Result<std::optional<std::size_t>> first_change(const Runtime& runtime, const StepTrace& trace, NodeId node) {
  return next_change(runtime, trace, node, 0);
}
/// The last row before `before` whose value differs from the row before it
/// (the timeline's "previous change"). nullopt when there is none.
Result<std::optional<std::size_t>> previous_change(const Runtime& runtime, const StepTrace& trace, NodeId node,
                                                   std::size_t before);

/// Records a trace over `events` from a copy of `runtime` (which is not
/// changed). `failure` receives the first failed event, if any; the trace
/// holds the events before it, and `failure_values` what the failed event's
/// evaluation computed before it stopped (empty when it failed before
/// evaluating: a bad input, an exhausted budget), so the IDE can show where
/// it went wrong.
struct TraceRecording {
  StepTrace trace;
  std::optional<ReplayFailure> failure;
  CaseTrace failure_values;
};
Result<TraceRecording> record_trace(const Runtime& runtime, std::span<const NamedValues> events);

}  // namespace tc
