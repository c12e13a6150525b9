// `tensorcode compile SRC.py --input NAME=DOMAIN ...`: Python source to an
// artifact (contract section 6).
#include <cstdio>

#include "base/atomic_file.h"
#include "common.h"
#include "options.h"
#include "ir/artifact.h"

namespace tc::cli {

namespace {

struct CompileArgs {
  ProgramArgs program;
  std::string out;
};

int run_compile(const CompileArgs& a) {
  auto text = read_file(a.program.path, kMaxSourceBytes);  // a stream is read up to the limit, no further
  if (!text) {
    report(text.error());
    return kRejected;
  }
  auto flags = compile_request_from(a.program);
  if (!flags) {
    report(flags.error());
    return kUsage;
  }
  // The file's compile directive (dtype and budgets saved by the IDE) under the flags.
  auto opts = flags->for_source(*text);
  if (!opts) {
    report(opts.error(), a.program.path);
    return kRejected;
  }
  auto compiled = compile_python(*text, *opts);
  if (!compiled) {
    report(compiled.error(), a.program.path);
    return kRejected;
  }
  report_warnings(compiled->warnings, a.program.path);
  return write_output(a.out, save_artifact(compiled->program));
}

const CommandRegistration reg{
    "compile", "Compile a Python function to an artifact (JSON)", [](CLI::App& sub) -> std::function<int()> {
      auto args = std::make_shared<CompileArgs>();
      sub.add_option("SRC", args->program.path, "Python source file (.py)")->required();
      add_program_options(sub, args->program, /*with_positional=*/false);
      add_output_option(sub, args->out, "write the artifact to this file (atomically) instead of stdout");
      sub.footer("Every function parameter needs a domain: int32[:MIN:MAX], bool, float64[:MIN:MAX] or "
                 "float32[:MIN:MAX], from --input or from a '# tensorcode: input NAME=DOMAIN' line of the file "
                 "(--input wins). A '# tensorcode: compile dtype=float32 max-iterations=N max-nodes=N' line (the IDE's "
                 "Compile Options) sets those three the same way: --dtype, --max-iterations and --max-nodes win.\nErrors are reported as FILE:LINE:COL: error: MESSAGE with exit status 3, and "
                 "nothing is written.");
      return [args] { return run_compile(*args); };
    }};

}  // namespace

}  // namespace tc::cli
