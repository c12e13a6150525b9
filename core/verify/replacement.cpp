#include "verify/replacement.h"

#include <algorithm>

namespace tc {

namespace {

std::string names_of(const Program& p, Op op) {
  std::string s;
  for (NodeId id : p.nodes_of(op)) s += (s.empty() ? "" : ", ") + p.nodes[static_cast<std::size_t>(id)].name;
  return s;
}

std::string list(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return "(" + s + ")";
}

std::vector<std::string> output_names(const Program& p) {
  std::vector<std::string> out;
  for (const auto& [name, _] : p.outputs) out.push_back(name);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

std::string replacement_refusal(const Program& original, const Program& candidate) {
  if (!candidate.nodes_of(Op::Parameter).empty())
    return "the candidate has parameters (" + names_of(candidate, Op::Parameter) +
           "): freeze them into constants before replacing";
  if (candidate.has_state()) return "the candidate has state (" + names_of(candidate, Op::State) + ")";
  if (candidate.has_calls()) return "the candidate calls host bindings (" + names_of(candidate, Op::Call) + ")";
  if (original.has_state())
    return "the original has state (" + names_of(original, Op::State) + "): a stateless candidate cannot replace it";
  auto want = program_inputs(original), have = program_inputs(candidate);
  std::vector<std::string> want_names, have_names;
  for (const auto& in : want) want_names.push_back(in.name);
  for (const auto& in : have) have_names.push_back(in.name);
  if (want_names != have_names)
    return "the candidate's inputs " + list(have_names) + " differ from the original's " + list(want_names);
  for (std::size_t k = 0; k < want.size(); ++k) {
    if (!(want[k].domain.type == have[k].domain.type && want[k].domain.lo() == have[k].domain.lo() &&
          want[k].domain.hi() == have[k].domain.hi()))
      return "input " + want[k].name + ": the candidate's domain " + have[k].domain.to_string() +
             " differs from the original's " + want[k].domain.to_string();
  }
  if (output_names(original) != output_names(candidate))
    return "the candidate's outputs " + list(output_names(candidate)) + " differ from the original's " +
           list(output_names(original));
  return {};
}

namespace {

/// The first structural reason to refuse, or empty.
std::string structural_refusal(const Program& original, const Program& candidate, std::size_t max_cases) {
  if (std::string why = replacement_refusal(original, candidate); !why.empty()) return why;
  const auto want = program_inputs(original);
  if (!enumerable_count(want, max_cases)) {
    for (const auto& in : want)
      if (in.domain.is_floating())
        return "input " + in.name + " is " + in.domain.to_string() +
               ": only finite int32/bool domains can be checked exhaustively";
    return "the input domains have more than " + std::to_string(max_cases) +
           " combinations: narrow them or raise max_cases";
  }
  return {};
}

}  // namespace

Result<ReplacementVerdict> verified_replacement(const Program& original, const Program& candidate,
                                                const ReplacementOptions& options) {
  if (Status s = check_tolerance(options.tolerance); !s) return s.error();
  ReplacementVerdict verdict;
  verdict.reason = structural_refusal(original, candidate, options.max_cases);
  if (!verdict.reason.empty()) return verdict;

  std::unique_ptr<Reference> own;
  Reference* reference = options.original_reference;
  if (!reference) {
    auto made = make_program_reference(original, options.original_eval);
    if (!made) return made.error();
    own = std::move(*made);
    reference = own.get();
  }
  VerifyOptions vo;
  vo.max_cases = options.max_cases;
  vo.require_exhaustive = true;
  vo.tolerance = options.tolerance;
  vo.max_reported = options.max_reported;
  vo.progress = options.progress;
  auto report = verify(candidate, *reference, vo);
  if (!report) return report.error();
  // The gate's promise is agreement on every case: never accept on fewer.
  if (report->passed && (!report->exhaustive || report->cases == 0 || report->cases != report->planned_cases)) {
    verdict.reason = "only " + std::to_string(report->cases) + " of the input combinations were checked";
    return verdict;  // without a report: a refusal for a structural reason (exit 3), not a disagreement
  }
  if (!report->passed)
    verdict.reason = "the candidate disagrees with the original on " + std::to_string(report->mismatch_count) +
                     " of " + std::to_string(report->cases) + " cases";
  verdict.accepted = report->passed;
  verdict.report = std::move(*report);
  return verdict;
}

}  // namespace tc
