// MPI session: start and end, the failure agreement every collective step
// begins with, and what ranks other than 0 do with their output.
#include <fcntl.h>
#include <mpi.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "command.h"
#include "mpi_backend.h"

namespace tc::cli::scale::mpi {

namespace {

int g_rank = 0, g_size = 1;
bool g_running = false;   // between MPI_Init and MPI_Finalize
bool g_agreed = false;    // a failure was agreed: every rank is on its way out
int g_real_stderr = -1;   // ranks > 0: the stderr mpirun gave us
int g_captured = -1;      // ranks > 0: memory file now behind fd 2

/// Set in a rank's environment once it joined the job: processes a rank
/// starts (reference workers, say) inherit the launcher's variables but must
/// run as plain processes, not try to join the job again.
constexpr const char* kJoinedVariable = "TENSORCODE_MPI_RANK_STARTED";

bool launched_by_mpirun() {
  if (std::getenv(kJoinedVariable)) return false;
  // OpenMPI's mpirun sets OMPI_COMM_WORLD_SIZE; PMIx and Hydra launchers
  // (srun, MPICH's mpiexec) set PMIX_RANK or PMI_RANK.
  return std::getenv("OMPI_COMM_WORLD_SIZE") || std::getenv("PMIX_RANK") || std::getenv("PMI_RANK");
}

/// mpirun hands the ranks a pipe as stderr, so rank 0 cannot see that the
/// user watches a terminal. When rank 0's parent is the local mpirun and its
/// stderr is a terminal, rank 0 writes to that terminal directly, so the
/// commands' terminal-only progress lines appear as in a single process.
void leader_stderr_to_mpirun_terminal() {
  if (isatty(STDERR_FILENO)) return;
  const std::string proc = "/proc/" + std::to_string(getppid());
  char buf[PATH_MAX];
  ssize_t n = readlink((proc + "/exe").c_str(), buf, sizeof buf - 1);
  if (n <= 0) return;
  std::string exe(buf, static_cast<std::size_t>(n));
  const std::string base = exe.substr(exe.find_last_of('/') + 1);
  if (base != "orterun" && base != "mpirun" && base != "mpiexec" && base != "prterun") return;
  n = readlink((proc + "/fd/2").c_str(), buf, sizeof buf - 1);
  if (n <= 0) return;
  std::string target(buf, static_cast<std::size_t>(n));
  if (target.rfind("/dev/pts/", 0) != 0 && target.rfind("/dev/tty", 0) != 0) return;
  int fd = open(target.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) return;
  if (isatty(fd)) {
    std::fflush(stderr);
    dup2(fd, STDERR_FILENO);
  }
  close(fd);
}

/// Ranks > 0 run the same command as rank 0 and would print the same
/// things: their stdout goes nowhere and their stderr into a memory file,
/// whose last line is what they report if they fail on their own.
void silence_follower() {
  std::fflush(stdout);
  std::fflush(stderr);
  int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (null >= 0) {
    dup2(null, STDOUT_FILENO);
    close(null);
  }
  g_captured = memfd_create("tensorcode-stderr", MFD_CLOEXEC);
  if (g_captured < 0) return;
  g_real_stderr = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
  dup2(g_captured, STDERR_FILENO);
}

/// The last non-empty line a follower wrote to its stderr.
std::string captured_last_line() {
  if (g_captured < 0) return {};
  std::fflush(stderr);
  const off_t end = lseek(g_captured, 0, SEEK_END);
  if (end <= 0) return {};
  const off_t start = std::max<off_t>(0, end - 65536);
  std::string text(static_cast<std::size_t>(end - start), '\0');
  if (pread(g_captured, text.data(), text.size(), start) != static_cast<ssize_t>(text.size())) return {};
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  const std::size_t nl = text.find_last_of('\n');
  return nl == std::string::npos ? text : text.substr(nl + 1);
}

/// What each rank publishes in every agreement.
struct Head {
  std::uint64_t state;   ///< kWorking, kFailed or kEnded
  std::uint64_t key, rc, length;
  std::uint64_t digest;  ///< of the rank's job (set_job_digest)
};
constexpr std::uint64_t kWorking = 0, kFailed = 1, kEnded = 2;
constexpr int kHeadWords = 5;

std::uint64_t g_digest = 0;

}  // namespace

bool start(int& argc, char**& argv) {
  if (!launched_by_mpirun()) return false;
  int provided = 0;
  // Only the main thread calls MPI (worker threads never do).
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  g_running = true;
  setenv(kJoinedVariable, "1", 1);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  if (g_rank == 0)
    leader_stderr_to_mpirun_terminal();
  else
    silence_follower();
  return true;
}

int rank() { return g_rank; }
int size() { return g_size; }

void set_job_digest(std::uint64_t digest) { g_digest = digest; }

/// A failure every rank derives from the gathered heads alone (nothing is
/// broadcast): each rank builds the same message.
static std::optional<Failure> job_mismatch(const std::vector<Head>& all, int& winner) {
  for (int r = 1; r < g_size; ++r)
    if (all[static_cast<std::size_t>(r)].digest != all[0].digest) {
      winner = r;
      return Failure{UINT64_MAX, kRejected,
                     "error: rank " + std::to_string(r) +
                         " was not started with the same job as rank 0 (its command line or the contents of the "
                         "files it names differ: program, inputs, domains, options, reference or data): start every "
                         "rank with the same command and identical files"};
    }
  // One rank left its command (successfully) while another is still in a
  // step of it: the working rank would wait for it forever.
  int ended = -1, working = -1;
  for (int r = 0; r < g_size; ++r) {
    const std::uint64_t s = all[static_cast<std::size_t>(r)].state;
    if (s == kEnded && ended < 0) ended = r;
    if (s == kWorking && working < 0) working = r;
  }
  if (ended < 0 || working < 0) return std::nullopt;
  winner = ended;
  return Failure{UINT64_MAX, kRejected,
                 "error: rank " + std::to_string(ended) + " ended its command while rank " + std::to_string(working) +
                     " was still working on the job: every rank must run the same command that splits its work "
                     "(verify, run --cases, fit)"};
}

/// The agreement: all ranks publish whether they failed and where; the
/// first failure (smallest key, then lowest rank) is broadcast by its rank.
/// Without one, the ranks must run the same job and all be inside it.
static std::optional<Failure> agree(std::optional<Failure> local, int& winner, bool ending = false) {
  winner = -1;
  constexpr std::size_t kMaxMessage = 1 << 20;
  if (local && local->message.size() > kMaxMessage) local->message.resize(kMaxMessage);
  Head mine{local ? kFailed : ending ? kEnded : kWorking, local ? local->key : 0,
            local ? static_cast<std::uint64_t>(local->rc) : 0, local ? local->message.size() : 0, g_digest};
  std::vector<Head> all(static_cast<std::size_t>(g_size));
  MPI_Allgather(&mine, kHeadWords, MPI_UINT64_T, all.data(), kHeadWords, MPI_UINT64_T, MPI_COMM_WORLD);
  for (int r = 0; r < g_size; ++r) {
    const Head& h = all[static_cast<std::size_t>(r)];
    if (h.state == kFailed && (winner < 0 || h.key < all[static_cast<std::size_t>(winner)].key)) winner = r;
  }
  // A rank's own failure (a file missing on its machine, say) says more
  // than the digest it changes, so it comes first.
  if (winner < 0) {
    auto f = job_mismatch(all, winner);
    if (f) g_agreed = true;
    return f;
  }
  const Head& w = all[static_cast<std::size_t>(winner)];
  Failure f;
  f.key = w.key;
  f.rc = static_cast<int>(w.rc);
  f.message = winner == g_rank ? local->message : std::string(w.length, '\0');
  if (w.length > 0) MPI_Bcast(f.message.data(), static_cast<int>(w.length), MPI_CHAR, winner, MPI_COMM_WORLD);
  g_agreed = true;
  return f;
}

std::optional<Failure> first_failure(std::optional<Failure> local) {
  int winner;
  return agree(std::move(local), winner);
}

std::uint64_t total(std::uint64_t local) {
  std::uint64_t sum = 0;
  MPI_Allreduce(&local, &sum, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  return sum;
}

int finish(int rc) {
  if (!g_running) return rc;
  if (!g_agreed) {
    // Every rank ends here, so this agreement meets the one any rank still
    // inside a command begins its next step with: a rank that stopped on
    // its own (rc != 0) makes the others stop too, and rank 0 prints that
    // rank's error line.
    std::optional<Failure> local;
    if (rc != kOk) local = Failure{UINT64_MAX, rc, g_rank == 0 ? std::string() : captured_last_line()};
    int winner;
    const bool failed_here = local.has_value();
    auto f = agree(std::move(local), winner, /*ending=*/true);
    // Rank 0 prints another rank's failure, or one the agreement itself found.
    const bool own_line = winner == 0 && failed_here;
    if (f && !own_line && g_rank == 0 && !f->message.empty()) std::fprintf(stderr, "%s\n", f->message.c_str());
    rc = f ? f->rc : kOk;
  }
  stop();
  return rc;
}

void stop() {
  if (!g_running) return;
  std::fflush(stdout);
  std::fflush(stderr);
  MPI_Finalize();
  g_running = false;
}

void abort_job(int rc) {
  std::fflush(stdout);
  std::fflush(stderr);
  if (g_real_stderr >= 0) {
    std::string line = captured_last_line() + "\n";
    if (write(g_real_stderr, line.data(), line.size()) < 0) {
    }
  }
  MPI_Abort(MPI_COMM_WORLD, rc);
  std::_Exit(rc);
}

}  // namespace tc::cli::scale::mpi
