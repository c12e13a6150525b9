// A prepared tape allocates nothing per call: counted by replacing the
// global allocation functions for this test binary.
#include <atomic>
#include <cstdlib>
#include <new>
#include <random>

#include <gtest/gtest.h>

#include "grad/gradients.h"
#include "grad_test_util.h"

namespace {
std::atomic<long> g_allocations{0};
}  // namespace

void* operator new(std::size_t n) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
// The nothrow form too (std::stable_sort's buffer uses it): otherwise its
// blocks come from the default new and are freed here, a mismatch that
// AddressSanitizer reports in every test of this binary.
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return std::malloc(n ? n : 1);
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }

namespace tc {
namespace {

TEST(GradAlloc, BackwardAllocatesNothingPerCall) {
  std::mt19937_64 rng(3);
  int measured = 0;
  for (int trial = 0; trial < 40; ++trial) {
    const auto sem = static_cast<Semantics>(trial % 3);
    Program p = test::random_program(rng, sem, Dtype::Float64, 40);
    auto tape = GradientTape::create(p);
    ASSERT_TRUE(tape.ok());
    std::vector<double> grads(tape->leaves().size());
    const double seed = 1.0;
    double out = 0.0;
    Env env = test::random_env(rng, p);
    if (!tape->backward(env, std::span<const double>(&seed, 1), std::span<double>(&out, 1), grads).ok()) continue;
    const long before = g_allocations.load();
    for (int k = 0; k < 10; ++k)
      ASSERT_TRUE(tape->backward(env, std::span<const double>(&seed, 1), std::span<double>(&out, 1), grads).ok());
    EXPECT_EQ(g_allocations.load() - before, 0) << "trial " << trial;
    ++measured;
  }
  EXPECT_GT(measured, 20);
}

}  // namespace
}  // namespace tc
