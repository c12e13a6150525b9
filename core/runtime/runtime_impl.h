#pragma once
// Private state of Runtime, shared by the files of core/runtime (runtime,
// snapshot, trace). Not part of the public API.
#include <cmath>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "runtime/runtime.h"

namespace tc {

/// A domain's membership test without building a message: the hot path of
/// every event. When it says no, Domain::check (the authority, with the
/// reason) decides.
struct DomainBounds {
  double lo = 0, hi = 0;
  bool integral = false;
  DomainBounds() = default;
  explicit DomainBounds(const Domain& d) : lo(d.lo()), hi(d.hi()), integral(d.is_integral()) {}
  [[nodiscard]] bool contains(double v) const {
    // NaN fails both comparisons; infinities fail the range (bounds are finite).
    return v >= lo && v <= hi && (!integral || v == std::floor(v));
  }
};

struct Runtime::Impl {
  struct InputInfo {
    std::string name;
    NodeId id = 0;
    Domain domain;
    DomainBounds bounds;
  };
  struct UpdateSlot {
    std::size_t state_slot = 0;  ///< index into state / state_names
    NodeId next = 0;             ///< node whose value becomes the new state
  };

  Program program;
  std::optional<Evaluator> evaluator;  ///< created from `program` (stable address: Impl lives on the heap)
  const Bindings* bindings = nullptr;
  std::vector<InputInfo> inputs;  ///< ascending node id
  std::vector<std::string> input_names;  ///< same order, for the events reader
  std::vector<bool> input_is_boolean;    ///< same order: takes JSON true/false
  std::string input_hint;                ///< inputs_hint(), computed once
  std::vector<std::string> state_names;
  std::vector<NodeId> state_ids;
  std::vector<Domain> state_domains;
  std::vector<DomainBounds> state_bounds;
  std::vector<std::size_t> state_by_name;  ///< state slots in name order (the order of Env::state)
  std::vector<int> state_index;  ///< node id -> state slot, -1 for other nodes
  std::vector<UpdateSlot> updates;  ///< Program::updates order (the evaluator's next_state order)
  std::vector<std::string> output_names;
  std::vector<double> state;  ///< committed state
  std::uint64_t steps = 0;
  std::uint64_t max_steps = 0;
  Env scratch;  ///< reused by dispatch so that steady-state events do not allocate map nodes

  /// The program as snapshot JSON, built by the first snapshot and shared
  /// with clones: the program never changes after create, and building its
  /// JSON again was most of every snapshot's cost (88% of a test that takes
  /// a snapshot per event, under ASan). once_flag keeps concurrent const
  /// snapshots safe.
  struct ProgramJson {
    std::once_flag once;
    nlohmann::ordered_json json;
  };
  std::shared_ptr<ProgramJson> program_json = std::make_shared<ProgramJson>();
  [[nodiscard]] const nlohmann::ordered_json& program_as_json() const;

  /// One event against `old_state` (state_names order); commits nothing.
  Result<StepResult> evaluate(Env& env, const NamedValues& values, std::span<const double> old_state,
                              CaseTrace* trace) const;
  /// Unknown inputs first, then per input (ascending id) missing or out of domain.
  [[nodiscard]] Status check_inputs(const NamedValues& values) const;
  /// " (the program's inputs are a, b)" for unknown-name errors.
  [[nodiscard]] std::string inputs_hint() const;
};

/// A JSON value shortened for an error message.
std::string short_json(const nlohmann::ordered_json& value);

}  // namespace tc
