#pragma once
/// Runs a short-lived helper program (the C compiler of the compiled plan)
/// to completion and collects what it printed, with the bounds a caller that
/// cannot trust the helper to stop needs:
///  - a wall-clock limit and a cancel flag: either kills the helper's whole
///    process group (a compiler driver's cc1, as and ld too);
///  - the helper dies with the thread that started it (PR_SET_PDEATHSIG), so a
///    killed caller leaves no compiler running on;
///  - stdout and stderr go through a pipe (nothing written to disk), at most
///    `max_output` bytes kept; stdin is /dev/null.
/// verify/worker_process.h is the long-lived, framed counterpart for the
/// Python reference; this one is for a command that runs once and exits.
#include <atomic>
#include <cstddef>
#include <string>
#include <vector>

namespace tc {

struct ChildLimits {
  double timeout_s = 0;                       ///< 0: no limit
  const std::atomic<bool>* cancel = nullptr;  ///< set: the child is killed (checked every 50 ms)
  std::size_t max_output = 64 * 1024;
};

struct ChildResult {
  enum class End : unsigned char { Exited, Signalled, TimedOut, Cancelled, NotStarted };
  End end = End::NotStarted;
  int code = -1;       ///< the exit status, or the signal
  std::string output;  ///< stdout and stderr together, or why it did not start
  [[nodiscard]] bool ok() const { return end == End::Exited && code == 0; }
  /// "exit 3", "killed by signal 9", "timed out after 2.5 s", ...
  [[nodiscard]] std::string describe(double timeout_s = 0) const;
};

/// Runs argv (argv[0] found on PATH unless it holds a '/') with the
/// process's environment and waits for it within `limits`.
ChildResult run_child(const std::vector<std::string>& argv, const ChildLimits& limits = {});

}  // namespace tc
