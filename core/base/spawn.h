#pragma once
/// Starts a program in a new process without fork(): the one way this
/// project starts a child (base/child_process.h's helpers, cvc5 and the C
/// compiler; verify/worker_process.h's Python reference).
///
/// Why not fork(): fork() runs every pthread_atfork handler in the calling
/// thread, and libz3 registers one that stops and frees Z3's timer threads.
/// When cvc5 was started from a second thread while Z3 solved with a time
/// limit in the first, that handler waited for the busy timer (cvc5 did not
/// start until Z3 ended) and then freed the timer list unlocked while Z3's
/// own threads used it: a crash in `prove` under load (CI, issue 39). vfork()
/// runs no handlers, copies nothing, and the parent thread waits only until
/// the child has called exec.
///
/// Everything the child does is decided here, in the parent; between the
/// spawn and exec the child only makes system calls. Signals stay blocked
/// until the child has put every caught signal back to its default, so no
/// handler of the parent ever runs in the child (it shares the parent's
/// memory until exec).
#include <string>
#include <sys/resource.h>
#include <sys/types.h>
#include <utility>
#include <vector>

namespace tc {

struct SpawnSpec {
  std::string program;                      ///< a path (not looked up on PATH)
  std::vector<std::string> argv;            ///< argv[0] included
  bool empty_environment = false;           ///< true: no variables; false: this process's
  std::vector<std::pair<int, int>> dup_to;  ///< (from, to): dup2 in this order; `from` < 0 is skipped
  int close_from = -1;                      ///< >= 0: every descriptor from this one up is closed
  std::vector<std::pair<int, struct rlimit>> limits;  ///< setrlimit(resource, value)
  bool new_group = false;                   ///< the child leads a new process group
  bool die_with_parent = true;              ///< PR_SET_PDEATHSIG, SIGKILL
};

struct Spawned {
  pid_t pid = -1;       ///< > 0: started (the program is running)
  int error = 0;        ///< errno of the step that failed
  const char* step = "";  ///< "vfork", "dup2", "setrlimit", "exec", ...
  [[nodiscard]] bool ok() const { return pid > 0; }
  /// "exec: No such file or directory"
  [[nodiscard]] std::string describe() const;
};

/// Starts spec.program. On failure nothing is left running and the child
/// (if there was one) has been reaped.
Spawned spawn_process(const SpawnSpec& spec);

}  // namespace tc
