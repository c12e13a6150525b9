#pragma once
/// Long-running engine work (verify, fit, replay, layout) reports progress and
/// checks for cancellation through this interface; the CLI draws a terminal
/// bar, the IDE a progress bar with a cancel button.
#include <cstdint>
#include <string_view>

namespace tc {

class Progress {
 public:
  virtual ~Progress() = default;
  /// `done` out of `total` units of `what`. Called often; implementations throttle.
  virtual void update(std::uint64_t done, std::uint64_t total, std::string_view what) = 0;
  /// Polled between units of work; when true the engine stops with an error "cancelled".
  [[nodiscard]] virtual bool cancelled() const { return false; }
};

}  // namespace tc
