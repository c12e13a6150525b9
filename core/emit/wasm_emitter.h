#pragma once
/// The WebAssembly emitter: a binary module (WebAssembly 1.0 / MVP) that runs
/// a stateless, call-free program over a batch of cases in float32, checked
/// like the WGSL backend (same error codes, same liveness rules).
///
/// ABI (all offsets in bytes, little endian, 4-byte elements):
///   import  env.exp : (f64) -> f64     used by sigmoid (JavaScript: Math.exp)
///   import  env.<f> : (f64) -> f64     each math function the program calls
///                                      (log, expm1, ...: JavaScript's Math.<f>),
///                                      after exp; sqrt is the f32.sqrt instruction
///   export  memory                     linear memory; the host may grow it
///   export  heap_base : () -> i32      first byte the host may use; below it
///                                      lies the module's scratch
///   export  run : (inputs, outputs, errors, count: i32) -> ()
///     inputs  f32[k * count + c]  input k (input node ids ascending), case c
///     outputs f32[k * count + c]  output k (artifact order)
///     errors  u32[c]              0, or (node << 3) | kind (see emit_plan.h)
/// Sigmoid is computed in float64 from the float32 argument and rounded
/// once, like the CPU float32 evaluator; everything else is float32.
#include <cstdint>
#include <vector>

#include "base/result.h"
#include "codegen/emit_plan.h"
#include "ir/program.h"

namespace tc::emit {

Result<std::vector<std::uint8_t>> emit_wasm(const Program& program);
std::vector<std::uint8_t> emit_wasm(const codegen::Plan& plan);

}  // namespace tc::emit
