#include "prove/replacement.h"

#include "base/number_text.h"
#include "verify/replacement.h"

namespace tc::prove {

Result<ProvedReplacement> proved_replacement(const Program& original, const Program& candidate,
                                             const ProveOptions& options) {
  if (Status s = check_tolerance(options.tolerance); !s) return s.error();
  ProvedReplacement out;
  out.reason = replacement_refusal(original, candidate);
  if (!out.reason.empty()) return out;
  auto r = prove_equivalent(original, candidate, options);
  if (!r) return r.error();
  switch (r->verdict) {
    case Verdict::Equivalent: out.accepted = true; break;
    case Verdict::Different: {
      std::string at;
      for (const auto& [name, v] : r->counterexample->inputs)
        at += (at.empty() ? "" : ", ") + name + "=" + shortest_number(v);
      out.reason = "the candidate differs from the original at " + at + " (reproduced by the evaluator)";
      break;
    }
    default:
      out.reason = "no proof that the candidate equals the original" + (r->reason.empty() ? "" : ": " + r->reason);
      break;
  }
  out.proof = std::move(*r);
  return out;
}

}  // namespace tc::prove
