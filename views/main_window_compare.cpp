// The main window's comparison entries: File > Compare with Artifact / with
// Saved Version / Stop Comparing, Run > Pin This Run and the difference
// stepping keys, and the Compare dock (views/comparison.h holds the state).
#include <QAction>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QSettings>
#include <QStatusBar>

#include "views/compare_panel.h"
#include "views/comparison.h"
#include "views/graph_view.h"
#include "views/main_window.h"
#include "views/panels.h"

namespace tc {
namespace views {

void MainWindow::buildCompareDock() {
  comparison_ = new Comparison(session_);
  comparePanel_ = new ComparePanel(session_, comparison_, this);
  auto* d = new QDockWidget(tr("Compare"), this);
  d->setObjectName(QStringLiteral("CompareDock"));
  d->setWidget(comparePanel_);
  addDockWidget(Qt::BottomDockWidgetArea, d);
  if (auto* verify = findChild<QDockWidget*>(QStringLiteral("VerifyDock"))) tabifyDockWidget(verify, d);
  if (auto* problems = findChild<QDockWidget*>(QStringLiteral("ProblemsDock"))) problems->raise();
  graph_->setComparison(comparison_);
  neighbourhood_->setComparison(comparison_);
  inspector_->setComparison(comparison_);
  connect(comparison_, &Comparison::failed, this, &MainWindow::warn);
  // A comparison that starts brings its list to the front, once.
  connect(comparison_, &Comparison::changed, this, [this, d] {
    const QString summary = comparePanel_->summary().remove(QStringLiteral("<b>")).remove(QStringLiteral("</b>"));
    const QString shown = comparison_->active() ? comparison_->label() : QString();
    if (d->property("shownFor").toString() == shown) {
      // A summary still in the status bar follows the dock's (another case or
      // step: "9 value(s) differ" in the dock while the bar said 0).
      if (!shown.isEmpty() && statusBar()->currentMessage().startsWith(QStringLiteral("Compared with")) &&
          statusBar()->currentMessage() != summary)
        statusBar()->showMessage(summary, 8000);
      return;
    }
    d->setProperty("shownFor", shown);
    if (shown.isEmpty()) return;
    d->show();
    d->raise();
    statusBar()->showMessage(summary, 8000);
  });
}

void MainWindow::addCompareActions(QMenu* file) {
  auto* a = file->addAction(tr("Compare with &Artifact…"));
  connect(a, &QAction::triggered, this, &MainWindow::compareDialog);
  a = file->addAction(tr("Compare with &Saved Version"));
  connect(a, &QAction::triggered, this, [this] {
    QString err;
    if (!comparison_->compareWithSaved(&err)) warn(tr("Compare"), err);
  });
  a = file->addAction(tr("Stop Comparing"));
  connect(a, &QAction::triggered, comparison_, &Comparison::clear);
}

void MainWindow::addPinActions(QMenu* run) {
  auto* a = run->addAction(tr("&Pin This Run for Comparison"));
  a->setShortcut(QKeySequence(tr("Ctrl+Shift+P")));
  connect(a, &QAction::triggered, this, [this] {
    QString err;
    if (!comparison_->pinRun(&err)) warn(tr("Pin run"), err);
    else statusBar()->showMessage(tr("%1: change the case or the step to see what differs").arg(comparison_->label()), 8000);
  });
  a = run->addAction(tr("Next &Difference"));
  a->setShortcut(QKeySequence(Qt::Key_F8));
  connect(a, &QAction::triggered, this, [this] {
    if (!comparePanel_->step(+1)) statusBar()->showMessage(tr("no difference to go to"), 4000);
  });
  a = run->addAction(tr("Previous Difference"));
  a->setShortcut(QKeySequence(tr("Shift+F8")));
  connect(a, &QAction::triggered, this, [this] {
    if (!comparePanel_->step(-1)) statusBar()->showMessage(tr("no difference to go to"), 4000);
  });
}

void MainWindow::compareDialog() {
  const QString start = session_->filePath().isEmpty() ? QSettings().value(QStringLiteral("lastFolder")).toString()
                                                       : QFileInfo(session_->filePath()).absolutePath();
  const QString path = QFileDialog::getOpenFileName(this, tr("Compare with"), start,
                                                    tr("Programs (*.json *.py);;Artifacts (*.json);;Python (*.py)"));
  if (path.isEmpty()) return;
  QString err;
  if (!comparison_->compareWithFile(path, &err)) warn(tr("Compare"), err);
}

}  // namespace views
}  // namespace tc
