#include "base/spawn.h"

#include <algorithm>
#include <cerrno>
#include <cstring>

#ifndef __EMSCRIPTEN__
#include <csignal>
#include <fcntl.h>
#include <pthread.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
extern char** environ;
#endif

namespace tc {

std::string Spawned::describe() const { return std::string(step) + ": " + std::strerror(error); }

#ifdef __EMSCRIPTEN__

Spawned spawn_process(const SpawnSpec&) { return {-1, ENOSYS, "vfork"}; }

#else

namespace {

// The steps the child can fail at, by index: the child reports an index
// and an errno through a pipe, never a pointer (under ThreadSanitizer vfork
// is a fork, so the child's memory is not the parent's).
constexpr const char* kSteps[] = {"pipe", "vfork", "setpgid", "dup2", "setrlimit", "exec"};
enum Step : int { kPipe, kVfork, kSetpgid, kDup2, kSetrlimit, kExec };

struct ChildFailure {
  int error;
  int step;
};

/// What the child needs, all computed before vfork.
struct ChildPlan {
  const SpawnSpec* spec;
  const char* program;
  char* const* argv;
  char* const* envp;
  int status_fd;
  pid_t parent;
};

/// The child, on the parent's stack and memory until exec: system calls
/// only, and it never returns.
[[noreturn]] void child_steps(const ChildPlan& plan) {
  const SpawnSpec& spec = *plan.spec;
  ChildFailure failure{0, kExec};
  for (int sig = 1; sig < NSIG; ++sig) {
    struct sigaction now;
    if (::sigaction(sig, nullptr, &now) != 0 || now.sa_handler == SIG_IGN || now.sa_handler == SIG_DFL) continue;
    struct sigaction reset{};
    reset.sa_handler = SIG_DFL;
    ::sigaction(sig, &reset, nullptr);
  }
  if (spec.new_group && ::setpgid(0, 0) != 0) {
    failure = {errno, kSetpgid};
  } else {
    for (const auto& [from, to] : spec.dup_to) {
      if (from < 0) continue;
      // dup2 onto itself keeps close-on-exec set; clear it instead.
      const int r = from == to ? ::fcntl(to, F_SETFD, 0) : ::dup2(from, to);
      if (r < 0) {
        failure = {errno, kDup2};
        break;
      }
    }
  }
  if (failure.error == 0 && spec.close_from >= 0) {
    // Best effort (kernel 5.9+); the status pipe stays open (close-on-exec).
    const auto first = static_cast<unsigned>(spec.close_from), keep = static_cast<unsigned>(plan.status_fd);
    if (keep < first) {
      ::syscall(SYS_close_range, first, ~0u, 0u);
    } else {
      if (keep > first) ::syscall(SYS_close_range, first, keep - 1, 0u);
      ::syscall(SYS_close_range, keep + 1, ~0u, 0u);
    }
  }
  if (failure.error == 0)
    for (const auto& [resource, value] : spec.limits)
      if (::setrlimit(static_cast<__rlimit_resource>(resource), &value) != 0) {
        failure = {errno, kSetrlimit};
        break;
      }
  if (failure.error == 0) {
    if (spec.die_with_parent) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != plan.parent) ::_exit(127);  // the parent died before the line above
    }
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::execve(plan.program, plan.argv, plan.envp);
    failure = {errno, kExec};
  }
  (void)!::write(plan.status_fd, &failure, sizeof failure);
  ::_exit(127);
}

/// Kept out of line so that nothing of the caller's frame lives across vfork.
[[gnu::noinline]] pid_t vfork_and_exec(const ChildPlan& plan) {
  const pid_t pid = ::vfork();
  if (pid == 0) child_steps(plan);
  return pid;
}

}  // namespace

Spawned spawn_process(const SpawnSpec& spec) {
  Spawned out;
  std::vector<char*> args;
  args.reserve(spec.argv.size() + 1);
  for (const std::string& a : spec.argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  char* no_variables[] = {nullptr};
  char* const* const envp = spec.empty_environment ? no_variables : environ;
  const char* const program = spec.program.c_str();
  int status[2];
  if (::pipe2(status, O_CLOEXEC) != 0) {
    out.error = errno;
    out.step = kSteps[kPipe];
    return out;
  }
  // The child's end above every descriptor it dup2s onto, so no dup2 replaces it.
  int lowest = 3;
  for (const auto& [from, to] : spec.dup_to) lowest = std::max(lowest, to + 1);
  if (status[1] < lowest) {
    const int moved = ::fcntl(status[1], F_DUPFD_CLOEXEC, lowest);
    const int moved_error = errno;
    ::close(status[1]);
    if (moved < 0) {
      out.error = moved_error;
      out.step = kSteps[kPipe];
      ::close(status[0]);
      return out;
    }
    status[1] = moved;
  }
  const ChildPlan plan{&spec, program, args.data(), envp, status[1], ::getpid()};
  sigset_t all, before;
  sigfillset(&all);
  // Blocked across vfork: a signal caught in the child before it has reset
  // the handlers would run the parent's handler on the parent's memory.
  ::pthread_sigmask(SIG_SETMASK, &all, &before);
  const pid_t pid = vfork_and_exec(plan);
  const int vfork_error = errno;
  ::pthread_sigmask(SIG_SETMASK, &before, nullptr);
  ::close(status[1]);
  if (pid < 0) {
    ::close(status[0]);
    out.error = vfork_error;
    out.step = kSteps[kVfork];
    return out;
  }
  ChildFailure failure{0, kExec};
  ssize_t got;
  while ((got = ::read(status[0], &failure, sizeof failure)) < 0 && errno == EINTR) {
  }
  ::close(status[0]);
  if (got != 0) {  // the child reported a failure (or the pipe broke): it has exited or will
    int ignored;
    while (::waitpid(pid, &ignored, 0) < 0 && errno == EINTR) {
    }
    out.error = got == static_cast<ssize_t>(sizeof failure) ? failure.error : EIO;
    out.step = kSteps[failure.step >= 0 && failure.step <= kExec ? failure.step : kExec];
    return out;
  }
  out.pid = pid;
  return out;
}

#endif

}  // namespace tc
