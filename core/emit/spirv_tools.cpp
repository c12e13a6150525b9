// Only built when SPIRV-Tools is present (the file name contains "spirv").
#include <spirv-tools/libspirv.hpp>

#include "emit/spirv.h"

namespace tc::emit {

namespace {

void capture(spvtools::SpirvTools& tools, std::string& messages) {
  tools.SetMessageConsumer([&messages](spv_message_level_t, const char*, const spv_position_t& pos, const char* msg) {
    if (!messages.empty()) messages += "; ";
    messages += msg;
    if (pos.index) messages += " (word " + std::to_string(pos.index) + ")";
  });
}

}  // namespace

bool have_spirv_tools() { return true; }

Result<std::vector<std::uint32_t>> assemble_spirv(std::string_view text) {
  std::string messages;
  spvtools::SpirvTools tools(SPV_ENV_VULKAN_1_1);
  capture(tools, messages);
  std::vector<std::uint32_t> words;
  if (!tools.Assemble(text.data(), text.size(), &words, SPV_TEXT_TO_BINARY_OPTION_NONE))
    return make_error("internal error: SPIR-V assembly failed: " + messages);
  return words;
}

Status validate_spirv(const std::vector<std::uint32_t>& words) {
  std::string messages;
  spvtools::SpirvTools tools(SPV_ENV_VULKAN_1_1);
  capture(tools, messages);
  if (!tools.Validate(words)) return make_error("SPIR-V validation failed: " + messages);
  return ok_status();
}

Result<std::vector<std::uint32_t>> wgsl_to_spirv(std::string_view wgsl, std::string_view file) {
  auto text = wgsl_to_spirv_asm(wgsl, file);
  if (!text.ok()) return text.error();
  auto words = assemble_spirv(*text);
  if (!words.ok()) return words.error();
  if (Status s = validate_spirv(*words); !s.ok()) return s.error();
  return words;
}

}  // namespace tc::emit
