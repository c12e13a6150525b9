#include "base/atomic_file.h"

#include <array>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <limits.h>
#include <mutex>
#include <pthread.h>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

namespace tc {

namespace {

// ---- temporaries removed on SIGINT/SIGTERM/SIGHUP --------------------------
//
// A fixed table the handler can read without allocating or locking: a writer
// claims a slot, copies the temporary's name into it and publishes it; the
// handler unlinks every published name, then lets the signal's previous
// disposition run (the default one terminates the process).

constexpr std::size_t kSlots = 32;
constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};

struct Slot {
  std::atomic<int> state{0};  // 0 free, 1 claimed, 2 published
  char path[PATH_MAX]{};
};
std::array<Slot, kSlots> g_slots;
struct sigaction g_previous[NSIG];

void remove_temporaries(int sig, siginfo_t* info, void* context) {
  for (Slot& s : g_slots)
    if (s.state.load(std::memory_order_acquire) == 2) ::unlink(s.path);
  const struct sigaction& prev = g_previous[sig];
  if (prev.sa_flags & SA_SIGINFO) {
    if (prev.sa_sigaction) prev.sa_sigaction(sig, info, context);
    return;
  }
  if (prev.sa_handler == SIG_IGN) return;
  if (prev.sa_handler != SIG_DFL && prev.sa_handler) {
    prev.sa_handler(sig);
    return;
  }
  // Default action: terminate with this signal, as if we had never caught it.
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  ::sigaction(sig, &dfl, nullptr);
  ::raise(sig);
}

void install_handlers() {
  for (int sig : kSignals) {
    struct sigaction prev {};
    if (::sigaction(sig, nullptr, &prev) != 0) continue;
    if (!(prev.sa_flags & SA_SIGINFO) && prev.sa_handler == SIG_IGN) continue;  // e.g. nohup: nothing will stop us
    g_previous[sig] = prev;
    struct sigaction act {};
    act.sa_sigaction = remove_temporaries;
    act.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&act.sa_mask);
    ::sigaction(sig, &act, nullptr);
  }
}

/// Once per process, whichever kind of temporary comes first: installing
/// twice would chain the handler to itself.
void ensure_handlers() {
  static std::once_flag once;
  std::call_once(once, install_handlers);
}

/// Blocks the three signals for its lifetime, so a temporary is never created
/// without being registered, nor unregistered before it is renamed.
class SignalsBlocked {
 public:
  SignalsBlocked() {
    sigset_t set;
    sigemptyset(&set);
    for (int sig : kSignals) sigaddset(&set, sig);
    ::pthread_sigmask(SIG_BLOCK, &set, &old_);
  }
  ~SignalsBlocked() { ::pthread_sigmask(SIG_SETMASK, &old_, nullptr); }
  SignalsBlocked(const SignalsBlocked&) = delete;
  SignalsBlocked& operator=(const SignalsBlocked&) = delete;

 private:
  sigset_t old_;
};

Slot* publish(const std::string& path) {
  if (path.size() >= PATH_MAX) return nullptr;
  for (Slot& s : g_slots) {
    int expected = 0;
    if (!s.state.compare_exchange_strong(expected, 1, std::memory_order_acq_rel)) continue;
    std::memcpy(s.path, path.c_str(), path.size() + 1);
    s.state.store(2, std::memory_order_release);
    return &s;
  }
  return nullptr;  // more concurrent writes than slots: this one is just not cleaned on a signal
}

void unpublish(Slot* s) {
  if (s) s->state.store(0, std::memory_order_release);
}

// ---- where the bytes go ----------------------------------------------------

std::string errno_text() { return std::strerror(errno); }

std::string dir_of(const std::string& path) {
  auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string base_of(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

struct Target {
  std::string path;       ///< the file to replace (symlinks resolved)
  bool write_through = false;
  bool exists = false;
  struct stat st {};
};

/// Follows the symlink chain of `path` (the folders are left to the kernel).
/// A link into /proc (what /dev/stdout and /dev/fd/N are) is written through.
Result<Target> resolve(const std::string& path) {
  Target t;
  t.path = path;
  for (int hops = 0;; ++hops) {
    struct stat lst {};
    if (::lstat(t.path.c_str(), &lst) != 0) {
      if (errno == ENOENT) return t;  // a new file (its folder is checked by mkstemp)
      return make_error("cannot write '" + path + "': " + errno_text());
    }
    if (!S_ISLNK(lst.st_mode)) {
      t.exists = true;
      t.st = lst;
      if (S_ISDIR(lst.st_mode)) return make_error("cannot write '" + path + "': it is a directory");
      t.write_through = !S_ISREG(lst.st_mode) || starts_with(t.path, "/proc/");
      return t;
    }
    if (hops >= 40) return make_error("cannot write '" + path + "': too many levels of symbolic links");
    char buf[PATH_MAX];
    ssize_t n = ::readlink(t.path.c_str(), buf, sizeof buf - 1);
    if (n < 0) return make_error("cannot write '" + path + "': " + errno_text());
    std::string next(buf, static_cast<std::size_t>(n));
    if (starts_with(next, "/proc/") || starts_with(t.path, "/proc/")) {
      // /dev/stdout -> /proc/self/fd/1 -> "pipe:[..]" or a file: the caller
      // means the open stream, whatever it is; only writing through reaches it.
      t.path = path;
      t.write_through = true;
      t.exists = ::stat(path.c_str(), &t.st) == 0;
      if (t.exists && S_ISDIR(t.st.st_mode)) return make_error("cannot write '" + path + "': it is a directory");
      return t;
    }
    t.path = next[0] == '/' ? next : dir_of(t.path) + "/" + next;
  }
}

Status write_all(int fd, std::string_view contents, const std::string& path) {
  const char* p = contents.data();
  std::size_t left = contents.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      return make_error("cannot write '" + path + "': " + errno_text());
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  return ok_status();
}

Status write_through(const Target& t, const std::string& path, std::string_view contents) {
  // O_APPEND: a redirected stdout that is a file keeps what was already
  // written to it. Devices and FIFOs ignore the flag.
  int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_NOCTTY | O_CLOEXEC | (t.exists ? 0 : O_CREAT), 0666);
  if (fd < 0) return make_error("cannot write '" + path + "': " + errno_text());
  Status s = write_all(fd, contents, path);
  if (::close(fd) != 0 && s) return make_error("cannot write '" + path + "': " + errno_text());
  return s;
}

/// The process's umask, read without changing it (umask(2) cannot read
/// without writing, which would race with other threads creating files).
mode_t current_umask() {
  if (std::FILE* f = std::fopen("/proc/self/status", "re")) {
    char line[256];
    unsigned value = 0;
    bool found = false;
    while (std::fgets(line, sizeof line, f))
      if (std::sscanf(line, "Umask: %o", &value) == 1) {
        found = true;
        break;
      }
    std::fclose(f);
    if (found) return static_cast<mode_t>(value);
  }
  static std::mutex m;
  std::lock_guard<std::mutex> lock(m);
  mode_t mask = ::umask(022);
  ::umask(mask);
  return mask;
}

}  // namespace

