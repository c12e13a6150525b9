#include "views/main_window.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QActionGroup>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QSaveFile>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>
#include <QTimer>
#include <QToolBar>
#include <QTreeWidget>
#include <QVBoxLayout>

#include "base/atomic_file.h"
#include "views/comparison.h"
#include "views/editor.h"
#include "views/graph_view.h"
#include "views/panels.h"
#include "views/timeline.h"
#include "views/verify_panel.h"

// Resources of a static library are only linked in when referenced.
static void tc_init_resources() { Q_INIT_RESOURCE(tensorcode); }

namespace tc {
namespace views {

// ---------------------------------------------------------------------------
MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent), session_(new Session(this)) {
  tc_init_resources();
  setObjectName(QStringLiteral("MainWindow"));
  setWindowIcon(QIcon(QStringLiteral(":/icons/tensorcode.svg")));
  centre_ = new QTabWidget(this);
  graph_ = new GraphView(session_, GraphView::Mode::Whole, centre_);
  neighbourhood_ = new GraphView(session_, GraphView::Mode::Neighbourhood, centre_);
  centre_->addTab(graph_, tr("Circuit"));
  centre_->addTab(neighbourhood_, tr("Neighbourhood"));
  setCentralWidget(centre_);
  buildDocks();
  buildCompareDock();
  buildActions();

  auto* sb = statusBar();
  compileLabel_ = new QLabel(this);
  nodesLabel_ = new QLabel(this);
  resultLabel_ = new QLabel(this);
  layoutLabel_ = new QLabel(this);
  sb->addPermanentWidget(resultLabel_);
  sb->addPermanentWidget(layoutLabel_);
  sb->addPermanentWidget(nodesLabel_);
  sb->addPermanentWidget(compileLabel_);
  connect(session_, &Session::message, this, [this](const QString& m) { statusBar()->showMessage(m, 8000); });
  connect(session_, &Session::failed, this, &MainWindow::warn);
  session_->addViewer(this);
  connect(session_, &Session::compiled, this, &MainWindow::updateStatus);
  // While the source does not compile every view of the old circuit is out of
  // date: greyed (the graph draws its own banner).
  connect(session_, &Session::compiled, this, [this] {
    const bool current = !session_->compileFailed();
    inspector_->setEnabled(current);
    irText_->setEnabled(current);
    graph_->update();
    neighbourhood_->update();
    // A compile error that appears (typing paused on it, or a file opened
    // broken) brings the Problems tab forward once, over Timeline or Verify.
    if (!current && !showingError_) {
      if (auto* problems = findChild<QDockWidget*>(QStringLiteral("ProblemsDock"))) {
        problems->show();
        problems->raise();
      }
    }
    showingError_ = !current;
  });
  connect(session_, &Session::evaluated, this, &MainWindow::updateStatus);
  connect(session_, &Session::compiled, this, [this] {
    if (pendingRecent_.isEmpty()) return;
    if (session_->program() && session_->readOnly()) rememberRecent(pendingRecent_);
    pendingRecent_.clear();
  });
  connect(session_, &Session::documentChanged, this, [this] {
    // The editor holds the new document's text now (SourceEditor connected first).
    editor_->setModified(false);
    modified_ = false;
    updateTitle();
  });
  connect(editor_, &QsciScintilla::modificationChanged, this, [this](bool m) {
    modified_ = m;
    updateTitle();
  });
  // Named cases are part of the document's unsaved changes (written on Save only).
  connect(session_, &Session::casesModified, this, &MainWindow::updateTitle);
  connect(graph_, &GraphView::layoutFinished, this, [this](double ms, bool gv) {
    layoutLabel_->setText(gv ? tr("layout %1 ms (Graphviz)").arg(ms, 0, 'f', 0) : tr("layout %1 ms").arg(ms, 0, 'f', 0));
  });
  connect(problems_, &ProblemsView::jump, editor_, &SourceEditor::goTo);
  connect(session_, &Session::sourceRequested, editor_, &SourceEditor::goTo);
  connect(verify_, &VerifyPanel::caseChosen, this, [this](const Case& c) {
    inputs_->applyCase(c);
    for (QDockWidget* d : findChildren<QDockWidget*>())
      if (d->objectName() == QLatin1String("InputsDock")) d->raise();
  });
  connect(timeline_, &TimelinePanel::openEventsRequested, this, &MainWindow::openEventsDialog);
  connect(timeline_, &TimelinePanel::saveSnapshotRequested, this, [this] {
    const QString path = QFileDialog::getSaveFileName(this, tr("Save snapshot"), QString(), tr("Snapshots (*.json)"));
    QString err;
    if (!path.isEmpty() && !session_->saveSnapshot(path, &err)) warn(tr("Save snapshot"), err);
  });
  connect(timeline_, &TimelinePanel::restoreSnapshotRequested, this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Restore snapshot"), QString(), tr("Snapshots (*.json)"));
    QString err;
    if (!path.isEmpty() && !session_->restoreSnapshot(path, &err)) warn(tr("Restore snapshot"), err);
  });

