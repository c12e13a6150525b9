// libFuzzer entry point for the Python-subset frontend (lexer, parser,
// directives, lowering). Every parameter without a `# tensorcode: input`
// directive gets a small int32 domain so mutated sources reach the lowering.
// Budgets are small so one input stays fast; an accepted program must be a
// valid artifact that saves and loads back identical.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "base/result.h"
#include "frontend/compile.h"
#include "ir/artifact.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view source(reinterpret_cast<const char*>(data), size);
  auto functions = tc::list_functions(source);
  if (!functions.ok() || functions->empty()) return 0;
  tc::CompileOptions options;
  options.function = functions->front().name;
  options.use_input_directives = true;
  options.max_iterations = 256;
  options.max_nodes = 4000;
  auto directives = tc::parse_input_directives(source);
  for (const auto& p : functions->front().parameters) {
    bool given = false;
    if (directives.ok())
      for (const auto& [name, _] : *directives) given = given || name == p;
    if (!given) options.inputs.emplace_back(p, tc::Domain::int32(-16, 16));
  }
  auto out = tc::compile_python(source, options);
  // An internal error is a bug even when it is reported as a value (for
  // example a value outside the static type the resolver gave it).
  TC_ASSERT(out.ok() || out.error().message.rfind("internal error", 0) != 0);
  if (out.ok()) {
    auto again = tc::load_artifact(tc::save_artifact(out->program));
    TC_ASSERT(again.ok() && *again == out->program);
  }
  return 0;
}
