// The one test object that knows this checkout's absolute paths (see
// test_paths.h); CMake defines them for this file alone.
#include "support/test_paths.h"

namespace tc_test_paths {
const char* const kTestData = TC_PATH_TEST_DATA;
const char* const kSourceDir = TC_PATH_SOURCE_DIR;
const char* const kCli = TC_PATH_CLI;
}  // namespace tc_test_paths
