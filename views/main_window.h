#pragma once
// The IDE's main window: docks around the circuit view, menus with desktop
// shortcuts, recent files, exports, verify and the timeline.
#include <QMainWindow>

#include <functional>

#include "views/session.h"

class QAction;
class QLabel;
class QLineEdit;
class QMenu;
class QProgressBar;
class QPushButton;
class QTabWidget;
class QTreeWidget;

namespace tc {
namespace views {

class Comparison;
class ComparePanel;
class GraphView;
class InputsPanel;
class InspectorPanel;
class IrTextView;
class ProblemsView;
class SourceEditor;
class TimelinePanel;
class VerifyPanel;

class MainWindow : public QMainWindow, public Viewer {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  Session* session() { return session_; }
  SourceEditor* editor() { return editor_; }
  GraphView* graph() { return graph_; }
  GraphView* neighbourhood() { return neighbourhood_; }
  InspectorPanel* inspector() { return inspector_; }
  InputsPanel* inputs() { return inputs_; }
  IrTextView* irText() { return irText_; }
  ProblemsView* problems() { return problems_; }
  TimelinePanel* timeline() { return timeline_; }
  VerifyPanel* verifyPanel() { return verify_; }
  Comparison* comparison() { return comparison_; }
  ComparePanel* comparePanel() { return comparePanel_; }

  bool openPath(const QString& path);
  bool savePath(const QString& path);
  /// Writes one export kind ("artifact", "optimized", "dot", "wgsl", "spirv", "wasm", "onnx", "c": FILE.c and FILE.h beside it)
  /// on the worker. False (with `error`) when refused at once (nothing
  /// compiled, the source broken); otherwise the outcome arrives as
  /// exported() and in `done` ("" on success, else the error).
  bool exportTo(const QString& kind, const QString& path, QString* error, std::function<void(const QString&)> done = {});
  /// Processes events until the worker is idle and the graph is laid out (false on timeout).
  bool waitUntilSettled(int timeout_ms);
  /// Selects the program's first output node.
  void selectOutput();
  /// Raises a dock by object name ("TimelineDock", "VerifyDock", ...).
  void raiseDock(const QString& name);
  /// Shows the Neighbourhood tab instead of the whole circuit.
  void showNeighbourhood();
  /// Shows a warning without blocking (a window-modal box); tests read the last one.
  void warn(const QString& title, const QString& text);
  [[nodiscard]] const QString& lastWarning() const { return lastWarning_; }
  /// The file name, folder and extension the export dialog proposes for `kind`.
  [[nodiscard]] QString defaultExportPath(const QString& kind) const;
  /// The header a C export to `source` writes beside it (FILE.h for FILE.c).
  static QString cHeaderPath(const QString& source);
  /// A note shown before exporting `kind` ("" when none): WGSL, SPIR-V and WASM compute in float32.
  [[nodiscard]] QString exportWarning(const QString& kind) const;
  /// F10 and the other step actions: false (with a status message) when no event log is open.
  bool stepForward();

  void stepChanged() override { updateStatus(); }
  void resultsChanged() override { updateStatus(); }

 signals:
  void exported(const QString& path, const QString& error);

 protected:
  void closeEvent(QCloseEvent* ev) override;
  void showEvent(QShowEvent* ev) override;

 private:
  void buildActions();  // main_window_menus.cpp: one function per menu
  void buildFileMenu();
  void buildEditMenu();
  void buildViewMenu();
  void buildRunMenu();
  void buildProgramMenu();
  void buildHelpMenu();
  /// main_window_compare.cpp: File's Compare entries, Run's Pin This Run, the Compare dock.
  void addCompareActions(QMenu* file);
  void addPinActions(QMenu* run);
  void buildCompareDock();
  void compareDialog();
  /// Program > Compile Options: a window-modal dialog; accepting rewrites the directive line.
  void compileOptionsDialog();
  /// Help > Keyboard Shortcuts: every menu entry that has one.
  void shortcutsDialog();
  /// Edit > Copy (Ctrl+C) from whichever view has the focus.
  void copyFromFocus();
  void buildDocks();
  void updateTitle();
  void updateStatus();
  void rememberRecent(const QString& path);
  void rebuildRecentMenu();
  bool maybeSave();
  /// The source or the named cases have changes that Save would write.
  [[nodiscard]] bool unsaved() const { return modified_ || session_->hasUnsavedCases(); }
  void openDialog();
  bool saveAs();
  void exportDialog(const QString& kind);
  void openEventsDialog();
  void findInSource(bool next);
  /// Finds the previous occurrence of the find text (Shift+F3).
  void findPrevious();
  /// Replaces the current match with the replace text and finds the next one.
  void replaceNext();
  /// Edit > Go to Line: a window-modal input box (no nested event loop).
  void goToLineDialog();

 public:
  [[nodiscard]] QLineEdit* findEdit() const { return findEdit_; }
  [[nodiscard]] QLineEdit* replaceEdit() const { return replaceEdit_; }
  [[nodiscard]] QLineEdit* nodeSearchEdit() const { return nodeSearch_; }
  /// "2 of 12" beside Find Node.
  [[nodiscard]] QLabel* nodeSearchCount() const { return searchCount_; }

 private:
  QLineEdit* replaceEdit_ = nullptr;

  Session* session_;
  SourceEditor* editor_;
  GraphView* graph_;
  GraphView* neighbourhood_;
  InspectorPanel* inspector_;
  InputsPanel* inputs_;
  IrTextView* irText_;
  ProblemsView* problems_;
  TimelinePanel* timeline_;
  VerifyPanel* verify_;
  Comparison* comparison_ = nullptr;
  ComparePanel* comparePanel_ = nullptr;
  QTabWidget* centre_;
  QLineEdit* findEdit_;
  QLineEdit* nodeSearch_;
  QLabel* searchCount_ = nullptr;
  QMenu* recentMenu_;
  class QToolBar* toolbar_ = nullptr;
  QLabel* compileLabel_;
  QLabel* nodesLabel_;
  QLabel* resultLabel_;
  QLabel* layoutLabel_;
  QString lastWarning_;
  bool showingError_ = false;  ///< the last compile failed (Problems was brought forward for it)
  QString pendingRecent_;  // an artifact opened, added to Recent once it loads
  bool modified_ = false;
  bool layoutRestored_ = false;  // a remembered dock layout was applied
  QByteArray savedState_;
  bool shownOnce_ = false;
  void applyDefaultDockSizes();
};

}  // namespace views
}  // namespace tc
