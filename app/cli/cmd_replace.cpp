// `tensorcode replace ORIGINAL CANDIDATE` — the verified-replacement gate:
// CANDIDATE may replace ORIGINAL only when it has no parameters, state or
// calls, the same inputs, domains and outputs, and agrees with ORIGINAL on
// every case of the (enumerable) domains. ORIGINAL.py is judged by its own
// source run by CPython worker processes; an ORIGINAL artifact by the checked
// evaluator. Prints {"accepted", "reason", "report"}; with -o the accepted
// candidate is written (nothing is written when refused).
// Exit 0 accepted, 1 refused because the candidate disagrees, 3 refused for
// a structural reason or when something cannot be loaded or run, 2 usage.
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>

#include "common.h"
#include "options.h"
#include "ir/artifact.h"
#include "verify/python_reference.h"
#include "verify/replacement.h"
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
};

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

  ReplacementOptions options;
  options.max_cases = args.max_cases;
  options.tolerance = {args.atol, args.rtol};
  std::unique_ptr<Reference> source_reference;
  if (original->source) {
    PythonReferenceOptions ro;
    ro.source = *original->source;
    ro.filename = args.original.path;
    ro.function = original->compile_options.function;
    auto made = make_python_reference(ro);
    if (!made) {
      report(made.error(), args.original.path);
      return kRejected;
    }
    source_reference = std::move(*made);
    options.original_reference = source_reference.get();
  }
  TerminalProgress progress("replace");
  options.progress = &progress;
  auto verdict = verified_replacement(original->program, candidate->program, options);
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
  if (!args.output.empty()) return write_output(args.output, save_artifact(candidate->program));
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
      return [args] { return run_replace(*args); };
    }};

}  // namespace
}  // namespace tc::cli
