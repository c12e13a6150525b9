#pragma once
/// The scalar SSA circuit: nodes in topological order (id == index, every
/// argument has a smaller id), named outputs and state updates.
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/boxed.h"
#include "base/result.h"
#include "base/source.h"
#include "ir/domain.h"
#include "ir/node_args.h"
#include "ir/op.h"

namespace tc {

/// One enclosing loop of a node: the loop variable and its value in the
/// expanded iteration that produced the node.
struct LoopStep {
  std::string variable;
  std::int64_t value = 0;

  bool operator==(const LoopStep&) const = default;
};

/// The loop iterations a node was expanded in, outermost first (empty
/// outside loops). Immutable and shared: every node built in one iteration
/// points at the same steps, so unrolling a long loop costs one allocation per
/// iteration instead of one per node. Reads like a const std::vector.
class IterationPath {
 public:
  using value_type = LoopStep;
  using const_iterator = std::vector<LoopStep>::const_iterator;
  using iterator = const_iterator;

  IterationPath() = default;
  IterationPath(std::vector<LoopStep> steps)  // NOLINT(google-explicit-constructor): a path is its steps
      : steps_(steps.empty() ? nullptr : std::make_shared<const std::vector<LoopStep>>(std::move(steps))) {}
  IterationPath(std::initializer_list<LoopStep> steps) : IterationPath(std::vector<LoopStep>(steps)) {}

  [[nodiscard]] bool empty() const { return !steps_; }
  [[nodiscard]] std::size_t size() const { return steps_ ? steps_->size() : 0; }
  [[nodiscard]] const LoopStep& operator[](std::size_t i) const { return (*steps_)[i]; }
  [[nodiscard]] const LoopStep& front() const { return steps_->front(); }
  [[nodiscard]] const LoopStep& back() const { return steps_->back(); }
  [[nodiscard]] const_iterator begin() const { return steps().begin(); }
  [[nodiscard]] const_iterator end() const { return steps().end(); }
  [[nodiscard]] const std::vector<LoopStep>& steps() const {
    static const std::vector<LoopStep> none;
    return steps_ ? *steps_ : none;
  }

  bool operator==(const IterationPath& o) const { return steps_ == o.steps_ || steps() == o.steps(); }
  bool operator==(const std::vector<LoopStep>& o) const { return steps() == o; }

 private:
  std::shared_ptr<const std::vector<LoopStep>> steps_;  ///< null when empty
};

/// The weights of an affine or sparse_affine node (contract section 2);
/// every other node has none.
struct LinearTerms {
  std::vector<double> coefficients;
  std::vector<std::int32_t> indices;  ///< sparse_affine only: ascending positions into args
  std::optional<double> bias;

  bool operator==(const LinearTerms&) const = default;
};

/// One circuit node. The fields are ordered small to large so the node packs
/// tightly: passes walk every node, and at 100k nodes the walk is bound by
/// memory, so bytes per node are time per node.
struct Node {
  NodeId id = 0;
  Op op = Op::Constant;
  bool differentiable = false;     ///< on input/parameter: whether grad reports it
  // per-node policy from include (absent = the program's root policy)
  std::optional<Semantics> semantics;
  std::optional<Surrogate> surrogate;
  std::optional<SourceLoc> location;
  NodeArgs args;                   ///< up to four held inline
  double value = 0.0;              ///< constant value, parameter value, state initial value
  std::string name;                ///< input/parameter/state name, or call binding name
  std::optional<Domain> domain;    ///< required on input and state; checked at run time when present
  /// Loop iterations the node was expanded in. Only informative: no pass or
  /// evaluator reads it.
  IterationPath iteration;
  std::optional<double> temperature;  ///< per-node policy, like semantics

  /// Affine terms (empty on every other op); reading allocates nothing.
  [[nodiscard]] const LinearTerms& linear() const { return linear_.get(); }
  /// The affine terms to set or change.
  LinearTerms& edit_linear() { return linear_.edit(); }
  void clear_linear() { linear_.reset(); }

  bool operator==(const Node&) const = default;

 private:
  Boxed<LinearTerms> linear_;  // one pointer: few nodes are affine
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