Status write_file_atomic(const std::string& path, std::string_view contents) {
  if (path.empty()) return make_error("cannot write a file with an empty name");
  auto target = resolve(path);
  if (!target) return target.error();
  if (target->write_through) return write_through(*target, path, contents);

  ensure_handlers();

  const std::string dir = dir_of(target->path);
  std::string tmp = dir + "/." + base_of(target->path) + ".tmp.XXXXXX";
  int fd;
  Slot* slot;
  {
    SignalsBlocked blocked;
    fd = ::mkostemp(tmp.data(), O_CLOEXEC);
    if (fd < 0) return make_error("cannot create a temporary file beside '" + path + "': " + errno_text());
    slot = publish(tmp);
  }
  auto fail = [&](std::string message) {
    ::close(fd);
    SignalsBlocked blocked;
    ::unlink(tmp.c_str());
    unpublish(slot);
    return make_error(std::move(message));
  };
  if (Status s = write_all(fd, contents, path); !s) return fail(s.error().message);
  const mode_t mode = target->exists ? (target->st.st_mode & 07777) : (0666 & ~current_umask());
  if (::fchmod(fd, mode) != 0) return fail("cannot set the mode of '" + path + "': " + errno_text());
  if (target->exists && ::geteuid() == 0) (void)!::fchown(fd, target->st.st_uid, target->st.st_gid);
  if (::fsync(fd) != 0) return fail("cannot write '" + path + "': " + errno_text());
  if (::close(fd) != 0) {
    fd = -1;
    return fail("cannot write '" + path + "': " + errno_text());
  }
  fd = -1;
  {
    SignalsBlocked blocked;
    if (::rename(tmp.c_str(), target->path.c_str()) != 0) {
      std::string why = errno_text();
      ::unlink(tmp.c_str());
      unpublish(slot);
      return make_error("cannot replace '" + path + "': " + why);
    }
    unpublish(slot);
  }
  // The rename is durable once the folder is.
  int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    (void)::fsync(dfd);
    ::close(dfd);
  }
  return ok_status();
}

TemporaryName::TemporaryName(std::string path) : path_(std::move(path)) {
  ensure_handlers();
  SignalsBlocked blocked;
  slot_ = publish(path_);
}

TemporaryName::~TemporaryName() {
  SignalsBlocked blocked;
  if (!kept_) ::unlink(path_.c_str());
  unpublish(static_cast<Slot*>(slot_));
}

void TemporaryName::keep() {
  SignalsBlocked blocked;
  kept_ = true;
  unpublish(static_cast<Slot*>(slot_));
  slot_ = nullptr;
}

Result<std::string> read_file(const std::string& path, std::size_t max_bytes) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return make_error("cannot open '" + path + "': " + std::strerror(errno));
  struct stat st {};
  if (::fstat(::fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
    std::fclose(f);
    return make_error("cannot read '" + path + "': it is a directory");
  }
  // Refuse an oversized regular file before reading any of it (pipes and
  // other streams are still cut off at the limit while reading).
  if (S_ISREG(st.st_mode) && static_cast<std::uint64_t>(st.st_size) > max_bytes) {
    std::fclose(f);
    return make_error("'" + path + "' is larger than the " + std::to_string(max_bytes) + "-byte limit (" +
                      std::to_string(st.st_size) + " bytes)");
  }
  std::string out;
  char buf[65536];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) {
    out.append(buf, n);
    if (out.size() > max_bytes) {
      std::fclose(f);
      return make_error("'" + path + "' is larger than the " + std::to_string(max_bytes) + "-byte limit");
    }
  }
  bool bad = std::ferror(f) != 0;
  std::fclose(f);
  if (bad) return make_error("cannot read '" + path + "'");
  return out;
}

}  // namespace tc
