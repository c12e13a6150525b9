#include "base/child_process.h"

#include "base/spawn.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#ifndef __EMSCRIPTEN__
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#endif

namespace tc {

std::string ChildResult::describe(double timeout_s) const {
  char buf[64];
  switch (end) {
    case End::Exited:
      return "exit " + std::to_string(code);
    case End::Signalled:
      return "killed by signal " + std::to_string(code);
    case End::TimedOut:
      std::snprintf(buf, sizeof buf, "%g", timeout_s);
      return std::string("timed out after ") + buf + " s";
    case End::Cancelled:
      return "cancelled";
    case End::NotStarted:
      break;
  }
  return "could not be started";
}

#ifdef __EMSCRIPTEN__

ChildResult run_child(const std::vector<std::string>&, const ChildLimits&) {
  ChildResult r;
  r.output = "no processes can be started in the WebAssembly build";
  return r;
}

#else

namespace {

/// argv[0] as execv needs it: itself when it names a path, else the first
/// executable of that name on PATH (resolved before the spawn: the child only
/// makes system calls, base/spawn.h).
std::string find_program(const std::string& name) {
  if (name.find('/') != std::string::npos) return name;
  const char* env = std::getenv("PATH");
  const std::string path = env && *env ? env : "/usr/local/bin:/usr/bin:/bin";
  std::size_t begin = 0;
  for (;;) {
    const std::size_t end = path.find(':', begin);
    std::string dir = path.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
    if (dir.empty()) dir = ".";
    const std::string full = dir + "/" + name;
    if (::access(full.c_str(), X_OK) == 0) return full;
    if (end == std::string::npos) return "";
    begin = end + 1;
  }
}

void kill_group(pid_t pid) { ::kill(-pid, SIGKILL); }

}  // namespace

ChildResult run_child(const std::vector<std::string>& argv, const ChildLimits& limits) {
  ChildResult r;
  if (argv.empty()) return r;
  const std::string program = find_program(argv[0]);
  if (program.empty()) {
    r.output = "'" + argv[0] + "' is not on PATH";
    return r;
  }
  int out[2];
  if (::pipe2(out, O_CLOEXEC) != 0) {
    r.output = std::string("no pipe: ") + std::strerror(errno);
    return r;
  }
  const int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  SpawnSpec spec;
  spec.program = program;
  spec.argv = argv;
  spec.dup_to = {{null_fd, 0}, {out[1], 1}, {out[1], 2}};
  spec.new_group = true;
  const Spawned child = spawn_process(spec);
  if (null_fd >= 0) ::close(null_fd);
  ::close(out[1]);
  if (!child.ok()) {
    ::close(out[0]);
    r.end = ChildResult::End::NotStarted;
    const bool at_exec = std::string(child.step) == "exec";
    r.output = "'" + program + "' could not be started: " + (at_exec ? std::string(std::strerror(child.error)) : child.describe());
    return r;
  }
  const pid_t pid = child.pid;

  using clock = std::chrono::steady_clock;
  const auto deadline = clock::now() + std::chrono::duration_cast<clock::duration>(
                                           std::chrono::duration<double>(limits.timeout_s > 0 ? limits.timeout_s : 0));
  bool open = true, killed = false;
  clock::time_point killed_at{};
  int status = 0;
  for (;;) {
    if (killed && open && clock::now() - killed_at > std::chrono::seconds(2)) open = false;  // a helper that left the group
    if (!killed) {
      if (limits.cancel && limits.cancel->load(std::memory_order_relaxed)) {
        r.end = ChildResult::End::Cancelled;
        kill_group(pid);
        killed = true;
        killed_at = clock::now();
      } else if (limits.timeout_s > 0 && clock::now() >= deadline) {
        r.end = ChildResult::End::TimedOut;
        kill_group(pid);
        killed = true;
        killed_at = clock::now();
      }
    }
    if (open) {
      pollfd p{out[0], POLLIN, 0};
      const int n = ::poll(&p, 1, 50);
      if (n > 0) {
        char buf[4096];
        const ssize_t k = ::read(out[0], buf, sizeof buf);
        if (k > 0) {
          if (r.output.size() < limits.max_output)
            r.output.append(buf, std::min(static_cast<std::size_t>(k), limits.max_output - r.output.size()));
        } else if (k == 0 || errno != EINTR) {
          open = false;
        }
      }
      continue;
    }
    // Output closed: wait for the exit, still within the limits (a child
    // may close its output and go on running).
    const pid_t w = ::waitpid(pid, &status, WNOHANG);
    if (w == pid) break;
    if (w < 0 && errno != EINTR) {
      status = -1;
      break;
    }
    ::usleep(killed ? 1000 : 20000);
  }
  ::close(out[0]);
  if (killed) return r;
  if (status != -1 && WIFEXITED(status)) {
    r.end = ChildResult::End::Exited;
    r.code = WEXITSTATUS(status);
  } else {
    r.end = ChildResult::End::Signalled;
    r.code = status != -1 && WIFSIGNALED(status) ? WTERMSIG(status) : -1;
  }
  return r;
}

#endif

}  // namespace tc
