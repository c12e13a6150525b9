// write_file_atomic: what each kind of target becomes, the modes it leaves,
// and that no interruption ever leaves a partial target (SIGKILL at random
// moments) or a temporary (SIGINT/SIGTERM/SIGHUP).
#include <gtest/gtest.h>

#include <algorithm>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/atomic_file.h"
#include "support/cli_util.h"

namespace tc {
namespace {

namespace fs = std::filesystem;

/// A fresh folder, removed when the test process exits.
std::string make_dir() { return testing::temp_dir(); }

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void put(const std::string& path, const std::string& text, mode_t mode) {
  std::ofstream(path, std::ios::binary) << text;
  ASSERT_EQ(::chmod(path.c_str(), mode), 0);
}

mode_t mode_of(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

/// Files whose name marks them as a temporary of write_file_atomic.
std::size_t temporaries(const std::string& dir) {
  std::size_t n = 0;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().find(".tmp.") != std::string::npos) ++n;
  return n;
}

TEST(AtomicFile, ReplacesARegularFileKeepingItsMode) {
  std::string dir = make_dir(), f = dir + "/out.json";
  put(f, "old", 0640);
  ASSERT_TRUE(write_file_atomic(f, "new contents"));
  EXPECT_EQ(slurp(f), "new contents");
  EXPECT_EQ(mode_of(f), 0640u);
  put(f, "old", 0755);
  ASSERT_TRUE(write_file_atomic(f, "x"));
  EXPECT_EQ(mode_of(f), 0755u);
  EXPECT_EQ(temporaries(dir), 0u);
}

TEST(AtomicFile, ANewFileHonoursTheUmask) {
  std::string dir = make_dir();
  mode_t old = ::umask(027);
  ASSERT_TRUE(write_file_atomic(dir + "/a", "a"));
  ::umask(0);
  ASSERT_TRUE(write_file_atomic(dir + "/b", "b"));
  ::umask(077);
  ASSERT_TRUE(write_file_atomic(dir + "/c", "c"));
  ::umask(old);
  EXPECT_EQ(mode_of(dir + "/a"), 0640u);
  EXPECT_EQ(mode_of(dir + "/b"), 0666u);
  EXPECT_EQ(mode_of(dir + "/c"), 0600u);
}

TEST(AtomicFile, FollowsSymlinksToRegularFiles) {
  std::string dir = make_dir();
  fs::create_directory(dir + "/real");
  put(dir + "/real/target.json", "old", 0600);
  fs::create_symlink("real/target.json", dir + "/link.json");           // relative
  fs::create_symlink(dir + "/link.json", dir + "/link2.json");          // a chain
  ASSERT_TRUE(write_file_atomic(dir + "/link2.json", "through the links"));
  EXPECT_TRUE(fs::is_symlink(dir + "/link.json"));
  EXPECT_TRUE(fs::is_symlink(dir + "/link2.json"));
  EXPECT_EQ(slurp(dir + "/real/target.json"), "through the links");
  EXPECT_EQ(mode_of(dir + "/real/target.json"), 0600u);
  EXPECT_EQ(temporaries(dir), 0u);
  EXPECT_EQ(temporaries(dir + "/real"), 0u);
  // A dangling link creates the file it names, as the shell's > does.
  fs::create_symlink("real/new.json", dir + "/dangling.json");
  ASSERT_TRUE(write_file_atomic(dir + "/dangling.json", "created"));
  EXPECT_TRUE(fs::is_symlink(dir + "/dangling.json"));
  EXPECT_EQ(slurp(dir + "/real/new.json"), "created");
}

TEST(AtomicFile, WritesThroughAFifo) {
  std::string dir = make_dir(), fifo = dir + "/pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // The reader is open before the write (non-blocking, so nothing waits):
  // were the fifo replaced, the bytes would go elsewhere and the test fail
  // instead of hanging.
  int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  ASSERT_TRUE(write_file_atomic(fifo, "bytes for the reader"));
  char buf[64];
  ssize_t n = ::read(reader, buf, sizeof buf);
  ::close(reader);
  EXPECT_EQ(std::string(buf, n > 0 ? static_cast<std::size_t>(n) : 0), "bytes for the reader");
  struct stat st {};
  ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode)) << "the fifo was replaced by a file";
  EXPECT_EQ(temporaries(dir), 0u);
}

TEST(AtomicFile, ADeviceStaysADevice) {
  // As root a null device of our own (replacing the real /dev/null would
  // break the machine if this test failed); otherwise /dev/null itself,
  // which an unprivileged process could not replace anyway.
  std::string dir = make_dir();
  std::string dev = "/dev/null";
  if (::geteuid() == 0) {
    dev = dir + "/null";
    ASSERT_EQ(::mknod(dev.c_str(), S_IFCHR | 0666, makedev(1, 3)), 0);
  }
  ASSERT_TRUE(write_file_atomic(dev, "discarded"));
  struct stat st {};
  ASSERT_EQ(::lstat(dev.c_str(), &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode)) << dev << " is no longer a device";
  EXPECT_EQ(slurp(dev), "");
  EXPECT_EQ(temporaries(dir), 0u);
}

