#include "base/result.h"

#include <cstdio>
#include <cstdlib>

namespace tc {

void internal_error(const char* file, int line, const char* what) {
  std::fprintf(stderr, "internal error: %s:%d: check failed: %s\n", file, line, what);
  std::abort();
}

}  // namespace tc
