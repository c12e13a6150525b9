// run_child: the exit status and output of a helper, a helper that cannot be
// started, and the limits (a timeout or a cancel kills its whole process
// group, a child that keeps the output open included).
#include <gtest/gtest.h>

#include <signal.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <functional>
#include <string>
#include <thread>

#include "base/child_process.h"
#include "support/cli_util.h"

namespace tc {
namespace {

double seconds_of(const std::function<void()>& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

TEST(ChildProcess, ExitStatusAndBothStreams) {
  const ChildResult r = run_child({"sh", "-c", "echo out; echo err >&2; exit 3"});
  EXPECT_EQ(r.end, ChildResult::End::Exited);
  EXPECT_EQ(r.code, 3);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.output, "out\nerr\n");
  EXPECT_EQ(r.describe(), "exit 3");
  EXPECT_TRUE(run_child({"true"}).ok());
}

TEST(ChildProcess, OutputIsCappedAndStdinIsEmpty) {
  ChildLimits limits;
  limits.max_output = 10;
  const ChildResult r = run_child({"sh", "-c", "cat; printf 0123456789abcdef"}, limits);
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.output, "0123456789");
}

TEST(ChildProcess, AProgramThatCannotStartSaysSo) {
  ChildResult r = run_child({"/nonexistent/tc-helper"});
  EXPECT_EQ(r.end, ChildResult::End::NotStarted);
  EXPECT_EQ(r.output, "'/nonexistent/tc-helper' could not be started: No such file or directory");
  r = run_child({"tc-no-such-helper-on-path"});
  EXPECT_EQ(r.end, ChildResult::End::NotStarted);
  EXPECT_EQ(r.output, "'tc-no-such-helper-on-path' is not on PATH");
}

TEST(ChildProcess, ATimeoutKillsTheWholeGroup) {
  const std::string pid_file = testing::temp_dir() + "/grandchild.pid";
  ChildLimits limits;
  limits.timeout_s = 0.3;
  ChildResult r;
  // The grandchild keeps the output pipe open and would outlive its parent.
  const double took = seconds_of([&] { r = run_child({"sh", "-c", "sleep 60 & echo $! > " + pid_file + "; wait"}, limits); });
  EXPECT_EQ(r.end, ChildResult::End::TimedOut);
  EXPECT_EQ(r.describe(0.3), "timed out after 0.3 s");
  EXPECT_LT(took, 5.0);
  pid_t grandchild = 0;
  std::ifstream(pid_file) >> grandchild;
  ASSERT_GT(grandchild, 0);
  bool gone = false;
  for (int i = 0; i < 100 && !gone; ++i) {
    gone = ::kill(grandchild, 0) != 0;
    if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_TRUE(gone);
}

TEST(ChildProcess, CancelKillsIt) {
  std::atomic<bool> cancel{false};
  ChildLimits limits;
  limits.cancel = &cancel;
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    cancel = true;
  });
  ChildResult r;
  const double took = seconds_of([&] { r = run_child({"sleep", "60"}, limits); });
  stopper.join();
  EXPECT_EQ(r.end, ChildResult::End::Cancelled);
  EXPECT_LT(took, 5.0);
}

}  // namespace
}  // namespace tc
