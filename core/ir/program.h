#pragma once
/// The scalar SSA circuit: nodes in topological order (id == index, every
/// argument has a smaller id), named outputs and state updates.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/result.h"
#include "base/source.h"
#include "ir/domain.h"
#include "ir/op.h"

namespace tc {

/// One enclosing loop of a node: the loop variable and its value in the
/// expanded iteration that produced the node.
struct LoopStep {
  std::string variable;
  std::int64_t value = 0;

  bool operator==(const LoopStep&) const = default;
};

struct Node {
  NodeId id = 0;
  Op op = Op::Constant;
  std::vector<NodeId> args;
  std::string name;                ///< input/parameter/state name, or call binding name
  double value = 0.0;              ///< constant value, parameter value, state initial value
  std::optional<Domain> domain;    ///< required on input and state; checked at run time when present
  bool differentiable = false;     ///< on input/parameter: whether grad reports it
  std::optional<SourceLoc> location;
  /// Loop iterations the node was expanded in, outermost first (empty
  /// outside loops). Only informative: no pass or evaluator reads it.
  std::vector<LoopStep> iteration;
  // affine / sparse_affine
  std::vector<double> coefficients;
  std::optional<double> bias;
  std::vector<std::int32_t> indices;  ///< sparse_affine only: ascending positions into args
  // per-node policy from include (absent = the program's root policy)
  std::optional<Semantics> semantics;
  std::optional<Surrogate> surrogate;
  std::optional<double> temperature;

  bool operator==(const Node&) const = default;
};

struct Program {
  Semantics semantics = Semantics::Exact;
  Dtype dtype = Dtype::Float64;
  Surrogate surrogate = Surrogate::Sigmoid;
  double temperature = 1.0;
  std::vector<Node> nodes;
  std::vector<std::pair<std::string, NodeId>> outputs;  ///< in artifact order
  std::vector<std::pair<NodeId, NodeId>> updates;       ///< state node id -> next-value node id

  bool operator==(const Program&) const = default;

  [[nodiscard]] std::optional<NodeId> output(std::string_view name) const;
  [[nodiscard]] std::optional<NodeId> find_named(Op op, std::string_view name) const;
  [[nodiscard]] std::vector<NodeId> nodes_of(Op op) const;  ///< ids of every node with `op`, ascending
  [[nodiscard]] bool has_state() const { return !nodes_of(Op::State).empty(); }
  [[nodiscard]] bool has_calls() const { return !nodes_of(Op::Call).empty(); }
  /// Effective per-node policy (node override or program root).
  [[nodiscard]] Semantics semantics_of(const Node& n) const { return n.semantics.value_or(semantics); }
  [[nodiscard]] double temperature_of(const Node& n) const { return n.temperature.value_or(temperature); }
  [[nodiscard]] Surrogate surrogate_of(const Node& n) const { return n.surrogate.value_or(surrogate); }
};

/// Checks every structural rule of contract section 2 (ids, arity, argument
/// order, domains, names, coefficients, outputs, updates). Errors name the
/// node and the field. Run it on every program from outside (loader, passes).
Status validate(const Program& program);

/// "node 7 (div)" with " at line 3, column 12" when the node has a location.
std::string describe_node(const Program& program, NodeId id);

/// Replaces parameters by constants (all when `names` is empty); an unknown
/// name is an error. Returns the new program.
Result<Program> freeze(const Program& program, const std::vector<std::string>& names = {});

/// Rounds to binary32 and back (the float32 dtype's rounding point).
inline double round_f32(double v) { return static_cast<double>(static_cast<float>(v)); }

}  // namespace tc
