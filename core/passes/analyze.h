#pragma once
/// Interval analysis: a range for every node, computed forward from the
/// input domains, state domains, parameter values and constants, and
/// warnings about operations that may fail at run time.
///
/// This is a diagnostic, not a proof: the intervals are sound (every value
/// the checked evaluator produces for in-domain inputs lies in its node's
/// interval) but not tight, and a warning means "could not rule out", not
/// "will happen". Runtime checks remain authoritative.
///
/// Exact and hybrid selects compute only their chosen branch, so nodes used
/// only by one branch are analysed assuming that branch's condition (guards
/// such as `0.0 if b == 0 else x / b` do not warn); see docs/passes.md.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "ir/program.h"
#include "passes/interval.h"

namespace tc {

struct AnalyzeOptions {
  /// Parameter values to assume instead of the stored ones (by name).
  std::map<std::string, double, std::less<>> params;
  /// Treat every parameter as unbounded (e.g. for a program still training).
  bool free_parameters = false;
  std::optional<Semantics> semantics;  ///< replaces the root semantics, as at run time
  std::optional<Dtype> dtype;          ///< replaces the program's dtype
};

/// One potentially invalid operation.
struct AnalysisWarning {
  NodeId node = 0;
  std::string message;  ///< e.g. "possible division by zero"
  bool operator==(const AnalysisWarning&) const = default;
};

struct Analysis {
  std::vector<Interval> intervals;       ///< per node id
  std::vector<AnalysisWarning> warnings; ///< ascending node id, nodes some output or update needs
  /// Steps the guard refinement took (branch nodes examined, revisited and
  /// facts copied): capped at kRefinementBudget(nodes) so huge programs stay linear.
  std::size_t refinement_work = 0;
  /// The interval of the output `name` (the whole line when there is none).
  [[nodiscard]] Interval output(const Program& program, std::string_view name) const;
};

/// The most work the guard refinement does on a program of `nodes` nodes.
constexpr std::size_t refinement_budget(std::size_t nodes) { return 8 * nodes + 100000; }

/// Warning messages (stable texts; tests and the IDE match on them).
inline constexpr std::string_view kWarnDivisionByZero = "possible division by zero";
inline constexpr std::string_view kWarnIndexRange = "index possibly out of range";
inline constexpr std::string_view kWarnIndexInteger = "index possibly not an integer";
inline constexpr std::string_view kWarnOneHot = "selectors possibly not exactly one-hot";
inline constexpr std::string_view kWarnOverflow = "possibly non-finite result (overflow)";
inline constexpr std::string_view kWarnNodeDomain = "value possibly outside the node's domain";
inline constexpr std::string_view kWarnStateDomain = "state update possibly outside its domain";
/// A raise node some output needs, followed by its exception.
inline constexpr std::string_view kWarnRaise = "possibly raises";

/// Runs the analysis. Fails only on an invalid program or an unknown name in
/// options.params.
Result<Analysis> analyze(const Program& program, const AnalyzeOptions& options = {});

}  // namespace tc
