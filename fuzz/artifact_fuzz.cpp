// libFuzzer entry point for the artifact loader. Build with clang:
//   cmake -S . -B build-fuzz -DCMAKE_CXX_COMPILER=clang++ -DTC_BUILD_FUZZERS=ON -DTC_BUILD_IDE=OFF
//   build-fuzz/bin/tc_artifact_fuzz tests/data/ir/roundtrip
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "base/result.h"
#include "ir/artifact.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto program = tc::load_artifact(text);
  if (program.ok()) {
    auto again = tc::load_artifact(tc::save_artifact(*program));
    TC_ASSERT(again.ok() && *again == *program);
  }
  return 0;
}
