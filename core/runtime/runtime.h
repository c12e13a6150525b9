#pragma once
/// Event-state runtime (contract section 3): a program with `state` nodes is
/// driven by a sequence of events (one object of input values each).
///
/// Each event evaluates the circuit once with the inputs of the event and
/// the committed state: every output and every update sees the OLD state.
/// The event commits - all new state values at once and one step of the
/// budget - only when every check passed: the input values against their
/// domains, every checked node of the evaluation, and each new state value
/// against its state's domain. A failed event changes nothing.
///
/// A Runtime is move-only and not thread-safe for dispatch; `step` and the
/// const queries may run concurrently with each other.
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "eval/evaluator.h"
#include "ir/program.h"

namespace tc {

class StepTrace;

/// Values by name: the inputs of one event, or a whole state.
using NamedValues = std::map<std::string, double, std::less<>>;

/// What one event produced.
struct StepResult {
  std::vector<double> outputs;  ///< in Program::outputs order
  std::vector<double> state;    ///< the state after the event, in Runtime::state_names() order
};

/// The first event of a replay that failed.
struct ReplayFailure {
  std::size_t index = 0;  ///< 0-based position in the event list
  Diagnostic error;
};

/// Outcome of Runtime::replay.
struct ReplayResult {
  std::size_t committed = 0;             ///< events that committed (all of them, or those before the failure)
  std::optional<ReplayFailure> failure;  ///< set when an event failed; later events were not run
  [[nodiscard]] bool ok() const { return !failure; }
};

class Runtime {
 public:
  /// The step budget `tensorcode replay` uses when none is given.
  static constexpr std::uint64_t kDefaultMaxSteps = 1'000'000;

  /// A runtime at the program's initial state with `max_steps` events of
  /// budget. The program is validated; a `call` node needs a binding in
  /// `bindings` (which must outlive the runtime; it is never serialized).
  static Result<Runtime> create(Program program, std::uint64_t max_steps = kDefaultMaxSteps,
                                const Bindings* bindings = nullptr);

  /// Resumes from a snapshot (the JSON of `snapshot()`), keeping its state,
  /// consumed steps and budget. Everything is checked: format and version,
  /// the embedded artifact, every state name (none missing, none unknown),
  /// each state value against its domain, steps <= max_steps.
  static Result<Runtime> restore(const nlohmann::ordered_json& snapshot, const Bindings* bindings = nullptr);
  /// Same, from snapshot text (parsed with the artifact loader's limits).
  static Result<Runtime> restore_text(std::string_view snapshot_text, const Bindings* bindings = nullptr);

  Runtime(Runtime&&) noexcept;
  Runtime& operator=(Runtime&&) noexcept;
  ~Runtime();

  /// An independent runtime with the same program, state, steps and budget.
  [[nodiscard]] Result<Runtime> clone() const;

  [[nodiscard]] const Program& program() const;
  [[nodiscard]] const Evaluator& evaluator() const;
  /// Names of every state node, ascending node id: the order of state vectors.
  [[nodiscard]] const std::vector<std::string>& state_names() const;
  /// State node ids, same order as state_names().
  [[nodiscard]] const std::vector<NodeId>& state_ids() const;
  /// Output names in Program::outputs order.
  [[nodiscard]] const std::vector<std::string>& output_names() const;
  /// The committed state, in state_names() order.
  [[nodiscard]] const std::vector<double>& state() const;
  /// The committed state by name.
  [[nodiscard]] NamedValues state_map() const;
  /// Events committed so far (including those before a restored snapshot).
  [[nodiscard]] std::uint64_t steps() const;
  [[nodiscard]] std::uint64_t max_steps() const;

  /// Pure: evaluates one event against `state` (every state name, each in
  /// its domain) and returns the outputs and the state the event would
  /// commit. Neither this runtime's state nor its step count changes, and
  /// the budget is not consulted.
  [[nodiscard]] Result<StepResult> step(const NamedValues& inputs, const NamedValues& state) const;
  /// Same, with the state as a vector in state_names() order (no name
  /// lookups), optionally recording per-node values and select branches.
  [[nodiscard]] Result<StepResult> step(const NamedValues& inputs, std::span<const double> state,
                                        CaseTrace* trace = nullptr) const;

  /// Evaluates one event against the committed state and commits it on
  /// success. Fails without any change when the budget is used up or any
  /// check fails.
  Result<StepResult> dispatch(const NamedValues& inputs, CaseTrace* trace = nullptr);

  /// Dispatches `events` in order and stops at the first that fails (its
  /// index is reported; events before it stay committed). With `trace`,
  /// every committed event is appended to it: an empty trace is started at
  /// the current state, a non-empty one must end at this runtime's current
  /// step (otherwise the replay fails at index 0 without running anything).
  ReplayResult replay(std::span<const NamedValues> events, StepTrace* trace = nullptr);

  /// The snapshot of contract section 3: {"format": "tensorcode.snapshot",
  /// "version": 1, "program": artifact, "state": {name: value}, "steps": n,
  /// "max_steps": m}.
  [[nodiscard]] nlohmann::ordered_json snapshot() const;
  /// snapshot() as indented, newline-terminated text.
  [[nodiscard]] std::string snapshot_text() const;
  /// An independent runtime with this program and budget at another point of
  /// its history: `state` (state_names() order, each value in its domain)
  /// after `steps` events (at most max_steps()). A debugger's "snapshot at
  /// step k" is `at(state_k, k)->snapshot_text()`.
  [[nodiscard]] Result<Runtime> at(std::span<const double> state, std::uint64_t steps) const;

  /// Reads one event (a JSON object of input values): every value must be
  /// a finite JSON number (JSON true/false is accepted for a bool input) and
  /// every name an input of the program. Missing inputs and domains are
  /// checked when the event is evaluated (step/dispatch).
  [[nodiscard]] Result<NamedValues> event_from_json(const nlohmann::ordered_json& event) const;
  /// Parses one line of an events file (JSON Lines) and reads it as above.
  [[nodiscard]] Result<NamedValues> parse_event(std::string_view line) const;

  /// Outputs of a StepResult by name.
  [[nodiscard]] NamedValues named_outputs(const StepResult& r) const;
  /// A state vector (state_names() order) by name.
  [[nodiscard]] NamedValues named_state(std::span<const double> state) const;

 private:
  struct Impl;
  explicit Runtime(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// nullopt when `a` and `b` are the same circuit, else a lowercase
/// description of the first difference ("node 2 (add) differs", ...).
std::optional<std::string> describe_program_difference(const Program& a, const Program& b);

}  // namespace tc
