// rank_range and read_line_shard: the pieces, in rank order, are exactly the
// whole (every index once, every line once and never split).
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "scale/partition.h"

namespace tc {
namespace {

TEST(RankRange, CoversEverythingInOrderAndBalanced) {
  for (std::uint64_t total : {0ull, 1ull, 2ull, 7ull, 100ull, 40401ull, 4294967296ull, ~0ull})
    for (int size : {1, 2, 3, 8, 64, 512}) {
      std::uint64_t next = 0, smallest = ~0ull, largest = 0;
      for (int r = 0; r < size; ++r) {
        IndexRange range = rank_range(total, r, size);
        EXPECT_EQ(range.begin, next) << total << " " << size << " " << r;
        EXPECT_LE(range.begin, range.end);
        next = range.end;
        smallest = std::min(smallest, range.size());
        largest = std::max(largest, range.size());
      }
      EXPECT_EQ(next, total) << total << " " << size;
      EXPECT_LE(largest - smallest, 1u) << total << " " << size;
    }
}

TEST(RankRange, TwoRanksSplitInTheMiddle) {
  EXPECT_EQ(rank_range(40401, 0, 2).end, 20201u);
  EXPECT_EQ(rank_range(40401, 1, 2).begin, 20201u);
}

class LineShardTest : public ::testing::Test {
 protected:
  std::string path_ = (std::filesystem::temp_directory_path() /
                       ("tc_shard_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
                        ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".jsonl"))
                          .string();
  void TearDown() override { std::remove(path_.c_str()); }
  void write(const std::string& text) { std::ofstream(path_, std::ios::binary) << text; }

  /// Joins the shards of `size` ranks, checking offsets and line numbers.
  std::string join(int size) {
    std::string all;
    for (int r = 0; r < size; ++r) {
      auto shard = read_line_shard(path_, r, size);
      EXPECT_TRUE(shard.ok()) << (shard ? "" : shard.error().message);
      if (!shard) return {};
      EXPECT_EQ(shard->offset, all.size());
      EXPECT_EQ(shard->newlines, static_cast<std::uint64_t>(std::count(shard->text.begin(), shard->text.end(), '\n')));
      // Every shard but the last ends at a line end: no line is split.
      if (!shard->text.empty() && r + 1 < size && shard->offset + shard->text.size() < file_size())
        EXPECT_EQ(shard->text.back(), '\n') << "rank " << r << " of " << size;
      all += shard->text;
    }
    return all;
  }
  std::size_t file_size() { return std::filesystem::file_size(path_); }
};

TEST_F(LineShardTest, JoinedShardsAreTheFile) {
  std::mt19937 rng(5);
  for (int trial = 0; trial < 30; ++trial) {
    std::string text;
    const int lines = static_cast<int>(rng() % 40);
    for (int k = 0; k < lines; ++k) {
      text += std::string(rng() % (trial % 3 == 0 ? 3 : 200), 'x');  // empty lines too
      text += '\n';
    }
    if (rng() % 2) text += "last line without a newline";
    write(text);
    for (int size : {1, 2, 3, 5, 16, 64}) EXPECT_EQ(join(size), text) << "trial " << trial << " ranks " << size;
  }
}

TEST_F(LineShardTest, OneLongLineGoesToTheFirstRank) {
  write(std::string(1000, 'a') + "\nb\n");
  auto first = read_line_shard(path_, 0, 4);
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->text, std::string(1000, 'a') + "\n");
  EXPECT_EQ(join(4), std::string(1000, 'a') + "\nb\n");
}

TEST_F(LineShardTest, BoundaryExactlyAfterANewline) {
  write("ab\ncd\n");  // 6 bytes: rank 1 of 2 starts at byte 3, which starts a line
  auto second = read_line_shard(path_, 1, 2);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->text, "cd\n");
  EXPECT_EQ(second->offset, 3u);
}

TEST_F(LineShardTest, EmptyFileAndMissingFile) {
  write("");
  EXPECT_EQ(join(3), "");
  auto missing = read_line_shard(path_ + ".none", 0, 2);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("cannot open"), std::string::npos);
}

}  // namespace
}  // namespace tc
