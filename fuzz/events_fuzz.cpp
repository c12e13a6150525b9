// libFuzzer entry point for event JSON Lines, read the way `tensorcode
// replay` reads them: line by line into Runtime::parse_event and dispatched
// on a small stateful program (the counter example: input `event` in
// int32:0:1, state `count` in int32:0:100). A failed event must change
// neither the state nor the step count.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "base/result.h"
#include "ir/artifact.h"
#include "runtime/runtime.h"

namespace {
constexpr std::string_view kCounter =
    R"({"format":"tensorcode.program","version":1,"semantics":"exact","dtype":"float64","surrogate":"sigmoid",)"
    R"("temperature":1.0,"outputs":{"result":1},"updates":{"1":2},"nodes":[{"id":0,"op":"input","args":[],)"
    R"("shape":[],"domain":{"type":"int32","min":0,"max":1},"differentiable":false,"location":null,"name":"event"},)"
    R"({"id":1,"op":"state","args":[],"shape":[],"domain":{"type":"int32","min":0,"max":100},"differentiable":false,)"
    R"("location":null,"name":"count","value":0},{"id":2,"op":"add","args":[1,0],"shape":[],"domain":null,)"
    R"("differentiable":false,"location":null}]})";
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const tc::Program program = *tc::load_artifact(kCounter);
  auto rt = tc::Runtime::create(program, 1000);
  TC_ASSERT(rt.ok());
  std::string_view text(reinterpret_cast<const char*>(data), size);
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
    auto event = rt->parse_event(line);
    if (!event.ok()) continue;
    const auto before = rt->state();
    const auto steps = rt->steps();
    auto r = rt->dispatch(*event);
    if (!r.ok()) TC_ASSERT(rt->state() == before && rt->steps() == steps);
  }
  return 0;
}
