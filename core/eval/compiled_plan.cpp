// The compiled plan (compiled_plan.h): the plan cache and its trust checks,
// compiling (in the background under Auto) and loading the kernel, the Auto
// rule, and running cases through it.
#include "eval/compiled_plan.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <deque>
#include <map>
#include <mutex>
#include <thread>

#include <tbb/blocked_range.h>
#include <tbb/info.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "base/atomic_file.h"
#include "base/child_process.h"
#include "base/sha256.h"
#include "eval/batch_columns.h"
#include "eval/prepared.h"

#ifndef __EMSCRIPTEN__
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

namespace tc::eval_detail {

namespace {

// The Auto rule's estimates (docs/evaluator.md, "The compiled plan"),
// measured with bench/eval_bench on long_loop: interpreter time per node
// evaluation, and the time to write, compile and load a plan.
constexpr double kBatchNodeS = 0.05e-9;   ///< run_batch, per node and case
constexpr double kScalarNodeS = 5e-9;     ///< run(), per node
/// The batched gradient tape's block kernels, forward+reverse: a cost per
/// case (leaves, outputs, masks, the parameters' sums: about 50 ns) and
/// per node and case. Measured on AVX-512 with the bridge's two calls
/// (batch_forward + reverse, 256 and 4096 cases, one thread): the 59-node
/// pricing rule 56-78 ns a case, the 517-node thermostat 98-122, long_loop
/// (3,002 nodes) 203-290 (tc_batch_grad_bench). 3 x kBatchNodeS, the
/// estimate before, was 9 ns a case for the pricing rule: 6x too low, so
/// Auto compiled it only after ~9 M cases (docs/evaluator.md).
constexpr double kGradBatchCaseS = 50e-9;
constexpr double kGradBatchNodeS = 0.08e-9;
/// The batched tape's per-case path (fewer than 8 cases): about three
/// per-case node evaluations per node (not measured separately).
constexpr double kGradCasesNodeS = 3 * kScalarNodeS;
constexpr double kProbeNodeS = 15e-6;     ///< writing the source and finding it in the cache, per node
constexpr double kCompileBaseS = 0.05;    ///< starting the compiler
/// Compiling (gcc -O1), per node: long_loop (3,002 nodes) 0.5-0.8 s, the
/// 1,805-node branchy loop 1.9 s on the AVX2 host (issue 34's code shape).
constexpr double kCompileNodeS = 0.5e-3;
/// A gradient plan (forward and reverse in one source, the reverse spelt
/// per derivative term), cold, wall time, `tc_batch_grad_bench
/// --compile-times` at load 2-3 (December 2026): a 65-node rule 0.30-0.35 s,
/// the 767-node thermostat 1.2 (AVX2) to 2.2-2.6 s (AVX-512), long_loop
/// (3,002 nodes) 2.5 to 4.3-4.9 s: 2.2-3.9x its forward plan, and 1.6-5.9x
/// the forward's estimate, which it used before. This one is within 0.65-1.8x of each.
constexpr double kGradCompileBaseS = 0.3;
constexpr double kGradCompileNodeS = 1.2e-3;

/// The interpreter seconds the Auto rule charges a call.
double estimated_seconds(PlanWork work, double node_cases, double nodes) {
  switch (work) {
    case PlanWork::Case: return node_cases * kScalarNodeS;
    case PlanWork::Batch: return node_cases * kBatchNodeS;
    case PlanWork::GradientCases: return node_cases * kGradCasesNodeS;
    case PlanWork::GradientBatch: return node_cases * kGradBatchNodeS + node_cases / std::max(nodes, 1.0) * kGradBatchCaseS;
  }
  return 0.0;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// What the host runs, the target -march=native picks (plan_status's name
/// when the source does not name its own).
[[maybe_unused]] std::string host_isa() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  if (__builtin_cpu_supports("avx512f")) return "avx512";
  if (__builtin_cpu_supports("avx2")) return "avx2";
  if (__builtin_cpu_supports("avx")) return "avx";
  return "sse2";
#elif defined(__aarch64__)
  return "neon";
#elif defined(__EMSCRIPTEN__)
  return "wasm";
#else
  return "native";
#endif
}

/// The environment a plan is found and compiled under, read by the call
/// that asks for it (a background compile must not read the environment
/// while the caller's thread may change it).
struct PlanEnv {
  std::string cache;   ///< the cache folder's path (cache_path)
  std::string cc;      ///< $TC_CC, else cc
  double timeout = 0;  ///< $TC_PLAN_COMPILE_TIMEOUT; 0: the default
};

#ifndef __EMSCRIPTEN__

std::string errno_text(int err) { return std::strerror(err); }

// ---- the cache folder: found, created and trusted --------------------------

/// Where plans are kept: $TC_CACHE_DIR, else $XDG_CACHE_HOME/tensorcode,
/// else ~/.cache/tensorcode, else tensorcode-UID in the temporary directory.
std::string cache_path() {
  if (const char* d = std::getenv("TC_CACHE_DIR"); d && *d) return d;
  if (const char* d = std::getenv("XDG_CACHE_HOME"); d && *d) return std::string(d) + "/tensorcode";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/tensorcode";
  const char* t = std::getenv("TMPDIR");
  return std::string(t && *t ? t : "/tmp") + "/tensorcode-" + std::to_string(::geteuid());
}

/// Why a file or folder with status `st` is not this user's alone to write
/// (empty: it is).
std::string untrusted(const struct stat& st, const std::string& path) {
  if (st.st_uid != ::geteuid())
    return "'" + path + "' is owned by uid " + std::to_string(st.st_uid) + ", not by this user (uid " +
           std::to_string(::geteuid()) + ")";
  if (st.st_mode & (S_IWGRP | S_IWOTH)) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    return "'" + path + "' is writable by " + ((st.st_mode & S_IWOTH) ? "others" : "its group") + " (mode " + mode + ")";
  }
  return "";
}

/// An open folder of the cache: every file in it is reached with *at() calls
/// relative to `fd`, so a rename of the path after the checks changes nothing.
struct CacheDir {
  std::string path;  ///< the resolved path (no symlinks), for messages and the compiler
  int fd = -1;
  CacheDir() = default;
  CacheDir(const CacheDir&) = delete;
  CacheDir& operator=(const CacheDir&) = delete;
  ~CacheDir() {
    if (fd >= 0) ::close(fd);
  }
};

/// Resolves `path` one component at a time: a symlink on the way must be this
/// user's or root's (the kernel would follow anyone's), and what is missing
/// is created 0700. Then the folder itself is opened without following a
/// link and must be this user's, not writable by group or others. An empty
/// result: the cache is refused (`why`).
bool open_cache_dir(const std::string& where, CacheDir& dir, std::string& why) {
  std::string path = where;
  if (path[0] != '/') {
    char cwd[4096];
    if (!::getcwd(cwd, sizeof cwd)) {
      why = "cannot resolve the plan cache '" + path + "': " + errno_text(errno);
      return false;
    }
    path = std::string(cwd) + "/" + path;
  }
  // Components still to walk, front first; `done` is the resolved prefix.
  std::deque<std::string> todo;
  auto push_components = [&](const std::string& text) {
    std::deque<std::string> parts;
    std::size_t b = 0;
    while (b <= text.size()) {
      const std::size_t e = std::min(text.find('/', b), text.size());
      if (e > b) parts.push_back(text.substr(b, e - b));
      b = e + 1;
    }
    todo.insert(todo.begin(), parts.begin(), parts.end());
  };
  push_components(path);
  std::string done;
  int links = 0;
  while (!todo.empty()) {
    const std::string part = todo.front();
    todo.pop_front();
    if (part == ".") continue;
    if (part == "..") {
      const auto slash = done.rfind('/');
      done = slash == std::string::npos ? "" : done.substr(0, slash);
      continue;
    }
    const std::string next = done + "/" + part;
    struct stat st {};
    if (::lstat(next.c_str(), &st) != 0) {
      if (errno != ENOENT) {
        why = "cannot reach the plan cache '" + path + "': '" + next + "': " + errno_text(errno);
        return false;
      }
      if (::mkdir(next.c_str(), 0700) != 0 && errno != EEXIST) {
        why = "the plan cache '" + path + "' cannot be created: '" + next + "': " + errno_text(errno);
        return false;
      }
      if (::lstat(next.c_str(), &st) != 0) {
        why = "the plan cache '" + path + "' cannot be created: '" + next + "': " + errno_text(errno);
        return false;
      }
    }
    if (S_ISLNK(st.st_mode)) {
      if (st.st_uid != ::geteuid() && st.st_uid != 0) {
        why = "cache refused: '" + next + "' is a symbolic link owned by uid " + std::to_string(st.st_uid) +
              ", not by this user (uid " + std::to_string(::geteuid()) + ") or root";
        return false;
      }
      if (++links > 40) {
        why = "cache refused: too many symbolic links in '" + path + "'";
        return false;
      }
      char buf[4096];
      const ssize_t n = ::readlink(next.c_str(), buf, sizeof buf - 1);
      if (n < 0) {
        why = "cannot reach the plan cache '" + path + "': '" + next + "': " + errno_text(errno);
        return false;
      }
      const std::string target(buf, static_cast<std::size_t>(n));
      if (target[0] == '/') done.clear();
      push_components(target);
      continue;
    }
    done = next;
  }
  if (done.empty()) done = "/";
  dir.path = done;
  dir.fd = ::open(done.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (dir.fd < 0) {
    why = "cannot open the plan cache '" + done + "': " + errno_text(errno);
    return false;
  }
  struct stat st {};
  if (::fstat(dir.fd, &st) != 0) {
    why = "cannot open the plan cache '" + done + "': " + errno_text(errno);
    return false;
  }
  if (std::string bad = untrusted(st, done); !bad.empty()) {
    why = "cache refused: " + bad;
    return false;
  }
  return true;
}

// ---- the files of one entry ------------------------------------------------
//
// plan-KEY.so (the shared object), plan-KEY.sum ("sha256 HEX" of the .so)
// and plan-KEY.c (the source, compared with the wanted one). Compiles write
// .plan-KEY.tmp.PID.N.{c,so} first; write_file_atomic's own temporaries are
// .plan-KEY.sum.tmp.XXXXXX.

enum class Entry { Intact, Missing, Damaged, Refused };

/// Reads the whole of an open file.
bool read_fd(int fd, std::string& out) {
  out.clear();
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      out.append(buf, static_cast<std::size_t>(n));
    } else if (n == 0) {
      return true;
    } else if (errno != EINTR) {
      return false;
    }
  }
}

