#pragma once
/// A child process that runs code tensorcode cannot trust to stop (the
/// user's Python reference), with the limits enforced by the kernel rather
/// than by the code itself:
///  - an address-space limit (RLIMIT_AS) and no core dumps, set between the
///    spawn and exec (base/spawn.h), so nothing the child runs can lift them;
///  - a wall-clock watchdog on the parent's side: the child bumps a shared
///    counter before every case, and a case that keeps the counter still for
///    longer than its budget gets the child SIGKILLed;
///  - a cap on the bytes of every reply, and on the stderr kept;
///  - the child dies with its parent (PR_SET_PDEATHSIG; Linux ties this to
///    the thread that started it, so a worker must be started on a thread
///    that outlives its use, as verify() and the IDE's worker thread do).
/// Requests and replies are frames (one kind byte, a little-endian u64
/// length, the payload) over a socket pair; the parent never gets SIGPIPE.
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/progress.h"
#include "base/result.h"

namespace tc {

struct WorkerLimits {
  double seconds_per_case = 10.0;                        ///< counter standing still this long: killed
  double startup_seconds = 60.0;                         ///< until the first reply (the interpreter's start)
  std::uint64_t memory_bytes = std::uint64_t(4) << 30;   ///< RLIMIT_AS of the child
  std::size_t max_reply_bytes = std::size_t(64) << 20;   ///< a longer reply frame is an error
};

/// The hard RLIMIT_AS this process runs under (UINT64_MAX: none). A child
/// can lower its limits but not raise them past this.
std::uint64_t inherited_memory_limit();

/// One reply frame.
struct WorkerReply {
  char kind = 0;
  std::string payload;
};

/// Why waiting for a reply failed.
struct WorkerFailure {
  enum class Kind { TimedOut, Died, Cancelled, TooLarge, Protocol } kind = Kind::Died;
  std::size_t worker = 0;        ///< index in the waited-for set
  long case_index = -1;          ///< the case it was running (-1: none, e.g. loading)
  std::string detail;            ///< "killed by signal 11 (segmentation fault)", ...
};

class WorkerProcess {
 public:
  /// Starts `argv` (argv[0] an absolute path) with an empty environment,
  /// stdin and stdout on /dev/null, stderr captured, the socket on fds 3 and
  /// 4 and the counter on fd 5. The child's first frame says it is ready;
  /// until it arrives, startup_seconds applies instead of seconds_per_case.
  static Result<std::unique_ptr<WorkerProcess>> start(const std::vector<std::string>& argv,
                                                      const WorkerLimits& limits);
  ~WorkerProcess();  ///< kills and reaps the child
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  /// Queues a request; it is written while waiting (the socket never blocks us).
  /// `cases` is the number of cases the request runs (for the watchdog's case index).
  void send(char kind, std::string_view payload, std::size_t cases = 0);

  /// Waits until every worker in `set` has one reply (`replies`, in order)
  /// and returns true, or until one of them fails: then every worker in `set`
  /// is killed, `failure` says why and the result is false.
  static bool await(const std::vector<WorkerProcess*>& set, Progress* progress, std::vector<WorkerReply>& replies,
                    WorkerFailure& failure);

  [[nodiscard]] bool alive() const { return pid_ > 0; }
  /// Kills the child (SIGKILL) and reaps it; returns how it ended.
  std::string kill();
  /// The first line the child wrote to stderr, if any (for messages).
  [[nodiscard]] std::string stderr_line() const;

 private:
  WorkerProcess() = default;
  bool pump_write();
  /// Reads what is available; false on end of stream.
  bool pump_read();
  void drain_stderr();
  std::optional<WorkerReply> take_reply();
  std::uint64_t counter() const;
  std::string reap(bool force);

  WorkerLimits limits_;
  int pid_ = -1;
  int sock_ = -1;
  int err_ = -1;
  void* counter_map_ = nullptr;
  std::string out_;           ///< queued request bytes
  std::string in_;            ///< received reply bytes
  std::string stderr_;        ///< the first bytes of the child's stderr
  std::uint64_t cases_done_ = 0;   ///< counter value when the pending request started
  std::uint64_t cases_pending_ = 0;
  std::uint64_t last_counter_ = 0;
  std::chrono::steady_clock::time_point last_change_;
  bool starting_ = true;      ///< no reply yet: the start-up budget applies
};

}  // namespace tc
