#pragma once
/// Errors are values: a Diagnostic carries a lowercase message, an optional
/// source location and the node it concerns, so every client (CLI, IDE,
/// tests) can render and locate it the same way; a stable code and a related
/// node let clients act on a kind of error without reading its words.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/source.h"

namespace tc {

enum class Severity { Error, Warning, Note };

/// What kind of problem a diagnostic reports, for clients that react to a
/// kind (mark a node, offer a setting) instead of matching message text.
/// Codes are stable: new ones are appended, none is renumbered; Generic is
/// every diagnostic nobody needed to tell apart yet.
enum class DiagCode : std::uint16_t {
  Generic = 0,
  HybridNeedsUnchosen,  ///< a hybrid jump term needs the unchosen value; node: the failing value, related: the select
  UnknownInput,         ///< an input name the program does not have (a case, an event)
  NodeBudget,           ///< the circuit would exceed the node budget (max-nodes)
  IterationBudget,      ///< loop expansion would exceed the iteration budget (max-iterations)
  RemoteFailure,        ///< stopped because another process (MPI rank) failed
  Cancelled,            ///< the user or a caller cancelled the work
};
/// The code's stable spelling ("hybrid-needs-unchosen"), e.g. for JSON clients.
const char* to_string(DiagCode code);

struct Diagnostic {
  Severity severity = Severity::Error;
  std::string message;           ///< lowercase, specific, no trailing period
  std::optional<SourceLoc> loc;  ///< where in the authored source, if known
  std::optional<NodeId> node;    ///< which IR node, if any
  std::string file;              ///< file name for rendering, may be empty
  DiagCode code = DiagCode::Generic;  ///< the kind of problem, stable across wording changes
  std::optional<NodeId> related;      ///< a second node the problem concerns (see DiagCode), if any

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
/// `d` with its code (and related node) set, for `return with_code(make_error(...), DiagCode::X);`.
Diagnostic with_code(Diagnostic d, DiagCode code, std::optional<NodeId> related = std::nullopt);
Diagnostic make_warning(std::string message, std::optional<SourceLoc> loc = std::nullopt,
                        std::optional<NodeId> node = std::nullopt);

}  // namespace tc
