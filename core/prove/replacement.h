#pragma once
/// The verified-replacement gate with a proof instead of an enumeration
/// (`tensorcode replace --prove`, Python verified_replacement(prove=True)):
/// a candidate replaces the original over float or large integer domains
/// when prove_equivalent says "equivalent". The structural rules of
/// verify/replacement.h stay (no parameters, state or calls in the
/// candidate, the same inputs, domains and outputs); the rule that the
/// domains be enumerable does not.
#include <optional>
#include <string>

#include "prove/prove.h"

namespace tc::prove {

struct ProvedReplacement {
  bool accepted = false;
  /// Why it was refused (empty when accepted): a structural reason, the
  /// reproduced counterexample, or why no proof was found.
  std::string reason;
  /// Present once the solvers ran: its verdict says which refusal it was
  /// (Different, Unknown) and holds the counterexample.
  std::optional<ProveResult> proof;
};

/// Accepts `candidate` only when it is proved equivalent to `original`
/// (options.tolerance, the verify rule). The circuit of the original is
/// what is proved against (not its Python source). Errors: a program the
/// encoder refuses, an invalid tolerance.
Result<ProvedReplacement> proved_replacement(const Program& original, const Program& candidate,
                                             const ProveOptions& options = {});

}  // namespace tc::prove
