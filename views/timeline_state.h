#pragma once
// The timeline part of the session: the open event log, the replay of it
// (every step's event, outputs, node values and state), the step shown and
// where a restored snapshot sits on the log. No worker here: the session
// replays on the worker and hands the replay to setReplay().
#include <QString>

#include <optional>
#include <string>
#include <vector>

#include "runtime/event_log.h"
#include "views/engine.h"

namespace tc {
namespace views {

class Timeline {
 public:
  /// Forgets the replay, the log and any snapshot origin (a new document).
  void clear();
  [[nodiscard]] const Replay& replay() const { return replay_; }
  [[nodiscard]] bool hasReplay() const { return has_replay_; }
  [[nodiscard]] int step() const { return step_; }
  /// Moves to `step`, clamped to the replay; false when it did not move.
  bool setStep(int step);
  /// The replay shown from now on, at `step` (a finished replay or a restored snapshot).
  void setReplay(Replay replay, int step);
  /// Drops the replay (its program is gone) but keeps the log; true when one was shown.
  bool dropReplay();

  // --- the event log -------------------------------------------------------
  void openLog(const QString& path, std::string text);
  [[nodiscard]] bool logOpen() const { return !events_text_.empty(); }
  [[nodiscard]] const std::string& logText() const { return events_text_; }
  [[nodiscard]] const std::string& logName() const { return events_name_; }
  /// The snapshot the log replays from ("" = the program's initial state).
  [[nodiscard]] const std::string& origin() const { return origin_; }
  /// A snapshot off the open log (or with none) was restored: it becomes the
  /// origin of a log opened next, and the log is closed.
  void restoreOffLog(std::string snapshot_text);
  /// Steps consumed before the replay's first event (from a restored snapshot).
  [[nodiscard]] int snapshotBase() const { return static_cast<int>(replay_.base_steps); }
  /// The replay after restoring, onto `log` (the replay of the open log), a
  /// snapshot taken `skip` events into it: the steps before the snapshot are
  /// kept and `tail` (the rest of the log replayed from the snapshot) follows,
  /// so no step counts twice.
  static Replay placeOnLog(const Replay& log, std::size_t skip, Replay tail);

  // --- what the views show at the current step -----------------------------
  /// True when a replay is loaded and a step after 0 is shown.
  [[nodiscard]] bool showingStep() const {
    return has_replay_ && step_ > 0 && step_ <= static_cast<int>(replay_.steps.size());
  }
  /// State committed by the current step (the initial state at step 0), Replay::state_names order.
  [[nodiscard]] std::vector<double> stateAtStep() const;
  /// State the current step's event saw (the state before it; the initial state at step 0).
  [[nodiscard]] std::vector<double> stateBeforeStep() const;
  /// The state a case runs against while a replay is loaded (its starting
  /// state: a restored snapshot's or the program's), by name; empty without one.
  [[nodiscard]] Case caseState() const;
  /// Where a snapshot of the current step is taken (none without a replay).
  [[nodiscard]] std::optional<SnapshotPoint> snapshotPoint() const;
  /// The current step's node values, or `otherwise` when no step is shown (or it kept none).
  [[nodiscard]] const std::vector<double>& values(const std::vector<double>& otherwise) const;
  /// The current step's event inputs, or `otherwise`.
  [[nodiscard]] Case inputs(const Case& otherwise) const;
  /// The current step's outputs, or `otherwise`.
  [[nodiscard]] const std::vector<double>& outputs(const std::vector<double>& otherwise) const;
  /// First step after the current one where node `id`'s value differs from the step before; -1 if none.
  [[nodiscard]] int nextChange(NodeId id) const;
  /// Last step before the current one where node `id`'s value differs from the step before; -1 if none.
  [[nodiscard]] int previousChange(NodeId id) const;

 private:
  [[nodiscard]] int seekChange(NodeId id, SeekDirection direction) const;
  Replay replay_;
  bool has_replay_ = false;
  int step_ = 0;
  std::string origin_;
  QString events_path_;
  std::string events_text_;
  std::string events_name_;
};

}  // namespace views
}  // namespace tc
