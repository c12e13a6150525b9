// `tensorcode prove A [B]`: a proof over the whole input domain
// (docs/verification.md, "Proofs"). With B: A and B are equivalent (both
// fail, or both succeed with every output within --atol/--rtol) for every
// input in the domain, or a counterexample. Without B: A cannot fail, or an
// input on which it does. Counterexamples are re-run by the evaluator
// before they are printed; "proved" needs Z3's unsat and cvc5's (or names
// the one that answered).
//
// Exit status: 0 equivalent / cannot-fail, 1 different / can-fail, 4 unknown
// (time limit, solver limits or disagreement), 3 refused, 2 usage.
#include <cstdio>
#include <memory>
#include <string>

#include "common.h"
#include "options.h"
#include "prove/prove.h"
#include "workbench/workbench.h"

namespace tc::cli {
namespace {

constexpr int kUnknown = 4;

struct ProveArgs {
  ProgramArgs a;  ///< A's path and the compile flags both sides use
  std::string b_path;
  double timeout = 60;
  double atol = 0;
  double rtol = 0;
  bool json = false;
  std::string cvc5 = "cvc5";
};

bool is_source(const std::string& path) { return path.size() >= 3 && path.compare(path.size() - 3, 3, ".py") == 0; }

/// One side's load, as diff's: compile-only flags meant for the source side
/// are dropped for an artifact beside it.
Result<LoadedProgram> load_side(const ProveArgs& args, const std::string& path, const std::string& other) {
  ProgramArgs side = args.a;
  side.path = path;
  if (!other.empty() && !is_source(path) && is_source(other)) {
    side.inputs.clear();
    side.function.clear();
    side.dtype.clear();
  }
  return load_program(side);
}

void print_text(const prove::ProveResult& r, const ProveArgs& args) {
  std::string solvers;
  for (const auto& s : r.solvers) solvers += (solvers.empty() ? "" : ", ") + s.solver + ": " + s.answer;
  std::printf("%s (%s) in %.2f s\n", prove::to_string(r.verdict), solvers.c_str(), r.seconds);
  if (!r.reason.empty()) std::printf("  %s\n", r.reason.c_str());
  if (!r.counterexample) return;
  const auto j = prove::to_json(r);
  const auto& cex = j["counterexample"];
  std::printf("  reproduce: tensorcode run %s %s\n", args.a.path.c_str(), cex["set"].get<std::string>().c_str());
  if (r.verdict == prove::Verdict::CanFail) {
    std::printf("  error: %s\n", r.counterexample->message.c_str());
    return;
  }
  std::printf("  a: %s\n  b: %s\n", cex["a"].dump().c_str(), cex["b"].dump().c_str());
}

int run_prove(const ProveArgs& args) {
  auto a = load_side(args, args.a.path, args.b_path);
  if (!a) {
    report(a.error(), is_source(args.a.path) ? args.a.path : std::string());
    return kRejected;
  }
  report_warnings(a->warnings);
  std::optional<LoadedProgram> b;
  if (!args.b_path.empty()) {
    auto loaded = load_side(args, args.b_path, args.a.path);
    if (!loaded) {
      report(loaded.error(), is_source(args.b_path) ? args.b_path : std::string());
      return kRejected;
    }
    report_warnings(loaded->warnings);
    b = std::move(*loaded);
  }
  // Each program on its own first, so a refusal names its file.
  for (const auto& [loaded, path] : {std::pair{&*a, args.a.path}, std::pair{b ? &*b : nullptr, args.b_path}}) {
    if (!loaded) continue;
    if (Status s = prove::encodable(loaded->program); !s) {
      report(s.error(), is_source(path) ? path : std::string());
      return kRejected;
    }
  }
  prove::ProveOptions options;
  options.timeout_s = args.timeout;
  options.tolerance = {args.atol, args.rtol};
  options.cvc5 = args.cvc5;
  const ProgramSession sa(std::move(a->program));
  std::optional<ProgramSession> sb;
  if (b) sb.emplace(std::move(b->program));
  auto r = workbench::prove(sa, sb ? &*sb : nullptr, options);
  if (!r) {
    report(r.error());
    return kRejected;
  }
  if (args.json) print_json(prove::to_json(*r));
  else print_text(*r, args);
  switch (r->verdict) {
    case prove::Verdict::Equivalent: case prove::Verdict::CannotFail: return kOk;
    case prove::Verdict::Different: case prove::Verdict::CanFail: return kMismatch;
    case prove::Verdict::Unknown: return kUnknown;
  }
  return kUnknown;
}

CommandRegistration reg{
    "prove",
    "Prove over the whole input domain that A and B agree (or, without B, that A cannot fail), or print an "
    "input where they do not (exit 0 proved, 1 disproved, 4 unknown)",
    [](CLI::App& sub) {
      auto args = std::make_shared<ProveArgs>();
      sub.add_option("A", args->a.path, "the program: artifact (.json) or Python source (.py)")->required();
      sub.add_option("B", args->b_path,
                     "the program A must agree with; without it, prove that A cannot fail on any input");
      add_program_options(sub, args->a, /*with_positional=*/false);
      sub.add_option("--timeout", args->timeout, "seconds the proof may take before the verdict is unknown; cvc5 and z3 run side by side (default 60)")
          ->check(finite_above(0, true));
      sub.add_option("--atol", args->atol, "absolute tolerance: |a-b| <= atol + rtol*|b| (default 0)")
          ->check(finite_above(0, false));
      sub.add_option("--rtol", args->rtol, "relative tolerance, relative to B's value (default 0)")
          ->check(finite_above(0, false));
      sub.add_option("--cvc5", args->cvc5,
                     "the second solver's command (default cvc5 on PATH; an empty value asks Z3 alone)");
      sub.add_flag("--json", args->json, "print the result as one JSON object");
      return [args] { return run_prove(*args); };
    }};

}  // namespace
}  // namespace tc::cli
