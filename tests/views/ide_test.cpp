// End-to-end tests of the IDE's views, driven offscreen through the real
// main window, session, worker and engine.
#include <QAbstractItemModel>
#include <QApplication>
#include <QComboBox>
#include <QImage>
#include <QMenuBar>
#include <QProcess>
#include <QTextBlock>
#include <QFile>
#include <QSettings>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>

#include <algorithm>
#include <cmath>

#include "ir/artifact.h"
#include "verify/python_reference.h"
#include "views/editor.h"
#include "views/graph_view.h"
#include "views/ide_app.h"
#include "views/main_window.h"
#include "views/panels.h"
#include "views/timeline.h"
#include "views/verify_panel.h"
#include "widget_actions.h"

using namespace tc;
using namespace tc::views;

namespace {

QString data(const char* name) { return tc_views_paths::under(tc_views_paths::viewsTestData(), name); }
QString example(const char* name) { return tc_views_paths::under(tc_views_paths::examples(), name); }

NodeId first_of(const Program& p, Op op) {
  for (const auto& n : p.nodes)
    if (n.op == op) return n.id;
  return -1;
}

QString cell(QAbstractItemModel* m, int row, int col) { return m->data(m->index(row, col)).toString(); }

}  // namespace

class IdeTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    tc::views::testing::useOwnSettings(QStringLiteral("tensorcode-ide-test"));
  }

  void opensAnExampleAndRunsTheDefaultCase() {
    MainWindow w;
    w.resize(1280, 800);
    w.show();
    QVERIFY(w.openPath(data("choose.py")));
    QVERIFY(w.waitUntilSettled(30000));
    auto p = w.session()->program();
    QVERIFY(p);
    QCOMPARE(w.session()->inputs().size(), std::size_t{1});
    // The directive in the file set the domain.
    QCOMPARE(QString::fromStdString(w.session()->inputs()[0].domain.to_string()), QStringLiteral("int32:-128:127"));
    // Default case is zero: 10 if 0 > 4 else 12.
    QVERIFY(w.session()->exactRun().ok);
    QCOMPARE(w.session()->exactRun().outputs.at(0), 12.0);
    QVERIFY(w.graph()->graphLayout());
    // Every node has a box but the constants, drawn in their users' boxes.
    const auto inlined = tc::views::inline_constants(*p);
    QCOMPARE(w.graph()->graphLayout()->ids.size(),
             p->nodes.size() - static_cast<std::size_t>(std::count(inlined.begin(), inlined.end(), 1)));
    QVERIFY(w.graph()->graphLayout()->graphviz);  // small circuits go through Graphviz
    // The IR text has one line per node after its header.
    QVERIFY(w.irText()->document()->blockCount() >= static_cast<int>(p->nodes.size()) + 1);
  }

  void plainFileOpensWithFullFloatRangesAndZeroCase() {
    MainWindow w;
    w.show();
    QVERIFY(w.openPath(data("plain.py")));
    QVERIFY(w.waitUntilSettled(30000));
    QVERIFY(w.session()->program());
    const auto& in = w.session()->inputs();
    QCOMPARE(in.size(), std::size_t{2});
    for (const auto& spec : in) {
      QCOMPARE(spec.domain, Domain::float64());
      QVERIFY(!spec.from_directive);
      QCOMPARE(w.session()->currentCase().at(spec.name), 0.0);
    }
    QCOMPARE(w.inputs()->table()->rowCount(), 2);
    QCOMPARE(w.session()->exactRun().outputs.at(0), 0.0);
  }

  void anEditTriggersARecompile() {
    MainWindow w;
    w.show();
    QVERIFY(w.openPath(data("choose.py")));
    QVERIFY(w.waitUntilSettled(30000));
    const int before = w.session()->compileCount();
    w.session()->setDebounceMs(50);
    // Several keystrokes in a row: the tagged worker keeps at most one compile queued.
    w.editor()->setText(w.editor()->text().replace(QStringLiteral("10 if"), QStringLiteral("11 if")));
    w.editor()->setText(w.editor()->text().replace(QStringLiteral("11 if"), QStringLiteral("13 if")));
    QVERIFY(w.waitUntilSettled(30000));
    QVERIFY(w.session()->compileCount() > before);
    w.session()->setCaseValue("a", 5);
    QVERIFY(w.waitUntilSettled(30000));
    QCOMPARE(w.session()->exactRun().outputs.at(0), 13.0);
  }

  void badCodeShowsDiagnosticsAtTheRightLine_data() {
    QTest::addColumn<QString>("source");
    QTest::addColumn<int>("line");
    QTest::newRow("syntax") << QStringLiteral("def f(x):\n    y = x +\n    return y\n") << 2;
    QTest::newRow("unknown name") << QStringLiteral("def f(x):\n    y = 1\n    return z\n") << 3;
    QTest::newRow("literal division by zero") << QStringLiteral("def f(x):\n    return x / 0\n") << 2;
    QTest::newRow("unbounded loop") << QStringLiteral("def f(x):\n    s = 0\n    while x > 0:\n        s = s + 1\n    return s\n") << 3;
  }
  void badCodeShowsDiagnosticsAtTheRightLine() {
    QFETCH(QString, source);
    QFETCH(int, line);
    MainWindow w;
    w.show();
    w.session()->newDocument(source);
    QVERIFY(w.waitUntilSettled(30000));
    bool found = false;
    for (const auto& d : w.session()->diagnostics())
      if (d.severity == Severity::Error && d.loc && d.loc->line == line) found = true;
    QVERIFY2(found, "no error diagnostic at the expected line");
    QVERIFY(w.editor()->markedLines().contains(line));
    QVERIFY(w.problems()->topLevelItemCount() >= 1);
    // Activating the problem puts the cursor on its line.
    auto* item = w.problems()->topLevelItem(0);
    emit w.problems()->itemActivated(item, 0);
    int l = 0, c = 0;
    w.editor()->getCursorPosition(&l, &c);
    QCOMPARE(l + 1, item->data(1, Qt::UserRole).toInt());
  }

  void selectingANodeUpdatesInspectorAndSource() {
    MainWindow w;
    w.show();
    QVERIFY(w.openPath(data("choose.py")));
    QVERIFY(w.waitUntilSettled(30000));
    auto p = w.session()->program();
    const NodeId gt = first_of(*p, Op::Gt);
    QVERIFY(gt >= 0);
    QVERIFY(p->nodes[static_cast<std::size_t>(gt)].location);
    w.session()->select(gt);
    QVERIFY(w.inspector()->detailText().contains(QStringLiteral("gt")));
    QCOMPARE(w.editor()->selectionHighlight().first, p->nodes[static_cast<std::size_t>(gt)].location->line);
    // The IR text follows: its cursor is on the node's line.
    QCOMPARE(w.irText()->textCursor().blockNumber(), gt + w.irText()->firstNodeLine());
    // And the other way: a click in the IR text selects that node.
    QTextCursor c(w.irText()->document()->findBlockByNumber(w.irText()->firstNodeLine()));
    w.irText()->setTextCursor(c);
    QCOMPARE(w.session()->selected(), NodeId{0});
    // Source -> nodes: the cursor on the return line highlights the nodes of that line.
    w.editor()->setCursorPosition(2, 4);
    QTRY_VERIFY(!w.session()->highlighted().empty());
    for (NodeId id : w.session()->highlighted()) QCOMPARE(p->nodes[static_cast<std::size_t>(id)].location->line, 3);
  }

  void switchingSemanticsChangesTheGradientsShown() {
    MainWindow w;
    w.show();
    QVERIFY(w.openPath(data("gate.py")));
    QVERIFY(w.waitUntilSettled(30000));
    w.session()->setCase({{"x", 5.0}, {"w", 2.0}});
    auto* box = w.inspector()->semanticsBox();
    box->setCurrentIndex(box->findData(static_cast<int>(Semantics::Exact)));
    QVERIFY(w.waitUntilSettled(30000));
    auto p = w.session()->program();
    const NodeId gt = first_of(*p, Op::Gt);
    QVERIFY(gt >= 0);
    QVERIFY(w.session()->exactGrad().ok);
    auto* m = w.inspector()->model();
    const QString exactShown = cell(m, gt, InspectorModel::ChosenGrad);
    QCOMPARE(exactShown, QStringLiteral("0"));
    box->setCurrentIndex(box->findData(static_cast<int>(Semantics::Hybrid)));
    QVERIFY(w.waitUntilSettled(30000));
    QVERIFY(w.session()->chosenGrad().ok);
    // Hybrid: the select's condition receives yes - no = w * x - 0 = 10, and the
    // comparison passes it on; the exact column stays 0 beside it.
    QCOMPARE(cell(m, gt, InspectorModel::ExactGrad), QStringLiteral("0"));
    QVERIFY(cell(m, gt, InspectorModel::ChosenGrad) != exactShown);
    QCOMPARE(w.session()->exactRun().outputs.at(0), 10.0);
    // Temperature changes the surrogate's slope, so x's gradient (through the comparison) moves.
    const NodeId x = *p->find_named(Op::Input, "x");
    const QString before = cell(m, x, InspectorModel::ChosenGrad);
    QCOMPARE(cell(m, x, InspectorModel::ExactGrad), QStringLiteral("2"));  // d(w*x)/dx = w
    w.inspector()->temperatureSlider()->setValue(90);
    QVERIFY(w.waitUntilSettled(30000));
    QVERIFY(cell(m, x, InspectorModel::ChosenGrad) != before);
    QCOMPARE(cell(m, x, InspectorModel::ExactGrad), QStringLiteral("2"));
  }

  void timelineSteppingShowsTheRightState() {
    MainWindow w;
    w.show();
    QVERIFY(w.openPath(example("counter.json")));
    QVERIFY(w.waitUntilSettled(30000));
    QVERIFY(w.session()->readOnly());
    QString err;
    QVERIFY(w.session()->loadEvents(example("counter_events.jsonl"), &err));
    QVERIFY(w.waitUntilSettled(30000));
    QVERIFY(w.session()->hasReplay());
    QCOMPARE(w.session()->step(), 0);  // opens paused at step 0
    QCOMPARE(w.timeline()->shownValue(QStringLiteral("state count")), 0.0);
    const double expected[] = {1, 2, 2, 3, 4};
    for (int s = 1; s <= 5; ++s) {
      w.timeline()->stepForward();
      QCOMPARE(w.session()->step(), s);
      QCOMPARE(w.timeline()->shownValue(QStringLiteral("state count (after)")), expected[s - 1]);
    }
    w.timeline()->stepBack();
    QCOMPARE(w.timeline()->shownValue(QStringLiteral("state count (after)")), 3.0);
    w.timeline()->scrubber()->setValue(2);
    QCOMPARE(w.session()->step(), 2);
    QCOMPARE(w.timeline()->shownValue(QStringLiteral("output result")), 1.0);  // outputs see the old state
    // Snapshot at step 2, then restore it: the timeline goes back to step 2 of the same log.
    QTemporaryDir dir;
    const QString snap = dir.filePath(QStringLiteral("s.json"));
    QSignalSpy saved(w.session(), &Session::snapshotSaved);
    QVERIFY(w.session()->saveSnapshot(snap, &err));
    QVERIFY(saved.wait(30000));  // written on the worker, answered by a signal
    w.session()->setStep(4);
    QVERIFY(w.session()->restoreSnapshot(snap, &err));
    QVERIFY(w.waitUntilSettled(30000));
    QCOMPARE(w.session()->snapshotBase(), 0);
    QCOMPARE(w.session()->step(), 2);
    QCOMPARE(w.timeline()->shownValue(QStringLiteral("state count (after)")), 2.0);
  }

  void exportWritesAnArtifactThatLoads_data() {
    QTest::addColumn<QString>("kind");
    QTest::newRow("artifact") << QStringLiteral("artifact");
    QTest::newRow("optimized") << QStringLiteral("optimized");
  }
  void exportWritesAnArtifactThatLoads() {
    QFETCH(QString, kind);
    MainWindow w;
    w.show();
    QVERIFY(w.openPath(data("choose.py")));
    QVERIFY(w.waitUntilSettled(30000));
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("out.json"));
    QString err;
    QString done = QStringLiteral("pending");
    QVERIFY2(w.exportTo(kind, out, &err, [&done](const QString& e) { done = e; }), qPrintable(err));
    QTRY_VERIFY_WITH_TIMEOUT(done != QStringLiteral("pending"), 30000);  // written on the worker
    QVERIFY2(done.isEmpty(), qPrintable(done));
    QFile f(out);
    QVERIFY(f.open(QIODevice::ReadOnly));
    auto loaded = load_artifact(f.readAll().toStdString());
    QVERIFY2(loaded.ok(), loaded.ok() ? "" : loaded.error().message.c_str());
    // The exported program computes what the IDE showed.
    MainWindow w2;
    w2.show();
    QVERIFY(w2.openPath(out));
    QVERIFY(w2.waitUntilSettled(30000));
    QVERIFY(w2.session()->readOnly());
    QCOMPARE(w2.session()->exactRun().outputs.at(0), 12.0);
  }

  void exportsDotAndGpuTargets() {
    MainWindow w;
    w.show();
    QVERIFY(w.openPath(data("choose.py")));
    QVERIFY(w.waitUntilSettled(30000));
    QTemporaryDir dir;
    QString err;
    QSignalSpy exported(&w, &MainWindow::exported);
    QVERIFY(w.exportTo(QStringLiteral("dot"), dir.filePath(QStringLiteral("c.dot")), &err));
    QVERIFY(exported.wait(30000));
    QCOMPARE(exported.takeFirst().at(1).toString(), QString());
    QFile dot(dir.filePath(QStringLiteral("c.dot")));
    QVERIFY(dot.open(QIODevice::ReadOnly));
    QVERIFY(dot.readAll().startsWith("digraph"));
    QVERIFY2(w.exportTo(QStringLiteral("wgsl"), dir.filePath(QStringLiteral("c.wgsl")), &err), qPrintable(err));
    QVERIFY(exported.wait(30000));
    QCOMPARE(exported.takeFirst().at(1).toString(), QString());
    QFile wgsl(dir.filePath(QStringLiteral("c.wgsl")));
    QVERIFY(wgsl.open(QIODevice::ReadOnly));
    QVERIFY(wgsl.readAll().contains("@compute"));
  }

  void domainEditsAreSavedAsDirectives() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("plain.py"));
    QVERIFY(QFile::copy(data("plain.py"), path));
    MainWindow w;
    w.show();
    QVERIFY(w.openPath(path));
    QVERIFY(w.waitUntilSettled(30000));
    w.session()->setInputDomain("x", Domain::int32(0, 10));
    QVERIFY(w.waitUntilSettled(30000));
    QVERIFY(w.editor()->text().contains(QStringLiteral("# tensorcode: input x=int32:0:10")));
    QVERIFY(w.savePath(path));
    MainWindow w2;
    w2.show();
    QVERIFY(w2.openPath(path));
    QVERIFY(w2.waitUntilSettled(30000));
    QCOMPARE(w2.session()->inputs()[0].domain, Domain::int32(0, 10));
    QCOMPARE(w2.session()->inputs()[1].domain, Domain::float64());
    // Undo restores the text before the domain edit.
    w.editor()->undo();
    QVERIFY(!w.editor()->text().contains(QStringLiteral("int32:0:10")));
  }

  void verifyReportsAndMismatchesJumpToInputs() {
    MainWindow w;
    w.show();
    QVERIFY(w.openPath(data("choose.py")));
    QVERIFY(w.waitUntilSettled(30000));
    w.verifyPanel()->start();
    QVERIFY(w.waitUntilSettled(60000));
    const QString s = w.verifyPanel()->summary();
    if (!python_reference_available()) QSKIP("this build has no CPython reference");
    QVERIFY2(s.contains(QStringLiteral("passed")), qPrintable(s));
    QVERIFY(s.contains(QStringLiteral("256")));
  }

  void verifyMismatchActivatesIntoTheInputsPanel() {
    // The unused division is never computed by the circuit, but CPython raises at a = 0.
    MainWindow w;
    w.show();
    QVERIFY(w.openPath(data("unused_div.py")));
    QVERIFY(w.waitUntilSettled(30000));
    QVERIFY(w.session()->program());
    w.verifyPanel()->start();
    QVERIFY(w.waitUntilSettled(60000));
    if (!python_reference_available()) QSKIP("this build has no CPython reference");
    QCOMPARE(w.verifyPanel()->mismatches()->topLevelItemCount(), 1);
    auto* item = w.verifyPanel()->mismatches()->topLevelItem(0);
    QCOMPARE(item->text(0), QStringLiteral("a=0"));
    w.session()->setCaseValue("a", 2);
    QVERIFY(w.waitUntilSettled(30000));
    emit w.verifyPanel()->mismatches()->itemActivated(item, 0);
    QVERIFY(w.waitUntilSettled(30000));
    QCOMPARE(w.session()->currentCase().at("a"), 0.0);
    QCOMPARE(w.inputs()->table()->item(w.inputs()->rowOf(QStringLiteral("a")), 4)->text(), QStringLiteral("0"));
    QCOMPARE(w.session()->exactRun().outputs.at(0), 0.0);
  }

  void jumpToTheStepWhereANodeChanged() {
    MainWindow w;
    w.show();
    QVERIFY(w.openPath(example("counter.json")));
    QVERIFY(w.waitUntilSettled(30000));
    QString err;
    QVERIFY(w.session()->loadEvents(example("counter_events.jsonl"), &err));
    QVERIFY(w.waitUntilSettled(30000));
    // The state node's value per step (old state): 0, 1, 2, 2, 3.
    w.session()->select(*w.session()->program()->find_named(Op::State, "count"));
    w.timeline()->jumpToChange();
    QCOMPARE(w.session()->step(), 2);
    w.session()->setStep(3);
    w.timeline()->jumpToChange();
    QCOMPARE(w.session()->step(), 5);
    w.timeline()->jumpToChange();  // no later change: stays
    QCOMPARE(w.session()->step(), 5);
  }

  void screenshotCommandWritesThePng() {
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("shot.png"));
    QProcess ide;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    ide.setProcessEnvironment(env);
    ide.start(tc_views_paths::ide(), {QStringLiteral("--screenshot"), out, data("choose.py")});
    QVERIFY(ide.waitForFinished(120000));
    QCOMPARE(ide.exitStatus(), QProcess::NormalExit);
    QCOMPARE(ide.exitCode(), 0);
    const QImage png(out);
    QVERIFY(!png.isNull());
    QCOMPARE(png.size(), QSize(1280, 800));
    // A missing file is an error, not a blank screenshot.
    ide.start(tc_views_paths::ide(), {QStringLiteral("--screenshot"), out, dir.filePath(QStringLiteral("missing.py"))});
    QVERIFY(ide.waitForFinished(120000));
    QCOMPARE(ide.exitCode(), 3);
  }

  void germanTranslationLoads() {
    QVERIFY(install_translation(*QCoreApplication::instance(), QStringLiteral("de")));
    MainWindow w;
    QCOMPARE(w.menuBar()->actions().first()->text(), QStringLiteral("&Datei"));
    QCOMPARE(QCoreApplication::translate("tc::views::InputsPanel", "Parameter"), QStringLiteral("Parameter"));
    QCOMPARE(QCoreApplication::translate("tc::views::MainWindow", "Circuit"), QStringLiteral("Schaltung"));
    // The debugger habits' strings are translated too (fill_de.py fails on a missing one).
    QCOMPARE(QCoreApplication::translate("tc::views::MainWindow", "Replace &All"), QStringLiteral("&Alle ersetzen"));
    QCOMPARE(QCoreApplication::translate("tc::views::MainWindow", "Jump to &Previous Change"),
             QString::fromUtf8("Zur &vorherigen Änderung springen"));
  }
};

QTEST_MAIN(IdeTest)
#include "ide_test.moc"
