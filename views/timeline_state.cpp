#include "views/timeline_state.h"

#include <QFileInfo>

#include <algorithm>
#include <cmath>

namespace tc {
namespace views {

void Timeline::clear() {
  has_replay_ = false;
  replay_ = {};
  step_ = 0;
  origin_.clear();
  events_path_.clear();
  events_text_.clear();
  events_name_.clear();
}

bool Timeline::setStep(int step) {
  step = std::clamp(step, 0, static_cast<int>(replay_.steps.size()));
  if (step == step_) return false;
  step_ = step;
  return true;
}

void Timeline::setReplay(Replay replay, int step) {
  replay_ = std::move(replay);
  has_replay_ = true;
  step_ = std::clamp(step, 0, static_cast<int>(replay_.steps.size()));
}

bool Timeline::dropReplay() {
  const bool had = has_replay_;
  has_replay_ = false;
  replay_ = {};
  step_ = 0;
  return had;
}

void Timeline::openLog(const QString& path, std::string text) {
  events_path_ = path;
  events_text_ = std::move(text);
  events_name_ = QFileInfo(path).fileName().toStdString();
}

void Timeline::restoreOffLog(std::string snapshot_text) {
  origin_ = std::move(snapshot_text);
  events_path_.clear();
  events_text_.clear();
  events_name_.clear();
}

Replay Timeline::placeOnLog(const Replay& log, std::size_t skip, Replay tail) {
  Replay r;
  r.state_names = std::move(tail.state_names);
  r.initial_state = log.initial_state;
  r.base_steps = log.base_steps;
  r.max_steps = tail.max_steps;
  skip = std::min(skip, log.steps.size());
  r.steps.assign(log.steps.begin(), log.steps.begin() + static_cast<std::ptrdiff_t>(skip));
  for (auto& s : tail.steps) r.steps.push_back(std::move(s));
  r.error = std::move(tail.error);
  return r;
}

std::vector<double> Timeline::stateAtStep() const {
  if (step_ == 0 || replay_.steps.empty()) return replay_.initial_state;
  return replay_.steps[static_cast<std::size_t>(step_ - 1)].state;
}

std::vector<double> Timeline::stateBeforeStep() const {
  if (step_ <= 1 || replay_.steps.empty()) return replay_.initial_state;
  return replay_.steps[static_cast<std::size_t>(step_ - 2)].state;
}

Case Timeline::caseState() const {
  Case out;
  if (!has_replay_) return out;
  for (std::size_t u = 0; u < replay_.state_names.size() && u < replay_.initial_state.size(); ++u)
    out[replay_.state_names[u]] = replay_.initial_state[u];
  return out;
}

std::optional<SnapshotPoint> Timeline::snapshotPoint() const {
  if (!has_replay_) return std::nullopt;
  return SnapshotPoint{stateAtStep(), replay_.base_steps + static_cast<std::uint64_t>(step_), replay_.max_steps};
}

const std::vector<double>& Timeline::values(const std::vector<double>& otherwise) const {
  if (showingStep()) {
    const auto& vals = replay_.steps[static_cast<std::size_t>(step_ - 1)].values;
    if (!vals.empty()) return vals;
  }
  return otherwise;
}

Case Timeline::inputs(const Case& otherwise) const {
  if (showingStep()) return replay_.steps[static_cast<std::size_t>(step_ - 1)].inputs;
  return otherwise;
}

const std::vector<double>& Timeline::outputs(const std::vector<double>& otherwise) const {
  if (showingStep()) return replay_.steps[static_cast<std::size_t>(step_ - 1)].outputs;
  return otherwise;
}

int Timeline::seekChange(NodeId id, SeekDirection direction) const {
  // Step s's values are those the event of step s computed; core's seek
  // compares each with the step before. Steps that kept no values (a large
  // program) read as not computed.
  const auto& steps = replay_.steps;
  if (id < 0 || steps.empty()) return -1;
  const auto i = static_cast<std::size_t>(id);
  auto value = [&](std::size_t s) {
    const auto& v = steps[s - 1].values;
    return i < v.size() ? v[i] : std::nan("");
  };
  const auto s = seek_change(static_cast<std::size_t>(std::max(step_, 1)), 1, steps.size(), direction, value);
  return s ? static_cast<int>(*s) : -1;
}

int Timeline::nextChange(NodeId id) const { return seekChange(id, SeekDirection::Forward); }
int Timeline::previousChange(NodeId id) const { return seekChange(id, SeekDirection::Backward); }

}  // namespace views
}  // namespace tc