  // The menus' shortcuts win over QScintilla's default keys (Ctrl+L is Go to
  // Line, not line cut); Undo, Cut, Copy and Paste act on the editor anyway.
  QList<QKeySequence> keys;
  for (QAction* a : findChildren<QAction*>()) keys << a->shortcuts();
  editor_->yieldKeys(keys);

  QSettings settings;
  resize(1280, 800);
  restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
  // The dock layout is restored when the window is first shown: restored
  // before, Qt keeps the docks but loses their sizes.
  savedState_ = settings.value(QStringLiteral("window/state")).toByteArray();
  rebuildRecentMenu();
  updateTitle();
  updateStatus();
}

MainWindow::~MainWindow() {
  session_->removeViewer(this);
  delete comparison_;  // a viewer of the session: before it
  // Views unregister from the session when they die, so they must go before it.
  for (QDockWidget* d : findChildren<QDockWidget*>(QString(), Qt::FindDirectChildrenOnly)) delete d;
  delete takeCentralWidget();
}

void MainWindow::buildDocks() {
  setDockNestingEnabled(true);
  auto dock = [&](const QString& title, const QString& name, QWidget* w, Qt::DockWidgetArea area) {
    auto* d = new QDockWidget(title, this);
    d->setObjectName(name);
    d->setWidget(w);
    addDockWidget(area, d);
    return d;
  };
  // Source editor with its find bar.
  auto* src = new QWidget(this);
  auto* sl = new QVBoxLayout(src);
  sl->setContentsMargins(0, 0, 0, 0);
  sl->setSpacing(2);
  findEdit_ = new QLineEdit(src);
  findEdit_->setPlaceholderText(tr("Find in source (Ctrl+F, F3 next, Shift+F3 previous)"));
  findEdit_->setClearButtonEnabled(true);
  replaceEdit_ = new QLineEdit(src);
  replaceEdit_->setPlaceholderText(tr("Replace with (Ctrl+H; Enter replaces and finds the next, Ctrl+Shift+H replaces all)"));
  replaceEdit_->setClearButtonEnabled(true);
  auto* findRow = new QHBoxLayout;
  findRow->setContentsMargins(0, 0, 0, 0);
  findRow->addWidget(findEdit_, 1);
  findRow->addWidget(replaceEdit_, 1);
  editor_ = new SourceEditor(session_, src);
  sl->addLayout(findRow);
  sl->addWidget(editor_, 1);
  connect(findEdit_, &QLineEdit::returnPressed, this, [this] { findInSource(false); });
  connect(replaceEdit_, &QLineEdit::returnPressed, this, &MainWindow::replaceNext);
  auto* srcDock = dock(tr("Source"), QStringLiteral("SourceDock"), src, Qt::LeftDockWidgetArea);
  inputs_ = new InputsPanel(session_, this);
  auto* inDock = dock(tr("Inputs"), QStringLiteral("InputsDock"), inputs_, Qt::LeftDockWidgetArea);
  splitDockWidget(srcDock, inDock, Qt::Vertical);

  inspector_ = new InspectorPanel(session_, this);
  auto* insDock = dock(tr("Inspector"), QStringLiteral("InspectorDock"), inspector_, Qt::RightDockWidgetArea);
  irText_ = new IrTextView(session_, this);
  auto* irDock = dock(tr("IR text"), QStringLiteral("IrDock"), irText_, Qt::RightDockWidgetArea);
  splitDockWidget(insDock, irDock, Qt::Vertical);

  problems_ = new ProblemsView(session_, this);
  timeline_ = new TimelinePanel(session_, this);
  verify_ = new VerifyPanel(session_, this);
  auto* probDock = dock(tr("Problems"), QStringLiteral("ProblemsDock"), problems_, Qt::BottomDockWidgetArea);
  auto* tlDock = dock(tr("Timeline"), QStringLiteral("TimelineDock"), timeline_, Qt::BottomDockWidgetArea);
  auto* vDock = dock(tr("Verify"), QStringLiteral("VerifyDock"), verify_, Qt::BottomDockWidgetArea);
  tabifyDockWidget(probDock, tlDock);
  tabifyDockWidget(tlDock, vDock);
  probDock->raise();
  // Bottom docks span only the centre; the side docks keep the full height.
  setCorner(Qt::BottomLeftCorner, Qt::LeftDockWidgetArea);
  setCorner(Qt::BottomRightCorner, Qt::RightDockWidgetArea);
  // Graph tool bar: search, fit, overlay.
  auto* tb = addToolBar(tr("Graph"));
  tb->setObjectName(QStringLiteral("GraphToolBar"));
  tb->setToolButtonStyle(Qt::ToolButtonTextOnly);
  toolbar_ = tb;
  nodeSearch_ = new QLineEdit(tb);
  nodeSearch_->setPlaceholderText(tr("Find node: id, name, op or line N (Ctrl+G)"));
  nodeSearch_->setToolTip(tr("Return shows the next match"));
  nodeSearch_->setMaximumWidth(240);
  tb->addWidget(nodeSearch_);
  searchCount_ = new QLabel(tb);
  tb->addWidget(searchCount_);
  connect(nodeSearch_, &QLineEdit::textEdited, searchCount_, &QLabel::clear);
  connect(session_, &Session::documentReplaced, this, [this] {
    nodeSearch_->clear();
    searchCount_->clear();
  });
  connect(nodeSearch_, &QLineEdit::returnPressed, this, [this] {
    centre_->setCurrentWidget(graph_);
    const bool found = graph_->search(nodeSearch_->text());
    const auto& hits = graph_->searchResults();
    searchCount_->setText(found ? tr("%1 of %2").arg(graph_->searchIndex() + 1).arg(hits.size()) : tr("no match"));
    if (!found) statusBar()->showMessage(tr("no node matches '%1'").arg(nodeSearch_->text()), 5000);
  });
}

