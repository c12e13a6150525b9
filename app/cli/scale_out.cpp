// The single-process side of the scale-out seam, and the dispatch to the
// MPI side (mpi_*.cpp, built with TC_ENABLE_MPI) when mpirun started us.
#include "scale_out.h"

#include <sched.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <thread>
#include <fstream>

#include "common.h"
#include "workbench/workbench.h"
#ifdef TC_HAVE_MPI
#include "mpi_backend.h"
#endif

namespace tc::cli::scale {

namespace {
bool g_active = false;

/// FNV-1a, 64 bits: a digest to compare, not a security measure.
struct Fnv {
  std::uint64_t h = 14695981039346656037ull;
  void add(const void* data, std::size_t n) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (std::size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 1099511628211ull;
  }
  void add(std::string_view s) {
    const std::uint64_t n = s.size();
    add(&n, sizeof n);
    add(s.data(), s.size());
  }
};

/// A regular file's size and contents (the first and last 8 MiB of a larger
/// one) go into the digest, so a stale copy on another machine differs.
void add_file(Fnv& d, const std::string& path) {
  struct stat st{};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return;
  std::ifstream in(path, std::ios::binary);
  if (!in) return;
  d.add(std::string_view("\x01file"));
  const auto size = static_cast<std::uint64_t>(st.st_size);
  d.add(&size, sizeof size);
  constexpr std::uint64_t kPart = 8u << 20;
  std::string buf;
  auto part = [&](std::uint64_t at, std::uint64_t n) {
    buf.resize(static_cast<std::size_t>(n));
    in.seekg(static_cast<std::streamoff>(at));
    in.read(buf.data(), static_cast<std::streamsize>(n));
    d.add(buf.data(), static_cast<std::size_t>(in.gcount()));
  };
  if (size <= 2 * kPart) {
    part(0, size);
  } else {
    part(0, kPart);
    part(size - kPart, kPart);
  }
}

/// The job a rank was started with: its arguments and the files they name,
/// except output files (which only rank 0 writes) and --threads (a per
/// machine setting that does not change results).
std::uint64_t job_digest(int argc, char** argv) {
  Fnv d;
  bool skip_next = false;
  for (int i = 1; i < argc; ++i) {
    std::string_view token = argv[i];
    if (skip_next) {
      skip_next = false;
      continue;
    }
    std::string_view flag = token, value;
    const bool has_value = token.rfind("--", 0) == 0 && token.find('=') != std::string_view::npos;
    if (has_value) {
      flag = token.substr(0, token.find('='));
      value = token.substr(token.find('=') + 1);
    }
    if (flag == "-o" || flag == "--out" || flag == "--snapshot-out" || flag == "--threads") {
      skip_next = !has_value;
      continue;
    }
    d.add(token);
    add_file(d, std::string(has_value ? value : token));
  }
  return d.h;
}
}  // namespace

Session::Session(int& argc, char**& argv) {
#ifdef TC_HAVE_MPI
  g_active = mpi::start(argc, argv);
  if (g_active) mpi::set_job_digest(job_digest(argc, argv));
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

void record_share(std::string_view command, std::uint64_t cases) {
  const char* folder = std::getenv("TENSORCODE_SCALE_OUT_LOG");
  if (!active() || !folder || !*folder) return;
  const std::string path = std::string(folder) + "/rank-" + std::to_string(rank()) + ".jsonl";
  if (std::FILE* f = std::fopen(path.c_str(), "a")) {
    std::fprintf(f, "{\"command\": \"%.*s\", \"rank\": %d, \"ranks\": %d, \"cases\": %llu}\n",
                 static_cast<int>(command.size()), command.data(), rank(), size(),
                 static_cast<unsigned long long>(cases));
    std::fclose(f);
  }
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

Result<VerifyReport> verify(const ProgramSession& session, Reference& reference, const VerifyOptions& options) {
#ifdef TC_HAVE_MPI
  // The CLI's programs have no bindings: the ranks run the program itself.
  if (g_active) return mpi::verify(session.program(), reference, options);
#endif
  return workbench::verify(session, reference, options);
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
