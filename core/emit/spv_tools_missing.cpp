// Fallbacks for builds without SPIRV-Tools (CMake then skips spirv_tools.cpp).
#ifndef TC_HAVE_SPIRV_TOOLS
#include "emit/spirv.h"

namespace tc::emit {

namespace {
Diagnostic missing() {
  return make_error("this build has no SPIRV-Tools: SPIR-V output is unavailable (install spirv-tools and rebuild)");
}
}  // namespace

bool have_spirv_tools() { return false; }
Result<std::vector<std::uint32_t>> assemble_spirv(std::string_view) { return missing(); }
Status validate_spirv(const std::vector<std::uint32_t>&) { return missing(); }
Result<std::vector<std::uint32_t>> wgsl_to_spirv(std::string_view, std::string_view) { return missing(); }

}  // namespace tc::emit
#endif
