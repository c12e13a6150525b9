// `tensorcode emit PROGRAM --target wgsl|spirv|wasm [-o FILE]` writes the
// program as a float32 compute shader (WGSL or SPIR-V) or a WebAssembly
// module. Binary targets are refused on a terminal without -o.
#include <unistd.h>

#include <cstdio>
#include <string>

#include "common.h"
#include "options.h"
#include "emit/spirv.h"
#include "emit/wasm_emitter.h"
#include "emit/wgsl_emitter.h"

namespace tc::cli {
namespace {

struct EmitArgs {
  ProgramArgs program;
  std::string target;
  std::string output;
  AssignmentArgs assignments;
  bool spirv_text = false;
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
  auto loaded = load_program(args.program);
  if (!loaded) {
    report(loaded.error(), args.program.path);
    return kRejected;
  }
  report_warnings(loaded->warnings, args.program.path);
  Program& p = loaded->program;
  if (Status s = apply_params(p, args.assignments.params); !s) {
    report(s.error());
    return kUsage;
  }
  const bool binary = (args.target == "spirv" && !args.spirv_text) || args.target == "wasm";
  if (binary && (args.output.empty() || args.output == "-") && isatty(STDOUT_FILENO)) {
    report(make_error("refusing to write binary " + args.target + " to a terminal: give -o FILE (or redirect)"));
    return kUsage;
  }
  std::string out;
  auto fail = [&](const Diagnostic& d) {
    Diagnostic copy = d;
    if (!loaded->source) copy.loc.reset();
    report(copy, args.program.path);
    return kRejected;
  };
  if (args.target == "wasm") {
    auto bytes = emit::emit_wasm(p);
    if (!bytes) return fail(bytes.error());
    out.assign(bytes->begin(), bytes->end());
  } else {
    auto wgsl = emit::emit_wgsl(p);
    if (!wgsl) return fail(wgsl.error());
    if (args.target == "wgsl") {
      out = std::move(*wgsl);
    } else if (args.spirv_text) {
      auto text = emit::wgsl_to_spirv_asm(*wgsl, "<generated wgsl>");
      if (!text) return fail(text.error());
      out = std::move(*text);
    } else {
      auto words = emit::wgsl_to_spirv(*wgsl, "<generated wgsl>");
      if (!words) return fail(words.error());
      out.assign(reinterpret_cast<const char*>(words->data()), words->size() * sizeof(std::uint32_t));
    }
  }
  return write_output(args.output, out);
}

const CommandRegistration reg{
    "emit", "Emit the program as WGSL, SPIR-V or WebAssembly (float32, stateless and call-free programs)",
    [](CLI::App& sub) -> std::function<int()> {
      auto args = std::make_shared<EmitArgs>();
      add_program_options(sub, args->program);
      sub.add_option("--target", args->target, "wgsl (text), spirv (binary SPIR-V 1.3) or wasm (binary module)")
          ->required()
          ->check(CLI::IsMember({"wgsl", "spirv", "wasm"}));
      add_output_option(sub, args->output,
                        "output file, written atomically (default: standard output; binary targets refuse a terminal)");
      add_assignment_options(sub, args->assignments, kParams);
      sub.add_flag("--spirv-text", args->spirv_text, "with --target spirv: write SPIR-V assembly text instead of binary");
      return [args] { return run_emit(*args); };
    }};

}  // namespace
}  // namespace tc::cli
