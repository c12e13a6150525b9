// The main window's menus and their shortcuts, one function per menu (the
// window's layout and behaviour are in main_window.cpp).
#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QClipboard>
#include <QGuiApplication>
#include <QDesktopServices>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QDockWidget>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>
#include <QToolBar>
#include <QTreeWidget>
#include <QUrl>
#include <QVBoxLayout>

#include <algorithm>

#include "views/compile_options_dialog.h"
#include "views/copy_actions.h"
#include "views/editor.h"
#include "views/graph_view.h"
#include "views/main_window.h"
#include "views/panels.h"
#include "views/timeline.h"
#include "views/verify_panel.h"

namespace tc {
namespace views {

namespace {

/// A menu entry with its shortcut (none when `key` is empty) running `slot`.
template <class Slot>
QAction* menu_action(QWidget* owner, QMenu* menu, const QString& text, const QKeySequence& key, Slot slot) {
  auto* a = menu->addAction(text);
  if (!key.isEmpty()) a->setShortcut(key);
  QObject::connect(a, &QAction::triggered, owner, slot);
  return a;
}

}  // namespace

void MainWindow::buildActions() {
  buildFileMenu();
  buildEditMenu();
  buildViewMenu();
  buildRunMenu();
  buildProgramMenu();
  buildHelpMenu();
}

void MainWindow::buildFileMenu() {
  auto act = [this](QMenu* m, const QString& text, const QKeySequence& key, auto slot) { return menu_action(this, m, text, key, slot); };
  auto* file = menuBar()->addMenu(tr("&File"));
  act(file, tr("&New"), QKeySequence::New, [this] {
    if (maybeSave()) session_->newDocument(QStringLiteral("def f(x):\n    return x\n"));
  });
  act(file, tr("&Open…"), QKeySequence::Open, [this] { openDialog(); });
  recentMenu_ = file->addMenu(tr("Open &Recent"));
  act(file, tr("&Save"), QKeySequence::Save, [this] {
    if (session_->filePath().isEmpty() || session_->readOnly()) saveAs();
    else savePath(session_->filePath());
  });
  // QKeySequence::SaveAs is empty outside KDE and GNOME (offscreen, plain X11):
  // spelled out so the shortcut works and the menu shows it everywhere.
  act(file, tr("Save &As…"), QKeySequence(tr("Ctrl+Shift+S")), [this] { saveAs(); });
  auto* exp = file->addMenu(tr("&Export"));
  act(exp, tr("Artifact JSON…"), QKeySequence(tr("Ctrl+E")), [this] { exportDialog(QStringLiteral("artifact")); });
  act(exp, tr("Optimized artifact…"), {}, [this] { exportDialog(QStringLiteral("optimized")); });
  act(exp, tr("Graphviz .dot…"), {}, [this] { exportDialog(QStringLiteral("dot")); });
  exp->addSeparator();
  // The labels are UTF-8 (the ellipsis): tr() reads them as such, QString::fromLatin1 would not.
  for (const auto& [kind, label] : {std::pair{"wgsl", tr("WGSL…")}, std::pair{"spirv", tr("SPIR-V…")}, std::pair{"wasm", tr("WebAssembly…")}}) {
    const QString k = QString::fromLatin1(kind);
    auto* a = act(exp, label, {}, [this, k] { exportDialog(k); });
    const auto targets = export_targets();
    a->setEnabled(std::find(targets.begin(), targets.end(), std::string(kind)) != targets.end());
  }
  exp->addSeparator();
  // As `emit --target c` and `--target onnx`: stateless, call-free programs (others are refused with core's reason).
  act(exp, tr("C source and header…"), {}, [this] { exportDialog(QStringLiteral("c")); });
  act(exp, tr("ONNX model…"), {}, [this] { exportDialog(QStringLiteral("onnx")); });
  file->addSeparator();
  addCompareActions(file);
  file->addSeparator();
  // QKeySequence::Quit is empty on some platforms (offscreen): spelled out.
  act(file, tr("&Quit"), QKeySequence(tr("Ctrl+Q")), [this] { close(); });
}

void MainWindow::buildEditMenu() {
  auto act = [this](QMenu* m, const QString& text, const QKeySequence& key, auto slot) { return menu_action(this, m, text, key, slot); };
  auto* edit = menuBar()->addMenu(tr("&Edit"));
  act(edit, tr("&Undo"), QKeySequence::Undo, [this] { editor_->undo(); });
  act(edit, tr("&Redo"), QKeySequence::Redo, [this] { editor_->redo(); });
  edit->addSeparator();
  act(edit, tr("Cu&t"), QKeySequence::Cut, [this] { editor_->cut(); });
  act(edit, tr("&Copy"), QKeySequence::Copy, [this] { copyFromFocus(); });
  act(edit, tr("&Paste"), QKeySequence::Paste, [this] { editor_->paste(); });
  edit->addSeparator();
  act(edit, tr("&Find…"), QKeySequence::Find, [this] {
    findEdit_->setFocus();
    findEdit_->selectAll();
  });
  act(edit, tr("Find &Next"), QKeySequence::FindNext, [this] { findInSource(true); });
  act(edit, tr("Find &Previous"), QKeySequence::FindPrevious, [this] { findPrevious(); });
  act(edit, tr("&Replace…"), QKeySequence(tr("Ctrl+H")), [this] {
    if (findEdit_->text().isEmpty()) findEdit_->setFocus();
    else replaceEdit_->setFocus();
  });
  act(edit, tr("Replace &All"), QKeySequence(tr("Ctrl+Shift+H")), [this] {
    const QString t = findEdit_->text();
    if (t.isEmpty() || session_->readOnly()) {
      findEdit_->setFocus();
      return;
    }
    const int n = editor_->replaceAll(t, replaceEdit_->text());
    statusBar()->showMessage(n ? tr("replaced %n occurrence(s) of '%1'", nullptr, n).arg(t) : tr("'%1' not found").arg(t), 4000);
  });
  act(edit, tr("&Go to Line…"), QKeySequence(tr("Ctrl+L")), [this] { goToLineDialog(); });
  act(edit, tr("Find &Node…"), QKeySequence(tr("Ctrl+G")), [this] {
    nodeSearch_->setFocus();
    nodeSearch_->selectAll();
  });
}

void MainWindow::copyFromFocus() {
  // Ctrl+C copies what the focused view shows: text where text is selected,
  // else the selected node as that view lists it.
  QWidget* f = QApplication::focusWidget();
  auto* clipboard = QGuiApplication::clipboard();
  const NodeId id = session_->selected();
  if (f == editor_ || (f && editor_->isAncestorOf(f))) {
    editor_->copy();
  } else if (auto* line = qobject_cast<QLineEdit*>(f)) {
    line->copy();
  } else if (f == irText_ || (f && irText_->isAncestorOf(f))) {
    if (irText_->textCursor().hasSelection()) irText_->copy();
    else if (id >= 0) clipboard->setText(nodeIrLine(*session_, id));
  } else if (f && inspector_->isAncestorOf(f)) {
    if (id >= 0) clipboard->setText(nodeRowText(*session_, id));
  } else if (id >= 0 && (f == graph_ || f == neighbourhood_)) {
    const QString value = nodeValueText(*session_, id);
    clipboard->setText(value.isEmpty() ? nodeIrLine(*session_, id) : nodeIrLine(*session_, id) + QStringLiteral("  = ") + value);
  } else {
    editor_->copy();
  }
}

void MainWindow::buildViewMenu() {
  auto act = [this](QMenu* m, const QString& text, const QKeySequence& key, auto slot) { return menu_action(this, m, text, key, slot); };
  auto* view = menuBar()->addMenu(tr("&View"));
  toolbar_->addAction(act(view, tr("&Fit Circuit"), QKeySequence(tr("Ctrl+0")), [this] { graph_->fitAll(); }));
  act(view, tr("Zoom &In"), QKeySequence::ZoomIn, [this] { graph_->zoomIn(); });
  act(view, tr("Zoom &Out"), QKeySequence::ZoomOut, [this] { graph_->zoomOut(); });
  act(view, tr("&Centre on Selection"), QKeySequence(tr("Ctrl+J")), [this] { graph_->centerOnSelection(); });
  auto* overlay = view->addMenu(tr("&Overlay"));
  auto* group = new QActionGroup(this);
  for (const auto& [o, label] : {std::pair{GraphView::Overlay::None, tr("Op kinds")},
                                 std::pair{GraphView::Overlay::Intervals, tr("Intervals and warnings")},
                                 std::pair{GraphView::Overlay::Values, tr("Value heat map")}}) {
    auto* a = overlay->addAction(label);
    a->setCheckable(true);
    a->setChecked(o == graph_->overlay());
    group->addAction(a);
    const auto mode = o;
    connect(a, &QAction::triggered, this, [this, mode] {
      graph_->setOverlay(mode);
      neighbourhood_->setOverlay(mode);
    });
  }
  view->addSeparator();
  for (QDockWidget* d : findChildren<QDockWidget*>()) view->addAction(d->toggleViewAction());
  auto* precision = view->addMenu(tr("Number &Precision"));
  auto* pgroup = new QActionGroup(this);
  const int savedDigits = QSettings().value(QStringLiteral("display/precision"), 6).toInt();
  set_display_precision(savedDigits);
  for (const auto& [digits, label] : {std::pair{4, tr("4 significant digits")}, std::pair{6, tr("6 significant digits")},
                                      std::pair{10, tr("10 significant digits")}, std::pair{0, tr("Full (shortest round trip)")}}) {
    auto* a = precision->addAction(label);
    a->setCheckable(true);
    a->setChecked(digits == display_precision());
    a->setData(digits);
    pgroup->addAction(a);
    const int d = digits;
    connect(a, &QAction::triggered, this, [this, d] {
      set_display_precision(d);
      QSettings().setValue(QStringLiteral("display/precision"), d);
      session_->redisplay();
    });
  }
  view->addSeparator();
  auto* lang = view->addMenu(tr("&Language"));
  auto* lgroup = new QActionGroup(this);
  const QString current = QSettings().value(QStringLiteral("language")).toString();
  for (const auto& [code, label] : {std::pair{QString(), tr("System default")}, std::pair{QStringLiteral("en"), QStringLiteral("English")},
                                    std::pair{QStringLiteral("de"), QStringLiteral("Deutsch")}}) {
    auto* a = lang->addAction(label);
    a->setCheckable(true);
    a->setChecked(code == current);
    lgroup->addAction(a);
    const QString c = code;
    connect(a, &QAction::triggered, this, [this, c] {
      QSettings().setValue(QStringLiteral("language"), c);
      statusBar()->showMessage(tr("The language changes when the IDE starts next."), 8000);
    });
  }
}

void MainWindow::buildRunMenu() {
  auto act = [this](QMenu* m, const QString& text, const QKeySequence& key, auto slot) { return menu_action(this, m, text, key, slot); };
  auto* run = menuBar()->addMenu(tr("&Run"));
  toolbar_->addSeparator();
  toolbar_->addAction(act(run, tr("&Run Case"), QKeySequence(Qt::Key_F5), [this] { session_->run(); }));
  act(run, tr("&Compile Now"), QKeySequence(tr("Ctrl+B")), [this] { session_->compileNow(); });
  auto* verifyAct = act(run, tr("&Verify"), QKeySequence(Qt::Key_F6), [this] {
    for (QDockWidget* d : findChildren<QDockWidget*>())
      if (d->objectName() == QLatin1String("VerifyDock")) d->raise();
    verify_->start();
  });
  toolbar_->addAction(verifyAct);
  act(run, tr("&Prove"), QKeySequence(tr("Ctrl+F6")), [this] {
    for (QDockWidget* d : findChildren<QDockWidget*>())
      if (d->objectName() == QLatin1String("VerifyDock")) d->raise();
    verify_->startProve();
  });
  act(run, tr("Cancel Verify or Prove"), QKeySequence(tr("Shift+F6")), [this] { verify_->cancel(); });
  run->addSeparator();
  act(run, tr("Open &Event Log…"), QKeySequence(tr("Ctrl+Shift+O")), [this] { openEventsDialog(); });
  toolbar_->addAction(act(run, tr("Step &Forward"), QKeySequence(Qt::Key_F10), [this] { stepForward(); }));
  act(run, tr("Step &Back"), QKeySequence(tr("Shift+F10")), [this] {
    if (session_->hasReplay()) timeline_->stepBack();
    else stepForward();  // says why nothing moves
  });
  act(run, tr("Jump to Next &Change"), QKeySequence(tr("Ctrl+F10")), [this] {
    if (!session_->hasReplay()) stepForward();  // says why nothing moves
    else if (!timeline_->jumpToChange() && session_->selected() >= 0)
      statusBar()->showMessage(tr("#%1 does not change after this step").arg(session_->selected()), 4000);
  });
  // Reverse stepping to a watchpoint, as rr's reverse-continue: the last step before this one where the value changed.
  act(run, tr("Jump to &Previous Change"), QKeySequence(tr("Ctrl+Shift+F10")), [this] {
    if (!session_->hasReplay()) stepForward();
    else if (!timeline_->jumpToPreviousChange() && session_->selected() >= 0)
      statusBar()->showMessage(tr("#%1 does not change before this step").arg(session_->selected()), 4000);
  });
  run->addSeparator();
  addPinActions(run);
}

void MainWindow::buildProgramMenu() {
  auto act = [this](QMenu* m, const QString& text, const QKeySequence& key, auto slot) { return menu_action(this, m, text, key, slot); };
  auto* program = menuBar()->addMenu(tr("&Program"));
  act(program, tr("Compile &Options…"), QKeySequence(tr("Ctrl+Shift+B")), [this] { compileOptionsDialog(); });
}

void MainWindow::compileOptionsDialog() {
  if (session_->readOnly()) {
    statusBar()->showMessage(tr("an artifact is already compiled: its options cannot change"), 6000);
    return;
  }
  // Window-modal and asynchronous (no nested event loop); the answer rewrites the directive line.
  auto* dialog = new CompileOptionsDialog(session_->compileDirectives(), this);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  dialog->setWindowModality(Qt::WindowModal);
  connect(dialog, &QDialog::accepted, this, [this, dialog] { session_->setCompileDirectives(dialog->directives()); });
  dialog->open();
}

void MainWindow::buildHelpMenu() {
  auto act = [this](QMenu* m, const QString& text, const QKeySequence& key, auto slot) { return menu_action(this, m, text, key, slot); };
  auto* help = menuBar()->addMenu(tr("&Help"));
  act(help, tr("&Keyboard Shortcuts"), QKeySequence(Qt::Key_F1), [this] { shortcutsDialog(); });
  act(help, tr("IDE &Documentation"), {}, [this] {
    const QString doc = QStringLiteral(TC_DOCS_DIR "/ide.md");
    if (!QFileInfo::exists(doc) || !QDesktopServices::openUrl(QUrl::fromLocalFile(doc)))
      statusBar()->showMessage(tr("the IDE guide is docs/ide.md in the tensorcode sources"), 8000);
  });
  act(help, tr("&About tensorcode"), {}, [this] {
    QMessageBox::about(this, tr("About tensorcode"),
                       tr("<b>tensorcode</b> %1<br>A compiler, checked evaluator and visual debugger for small numerical programs.")
                           .arg(QApplication::applicationVersion()));
  });
}

void MainWindow::shortcutsDialog() {
  // Every menu entry with a shortcut, read from the actions themselves so the list cannot go stale.
  auto* dialog = new QDialog(this);
  dialog->setObjectName(QStringLiteral("ShortcutsDialog"));
  dialog->setWindowTitle(tr("Keyboard Shortcuts"));
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  auto* lay = new QVBoxLayout(dialog);
  auto* list = new QTreeWidget(dialog);
  list->setObjectName(QStringLiteral("ShortcutList"));
  list->setColumnCount(3);
  list->setHeaderLabels({tr("Menu"), tr("Action"), tr("Shortcut")});
  list->setRootIsDecorated(false);
  for (QAction* menu : menuBar()->actions()) {
    if (!menu->menu()) continue;
    std::vector<QMenu*> menus{menu->menu()};
    for (std::size_t i = 0; i < menus.size(); ++i) {
      for (QAction* a : menus[i]->actions()) {
        if (a->menu()) menus.push_back(a->menu());
        if (a->shortcut().isEmpty()) continue;
        auto* item = new QTreeWidgetItem(list);
        item->setText(0, QString(menu->text()).remove(QLatin1Char('&')));
        item->setText(1, QString(a->text()).remove(QLatin1Char('&')).remove(QStringLiteral("…")));
        item->setText(2, a->shortcut().toString(QKeySequence::NativeText));
      }
    }
  }
  list->resizeColumnToContents(0);
  list->resizeColumnToContents(1);
  lay->addWidget(list);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, dialog);
  connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::reject);
  lay->addWidget(buttons);
  dialog->resize(520, 480);
  dialog->show();
}

}  // namespace views
}  // namespace tc
