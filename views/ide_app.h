#pragma once
// Entry points of tensorcode-ide, kept in the library so tests can use them.
#include <QString>

class QCoreApplication;

namespace tc {
namespace views {

/// Installs the translation for `language` ("de", "en", or empty for the
/// system locale, overridable in the settings). Returns true when a
/// translation other than the English source strings was loaded.
bool install_translation(QCoreApplication& app, const QString& language);

/// Parses the command line, shows the main window (or takes a screenshot
/// with `--screenshot OUT.png FILE`) and runs the event loop.
int run_ide(int argc, char** argv);

}  // namespace views
}  // namespace tc
