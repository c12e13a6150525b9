#pragma once
/// Output files are written to a temporary sibling and renamed into place, so
/// a failure never leaves a partly written file behind.
#include <string>
#include <string_view>

#include "base/result.h"

namespace tc {

/// Writes `contents` to `path` atomically (same-directory temporary + rename).
Status write_file_atomic(const std::string& path, std::string_view contents);

/// Reads a whole file; the error names the path. Files above `max_bytes` are refused.
Result<std::string> read_file(const std::string& path, std::size_t max_bytes = std::size_t(1) << 30);

}  // namespace tc