/// Opens dir/name without following a link and checks it: Intact (fd set),
/// Missing, Damaged (a link or not a regular file of ours: rebuilt) or Refused
/// (someone else's file: `why`).
Entry open_entry_file(const CacheDir& dir, const std::string& name, int& fd, std::string& why) {
  fd = ::openat(dir.fd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  const std::string path = dir.path + "/" + name;
  if (fd < 0) {
    if (errno == ENOENT) return Entry::Missing;
    struct stat lst {};
    if (::fstatat(dir.fd, name.c_str(), &lst, AT_SYMLINK_NOFOLLOW) == 0) {
      if (std::string bad = untrusted(lst, path); !bad.empty()) {
        why = "cache refused: " + bad;
        return Entry::Refused;
      }
      why = "'" + path + "' is a symbolic link";
      return Entry::Damaged;
    }
    why = "cannot open '" + path + "': " + errno_text(errno);
    return Entry::Damaged;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    fd = -1;
    why = "cache refused: '" + path + "' is not a regular file";
    return Entry::Refused;
  }
  if (std::string bad = untrusted(st, path); !bad.empty()) {
    ::close(fd);
    fd = -1;
    why = "cache refused: " + bad;
    return Entry::Refused;
  }
  return Entry::Intact;
}

/// Checks the entry `key` for `source` and loads it into `k`.
Entry load_entry(const CacheDir& dir, const std::string& key, const std::string& source,
                 const std::vector<std::string>& symbols, CompiledKernel& k, std::string& why) {
  const std::string so_name = "plan-" + key + ".so";
  int so_fd = -1, sum_fd = -1, c_fd = -1;
  Entry e = open_entry_file(dir, so_name, so_fd, why);
  if (e != Entry::Intact) return e;
  struct Closer {
    int* fds[3];
    ~Closer() {
      for (int* f : fds)
        if (*f >= 0) ::close(*f);
    }
  } closer{{&so_fd, &sum_fd, &c_fd}};
  for (auto [name, fd] : {std::pair{"plan-" + key + ".sum", &sum_fd}, std::pair{"plan-" + key + ".c", &c_fd}}) {
    e = open_entry_file(dir, name, *fd, why);
    if (e == Entry::Refused) return e;
    if (e != Entry::Intact) {
      if (why.empty()) why = "'" + dir.path + "/" + name + "' is missing";
      return Entry::Damaged;
    }
  }
  std::string so_bytes, sum, c_text;
  if (!read_fd(so_fd, so_bytes) || !read_fd(sum_fd, sum) || !read_fd(c_fd, c_text)) {
    why = "cannot read the entry '" + dir.path + "/" + so_name + "'";
    return Entry::Damaged;
  }
  if (c_text != source) {
    why = "'" + dir.path + "/plan-" + key + ".c' holds another source";
    return Entry::Damaged;
  }
  if (sum != "sha256 " + sha256_hex(so_bytes) + "\n") {
    why = "'" + dir.path + "/" + so_name + "' does not match its checksum";
    return Entry::Damaged;
  }
  // The bytes just checked are the ones loaded: the folder is this user's
  // alone, and the loaded file is checked to be the one opened.
  const std::string path = dir.path + "/" + so_name;
  void* h = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char* err = ::dlerror();
    why = std::string("cannot load '") + path + "': " + (err ? err : "dlopen failed");
    return Entry::Damaged;
  }
  k.handle = std::shared_ptr<void>(h, [](void* p) { ::dlclose(p); });
  struct stat opened {}, loaded {};
  if (::fstat(so_fd, &opened) != 0 || ::stat(path.c_str(), &loaded) != 0 || opened.st_ino != loaded.st_ino ||
      opened.st_dev != loaded.st_dev) {
    k.handle.reset();
    why = "'" + path + "' changed while it was loaded";
    return Entry::Damaged;
  }
  bool found = true;
  if (symbols.empty()) {
    k.one = reinterpret_cast<CompiledKernel::OneFn>(::dlsym(h, "tc_plan_one"));
    k.block = reinterpret_cast<CompiledKernel::BlockFn>(::dlsym(h, "tc_plan_block"));
    found = k.one && k.block;
  } else {
    k.fns.clear();
    for (const std::string& s : symbols) {
      k.fns.push_back(::dlsym(h, s.c_str()));
      found = found && k.fns.back();
    }
  }
  if (!found) {
    k.handle.reset();
    why = "'" + path + "' lacks the plan's functions";
    return Entry::Damaged;
  }
  k.path = path;
  return Entry::Intact;
}

