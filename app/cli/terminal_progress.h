#pragma once
/// A one-line progress display on standard error for command-line runs:
/// silent unless stderr is a terminal and the work has lasted over a second,
/// redrawn at most ten times a second, erased when done.
#include <chrono>
#include <cstdio>
#include <string>

#include "base/progress.h"

namespace tc {

class TerminalProgress final : public Progress {
 public:
  /// `label` starts the line ("verify"). `force` draws even when `out` is
  /// not a terminal, and `quiet_for` is how long a run stays silent (tests
  /// pass zero).
  explicit TerminalProgress(std::string label, std::FILE* out = stderr, bool force = false,
                            std::chrono::milliseconds quiet_for = std::chrono::seconds(1));
  ~TerminalProgress() override;
  TerminalProgress(const TerminalProgress&) = delete;
  TerminalProgress& operator=(const TerminalProgress&) = delete;

  void update(std::uint64_t done, std::uint64_t total, std::string_view what) override;
  /// Erases the line if one was drawn.
  void finish();

 private:
  std::string label_;
  std::FILE* out_;
  bool enabled_;
  bool drawn_ = false;
  std::chrono::milliseconds quiet_for_;
  std::chrono::steady_clock::time_point start_, last_;
};

}  // namespace tc
