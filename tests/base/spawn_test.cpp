// spawn_process: no pthread_atfork handler runs (libz3 registers one that
// crashed `prove` when cvc5 started beside a running Z3), each failing step
// is named, descriptors are mapped and the rest closed, limits are set, and
// the child leads its own group when asked.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <string>

#include "base/child_process.h"
#include "base/spawn.h"

namespace tc {
namespace {

std::atomic<int> g_prepared{0};

int exit_code_of(const Spawned& s) {
  int status = 0;
  while (::waitpid(s.pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
}

SpawnSpec shell(const std::string& script) {
  SpawnSpec s;
  s.program = "/bin/sh";
  s.argv = {"sh", "-c", script};
  return s;
}

TEST(Spawn, NoForkHandlerRuns) {
  static bool registered = false;
  if (!registered) {
    ASSERT_EQ(::pthread_atfork([] { ++g_prepared; }, nullptr, nullptr), 0);
    registered = true;
  }
  g_prepared = 0;
  const Spawned s = spawn_process(shell("exit 4"));
  ASSERT_TRUE(s.ok()) << s.describe();
  EXPECT_EQ(exit_code_of(s), 4);
  EXPECT_TRUE(run_child({"true"}).ok());
  EXPECT_EQ(g_prepared.load(), 0) << "a fork handler ran: the child was started with fork()";
}

TEST(Spawn, EachFailingStepIsNamed) {
  SpawnSpec missing;
  missing.program = "/nonexistent/tc-helper";
  missing.argv = {"tc-helper"};
  Spawned s = spawn_process(missing);
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.describe(), "exec: No such file or directory");

  SpawnSpec bad_fd = shell("exit 0");
  bad_fd.dup_to = {{987, 5}};  // not open
  s = spawn_process(bad_fd);
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.describe(), "dup2: Bad file descriptor");

  SpawnSpec bad_limit = shell("exit 0");
  bad_limit.limits = {{RLIMIT_NOFILE, {2, 1}}};  // soft above hard: EINVAL, for root too
  s = spawn_process(bad_limit);
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.describe(), "setrlimit: Invalid argument");
}

TEST(Spawn, DescriptorsAreMappedAndTheRestClosed) {
  int p[2];
  ASSERT_EQ(::pipe(p), 0);
  const int high = ::fcntl(p[1], F_DUPFD, 20);  // inheritable on purpose, above close_from
  ASSERT_GE(high, 20);
  ::close(p[1]);
  p[1] = high;
  const std::string open_check = "test -e /proc/self/fd/" + std::to_string(p[1]) + " && echo open || echo closed";
  int out[2];
  ASSERT_EQ(::pipe2(out, O_CLOEXEC), 0);
  SpawnSpec keep = shell("{ " + open_check + "; } >&7");
  keep.dup_to = {{out[1], 7}};
  keep.close_from = -1;
  SpawnSpec drop = keep;
  drop.close_from = 8;
  std::string seen[2];
  int k = 0;
  for (const SpawnSpec* spec : {&keep, &drop}) {
    const Spawned s = spawn_process(*spec);
    ASSERT_TRUE(s.ok()) << s.describe();
    EXPECT_EQ(exit_code_of(s), 0);
    char buf[32] = {};
    const ssize_t n = ::read(out[0], buf, sizeof buf - 1);
    seen[k++] = n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : "";
  }
  EXPECT_EQ(seen[0], "open\n");
  EXPECT_EQ(seen[1], "closed\n");
  for (int fd : {p[0], p[1], out[0], out[1]}) ::close(fd);
}

TEST(Spawn, LimitsGroupAndEnvironment) {
  int out[2];
  ASSERT_EQ(::pipe2(out, O_CLOEXEC), 0);
  ::setenv("TC_SPAWN_TEST", "here", 1);
  SpawnSpec s = shell("ulimit -c; echo \"[$TC_SPAWN_TEST]\"; cut -d' ' -f5 /proc/$$/stat; echo $$");
  s.dup_to = {{out[1], 1}};
  s.limits = {{RLIMIT_CORE, {0, 0}}};
  s.new_group = true;
  s.empty_environment = true;
  const Spawned child = spawn_process(s);
  ASSERT_TRUE(child.ok()) << child.describe();
  ::close(out[1]);
  std::string text;
  char buf[256];
  ssize_t n;
  while ((n = ::read(out[0], buf, sizeof buf)) > 0) text.append(buf, static_cast<std::size_t>(n));
  ::close(out[0]);
  EXPECT_EQ(exit_code_of(child), 0);
  const std::string pid = std::to_string(child.pid);
  EXPECT_EQ(text, "0\n[]\n" + pid + "\n" + pid + "\n") << "core limit, no variables, its own group";
}

}  // namespace
}  // namespace tc
