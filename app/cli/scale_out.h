#pragma once
/// Scale-out seam of the CLI. When `tensorcode` was built with TC_ENABLE_MPI
/// and is started by mpirun, `verify`, `run --cases` and `fit` split their
/// work between the processes (ranks) and rank 0 prints what a single
/// process would print; otherwise every function here is exactly the
/// single-process behaviour, so the commands call them unconditionally.
///
/// Rules the MPI side relies on: the commands do the same steps on every
/// rank; everything a rank prints goes to the user only from rank 0 (the
/// others' stdout is discarded and their stderr kept for a failure report);
/// a rank-local failure goes through first_failure(), so every rank stops
/// together and none is left waiting. See docs/scale-out.md.
#include <cstdint>
#include <istream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "base/progress.h"
#include "base/result.h"
#include "grad/fit.h"
#include "session/program_session.h"
#include "verify/verify.h"

namespace tc::cli::scale {

/// Lives for the whole of main: starts MPI when launched by mpirun, ends it
/// with every rank agreeing on the exit status.
class Session {
 public:
  Session(int& argc, char**& argv);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  /// The exit status every rank returns: `rc` in a single process; under
  /// MPI the status of the first failing rank (rank 0 prints its message).
  int finish(int rc);
};

/// True under mpirun (even with one rank).
bool active();
/// This process's rank and the number of ranks (0 and 1 without MPI).
int rank();
int size();
inline bool leader() { return rank() == 0; }

/// The thread count a command passes on for its --threads value: the value
/// itself when given (not 0); under MPI, otherwise, the cores of this
/// machine divided between the ranks running on it, so that ranks sharing a
/// machine do not each start a thread per core; 0 (every core) otherwise.
unsigned threads(unsigned requested);

/// Called by main after an unexpected exception: under MPI the other ranks
/// may be inside a collective, so the job is aborted (MPI_Abort) rather
/// than left waiting.
void abort_after_internal_error();

/// A failure found by one rank. `key` orders failures by input position (a
/// line number, a case index) so that the one reported is the one a single
/// process would have met first.
struct Failure {
  std::uint64_t key = 0;
  int rc = 3;
  std::string message;  ///< the whole stderr line, printed as is
};

/// Collective: every rank passes its own failure or none; every rank gets
/// the first one (smallest key, then lowest rank) or none. A single process
/// gets its own back.
std::optional<Failure> first_failure(std::optional<Failure> local);

/// Collective: the sum over ranks.
std::uint64_t total(std::uint64_t local);

/// Under mpirun with TENSORCODE_SCALE_OUT_LOG set to a folder, appends
/// `{"command": ..., "rank": R, "ranks": N, "cases": C}` to
/// FOLDER/rank-R.jsonl: the cases this rank handled itself, so a job's
/// balance can be checked (docs/scale-out.md; the MPI tests use it to see
/// that every rank did its share). Nothing otherwise; a folder that cannot
/// be written is ignored (a diagnostic must not fail the job).
void record_share(std::string_view command, std::uint64_t cases);

/// A JSON Lines input: the whole file in a single process, this rank's
/// shard (whole lines, read from its byte range) under MPI.
struct LineInput {
  std::unique_ptr<std::istream> stream;
  std::uint64_t first_line = 1;  ///< the file's line number of the stream's first line
};
/// `what` names the file in errors ("cases file"). Collective under
/// MPI: a file that cannot be read is reported (the
/// returned error) on every rank.
Result<LineInput> open_lines(const std::string& path, const std::string& what);

/// verify() over all ranks: each runs a contiguous range of the planned
/// cases; rank 0's report is the single-process report, the other ranks get
/// its counts (cases, passed, mismatch_count) for their exit status.
Result<VerifyReport> verify(const ProgramSession& session, Reference& reference, const VerifyOptions& options);

/// The reduction for data-parallel fit (nullptr in a single process).
FitReduction* fit_reduction();
/// True for the error fit returns on ranks whose own shard did not fail
/// because another rank's did (that rank reports it).
bool is_remote_failure(const Diagnostic& d);

/// Progress of work that every rank does a share of. update() takes this
/// rank's own count; rank 0 draws the sum over all ranks through `inner`
/// against `total` (the whole job's count, 0 when unknown). In a single
/// process it is `inner` itself. Every rank calls close() (or lets the
/// destructor do it) before its next collective call.
class SharedProgress {
 public:
  SharedProgress(Progress* inner, std::uint64_t total);
  ~SharedProgress();
  SharedProgress(const SharedProgress&) = delete;
  SharedProgress& operator=(const SharedProgress&) = delete;
  void update(std::uint64_t done_here, std::string_view what);
  void close();

 private:
  std::unique_ptr<Progress> combined_;  // under MPI: rank 0 adds the others' counts
  Progress* inner_;
  std::uint64_t total_;
};

/// Output written in input order: each rank appends its text; finish()
/// joins them in rank order and writes them to stdout (path empty or "-")
/// or atomically to `path`. A single process without a path streams.
class OrderedOutput {
 public:
  explicit OrderedOutput(std::string path);
  void append(const std::string& text);
  /// Agrees on `local` first: on a failure nothing is written, rank 0
  /// prints the first failure and every rank returns its status.
  int finish(std::optional<Failure> local = std::nullopt);

 private:
  std::string path_;
  std::string buffer_;
  bool stream_;
};

}  // namespace tc::cli::scale
