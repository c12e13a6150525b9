// `tensorcode optimize PROGRAM [-o OUT.json]`: checked constant folding,
// dead-code elimination and affine packing; the artifact goes to stdout or
// atomically to OUT.json, the node counts to stderr.
#include <cstdio>

#include "common.h"
#include "options.h"
#include "ir/artifact.h"
#include "passes/optimize.h"

namespace tc::cli {
namespace {

struct OptimizeArgs {
  ProgramArgs program;
  std::string out;
  bool no_fold = false;
  bool no_pack = false;
  bool no_sparse = false;
};

int run_optimize(const OptimizeArgs& args) {
  auto loaded = load_program(args.program);
  if (!loaded) {
    report(loaded.error());
    return kRejected;
  }
  report_warnings(loaded->warnings);
  OptimizeOptions options;
  options.fold = !args.no_fold;
  options.pack = !args.no_pack;
  options.pack_options.sparse = !args.no_sparse;
  auto result = optimize(loaded->program, options);
  if (!result) {
    report(result.error(), loaded->source ? args.program.path : std::string());
    return kRejected;
  }
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
                          return [args] { return run_optimize(*args); };
                        }};

}  // namespace
}  // namespace tc::cli