void MainWindow::updateTitle() {
  QString name = session_->filePath().isEmpty() ? tr("untitled.py") : QFileInfo(session_->filePath()).fileName();
  if (session_->readOnly()) name += tr(" (read-only artifact)");
  setWindowTitle(QStringLiteral("%1%2 — tensorcode").arg(name, unsaved() ? QStringLiteral("*") : QString()));
}

void MainWindow::updateStatus() {
  const auto p = session_->program();
  if (session_->readOnly()) compileLabel_->setText(tr("artifact"));
  else compileLabel_->setText(tr("compile %1 ms").arg(session_->compileMs(), 0, 'f', 1));
  nodesLabel_->setText(p ? tr("%n node(s)", nullptr, static_cast<int>(p->nodes.size())) : tr("no program"));
  const auto& run = session_->exactRun();
  if (p && (run.ok || session_->showingStep())) {
    QStringList parts;
    const auto& outs = session_->displayOutputs();
    for (std::size_t i = 0; i < p->outputs.size() && i < outs.size(); ++i)
      parts << QStringLiteral("%1 = %2").arg(QString::fromStdString(p->outputs[i].first), QString::fromStdString(format_number(outs[i])));
    QString text = parts.join(QStringLiteral(", "));
    if (session_->showingStep()) text = tr("step %1: %2").arg(session_->snapshotBase() + session_->step()).arg(text);
    // Broken code: these are the last good circuit's outputs, marked so.
    if (session_->compileFailed()) text = tr("out of date: %1").arg(text);
    resultLabel_->setText(text);
    resultLabel_->setStyleSheet(session_->compileFailed() ? QStringLiteral("color:#8a8a90") : QString());
  } else if (p && run.error) {
    resultLabel_->setText(tr("run failed"));
  } else {
    resultLabel_->clear();
  }
}

