// The rows of targets.h and the one switch from a target to its emitter.
#include "emit/targets.h"

#include <array>
#include <cstdint>

#include "codegen/c_emitter.h"
#include "emit/onnx_emitter.h"
#include "emit/spirv.h"
#include "emit/wasm_emitter.h"
#include "emit/wgsl_emitter.h"

namespace tc::emit {

// The plans this emitter reads (which nodes are live, what each checks) are codegen's.
using namespace codegen;

namespace {

constexpr std::array<TargetSpec, 5> kTargets{{
    {TargetId::Wgsl, "wgsl", false, "wgsl (text)"},
    {TargetId::Spirv, "spirv", true, "spirv (binary SPIR-V 1.3)"},
    {TargetId::Wasm, "wasm", true, "wasm (binary module)"},
    {TargetId::C, "c", false, "c (C99 source; with -o FILE.c also FILE.h)"},
    {TargetId::Onnx, "onnx", true, "onnx (binary ONNX model, opset 17)"},
}};

std::string as_text(const std::vector<std::uint8_t>& bytes) { return std::string(bytes.begin(), bytes.end()); }

Result<Emitted> emit_c_files(const Program& program, const TargetOptions& options) {
  CExportOptions o;
  Emitted out;
  if (!options.c_source_path.empty()) {
    auto header = c_header_path(options.c_source_path);
    if (!header) return header.error();
    out.header_path = std::move(*header);
    const auto slash = out.header_path.find_last_of('/');
    o.header_file = out.header_path.substr(slash == std::string::npos ? 0 : slash + 1);
  }
  o.name = !options.c_name.empty()         ? options.c_name
           : options.c_source_path.empty() ? std::string("tc_program")
                                           : c_name_for_file(options.c_source_path);
  auto code = emit_c(program, o);
  if (!code) return code.error();
  out.bytes = std::move(code->source);
  if (!options.c_source_path.empty()) out.header = std::move(code->header);
  return out;
}

Result<Emitted> emit_spirv(const Program& program, const TargetOptions& options) {
  auto wgsl = emit_wgsl(program);
  if (!wgsl) return wgsl.error();
  Emitted out;
  if (options.spirv_text || (options.spirv_text_without_tools && !have_spirv_tools())) {
    auto text = wgsl_to_spirv_asm(*wgsl, "<generated wgsl>");
    if (!text) return text.error();
    out.bytes = std::move(*text);
    return out;
  }
  auto words = wgsl_to_spirv(*wgsl, "<generated wgsl>");
  if (!words) return words.error();
  out.bytes.assign(reinterpret_cast<const char*>(words->data()), words->size() * sizeof(std::uint32_t));
  return out;
}

}  // namespace

std::span<const TargetSpec> targets() { return kTargets; }

const TargetSpec* find_target(std::string_view name) {
  for (const TargetSpec& t : kTargets)
    if (t.name == name) return &t;
  return nullptr;
}

std::string target_names_text() {
  std::string out;
  for (std::size_t i = 0; i < kTargets.size(); ++i) {
    if (i > 0) out += i + 1 == kTargets.size() ? " or " : ", ";
    out += kTargets[i].name;
  }
  return out;
}

Result<std::string> c_header_path(const std::string& source_path) {
  const auto slash = source_path.find_last_of('/');
  const auto dot = source_path.find_last_of('.');
  const bool has_ext = dot != std::string::npos && (slash == std::string::npos || dot > slash);
  if (has_ext && source_path.substr(dot) == ".h")
    return make_error(source_path + ": give the C source's name (FILE.c); its header FILE.h is written beside it");
  return (has_ext ? source_path.substr(0, dot) : source_path) + ".h";
}

Result<Emitted> emit_target(const Program& program, std::string_view target, const TargetOptions& options) {
  const TargetSpec* spec = find_target(target);
  if (!spec) return make_error("unknown target '" + std::string(target) + "': expected " + target_names_text());
  if (spec->id != TargetId::C && !options.c_name.empty())
    return make_error("a C name applies to the c target only");
  switch (spec->id) {
    case TargetId::Wgsl: {
      auto w = emit_wgsl(program);
      if (!w) return w.error();
      return Emitted{std::move(*w), {}, {}};
    }
    case TargetId::Spirv: return emit_spirv(program, options);
    case TargetId::Wasm: {
      auto w = emit_wasm(program);
      if (!w) return w.error();
      return Emitted{as_text(*w), {}, {}};
    }
    case TargetId::C: return emit_c_files(program, options);
    case TargetId::Onnx: {
      auto m = emit_onnx(program);
      if (!m) return m.error();
      return Emitted{as_text(*m), {}, {}};
    }
  }
  return make_error("unknown target '" + std::string(target) + "'");
}

}  // namespace tc::emit
