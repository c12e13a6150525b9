#pragma once
/// Every file the CLI and the IDE write goes through write_file_atomic, so a
/// failure or a kill never leaves a partly written file behind.
#include <string>
#include <string_view>

#include "base/result.h"

namespace tc {

/// Writes `contents` to `path` so that `path` always holds either its old
/// contents or all of the new ones:
///  - a regular file (or a new one) is written to a hidden temporary in the
///    same folder, fsynced, renamed over the target and the folder fsynced;
///    symlinks are followed (the link stays, the file it names is replaced);
///    an existing file keeps its permission bits, a new one gets 0666 minus
///    the umask, like a file created by the shell;
///  - a target that is not a regular file (a device such as /dev/null, a FIFO,
///    a socket) or a link into /proc (/dev/stdout, /dev/fd/N) is written
///    through in place: replacing it would destroy it, and its reader wants
///    the bytes, not a new file;
///  - a directory is refused.
/// The temporary is removed when the write fails and when SIGINT, SIGTERM or
/// SIGHUP arrive during it (the signal's previous handling then proceeds).
/// Only SIGKILL or a power cut can leave a temporary behind, never a partial
/// target.
Status write_file_atomic(const std::string& path, std::string_view contents);

/// A temporary file's name that another program writes (the compiled plan's
/// compiler output): removed by the destructor unless keep() was called, and
/// when SIGINT, SIGTERM or SIGHUP arrive meanwhile, like write_file_atomic's
/// own temporaries.
class TemporaryName {
 public:
  explicit TemporaryName(std::string path);
  ~TemporaryName();
  TemporaryName(const TemporaryName&) = delete;
  TemporaryName& operator=(const TemporaryName&) = delete;
  [[nodiscard]] const std::string& path() const { return path_; }
  /// The file is no longer temporary (it was renamed or is to stay).
  void keep();

 private:
  std::string path_;
  void* slot_ = nullptr;
  bool kept_ = false;
};

/// Reads a whole file; the error names the path. Files above `max_bytes` are refused.
Result<std::string> read_file(const std::string& path, std::size_t max_bytes = std::size_t(1) << 30);

}  // namespace tc
