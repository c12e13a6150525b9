#pragma once
/// Splitting work between cooperating processes (mpirun ranks) so that the
/// pieces, taken in rank order, are exactly the single-process order. Nothing
/// here talks to MPI: the CLI's MPI layer calls these and exchanges the
/// results, and the functions are tested without it.
#include <cstddef>
#include <cstdint>
#include <string>

#include "base/result.h"

namespace tc {

/// Indices [begin, end).
struct IndexRange {
  std::uint64_t begin = 0, end = 0;
  [[nodiscard]] std::uint64_t size() const { return end - begin; }
};

/// Rank `rank` of `size`'s contiguous share of [0, total): the ranges are
/// consecutive, cover everything, and differ in length by at most one.
IndexRange rank_range(std::uint64_t total, int rank, int size);

/// One process's share of a line-oriented file.
struct LineShard {
  std::string text;            ///< whole lines, each ending in '\n' except possibly the file's last
  std::uint64_t offset = 0;    ///< byte offset of text in the file
  std::uint64_t newlines = 0;  ///< '\n' characters in text (to number lines across shards)
};

/// Reads rank `rank` of `size`'s share of the file: the lines that start
/// inside its byte range rank_range(file size, rank, size). A line belongs
/// to the shard where it starts, so no line is split and the shards, joined
/// in rank order, are the file. Errors name the path.
Result<LineShard> read_line_shard(const std::string& path, int rank, int size);

}  // namespace tc
