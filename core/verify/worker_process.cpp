#include "verify/worker_process.h"

#include "verify/python_reference.h"

#include "base/spawn.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

namespace tc {

namespace {

constexpr std::size_t kStderrKept = 2048;

std::string errno_text() { return std::strerror(errno); }

/// A descriptor duplicated to 10 or above (close-on-exec), so that dup2 onto
/// 0..5 in the child never meets a source with the same number.
int high_fd(int fd) {
  if (fd < 0) return fd;
  int h = ::fcntl(fd, F_DUPFD_CLOEXEC, 10);
  ::close(fd);
  return h;
}

void set_nonblocking(int fd) { ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK); }

std::string describe_status(int status) {
  if (WIFEXITED(status)) {
    int code = WEXITSTATUS(status);
    return "exited with status " + std::to_string(code) + (code == 0 ? " (did it call os._exit?)" : "");
  }
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    const char* name = ::sigdescr_np(sig);
    std::string s = "was killed by signal " + std::to_string(sig);
    if (name) {
      std::string lower = name;
      for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      s += " (" + lower + ")";
    }
    if (sig == SIGKILL) s += ", perhaps for memory";
    return s;
  }
  return "ended";
}

}  // namespace

Result<std::unique_ptr<WorkerProcess>> WorkerProcess::start(const std::vector<std::string>& argv,
                                                            const WorkerLimits& limits) {
  if (argv.empty() || argv[0].empty() || argv[0][0] != '/')
    return make_error("internal: the worker's program must be an absolute path");
  if (::access(argv[0].c_str(), X_OK) != 0)
    return make_error("cannot run the python reference: '" + argv[0] + "' " + errno_text());
  std::unique_ptr<WorkerProcess> w(new WorkerProcess());
  w->limits_ = limits;

  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
    return make_error("cannot start the reference worker: socketpair: " + errno_text());
  int errpipe[2];
  if (::pipe2(errpipe, O_CLOEXEC) != 0) {
    ::close(sv[0]);
    ::close(sv[1]);
    return make_error("cannot start the reference worker: pipe: " + errno_text());
  }
  int counter = ::memfd_create("tc-reference-counter", MFD_CLOEXEC);
  if (counter < 0 || ::ftruncate(counter, 4096) != 0) {
    for (int fd : {sv[0], sv[1], errpipe[0], errpipe[1], counter})
      if (fd >= 0) ::close(fd);
    return make_error("cannot start the reference worker: memfd: " + errno_text());
  }
  void* map = ::mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, counter, 0);
  const int null_in = high_fd(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  const int null_out = high_fd(::open("/dev/null", O_WRONLY | O_CLOEXEC));
  const int child_sock = high_fd(sv[1]);
  const int child_err = high_fd(errpipe[1]);
  const int child_counter = high_fd(counter);
  auto close_child_ends = [&] {
    for (int fd : {null_in, null_out, child_sock, child_err, child_counter})
      if (fd >= 0) ::close(fd);
  };
  if (map == MAP_FAILED || null_in < 0 || null_out < 0 || child_sock < 0 || child_err < 0 || child_counter < 0) {
    close_child_ends();
    ::close(sv[0]);
    ::close(errpipe[0]);
    if (map != MAP_FAILED) ::munmap(map, 4096);
    return make_error("cannot start the reference worker: " + errno_text());
  }
  w->counter_map_ = map;
  w->sock_ = sv[0];
  w->err_ = errpipe[0];
  set_nonblocking(w->sock_);
  set_nonblocking(w->err_);

  SpawnSpec spec;
  spec.program = argv[0];
  spec.argv = argv;
  spec.empty_environment = true;
  spec.dup_to = {{null_in, 0}, {null_out, 1}, {child_err, 2}, {child_sock, 3}, {child_sock, 4}, {child_counter, 5}};
  spec.close_from = 6;
  spec.limits = {{RLIMIT_AS, {limits.memory_bytes, limits.memory_bytes}}, {RLIMIT_CORE, {0, 0}}};
  const Spawned child = spawn_process(spec);
  if (!child.ok()) {
    close_child_ends();
    return make_error("cannot start the reference worker: " + child.describe());
  }
  const pid_t pid = child.pid;
  close_child_ends();
  w->pid_ = pid;
  w->last_change_ = std::chrono::steady_clock::now();
  return w;
}

