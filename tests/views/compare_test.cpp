// Journeys through the IDE's comparison (issue 28: a second artifact or the
// file as saved beside the current circuit; issue 24: a pinned run compared
// with later ones) and the C and ONNX exports, with real key and mouse
// events offscreen. What the circuit view paints is read back from its
// pixels; what the list and the Inspector say, from their widgets.
#include <QAction>
#include <QApplication>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QProcess>
#include <QPushButton>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QStatusBar>
#include <QTest>
#include <QTreeWidget>

#include "views/compare_panel.h"
#include "views_test_paths.h"
#include "views/comparison.h"
#include "views/editor.h"
#include "views/graph_view.h"
#include "views/main_window.h"
#include "views/panels.h"
#include "widget_actions.h"

using namespace tc;
using namespace tc::views;
using namespace tc::views::testing;

namespace {

QString diffData(const char* pair, const char* file) {
  return (tc_views_paths::diffData() + QStringLiteral("/%1/%2")).arg(QLatin1String(pair), QLatin1String(file));
}

/// Answers the next file dialog as a user does: the path typed into its name box, Return.
void answerFileDialog(const QString& path) {
  answerNextModal<QFileDialog>([path](QFileDialog* d) {
    auto* name = d->findChild<QLineEdit*>(QStringLiteral("fileNameEdit"));
    if (!name) {
      d->reject();
      return;
    }
    name->setFocus();
    name->setText(path);
    QTest::keyClick(name, Qt::Key_Return);
  });
}

/// File > Compare with Artifact…, answering the file dialog with `path`.
void compareByMenu(MainWindow& w, const QString& path) {
  QAction* a = findAction(&w, QString::fromUtf8("Compare with &Artifact\u2026"));
  QVERIFY(a);
  answerFileDialog(path);
  a->trigger();
  QApplication::setActiveWindow(&w);
  QVERIFY(w.waitUntilSettled(30000));
}

/// How many pixels of node `id`'s box in the circuit view have `colour`.
int pixelsOfColour(MainWindow& w, NodeId id, const QColor& colour) {
  GraphView* g = w.graph();
  const QPointF c = g->nodeViewPos(id);
  if (c.isNull()) return -1;
  const QImage img = g->grab().toImage();
  // A box is at least 60 x 28 pixels at the fitted zoom of these small circuits; look at its middle.
  const int rx = std::max(4, static_cast<int>(20 * g->scale())), ry = std::max(3, static_cast<int>(8 * g->scale()));
  int n = 0;
  for (int y = static_cast<int>(c.y()) - ry; y <= static_cast<int>(c.y()) + ry; ++y)
    for (int x = static_cast<int>(c.x()) - rx; x <= static_cast<int>(c.x()) + rx; ++x)
      if (img.rect().contains(x, y) && QColor(img.pixel(x, y)).rgb() == colour.rgb()) ++n;
  return n;
}

/// The row of the Compare list whose first column starts with `prefix` (null: none).
QTreeWidgetItem* rowStartingWith(QTreeWidget* list, const QString& prefix) {
  for (QTreeWidgetItemIterator it(list); *it; ++it)
    if ((*it)->text(0).startsWith(prefix)) return *it;
  return nullptr;
}

/// Clicks a row of the Compare list as a user does.
void clickRow(QTreeWidget* list, QTreeWidgetItem* item) {
  list->scrollToItem(item);
  const QRect r = list->visualItemRect(item);
  QTest::mouseClick(list->viewport(), Qt::LeftButton, {}, r.center());
}

QByteArray fileBytes(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

/// Chooses `path` in the next file dialog, then triggers `action`, and waits for the export to land.
bool exportByMenu(MainWindow& w, const QString& action, const QString& path) {
  QAction* a = findAction(&w, action);
  if (!a) return false;
  answerFileDialog(path);
  a->trigger();
  QApplication::setActiveWindow(&w);
  return w.waitUntilSettled(30000);
}

}  // namespace

class CompareTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    useOwnSettings(QStringLiteral("tensorcode-ide-compare"));
  }

  // Issue 28: the optimized artifact beside the one before optimize. core's
  // diff (tests/data/diff/optimize/expected.txt) says: %3 and %4 changed
  // into affine nodes, 13 nodes removed, nothing added.
  void anOptimizedArtifactShowsItsChangedNodes() {
    MainWindow w;
    showAndOpen(w, diffData("optimize", "b.json"));
    compareByMenu(w, diffData("optimize", "a.json"));
    Comparison* c = w.comparison();
    QVERIFY(c->active());
    QCOMPARE(c->diff()->changed.size(), std::size_t{2});
    QCOMPARE(c->diff()->removed.size(), std::size_t{13});
    QCOMPARE(c->mark(3), Comparison::Mark::Changed);
    QCOMPARE(c->mark(4), Comparison::Mark::Changed);
    QCOMPARE(c->mark(0), Comparison::Mark::Same);  // the input x
    // The circuit paints the changed nodes in the changed colour, the input in its own.
    QVERIFY2(pixelsOfColour(w, 3, Comparison::fill(Comparison::Mark::Changed)) > 20,
             qPrintable(QString::number(pixelsOfColour(w, 3, Comparison::fill(Comparison::Mark::Changed)))));
    QCOMPARE(pixelsOfColour(w, 0, Comparison::fill(Comparison::Mark::Changed)), 0);
    // The list: two changed rows and the removed ones; a click on a changed row selects it everywhere.
    QTreeWidget* list = w.comparePanel()->list();
    QVERIFY(rowStartingWith(list, QStringLiteral("Changed nodes (2)")));
    QVERIFY(rowStartingWith(list, QStringLiteral("Removed nodes (13)")));
    QTreeWidgetItem* row = rowStartingWith(list, QStringLiteral("%4 changed"));
    QVERIFY(row);
    QVERIFY2(row->text(1).contains(QStringLiteral("affine")), qPrintable(row->text(1)));
    QVERIFY2(row->text(2).contains(QStringLiteral("add")), qPrintable(row->text(2)));
    clickRow(list, row);
    QTRY_COMPARE(w.session()->selected(), NodeId{4});
    // The Inspector shows both sides: the same value (optimize keeps it), the other side's node and its op.
    const QString detail = w.inspector()->detailText();
    QVERIFY2(detail.contains(QStringLiteral("compared with <b>a.json</b>: changed (op, args, coefficients)")), qPrintable(detail));
    QVERIFY2(detail.contains(QStringLiteral("other side (%17)")), qPrintable(detail));
    QVERIFY2(detail.contains(QStringLiteral("add %16, %1")), qPrintable(detail));
    const double mine = w.session()->displayValues().at(4);
    QCOMPARE(c->otherValue(4).value_or(-1), mine);
    // Stop Comparing clears the marks and the colours.
    QTest::mouseClick(w.comparePanel()->findChild<QPushButton*>(QStringLiteral("StopComparing")), Qt::LeftButton);
    QCOMPARE(c->mark(3), Comparison::Mark::None);
    QTRY_COMPARE(pixelsOfColour(w, 3, Comparison::fill(Comparison::Mark::Changed)), 0);
  }

  // Issue 28: before and after training. One parameter changed; the output
  // differs on the current case and the Inspector shows both values.
  void aTrainedParameterShowsBothValues() {
    MainWindow w;
    showAndOpen(w, diffData("trained", "b.json"));
    compareByMenu(w, diffData("trained", "a.json"));
    Comparison* c = w.comparison();
    QVERIFY(c->active());
    QCOMPARE(c->mark(1), Comparison::Mark::Changed);
    QTreeWidget* list = w.comparePanel()->list();
    QTreeWidgetItem* param = rowStartingWith(list, QStringLiteral("parameter correction: changed (value)"));
    QVERIFY(param);
    QCOMPARE(param->text(1), QStringLiteral("correction = 0.4999998290605915"));
    QCOMPARE(param->text(2), QStringLiteral("correction = 0"));
    clickRow(list, param);
    QTRY_COMPARE(w.session()->selected(), NodeId{1});
    const QString detail = w.inspector()->detailText();
    QVERIFY2(detail.contains(QStringLiteral("this side: <b>0.4999998290605915</b>")), qPrintable(detail));
    QVERIFY2(detail.contains(QStringLiteral("other side (%1): <b>0</b>")), qPrintable(detail));
    // The output on the current case: core ran both programs on it.
    QTreeWidgetItem* out = rowStartingWith(list, QStringLiteral("output result"));
    QVERIFY(out);
    const auto& o = c->diff()->outputs.front();
    QCOMPARE(o.cases, std::size_t{1});
    if (o.differing) {
      QVERIFY2(out->text(0).contains(QStringLiteral("differs on this case")), qPrintable(out->text(0)));
      QVERIFY(out->text(1) != out->text(2));
    }
  }

  // Issue 28: an edited statement against the file as saved. `z = y - x`
  // typed into `z = y + x`: one node changed (op), its value differs.
  void anEditedStatementAgainstTheSavedVersion() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("edited.py"));
    QVERIFY(QFile::copy(diffData("edited", "a.py"), path));
    MainWindow w;
    showAndOpen(w, path);
    typeIntoCell(w.inputs()->table(), w.inputs()->rowOf(QStringLiteral("x")), 4, QStringLiteral("2"));
    typeIntoCell(w.inputs()->table(), w.inputs()->rowOf(QStringLiteral("w")), 4, QStringLiteral("3"));
    QVERIFY(w.waitUntilSettled(30000));
    // Line 3 is `    z = y - x`: replace the minus by keys.
    SourceEditor* ed = w.editor();
    ed->setFocus();
    ed->setCursorPosition(2, 10);
    QTest::keyClick(ed, Qt::Key_Delete);
    QTest::keyClicks(ed, QStringLiteral("+"));
    QVERIFY(w.waitUntilSettled(30000));
    QVERIFY2(ed->text().contains(QStringLiteral("z = y + x")), qPrintable(ed->text()));
    QAction* saved = findAction(&w, QStringLiteral("Compare with &Saved Version"));
    QVERIFY(saved);
    saved->trigger();
    QVERIFY(w.waitUntilSettled(30000));
    Comparison* c = w.comparison();
    QVERIFY(c->active());
    QCOMPARE(c->label(), QStringLiteral("edited.py as saved"));
    QCOMPARE(c->diff()->changed.size(), std::size_t{1});
    const NodeId edited = c->diff()->changed.front().b;
    QCOMPARE(w.session()->program()->nodes.at(static_cast<std::size_t>(edited)).op, Op::Add);
    // x=2, w=3: y = 7; z = 9 here, 5 as saved; the output 18 here, 10 there.
    QCOMPARE(c->mark(edited), Comparison::Mark::Changed);
    const NodeId out = w.session()->program()->outputs.front().second;
    QCOMPARE(c->mark(out), Comparison::Mark::ValueDiffers);
    QCOMPARE(c->otherValue(out).value_or(0), 10.0);
    QVERIFY(pixelsOfColour(w, out, Comparison::fill(Comparison::Mark::ValueDiffers)) > 20);
    // F8 walks the list; the first row that names a node here is selected, the Inspector follows.
    pressKeys(w.graph(), QKeySequence(Qt::Key_F8));
    QTRY_VERIFY(w.session()->selected() >= 0);
    w.session()->select(edited);
    const QString detail = w.inspector()->detailText();
    QVERIFY2(detail.contains(QStringLiteral("changed (op)")), qPrintable(detail));
    QVERIFY2(detail.contains(QStringLiteral("this side: <b>9</b>")) && detail.contains(QStringLiteral("<b>5</b>")), qPrintable(detail));
    QVERIFY2(detail.contains(QStringLiteral("sub")), qPrintable(detail));
    // Saved, the two are the same circuit: nothing is marked any more.
    pressKeys(ed, QKeySequence::Save);
    saved->trigger();
    QVERIFY(w.waitUntilSettled(30000));
    QCOMPARE(c->diff()->changed.size(), std::size_t{0});
    QCOMPARE(c->mark(edited), Comparison::Mark::Same);
    QVERIFY(rowStartingWith(w.comparePanel()->list(), QStringLiteral("no differences")));
  }

  // Issue 28's groups: in a grouped circuit (grid.py, 1,292 nodes) a closed
  // group takes the mark of what changed inside it.
  void aClosedGroupShowsThatSomethingInsideChanged() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("grid.py"));
    QVERIFY(QFile::copy(data("grid.py"), path));
    MainWindow w;
    showAndOpen(w, path);
    const GroupPlan* plan = w.graph()->groupPlan();
    QVERIFY(plan);
    // Line 8 is `        s = s + (t if t > 0 else -0.5 * t)`: -0.5 becomes -0.25 by keys.
    SourceEditor* ed = w.editor();
    const int col = ed->text(7).indexOf(QStringLiteral("0.5"));
    QVERIFY(col > 0);
    ed->setFocus();
    ed->setCursorPosition(7, col + 2);
    QTest::keyClick(ed, Qt::Key_Delete);
    QTest::keyClicks(ed, QStringLiteral("25"));
    QVERIFY(w.waitUntilSettled(60000));
    QVERIFY2(ed->text(7).contains(QStringLiteral("-0.25 * t")), qPrintable(ed->text(7)));
    findAction(&w, QStringLiteral("Compare with &Saved Version"))->trigger();
    QVERIFY(w.waitUntilSettled(60000));
    Comparison* c = w.comparison();
    QVERIFY(c->active());
    plan = w.graph()->groupPlan();
    int line7 = -1, line8 = -1;
    for (std::size_t k = 0; k < plan->groups.size(); ++k) {
      if (plan->groups[k].parent >= 0) continue;
      if (plan->groups[k].line == 7) line7 = static_cast<int>(k);
      if (plan->groups[k].line == 8) line8 = static_cast<int>(k);
    }
    QVERIFY(line7 >= 0 && line8 >= 0);
    QCOMPARE(c->groupMark(*plan, line8), Comparison::Mark::Changed);
    QCOMPARE(c->groupMark(*plan, line7), Comparison::Mark::Same);
    // The closed group's box is painted in the changed colour; line 7's is not.
    NodeId in7 = -1, in8 = -1;
    for (std::size_t i = 0; i < plan->top.size(); ++i) {
      if (plan->top[i] == line7 && in7 < 0) in7 = static_cast<NodeId>(i);
      if (plan->top[i] == line8 && in8 < 0) in8 = static_cast<NodeId>(i);
    }
    w.graph()->fitAll();
    QVERIFY(pixelsOfColour(w, in8, Comparison::fill(Comparison::Mark::Changed)) > 0);
    QCOMPARE(pixelsOfColour(w, in7, Comparison::fill(Comparison::Mark::Changed)), 0);
  }

  // Issue 24: a run pinned for comparison; another case highlights the values that differ.
  void aPinnedRunHighlightsTheValuesThatDiffer() {
    MainWindow w;
    showAndOpen(w, example("choose.py"));
    typeIntoCell(w.inputs()->table(), w.inputs()->rowOf(QStringLiteral("a")), 4, QStringLiteral("7"));
    QVERIFY(w.waitUntilSettled(30000));
    QAction* pin = findAction(&w, QStringLiteral("&Pin This Run for Comparison"));
    QVERIFY(pin);
    pressKeys(w.graph(), pin->shortcut());
    QVERIFY(w.waitUntilSettled(30000));
    Comparison* c = w.comparison();
    QVERIFY(c->active());
    QCOMPARE(c->label(), QStringLiteral("pinned run (a=7)"));
    QVERIFY(c->valueDifferences().empty());
    // a = 3: the comparison flips, so do the select's value and the input's.
    typeIntoCell(w.inputs()->table(), w.inputs()->rowOf(QStringLiteral("a")), 4, QStringLiteral("3"));
    QVERIFY(w.waitUntilSettled(30000));
    const auto prog = w.session()->program();
    const NodeId out = prog->outputs.front().second;
    const NodeId a = *prog->find_named(Op::Input, "a");
    const auto& vd = c->valueDifferences();
    QVERIFY(std::find(vd.begin(), vd.end(), out) != vd.end());
    QVERIFY(std::find(vd.begin(), vd.end(), a) != vd.end());
    QCOMPARE(c->mark(out), Comparison::Mark::ValueDiffers);
    // Issue 38 item 5: a summary in the status bar says what the dock says.
    // (It showed "0 value(s) differ" from the pin while the dock said 3.)
    const QString bar = w.statusBar()->currentMessage();
    QVERIFY2(bar.startsWith(QStringLiteral("Compared with")), qPrintable(bar));
    QVERIFY2(bar.contains(QStringLiteral("%1 value(s) differ").arg(vd.size())),
             qPrintable(bar + QStringLiteral(" / ") + w.comparePanel()->summary()));
    // A constant is the same in both runs.
    for (const auto& n : prog->nodes)
      if (n.op == Op::Constant) QVERIFY(std::find(vd.begin(), vd.end(), n.id) == vd.end());
    QVERIFY(pixelsOfColour(w, out, Comparison::fill(Comparison::Mark::ValueDiffers)) > 20);
    QTreeWidget* list = w.comparePanel()->list();
    QVERIFY(rowStartingWith(list, QStringLiteral("Values that differ on this case")));
    // The output's row: this run 12, the pinned one 10; a click shows both in the Inspector.
    QTreeWidgetItem* row = nullptr;
    for (QTreeWidgetItemIterator it(list); *it; ++it)
      if ((*it)->data(0, Qt::UserRole).toInt() == out && (*it)->parent() && (*it)->parent()->text(0).startsWith(QStringLiteral("Values"))) row = *it;
    QVERIFY(row);
    QCOMPARE(row->text(1), QStringLiteral("12"));
    QCOMPARE(row->text(2), QStringLiteral("10"));
    clickRow(list, row);
    QTRY_COMPARE(w.session()->selected(), out);
    const QString detail = w.inspector()->detailText();
    QVERIFY2(detail.contains(QStringLiteral("this side: <b>12</b>")) && detail.contains(QStringLiteral("): <b>10</b>")), qPrintable(detail));
    // Back to a = 7: nothing differs.
    typeIntoCell(w.inputs()->table(), w.inputs()->rowOf(QStringLiteral("a")), 4, QStringLiteral("7"));
    QVERIFY(w.waitUntilSettled(30000));
    QVERIFY(c->valueDifferences().empty());
    QCOMPARE(c->mark(out), Comparison::Mark::Same);
  }

  // Issue 24: two steps of an event log side by side.
  void aPinnedStepComparedWithALaterOne() {
    MainWindow w;
    showAndOpen(w, example("counter.json"));
    QString err;
    QVERIFY2(w.session()->loadEvents(example("counter_events.jsonl"), &err), qPrintable(err));
    QVERIFY(w.waitUntilSettled(30000));
    QVERIFY(w.session()->replay().steps.size() >= 4);
    w.session()->setStep(2);
    QVERIFY(w.waitUntilSettled(30000));
    const NodeId state = w.session()->program()->nodes_of(Op::State).front();
    const double pinned = w.session()->displayValues().at(static_cast<std::size_t>(state));
    QAction* pin = findAction(&w, QStringLiteral("&Pin This Run for Comparison"));
    pressKeys(w.graph(), pin->shortcut());
    QVERIFY(w.waitUntilSettled(30000));
    Comparison* c = w.comparison();
    QVERIFY2(c->label().contains(QStringLiteral("step 2")), qPrintable(c->label()));
    QVERIFY(c->valueDifferences().empty());
    pressKeys(w.graph(), QKeySequence(Qt::Key_F10));
    pressKeys(w.graph(), QKeySequence(Qt::Key_F10));
    QVERIFY(w.waitUntilSettled(30000));
    QCOMPARE(w.session()->step(), 4);
    // The state the step saw differs from the pinned step's.
    const auto& vd = c->valueDifferences();
    QVERIFY(std::find(vd.begin(), vd.end(), state) != vd.end());
    w.session()->select(state);
    const QString detail = w.inspector()->detailText();
    QVERIFY2(detail.contains(QStringLiteral("value differs")), qPrintable(detail));
    QCOMPARE(c->otherValue(state).value_or(-1), pinned);
    QVERIFY(w.session()->displayValues().at(static_cast<std::size_t>(state)) != pinned);
  }

  // Issue 28: File > Export > C and ONNX, as `tensorcode emit` writes them.
  void cAndOnnxExportsThroughTheMenu() {
    QTemporaryDir dir;
    const QString src = dir.filePath(QStringLiteral("gated.py"));
    QVERIFY(QFile::copy(example("gated.py"), src));
    MainWindow w;
    showAndOpen(w, src);
    QVERIFY(w.session()->program() && !w.session()->compileFailed());
    QCOMPARE(w.defaultExportPath(QStringLiteral("c")), dir.filePath(QStringLiteral("gated.c")));
    QCOMPARE(w.defaultExportPath(QStringLiteral("onnx")), dir.filePath(QStringLiteral("gated.onnx")));
    // ONNX: the same bytes as the command line.
    const QString onnx = dir.filePath(QStringLiteral("gated.onnx"));
    QVERIFY(exportByMenu(w, QString::fromUtf8("ONNX model\u2026"), onnx));
    QTRY_VERIFY(QFile::exists(onnx));
    QProcess cli;
    cli.start(tc_views_paths::cli(), {QStringLiteral("emit"), src, QStringLiteral("--target"), QStringLiteral("onnx"), QStringLiteral("-o"),
                                       dir.filePath(QStringLiteral("cli.onnx"))});
    QVERIFY(cli.waitForFinished(60000));
    QCOMPARE(cli.exitCode(), 0);
    QCOMPARE(fileBytes(onnx), fileBytes(dir.filePath(QStringLiteral("cli.onnx"))));
    // C: the source and its header beside it, as `emit --target c -o gated.c`; it compiles.
    const QString c = dir.filePath(QStringLiteral("gated.c"));
    QVERIFY(exportByMenu(w, QString::fromUtf8("C source and header\u2026"), c));
    QTRY_VERIFY(QFile::exists(c) && QFile::exists(dir.filePath(QStringLiteral("gated.h"))));
    QDir(dir.path()).mkdir(QStringLiteral("cli"));
    cli.start(tc_views_paths::cli(), {QStringLiteral("emit"), src, QStringLiteral("--target"), QStringLiteral("c"), QStringLiteral("-o"),
                                       dir.filePath(QStringLiteral("cli/gated.c"))});
    QVERIFY(cli.waitForFinished(60000));
    QCOMPARE(cli.exitCode(), 0);
    QCOMPARE(fileBytes(c), fileBytes(dir.filePath(QStringLiteral("cli/gated.c"))));
    QCOMPARE(fileBytes(dir.filePath(QStringLiteral("gated.h"))), fileBytes(dir.filePath(QStringLiteral("cli/gated.h"))));
    const QString cc = QStandardPaths::findExecutable(QStringLiteral("cc"));
    if (!cc.isEmpty()) {
      QProcess comp;
      comp.setWorkingDirectory(dir.path());
      comp.start(cc, {QStringLiteral("-std=c99"), QStringLiteral("-ffp-contract=off"), QStringLiteral("-c"), QStringLiteral("gated.c"),
                      QStringLiteral("-o"), QStringLiteral("gated.o")});
      QVERIFY(comp.waitForFinished(60000));
      QVERIFY2(comp.exitCode() == 0, comp.readAllStandardError().constData());
    }
    // Another header already beside the chosen source: asked first; Cancel writes nothing.
    const QString other = dir.filePath(QStringLiteral("other.c"));
    {
      QFile h(dir.filePath(QStringLiteral("other.h")));
      QVERIFY(h.open(QIODevice::WriteOnly));
      h.write("/* mine */\n");
    }
    answerNextModal<QMessageBox>([](QMessageBox* b) { QTest::mouseClick(b->button(QMessageBox::Cancel), Qt::LeftButton); });
    QVERIFY(exportByMenu(w, QString::fromUtf8("C source and header\u2026"), other));
    QTest::qWait(300);
    QVERIFY(w.waitUntilSettled(30000));
    QVERIFY(!QFile::exists(other));
    QCOMPARE(fileBytes(dir.filePath(QStringLiteral("other.h"))), QByteArray("/* mine */\n"));
    // Yes replaces it.
    answerNextModal<QMessageBox>([](QMessageBox* b) { QTest::mouseClick(b->button(QMessageBox::Yes), Qt::LeftButton); });
    QVERIFY(exportByMenu(w, QString::fromUtf8("C source and header\u2026"), other));
    QTRY_VERIFY(QFile::exists(other));
    QVERIFY(fileBytes(dir.filePath(QStringLiteral("other.h"))).contains("other"));
    // Broken code is refused, nothing written.
    typeAtEnd(w.editor(), QStringLiteral(" +"));
    QVERIFY(w.waitUntilSettled(30000));
    QVERIFY(w.session()->compileFailed());
    QString err;
    QVERIFY(!w.exportTo(QStringLiteral("onnx"), dir.filePath(QStringLiteral("broken.onnx")), &err));
    QVERIFY2(err.contains(QStringLiteral("does not compile")), qPrintable(err));
    findAction(&w, QString::fromUtf8("C source and header\u2026"))->trigger();
    QVERIFY2(w.lastWarning().contains(QStringLiteral("does not compile")), qPrintable(w.lastWarning()));
    QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("broken.onnx"))));
  }

  // A program with state is refused by the C exporter with core's reason, nothing written.
  void aStatefulProgramIsRefusedByTheCExport() {
    QTemporaryDir dir;
    MainWindow w;
    showAndOpen(w, example("counter.json"));
    const QString c = dir.filePath(QStringLiteral("counter.c"));
    QString result = QStringLiteral("pending");
    QVERIFY(w.exportTo(QStringLiteral("c"), c, nullptr, [&result](const QString& e) { result = e; }));
    QTRY_VERIFY(result != QStringLiteral("pending"));
    QVERIFY2(result.contains(QStringLiteral("state")), qPrintable(result));
    QVERIFY(!QFile::exists(c));
    QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("counter.h"))));
  }
};

QTEST_MAIN(CompareTest)
#include "compare_test.moc"
