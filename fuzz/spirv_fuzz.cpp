// libFuzzer entry point for the SPIR-V assembly path: WGSL through our
// lowering to SPIR-V assembly (core/emit/wgsl_to_spvasm.cpp), then, with
// SPIRV-Tools, assembled and validated. Whatever the front end accepts must
// lower to assembly that assembles and validates (wgsl_to_spirv checks it).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "base/result.h"
#include "emit/spirv.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto asm_text = tc::emit::wgsl_to_spirv_asm(text, "fuzz.wgsl");
  if (!asm_text.ok() || !tc::emit::have_spirv_tools()) return 0;
  auto words = tc::emit::wgsl_to_spirv(text, "fuzz.wgsl");
  // Accepted by the front end and lowered: assembling and validating must succeed.
  TC_ASSERT(words.ok());
  return 0;
}
