#pragma once
/// Where the Qt tests find their data, the bundled examples and the built
/// programs. Like tests/support/test_paths.h, the absolute paths live in one
/// small object (views_test_paths.cpp), not on each test's command line, so
/// that a compiler cache can serve one checkout's test objects to another.
#include <QString>

namespace tc_views_paths {
QString viewsTestData();  ///< tests/views/data
QString examples();       ///< resources/examples
QString diffData();       ///< tests/data/diff
QString ide();            ///< the built tensorcode-ide
QString cli();            ///< the built tensorcode
/// `dir` + "/" + `name`.
inline QString under(const QString& dir, const char* name) { return dir + u'/' + QString::fromUtf8(name); }
}  // namespace tc_views_paths
