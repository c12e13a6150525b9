#include "support/golden.h"

#include <cstdlib>
#include <string_view>

namespace tc::testing {

bool update_golden() {
  const char* v = std::getenv("TC_UPDATE_GOLDEN");
  if (!v) return false;
  const std::string_view s(v);
  return !s.empty() && s != "0";
}

}  // namespace tc::testing