TEST(AtomicFile, ALinkToAnOpenDescriptorIsWrittenThrough) {
  // What /dev/stdout is: a link to /proc/self/fd/1. Here the descriptor is a
  // pipe's write end, and the link lives in a folder of our own.
  std::string dir = make_dir();
  int p[2];
  ASSERT_EQ(::pipe(p), 0);
  std::string link = dir + "/stdout";
  fs::create_symlink("/proc/self/fd/" + std::to_string(p[1]), link);
  ASSERT_TRUE(write_file_atomic(link, "to the pipe"));
  ::close(p[1]);
  char buf[64];
  ssize_t n = ::read(p[0], buf, sizeof buf);
  ::close(p[0]);
  EXPECT_EQ(std::string(buf, n > 0 ? static_cast<std::size_t>(n) : 0), "to the pipe");
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(temporaries(dir), 0u);
  // /dev/stdout itself (this test's stdout, whatever it is) stays what it was.
  struct stat before {}, after {};
  ASSERT_EQ(::lstat("/dev/stdout", &before), 0);
  ASSERT_TRUE(write_file_atomic("/dev/stdout", ""));
  ASSERT_EQ(::lstat("/dev/stdout", &after), 0);
  EXPECT_EQ(before.st_mode, after.st_mode);
  EXPECT_EQ(before.st_ino, after.st_ino);
}

TEST(AtomicFile, RefusesADirectoryAndAMissingFolder) {
  std::string dir = make_dir();
  auto d = write_file_atomic(dir, "x");
  ASSERT_FALSE(d);
  EXPECT_NE(d.error().message.find("is a directory"), std::string::npos) << d.error().message;
  auto m = write_file_atomic(dir + "/no/such/folder/f", "x");
  ASSERT_FALSE(m);
  EXPECT_NE(m.error().message.find("cannot create a temporary file"), std::string::npos) << m.error().message;
  EXPECT_EQ(temporaries(dir), 0u);
}

/// Forks a child that rewrites `target` with `a` and `b` in turn until killed.
pid_t start_writer(const std::string& target, const std::string& a, const std::string& b) {
  pid_t pid = ::fork();
  if (pid == 0) {
    for (unsigned i = 0;; ++i)
      if (!write_file_atomic(target, (i & 1) ? b : a)) ::_exit(3);
  }
  return pid;
}

TEST(AtomicFile, SigkillAtRandomMomentsNeverLeavesAPartialTarget) {
  std::string dir = make_dir(), target = dir + "/target.json";
  const std::string old_text = "{\"old\": true}";
  const std::string a(300000, 'a'), b = std::string(500000, 'b') + "end";
  put(target, old_text, 0644);
  std::mt19937 rng(12345);
  int saw_old = 0, saw_new = 0;
  // 200 kills within 4 ms of the start; while none has seen a new file (a
  // loaded machine or a sanitizer build writes slower), the window widens,
  // up to 200 more kills and 100 ms.
  for (int i = 0; i < 200 || (saw_new == 0 && i < 400); ++i) {
    const int window = saw_new > 0 || i < 100 ? 4000 : std::min(100000, 4000 * (i - 98));
    pid_t pid = start_writer(target, a, b);
    ASSERT_GT(pid, 0);
    ::usleep(static_cast<useconds_t>(std::uniform_int_distribution<int>(0, window)(rng)));
    ::kill(pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFSIGNALED(status)) << "the writer failed on its own";
    std::string now = slurp(target);
    ASSERT_TRUE(now == old_text || now == a || now == b) << "partial target of " << now.size() << " bytes at kill " << i;
    (now == old_text ? saw_old : saw_new)++;
    // SIGKILL cannot be caught, so a temporary may stay; clear it for the next round.
    for (const auto& e : fs::directory_iterator(dir))
      if (e.path().filename().string().find(".tmp.") != std::string::npos) fs::remove(e.path());
  }
  EXPECT_GT(saw_new, 0) << "no kill came late enough to see a new file: the test checks nothing";
  EXPECT_EQ(mode_of(target), 0644u);
}

TEST(AtomicFile, CatchableSignalsRemoveTheTemporary) {
  std::string dir = make_dir(), target = dir + "/target.json";
  const std::string big(2 << 20, 'x');
  put(target, big, 0644);
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> delay_us(0, 10000);
  int killed = 0;
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    for (int i = 0; i < 5; ++i) {
      pid_t pid = start_writer(target, big, big + "y");
      ASSERT_GT(pid, 0);
      ::usleep(static_cast<useconds_t>(2000 + delay_us(rng)));
      ::kill(pid, sig);
      int status = 0;
      ::waitpid(pid, &status, 0);
      ASSERT_TRUE(WIFSIGNALED(status));
      EXPECT_EQ(WTERMSIG(status), sig) << "the signal's default action must still end the process";
      killed += WTERMSIG(status) == sig;
      EXPECT_EQ(temporaries(dir), 0u) << "signal " << sig << " left a temporary behind";
      std::string now = slurp(target);
      EXPECT_TRUE(now == big || now == big + "y") << now.size();
    }
  }
  EXPECT_EQ(killed, 15);
}

}  // namespace
}  // namespace tc
