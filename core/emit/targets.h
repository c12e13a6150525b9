#pragma once
/// Every export target once: its name, whether it is binary, its help line,
/// and one call that writes a program for it. `tensorcode emit --target`,
/// the IDE's Export menu and any later client read this table instead of
/// switching over target names themselves, so a new backend is a row here
/// and its emitter.
#include <span>
#include <string>
#include <string_view>

#include "base/result.h"
#include "ir/program.h"

namespace tc::emit {

enum class TargetId : std::uint8_t { Wgsl, Spirv, Wasm, C, Onnx };

struct TargetSpec {
  TargetId id;
  std::string_view name;  ///< as `--target` spells it
  bool binary;            ///< bytes a terminal should not get (SPIR-V unless as text)
  std::string_view help;  ///< one phrase, in the CLI's words
};

/// Every target, in the order the CLI lists them.
std::span<const TargetSpec> targets();
/// The row of `name`, or nullptr.
const TargetSpec* find_target(std::string_view name);
/// "wgsl, spirv, wasm, c or onnx".
std::string target_names_text();

struct TargetOptions {
  /// spirv: SPIR-V assembly text instead of the binary module. Without
  /// SPIRV-Tools in the build the binary cannot be assembled; a caller that
  /// prefers text to an error then sets `spirv_text_without_tools`.
  bool spirv_text = false;
  bool spirv_text_without_tools = false;
  /// c: the C identifier prefixing the exported functions (empty: from
  /// `c_source_path`'s stem, else "tc_program").
  std::string c_name;
  /// c: where the source goes (FILE.c); its header FILE.h goes beside it and
  /// the source includes it by name. Empty: one source with the
  /// declarations inside (standard output).
  std::string c_source_path;
};

struct Emitted {
  std::string bytes;        ///< the file's content (text, or the binary module)
  std::string header;       ///< c with a source path: the header's content
  std::string header_path;  ///< c with a source path: FILE.h, beside FILE.c
};

/// Where the header of a C source at `source_path` goes (FILE.h for FILE.c
/// or FILE); a path naming a header itself is refused.
Result<std::string> c_header_path(const std::string& source_path);

/// `program` written for `target` (a name of targets()). Errors are the
/// emitter's: a program the backend cannot run, a bad C name, an unknown target.
Result<Emitted> emit_target(const Program& program, std::string_view target, const TargetOptions& options = {});

}  // namespace tc::emit
