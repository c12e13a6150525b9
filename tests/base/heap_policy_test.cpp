// keep_freed_memory() must really reach glibc's allocator: a check that
// cannot see __GLIBC__ (a missing include) silently becomes a no-op, and the
// CLI and IDE fall back to trimming and re-faulting their memory.
#include "base/heap_policy.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace tc {
namespace {

TEST(HeapPolicy, TakesEffectOnGlibc) {
#if defined(__GLIBC__)
  EXPECT_TRUE(keep_freed_memory());
  EXPECT_TRUE(keep_freed_memory()) << "calling it again is harmless";
#else
  GTEST_SKIP() << "not glibc: the policy is a no-op here";
#endif
}

}  // namespace
}  // namespace tc
