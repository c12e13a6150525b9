// Issue 24's journeys about who owns the current function, its case values
// and the replay position (items 1, 2 and 6), driven through the real
// widgets with QTest key and mouse events offscreen: switching the function
// runs the chosen one with its own inputs, a named case is written only on
// Save and a stale or foreign cases file never breaks a program, and a
// snapshot restored without an event log shows the same state in every panel.
#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QFile>
#include <QInputDialog>
#include <QDockWidget>
#include <QLabel>
#include <QListView>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSlider>
#include <QStatusBar>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>

#include <cmath>

#include "views/editor.h"
#include "views/graph_view.h"
#include "views/main_window.h"
#include "views/panels.h"
#include "views/timeline.h"
#include "widget_actions.h"

using namespace tc;
using namespace tc::views;
using namespace tc::views::testing;

namespace {

/// The second function of the journey: acc(2) = 2 * (0 + 1 + ... + 7) = 56.
const QStringList kAcc = {QStringLiteral("def acc(x):"), QStringLiteral("    s = 0"),
                          QStringLiteral("    for i in range(8):"), QStringLiteral("        s = s + x * i"),
                          QStringLiteral("    return s")};

QComboBox* functionBox(MainWindow& w) {
  for (QComboBox* box : w.inputs()->findChildren<QComboBox*>())
    if (box != w.inputs()->caseBox()) return box;
  return nullptr;
}

/// Problems (warnings and errors) of the compile and the case, as text.
QStringList problemsOf(MainWindow& w) {
  QStringList out;
  for (const auto& d : w.session()->diagnostics())
    if (d.severity != Severity::Note) out << QString::fromStdString(d.format());
  for (const auto& d : w.session()->caseProblems())
    if (d.severity != Severity::Note) out << QString::fromStdString(d.format());
  return out;
}

QStringList notesOf(MainWindow& w) {
  QStringList out;
  for (const auto& d : w.session()->caseProblems())
    if (d.severity == Severity::Note) out << QString::fromStdString(d.message);
  return out;
}

bool statusLabelSays(MainWindow& w, const QString& text) {
  for (QLabel* l : w.statusBar()->findChildren<QLabel*>())
    if (l->text() == text) return true;
  return false;
}

void answerNextInputDialog(const QString& text) {
  answerNextModal<QInputDialog>([text](QInputDialog* d) {
    d->setTextValue(text);
    d->accept();
  });
}

}  // namespace

class SingleOwnerTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    useOwnSettings(QStringLiteral("tensorcode-ide-single-owner"));
  }

  // Item 1: the Function box picks the function every run uses, with its own inputs.
  void switchingFunctionRunsTheChosenOne() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("choose.py"));
    QVERIFY(QFile::copy(data("choose.py"), path));
    MainWindow w;
    showAndOpen(w, path);
    typeIntoCell(w.inputs()->table(), w.inputs()->rowOf(QStringLiteral("a")), 4, QStringLiteral("7"));
    QVERIFY(w.waitUntilSettled(30000));
    QCOMPARE(w.session()->exactRun().outputs.at(0), 10.0);
    typeLinesAtEnd(w.editor(), kAcc);
    QVERIFY(w.waitUntilSettled(30000));
    QVERIFY2(!w.session()->compileFailed(), qPrintable(w.editor()->text()));
    QComboBox* fn = functionBox(w);
    QVERIFY(fn && fn->isEnabled());
    QCOMPARE(fn->count(), 2);
    // Pick acc with the keyboard, as a user does.
    fn->setFocus();
    QTest::keyClick(fn, Qt::Key_Down);
    QVERIFY(w.waitUntilSettled(30000));
    QCOMPARE(w.session()->function(), QStringLiteral("acc"));
    QCOMPARE(w.inputs()->table()->rowCount(), 1);
    typeIntoCell(w.inputs()->table(), w.inputs()->rowOf(QStringLiteral("x")), 4, QStringLiteral("2"));
    QVERIFY(w.waitUntilSettled(30000));
    QVERIFY2(w.session()->exactRun().ok, w.session()->exactRun().error ? w.session()->exactRun().error->message.c_str() : "");
    QCOMPARE(w.session()->exactRun().outputs.at(0), 56.0);
    QVERIFY2(problemsOf(w).isEmpty(), qPrintable(problemsOf(w).join(QLatin1Char('\n'))));
    bool shown = false;
    for (QLabel* l : w.statusBar()->findChildren<QLabel*>()) shown = shown || l->text().endsWith(QStringLiteral(" = 56"));
    QVERIFY(shown);
    // F5 runs the same again.
    QTest::keyClick(&w, Qt::Key_F5);
    QVERIFY(w.waitUntilSettled(30000));
    QVERIFY(w.session()->exactRun().ok);
    QCOMPARE(w.session()->exactRun().outputs.at(0), 56.0);
    // Back to choose: its a=7 was kept for it.
    fn->setFocus();
    QTest::keyClick(fn, Qt::Key_Up);
    QVERIFY(w.waitUntilSettled(30000));
    QCOMPARE(w.session()->function(), QStringLiteral("choose"));
    QVERIFY(w.session()->exactRun().ok);
    QCOMPARE(w.session()->currentCase().at("a"), 7.0);
    QCOMPARE(w.session()->exactRun().outputs.at(0), 10.0);
    QVERIFY(!w.session()->currentCase().count("x"));  // the case run holds the function's inputs only
  }

  // Item 2: nothing is written before Save; a Discard on quit leaves no cases file.
  void aNamedCaseIsWrittenOnlyOnSave() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("choose.py"));
    const QString cases = path + QStringLiteral(".cases.json");
    QVERIFY(QFile::copy(data("choose.py"), path));
    {
      MainWindow w;
      showAndOpen(w, path);
      typeIntoCell(w.inputs()->table(), 0, 4, QStringLiteral("7"));
      QVERIFY(w.waitUntilSettled(30000));
      answerNextInputDialog(QStringLiteral("seven"));
      QTest::mouseClick(w.inputs()->addCaseButton(), Qt::LeftButton);
      QCOMPARE(w.session()->caseNames().size(), 2);
      QVERIFY(!QFile::exists(cases));
      QVERIFY2(w.windowTitle().startsWith(QStringLiteral("choose.py*")), qPrintable(w.windowTitle()));
      // Quit and discard: still nothing beside the file.
      bool asked = false;
      answerNextModal<QMessageBox>([&asked](QMessageBox* b) {
        asked = true;
        b->button(QMessageBox::Discard)->click();
      });
      QAction* quit = findAction(&w, QStringLiteral("&Quit"));
      QVERIFY(quit);
      pressKeys(w.editor(), quit->shortcut());
      QTRY_VERIFY_WITH_TIMEOUT(asked, 6000);
      QTRY_VERIFY_WITH_TIMEOUT(!w.isVisible(), 6000);
      QVERIFY(!QFile::exists(cases));
    }
    {
      // Save writes it.
      MainWindow w;
      showAndOpen(w, path);
      typeIntoCell(w.inputs()->table(), 0, 4, QStringLiteral("7"));
      QVERIFY(w.waitUntilSettled(30000));
      answerNextInputDialog(QStringLiteral("seven"));
      QTest::mouseClick(w.inputs()->addCaseButton(), Qt::LeftButton);
      QVERIFY(!QFile::exists(cases));
      pressKeys(w.editor(), QKeySequence::Save);
      QVERIFY(QFile::exists(cases));
      QVERIFY2(!w.windowTitle().contains(QLatin1Char('*')), qPrintable(w.windowTitle()));
    }
    MainWindow w;
    showAndOpen(w, path);
    QCOMPARE(w.session()->caseNames(), (QStringList{QStringLiteral("default"), QStringLiteral("seven")}));
    QCOMPARE(w.session()->currentCase().at("a"), 7.0);
  }

  // Item 2: a stale or foreign cases file: unknown inputs are ignored with a note.
  void aForeignCasesFileNeverBreaksTheProgram() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("choose.py"));
    QVERIFY(QFile::copy(data("choose.py"), path));
    const QByteArray foreign = R"({"cases": [{"name": "default", "inputs": {"a": 7, "x": 2}}]})";
    {
      QFile f(path + QStringLiteral(".cases.json"));
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write(foreign);
    }
    MainWindow w;
    showAndOpen(w, path);
    QVERIFY2(w.session()->exactRun().ok, w.session()->exactRun().error ? w.session()->exactRun().error->message.c_str() : "");
    QCOMPARE(w.session()->exactRun().outputs.at(0), 10.0);  // a = 7 from the file
    QVERIFY2(problemsOf(w).isEmpty(), qPrintable(problemsOf(w).join(QLatin1Char('\n'))));
    const QStringList notes = notesOf(w);
    QCOMPARE(notes.size(), 1);
    QVERIFY2(notes.first().contains(QStringLiteral("'x'")) && notes.first().contains(QStringLiteral("ignored")),
             qPrintable(notes.first()));
    // Every node has the value of the case a=7 alone (no node "not computed" by the stray x).
    const auto& values = w.session()->displayValues();
    ProgramSession fresh(*w.session()->program());  // a session of its own: a copy of the program
    RunResult alone = run_case(fresh, Case{{"a", 7.0}}, Semantics::Exact, 1.0);
    QVERIFY(alone.ok);
    fill_known_values(*w.session()->program(), {}, alone.trace.values);
    QCOMPARE(values.size(), alone.trace.values.size());
    for (std::size_t i = 0; i < values.size(); ++i)
      QVERIFY2(std::isnan(values[i]) == std::isnan(alone.trace.values[i]) &&
                   (std::isnan(values[i]) || values[i] == alone.trace.values[i]),
               qPrintable(QStringLiteral("node %1 of %2").arg(i).arg(values.size())));
    // Opening and running wrote nothing.
    QFile f(path + QStringLiteral(".cases.json"));
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(f.readAll(), foreign);
  }

  // Item 6: a snapshot restored with no event log: every panel shows its state.
  void aSnapshotWithoutALogAgreesInEveryPanel() {
    QTemporaryDir dir;
    const QString snap = dir.filePath(QStringLiteral("step3.json"));
    QString err;
    {
      MainWindow w0;
      showAndOpen(w0, example("counter.json"));
      QVERIFY(w0.session()->loadEvents(example("counter_events.jsonl"), &err));
      QVERIFY(w0.waitUntilSettled(30000));
      for (int i = 0; i < 3; ++i) QTest::keyClick(&w0, Qt::Key_F10);
      QCOMPARE(w0.session()->step(), 3);
      QSignalSpy saved(w0.session(), &Session::snapshotSaved);
      QVERIFY(w0.session()->saveSnapshot(snap, &err));
      QVERIFY(saved.wait(30000));
    }
    MainWindow w;
    showAndOpen(w, example("counter.json"));
    const NodeId count = *w.session()->program()->find_named(Op::State, "count");
    w.session()->select(count);
    QVERIFY(w.session()->restoreSnapshot(snap, &err));
    QVERIFY(w.waitUntilSettled(30000));
    QCOMPARE(w.timeline()->shownValue(QStringLiteral("state count")), 2.0);
    // The circuit and the Inspector show the restored state, not the program's initial 0.
    QCOMPARE(w.session()->displayValues().at(static_cast<std::size_t>(count)), 2.0);
    QCOMPARE(w.inspector()->model()->data(w.inspector()->model()->index(count, InspectorModel::Value), Qt::DisplayRole).toString(),
             QStringLiteral("2"));
    // Outputs: result = count (the old state) = 2.
    QCOMPARE(w.session()->displayOutputs().at(0), 2.0);
    QVERIFY(statusLabelSays(w, QStringLiteral("result = 2")));
    // The slider sits at the snapshot's step, the right end of "step 3 of 3".
    QSlider* slider = w.timeline()->scrubber();
    QVERIFY(slider->maximum() > 0);
    QCOMPARE(slider->value(), slider->maximum());
    // Opening the log continues from step 3, and the status bar says so.
    QVERIFY(w.session()->loadEvents(example("counter_events.jsonl"), &err));
    QVERIFY(w.waitUntilSettled(30000));
    const QString message = w.statusBar()->currentMessage();
    QVERIFY2(message.contains(QStringLiteral("step 3")) && !message.contains(QStringLiteral("step 0")), qPrintable(message));
    QCOMPARE(slider->value(), 3);
    QTest::keyClick(&w, Qt::Key_F10);
    QCOMPARE(w.session()->snapshotBase() + w.session()->step(), 4);
    QCOMPARE(slider->value(), 4);
    QCOMPARE(w.timeline()->shownValue(QStringLiteral("state count (after)")), 3.0);
  }

  // Item 11: the plot labels the step's two states, like the table and the Inspector.
  void theTimelinePlotLabelsBeforeAndAfter() {
    MainWindow w;
    showAndOpen(w, example("counter.json"));
    QString err;
    QVERIFY(w.session()->loadEvents(example("counter_events.jsonl"), &err));
    QVERIFY(w.waitUntilSettled(30000));
    for (int i = 0; i < 4; ++i) QTest::keyClick(&w, Qt::Key_F10);
    QCOMPARE(w.session()->step(), 4);
    const QStringList legend = w.timeline()->plotLegend();
    QVERIFY2(legend.contains(QStringLiteral("count (after each step)")), qPrintable(legend.join(QLatin1Char('|'))));
    QVERIFY2(legend.contains(QStringLiteral("after (step 4)")), qPrintable(legend.join(QLatin1Char('|'))));
    QVERIFY2(legend.contains(QStringLiteral("before (step 4)")), qPrintable(legend.join(QLatin1Char('|'))));
    QVERIFY(!legend.contains(QStringLiteral("count")));  // no bare name
    // At step 0 there is only the starting state.
    w.session()->setStep(0);
    QVERIFY(!w.timeline()->plotLegend().contains(QStringLiteral("before (step 0)")));
  }

  // Time travel (issue 24, a debugger's habits): with the state node picked
  // in the circuit by a click, Ctrl+Shift+F10 goes back to the last step
  // where its value changed (rr's reverse-continue), Ctrl+F10 forward; a
  // click on a row of the event list beside the timeline goes to its step.
  void previousChangeAndTheEventListTravelInTime() {
    MainWindow w;
    showAndOpen(w, example("counter.json"));
    QString err;
    QVERIFY(w.session()->loadEvents(example("counter_events.jsonl"), &err));
    QVERIFY(w.waitUntilSettled(30000));
    if (auto* dock = w.findChild<QDockWidget*>(QStringLiteral("TimelineDock"))) dock->raise();
    QListView* list = w.timeline()->eventList();
    QVERIFY(list);
    QCOMPARE(list->model()->rowCount(), 6);  // the start and the five events
    QTRY_VERIFY(list->isVisible());
    const QModelIndex last = list->model()->index(5, 0);
    list->scrollTo(last);
    QTest::mouseClick(list->viewport(), Qt::LeftButton, {}, list->visualRect(last).center());
    QCOMPARE(w.session()->step(), 5);
    const NodeId count = *w.session()->program()->find_named(Op::State, "count");
    QVERIFY(w.waitUntilSettled(30000));
    const QPoint at = w.graph()->nodeViewPos(count).toPoint();
    QVERIFY(w.graph()->rect().contains(at));
    QTest::mouseClick(w.graph(), Qt::LeftButton, {}, at);
    QCOMPARE(w.session()->selected(), count);
    // The state each event saw: 0 1 2 2 3, so it changed at steps 2, 3 and 5.
    const auto back = Qt::ControlModifier | Qt::ShiftModifier;
    QTest::keyClick(&w, Qt::Key_F10, back);
    QCOMPARE(w.session()->step(), 3);
    QCOMPARE(list->currentIndex().row(), 3);  // the list follows the step
    QTest::keyClick(&w, Qt::Key_F10, back);
    QCOMPARE(w.session()->step(), 2);
    QTest::keyClick(&w, Qt::Key_F10, back);
    QCOMPARE(w.session()->step(), 2);  // no earlier change: stays, and says so
    QVERIFY2(w.statusBar()->currentMessage().contains(QStringLiteral("before this step")), qPrintable(w.statusBar()->currentMessage()));
    QTest::keyClick(&w, Qt::Key_F10, Qt::ControlModifier);
    QCOMPARE(w.session()->step(), 3);
    QTest::keyClick(&w, Qt::Key_F10, Qt::ControlModifier);
    QCOMPARE(w.session()->step(), 5);
    // Row 0 is the starting state.
    const QModelIndex start = list->model()->index(0, 0);
    list->scrollTo(start);
    QTest::mouseClick(list->viewport(), Qt::LeftButton, {}, list->visualRect(start).center());
    QCOMPARE(w.session()->step(), 0);
    QVERIFY2(list->model()->data(start).toString().contains(QStringLiteral("count=0")), qPrintable(list->model()->data(start).toString()));
  }
};

QTEST_MAIN(SingleOwnerTest)
#include "single_owner_test.moc"
