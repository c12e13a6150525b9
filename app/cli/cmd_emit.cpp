// `tensorcode emit PROGRAM --target wgsl|spirv|wasm|c|onnx [-o FILE]` writes
// the program as a float32 compute shader (WGSL or SPIR-V), a WebAssembly
// module, C99 (a source and its header) or an ONNX model. Binary targets are
// refused on a terminal without -o.
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <functional>
#include <string>

#include "common.h"
#include "options.h"
#include "codegen/c_emitter.h"
#include "emit/onnx_emitter.h"
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
  std::string c_name;
};

/// `emit --target c`: with -o FILE.c also FILE.h beside it (the source
/// includes it); on standard output one source with the declarations inside.
int write_c(const EmitArgs& args, const Program& p, const std::function<int(const Diagnostic&)>& fail) {
  const bool to_stdout = args.output.empty() || args.output == "-";
  emit::CExportOptions o;
  o.name = !args.c_name.empty() ? args.c_name : to_stdout ? "tc_program" : emit::c_name_for_file(args.output);
  std::string header_path;
  if (!to_stdout) {
    const auto slash = args.output.find_last_of('/');
    const auto dot = args.output.find_last_of('.');
    const bool has_ext = dot != std::string::npos && (slash == std::string::npos || dot > slash);
    if (has_ext && args.output.substr(dot) == ".h") {
      report(make_error("-o " + args.output + ": give the C source's name (FILE.c); its header FILE.h is written beside it"));
      return kUsage;
    }
    header_path = (has_ext ? args.output.substr(0, dot) : args.output) + ".h";
    o.header_file = header_path.substr(slash == std::string::npos ? 0 : slash + 1);
  }
  auto code = emit::emit_c(p, o);
  if (!code) return fail(code.error());
  if (to_stdout) return write_output(args.output, code->source);
  if (int rc = write_output(header_path, code->header); rc != kOk) return rc;
  return write_output(args.output, code->source);
}

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
  const bool binary = (args.target == "spirv" && !args.spirv_text) || args.target == "wasm" || args.target == "onnx";
  if (!args.c_name.empty() && args.target != "c") {
    report(make_error("--name applies to --target c only"));
    return kUsage;
  }
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
  if (args.target == "c") return write_c(args, p, fail);
  if (args.target == "onnx") {
    auto bytes = emit::emit_onnx(p);
    if (!bytes) return fail(bytes.error());
    out.assign(bytes->begin(), bytes->end());
  } else if (args.target == "wasm") {
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
    "emit",
    "Emit the program as WGSL, SPIR-V or WebAssembly (float32), C99 or an ONNX model (stateless and call-free programs)",
    [](CLI::App& sub) -> std::function<int()> {
      auto args = std::make_shared<EmitArgs>();
      add_program_options(sub, args->program);
      sub.add_option("--target", args->target,
                     "wgsl (text), spirv (binary SPIR-V 1.3), wasm (binary module), c (C99 source; with -o FILE.c "
                     "also FILE.h) or onnx (binary ONNX model, opset 17)")
          ->required()
          ->check(CLI::IsMember({"wgsl", "spirv", "wasm", "c", "onnx"}));
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
