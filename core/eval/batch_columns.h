#pragma once
/// Private to core/eval: the block columns of the batched fast path, shared
/// by batch.cpp (blocks, threads, the scalar re-run of flagged cases) and
/// batch_steps.cpp (the per-op kernels, compiled once per SIMD target).
///
/// Columns hold T: double for a float64 program, float for a float32 one
/// (every float32 value is a binary32 number, so nothing is lost, and a
/// vector holds twice as many cases).
#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <limits>
#include <memory>
#include <vector>

#include "eval/prepared.h"

namespace tc::eval_detail {

template <class T>
inline constexpr T kNaNOf = std::numeric_limits<T>::quiet_NaN();

/// Column storage aligned to 64 bytes, so that with a block length that is a
/// multiple of 16 no vector load or store of a column crosses a cache line.
struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};
template <class T>
using AlignedArray = std::unique_ptr<T[], FreeDeleter>;
template <class T>
AlignedArray<T> aligned_array(std::size_t n) {
  const std::size_t bytes = (std::max<std::size_t>(n, 1) * sizeof(T) + 63) / 64 * 64;
  return AlignedArray<T>(static_cast<T*>(std::aligned_alloc(64, bytes)));
}

/// An operand: a column, or one value for the whole block.
template <class T>
struct Col {
  const T* p;
  T u;
};

/// Everything one worker owns; allocated once per run_batch call.
template <class T>
struct Batch {
  const Prepared& p;
  std::size_t B;
  AlignedArray<T> slots;       ///< every slot is written before it is read: no zero fill
  std::vector<const T*> col;   ///< per node: current column, or nullptr when uniform
  std::vector<T> uval;         ///< per node: uniform value
  AlignedArray<T> acc;         ///< per case: 0, or NaN once something is suspicious
  std::vector<T> scratch;
  std::vector<const T*> ptrs;
  std::vector<double> call_args;

  Col<T> operand(NodeId id) const { return Col<T>{col[static_cast<std::size_t>(id)], uval[static_cast<std::size_t>(id)]}; }
  T* out_of(NodeId id) { return slots.get() + static_cast<std::size_t>(p.plan.slot_of[static_cast<std::size_t>(id)]) * B; }
};

/// Every step of the plan over the block's first `m` cases, with the widest
/// SIMD target the processor has (Highway dynamic dispatch).
void run_steps(Batch<double>& bt, std::size_t m);
void run_steps(Batch<float>& bt, std::size_t m);

/// Whether any of acc[0, m) is non-zero (a flagged case in the block).
bool any_flagged(const double* acc, std::size_t m);
bool any_flagged(const float* acc, std::size_t m);

}  // namespace tc::eval_detail
