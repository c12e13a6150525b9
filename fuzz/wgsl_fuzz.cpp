// libFuzzer entry point for the WGSL front end (core/emit/wgsl_parser.cpp):
// any text is parsed or refused with a located error, never a crash.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "base/result.h"
#include "emit/wgsl_parser.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto module = tc::wgsl::parse(text, "fuzz.wgsl");
  if (!module.ok()) TC_ASSERT(!module.error().message.empty());
  return 0;
}
