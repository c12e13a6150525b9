// libFuzzer entry point for the `# tensorcode: input NAME=DOMAIN` directive
// reader and writer: what parses must survive being written back and read
// again with the same domains.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "base/result.h"
#include "frontend/compile.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view source(reinterpret_cast<const char*>(data), size);
  auto inputs = tc::parse_input_directives(source);
  if (!inputs.ok()) return 0;
  const std::string rewritten = tc::set_input_directives(source, *inputs);
  auto again = tc::parse_input_directives(rewritten);
  TC_ASSERT(again.ok() && *again == *inputs);
  return 0;
}
