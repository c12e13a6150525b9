#pragma once
// Private state of Runtime, shared by the files of core/runtime (runtime,
// snapshot, trace). Not part of the public API.
#include <optional>
#include <string>
#include <vector>

#include "runtime/runtime.h"

namespace tc {

struct Runtime::Impl {
  struct InputInfo {
    std::string name;
    NodeId id = 0;
    Domain domain;
  };
  struct UpdateSlot {
    std::size_t state_slot = 0;  ///< index into state / state_names
    NodeId next = 0;             ///< node whose value becomes the new state
  };

  Program program;
  std::optional<Evaluator> evaluator;  ///< created from `program` (stable address: Impl lives on the heap)
  const Bindings* bindings = nullptr;
  std::vector<InputInfo> inputs;  ///< ascending node id
  std::vector<std::string> state_names;
  std::vector<NodeId> state_ids;
  std::vector<Domain> state_domains;
  std::vector<int> state_index;  ///< node id -> state slot, -1 for other nodes
  std::vector<UpdateSlot> updates;  ///< Program::updates order (the evaluator's next_state order)
  std::vector<std::string> output_names;
  std::vector<double> state;  ///< committed state
  std::uint64_t steps = 0;
  std::uint64_t max_steps = 0;

  /// Unknown, then out-of-domain, then missing inputs.
  [[nodiscard]] Status check_inputs(const NamedValues& values) const;
  /// " (the program's inputs are a, b)" for unknown-name errors.
  [[nodiscard]] std::string inputs_hint() const;
};

/// A JSON value shortened for an error message.
std::string short_json(const nlohmann::ordered_json& value);

}  // namespace tc
