#pragma once
/// Source positions shared by diagnostics, IR nodes and the frontend.
#include <compare>
#include <cstdint>

namespace tc {

/// A 1-based line and column in the authored source. line == 0 means unknown.
struct SourceLoc {
  int line = 0;
  int column = 0;
  [[nodiscard]] bool valid() const { return line > 0; }
  auto operator<=>(const SourceLoc&) const = default;
};

/// Node ids are indices into Program::nodes.
using NodeId = std::int32_t;

}  // namespace tc
