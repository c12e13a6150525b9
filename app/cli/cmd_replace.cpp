// `tensorcode replace ORIGINAL CANDIDATE` — the verified-replacement gate:
// CANDIDATE may replace ORIGINAL only when it has no parameters, state or
// calls, the same inputs, domains and outputs, and agrees with ORIGINAL on
// every case of the (enumerable) domains. ORIGINAL.py is judged by its own
// source run by CPython worker processes; an ORIGINAL artifact by the checked
// evaluator. Prints {"accepted", "reason", "report"}; with -o the accepted
// candidate is written (nothing is written when refused).
// Exit 0 accepted, 1 refused because the candidate disagrees, 3 refused for
// a structural reason or when something cannot be loaded or run, 2 usage.
// With --prove the agreement is proved over the whole domain instead of
// enumerated (prove/replacement.h), so float and large integer domains are
// accepted; it prints {"accepted", "reason", "proof"} (the proof as
// `tensorcode prove --json` prints it) and exits 4 when no proof was found.
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>

#include "common.h"
#include "options.h"
#include "ir/artifact.h"
#include "prove/replacement.h"
#include "workbench/workbench.h"
#include "terminal_progress.h"

namespace tc::cli {
namespace {

struct ReplaceArgs {
  ProgramArgs original;
  std::string candidate;
  std::string output;
  std::size_t max_cases = 100000;
  double atol = 0.0;
  double rtol = 0.0;
  bool prove = false;
  double prove_timeout = 60;
};

constexpr int kUnknown = 4;  ///< as `prove`: no proof either way

/// --prove: the original's circuit against the candidate's, over the whole
/// domain. Nothing is written unless the proof says "equivalent".
int prove_replacement(const ReplaceArgs& args, const LoadedProgram& original, const LoadedProgram& candidate) {
  for (const auto& [loaded, path] : {std::pair{&original, args.original.path}, std::pair{&candidate, args.candidate}})
    if (Status s = prove::encodable(loaded->program); !s) {
      report(s.error(), path);
      return kRejected;
    }
  prove::ProveOptions options;
  options.timeout_s = args.prove_timeout;
  options.tolerance = {args.atol, args.rtol};
  const ProgramSession so(original.program), sc(candidate.program);
  auto verdict = workbench::proved_replacement(so, sc, options);
  if (!verdict) {
    report(verdict.error());
    return kRejected;
  }
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  j["accepted"] = verdict->accepted;
  j["reason"] = verdict->accepted ? nlohmann::ordered_json() : nlohmann::ordered_json(verdict->reason);
  j["proof"] = verdict->proof ? prove::to_json(*verdict->proof) : nlohmann::ordered_json();
  print_json(j);
  if (!verdict->accepted) {
    std::fprintf(stderr, "error: replacement refused: %s\n", verdict->reason.c_str());
    if (!verdict->proof) return kRejected;
    return verdict->proof->verdict == prove::Verdict::Different ? kMismatch : kUnknown;
  }
  if (!args.output.empty()) return write_output(args.output, save_artifact(sc.program()));
  return kOk;
}

int run_replace(const ReplaceArgs& args) {
  if (Status s = check_tolerance({args.atol, args.rtol}); !s) {
    std::fprintf(stderr, "error: %s\n", s.error().message.c_str());
    return kUsage;
  }
  auto original = load_program(args.original);
  if (!original) {
    report(original.error(), args.original.path);
    return kRejected;
  }
  ProgramArgs candidate_args = args.original;  // a .py candidate compiles with the same flags
  candidate_args.path = args.candidate;
  if (args.candidate.size() < 3 || args.candidate.compare(args.candidate.size() - 3, 3, ".py") != 0) {
    candidate_args.inputs.clear();  // an artifact carries its own domains (which the gate compares)
    candidate_args.function.clear();
    candidate_args.dtype.clear();
  }
  auto candidate = load_program(candidate_args);
  if (!candidate) {
    report(candidate.error(), args.candidate);
    return kRejected;
  }

  if (args.prove) return prove_replacement(args, *original, *candidate);

  ReplacementOptions options;
  options.max_cases = args.max_cases;
  options.tolerance = {args.atol, args.rtol};
  std::unique_ptr<Reference> source_reference;
  if (original->source) {
    workbench::SourceReference spec;
    spec.source = *original->source;
    spec.filename = args.original.path;
    spec.function = original->compile_options.function;
    auto made = workbench::python_reference(spec);
    if (!made) {
      report(made.error(), args.original.path);
      return kRejected;
    }
    source_reference = std::move(*made);
    options.original_reference = source_reference.get();
  }
  TerminalProgress progress("replace");
  options.progress = &progress;
  const ProgramSession so(std::move(original->program)), sc(std::move(candidate->program));
  auto verdict = workbench::verified_replacement(so, sc, options);
  progress.finish();
  if (!verdict) {
    report(verdict.error(), args.original.path);
    return kRejected;
  }
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  j["accepted"] = verdict->accepted;
  j["reason"] = verdict->accepted ? nlohmann::ordered_json() : nlohmann::ordered_json(verdict->reason);
  j["report"] = verdict->report ? report_to_json(*verdict->report) : nlohmann::ordered_json();
  print_json(j);
  if (!verdict->accepted) {
    std::fprintf(stderr, "error: replacement refused: %s\n", verdict->reason.c_str());
    return verdict->report ? kMismatch : kRejected;
  }
  if (!args.output.empty()) return write_output(args.output, save_artifact(sc.program()));
  return kOk;
}

CommandRegistration reg{
    "replace",
    "Accept CANDIDATE as a replacement of ORIGINAL only after exhaustive agreement (the verified-replacement gate)",
    [](CLI::App& sub) {
      auto args = std::make_shared<ReplaceArgs>();
      add_program_options(sub, args->original);
      sub.add_option("CANDIDATE", args->candidate,
                     "the replacement: artifact (.json) or Python source (compiled with the same flags)")
          ->required();
      add_output_option(sub, args->output, "write the accepted candidate artifact here (only when accepted)");
      add_count_option(sub, "--max-cases", args->max_cases,
                     "largest number of input combinations to enumerate (default 100000)");
      sub.add_option("--atol", args->atol, "absolute tolerance of the comparison (default 0: exact)")
          ->check(finite_above(0, false));
      sub.add_option("--rtol", args->rtol, "relative tolerance of the comparison (default 0: exact)")
          ->check(finite_above(0, false));
      sub.add_flag("--prove", args->prove,
                   "prove the candidate equal to the original's circuit over the whole domain (Z3 and cvc5, as "
                   "`prove`) instead of enumerating cases: float and large int32 domains are accepted (exit 1 "
                   "different, 4 no proof)");
      sub.add_option("--prove-timeout", args->prove_timeout, "seconds each proof may take for --prove (default 60)")
          ->check(finite_above(0, true));
      return [args] { return run_replace(*args); };
    }};

}  // namespace
}  // namespace tc::cli
