// `tensorcode emit PROGRAM --target wgsl|spirv|wasm|c|onnx [-o FILE]` writes
// the program as a float32 compute shader (WGSL or SPIR-V), a WebAssembly
// module, C99 (a source and its header) or an ONNX model. Binary targets are
// refused on a terminal without -o.
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <functional>
#include <vector>
#include <string>

#include "common.h"
#include "options.h"
#include "emit/targets.h"
#include "workbench/export.h"

namespace tc::cli {
namespace {

struct EmitArgs {
  ProgramArgs program;
  std::string target;
  std::string output;
  AssignmentArgs assignments;
  bool spirv_text = false;
  std::string c_name;
};

/// Applies --param NAME=VALUE to the program's parameter values.
Status apply_params(Program& p, const std::vector<std::string>& items) {
  auto values = parse_assignments(items, "--param");
  if (!values) return values.error();
  for (const auto& [name, v] : *values) {
    auto id = p.find_named(Op::Parameter, name);
    if (!id) return make_error("--param " + name + ": the program has no parameter '" + name + "'");
    p.nodes[static_cast<std::size_t>(*id)].value = v;
  }
  return ok_status();
}

int run_emit(const EmitArgs& args) {
  auto loaded = load_reported(args.program);
  if (!loaded) return kRejected;
  Program& p = loaded->program;
  if (Status s = apply_params(p, args.assignments.params); !s) {
    report(s.error());
    return kUsage;
  }
  const emit::TargetSpec* target = emit::find_target(args.target);  // CLI11 checked the name
  const bool to_stdout = args.output.empty() || args.output == "-";
  const bool binary = target->binary && !(target->id == emit::TargetId::Spirv && args.spirv_text);
  if (!args.c_name.empty() && target->id != emit::TargetId::C) {
    report(make_error("--name applies to --target c only"));
    return kUsage;
  }
  if (binary && to_stdout && isatty(STDOUT_FILENO)) {
    report(make_error("refusing to write binary " + args.target + " to a terminal: give -o FILE (or redirect)"));
    return kUsage;
  }
  emit::TargetOptions options;
  options.spirv_text = args.spirv_text;
  options.c_name = args.c_name;
  if (target->id == emit::TargetId::C && !to_stdout) {
    // -o FILE.c: FILE.h beside it; naming the header itself is a usage mistake.
    if (auto header = emit::c_header_path(args.output); !header) {
      report(header.error());
      return kUsage;
    }
    options.c_source_path = args.output;
  }
  const ProgramSession session(std::move(p));
  auto emitted = workbench::emit(session, args.target, options);
  if (!emitted) {
    Diagnostic copy = emitted.error();
    if (!loaded->source) copy.loc.reset();
    report(copy, args.program.path);
    return kRejected;
  }
  if (!emitted->header_path.empty())
    if (int rc = write_output(emitted->header_path, emitted->header); rc != kOk) return rc;
  return write_output(args.output, emitted->bytes);
}

/// "wgsl (text), spirv (...), ..." from the target table.
std::string target_help() {
  std::string out;
  const auto all = emit::targets();
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (i > 0) out += i + 1 == all.size() ? " or " : ", ";
    out += all[i].help;
  }
  return out;
}

std::vector<std::string> target_names() {
  std::vector<std::string> out;
  for (const emit::TargetSpec& t : emit::targets()) out.emplace_back(t.name);
  return out;
}

const CommandRegistration reg{
    "emit",
    "Emit the program as WGSL, SPIR-V or WebAssembly (float32), C99 or an ONNX model (stateless and call-free programs)",
    [](CLI::App& sub) -> std::function<int()> {
      auto args = std::make_shared<EmitArgs>();
      add_program_options(sub, args->program);
      sub.add_option("--target", args->target, target_help())->required()->check(CLI::IsMember(target_names()));
      add_output_option(sub, args->output,
                        "output file, written atomically (default: standard output; binary targets refuse a terminal)");
      add_assignment_options(sub, args->assignments, kParams);
      sub.add_option("--name", args->c_name,
                     "with --target c: the C identifier prefixing the exported functions (default: the -o file's stem)");
      sub.add_flag("--spirv-text", args->spirv_text, "with --target spirv: write SPIR-V assembly text instead of binary");
      return [args] { return run_emit(*args); };
    }};

}  // namespace
}  // namespace tc::cli