bool MainWindow::openPath(const QString& path) {
  QString err;
  if (!session_->openFile(path, &err)) {
    statusBar()->showMessage(err, 10000);
    warn(tr("Open"), err);
    return false;
  }
  // documentChanged clears the modified mark once the file has replaced the document.

  // A source goes to Recent at once (it opens even when broken); an artifact
  // only once it loaded, so a corrupt file never joins the list.
  if (path.endsWith(QLatin1String(".json"), Qt::CaseInsensitive)) pendingRecent_ = QFileInfo(path).absoluteFilePath();
  else rememberRecent(QFileInfo(path).absoluteFilePath());
  return true;
}

bool MainWindow::savePath(const QString& path) {
  // Domains live in the directive block, so saving the editor text saves them too.
  auto st = write_file_atomic(path.toStdString(), editor_->text().toStdString());
  if (!st.ok()) {
    QMessageBox::warning(this, tr("Save"), QString::fromStdString(st.error().format()));
    return false;
  }
  session_->setFilePath(path);
  // The named cases are saved with the source, never before.
  QString caseError;
  if (!session_->saveCases(&caseError)) warn(tr("Save"), tr("the source was saved, the named cases were not: %1").arg(caseError));
  editor_->setModified(false);
  rememberRecent(QFileInfo(path).absoluteFilePath());
  updateTitle();
  statusBar()->showMessage(tr("saved %1").arg(path), 4000);
  return true;
}

bool MainWindow::saveAs() {
  if (session_->readOnly()) {
    exportDialog(QStringLiteral("artifact"));
    return true;
  }
  // An untitled source is proposed under its function's name in the folder last used.
  QString proposed = session_->filePath();
  if (proposed.isEmpty()) {
    const QString name = (session_->function().isEmpty() ? QStringLiteral("untitled") : session_->function()) + QStringLiteral(".py");
    const QString folder = QSettings().value(QStringLiteral("lastFolder")).toString();
    proposed = folder.isEmpty() ? name : QDir(folder).filePath(name);
  }
  const QString path = QFileDialog::getSaveFileName(this, tr("Save source"), proposed, tr("Python (*.py)"));
  return !path.isEmpty() && savePath(path);
}

bool MainWindow::maybeSave() {
  if (!unsaved() || session_->readOnly()) return true;
  // The file's name, not the window title ("choose.py* — tensorcode").
  const QString name = session_->filePath().isEmpty() ? tr("untitled.py") : QFileInfo(session_->filePath()).fileName();
  const auto b = QMessageBox::question(this, tr("Unsaved changes"), tr("Save the changes to %1?").arg(name),
                                       QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel);
  if (b == QMessageBox::Cancel) return false;
  if (b == QMessageBox::Save) return session_->filePath().isEmpty() ? saveAs() : savePath(session_->filePath());
  return true;
}

void MainWindow::openDialog() {
  if (!maybeSave()) return;
  // The current file's folder, else the folder last opened from or saved to
  // (not the process's working directory).
  const QString start = session_->filePath().isEmpty() ? QSettings().value(QStringLiteral("lastFolder")).toString()
                                                       : QFileInfo(session_->filePath()).absolutePath();
  const QString path = QFileDialog::getOpenFileName(this, tr("Open program"), start,
                                                    tr("Programs (*.py *.json);;Python (*.py);;Artifacts (*.json)"));
  if (!path.isEmpty()) openPath(path);
}

