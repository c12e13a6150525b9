// The single-process side of the scale-out seam, and the dispatch to the
// MPI side (mpi_*.cpp, built with TC_ENABLE_MPI) when mpirun started us.
#include "scale_out.h"

#include <sched.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <fstream>

#include "common.h"
#ifdef TC_HAVE_MPI
#include "mpi_backend.h"
#endif

namespace tc::cli::scale {

namespace {
bool g_active = false;
}

Session::Session(int& argc, char**& argv) {
#ifdef TC_HAVE_MPI
  g_active = mpi::start(argc, argv);
#else
  (void)argc;
  (void)argv;
#endif
}

Session::~Session() {
#ifdef TC_HAVE_MPI
  if (g_active) mpi::stop();
#endif
}

int Session::finish(int rc) {
#ifdef TC_HAVE_MPI
  if (g_active) return mpi::finish(rc);
#endif
  return rc;
}

bool active() { return g_active; }

int rank() {
#ifdef TC_HAVE_MPI
  if (g_active) return mpi::rank();
#endif
  return 0;
}

int size() {
#ifdef TC_HAVE_MPI
  if (g_active) return mpi::size();
#endif
  return 1;
}

unsigned threads(unsigned requested) {
  if (requested != 0 || !g_active) return requested;
  // mpirun usually binds each rank to its own cores: then the rank's CPU set
  // is its share. Unbound ranks see the whole machine and divide it by the
  // ranks running on it (OpenMPI says how many; other launchers: one each).
  const unsigned machine = std::max(1u, std::thread::hardware_concurrency());
  unsigned mine = machine;
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) mine = std::max(1, CPU_COUNT(&set));
  if (mine < machine) return mine;
  const char* local = std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
  const long ranks = local ? std::strtol(local, nullptr, 10) : static_cast<long>(machine);
  return std::max(1u, machine / static_cast<unsigned>(std::max(1L, ranks)));
}

void abort_after_internal_error() {
#ifdef TC_HAVE_MPI
  if (g_active) mpi::abort_job(kRejected);
#endif
}

std::optional<Failure> first_failure(std::optional<Failure> local) {
#ifdef TC_HAVE_MPI
  if (g_active) return mpi::first_failure(std::move(local));
#endif
  return local;
}

std::uint64_t total(std::uint64_t local) {
#ifdef TC_HAVE_MPI
  if (g_active) return mpi::total(local);
#endif
  return local;
}

Result<LineInput> open_lines(const std::string& path, const std::string& what) {
#ifdef TC_HAVE_MPI
  if (g_active) return mpi::open_lines(path, what);
#endif
  auto in = std::make_unique<std::ifstream>(path, std::ios::binary);
  if (!*in) return make_error("cannot open " + what + " '" + path + "'");
  LineInput input;
  input.stream = std::move(in);
  return input;
}

Result<VerifyReport> verify(const Program& program, Reference& reference, const VerifyOptions& options) {
#ifdef TC_HAVE_MPI
  if (g_active) return mpi::verify(program, reference, options);
#endif
  return tc::verify(program, reference, options);
}

FitReduction* fit_reduction() {
#ifdef TC_HAVE_MPI
  if (g_active) return mpi::fit_reduction();
#endif
  return nullptr;
}

bool is_remote_failure(const Diagnostic& d) {
#ifdef TC_HAVE_MPI
  if (g_active) return mpi::is_remote_failure(d);
#endif
  (void)d;
  return false;
}

SharedProgress::SharedProgress(Progress* inner, std::uint64_t total) : inner_(inner), total_(total) {
#ifdef TC_HAVE_MPI
  if (g_active) combined_ = mpi::combined_progress(inner, total);
#endif
}

SharedProgress::~SharedProgress() { close(); }

void SharedProgress::update(std::uint64_t done_here, std::string_view what) {
  if (combined_) {
    combined_->update(done_here, total_, what);
  } else if (inner_) {
    inner_->update(done_here, total_, what);
  }
}

void SharedProgress::close() {
#ifdef TC_HAVE_MPI
  if (combined_) mpi::close_progress(*combined_);
#endif
  combined_.reset();
}

OrderedOutput::OrderedOutput(std::string path)
    : path_(std::move(path)), stream_(!g_active && (path_.empty() || path_ == "-")) {}

void OrderedOutput::append(const std::string& text) {
  if (stream_) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    return;
  }
  buffer_ += text;
}

int OrderedOutput::finish(std::optional<Failure> local) {
  if (auto f = first_failure(std::move(local))) {
    std::fprintf(stderr, "%s\n", f->message.c_str());
    return f->rc;
  }
#ifdef TC_HAVE_MPI
  if (g_active) return mpi::write_ordered(path_, buffer_);
#endif
  if (stream_) {
    std::fflush(stdout);
    return kOk;
  }
  return write_output(path_, buffer_);
}

}  // namespace tc::cli::scale
