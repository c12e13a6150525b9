// Files written by the CLI (-o, --snapshot-out) through the real binary:
// special files are written through and stay what they are, modes are kept
// or follow the umask, and SIGKILL at random moments never leaves a partial
// target.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "support/cli_util.h"

namespace tc {
namespace {

using testing::run_cli;
namespace fs = std::filesystem;

std::string example(const std::string& name) { return std::string(TC_SOURCE_DIR) + "/resources/examples/" + name; }

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

mode_t mode_of(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

std::size_t temporaries(const std::string& dir) {
  std::size_t n = 0;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().find(".tmp.") != std::string::npos) ++n;
  return n;
}

/// Opens a fifo for reading without waiting for a writer (a regressed CLI
/// that replaced the fifo then makes the test fail rather than hang).
int open_reader(const std::string& fifo) { return ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK); }

/// Everything written into `fd` so far (the CLI has exited: no more comes).
std::string drain(int fd) {
  std::string out;
  char buf[65536];
  ssize_t n;
  while ((n = ::read(fd, buf, sizeof buf)) > 0) out.append(buf, static_cast<std::size_t>(n));
  ::close(fd);
  return out;
}

/// The artifact `compile` prints for choose.py.
std::string choose_artifact() {
  auto r = run_cli({"compile", example("choose.py"), "--input", "a=int32:-128:127"});
  EXPECT_EQ(r.status, 0) << r.err;
  return r.out;
}

TEST(CliOutput, AFifoIsWrittenThroughAndStaysAFifo) {
  std::string dir = testing::temp_dir(), fifo = dir + "/artifact.pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  int reader = open_reader(fifo);
  ASSERT_GE(reader, 0);
  auto r = run_cli({"compile", example("choose.py"), "--input", "a=int32:-128:127", "-o", fifo});
  std::string got = drain(reader);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(got, choose_artifact());
  struct stat st {};
  ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode)) << "compile -o replaced the fifo";
}

TEST(CliOutput, ALinkToTheProcessStdoutReachesStdout) {
  // /dev/stdout is a link to /proc/self/fd/1; a link of our own to the same
  // place shows the CLI writes through it (the link stays a link).
  std::string dir = testing::temp_dir(), link = dir + "/stdout";
  fs::create_symlink("/proc/self/fd/1", link);
  auto r = run_cli({"compile", example("choose.py"), "--input", "a=int32:-128:127", "-o", link});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, choose_artifact());
  EXPECT_TRUE(fs::is_symlink(link));
  auto d = run_cli({"compile", example("choose.py"), "--input", "a=int32:-128:127", "-o", "/dev/stdout"});
  EXPECT_EQ(d.status, 0) << d.err;
  EXPECT_EQ(d.out, choose_artifact());
}

TEST(CliOutput, SnapshotOutThroughAFifo) {
  std::string dir = testing::temp_dir(), fifo = dir + "/snap.pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string events = testing::write_temp(dir, "events.jsonl", "{\"event\": 1}\n{\"event\": 1}\n");
  int reader = open_reader(fifo);
  ASSERT_GE(reader, 0);
  auto r = run_cli({"replay", example("counter.json"), "--events", events, "--snapshot-out", fifo});
  std::string got = drain(reader);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(got.find("\"steps\""), std::string::npos) << got;
  struct stat st {};
  ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
}

TEST(CliOutput, ModesAreKeptAndTheUmaskHonoured) {
  std::string dir = testing::temp_dir(), kept = dir + "/kept.json", fresh = dir + "/fresh.json";
  std::ofstream(kept) << "old";
  ASSERT_EQ(::chmod(kept.c_str(), 0640), 0);
  auto r = run_cli({"compile", example("choose.py"), "--input", "a=int32:-128:127", "-o", kept});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(mode_of(kept), 0640u);
  mode_t old = ::umask(077);  // inherited by the CLI
  auto f = run_cli({"compile", example("choose.py"), "--input", "a=int32:-128:127", "-o", fresh});
  ::umask(old);
  EXPECT_EQ(f.status, 0) << f.err;
  EXPECT_EQ(mode_of(fresh), 0600u);
  EXPECT_EQ(temporaries(dir), 0u);
}

TEST(CliOutput, ADirectoryIsRefused) {
  std::string dir = testing::temp_dir();
  auto r = run_cli({"compile", example("choose.py"), "--input", "a=int32:-128:127", "-o", dir});
  EXPECT_EQ(r.status, 3);
  EXPECT_NE(r.err.find("is a directory"), std::string::npos) << r.err;
  EXPECT_TRUE(fs::is_directory(dir));
}

TEST(CliOutput, SigkillDuringCompileOutputNeverLeavesAPartialTarget) {
  std::string dir = testing::temp_dir(), target = dir + "/out.json";
  const std::string old_text = "{\"old\": true}\n";
  std::ofstream(target) << old_text;
  const std::string fresh = choose_artifact();
  std::mt19937 rng(2024);
  // Most of a run is process start and compilation: spread the kills over a
  // whole run so that some land inside the write.
  std::uniform_int_distribution<unsigned> delay(0, 25000);
  int killed = 0, saw_new = 0;
  for (int i = 0; i < 150; ++i) {
    killed += testing::run_cli_killed_after(
        {"compile", example("choose.py"), "--input", "a=int32:-128:127", "-o", target}, delay(rng));
    std::string now = slurp(target);
    ASSERT_TRUE(now == old_text || now == fresh) << "partial target (" << now.size() << " bytes) after kill " << i;
    if (now == fresh) {
      ++saw_new;
      std::ofstream(target) << old_text;  // back to the old contents for the next round
    }
  }
  EXPECT_GT(killed, 0) << "no run was killed: the test checks nothing";
}

}  // namespace
}  // namespace tc
