// libFuzzer entry point for case files (JSON Lines, parse_cases_jsonl) as
// `run --cases`, `verify --cases` and `fit --data` read them, over two inputs:
// `a` int32:-128:127 and `x` float64 without bounds. Every parsed case must
// hold both inputs inside their domains.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "base/result.h"
#include "verify/cases.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::vector<tc::CaseInput> inputs = {{"a", tc::Domain::int32(-128, 127)},
                                                    {"x", tc::Domain::float64()}};
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto cases = tc::parse_cases_jsonl(text, inputs);
  if (!cases.ok()) return 0;
  for (std::size_t c = 0; c < cases->size(); ++c) {
    const auto row = cases->at(c);
    TC_ASSERT(row.size() == 2 && row[0] >= -128 && row[0] <= 127 && std::isfinite(row[1]));
  }
  return 0;
}