std::uint64_t inherited_memory_limit() {
  struct rlimit now{};
  if (::getrlimit(RLIMIT_AS, &now) != 0 || now.rlim_max == RLIM_INFINITY) return UINT64_MAX;
  return static_cast<std::uint64_t>(now.rlim_max);
}

// Declared in python_reference.h; here because this file is built with and
// without the CPython reference.
std::uint64_t reference_memory_limit(std::uint64_t requested) { return std::min(requested, inherited_memory_limit()); }

WorkerProcess::~WorkerProcess() {
  if (pid_ > 0) kill();
  if (sock_ >= 0) ::close(sock_);
  if (err_ >= 0) ::close(err_);
  if (counter_map_) ::munmap(counter_map_, 4096);
}

void WorkerProcess::send(char kind, std::string_view payload, std::size_t cases) {
  out_.push_back(kind);
  std::uint64_t n = payload.size();
  for (int i = 0; i < 8; ++i) out_.push_back(static_cast<char>((n >> (8 * i)) & 0xff));
  out_.append(payload);
  cases_done_ = counter();
  cases_pending_ = cases;
  last_counter_ = cases_done_;
  last_change_ = std::chrono::steady_clock::now();
}

std::uint64_t WorkerProcess::counter() const {
  return __atomic_load_n(static_cast<const std::uint64_t*>(counter_map_), __ATOMIC_RELAXED);
}

bool WorkerProcess::pump_write() {
  while (!out_.empty()) {
    ssize_t n = ::send(sock_, out_.data(), out_.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno == EAGAIN || errno == EWOULDBLOCK;  // EPIPE and the like: the child is gone
    }
    out_.erase(0, static_cast<std::size_t>(n));
  }
  return true;
}

bool WorkerProcess::pump_read() {
  char buf[65536];
  for (;;) {
    ssize_t n = ::recv(sock_, buf, sizeof buf, MSG_DONTWAIT);
    if (n > 0) {
      in_.append(buf, static_cast<std::size_t>(n));
      if (in_.size() > limits_.max_reply_bytes + 9) return true;  // the caller reports it
      continue;
    }
    if (n == 0) return false;
    if (errno == EINTR) continue;
    return errno == EAGAIN || errno == EWOULDBLOCK;
  }
}

void WorkerProcess::drain_stderr() {
  char buf[4096];
  while (err_ >= 0) {
    ssize_t n = ::read(err_, buf, sizeof buf);
    if (n > 0) {
      if (stderr_.size() < kStderrKept)
        stderr_.append(buf, std::min(static_cast<std::size_t>(n), kStderrKept - stderr_.size()));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) {  // closed: stop polling it (a closed pipe would wake poll at once, forever)
      ::close(err_);
      err_ = -1;
    }
    return;
  }
}

std::optional<WorkerReply> WorkerProcess::take_reply() {
  if (in_.size() < 9) return std::nullopt;
  std::uint64_t n = 0;
  for (int i = 0; i < 8; ++i) n |= std::uint64_t(static_cast<unsigned char>(in_[1 + i])) << (8 * i);
  if (in_.size() < 9 + n) return std::nullopt;
  WorkerReply r;
  r.kind = in_[0];
  r.payload = in_.substr(9, n);
  in_.erase(0, 9 + n);
  return r;
}

std::string WorkerProcess::reap(bool force) {
  if (pid_ <= 0) return "ended";
  int status = 0;
  if (!force) {
    // It closed its end; give it a moment to exit on its own so that the
    // status says why (os._exit, a crash), then stop waiting.
    for (int i = 0; i < 200; ++i) {
      pid_t r = ::waitpid(pid_, &status, WNOHANG);
      if (r == pid_) {
        pid_ = -1;
        drain_stderr();
        return describe_status(status);
      }
      ::usleep(1000);
    }
  }
  ::kill(pid_, SIGKILL);
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
  drain_stderr();
  return describe_status(status);
}

