// keep_freed_memory() must really reach glibc's allocator: a check that
// cannot see __GLIBC__ (a missing include) silently becomes a no-op, and the
// CLI and IDE fall back to trimming and re-faulting their memory.
#include "base/heap_policy.h"

#include <gtest/gtest.h>

#include <cstdlib>

// Under a sanitizer the allocator is the sanitizer's, which ignores mallopt.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define TC_SANITIZER_ALLOCATOR 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define TC_SANITIZER_ALLOCATOR 1
#endif
#endif

namespace tc {
namespace {

TEST(HeapPolicy, TakesEffectOnGlibc) {
#if defined(TC_SANITIZER_ALLOCATOR)
  GTEST_SKIP() << "a sanitizer's allocator: glibc's malloc is not in this build";
#elif defined(__GLIBC__)
  EXPECT_TRUE(keep_freed_memory());
  EXPECT_TRUE(keep_freed_memory()) << "calling it again is harmless";
#else
  GTEST_SKIP() << "not glibc: the policy is a no-op here";
#endif
}

}  // namespace
}  // namespace tc
