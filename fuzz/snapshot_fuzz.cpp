// libFuzzer entry point for snapshot restore (Runtime::restore_text): a
// snapshot that restores must write back one that restores to the same state.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "base/result.h"
#include "runtime/runtime.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto rt = tc::Runtime::restore_text(text);
  if (!rt.ok()) return 0;
  auto again = tc::Runtime::restore_text(rt->snapshot_text());
  TC_ASSERT(again.ok() && again->state() == rt->state() && again->steps() == rt->steps() &&
            again->max_steps() == rt->max_steps());
  return 0;
}