std::string WorkerProcess::kill() { return reap(true); }

std::string WorkerProcess::stderr_line() const {
  std::string s = stderr_.substr(0, stderr_.find('\n'));
  if (s.size() > 200) s = s.substr(0, 200) + "...";
  return s;
}

bool WorkerProcess::await(const std::vector<WorkerProcess*>& set, Progress* progress,
                          std::vector<WorkerReply>& replies, WorkerFailure& failure) {
  replies.assign(set.size(), {});
  std::vector<bool> done(set.size(), false);
  auto fail = [&](std::size_t i, WorkerFailure::Kind kind, std::string detail) {
    failure.kind = kind;
    failure.worker = i;
    WorkerProcess* w = set[i];
    std::uint64_t c = w->counter();
    failure.case_index = c > w->cases_done_ ? static_cast<long>(c - w->cases_done_ - 1) : -1;
    failure.detail = std::move(detail);
    for (WorkerProcess* other : set)
      if (other->alive()) other->kill();
    return false;
  };
  std::size_t remaining = set.size();
  for (std::size_t i = 0; i < set.size(); ++i)
    if (!set[i]->alive()) return fail(i, WorkerFailure::Kind::Died, "had already stopped");
  auto budget = [](const WorkerProcess* w) {
    return w->starting_ ? w->limits_.startup_seconds : w->limits_.seconds_per_case;
  };
  double shortest = set.empty() ? 1.0 : budget(set[0]);
  for (WorkerProcess* w : set) shortest = std::min(shortest, budget(w));
  const int poll_ms = static_cast<int>(std::clamp(shortest * 1000.0 / 4.0, 1.0, 50.0));
  std::vector<pollfd> fds;
  while (remaining > 0) {
    fds.clear();
    for (std::size_t i = 0; i < set.size(); ++i) {
      WorkerProcess* w = set[i];
      short events = done[i] ? 0 : POLLIN;
      if (!w->out_.empty()) events |= POLLOUT;
      fds.push_back({w->sock_, events, 0});
      fds.push_back({w->err_, POLLIN, 0});
    }
    int r = ::poll(fds.data(), fds.size(), poll_ms);
    if (r < 0 && errno != EINTR) return fail(0, WorkerFailure::Kind::Protocol, "poll: " + errno_text());
    const auto now = std::chrono::steady_clock::now();
    for (std::size_t i = 0; i < set.size(); ++i) {
      WorkerProcess* w = set[i];
      w->drain_stderr();
      if (!w->pump_write()) return fail(i, WorkerFailure::Kind::Died, w->reap(false));
      if (done[i]) continue;
      bool open = w->pump_read();
      if (w->in_.size() > w->limits_.max_reply_bytes + 9)
        return fail(i, WorkerFailure::Kind::TooLarge,
                    "sent more than " + std::to_string(w->limits_.max_reply_bytes) + " bytes of results");
      if (auto reply = w->take_reply()) {
        w->starting_ = false;
        replies[i] = std::move(*reply);
        done[i] = true;
        --remaining;
        continue;
      }
      if (!open) return fail(i, WorkerFailure::Kind::Died, w->reap(false));
      std::uint64_t c = w->counter();
      if (c != w->last_counter_) {
        w->last_counter_ = c;
        w->last_change_ = now;
      } else if (std::chrono::duration<double>(now - w->last_change_).count() > budget(w)) {
        return fail(i, WorkerFailure::Kind::TimedOut, w->starting_ ? "did not start in time" : "ran too long");
      }
    }
    if (progress && progress->cancelled()) return fail(0, WorkerFailure::Kind::Cancelled, "cancelled");
  }
  return true;
}

}  // namespace tc
