// The one views test object that knows this checkout's absolute paths
// (views_test_paths.h says why); CMake defines them for this file alone.
#include "views_test_paths.h"

namespace tc_views_paths {
QString viewsTestData() { return QStringLiteral(TC_PATH_VIEWS_TEST_DATA); }
QString examples() { return QStringLiteral(TC_PATH_EXAMPLES); }
QString diffData() { return QStringLiteral(TC_PATH_DIFF_DATA); }
QString ide() { return QStringLiteral(TC_PATH_IDE); }
QString cli() { return QStringLiteral(TC_PATH_CLI); }
}  // namespace tc_views_paths
