#pragma once
/// WGSL (the emitter's subset) -> SPIR-V for Vulkan compute.
///
/// The route is direct: the parsed and type-checked WGSL is lowered to SPIR-V
/// assembly text, which SPIRV-Tools assembles and validates (Vulkan 1.1
/// environment, SPIR-V 1.3). Every float arithmetic result is decorated
/// NoContraction so no driver may fuse a multiply and an add.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace tc::emit {

/// Parses, checks and lowers WGSL to SPIR-V assembly text (no SPIRV-Tools
/// needed). Errors outside the subset are located at LINE:COL of `wgsl`.
Result<std::string> wgsl_to_spirv_asm(std::string_view wgsl, std::string_view file = {});

/// Whether this build has SPIRV-Tools (assembling and validating SPIR-V).
bool have_spirv_tools();

/// wgsl_to_spirv_asm, then assembles and validates the module. Fails with a
/// clear error when the build has no SPIRV-Tools.
Result<std::vector<std::uint32_t>> wgsl_to_spirv(std::string_view wgsl, std::string_view file = {});

/// Assembles SPIR-V text (Vulkan 1.1 environment).
Result<std::vector<std::uint32_t>> assemble_spirv(std::string_view text);
/// Runs the SPIR-V validator (Vulkan 1.1 environment) on a binary module.
Status validate_spirv(const std::vector<std::uint32_t>& words);

}  // namespace tc::emit
