#pragma once
/// Artifact version 1 (contract section 2): JSON load and save.
///
/// Loading never crashes or recurses on hostile input: size and nesting are
/// bounded, every field is type-checked, and the program is validated. Saving
/// a loaded valid artifact reproduces the same JSON, with doubles printed so
/// they read back bit-identical.
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "ir/program.h"

namespace tc {

/// The largest artifact or JSON text read (CLI file reads use it as their
/// limit, so an oversized file is refused before it is read).
inline constexpr std::size_t kMaxJsonTextBytes = std::size_t(512) << 20;  // 512 MiB

/// Parses and validates artifact text.
Result<Program> load_artifact(std::string_view text);
/// Converts an already-parsed JSON value (for snapshots that embed a program).
Result<Program> program_from_json(const nlohmann::ordered_json& json);
/// The artifact as JSON, fields in canonical order.
nlohmann::ordered_json program_to_json(const Program& program);
/// The artifact as text (indented, newline-terminated).
std::string save_artifact(const Program& program);

/// Parses any JSON text with the loader's limits (size, nesting depth) and
/// no exceptions; used for cases, events and snapshots too.
Result<nlohmann::ordered_json> parse_json_limited(std::string_view text, int max_depth = 64);

}  // namespace tc