void MainWindow::rememberRecent(const QString& path) {
  QSettings s;
  s.setValue(QStringLiteral("lastFolder"), QFileInfo(path).absolutePath());
  QStringList recent = s.value(QStringLiteral("recentFiles")).toStringList();
  recent.removeAll(path);
  recent.prepend(path);
  while (recent.size() > 10) recent.removeLast();
  s.setValue(QStringLiteral("recentFiles"), recent);
  rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu() {
  recentMenu_->clear();
  const QStringList recent = QSettings().value(QStringLiteral("recentFiles")).toStringList();
  for (const QString& path : recent) {
    auto* a = recentMenu_->addAction(QFileInfo(path).fileName());
    a->setToolTip(path);
    connect(a, &QAction::triggered, this, [this, path] {
      if (maybeSave()) openPath(path);
    });
  }
  recentMenu_->setEnabled(!recent.isEmpty());
}

bool MainWindow::exportTo(const QString& kind, const QString& path, QString* error,
                          std::function<void(const QString&)> done) {
  const auto p = session_->program();
  if (!p) {
    if (error) *error = tr("no program to export");
    return false;
  }
  // Never write the last good circuit as if it were the current source.
  if (!session_->upToDate()) {
    if (error) *error = tr("not exported: %1").arg(session_->outOfDateReason());
    return false;
  }
  const std::string k = kind.toStdString(), file = path.toStdString();
  const auto layers = session_->layers();
  // Optimizing and emitting large circuits takes time: on the worker, answered by a callback.
  // A tag of its own: one export never replaces another.
  static quint64 counter = 0;
  const auto ps = session_->programSession();
  session_->worker().post(QStringLiteral("export-%1").arg(++counter), [this, p, ps, k, file, layers, path, done](JobControl&) -> EngineWorker::Deliver {
    Result<std::string> content = make_error("unknown export kind '" + k + "'");
    if (k == "artifact") content = export_artifact(*p);
    else if (k == "optimized") content = export_optimized(*ps);
    else if (k == "dot") content = to_dot(*p, layers);
    else if (k != "c") content = export_target(*ps, k);
    Status st = ok_status();
    if (k == "c") {
      // Both files made before either is written; the header first, as the source includes it.
      auto code = export_c(*ps, file);
      if (!code.ok()) st = Status(code.error());
      else if (st = write_file_atomic(code->header_path, code->header); st.ok()) st = write_file_atomic(file, code->source);
    } else {
      st = content.ok() ? write_file_atomic(file, *content) : Status(content.error());
    }
    const QString err = st.ok() ? QString() : QString::fromStdString(st.error().format());
    return [this, err, path, done] {
      if (done) done(err);
      emit exported(path, err);
    };
  }, this);
  return true;
}

QString MainWindow::defaultExportPath(const QString& kind) const {
  static const std::map<QString, QString> suffix = {
      {QStringLiteral("artifact"), QStringLiteral(".json")},  {QStringLiteral("optimized"), QStringLiteral(".opt.json")},
      {QStringLiteral("dot"), QStringLiteral(".dot")},        {QStringLiteral("wgsl"), QStringLiteral(".wgsl")},
      {QStringLiteral("spirv"), QStringLiteral(".spv")},      {QStringLiteral("wasm"), QStringLiteral(".wasm")},
      {QStringLiteral("onnx"), QStringLiteral(".onnx")},      {QStringLiteral("c"), QStringLiteral(".c")}};
  const QFileInfo src(session_->filePath());
  const QString dir = session_->filePath().isEmpty() ? QDir::currentPath() : src.absolutePath();
  QString base = session_->filePath().isEmpty() ? QStringLiteral("untitled") : src.completeBaseName();
  // An artifact exported as an artifact again should not overwrite itself.
  if (kind == QLatin1String("artifact") && session_->readOnly()) base += QStringLiteral(".export");
  auto it = suffix.find(kind);
  const QString ext = it != suffix.end() ? it->second : QString();
  // Never propose a file that is already there (a different gated.json beside
  // gated.py): the first free "NAME-2", "NAME-3", ... instead.
  QString path = QDir(dir).filePath(base + ext);
  // A C export writes FILE.h too: neither may be there.
  auto taken = [&](const QString& p) { return QFileInfo::exists(p) || (kind == QLatin1String("c") && QFileInfo::exists(cHeaderPath(p))); };
  for (int n = 2; taken(path) && n < 1000; ++n) path = QDir(dir).filePath(base + QStringLiteral("-%1").arg(n) + ext);
  return path;
}

QString MainWindow::exportWarning(const QString& kind) const {
  const auto p = session_->program();
  if (!p) return {};
  const bool gpu = kind == QLatin1String("wgsl") || kind == QLatin1String("spirv") || kind == QLatin1String("wasm");
  if (gpu && p->dtype == Dtype::Float64)
    return tr("The program computes in float64; %1 computes in float32, so results can differ in the last digits or overflow earlier.")
        .arg(kind == QLatin1String("wgsl") ? QStringLiteral("WGSL") : kind == QLatin1String("spirv") ? QStringLiteral("SPIR-V") : QStringLiteral("WebAssembly"));
  return {};
}

void MainWindow::exportDialog(const QString& kind) {
  if (session_->compilePending()) session_->compileNow();
  if (!session_->upToDate() && !session_->compilePending() && session_->compileFailed()) {
    warn(tr("Export"), tr("not exported: %1").arg(session_->outOfDateReason()));
    return;
  }
  QString filter = tr("Artifacts (*.json)");
  if (kind == QLatin1String("dot")) filter = tr("Graphviz (*.dot)");
  else if (kind == QLatin1String("wgsl")) filter = tr("WGSL (*.wgsl)");
  else if (kind == QLatin1String("spirv")) filter = tr("SPIR-V (*.spv *.spvasm)");
  else if (kind == QLatin1String("wasm")) filter = tr("WebAssembly (*.wasm *.wat)");
  else if (kind == QLatin1String("onnx")) filter = tr("ONNX models (*.onnx)");
  else if (kind == QLatin1String("c")) filter = tr("C sources (*.c)");
  const QString note = exportWarning(kind);
  if (!note.isEmpty()) statusBar()->showMessage(note, 12000);
  const QString path = QFileDialog::getSaveFileName(this, note.isEmpty() ? tr("Export") : tr("Export (float32)"), defaultExportPath(kind), filter);
  if (path.isEmpty()) return;
  const bool f32 = !note.isEmpty();
  auto start = [this, kind, path, f32] {
    QString err;
    if (!exportTo(kind, path, &err, [this, path, f32](const QString& e) {
          if (!e.isEmpty()) warn(tr("Export"), e);
          else statusBar()->showMessage(f32 ? tr("exported %1 (float32)").arg(path) : tr("exported %1").arg(path), 8000);
        }))
      warn(tr("Export"), err);
  };
  // The file dialog asked about FILE.c; the header beside it would be replaced without a word.
  const QString header = cHeaderPath(path);
  if (kind != QLatin1String("c") || header == path || !QFileInfo::exists(header)) {
    start();
    return;
  }
  auto* box = new QMessageBox(QMessageBox::Question, tr("Export"),
                              tr("%1 already exists beside %2. Replace it with the exported header?")
                                  .arg(QFileInfo(header).fileName(), QFileInfo(path).fileName()),
                              QMessageBox::Yes | QMessageBox::Cancel, this);
  box->setObjectName(QStringLiteral("ReplaceHeaderBox"));
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->setWindowModality(Qt::WindowModal);
  connect(box, &QMessageBox::finished, this, [start, box](int) {
    if (box->clickedButton() == box->button(QMessageBox::Yes)) start();
  });
  box->open();
}

QString MainWindow::cHeaderPath(const QString& source) {
  // As core's export_c: FILE.c's header is FILE.h.
  const QFileInfo f(source);
  return f.suffix().isEmpty() ? source + QStringLiteral(".h") : f.path() + QLatin1Char('/') + f.completeBaseName() + QStringLiteral(".h");
}

void MainWindow::warn(const QString& title, const QString& text) {
  lastWarning_ = text;
  // Window-modal and opened, not exec'd: no nested event loop, nothing blocks.
  auto* box = new QMessageBox(QMessageBox::Warning, title, text, QMessageBox::Ok, this);
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->setWindowModality(Qt::WindowModal);
  box->open();
}

bool MainWindow::stepForward() {
  if (!session_->hasReplay()) {
    statusBar()->showMessage(tr("no event log: open one with Run > Open Event Log (Ctrl+Shift+O) to step through it"), 8000);
    return false;
  }
  timeline_->stepForward();
  return true;
}

void MainWindow::openEventsDialog() {
  const QString path = QFileDialog::getOpenFileName(this, tr("Open event log"), QString(), tr("Event logs (*.jsonl *.json)"));
  if (path.isEmpty()) return;
  QString err;
  if (!session_->loadEvents(path, &err)) warn(tr("Open event log"), err);
  for (QDockWidget* d : findChildren<QDockWidget*>())
    if (d->objectName() == QLatin1String("TimelineDock")) d->raise();
}

void MainWindow::findPrevious() {
  const QString t = findEdit_->text();
  if (t.isEmpty()) return;
  // Search backwards from the start of the current selection (else the match just found is found again).
  int l0 = 0, i0 = 0, l1 = 0, i1 = 0;
  editor_->getSelection(&l0, &i0, &l1, &i1);
  if (l0 < 0) editor_->getCursorPosition(&l0, &i0);
  if (!editor_->findFirst(t, false, false, false, true, false, l0, i0))
    statusBar()->showMessage(tr("'%1' not found").arg(t), 4000);
}

void MainWindow::replaceNext() {
  const QString t = findEdit_->text();
  if (t.isEmpty() || session_->readOnly()) return;
  if (editor_->selectedText() == t) editor_->replace(replaceEdit_->text());
  findInSource(true);
}

void MainWindow::goToLineDialog() {
  auto* box = new QInputDialog(this);
  box->setObjectName(QStringLiteral("GoToLineDialog"));
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->setWindowTitle(tr("Go to Line"));
  box->setLabelText(tr("Line (1 to %1):").arg(editor_->lines()));
  box->setInputMode(QInputDialog::IntInput);
  box->setIntRange(1, std::max(1, editor_->lines()));
  int line = 0, col = 0;
  editor_->getCursorPosition(&line, &col);
  box->setIntValue(line + 1);
  box->setWindowModality(Qt::WindowModal);
  connect(box, &QInputDialog::intValueSelected, this, [this](int l) {
    editor_->goTo(l, 1);
    editor_->setFocus();
  });
  box->open();
}

void MainWindow::findInSource(bool next) {
  const QString t = findEdit_->text();
  if (t.isEmpty()) return;
  const bool found = next ? editor_->findNext() : editor_->findFirst(t, false, false, false, true);
  if (!found && !editor_->findFirst(t, false, false, false, true, true, 0, 0))
    statusBar()->showMessage(tr("'%1' not found").arg(t), 4000);
}

bool MainWindow::waitUntilSettled(int timeout_ms) {
  QElapsedTimer clock;
  clock.start();
  QEventLoop loop;
  QTimer poll;
  poll.setInterval(15);
  bool settled = false;
  int quiet = 0;
  connect(&poll, &QTimer::timeout, &loop, [&] {
    const bool idle = !session_->worker().busy() && !session_->compilePending() && graph_->layoutReady() && neighbourhood_->layoutReady();
    quiet = idle ? quiet + 1 : 0;
    // Two quiet polls in a row: deliveries that post follow-up work have run.
    if (quiet >= 2) {
      settled = true;
      loop.quit();
    } else if (clock.elapsed() > timeout_ms) {
      loop.quit();
    }
  });
  poll.start();
  loop.exec();
  return settled;
}

void MainWindow::raiseDock(const QString& name) {
  if (auto* d = findChild<QDockWidget*>(name)) {
    d->show();
    d->raise();
  }
}

void MainWindow::showNeighbourhood() { centre_->setCurrentWidget(neighbourhood_); }

void MainWindow::selectOutput() {
  const auto p = session_->program();
  if (!p || p->outputs.empty()) return;
  session_->select(p->outputs.front().second);
}

void MainWindow::applyDefaultDockSizes() {
  auto dock = [this](const char* name) { return findChild<QDockWidget*>(QLatin1String(name)); };
  // Proportions of the window: source and inspector beside a wide circuit view.
  const int w = width(), h = height();
  resizeDocks({dock("SourceDock"), dock("InspectorDock")}, {w * 29 / 100, w * 26 / 100}, Qt::Horizontal);
  resizeDocks({dock("SourceDock"), dock("InputsDock")}, {h * 58 / 100, h * 27 / 100}, Qt::Vertical);
  resizeDocks({dock("InspectorDock"), dock("IrDock")}, {h * 55 / 100, h * 30 / 100}, Qt::Vertical);
  resizeDocks({dock("ProblemsDock")}, {h * 25 / 100}, Qt::Vertical);
}

void MainWindow::showEvent(QShowEvent* ev) {
  QMainWindow::showEvent(ev);
  if (shownOnce_) return;
  shownOnce_ = true;
  // After the first layout pass, when the docks have real sizes to trade.
  QTimer::singleShot(0, this, [this] {
    layoutRestored_ = !savedState_.isEmpty() && restoreState(savedState_);
    if (!layoutRestored_) applyDefaultDockSizes();
  });
}

void MainWindow::closeEvent(QCloseEvent* ev) {
  if (!maybeSave()) {
    ev->ignore();
    return;
  }
  QSettings s;
  s.setValue(QStringLiteral("window/geometry"), saveGeometry());
  s.setValue(QStringLiteral("window/state"), saveState());
  ev->accept();
}

}  // namespace views
}  // namespace tc
