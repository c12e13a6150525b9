// The IDE journeys of issue 12, driven through the real widgets with QTest
// key and mouse events (offscreen): a transient compile error keeps the
// case, a snapshot restores onto the same log, the step's two states are
// labelled and followed by every panel, exports and verify refuse while the
// source is broken, and Verify checks against a real reference.
#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDockWidget>
#include <QTextBlock>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QPushButton>
#include <QSettings>
#include <QElapsedTimer>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>

#include "verify/python_reference.h"
#include "views/editor.h"
#include "views/engine.h"
#include "views/graph_view.h"
#include "views/main_window.h"
#include "views/panels.h"
#include "views/timeline.h"
#include "views/comparison.h"
#include "views/verify_panel.h"
#include "widget_actions.h"

using namespace tc;
using namespace tc::views;
using namespace tc::views::testing;

class JourneysTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    useOwnSettings(QStringLiteral("tensorcode-ide-journeys"));
  }

  void aCompileErrorKeepsInputsDomainsAndSelection() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("choose.py"));
    QVERIFY(QFile::copy(data("choose.py"), path));
    MainWindow w;
    w.resize(1280, 800);
    w.show();
    QVERIFY(w.openPath(path));
    QVERIFY(w.waitUntilSettled(30000));
    w.session()->setDebounceMs(30);
    auto* table = w.inputs()->table();
    const int row = w.inputs()->rowOf(QStringLiteral("a"));
    QVERIFY(row >= 0);
    typeIntoCell(table, row, 4, QStringLiteral("7"));
    QVERIFY(w.waitUntilSettled(30000));
    QCOMPARE(w.session()->currentCase().at("a"), 7.0);
    QCOMPARE(w.session()->exactRun().outputs.at(0), 10.0);
    w.session()->select(1);
    // Break the source with a keystroke: a dangling operator.
    typeAtEnd(w.editor(), QStringLiteral(" +"));
    QVERIFY(w.waitUntilSettled(30000));
    QVERIFY(w.session()->compileFailed());
    QVERIFY(!w.session()->upToDate());
    // Nothing the user set is lost: the row, its domain, its value, the selection.
    QCOMPARE(table->rowCount(), 1);
    QCOMPARE(table->item(row, 4)->text(), QStringLiteral("7"));
    QCOMPARE(table->item(row, 2)->text(), QStringLiteral("-128"));
    QCOMPARE(w.session()->currentCase().at("a"), 7.0);
    QCOMPARE(w.session()->inputs().size(), std::size_t{1});
    QCOMPARE(w.session()->selected(), NodeId{1});
    // Fix it again: the value is still 7 and the new program runs with it.
    QTest::keyClick(w.editor(), Qt::Key_Backspace);
    QTest::keyClick(w.editor(), Qt::Key_Backspace);
    QVERIFY(w.waitUntilSettled(30000));
    QVERIFY(!w.session()->compileFailed());
    QVERIFY(w.session()->upToDate());
    QCOMPARE(w.session()->currentCase().at("a"), 7.0);
    QCOMPARE(table->item(row, 4)->text(), QStringLiteral("7"));
    QCOMPARE(w.session()->exactRun().outputs.at(0), 10.0);
    QCOMPARE(w.session()->selected(), NodeId{1});
  }

  void snapshotRestoresOntoTheSameLog() {
    MainWindow w;
    w.show();
    QVERIFY(w.openPath(example("counter.json")));
    QVERIFY(w.waitUntilSettled(30000));
    QString err;
    QVERIFY(w.session()->loadEvents(example("counter_events.jsonl"), &err));
    QVERIFY(w.waitUntilSettled(30000));
    for (int i = 0; i < 3; ++i) QTest::keyClick(&w, Qt::Key_F10);
    QCOMPARE(w.session()->step(), 3);
    QTemporaryDir dir;
    const QString snap = dir.filePath(QStringLiteral("step3.json"));
    QSignalSpy saved(w.session(), &Session::snapshotSaved);
    QVERIFY2(w.session()->saveSnapshot(snap, &err), qPrintable(err));
    QVERIFY(saved.wait(30000));
    QTest::keyClick(&w, Qt::Key_F10);
    QTest::keyClick(&w, Qt::Key_F10);
    QCOMPARE(w.session()->step(), 5);
    QVERIFY(w.session()->restoreSnapshot(snap, &err));
    QVERIFY(w.waitUntilSettled(30000));
    // At the snapshot's step of the same log, not a new log on top of it.
    QCOMPARE(w.session()->step(), 3);
    QCOMPARE(w.session()->replay().steps.size(), std::size_t{5});
    QCOMPARE(w.session()->snapshotBase(), 0);
    QCOMPARE(w.timeline()->shownValue(QStringLiteral("state count (after)")), 2.0);
    // The rest of the log replays from the snapshot's state; nothing counted twice.
    QTest::keyClick(&w, Qt::Key_F10);
    QTest::keyClick(&w, Qt::Key_F10);
    QCOMPARE(w.session()->step(), 5);
    QCOMPARE(w.timeline()->shownValue(QStringLiteral("state count (after)")), 4.0);
    QTest::keyClick(&w, Qt::Key_F10);  // past the end: stays
    QCOMPARE(w.session()->step(), 5);
  }

  void aSnapshotWithoutTheLogStandsAlone() {
    QTemporaryDir dir;
    const QString snap = dir.filePath(QStringLiteral("s.json"));
    QString err;
    {
      MainWindow w0;
      w0.show();
      QVERIFY(w0.openPath(example("counter.json")));
      QVERIFY(w0.waitUntilSettled(30000));
      QVERIFY(w0.session()->loadEvents(example("counter_events.jsonl"), &err));
      QVERIFY(w0.waitUntilSettled(30000));
      w0.session()->setStep(5);
      QSignalSpy saved(w0.session(), &Session::snapshotSaved);
      QVERIFY(w0.session()->saveSnapshot(snap, &err));
      QVERIFY(saved.wait(30000));
    }
    MainWindow w;
    w.show();
    QVERIFY(w.openPath(example("counter.json")));
    QVERIFY(w.waitUntilSettled(30000));
    // No log open: the snapshot's state alone, at its own step.
    QVERIFY(w.session()->restoreSnapshot(snap, &err));
    QVERIFY(w.waitUntilSettled(30000));
    QCOMPARE(w.session()->step(), 0);
    QCOMPARE(w.session()->snapshotBase(), 5);
    QCOMPARE(w.timeline()->shownValue(QStringLiteral("state count")), 4.0);
    // A log opened now continues from it: counts 5, 6, 6, 7, 8 at steps 6 to 10.
    QVERIFY(w.session()->loadEvents(example("counter_events.jsonl"), &err));
    QVERIFY(w.waitUntilSettled(30000));
    QCOMPARE(w.session()->snapshotBase(), 5);
    w.session()->setStep(5);
    QCOMPARE(w.timeline()->shownValue(QStringLiteral("state count (after)")), 8.0);
    // The Inputs panel's hint names the log's first step, not 0 (issue 38 polish).
    QString note;
    for (QLabel* l : w.inputs()->findChildren<QLabel*>())
      if (l->text().startsWith(QStringLiteral("Showing step"))) note = l->text();
    QVERIFY2(note.contains(QStringLiteral("Showing step 10 ")) && note.contains(QStringLiteral("go to step 5 ")), qPrintable(note));
    // A snapshot that is not one is refused with a message, the timeline untouched.
    const QString bad = dir.filePath(QStringLiteral("bad.json"));
    QFile f(bad);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("{\"format\": \"tensorcode.snapshot\"}");
    f.close();
    QVERIFY(w.session()->restoreSnapshot(bad, &err));
    QVERIFY(w.waitUntilSettled(30000));
    QVERIFY(!w.lastWarning().isEmpty());
    QCOMPARE(w.session()->replay().steps.size(), std::size_t{5});
    QCOMPARE(w.session()->step(), 5);
  }

  void eachPanelFollowsTheStepAndLabelsBothStates() {
    MainWindow w;
    w.show();
    QVERIFY(w.openPath(example("counter.json")));
    QVERIFY(w.waitUntilSettled(30000));
    QString err;
    QVERIFY(w.session()->loadEvents(example("counter_events.jsonl"), &err));
    QVERIFY(w.waitUntilSettled(30000));
    const NodeId count = *w.session()->program()->find_named(Op::State, "count");
    w.session()->select(count);
    for (int i = 0; i < 4; ++i) QTest::keyClick(&w, Qt::Key_F10);
    QCOMPARE(w.session()->step(), 4);
    // Counts after each step: 1, 2, 2, 3, 4. Step 4 saw 2 and committed 3.
    QCOMPARE(w.timeline()->shownValue(QStringLiteral("state count (before)")), 2.0);
    QCOMPARE(w.timeline()->shownValue(QStringLiteral("state count (after)")), 3.0);
    const QString detail = w.inspector()->detailText();
    QVERIFY2(detail.contains(QStringLiteral("value at step 4: <b>2</b>")), qPrintable(detail));
    QVERIFY2(detail.contains(QStringLiteral("committed <b>3</b>")), qPrintable(detail));
    QCOMPARE(w.inspector()->model()->data(w.inspector()->model()->index(count, InspectorModel::Value), Qt::DisplayRole).toString(),
             QStringLiteral("2"));
    // The Inputs panel shows the step's event, read-only, and its outputs.
    const int row = w.inputs()->rowOf(QStringLiteral("event"));
    QCOMPARE(w.inputs()->table()->item(row, 4)->text(), QStringLiteral("1"));
    QVERIFY(!(w.inputs()->table()->item(row, 4)->flags() & Qt::ItemIsEditable));
    bool statusHasStep = false;
    for (QLabel* l : w.statusBar()->findChildren<QLabel*>())
      if (l->text() == QStringLiteral("step 4: result = 2")) statusHasStep = true;
    QVERIFY(statusHasStep);
    // Step 3's event was 0.
    QTest::keyClick(&w, Qt::Key_F10, Qt::ShiftModifier);
    QCOMPARE(w.inputs()->table()->item(row, 4)->text(), QStringLiteral("0"));
    // Back at step 0 the case is editable again.
    w.session()->setStep(0);
    QVERIFY(w.inputs()->table()->item(row, 4)->flags() & Qt::ItemIsEditable);
  }

  // Issue 38 polish: the state plot opened about 75 px wide beside the
  // event list and the value table, its legend cut to "…".
  void theStatePlotOpensWideEnoughToRead() {
    MainWindow w;
    w.resize(1280, 800);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(w.openPath(example("counter.json")));
    QVERIFY(w.waitUntilSettled(30000));
    QString err;
    QVERIFY(w.session()->loadEvents(example("counter_events.jsonl"), &err));
    QVERIFY(w.waitUntilSettled(30000));
    w.raiseDock(QStringLiteral("TimelineDock"));
    QTest::qWait(100);
    QWidget* plot = w.timeline()->plotWidget();
    QVERIFY(plot && plot->isVisible());
    const int whole = w.timeline()->width();
    QVERIFY2(plot->width() >= 260 && plot->width() >= whole / 3,
             qPrintable(QStringLiteral("plot %1 px of %2").arg(plot->width()).arg(whole)));
  }

  void stepKeysWithoutALogSaySo() {
    MainWindow w;
    w.show();
    QVERIFY(w.openPath(data("choose.py")));
    QVERIFY(w.waitUntilSettled(30000));
    QTest::keyClick(&w, Qt::Key_F10);
    QVERIFY2(w.statusBar()->currentMessage().contains(QStringLiteral("no event log")), qPrintable(w.statusBar()->currentMessage()));
  }

  void exportAndVerifyRefuseWhileTheSourceIsBroken() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("choose.py"));
    QVERIFY(QFile::copy(data("choose.py"), path));
    MainWindow w;
    w.show();
    QVERIFY(w.openPath(path));
    QVERIFY(w.waitUntilSettled(30000));
    w.session()->setDebounceMs(30);
    typeAtEnd(w.editor(), QStringLiteral(" +"));
    QVERIFY(w.waitUntilSettled(30000));
    QVERIFY(w.session()->compileFailed());
    const QString out = dir.filePath(QStringLiteral("out.json"));
    QString err;
    QVERIFY(!w.exportTo(QStringLiteral("artifact"), out, &err));
    QVERIFY2(err.contains(QStringLiteral("does not compile")), qPrintable(err));
    QVERIFY(!QFile::exists(out));
    // The menu says the same in a warning (and opens no file dialog).
    QAction* a = findAction(&w, QStringLiteral("Artifact JSON…"));
    QVERIFY(a);
    a->trigger();
    QVERIFY2(w.lastWarning().contains(QStringLiteral("does not compile")), qPrintable(w.lastWarning()));
    // Verify refuses too, naming the problem.
    QTest::mouseClick(w.verifyPanel()->runButton(), Qt::LeftButton);
    QVERIFY2(w.verifyPanel()->summary().contains(QStringLiteral("does not compile")), qPrintable(w.verifyPanel()->summary()));
    QCOMPARE(w.verifyPanel()->mismatches()->topLevelItemCount(), 0);
  }

  void exportProposesANameAndWarnsAboutFloat32() {
    MainWindow w;
    w.show();
    QVERIFY(w.openPath(data("choose.py")));
    QVERIFY(w.waitUntilSettled(30000));
    QCOMPARE(w.defaultExportPath(QStringLiteral("wgsl")), tc_views_paths::under(tc_views_paths::viewsTestData(), "choose.wgsl"));
    QCOMPARE(w.defaultExportPath(QStringLiteral("dot")), tc_views_paths::under(tc_views_paths::viewsTestData(), "choose.dot"));
    QVERIFY(w.exportWarning(QStringLiteral("wgsl")).contains(QStringLiteral("float32")));
    QVERIFY(w.exportWarning(QStringLiteral("artifact")).isEmpty());
    // The labels are real ellipses, not UTF-8 read as Latin-1.
    QVERIFY(findAction(&w, QString::fromUtf8("WGSL\u2026")));
    for (QAction* act : w.findChildren<QAction*>()) QVERIFY2(!act->text().contains(QString::fromUtf8("\u00e2\u20ac")), qPrintable(act->text()));
  }

  void verifyAgainstAWrongReferenceListsTheMismatch() {
    QTemporaryDir dir;
    const QString ref = dir.filePath(QStringLiteral("ref.py"));
    QFile f(ref);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("def choose(a):\n    return 10 if a > 5 else 12\n");  // disagrees at a = 5 only
    f.close();
    const QString path = dir.filePath(QStringLiteral("choose.py"));
    QVERIFY(QFile::copy(data("choose.py"), path));
    MainWindow w;
    w.show();
    QVERIFY(w.openPath(path));
    QVERIFY(w.waitUntilSettled(30000));
    w.session()->setDebounceMs(30);
    VerifyPanel* v = w.verifyPanel();
    v->referenceEdit()->setFocus();
    QTest::keyClicks(v->referenceEdit(), ref);
    QTest::mouseClick(v->runButton(), Qt::LeftButton);
    QVERIFY(w.waitUntilSettled(60000));
    if (!python_reference_available()) QSKIP("this build has no CPython reference");
    QVERIFY2(v->summary().contains(QStringLiteral("1 mismatch")), qPrintable(v->summary()));
    QCOMPARE(v->mismatches()->topLevelItemCount(), 1);
    QTreeWidgetItem* item = v->mismatches()->topLevelItem(0);
    QCOMPARE(item->text(VerifyPanel::Inputs), QStringLiteral("a=5"));
    QVERIFY2(item->text(VerifyPanel::Circuit).contains(QStringLiteral("10")), qPrintable(item->text(VerifyPanel::Circuit)));
    QVERIFY2(item->text(VerifyPanel::Reference).contains(QStringLiteral("12")), qPrintable(item->text(VerifyPanel::Reference)));
    QVERIFY2(item->text(VerifyPanel::Difference).contains(QStringLiteral("-2")), qPrintable(item->text(VerifyPanel::Difference)));
    QVERIFY(!v->stale());
    // A click loads the case.
    const QRect r = v->mismatches()->visualItemRect(item);
    QTest::mouseClick(v->mismatches()->viewport(), Qt::LeftButton, {}, r.center());
    QVERIFY(w.waitUntilSettled(30000));
    QCOMPARE(w.session()->currentCase().at("a"), 5.0);
    QCOMPARE(w.session()->exactRun().outputs.at(0), 10.0);
    // A tolerance of 2 accepts the difference.
    v->atolEdit()->clear();
    QTest::keyClicks(v->atolEdit(), QStringLiteral("2"));
    QVERIFY(v->stale());
    QTest::mouseClick(v->runButton(), Qt::LeftButton);
    QVERIFY(w.waitUntilSettled(60000));
    QVERIFY2(v->summary().contains(QStringLiteral("passed")), qPrintable(v->summary()));
    // Editing the code makes the result stale.
    typeAtEnd(w.editor(), QString());
    QTest::keyClick(w.editor(), Qt::Key_Return);
    QVERIFY(w.waitUntilSettled(30000));
    QVERIFY(v->stale());
    QVERIFY(v->summary().contains(QStringLiteral("stale")));
  }

  // Issue 39: the Verify dock's Prove button. Equivalence with a reference
  // file over the whole float domain, a counterexample loaded as the case
  // with one click, "cannot fail" without a reference, and Cancel stopping
  // a long proof. Z3 is linked in; cvc5 is the second opinion "proved" needs.
  void proveDecidesOverTheWholeDomainAndLoadsTheCounterexample() {
    if (QStandardPaths::findExecutable(QStringLiteral("cvc5")).isEmpty()) QSKIP("cvc5 is not installed (Debian: cvc5)");
    QTemporaryDir dir;
    auto write = [&](const char* name, const char* text) {
      QFile f(dir.filePath(QString::fromLatin1(name)));
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write(text);
    };
    write("twice.py", "# tensorcode: input x=float64:-100:100\ndef twice(x):\n    return 2 * x\n");
    write("same.py", "def twice(x):\n    return x + x\n");
    write("other.py", "def twice(x):\n    return x + x if x < 50 else 3 * x\n");
    MainWindow w;
    w.resize(1280, 800);
    w.show();
    QVERIFY(w.openPath(dir.filePath(QStringLiteral("twice.py"))));
    QVERIFY(w.waitUntilSettled(30000));
    w.raiseDock(QStringLiteral("VerifyDock"));
    VerifyPanel* v = w.verifyPanel();
    // No reference: the circuit cannot fail over x in [-100, 100].
    QTest::mouseClick(v->proveButton(), Qt::LeftButton);
    QVERIFY(w.waitUntilSettled(120000));
    QVERIFY2(v->summary().contains(QStringLiteral("cannot fail")), qPrintable(v->summary()));
    QVERIFY2(v->summary().contains(QStringLiteral("z3 unsat")) && v->summary().contains(QStringLiteral("cvc5 unsat")),
             qPrintable(v->summary()));
    QCOMPARE(v->mismatches()->topLevelItemCount(), 0);
    // x + x is 2 * x for every double.
    v->referenceEdit()->setFocus();
    QTest::keyClicks(v->referenceEdit(), dir.filePath(QStringLiteral("same.py")));
    QTest::mouseClick(v->proveButton(), Qt::LeftButton);
    QVERIFY(w.waitUntilSettled(120000));
    QVERIFY2(v->summary().contains(QStringLiteral("proved equivalent")) && v->summary().contains(QStringLiteral("same.py")),
             qPrintable(v->summary()));
    // A reference that differs from x = 50 on: the counterexample is listed and loads with a click.
    v->referenceEdit()->clear();
    QTest::keyClicks(v->referenceEdit(), dir.filePath(QStringLiteral("other.py")));
    QTest::mouseClick(v->proveButton(), Qt::LeftButton);
    QVERIFY(w.waitUntilSettled(120000));
    QVERIFY2(v->summary().contains(QStringLiteral("different")), qPrintable(v->summary()));
    QCOMPARE(v->mismatches()->topLevelItemCount(), 1);
    QTreeWidgetItem* item = v->mismatches()->topLevelItem(0);
    QVERIFY2(item->text(VerifyPanel::Inputs).startsWith(QStringLiteral("x=")), qPrintable(item->text(VerifyPanel::Inputs)));
    const QRect r = v->mismatches()->visualItemRect(item);
    QTest::mouseClick(v->mismatches()->viewport(), Qt::LeftButton, {}, r.center());
    QVERIFY(w.waitUntilSettled(30000));
    const double x = w.session()->currentCase().at("x");
    QVERIFY2(x >= 50 && x <= 100, qPrintable(QString::number(x)));
    QCOMPARE(w.session()->exactRun().outputs.at(0), 2 * x);
    // The result belongs to the source it was proved for.
    typeAtEnd(w.editor(), QString());
    QTest::keyClick(w.editor(), Qt::Key_Return);
    QVERIFY(w.waitUntilSettled(30000));
    QVERIFY(v->stale());
  }

  void cancelStopsALongProof() {
    if (QStandardPaths::findExecutable(QStringLiteral("cvc5")).isEmpty()) QSKIP("cvc5 is not installed (Debian: cvc5)");
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("ratio.py"));
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    // Tens of seconds for the solvers (tests/prove/cancel_test.cpp).
    f.write("# tensorcode: input x=float64\ndef ratio(x):\n    return x / (x * x + 1)\n");
    f.close();
    MainWindow w;
    w.show();
    QVERIFY(w.openPath(path));
    QVERIFY(w.waitUntilSettled(30000));
    VerifyPanel* v = w.verifyPanel();
    QTest::mouseClick(v->proveButton(), Qt::LeftButton);
    QVERIFY(v->cancelButton()->isEnabled());
    QVERIFY(!v->proveButton()->isEnabled() && !v->runButton()->isEnabled());
    QTest::qWait(1000);
    QVERIFY2(w.session()->worker().busy(), "the proof ended within a second: pick a harder one");
    QElapsedTimer t;
    t.start();
    QTest::mouseClick(v->cancelButton(), Qt::LeftButton);
    QCOMPARE(v->summary(), QStringLiteral("cancelled"));
    QVERIFY(v->proveButton()->isEnabled() && v->runButton()->isEnabled());
    QVERIFY(w.waitUntilSettled(30000));
    QVERIFY2(t.elapsed() < 10000, qPrintable(QString::number(t.elapsed())));
    QCOMPARE(v->summary(), QStringLiteral("cancelled"));  // the cancelled job's result is dropped
  }

  // Issue 38 polish: an artifact's note (its long path) scrolled the editor
  // sideways, and the next file opened scrolled ("orcode: input…").
  void theNextFileStartsUnscrolled() {
    QTemporaryDir dir;
    const QString deep = dir.filePath(QString(120, QLatin1Char('d')));
    QVERIFY(QDir().mkpath(deep));
    const QString artifact = deep + QStringLiteral("/counter.json");
    QVERIFY(QFile::copy(example("counter.json"), artifact));
    const QString source = dir.filePath(QStringLiteral("choose.py"));
    QVERIFY(QFile::copy(data("choose.py"), source));
    MainWindow w;
    w.resize(1280, 800);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    SourceEditor* ed = w.editor();
    auto xOffset = [ed] { return static_cast<long>(ed->SendScintilla(QsciScintillaBase::SCI_GETXOFFSET)); };
    QVERIFY(w.openPath(artifact));
    QVERIFY(w.waitUntilSettled(30000));
    QTest::qWait(50);
    QCOMPARE(xOffset(), 0L);
    QVERIFY(w.openPath(source));
    QVERIFY(w.waitUntilSettled(30000));
    QTest::qWait(50);
    QCOMPARE(xOffset(), 0L);
    QVERIFY2(ed->text(0).startsWith(QStringLiteral("# tensorcode")), qPrintable(ed->text(0)));
    // The scroll range is the new file's: its lines fit, so there is nothing to scroll to.
    const long width = static_cast<long>(ed->SendScintilla(QsciScintillaBase::SCI_GETSCROLLWIDTH));
    QVERIFY2(width < ed->viewport()->width(), qPrintable(QStringLiteral("%1 px of scroll width in %2").arg(width).arg(ed->viewport()->width())));
  }

  void hybridGradientFailureIsAProblemWithItsSelect() {
    MainWindow w;
    w.show();
    QVERIFY(w.openPath(data("ratio.py")));
    QVERIFY(w.waitUntilSettled(30000));
    QCOMPARE(w.session()->semantics(), Semantics::Hybrid);
    auto* table = w.inputs()->table();
    typeIntoCell(table, w.inputs()->rowOf(QStringLiteral("x")), 4, QStringLiteral("3"));
    QVERIFY(w.waitUntilSettled(30000));
    QVERIFY(w.session()->exactRun().ok);  // the forward run is fine at y = 0
    const auto& g = w.session()->chosenGrad();
    QVERIFY(!g.ok);
    QVERIFY(g.failed_select >= 0);
    QVERIFY(g.failed_node >= 0);
    auto p = w.session()->program();
    QCOMPARE(p->nodes[static_cast<std::size_t>(g.failed_select)].op, Op::Select);
    QCOMPARE(p->nodes[static_cast<std::size_t>(g.failed_node)].op, Op::FloorDiv);
    // Problems lists it with the jump term and the untaken branch's value.
    QTreeWidgetItem* problem = nullptr;
    for (int i = 0; i < w.problems()->topLevelItemCount(); ++i)
      if (w.problems()->topLevelItem(i)->text(2).contains(QStringLiteral("did not choose"))) problem = w.problems()->topLevelItem(i);
    QVERIFY(problem);
    const QString text = problem->text(2);
    QVERIFY2(text.contains(QStringLiteral("jump term (yes - no) * surrogate'")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("undefined (not taken)")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("= 3 (taken)")), qPrintable(text));  // x / (y + 1) = 3
    // The inspector marks both nodes instead of leaving the column blank.
    auto* m = w.inspector()->model();
    QCOMPARE(m->data(m->index(g.failed_select, InspectorModel::ChosenGrad), Qt::DisplayRole).toString(), QStringLiteral("fails"));
    QCOMPARE(m->data(m->index(g.failed_node, InspectorModel::ChosenGrad), Qt::DisplayRole).toString(), QStringLiteral("fails"));
    // Clicking the problem selects the select and puts the cursor on its line.
    const QRect r = w.problems()->visualItemRect(problem);
    QTest::mouseClick(w.problems()->viewport(), Qt::LeftButton, {}, r.center());
    QCOMPARE(w.session()->selected(), g.failed_select);
    // Exact semantics has no jump term: no problem.
    auto* box = w.inspector()->semanticsBox();
    box->setCurrentIndex(box->findData(static_cast<int>(Semantics::Exact)));
    QVERIFY(w.waitUntilSettled(30000));
    for (int i = 0; i < w.problems()->topLevelItemCount(); ++i)
      QVERIFY(!w.problems()->topLevelItem(i)->text(2).contains(QStringLiteral("did not choose")));
    // One semantics label: the IR header says what the inspector says.
    QVERIFY2(w.irText()->document()->firstBlock().text().startsWith(QStringLiteral("; semantics exact")),
             qPrintable(w.irText()->document()->firstBlock().text()));
    box->setCurrentIndex(box->findData(static_cast<int>(Semantics::Hybrid)));
    QVERIFY(w.waitUntilSettled(30000));
    QVERIFY2(w.irText()->document()->firstBlock().text().startsWith(QStringLiteral("; semantics hybrid")),
             qPrintable(w.irText()->document()->firstBlock().text()));
  }

  void brokenSourceGreysTheOldCircuit() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("choose.py"));
    QVERIFY(QFile::copy(data("choose.py"), path));
    MainWindow w;
    w.show();
    QVERIFY(w.openPath(path));
    QVERIFY(w.waitUntilSettled(30000));
    w.session()->setDebounceMs(30);
    QVERIFY(!w.graph()->outOfDate());
    QVERIFY(w.inspector()->isEnabled());
    typeAtEnd(w.editor(), QStringLiteral(" +"));
    QVERIFY(w.waitUntilSettled(30000));
    QVERIFY(w.graph()->outOfDate());
    QVERIFY(!w.inspector()->isEnabled());
    QVERIFY(!w.irText()->isEnabled());
    // The caret no longer tints nodes by line numbers of the old circuit.
    w.editor()->setCursorPosition(2, 2);
    QTest::qWait(50);
    QVERIFY(w.session()->highlighted().empty());
    const int last = w.editor()->lines() - 1;
    w.editor()->setCursorPosition(last, w.editor()->text(last).size());
    QTest::keyClick(w.editor(), Qt::Key_Backspace);
    QTest::keyClick(w.editor(), Qt::Key_Backspace);
    QVERIFY(w.waitUntilSettled(30000));
    QVERIFY(!w.graph()->outOfDate());
    QVERIFY(w.inspector()->isEnabled());
  }

  // Issue 38 item 1: an artifact that fails to load replaces nothing: the
  // title, the program, the export name and what an export writes stay the
  // open document's.
  void aFailedOpenLeavesTheOpenDocumentAndItsExports() {
    MainWindow w;
    w.show();
    QVERIFY(w.openPath(data("choose.py")));
    QVERIFY(w.waitUntilSettled(30000));
    const QString title = w.windowTitle();
    const auto program = w.session()->program();
    QVERIFY(program);
    const QString exportPath = w.defaultExportPath(QStringLiteral("artifact"));
    QTemporaryDir dir;
    const QString empty = dir.filePath(QStringLiteral("empty.json"));
    QFile f(empty);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.close();
    QVERIFY(w.openPath(empty));
    QVERIFY(w.waitUntilSettled(30000));
    QCOMPARE(w.windowTitle(), title);
    QCOMPARE(w.session()->program(), program);
    QVERIFY(!w.session()->readOnly());
    QCOMPARE(w.defaultExportPath(QStringLiteral("artifact")), exportPath);
    QVERIFY2(w.lastWarning().contains(QStringLiteral("empty.json")), qPrintable(w.lastWarning()));
    QVERIFY2(w.lastWarning().contains(QStringLiteral("unchanged")), qPrintable(w.lastWarning()));
    QVERIFY(w.session()->upToDate());
    // What an export writes is still choose.py's circuit.
    const QString out = dir.filePath(QStringLiteral("out.json"));
    QString err, done;
    QVERIFY2(w.exportTo(QStringLiteral("artifact"), out, &err, [&done](const QString& e) { done = e; }), qPrintable(err));
    QVERIFY(w.waitUntilSettled(30000));
    QTRY_VERIFY_WITH_TIMEOUT(QFileInfo::exists(out), 10000);
    QFile written(out);
    QVERIFY(written.open(QIODevice::ReadOnly));
    QCOMPARE(QString::fromStdString(export_artifact(*program).value()).toUtf8(), written.readAll());
    // A good artifact afterwards does replace the document.
    QVERIFY(w.openPath(example("counter.json")));
    QVERIFY(w.waitUntilSettled(30000));
    QVERIFY(w.session()->readOnly());
    QVERIFY(w.session()->program() != program);
    QVERIFY2(w.windowTitle().contains(QStringLiteral("counter.json")), qPrintable(w.windowTitle()));
  }

  // Issue 38 item 3: what belonged to one file does not carry over to the
  // next: the comparison, Verify's reference, cases file and results, the
  // node search.
  void openingAnotherFileDropsWhatBelongedToTheFirst() {
    MainWindow w;
    w.show();
    QVERIFY(w.openPath(example("gated.json")));
    QVERIFY(w.waitUntilSettled(30000));
    QString err;
    QVERIFY2(w.comparison()->compareWithFile(example("gated.json"), &err), qPrintable(err));
    QVERIFY(w.waitUntilSettled(30000));
    QVERIFY(w.comparison()->active());
    VerifyPanel* verify = w.findChild<VerifyPanel*>();
    QVERIFY(verify);
    QTest::keyClicks(verify->referenceEdit(), QStringLiteral("reference.py"));
    QTest::keyClicks(verify->casesEdit(), QStringLiteral("cases.jsonl"));
    QTest::keyClicks(w.nodeSearchEdit(), QStringLiteral("mul"));
    QTest::keyClick(w.nodeSearchEdit(), Qt::Key_Return);
    QVERIFY(!w.graph()->searchResults().empty());
    QVERIFY(w.openPath(data("choose.py")));
    QVERIFY(w.waitUntilSettled(30000));
    QVERIFY(!w.comparison()->active());
    QCOMPARE(verify->referenceEdit()->text(), QString());
    QCOMPARE(verify->casesEdit()->text(), QString());
    QCOMPARE(w.nodeSearchEdit()->text(), QString());
    QCOMPARE(w.nodeSearchCount()->text(), QString());
    QVERIFY(w.graph()->searchResults().empty());
    // A compile of the same file (an edit) keeps the comparison.
    QVERIFY2(w.comparison()->compareWithFile(example("gated.json"), &err), qPrintable(err));
    QVERIFY(w.waitUntilSettled(30000));
    QVERIFY(w.comparison()->active());
    w.session()->compileNow();
    QVERIFY(w.waitUntilSettled(30000));
    QVERIFY(w.comparison()->active());
  }

  // Issue 38 item 7: the caret line's nodes are tinted only while the source
  // is the compiled one (its line numbers are the circuit's).
  void theCaretTintWaitsForTheSourceToCatchUp() {
    MainWindow w;
    w.show();
    QVERIFY(w.openPath(data("choose.py")));
    QVERIFY(w.waitUntilSettled(30000));
    w.session()->setDebounceMs(30);
    SourceEditor* ed = w.editor();
    ed->setFocus();
    ed->setCursorPosition(2, 30);  // line 3: return 10 if a > 4 else 12
    QTRY_VERIFY_WITH_TIMEOUT(!w.session()->highlighted().empty(), 5000);
    QTest::keyClick(ed, Qt::Key_End);
    QTest::keyClick(ed, Qt::Key_Space);  // out of date until the compile
    QVERIFY(!w.session()->upToDate());
    QVERIFY(w.session()->highlighted().empty());
    QVERIFY(w.waitUntilSettled(30000));
    QTRY_VERIFY_WITH_TIMEOUT(w.session()->upToDate(), 5000);
    QTRY_VERIFY_WITH_TIMEOUT(!w.session()->highlighted().empty(), 5000);
    QTest::keyClicks(ed, QStringLiteral(" +"));  // a syntax error: no tint while it lasts
    QVERIFY(w.waitUntilSettled(30000));
    QTRY_VERIFY_WITH_TIMEOUT(w.session()->compileFailed(), 5000);
    QVERIFY(w.session()->highlighted().empty());
  }

  // Issue 38 item 4: a binary .py is refused before it replaces anything; a
  // source that does not compile shows no circuit of the previous file.
  void aSourceThatFailsOnOpenShowsNoOtherFilesCircuit() {
    MainWindow w;
    w.show();
    QVERIFY(w.openPath(data("choose.py")));
    QVERIFY(w.waitUntilSettled(30000));
    const auto program = w.session()->program();
    const QString title = w.windowTitle();
    QTemporaryDir dir;
    const QString binary = dir.filePath(QStringLiteral("binary.py"));
    QFile b(binary);
    QVERIFY(b.open(QIODevice::WriteOnly));
    b.write(QByteArray("def f(x):\n    return x\n\0\x01\x02garbage", 32));
    b.close();
    QVERIFY(!w.openPath(binary));
    QVERIFY2(w.lastWarning().contains(QStringLiteral("not a text file")), qPrintable(w.lastWarning()));
    QCOMPARE(w.windowTitle(), title);
    QCOMPARE(w.session()->program(), program);
    const QString broken = dir.filePath(QStringLiteral("broken.py"));
    QFile k(broken);
    QVERIFY(k.open(QIODevice::WriteOnly));
    k.write("def f(x:\n    return x\n");
    k.close();
    QVERIFY(w.openPath(broken));
    QVERIFY(w.waitUntilSettled(30000));
    QVERIFY(w.session()->compileFailed());
    QVERIFY(!w.session()->program());
    QVERIFY2(w.graph()->placeholderText().contains(QStringLiteral("does not compile")), qPrintable(w.graph()->placeholderText()));
    QVERIFY2(w.windowTitle().contains(QStringLiteral("broken.py")), qPrintable(w.windowTitle()));
  }

  // Issue 38 polish: Save As on an untitled source proposes a name (its function's).
  void saveAsProposesANameForAnUntitledSource() {
    MainWindow w;
    w.show();
    w.session()->newDocument(QStringLiteral("def area(w, h):\n    return w * h\n"));
    QVERIFY(w.waitUntilSettled(30000));
    QCOMPARE(w.session()->function(), QStringLiteral("area"));
    QString proposed;
    answerNextModal<QFileDialog>([&proposed](QFileDialog* d) {
      if (auto* name = d->findChild<QLineEdit*>(QStringLiteral("fileNameEdit"))) proposed = name->text();
      d->reject();
    });
    QAction* saveAs = findAction(&w, QString::fromUtf8("Save &As\u2026"));
    QVERIFY(saveAs);
    saveAs->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(!proposed.isEmpty(), 5000);
    QCOMPARE(proposed, QStringLiteral("area.py"));
  }

  // Issue 38 polish: a compile error brings the Problems tab forward.
  void aCompileErrorBringsProblemsForward() {
    MainWindow w;
    w.resize(1280, 800);
    w.show();
    QVERIFY(w.openPath(data("choose.py")));
    QVERIFY(w.waitUntilSettled(30000));
    w.session()->setDebounceMs(30);
    auto* problems = w.findChild<QDockWidget*>(QStringLiteral("ProblemsDock"));
    auto* verify = w.findChild<QDockWidget*>(QStringLiteral("VerifyDock"));
    QVERIFY(problems && verify);
    verify->raise();
    QTRY_VERIFY_WITH_TIMEOUT(problems->visibleRegion().isEmpty(), 5000);
    SourceEditor* ed = w.editor();
    ed->setFocus();
    ed->setCursorPosition(2, 0);
    QTest::keyClicks(ed, QStringLiteral("    x = ("));
    QTest::keyClick(ed, Qt::Key_Return);
    QVERIFY(w.waitUntilSettled(30000));
    QTRY_VERIFY_WITH_TIMEOUT(w.session()->compileFailed(), 10000);
    QTRY_VERIFY_WITH_TIMEOUT(!problems->visibleRegion().isEmpty(), 5000);
  }

  void aMissingFileGetsADialog() {
    MainWindow w;
    w.show();
    QVERIFY(!w.openPath(QStringLiteral("/nonexistent/missing.py")));
    QVERIFY(w.lastWarning().contains(QStringLiteral("missing.py")));
    QTemporaryDir dir;
    const QString corrupt = dir.filePath(QStringLiteral("corrupt.json"));
    QFile f(corrupt);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("{ not json");
    f.close();
    QVERIFY(w.openPath(corrupt));
    QVERIFY(w.waitUntilSettled(30000));
    QVERIFY2(w.lastWarning().contains(QStringLiteral("corrupt.json")), qPrintable(w.lastWarning()));
  }
};

QTEST_MAIN(JourneysTest)
#include "journeys_test.moc"
