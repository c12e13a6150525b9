#include "base/atomic_file.h"

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

namespace tc {

Status write_file_atomic(const std::string& path, std::string_view contents) {
  std::string tmpl = path + ".tmp.XXXXXX";
  int fd = ::mkstemp(tmpl.data());
  if (fd < 0) return make_error("cannot create a temporary file beside '" + path + "': " + std::strerror(errno));
  const char* p = contents.data();
  std::size_t left = contents.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      std::string why = std::strerror(errno);
      ::close(fd);
      ::unlink(tmpl.c_str());
      return make_error("cannot write '" + path + "': " + why);
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0 || ::fchmod(fd, 0644) != 0) {
    std::string why = std::strerror(errno);
    ::close(fd);
    ::unlink(tmpl.c_str());
    return make_error("cannot write '" + path + "': " + why);
  }
  ::close(fd);
  if (::rename(tmpl.c_str(), path.c_str()) != 0) {
    std::string why = std::strerror(errno);
    ::unlink(tmpl.c_str());
    return make_error("cannot replace '" + path + "': " + why);
  }
  return ok_status();
}

Result<std::string> read_file(const std::string& path, std::size_t max_bytes) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return make_error("cannot open '" + path + "': " + std::strerror(errno));
  struct stat st {};
  if (::fstat(::fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
    std::fclose(f);
    return make_error("cannot read '" + path + "': it is a directory");
  }
  // Refuse an oversized regular file before reading any of it (pipes and
  // other streams are still cut off at the limit while reading).
  if (S_ISREG(st.st_mode) && static_cast<std::uint64_t>(st.st_size) > max_bytes) {
    std::fclose(f);
    return make_error("'" + path + "' is larger than the " + std::to_string(max_bytes) + "-byte limit (" +
                      std::to_string(st.st_size) + " bytes)");
  }
  std::string out;
  char buf[65536];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) {
    out.append(buf, n);
    if (out.size() > max_bytes) {
      std::fclose(f);
      return make_error("'" + path + "' is larger than the " + std::to_string(max_bytes) + "-byte limit");
    }
  }
  bool bad = std::ferror(f) != 0;
  std::fclose(f);
  if (bad) return make_error("cannot read '" + path + "'");
  return out;
}

}  // namespace tc
