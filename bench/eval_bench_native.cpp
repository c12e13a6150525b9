// long_loop (s = 0; for i in range(1000): s = s + x * i) over many cases,
// structure of arrays, no checks: the limit a batched evaluator of that
// circuit can reach on this processor. This file is compiled once per SIMD
// target by Google Highway (foreach_target.h re-includes it), with the same
// headers and flags as core/eval/batch_steps.cpp, and HWY_DYNAMIC_DISPATCH
// picks the best target the processor has, as it does for the evaluator;
// dispatched_target() names it.
//
// Each block keeps kChains vectors of partial sums in registers (enough
// independent additions to hide the add latency on two vector ports). The
// operations are the evaluator's: one IEEE multiply, then one IEEE add, no
// FMA (Highway's MulAdd is not used, and -ffp-contract=off, set for the whole
// tree, keeps the compiler from fusing), so the results are bit-identical to
// the evaluator's, which eval_bench checks before timing.

// clang-format off
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "eval_bench_native.cpp"
#include <hwy/foreach_target.h>  // re-includes this file once per target
#include <hwy/highway.h>
// clang-format on

#include <string>
#include <vector>

#include "eval_bench_native.h"

HWY_BEFORE_NAMESPACE();
namespace tc_bench {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

constexpr std::size_t kChains = 8;

template <typename T>
void LongLoopSoa(const T* HWY_RESTRICT x, T* HWY_RESTRICT out, std::size_t n) {
  const hn::ScalableTag<T> d;
  const std::size_t N = hn::Lanes(d);
  const std::size_t W = kChains * N;
  std::size_t c = 0;
  for (; c + W <= n; c += W) {
    hn::Vec<decltype(d)> s[kChains], xv[kChains];
    for (std::size_t k = 0; k < kChains; ++k) {
      s[k] = hn::Zero(d);
      xv[k] = hn::LoadU(d, x + c + k * N);
    }
    for (int i = 0; i < 1000; ++i) {
      const auto di = hn::Set(d, static_cast<T>(i));
      for (std::size_t k = 0; k < kChains; ++k) s[k] = hn::Add(s[k], hn::Mul(xv[k], di));
    }
    for (std::size_t k = 0; k < kChains; ++k) hn::StoreU(s[k], d, out + c + k * N);
  }
  for (; c < n; ++c) {  // the tail, one case at a time
    T s = 0;
    for (int i = 0; i < 1000; ++i) s = s + x[c] * static_cast<T>(i);
    out[c] = s;
  }
}

void LongLoopSoaF64(const double* x, double* out, std::size_t n) { LongLoopSoa(x, out, n); }
void LongLoopSoaF32(const float* x, float* out, std::size_t n) { LongLoopSoa(x, out, n); }

}  // namespace HWY_NAMESPACE
}  // namespace tc_bench
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace tc_bench {

HWY_EXPORT(LongLoopSoaF64);
HWY_EXPORT(LongLoopSoaF32);

void long_loop_soa_f64(const double* x, double* out, std::size_t n) { HWY_DYNAMIC_DISPATCH(LongLoopSoaF64)(x, out, n); }
void long_loop_soa_f32(const float* x, float* out, std::size_t n) { HWY_DYNAMIC_DISPATCH(LongLoopSoaF32)(x, out, n); }
// The dispatcher runs the best of the targets both supported here (after
// TC_BENCH_HWY_MAX's DisableTargets) and compiled in. Asking a dispatched
// TargetNameHere instead named AVX3 under the AVX2 cap while the kernels
// ran AVX2 code (half the speed), so the name comes from the same list.
const char* dispatched_target() {
  static const std::string name = [] {
    const std::vector<std::int64_t> targets = hwy::SupportedAndGeneratedTargets();
    return targets.empty() ? std::string("none") : std::string(hwy::TargetName(targets.front()));
  }();
  return name.c_str();
}

const char* compiled_and_supported_targets() {
  static const std::string names = [] {
    std::string s;
    for (std::int64_t t : hwy::SupportedAndGeneratedTargets()) s += std::string(s.empty() ? "" : " ") + hwy::TargetName(t);
    return s;
  }();
  return names.c_str();
}

}  // namespace tc_bench
#endif  // HWY_ONCE
