// A replay killed (SIGKILL) at a random moment never leaves a partial
// snapshot: --snapshot-out holds either its old contents or the complete
// snapshot of the finished run.
#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <sstream>

#include "runtime/runtime.h"
#include "support/cli_util.h"

namespace tc {
namespace {

using testing::run_cli;

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string counter_path() { return std::string(TC_SOURCE_DIR) + "/resources/examples/counter.json"; }

TEST(ReplayKill, SnapshotIsOldOrCompleteAfterEveryKill) {
  const std::string counter = counter_path();
  const std::string dir = testing::temp_dir();
  std::string lines;
  for (int i = 0; i < 20000; ++i) lines += "{\"event\": 0}\n";
  const std::string events = testing::write_temp(dir, "events.jsonl", lines);
  const std::string one = testing::write_temp(dir, "one.jsonl", "{\"event\": 1}\n");
  const std::string snap = dir + "/snap.json";

  auto first = run_cli({"replay", counter, "--events", one, "--snapshot-out", snap});
  ASSERT_EQ(first.status, 0) << first.err;
  const std::string old_snapshot = slurp(snap);
  const std::string full = dir + "/full.json";
  auto whole = run_cli({"replay", counter, "--events", events, "--snapshot-out", full});
  ASSERT_EQ(whole.status, 0) << whole.err;
  const std::string new_snapshot = slurp(full);
  ASSERT_NE(old_snapshot, new_snapshot);
  ASSERT_TRUE(Runtime::restore_text(new_snapshot));

  std::mt19937 rng(99);
  std::uniform_int_distribution<unsigned> delay(0, 60000);
  int killed = 0, completed = 0;
  for (int i = 0; i < 80; ++i) {
    killed += testing::run_cli_killed_after({"replay", counter, "--events", events, "--snapshot-out", snap},
                                            delay(rng));
    const std::string now = slurp(snap);
    ASSERT_TRUE(now == old_snapshot || now == new_snapshot) << "partial snapshot (" << now.size() << " bytes)";
    if (now == new_snapshot) {
      ++completed;
      std::ofstream(snap, std::ios::binary) << old_snapshot;
    }
  }
  EXPECT_GT(killed, 0) << "no replay was killed: the test checks nothing";
}

}  // namespace
}  // namespace tc
