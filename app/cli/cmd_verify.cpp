// `tensorcode verify PROGRAM` (contract section 5): runs every case on the
// circuit and on an independent reference (by default the Python source
// itself, run by CPython in worker processes) and prints the report.
// Exit 0 when every case agrees, 1 on a mismatch, 2 on a usage error, 3 when
// the program or the reference cannot be loaded or run.
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>

#include "base/atomic_file.h"
#include "common.h"
#include "options.h"
#include "scale_out.h"
#include "terminal_progress.h"
#include "verify/verify.h"
#include "workbench/workbench.h"

namespace tc::cli {
namespace {

struct VerifyArgs {
  ProgramArgs program;
  std::string reference;
  std::string reference_function;
  std::string cases;
  std::size_t max_cases = 100000;
  std::size_t samples = 10000;
  std::uint64_t seed = kDefaultVerifySeed;
  double atol = 0.0;
  double rtol = 0.0;
  double reference_timeout = 10.0;
  std::uint64_t reference_memory_mib = 4096;
  unsigned threads = 0;  ///< 0: every core (circuit threads and reference processes)
};

/// Supplied cases are parsed whole (every rank plans all of them): a file or
/// a stream is read up to 256 MiB, several million cases, and no further.
constexpr std::size_t kMaxVerifyCasesBytes = std::size_t(256) << 20;

int run_verify(const VerifyArgs& args) {
  if (Status s = check_tolerance({args.atol, args.rtol}); !s) {
    std::fprintf(stderr, "error: %s\n", s.error().message.c_str());
    return kUsage;
  }
  if (args.samples == 0) {
    std::fprintf(stderr, "error: --samples must be at least 1\n");
    return kUsage;
  }
  if (!std::isfinite(args.reference_timeout) || args.reference_timeout <= 0) {
    std::fprintf(stderr, "error: --reference-timeout must be a positive number of seconds\n");
    return kUsage;
  }
  if (!args.reference_function.empty() && args.reference.empty()) {
    std::fprintf(stderr, "error: --reference-function needs --reference (use --function to pick the program's function)\n");
    return kUsage;
  }
  auto loaded = load_reported(args.program);
  if (!loaded) return kRejected;
  if (args.reference.empty() && !loaded->source) {
    std::fprintf(stderr,
                 "error: %s is an artifact and has no source to verify against: give --reference REF.py\n",
                 args.program.path.c_str());
    return kUsage;
  }

  workbench::SourceReference spec;
  spec.max_seconds_per_case = args.reference_timeout;
  spec.max_memory_bytes = args.reference_memory_mib << 20;
  if (const std::uint64_t got = reference_memory_limit(spec.max_memory_bytes); got < spec.max_memory_bytes)
    std::fprintf(stderr,
                 "warning: the reference workers get %llu MiB, the address-space limit this process inherited "
                 "(ulimit -v), not --reference-memory %llu\n",
                 static_cast<unsigned long long>(got >> 20), static_cast<unsigned long long>(args.reference_memory_mib));
  if (loaded->source) spec.source = *loaded->source;
  spec.filename = args.program.path;
  spec.function = loaded->compile_options.function;
  spec.reference_path = args.reference;
  spec.reference_function = args.reference_function;
  auto reference = workbench::python_reference(spec);
  if (!reference) {
    report(reference.error());
    return kRejected;
  }
  const ProgramSession session(std::move(loaded->program));

  VerifyOptions vo;
  vo.max_cases = args.max_cases;
  vo.samples = args.samples;
  vo.seed = args.seed;
  vo.threads = scale::threads(args.threads);  // under mpirun: this machine's share
  vo.tolerance = {args.atol, args.rtol};
  if (!args.cases.empty()) {
    auto text = read_file(args.cases, kMaxVerifyCasesBytes);
    if (!text) {
      report(text.error());
      return kRejected;
    }
    auto cases = parse_cases_jsonl(*text, program_inputs(session.program()), args.cases);
    if (!cases) {
      report(cases.error());
      return kRejected;
    }
    vo.cases = std::move(*cases);
  }
  TerminalProgress progress("verify");
  vo.progress = &progress;
  // Under mpirun the ranks split the cases and rank 0 gets the whole report.
  auto result = scale::verify(session, **reference, vo);
  progress.finish();
  if (!result) {
    // Under mpirun a remote failure was printed by rank 0.
    if (!scale::is_remote_failure(result.error()))
      report(result.error(), spec.reference_path.empty() ? spec.filename : spec.reference_path);
    return kRejected;
  }
  print_json(report_to_json(*result));
  if (!result->passed) {
    std::fprintf(stderr, "verify: %zu of %zu cases disagree with %s\n", result->mismatch_count, result->cases,
                 (*reference)->describe().c_str());
    return kMismatch;
  }
  return kOk;
}

CommandRegistration reg{
    "verify",
    "Check a program against an independent reference on every case (exhaustive for small int32/bool domains)",
    [](CLI::App& sub) {
      auto args = std::make_shared<VerifyArgs>();
      add_program_options(sub, args->program);
      sub.add_option("--reference", args->reference,
                     "Python file whose function is the reference (default: the program's own source; required "
                     "for an artifact)");
      sub.add_option("--reference-function", args->reference_function,
                     "function of --reference to call (default: its only function, or the one named like the "
                     "program's)");
      sub.add_option("--cases", args->cases,
                     "JSON Lines file of cases ({\"a\": 5} per line), used when the domains cannot be enumerated");
      add_count_option(sub, "--max-cases", args->max_cases,
                     "enumerate int32/bool domains exhaustively up to this many cases (default 100000)");
      add_count_option(sub, "--samples", args->samples,
                     "cases drawn when an input is floating or too wide and no --cases is given (default 10000; "
                     "domain ends and zero always included)")
          ->check(count_range(1, kMaxSamples));
      add_count_option(sub, "--seed", args->seed, "seed of the drawn cases (default fixed, so runs repeat)", 0);
      sub.add_option("--atol", args->atol, "absolute tolerance: |a-b| <= atol + rtol*|b| (default 0)")
          ->check(finite_above(0, false));
      sub.add_option("--rtol", args->rtol, "relative tolerance, relative to the reference's value (default 0)")
          ->check(finite_above(0, false));
      sub.add_option("--reference-timeout", args->reference_timeout,
                     "seconds one case of the reference may run before verify stops with an error (default 10)")
          ->check(finite_above(0, true));
      add_count_option(sub, "--reference-memory", args->reference_memory_mib,
                       "MiB of address space each reference process may use; more ends verify with an error "
                       "(default 4096)",
                       16)
          ->check(count_range(16, std::uint64_t(1) << 40));
      // One --threads for both sides: circuit threads and reference processes.
      add_threads_option(sub, args->threads);
      return [args] { return run_verify(*args); };
    }};

}  // namespace
}  // namespace tc::cli
