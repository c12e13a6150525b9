// `tensorcode optimize PROGRAM [-o OUT.json] [--prove]`: checked constant
// folding, dead-code elimination and affine packing; the artifact goes to
// stdout or atomically to OUT.json, the node counts to stderr. With
// --prove the optimized program is proved equivalent to the input over the
// whole domain (prove/prove.h) before anything is written: nothing is
// written unless it is (exit 1 with a counterexample, 4 unknown, 3 when a
// program cannot be encoded).
#include <cstdio>

#include "common.h"
#include "options.h"
#include "ir/artifact.h"
#include "workbench/workbench.h"
#include "prove/prove.h"

namespace tc::cli {
namespace {

struct OptimizeArgs {
  ProgramArgs program;
  std::string out;
  bool no_fold = false;
  bool no_pack = false;
  bool no_sparse = false;
  bool prove = false;
  double prove_timeout = 60;
};

/// The proof that `after` computes what `before` does; an exit status other
/// than kOk when it is not proved (said on stderr, nothing written).
int prove_optimized(const ProgramSession& before, const ProgramSession& after, double timeout_s,
                    const std::string& file) {
  if (Status s = prove::encodable(before.program()); !s) {
    Diagnostic d = s.error();
    d.message = "--prove: " + d.message;
    report(d, file);
    return kRejected;
  }
  prove::ProveOptions options;
  options.timeout_s = timeout_s;
  auto r = workbench::prove(before, &after, options);
  if (!r) {
    report(make_error("--prove: " + r.error().message));
    return kRejected;
  }
  std::string solvers;
  for (const auto& s : r->solvers) solvers += (solvers.empty() ? "" : ", ") + s.solver + ": " + s.answer;
  if (r->verdict == prove::Verdict::Equivalent) {
    std::fprintf(stderr, "optimize: proved equivalent (%s) in %.2f s\n", solvers.c_str(), r->seconds);
    return kOk;
  }
  const std::string detail = prove::to_json(*r).dump();
  if (r->verdict == prove::Verdict::Different) {
    report(make_error("--prove: the optimized program differs from the input (nothing written): " + detail));
    return kMismatch;
  }
  report(make_error("--prove: no proof within the limits (nothing written): " + detail));
  return 4;
}

int run_optimize(const OptimizeArgs& args) {
  auto loaded = load_reported(args.program);
  if (!loaded) return kRejected;
  OptimizeOptions options;
  options.fold = !args.no_fold;
  options.pack = !args.no_pack;
  options.pack_options.sparse = !args.no_sparse;
  const ProgramSession session(std::move(loaded->program));
  auto result = session.optimize(options);
  if (!result) {
    report(result.error(), loaded->source ? args.program.path : std::string());
    return kRejected;
  }
  if (args.prove)
    if (int status = prove_optimized(session, session.derived(result->program), args.prove_timeout,
                                     loaded->source ? args.program.path : std::string());
        status != kOk)
      return status;
  const OptimizeStats& s = result->stats;
  const double percent = s.nodes_before ? 100.0 * (1.0 - double(s.nodes_after) / double(s.nodes_before)) : 0.0;
  // The summary comes after the write and only when it succeeded, so a
  // failing optimize prints exactly one line on stderr: its error.
  const int status = write_output(args.out, save_artifact(result->program));
  if (status == kOk)
    std::fprintf(stderr, "optimize: %zu -> %zu nodes (%.1f%% fewer)\n", s.nodes_before, s.nodes_after, percent);
  return status;
}

CommandRegistration reg{"optimize",
                        "Fold constants (checked), remove dead code and pack multiply-add chains into affine nodes; "
                        "results stay bit-identical",
                        [](CLI::App& sub) {
                          auto args = std::make_shared<OptimizeArgs>();
                          add_program_options(sub, args->program);
                          add_output_option(sub, args->out, "write the optimized artifact here (atomically) instead of stdout");
                          sub.add_flag("--no-fold", args->no_fold, "skip constant folding");
                          sub.add_flag("--no-pack", args->no_pack, "skip affine packing");
                          sub.add_flag("--no-sparse", args->no_sparse, "never emit sparse_affine");
                          sub.add_flag("--prove", args->prove,
                                       "prove the result equivalent to the input over the whole domain (Z3 and "
                                       "cvc5, as `prove`) and write nothing unless it is (exit 1 different, 4 "
                                       "unknown, 3 not encodable)");
                          sub.add_option("--prove-timeout", args->prove_timeout,
                                         "seconds each proof may take for --prove (default 60)")
                              ->check(finite_above(0, true));
                          return [args] { return run_optimize(*args); };
                        }};

}  // namespace
}  // namespace tc::cli
