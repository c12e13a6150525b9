#pragma once
/// Replay over the lines of an events file (JSON Lines): the one loop that
/// `tensorcode replay`, the IDE's timeline and the bindings share. Blank lines
/// hold no event but keep their number; every other line is parsed and
/// dispatched on the runtime, and the first line that fails stops the replay
/// with its line number (the events before it stay committed).
#include <cstddef>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "base/progress.h"
#include "runtime/runtime.h"

namespace tc {

/// True when a line of an events file holds no event (only white space).
[[nodiscard]] bool is_blank_event_line(std::string_view line);

/// One committed event of an events file.
struct LoggedStep {
  std::size_t line = 0;        ///< 1-based line of the events file
  NamedValues inputs;          ///< the event
  StepResult result;           ///< its outputs and the state it committed
  std::vector<double> values;  ///< per-node values of the step (empty when not traced)
};

/// Parses `line` (line `line_no` of an events file) and dispatches it on `rt`:
/// nullopt for a blank line, else the committed step, or the error of a
/// malformed event or a failed dispatch (then nothing was committed). With
/// `trace`, the step's per-node values are recorded into it.
[[nodiscard]] Result<std::optional<LoggedStep>> dispatch_event_line(Runtime& rt, std::string_view line,
                                                                    std::size_t line_no, CaseTrace* trace = nullptr);

struct EventLogOptions {
  /// Events at the start of the text taken as already consumed (a snapshot
  /// taken that many events into the same log): read past, not dispatched.
  std::size_t skip_events = 0;
  /// Updated every few lines; when it is cancelled the replay stops with DiagCode::Cancelled.
  Progress* progress = nullptr;
  /// Per-node values kept over all steps together (doubles); 0 keeps none.
  /// Steps past the budget keep no values (LoggedStep::values empty).
  std::size_t trace_budget = 0;
};

struct EventLogReplay {
  std::vector<LoggedStep> steps;    ///< the committed events, in order
  std::optional<Diagnostic> error;  ///< the first failing line ("FILE:LINE"); later lines did not run
};

/// Dispatches every event of `text` on `rt` in order (see dispatch_event_line);
/// errors carry `file_name` and the failing line.
[[nodiscard]] EventLogReplay replay_event_text(Runtime& rt, std::string_view text, std::string_view file_name,
                                               const EventLogOptions& options = {});

/// Which way a debugger's "change" search goes from the current step.
enum class SeekDirection { Forward, Backward };

/// The step a debugger's "next change" or "previous change" (rr's
/// reverse-continue to a watchpoint, a store's time travel) moves to: the
/// nearest step s strictly after (Forward) or before (Backward) `from`, with
/// first < s <= last, whose value differs from the value at step s - 1.
/// `value(s)` is a node's or a state's value at step s; NaN (not computed at
/// that step) equals NaN and differs from every number. nullopt: no such step.
[[nodiscard]] std::optional<std::size_t> seek_change(std::size_t from, std::size_t first, std::size_t last,
                                                     SeekDirection direction,
                                                     const std::function<double(std::size_t)>& value);

}  // namespace tc