/// Removes what killed compiles left: a .plan-*.tmp.PID.* of a process that
/// no longer runs (or older than a day: the PID may have been reused), and
/// write_file_atomic's .plan-*.tmp.XXXXXX older than an hour (a write takes
/// milliseconds, so an older one was interrupted by SIGKILL).
void remove_stale_temporaries(const CacheDir& dir) {
  const int fd = ::dup(dir.fd);
  if (fd < 0) return;
  DIR* d = ::fdopendir(fd);
  if (!d) {
    ::close(fd);
    return;
  }
  const auto now = std::time(nullptr);
  while (const dirent* ent = ::readdir(d)) {
    const std::string name = ent->d_name;
    if (name.rfind(".plan-", 0) != 0) continue;
    const auto tmp = name.find(".tmp.");
    if (tmp == std::string::npos) continue;
    struct stat st {};
    if (::fstatat(dir.fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || st.st_uid != ::geteuid()) continue;
    const double age = std::difftime(now, st.st_mtime);
    const char* digits = name.c_str() + tmp + 5;
    char* end = nullptr;
    const long pid = std::strtol(digits, &end, 10);
    const bool tagged = end != digits && *end == '.';
    bool stale;
    if (tagged)
      stale = age > 86400 || (pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH);
    else
      stale = age > 3600;
    if (stale) ::unlinkat(dir.fd, name.c_str(), 0);
  }
  ::closedir(d);
}

// ---- the compiler ----------------------------------------------------------

/// The compiler ($TC_CC, else cc) and its flags: no contraction and no
/// fast-math, so every operation is the IEEE one the interpreter performs;
/// -march=native, the ISA the evaluator's Highway dispatch picks here (with
/// 512-bit vectors preferred where AVX-512 is there, as Highway uses them).
struct Compiler {
  std::string cc;
  std::vector<std::string> flags;
  std::string version;  ///< `cc --version`, part of the cache key; empty: not usable
  std::string why;      ///< why it is not usable
};

const Compiler& compiler(const std::string& cc) {
  // Never destroyed: a background compile may still read it while the
  // process exits (the queue's exit handler stops it first, but not before
  // every static destructor).
  static auto& m = *new std::mutex;
  static auto& seen = *new std::map<std::string, Compiler>;
  std::lock_guard<std::mutex> lock(m);
  auto it = seen.find(cc);
  if (it != seen.end()) return it->second;
  Compiler c;
  c.cc = cc;
  ChildLimits limits;
  limits.timeout_s = 30;
  const ChildResult r = run_child({cc, "--version"}, limits);
  if (r.ok()) c.version = r.output;
  // -O1 and, for GCC, no temporary-expression replacement: the block's
  // statements stay in the written order, copies of a node interleaved, so
  // independent chains overlap (GCC otherwise emits one chain after another
  // and long_loop runs 3x slower); -O2 is slower to compile and no faster.
  // The target's -march comes with the source (PlanSource::flags).
  c.flags = {"-std=gnu99", "-O1", "-ffp-contract=off", "-fno-fast-math", "-fno-trapping-math", "-fPIC", "-shared"};
  if (c.version.find("clang") == std::string::npos) c.flags.push_back("-fno-tree-ter");
  if (c.version.empty())
    c.why = "no C compiler: '" + cc + "' " +
            (r.end == ChildResult::End::NotStarted ? "could not be started" : "--version failed (" + r.describe(30) + ")") +
            " (set TC_CC)";
  return seen.emplace(cc, std::move(c)).first->second;
}

/// How long a compile may take before the compiler is killed:
/// $TC_PLAN_COMPILE_TIMEOUT seconds (`given`), else 30 s + 20 ms per node,
/// at most 10 minutes.
double compile_timeout(double given, std::size_t source_bytes) {
  if (given > 0) return given;
  // The source has a few hundred bytes per node.
  const double nodes = static_cast<double>(source_bytes) / 400.0;
  return std::min(600.0, 30.0 + 0.02 * nodes);
}

/// Writes `text` to a new file dir/name (which must not exist).
bool write_new(const CacheDir& dir, const std::string& name, const std::string& text, std::string& why) {
  const int fd = ::openat(dir.fd, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) {
    why = "cannot write '" + dir.path + "/" + name + "': " + errno_text(errno);
    return false;
  }
  const char* p = text.data();
  std::size_t left = text.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      why = "cannot write '" + dir.path + "/" + name + "': " + errno_text(errno);
      ::close(fd);
      return false;
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  if (::close(fd) != 0) {
    why = "cannot write '" + dir.path + "/" + name + "': " + errno_text(errno);
    return false;
  }
  return true;
}

/// Compiles `source` into the entry `key`: the compiler writes temporaries
/// (removed on any failure, on SIGINT/SIGTERM/SIGHUP, and by a later compile
/// after a SIGKILL), the object is fsynced, renamed into place, and its
/// checksum written last (write_file_atomic), so an entry is whole or not
/// there.
bool compile_entry(const CacheDir& dir, const std::string& key, const std::string& source, const Compiler& cc,
                   double timeout, const std::atomic<bool>* cancel, std::string& why) {
  remove_stale_temporaries(dir);
  static std::atomic<unsigned> counter{0};
  const std::string tag = ".plan-" + key + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(++counter);
  TemporaryName tmp_c(dir.path + "/" + tag + ".c"), tmp_so(dir.path + "/" + tag + ".so");
  if (!write_new(dir, tag + ".c", source, why)) return false;
  std::vector<std::string> argv{cc.cc};
  argv.insert(argv.end(), cc.flags.begin(), cc.flags.end());
  argv.insert(argv.end(), {"-o", tmp_so.path(), tmp_c.path(), "-lm"});
  ChildLimits limits;
  limits.timeout_s = compile_timeout(timeout, source.size());
  limits.cancel = cancel;
  ChildResult r = run_child(argv, limits);
  if (!r.ok()) {
    std::string msg = r.output;
    if (msg.size() > 400) msg.resize(400);
    while (!msg.empty() && (msg.back() == '\n' || msg.back() == ' ')) msg.pop_back();
    if (r.end == ChildResult::End::TimedOut)
      why = "the C compiler '" + cc.cc + "' " + r.describe(limits.timeout_s) +
            " on the compiled plan (TC_PLAN_COMPILE_TIMEOUT sets the limit)";
    else if (r.end == ChildResult::End::Cancelled)
      why = "the compile was cancelled";
    else
      why = "'" + cc.cc + "' failed on the compiled plan (" + r.describe() + "): " + msg;
    return false;
  }
  const int fd = ::openat(dir.fd, (tag + ".so").c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  std::string bytes;
  if (fd < 0 || !read_fd(fd, bytes) || ::fsync(fd) != 0) {
    why = "cannot read back the compiled plan '" + tmp_so.path() + "': " + errno_text(errno);
    if (fd >= 0) ::close(fd);
    return false;
  }
  ::close(fd);
  const std::string base = "plan-" + key;
  // The old checksum goes first: until the new one is written, a reader
  // sees no whole entry rather than a new object with an old checksum.
  ::unlinkat(dir.fd, (base + ".sum").c_str(), 0);
  if (::renameat(dir.fd, (tag + ".so").c_str(), dir.fd, (base + ".so").c_str()) != 0) {
    why = "cannot store the compiled plan in '" + dir.path + "': " + errno_text(errno);
    return false;
  }
  tmp_so.keep();
  if (::renameat(dir.fd, (tag + ".c").c_str(), dir.fd, (base + ".c").c_str()) != 0) {
    why = "cannot store the compiled plan in '" + dir.path + "': " + errno_text(errno);
    ::unlinkat(dir.fd, (base + ".so").c_str(), 0);
    return false;
  }
  tmp_c.keep();
  if (Status s = write_file_atomic(dir.path + "/" + base + ".sum", "sha256 " + sha256_hex(bytes) + "\n"); !s) {
    why = s.error().message;
    ::unlinkat(dir.fd, (base + ".so").c_str(), 0);
    ::unlinkat(dir.fd, (base + ".c").c_str(), 0);
    return false;
  }
  return true;
}

#endif  // __EMSCRIPTEN__

PlanEnv read_plan_env() {
  PlanEnv e;
#ifndef __EMSCRIPTEN__
  e.cache = cache_path();
  const char* cc = std::getenv("TC_CC");
  e.cc = cc && *cc ? cc : "cc";
  if (const char* t = std::getenv("TC_PLAN_COMPILE_TIMEOUT"); t && *t) {
    char* end = nullptr;
    const double v = std::strtod(t, &end);
    if (end != t && *end == '\0' && v > 0 && std::isfinite(v)) e.timeout = v;
  }
#endif
  return e;
}

std::shared_ptr<const CompiledKernel> load_plan_in(const PlanEnv& env, PlanSource src, bool probe_only,
                                                   PlanFailure& failure, const std::atomic<bool>* cancel) {
  failure = {};
#ifdef __EMSCRIPTEN__
  (void)env;
  (void)src;
  (void)probe_only;
  (void)cancel;
  failure.reason = "no C compiler in the WebAssembly build";
  return nullptr;
#else
  const auto t0 = std::chrono::steady_clock::now();
  CacheDir dir;
  if (!open_cache_dir(env.cache, dir, failure.reason)) {
    failure.refused = failure.reason.rfind("cache refused", 0) == 0;
    return nullptr;
  }
  const Compiler& cc = compiler(env.cc);
  if (!cc.why.empty()) {
    failure.reason = cc.why;
    return nullptr;
  }
  std::string key_text = src.text + "\n" + cc.cc + "\n" + cc.version;
  for (const auto& f : cc.flags) key_text += " " + f;
  for (const auto& f : src.flags) key_text += " " + f;
  const std::string key = sha256_hex(key_text);
  auto k = std::make_shared<CompiledKernel>();
  std::string why;
  Entry e = load_entry(dir, key, src.text, src.symbols, *k, why);
  k->cache_hit = e == Entry::Intact;
  if (e == Entry::Refused) {
    failure.reason = why;
    failure.refused = true;
    return nullptr;
  }
  if (e != Entry::Intact) {
    if (probe_only) {
      failure.missing = true;
      failure.reason = e == Entry::Missing ? "not in the plan cache" : "damaged in the plan cache: " + why;
      return nullptr;
    }
    // Missing or damaged (a truncated object, a wrong checksum, a stale
    // source): compiled anew, replacing what was there.
    Compiler target = cc;  // with the target's -march (PlanSource::flags)
    target.flags.insert(target.flags.end(), src.flags.begin(), src.flags.end());
    if (!compile_entry(dir, key, src.text, target, env.timeout, cancel, failure.reason)) return nullptr;
    e = load_entry(dir, key, src.text, src.symbols, *k, why);
    if (e != Entry::Intact) {
      failure.refused = e == Entry::Refused;
      failure.reason = "the compiled plan does not load: " + why;
      return nullptr;
    }
  }
  k->isa = src.isa.empty() ? host_isa() : src.isa;
  k->src = std::move(src);
  k->src.text = std::string();  // the kernel needs only the slots (megabytes for a large program)
  k->seconds = seconds_since(t0);
  return k;
#endif
}

}  // namespace

std::shared_ptr<const CompiledKernel> load_plan(PlanSource src, bool probe_only, PlanFailure& failure,
                                                const std::atomic<bool>* cancel) {
  return load_plan_in(read_plan_env(), std::move(src), probe_only, failure, cancel);
}

// ---- the background compiles (Auto) ----------------------------------------

/// One compile the background worker does for a PlanState.
struct CompileJob {
  PlanEnv env;
  PlanSource src;
  std::atomic<bool> abandoned{false};  ///< its evaluator is gone: skipped if not started yet
  std::atomic<bool> cancel{false};     ///< the process exits: skipped, or its compiler killed
  std::atomic<bool> done{false};    ///< kernel/failure are final (release)
  std::shared_ptr<const CompiledKernel> kernel;
  PlanFailure failure;
};

namespace {

/// One worker thread compiles the queued jobs in turn (a compiler at a time
/// is enough work for the machine) and ends when the queue is empty. At
/// process exit the running compile is cancelled (its compiler killed, its
/// temporaries removed) and the worker joined, so exit never waits for a
/// compile and no thread outlives the statics it uses.
class CompileQueue {
 public:
  static CompileQueue& get() {
    static CompileQueue& q = *new CompileQueue;  // never destroyed: see at_exit
    return q;
  }

  void submit(std::shared_ptr<CompileJob> job) {
#ifndef __EMSCRIPTEN__
    (void)compiler(job->env.cc);  // built before the exit handler is registered, destroyed never
#endif
    std::unique_lock<std::mutex> lock(m_);
    if (exiting_) {
      job->failure.reason = "the process is exiting";
      job->done.store(true, std::memory_order_release);
      return;
    }
    if (!registered_) {
      registered_ = true;
      std::atexit([] { get().at_exit(); });
    }
    queue_.push_back(std::move(job));
    if (!running_) {
      if (worker_.joinable()) worker_.join();  // finished: it found the queue empty
      running_ = true;
      worker_ = std::thread([this] { work(); });
    }
  }

 private:
  void work() {
    std::unique_lock<std::mutex> lock(m_);
    while (!queue_.empty() && !exiting_) {
      std::shared_ptr<CompileJob> job = std::move(queue_.front());
      queue_.pop_front();
      if (job->cancel.load() || job->abandoned.load()) {
        job->failure.reason = "the compile was cancelled";
        job->done.store(true, std::memory_order_release);
        continue;
      }
      current_ = job;
      lock.unlock();
      job->kernel = load_plan_in(job->env, job->src, false, job->failure, &job->cancel);
      job->src.text.clear();
      job->src.text.shrink_to_fit();
      job->done.store(true, std::memory_order_release);
      lock.lock();
      current_.reset();
    }
    running_ = false;
  }

  void at_exit() {
    std::thread worker;
    {
      std::lock_guard<std::mutex> lock(m_);
      exiting_ = true;
      if (current_) current_->cancel.store(true);
      for (auto& job : queue_) job->cancel.store(true);
      worker = std::move(worker_);
    }
    if (worker.joinable()) worker.join();
  }

  std::mutex m_;
  std::deque<std::shared_ptr<CompileJob>> queue_;
  std::shared_ptr<CompileJob> current_;
  std::thread worker_;
  bool running_ = false, registered_ = false, exiting_ = false;
};

}  // namespace

PlanState::PlanState(EvalPlan choice) : choice_(choice) {
  if (const char* t = std::getenv("TC_PLAN_COMPILE_AFTER"); t && *t) {
    char* end = nullptr;
    const double v = std::strtod(t, &end);
    if (end != t && *end == '\0' && v >= 0 && std::isfinite(v)) compile_after_s_ = v;
  }
}

PlanState::~PlanState() {
  std::lock_guard<std::mutex> lock(m_);
  // Still queued: nobody waits for it any more. Already running: it goes on
  // and fills the cache for the next evaluator of this program.
  if (job_ && !job_->done.load(std::memory_order_acquire)) job_->abandoned.store(true);
}

void PlanState::set_failure(const PlanFailure& f) const {
  failed_ = true;
  reason_ = f.reason;
}

void PlanState::try_load(const SourceFn& make, bool probe_only) {
#ifdef __EMSCRIPTEN__
  // Nothing can ever load here (load_plan): writing the C source first cost
  // chain1024 (5122 nodes) tens of ms of its first batch in the browser.
  (void)make;
  (void)probe_only;
  failed_ = true;
  reason_ = "no C compiler in the WebAssembly build";
  return;
#endif
  const auto t0 = std::chrono::steady_clock::now();
  auto src = make();
  if (!src) {
    failed_ = true;
    reason_ = src.error().message;
    return;
  }
  PlanFailure f;
  auto k = load_plan(probe_only ? *src : std::move(*src), probe_only, f);
  if (!k) {
    if (probe_only && f.missing) {
      reason_ = f.reason;
      probed_src_ = std::move(*src);
      return;
    }
    set_failure(f);
    return;
  }
  auto loaded = std::const_pointer_cast<CompiledKernel>(k);
  loaded->seconds = seconds_since(t0);  // with the source's writing
  kernel_ = std::move(loaded);
  reason_.clear();
  ready_.store(kernel_.get(), std::memory_order_release);
}

void PlanState::start_compile(const SourceFn& make) {
  auto job = std::make_shared<CompileJob>();
  job->env = read_plan_env();
  if (probed_src_) {
    job->src = std::move(*probed_src_);
    probed_src_.reset();
  } else {
    auto src = make();
    if (!src) {
      failed_ = true;
      reason_ = src.error().message;
      return;
    }
    job->src = std::move(*src);
  }
  job_ = job;
  job_raw_.store(job.get(), std::memory_order_release);
  reason_ = "compiling in background";
  compiling_.store(true, std::memory_order_release);
  CompileQueue::get().submit(std::move(job));
}

void PlanState::adopt_job() const {
  if (!compiling_.load(std::memory_order_relaxed) || !job_->done.load(std::memory_order_acquire)) return;
  if (job_->kernel) {
    kernel_ = std::move(job_->kernel);
    reason_.clear();
    ready_.store(kernel_.get(), std::memory_order_release);
  } else {
    set_failure(job_->failure);
  }
  compiling_.store(false, std::memory_order_release);
}

double estimated_compile_seconds(std::size_t nodes, PlanWork work) {
  const bool gradient = work == PlanWork::GradientCases || work == PlanWork::GradientBatch;
  return gradient ? kGradCompileBaseS + static_cast<double>(nodes) * kGradCompileNodeS
                  : kCompileBaseS + static_cast<double>(nodes) * kCompileNodeS;
}

const CompiledKernel* PlanState::kernel_for(const Prepared& p, double node_cases, PlanWork work) {
  if (const CompiledKernel* k = ready_.load(std::memory_order_acquire)) return k;
  return kernel_for([&] { return compiled_source(p); }, p.order.size(), node_cases, work);
}

const CompiledKernel* PlanState::kernel_for(const SourceFn& make, std::size_t node_count, double node_cases,
                                            PlanWork work) {
  if (const CompiledKernel* k = ready_.load(std::memory_order_acquire)) return k;
  if (choice_ == EvalPlan::Interpreter || failed_.load(std::memory_order_relaxed)) return nullptr;
  if (compiling_.load(std::memory_order_acquire)) {
    // A background compile: this call interprets unless it is done (checked
    // without the lock, so concurrent callers do not queue on it meanwhile).
    if (!job_raw_.load(std::memory_order_acquire)->done.load(std::memory_order_acquire)) return nullptr;
    std::lock_guard<std::mutex> lock(m_);
    adopt_job();
    return kernel_.get();
  }
  // Auto, ski rental: once the interpreter has spent (with this call) about
  // what finding the plan costs, look in the cache; once it has spent what
  // compiling costs, compile. Neither path costs more than twice the better.
  const double nodes = static_cast<double>(node_count);
  const double compile_at = compile_after_s_ >= 0 ? compile_after_s_ : estimated_compile_seconds(node_count, work);
  const double probe_at = std::min(nodes * kProbeNodeS, compile_at);
  double spent = 0.0;
  if (choice_ == EvalPlan::Auto) {
    const double add = estimated_seconds(work, node_cases, nodes);
    double before = spent_s_.load(std::memory_order_relaxed);
    while (!spent_s_.compare_exchange_weak(before, before + add, std::memory_order_relaxed)) {
    }
    spent = before + add;
    const bool due = (!probed_.load(std::memory_order_relaxed) && spent >= probe_at) || spent >= compile_at;
    if (!due) return nullptr;
  }
  std::lock_guard<std::mutex> lock(m_);
  if (kernel_ || failed_ || compiling_) return kernel_.get();
  if (choice_ == EvalPlan::Compiled) {
    // Chosen explicitly: the first call waits for the compile (bounded by
    // the compiler's timeout), so every call after it runs compiled.
    try_load(make, false);
    return kernel_.get();
  }
  if (!probed_ && spent >= probe_at) {
    probed_ = true;
    try_load(make, true);
    if (kernel_ || failed_) return kernel_.get();
  }
  // Never on the caller's clock: this call (and those after it until the
  // plan is loaded) interprets while the worker compiles.
  if (spent >= compile_at) start_compile(make);
  return kernel_.get();
}

PlanStatus PlanState::status() const {
  std::lock_guard<std::mutex> lock(m_);
  adopt_job();
  PlanStatus s;
  s.compiled = kernel_ != nullptr;
  s.compiling = compiling_.load(std::memory_order_relaxed);
  s.reason = choice_ == EvalPlan::Interpreter ? "the interpreter was chosen (EvalPlan::Interpreter)" : reason_;
#ifdef __EMSCRIPTEN__
  // Nothing is ever compiled here, so "not worth compiling yet" would mislead.
  if (choice_ != EvalPlan::Interpreter && s.reason.empty()) s.reason = "no C compiler in the WebAssembly build";
#endif
  if (kernel_) {
    s.cache_hit = kernel_->cache_hit;
    s.compile_seconds = kernel_->seconds;
    s.path = kernel_->path;
    s.isa = kernel_->isa;
    s.compiled_cases = kernel_->cases.load(std::memory_order_relaxed);
    s.handed_back = kernel_->handed_back.load(std::memory_order_relaxed);
    s.summary = "compiled (" + s.isa + ")";
  } else if (choice_ == EvalPlan::Interpreter) {
    s.summary = "interpreting: the interpreter was chosen";
  } else if (s.reason.empty()) {
    s.summary = "interpreting: not worth compiling yet";
  } else {
    s.summary = "interpreting: " + s.reason;
  }
  return s;
}

namespace {

void fill_prm(const CompiledKernel& k, const Fixed& fixed, std::vector<double>& prm) {
  prm.resize(std::max<std::size_t>(1, k.src.prm.size()));
  for (std::size_t j = 0; j < k.src.prm.size(); ++j) {
    const auto [is_state, slot] = k.src.prm[j];
    prm[j] = is_state ? fixed.states[slot] : fixed.params[slot];
  }
}

}  // namespace

bool run_case_compiled(const CompiledKernel& k, const Prepared& p, const double* inputs, const Fixed& fixed,
                       CaseResult& out) {
  thread_local std::vector<double> prm, values;
  fill_prm(k, fixed, prm);
  values.resize(k.src.outputs);
  if (k.one(inputs, prm.data(), values.data()) != 0) {
    k.handed_back.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  const std::size_t nout = p.program.outputs.size();
  out.outputs.assign(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(nout));
  out.next_state.assign(values.begin() + static_cast<std::ptrdiff_t>(nout), values.end());
  return true;
}

Status run_batch_compiled(const CompiledKernel& k, const Prepared& p, std::span<const std::span<const double>> columns,
                          std::size_t count, const Env& fixed_env, BatchResult& out, unsigned threads) {
  if (Status s = check_batch_columns(p, columns, count); !s) return s;
  auto fixed = resolve_fixed(p, fixed_env);
  if (!fixed) return fixed.error();
  std::vector<double> prm;
  fill_prm(k, *fixed, prm);
  const std::size_t nout = p.program.outputs.size(), nupd = p.program.updates.size();
  out.count = count;
  out.outputs.assign(nout, std::vector<double>(count, kNaNOf<double>));
  out.next_state.assign(nupd, std::vector<double>(count, kNaNOf<double>));
  out.failed.assign(count, 0);
  out.errors.clear();
  if (count == 0) return ok_status();

  // Cases per kernel call: long enough to amortise the call, short enough
  // that the flags stay in cache. Chunks of whole blocks go to the threads;
  // each keeps its errors apart, joined in chunk order (thread-count proof).
  constexpr std::size_t kBlock = 1024;
  const std::size_t nthreads = threads == 0 ? static_cast<std::size_t>(tbb::info::default_concurrency()) : threads;
  const std::size_t blocks = (count + kBlock - 1) / kBlock;
  const std::size_t chunk = kBlock * std::max<std::size_t>(1, std::min<std::size_t>(16, blocks / (nthreads * 4)));
  const std::size_t nchunks = (count + chunk - 1) / chunk;
  auto run_chunk = [&](std::size_t begin, std::size_t end, std::vector<std::pair<std::size_t, Diagnostic>>& errors) {
    std::vector<const double*> in(std::max<std::size_t>(1, columns.size()));
    std::vector<double*> outp(std::max<std::size_t>(1, nout + nupd));
    std::vector<int> flags(kBlock);
    Workspace ws;
    std::vector<double> case_inputs(p.inputs.size());
    Diagnostic err;
    std::uint64_t flagged = 0;
    for (std::size_t start = begin; start < end; start += kBlock) {
      const std::size_t m = std::min(kBlock, end - start);
      for (std::size_t c = 0; c < columns.size(); ++c) in[c] = columns[c].data() + start;
      for (std::size_t o = 0; o < nout; ++o) outp[o] = out.outputs[o].data() + start;
      for (std::size_t u = 0; u < nupd; ++u) outp[nout + u] = out.next_state[u].data() + start;
      k.block(static_cast<long>(m), in.data(), prm.data(), outp.data(), flags.data());
      for (std::size_t i = 0; i < m; ++i)
        if (flags[i]) {
          ++flagged;
          rerun_case(p, columns, start + i, *fixed, ws, case_inputs, err, out, errors);
        }
    }
    k.cases.fetch_add(end - begin, std::memory_order_relaxed);
    k.handed_back.fetch_add(flagged, std::memory_order_relaxed);
  };
  if (nthreads <= 1 || nchunks <= 1) {
    run_chunk(0, count, out.errors);
    return ok_status();
  }
  std::vector<std::vector<std::pair<std::size_t, Diagnostic>>> errors(nchunks);
  tbb::task_arena arena(static_cast<int>(nthreads));
  arena.execute([&] {
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, nchunks, 1), [&](const tbb::blocked_range<std::size_t>& r) {
      for (std::size_t c = r.begin(); c < r.end(); ++c) run_chunk(c * chunk, std::min(count, (c + 1) * chunk), errors[c]);
    });
  });
  for (auto& e : errors)
    for (auto& item : e) out.errors.push_back(std::move(item));
  return ok_status();
}

}  // namespace tc::eval_detail
