#pragma once
/// Errors are values: a Diagnostic carries a lowercase message, an optional
/// source location and the node it concerns, so every client (CLI, IDE,
/// tests) can render and locate it the same way.
#include <optional>
#include <string>
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
  [[nodiscard]] std::string format() const;
};

using Diagnostics = std::vector<Diagnostic>;

/// Shorthands for building diagnostics.
Diagnostic make_error(std::string message, std::optional<SourceLoc> loc = std::nullopt,
                      std::optional<NodeId> node = std::nullopt);
Diagnostic make_warning(std::string message, std::optional<SourceLoc> loc = std::nullopt,
                        std::optional<NodeId> node = std::nullopt);

}  // namespace tc
