#pragma once
// The IDE's main window: docks around the circuit view, menus with desktop
// shortcuts, recent files, exports, verify and the timeline.
#include <QMainWindow>

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

class GraphView;
class InputsPanel;
class InspectorPanel;
class IrTextView;
class ProblemsView;
class SourceEditor;
class TimelinePanel;

/// Verification: run over the inputs' domains with progress and cancel; a
/// mismatch activates into the inputs panel.
class VerifyPanel : public QWidget {
  Q_OBJECT
 public:
  explicit VerifyPanel(Session* session, QWidget* parent = nullptr);
  [[nodiscard]] QTreeWidget* mismatches() const { return list_; }
  [[nodiscard]] QString summary() const;

 public slots:
  void start();
  void cancel();

 signals:
  void caseChosen(const tc::views::Case& c);

 private:
  Session* session_;
  QPushButton* run_;
  QPushButton* cancel_;
  QProgressBar* progress_;
  QLabel* summary_;
  QTreeWidget* list_;
  std::vector<Case> cases_;
};

class MainWindow : public QMainWindow {
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

  bool openPath(const QString& path);
  bool savePath(const QString& path);
  /// Writes one export kind ("artifact", "optimized", "dot", "wgsl", "spirv", "wasm").
  bool exportTo(const QString& kind, const QString& path, QString* error);
  /// Processes events until the worker is idle and the graph is laid out (false on timeout).
  bool waitUntilSettled(int timeout_ms);
  /// Selects the program's first output node.
  void selectOutput();
  /// Raises a dock by object name ("TimelineDock", "VerifyDock", ...).
  void raiseDock(const QString& name);
  /// Shows the Neighbourhood tab instead of the whole circuit.
  void showNeighbourhood();

 protected:
  void closeEvent(QCloseEvent* ev) override;
  void showEvent(QShowEvent* ev) override;

 private:
  void buildActions();
  void buildDocks();
  void updateTitle();
  void updateStatus();
  void rememberRecent(const QString& path);
  void rebuildRecentMenu();
  bool maybeSave();
  void openDialog();
  bool saveAs();
  void exportDialog(const QString& kind);
  void openEventsDialog();
  void findInSource(bool next);

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
  QTabWidget* centre_;
  QLineEdit* findEdit_;
  QLineEdit* nodeSearch_;
  QMenu* recentMenu_;
  class QToolBar* toolbar_ = nullptr;
  QLabel* compileLabel_;
  QLabel* nodesLabel_;
  QLabel* resultLabel_;
  QLabel* layoutLabel_;
  bool modified_ = false;
  bool layoutRestored_ = false;  // a remembered dock layout was applied
  bool shownOnce_ = false;
  void applyDefaultDockSizes();
};

}  // namespace views
}  // namespace tc
