#include "scale/partition.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

namespace tc {

IndexRange rank_range(std::uint64_t total, int rank, int size) {
  TC_ASSERT(size > 0 && rank >= 0 && rank < size);
  const auto n = static_cast<std::uint64_t>(size), r = static_cast<std::uint64_t>(rank);
  const std::uint64_t base = total / n, extra = total % n;
  // The first `extra` ranks take one more; written without total * r, which overflows.
  const std::uint64_t begin = r * base + std::min(r, extra);
  return {begin, begin + base + (r < extra ? 1 : 0)};
}

namespace {

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

Diagnostic io_error(const std::string& what, const std::string& path) {
  return make_error("cannot " + what + " '" + path + "': " + std::strerror(errno));
}

/// The offset of the first line that starts at or after `pos`: `pos` itself
/// when the byte before it ends a line, otherwise just past the next '\n'
/// (or the file's end).
Result<std::uint64_t> line_start_at_or_after(std::FILE* f, std::uint64_t pos, std::uint64_t size,
                                             const std::string& path) {
  if (pos == 0 || pos >= size) return std::min(pos, size);
  if (std::fseek(f, static_cast<long>(pos - 1), SEEK_SET) != 0) return io_error("seek in", path);
  std::uint64_t at = pos - 1;
  char buf[1 << 16];
  while (at < size) {
    const std::size_t got = std::fread(buf, 1, sizeof buf, f);
    if (got == 0) return std::ferror(f) ? Result<std::uint64_t>(io_error("read", path)) : size;
    if (const void* nl = std::memchr(buf, '\n', got))
      return at + static_cast<std::uint64_t>(static_cast<const char*>(nl) - buf) + 1;
    at += got;
  }
  return size;
}

}  // namespace

Result<LineShard> read_line_shard(const std::string& path, int rank, int size) {
  File f(std::fopen(path.c_str(), "rb"));
  if (!f) return io_error("open", path);
  if (std::fseek(f.get(), 0, SEEK_END) != 0) return io_error("seek in", path);
  const long end = std::ftell(f.get());
  if (end < 0) return io_error("measure", path);
  const auto file_size = static_cast<std::uint64_t>(end);
  const IndexRange bytes = rank_range(file_size, rank, size);
  auto begin = line_start_at_or_after(f.get(), bytes.begin, file_size, path);
  if (!begin) return begin.error();
  auto stop = line_start_at_or_after(f.get(), bytes.end, file_size, path);
  if (!stop) return stop.error();
  LineShard shard;
  shard.offset = *begin;
  if (*stop <= *begin) return shard;
  shard.text.resize(static_cast<std::size_t>(*stop - *begin));
  if (std::fseek(f.get(), static_cast<long>(*begin), SEEK_SET) != 0) return io_error("seek in", path);
  if (std::fread(shard.text.data(), 1, shard.text.size(), f.get()) != shard.text.size())
    return io_error("read", path);
  shard.newlines = static_cast<std::uint64_t>(std::count(shard.text.begin(), shard.text.end(), '\n'));
  return shard;
}

}  // namespace tc
