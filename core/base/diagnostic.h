#pragma once
/// Errors are values: a Diagnostic carries a lowercase message, an optional
/// source location and the node it concerns, so every client (CLI, IDE,
/// tests) can render and locate it the same way.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/source.h"

namespace tc {

enum class Severity { Error, Warning, Note };

struct Diagnostic {
  Severity severity = Severity::Error;
  std::string message;           ///< lowercase, specific, no trailing period
  std::optional<SourceLoc> loc;  ///< where in the authored source, if known
  std::optional<NodeId> node;    ///< which IR node, if any
  std::string file;              ///< file name for rendering, may be empty

  /// "FILE:LINE:COL: error: MESSAGE" when a location exists, else "error: MESSAGE".
  /// Always one line: control characters in the file name or message are
  /// escaped and an overlong message is cut (see kMaxMessageBytes).
  [[nodiscard]] std::string format() const;
};

using Diagnostics = std::vector<Diagnostic>;

/// The longest message format() prints before cutting it ("... (N bytes)").
inline constexpr std::size_t kMaxMessageBytes = 4096;
/// The longest piece of user text (a name, a key, a token) quote_user keeps.
inline constexpr std::size_t kMaxQuotedBytes = 120;

/// User text made safe to repeat inside a message: control characters,
/// backslashes and quotes escaped (\n, \x01, \', \\), bytes that are not
/// valid UTF-8 as \xNN, and anything past kMaxQuotedBytes replaced by
/// "...". The result contains no newline, so a message stays one line.
std::string quote_user(std::string_view text);

/// Shorthands for building diagnostics.
Diagnostic make_error(std::string message, std::optional<SourceLoc> loc = std::nullopt,
                      std::optional<NodeId> node = std::nullopt);
Diagnostic make_warning(std::string message, std::optional<SourceLoc> loc = std::nullopt,
                        std::optional<NodeId> node = std::nullopt);

}  // namespace tc
