#include "base/heap_policy.h"

#include <cstdlib>  // defines __GLIBC__ on glibc

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace tc {

bool keep_freed_memory() {
#if defined(__GLIBC__)
  constexpr int kMapAbove = 32 << 20;    // M_MMAP_THRESHOLD's maximum on 64-bit glibc
  constexpr int kTrimAbove = 256 << 20;  // free bytes at the heap top before they go back
  const bool mapped = mallopt(M_MMAP_THRESHOLD, kMapAbove) == 1;
  const bool trimmed = mallopt(M_TRIM_THRESHOLD, kTrimAbove) == 1;
  return mapped && trimmed;
#else
  return false;
#endif
}

}  // namespace tc
