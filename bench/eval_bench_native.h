// The native limit of bench/eval_bench.cpp: long_loop written structure of
// arrays with no checks, compiled by Google Highway for every SIMD target and
// dispatched at run time exactly like the evaluator's batch kernels
// (core/eval/batch_steps.cpp), so both run on the same instruction set.
#pragma once

#include <cstddef>

namespace tc_bench {

/// out[c] = long_loop(x[c]) in binary64, for c < n.
void long_loop_soa_f64(const double* x, double* out, std::size_t n);
/// The same in binary32: every value a float, as the float32 circuit means.
void long_loop_soa_f32(const float* x, float* out, std::size_t n);
/// hwy::TargetName of the target HWY_DYNAMIC_DISPATCH picks here ("AVX3" is
/// AVX-512F/VL/DQ/BW).
const char* dispatched_target();
/// The names of every target this processor supports that Highway compiled.
const char* compiled_and_supported_targets();

}  // namespace tc_bench
