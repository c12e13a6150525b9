#pragma once
// Locations of test data and small file helpers shared by the ir tests.
#include <fstream>
#include <sstream>
#include <string>

#include "support/golden.h"

namespace tc::testing {

inline std::string data_path(const std::string& rel) { return std::string(TC_TEST_DATA) + "/" + rel; }
inline std::string source_path(const std::string& rel) { return std::string(TC_SOURCE_DIR) + "/" + rel; }

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline bool regenerate_golden() { return tc::testing::update_golden(); }

}  // namespace tc::testing
