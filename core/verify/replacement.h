#pragma once
/// verified_replacement: a gate that lets a candidate circuit (hand-optimised,
/// generated, trained and frozen) replace an original only after it agreed
/// with the original on every value of the original's finite input domains.
/// It is a validation gate, not a proof over the reals: domains must be
/// enumerable (int32/bool, product at most max_cases).
#include <optional>
#include <string>

#include "base/progress.h"
#include "base/result.h"
#include "eval/evaluator.h"
#include "ir/program.h"
#include "verify/verify.h"

namespace tc {

struct ReplacementOptions {
  std::size_t max_cases = 100000;   ///< largest enumeration accepted
  Tolerance tolerance;              ///< defaults to exact agreement
  /// The original's behaviour; when null, the original circuit run by the
  /// checked evaluator (with `original_eval`). The CLI passes the original's
  /// Python source here when ORIGINAL is a .py file.
  Reference* original_reference = nullptr;
  EvalOptions original_eval;        ///< bindings for the original's call nodes
  std::size_t max_reported = 10;
  Progress* progress = nullptr;
};

struct ReplacementVerdict {
  bool accepted = false;
  std::string reason;                 ///< why it was refused (empty when accepted)
  std::optional<VerifyReport> report; ///< present once the exhaustive comparison ran
};

/// The structural reason to refuse a candidate (parameters, state, calls,
/// other input names, domains or output names than the original), or empty;
/// without the rule that the domains be enumerable, which a gate that proves
/// instead of enumerating (prove/replacement.h) does not need.
std::string replacement_refusal(const Program& original, const Program& candidate);

/// Refuses, with the specific reason, a candidate that has parameters (not
/// frozen), state, call nodes, other input names, other domains or other
/// output names than the original, or whose domains cannot be enumerated
/// within max_cases; otherwise compares both exhaustively and accepts only
/// when every case agrees. Errors (not refusals): the original cannot be
/// evaluated, the reference failed, cancellation.
Result<ReplacementVerdict> verified_replacement(const Program& original, const Program& candidate,
                                                const ReplacementOptions& options = {});

}  // namespace tc
