#pragma once
/// The evaluation policy a caller lays over a program's own: root semantics,
/// dtype, relaxation temperature and surrogate. Every layer that runs,
/// differentiates or analyses a program under a caller's policy (the
/// evaluator, the gradient tape, the interval analysis, the clients) applies
/// it with apply_policy, so "replaces the root semantics; nodes from include
/// keep their own" is decided in one place.
#include <optional>

#include "base/result.h"
#include "ir/program.h"

namespace tc {

struct Policy {
  std::optional<Semantics> semantics{};  ///< replaces the root semantics (nodes from include keep theirs)
  std::optional<Dtype> dtype{};          ///< replaces the program's dtype
  std::optional<double> temperature{};   ///< replaces the root temperature (finite, > 0)
  std::optional<Surrogate> surrogate{};  ///< replaces the root surrogate
  [[nodiscard]] bool empty() const { return !semantics && !dtype && !temperature && !surrogate; }
  friend bool operator==(const Policy&, const Policy&) = default;
};

/// A program's root settings under a policy (nodes may still override
/// semantics, temperature and surrogate for themselves).
struct RootSettings {
  Semantics semantics;
  Dtype dtype;
  double temperature;
  Surrogate surrogate;
};
/// The settings `program` runs with under `policy`, without copying it:
/// what the evaluator and the analysis read.
[[nodiscard]] RootSettings resolve(const Policy& policy, const Program& program);

/// A temperature that is not finite and greater than 0 is refused.
Status check_policy(const Policy& policy);
/// Lays `policy` over `program`'s root settings (per-node overrides stay):
/// its root settings become resolve(policy, program).
void apply_policy(const Policy& policy, Program& program);
/// `program` with `policy` laid over it.
[[nodiscard]] Program with_policy(Program program, const Policy& policy);

}  // namespace tc
