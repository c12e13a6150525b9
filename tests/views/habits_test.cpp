// Keyboard and dialog habits of issue 24 (items 3, 4, 5, 13 and 14, in part),
// driven through the real widgets with QTest key and mouse events offscreen:
// the editor gives the IDE's shortcuts to the IDE (Ctrl+L is Go to Line,
// Ctrl+Shift+S is Save As), Shift+F6 cancels only a running verify, the IR
// text keeps its horizontal position, the two gradient headers differ, the
// quit prompt names the file, Open starts in the file's folder, a refused
// verify resets the progress bar and Backspace removes one indent level.
#include <QAbstractItemModel>
#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QLabel>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollBar>
#include <QSettings>
#include <QSpinBox>
#include <QStatusBar>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <Qsci/qscicommandset.h>

#include <cmath>
#include <functional>
#include <memory>

#include "verify/python_reference.h"
#include "views/editor.h"
#include "views/graph_view.h"
#include "views/main_window.h"
#include "views/panels.h"
#include "views/verify_panel.h"
#include "widget_actions.h"

using namespace tc;
using namespace tc::views;
using namespace tc::views::testing;

namespace {

struct Opened {
  QTemporaryDir dir;
  QString path;
};

/// A MainWindow with a fresh copy of choose.py open, shown and active.
void openChoose(MainWindow& w, Opened& o) {
  o.path = o.dir.filePath(QStringLiteral("choose.py"));
  QVERIFY(QFile::copy(data("choose.py"), o.path));
  w.resize(1280, 800);
  w.show();
  QApplication::setActiveWindow(&w);
  QVERIFY(QTest::qWaitForWindowExposed(&w));
  QVERIFY(w.openPath(o.path));
  QVERIFY(w.waitUntilSettled(30000));
  w.session()->setDebounceMs(30);
}

QProgressBar* verifyProgress(MainWindow& w) { return w.verifyPanel()->findChild<QProgressBar*>(); }

/// F6 from the window, then waits for the verify to finish.
void verifyByKey(MainWindow& w) {
  QTest::keyClick(&w, Qt::Key_F6);
  QVERIFY(w.waitUntilSettled(60000));
}

}  // namespace

class HabitsTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    useOwnSettings(QStringLiteral("tensorcode-ide-habits"));
  }

  // Item 3: no QScintilla default key shadows an IDE shortcut; Ctrl+L typed in
  // the editor opens Go to Line and leaves the text alone.
  void ctrlLInTheEditorOpensGoToLine() {
    MainWindow w;
    Opened o;
    openChoose(w, o);
    SourceEditor* ed = w.editor();
    for (QAction* a : w.findChildren<QAction*>())
      for (const QKeySequence& k : a->shortcuts())
        for (int i = 0; i < k.count(); ++i)
          if (QsciCommand* c = ed->standardCommands()->boundTo(k[i].toCombined()))
            QFAIL(qPrintable(QStringLiteral("%1 (%2) is taken by the editor's %3").arg(k.toString(), a->text(), c->description())));
    ed->setFocus();
    ed->setCursorPosition(2, 4);
    const QString before = ed->text();
    QTest::keyClick(ed, Qt::Key_L, Qt::ControlModifier);
    QCOMPARE(ed->text(), before);
    auto* box = w.findChild<QInputDialog*>(QStringLiteral("GoToLineDialog"));
    QVERIFY(box);
    QTRY_VERIFY(box->isVisible());
    auto* spin = box->findChild<QSpinBox*>();
    QVERIFY(spin);
    spin->setFocus();
    spin->selectAll();
    QTest::keyClicks(spin, QStringLiteral("1"));
    QTest::keyClick(spin, Qt::Key_Return);
    int line = -1, col = -1;
    ed->getCursorPosition(&line, &col);
    QCOMPARE(line, 0);
    QCOMPARE(ed->text(), before);
  }

  // Item 4: Ctrl+Shift+S opens Save As from the editor and from the circuit,
  // and the menu shows the shortcut.
  void ctrlShiftSOpensSaveAsFromEditorAndCircuit() {
    MainWindow w;
    Opened o;
    openChoose(w, o);
    QAction* saveAs = findAction(&w, QStringLiteral("Save &As…"));
    QVERIFY(saveAs);
    QCOMPARE(saveAs->shortcut(), QKeySequence(QStringLiteral("Ctrl+Shift+S")));
    for (QWidget* target : {static_cast<QWidget*>(w.editor()), static_cast<QWidget*>(w.graph())}) {
      QString title;
      answerNextModal<QFileDialog>([&title](QFileDialog* d) {
        title = d->windowTitle();
        d->reject();
      });
      target->setFocus();
      QTest::keyClick(target, Qt::Key_S, Qt::ControlModifier | Qt::ShiftModifier);
      QTRY_COMPARE_WITH_TIMEOUT(title, QStringLiteral("Save source"), 6000);
      // The closed dialog leaves no active window offscreen: give it back.
      QApplication::setActiveWindow(&w);
    }
  }

  // Item 5: Shift+F6 after a finished verify leaves its result alone.
  void shiftF6AfterAFinishedVerifyKeepsTheResult() {
    MainWindow w;
    Opened o;
    openChoose(w, o);
    verifyByKey(w);
    if (!python_reference_available()) QSKIP("this build has no CPython reference");
    const QString passed = w.verifyPanel()->summary();
    QVERIFY2(passed.contains(QStringLiteral("passed")), qPrintable(passed));
    QTest::keyClick(&w, Qt::Key_F6, Qt::ShiftModifier);
    QVERIFY(w.waitUntilSettled(30000));
    QCOMPARE(w.verifyPanel()->summary(), passed);
    QVERIFY(w.verifyPanel()->runButton()->isEnabled());
  }

  // Item 13: the IR text opens at the left and a recompile keeps the user's
  // horizontal position.
  void irTextKeepsItsHorizontalPosition() {
    MainWindow w;
    Opened o;
    openChoose(w, o);
    w.raiseDock(QStringLiteral("IrDock"));
    QPlainTextEdit* ir = w.irText();
    QScrollBar* h = ir->horizontalScrollBar();
    QTRY_VERIFY(h->maximum() > 0);
    QCOMPARE(h->value(), 0);
    // The user scrolls a little to the right: three clicks on the scroll bar's right arrow.
    QVERIFY(h->isVisible());
    for (int i = 0; i < 3; ++i) QTest::mouseClick(h, Qt::LeftButton, {}, QPoint(h->width() - 4, h->height() / 2));
    const int kept = h->value();
    QVERIFY2(kept > 0 && kept < h->maximum(), qPrintable(QStringLiteral("%1 of %2").arg(kept).arg(h->maximum())));
    // An edit recompiles and reloads the IR text: "else 12" becomes "else 123".
    SourceEditor* ed = w.editor();
    ed->setFocus();
    ed->setCursorPosition(2, ed->text(2).indexOf(QStringLiteral("12")) + 2);
    QTest::keyClicks(ed, QStringLiteral("3"));
    QVERIFY(w.waitUntilSettled(30000));
    QVERIFY(ir->toPlainText().contains(QStringLiteral("123")));
    QCOMPARE(h->value(), kept);
  }

  // Item 13: in exact mode the two gradient columns are told apart.
  void exactModeLabelsTheGradientColumnsDistinctly() {
    MainWindow w;
    Opened o;
    openChoose(w, o);
    auto* box = w.inspector()->semanticsBox();
    box->setFocus();
    const int exact = box->findData(static_cast<int>(Semantics::Exact));
    while (box->currentIndex() != exact) {
      const int at = box->currentIndex();
      QTest::keyClick(box, at < exact ? Qt::Key_Down : Qt::Key_Up);
      QVERIFY(box->currentIndex() != at);
    }
    QVERIFY(w.waitUntilSettled(30000));
    auto* m = w.inspector()->model();
    const QString g1 = m->headerData(InspectorModel::ExactGrad, Qt::Horizontal, Qt::DisplayRole).toString();
    const QString g2 = m->headerData(InspectorModel::ChosenGrad, Qt::Horizontal, Qt::DisplayRole).toString();
    QVERIFY2(g1 != g2, qPrintable(g1));
    QVERIFY2(g2.contains(QStringLiteral("exact")), qPrintable(g2));
  }

  // Item 14: the quit prompt names the file, not the window title.
  void quitPromptNamesTheFile() {
    MainWindow w;
    Opened o;
    openChoose(w, o);
    typeAtEnd(w.editor(), QStringLiteral(" "));
    QVERIFY(w.waitUntilSettled(30000));
    QString text;
    answerNextModal<QMessageBox>([&text](QMessageBox* b) {
      text = b->text();
      b->button(QMessageBox::Cancel)->click();
    });
    QAction* quit = findAction(&w, QStringLiteral("&Quit"));
    QVERIFY(quit && !quit->shortcut().isEmpty());
    w.editor()->setFocus();
    QTest::keySequence(w.editor(), quit->shortcut());
    QTRY_VERIFY_WITH_TIMEOUT(!text.isEmpty(), 6000);
    QCOMPARE(text, QStringLiteral("Save the changes to choose.py?"));
    QVERIFY(w.isVisible());
  }

  // Item 14: Open starts in the current file's folder, and in the last used
  // folder when the document has no file.
  void openDialogStartsInTheFilesFolder() {
    MainWindow w;
    Opened o;
    openChoose(w, o);
    const QString folder = QFileInfo(o.path).absolutePath();
    QVERIFY(folder != QDir::currentPath());
    for (int round = 0; round < 2; ++round) {
      QString start;
      answerNextModal<QFileDialog>([&start](QFileDialog* d) {
        start = d->directory().absolutePath();
        d->reject();
      });
      w.editor()->setFocus();
      QTest::keyClick(w.editor(), Qt::Key_O, Qt::ControlModifier);
      QTRY_VERIFY_WITH_TIMEOUT(!start.isEmpty(), 6000);
      QCOMPARE(start, folder);
      QApplication::setActiveWindow(&w);
      // Round two: File > New (no file), then Open again.
      QTest::keyClick(w.editor(), Qt::Key_N, Qt::ControlModifier);
      QVERIFY(w.waitUntilSettled(30000));
      QVERIFY(w.session()->filePath().isEmpty());
    }
  }

  // Item 14: a verify refused for broken code resets the progress bar.
  void aRefusedVerifyResetsTheProgressBar() {
    MainWindow w;
    Opened o;
    openChoose(w, o);
    verifyByKey(w);
    if (!python_reference_available()) QSKIP("this build has no CPython reference");
    QCOMPARE(verifyProgress(w)->value(), 100);
    typeAtEnd(w.editor(), QStringLiteral(" +"));
    QVERIFY(w.waitUntilSettled(30000));
    QVERIFY(w.session()->compileFailed());
    verifyByKey(w);
    QVERIFY2(w.verifyPanel()->summary().contains(QStringLiteral("cannot verify")), qPrintable(w.verifyPanel()->summary()));
    QCOMPARE(verifyProgress(w)->value(), 0);
  }

  // Item 14: Backspace in leading indentation removes one indent level.
  void backspaceInIndentationRemovesOneLevel() {
    MainWindow w;
    Opened o;
    openChoose(w, o);
    SourceEditor* ed = w.editor();
    typeAtEnd(ed, QString());
    QTest::keyClick(ed, Qt::Key_Return);
    QTest::keyClicks(ed, QStringLiteral("if a:"));
    QTest::keyClick(ed, Qt::Key_Return);
    int line = 0, col = 0;
    ed->getCursorPosition(&line, &col);
    // Make the indentation two levels whatever auto-indent gave.
    while (ed->text(line).size() < 8) QTest::keyClick(ed, Qt::Key_Space);
    QCOMPARE(ed->text(line), QStringLiteral("        "));
    QTest::keyClick(ed, Qt::Key_Backspace);
    QCOMPARE(ed->text(line), QStringLiteral("    "));
    QTest::keyClick(ed, Qt::Key_Backspace);
    QCOMPARE(ed->text(line), QString());
  }

  // Item 14: a corrupt artifact says so, and does not join Recent.
  void aCorruptArtifactSaysArtifactAndStaysOutOfRecent() {
    QTemporaryDir dir;
    const QString corrupt = dir.filePath(QStringLiteral("corrupt.json"));
    QFile f(corrupt);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("{ not json");
    f.close();
    MainWindow w;
    w.show();
    QVERIFY(w.openPath(corrupt));
    QVERIFY(w.waitUntilSettled(30000));
    // It says so, and (issue 38 item 1) replaces nothing: no read-only document under its name.
    QVERIFY2(w.lastWarning().contains(QStringLiteral("cannot load")) && w.lastWarning().contains(QStringLiteral("corrupt.json")),
             qPrintable(w.lastWarning()));
    QVERIFY(!w.session()->readOnly());
    QVERIFY2(!w.windowTitle().contains(QStringLiteral("corrupt.json")), qPrintable(w.windowTitle()));
    const QStringList recent = QSettings().value(QStringLiteral("recentFiles")).toStringList();
    QVERIFY2(!recent.contains(QFileInfo(corrupt).absoluteFilePath()), qPrintable(recent.join(QLatin1Char(','))));
    // A good artifact does join it.
    QVERIFY(w.openPath(example("counter.json")));
    QVERIFY(w.waitUntilSettled(30000));
    QVERIFY(QSettings().value(QStringLiteral("recentFiles")).toStringList().contains(QFileInfo(example("counter.json")).absoluteFilePath()));
  }

  // Item 14: export never proposes a file that is already there.
  void exportProposesAFreeName() {
    MainWindow w;
    Opened o;
    openChoose(w, o);
    QCOMPARE(QFileInfo(w.defaultExportPath(QStringLiteral("artifact"))).fileName(), QStringLiteral("choose.json"));
    QFile other(o.dir.filePath(QStringLiteral("choose.json")));
    QVERIFY(other.open(QIODevice::WriteOnly));
    other.write("{}");
    other.close();
    QCOMPARE(QFileInfo(w.defaultExportPath(QStringLiteral("artifact"))).fileName(), QStringLiteral("choose-2.json"));
  }

  // Item 14: broken code marks the Outputs line of the status bar out of date.
  void brokenCodeMarksTheOutputsStale() {
    MainWindow w;
    Opened o;
    openChoose(w, o);
    auto resultText = [&w] {
      for (QLabel* l : w.statusBar()->findChildren<QLabel*>())
        if (l->text().contains(QStringLiteral(" = "))) return l->text();
      return QString();
    };
    QVERIFY(!resultText().isEmpty());
    QVERIFY(!resultText().startsWith(QStringLiteral("out of date")));
    typeAtEnd(w.editor(), QStringLiteral(" +"));
    QVERIFY(w.waitUntilSettled(30000));
    QVERIFY(w.session()->compileFailed());
    QVERIFY2(resultText().startsWith(QStringLiteral("out of date: ")), qPrintable(resultText()));
    QTest::keyClick(w.editor(), Qt::Key_Backspace);
    QTest::keyClick(w.editor(), Qt::Key_Backspace);
    QVERIFY(w.waitUntilSettled(30000));
    QVERIFY(!resultText().startsWith(QStringLiteral("out of date")));
  }

  // Item 13: Inspector cells fit their values once the values arrive.
  void inspectorCellsAreNotCutOff() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("wide.py"));
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("# tensorcode: input x=float64:-100:100\ndef f(x):\n    return x * 74.39123456 - 7439.123456\n");
    f.close();
    MainWindow w;
    w.resize(1280, 800);
    w.show();
    QVERIFY(w.openPath(path));
    QVERIFY(w.waitUntilSettled(30000));
    QTableView* table = w.inspector()->tableView();
    auto* m = w.inspector()->model();
    const int out = static_cast<int>(w.session()->program()->outputs.at(0).second);
    QCOMPARE(m->data(m->index(out, InspectorModel::Value), Qt::DisplayRole).toString(), QStringLiteral("-7439.12"));
    for (int r = 0; r < m->rowCount(); ++r)
      for (int c : {int(InspectorModel::Value), int(InspectorModel::ExactGrad), int(InspectorModel::ChosenGrad)}) {
        const QString text = m->data(m->index(r, c), Qt::DisplayRole).toString();
        QVERIFY2(table->columnWidth(c) >= table->fontMetrics().horizontalAdvance(text),
                 qPrintable(QStringLiteral("row %1 column %2: '%3' wider than %4").arg(r).arg(c).arg(text).arg(table->columnWidth(c))));
      }
  }

  // Item 12: a failed hybrid gradient marks every row; known values never read "not computed".
  void aFailedGradientMarksEveryRowAndKnownValuesShow() {
    MainWindow w;
    w.resize(1280, 800);
    w.show();
    QVERIFY(w.openPath(data("ratio.py")));
    QVERIFY(w.waitUntilSettled(30000));
    typeIntoCell(w.inputs()->table(), w.inputs()->rowOf(QStringLiteral("x")), 4, QStringLiteral("3"));
    QVERIFY(w.waitUntilSettled(30000));
    const auto& g = w.session()->chosenGrad();
    QVERIFY(!g.ok && g.failed_select >= 0);
    auto* m = w.inspector()->model();
    for (int r = 0; r < m->rowCount(); ++r) {
      const QString cell = m->data(m->index(r, InspectorModel::ChosenGrad), Qt::DisplayRole).toString();
      QVERIFY2(!cell.isEmpty(), qPrintable(QStringLiteral("row %1 is blank").arg(r)));
      if (r != g.failed_select && r != g.failed_node) QCOMPARE(cell, QStringLiteral("n/a"));
    }
    QVERIFY(w.problems()->wordWrap());  // the long jump-term message wraps instead of being cut
    // Constants and parameters have their values whichever branch ran.
    MainWindow w2;
    w2.show();
    QVERIFY(w2.openPath(example("gated.json")));
    QVERIFY(w2.waitUntilSettled(30000));
    auto p = w2.session()->program();
    auto* m2 = w2.inspector()->model();
    for (const auto& n : p->nodes) {
      if (n.op != Op::Constant && n.op != Op::Parameter) continue;
      const QString cell = m2->data(m2->index(n.id, InspectorModel::Value), Qt::DisplayRole).toString();
      QCOMPARE(cell, QString::fromStdString(format_short(n.value)));
    }
  }

  // Item 12: the lazy run skips the untaken branch, but the gradient's forward
  // pass computed it; clicking that division at x = 1.5 shows its value.
  void anUntakenBranchShowsTheValueTheGradientComputed() {
    MainWindow w;
    w.resize(1280, 800);
    w.show();
    QVERIFY(w.openPath(data("near_pole.py")));
    QVERIFY(w.waitUntilSettled(30000));
    typeIntoCell(w.inputs()->table(), w.inputs()->rowOf(QStringLiteral("x")), 4, QStringLiteral("1.5"));
    QVERIFY(w.waitUntilSettled(30000));
    QVERIFY(w.session()->chosenGrad().ok);
    auto p = w.session()->program();
    NodeId div = -1;
    for (const auto& n : p->nodes)
      if (n.op == Op::Div) div = n.id;
    QVERIFY(div >= 0);
    QVERIFY(std::isnan(w.session()->exactRun().trace.values[static_cast<std::size_t>(div)]));  // the lazy run skipped it
    QTableView* t = w.inspector()->tableView();
    t->scrollTo(t->model()->index(div, 0));
    QTest::mouseClick(t->viewport(), Qt::LeftButton, {}, t->visualRect(t->model()->index(div, 0)).center());
    QCOMPARE(w.session()->selected(), div);
    const QString detail = w.inspector()->detailText();
    QVERIFY2(!detail.contains(QStringLiteral("not computed")), qPrintable(detail));
    QVERIFY2(detail.contains(QStringLiteral("untaken branch: <b>2</b>")), qPrintable(detail));  // 1 / (1.5 - 1)
    auto* m = w.inspector()->model();
    QCOMPARE(m->data(m->index(div, InspectorModel::Value), Qt::DisplayRole).toString(), QStringLiteral("2"));
    // At x = 1 the division fails: undefined, never a made-up value.
    typeIntoCell(w.inputs()->table(), w.inputs()->rowOf(QStringLiteral("x")), 4, QStringLiteral("1"));
    QVERIFY(w.waitUntilSettled(30000));
    QVERIFY(!w.session()->chosenGrad().ok);
    QCOMPARE(m->data(m->index(div, InspectorModel::Value), Qt::DisplayRole).toString(), QString::fromUtf8("—"));
    QVERIFY2(!w.inspector()->detailText().contains(QStringLiteral("untaken branch")), qPrintable(w.inspector()->detailText()));
  }

  // Replace All (debugger habits): Ctrl+F, the word, Ctrl+H, its replacement,
  // Ctrl+Shift+H replaces every occurrence, and one Ctrl+Z undoes them all.
  void replaceAllReplacesEveryMatchAsOneUndoStep() {
    MainWindow w;
    Opened o;
    openChoose(w, o);
    SourceEditor* ed = w.editor();
    const QString before = ed->text();
    QCOMPARE(before.count(QLatin1Char('a')), 3);
    ed->setFocus();
    QTest::keyClick(ed, Qt::Key_F, Qt::ControlModifier);
    QTRY_VERIFY(w.findEdit()->hasFocus());
    QTest::keyClicks(w.findEdit(), QStringLiteral("a"));
    QTest::keyClick(w.findEdit(), Qt::Key_H, Qt::ControlModifier);
    QTRY_VERIFY(w.replaceEdit()->hasFocus());
    QTest::keyClicks(w.replaceEdit(), QStringLiteral("bb"));
    QTest::keyClick(w.replaceEdit(), Qt::Key_H, Qt::ControlModifier | Qt::ShiftModifier);
    QString expected = before;
    expected.replace(QLatin1Char('a'), QStringLiteral("bb"));
    QCOMPARE(ed->text(), expected);
    QVERIFY2(w.statusBar()->currentMessage().contains(QStringLiteral("3")), qPrintable(w.statusBar()->currentMessage()));
    QVERIFY(w.waitUntilSettled(30000));
    QCOMPARE(w.session()->source(), expected);
    // The recompile the edit started does not overwrite the count (issue 38).
    QTest::qWait(300);
    QVERIFY2(w.statusBar()->currentMessage().contains(QStringLiteral("replaced 3")),
             qPrintable(w.statusBar()->currentMessage()));
    QVERIFY(w.session()->program());  // the renamed input compiles
    ed->setFocus();
    QTest::keyClick(ed, Qt::Key_Z, Qt::ControlModifier);
    QCOMPARE(ed->text(), before);
    QVERIFY(w.waitUntilSettled(30000));
    QCOMPARE(w.session()->source(), before);
  }

  // Issue 38 polish: a Min the domain refuses shows why, and the message
  // goes once the bound is corrected, also to the value it had before.
  void aCorrectedMinClearsItsError() {
    MainWindow w;
    Opened o;
    openChoose(w, o);
    QTableWidget* t = w.inputs()->table();
    const int row = w.inputs()->rowOf(QStringLiteral("a"));
    QVERIFY(row >= 0);
    const QString min = t->item(row, 2)->text();
    QCOMPARE(min, QStringLiteral("-128"));
    typeIntoCell(t, row, 2, QStringLiteral("-1e99"));
    QTRY_VERIFY2(w.inputs()->resultText().contains(QStringLiteral("int32")), qPrintable(w.inputs()->resultText()));
    typeIntoCell(t, row, 2, min);
    QVERIFY(w.waitUntilSettled(30000));
    QTRY_VERIFY2(w.inputs()->resultText().contains(QStringLiteral("result")), qPrintable(w.inputs()->resultText()));
    QVERIFY2(!w.inputs()->resultText().contains(QStringLiteral("int32")), qPrintable(w.inputs()->resultText()));
    QVERIFY(w.session()->source().contains(QStringLiteral("a=int32:-128:127")));
  }

  // Item 7: a long Verify result neither widens the window nor squeezes the side docks.
  void aLongVerifyResultKeepsTheLayout() {
    MainWindow w;
    Opened o;
    openChoose(w, o);
    auto* source = w.findChild<QDockWidget*>(QStringLiteral("SourceDock"));
    auto* inspector = w.findChild<QDockWidget*>(QStringLiteral("InspectorDock"));
    QVERIFY(source && inspector);
    QTest::qWait(50);
    const int width = w.width(), source_w = source->width(), inspector_w = inspector->width();
    w.raiseDock(QStringLiteral("VerifyDock"));
    VerifyPanel* v = w.verifyPanel();
    v->referenceEdit()->setFocus();
    QTest::keyClicks(v->referenceEdit(), o.dir.filePath(QString(400, QLatin1Char('r')) + QStringLiteral(".py")));
    QTest::mouseClick(v->runButton(), Qt::LeftButton);
    QVERIFY(w.waitUntilSettled(60000));
    QTest::qWait(50);
    QVERIFY2(v->summary().size() > 300, qPrintable(v->summary()));
    QVERIFY2(w.width() <= width, qPrintable(QStringLiteral("%1 -> %2").arg(width).arg(w.width())));
    QVERIFY2(source->width() >= source_w - 4, qPrintable(QStringLiteral("%1 -> %2").arg(source_w).arg(source->width())));
    QVERIFY2(inspector->width() >= inspector_w - 4, qPrintable(QStringLiteral("%1 -> %2").arg(inspector_w).arg(inspector->width())));
    // Every line of it shows: the label is as tall as its wrapped text (issue 38 polish: it was cut after two lines).
    auto* label = v->findChild<QLabel*>(QStringLiteral("VerifySummary"));
    QVERIFY(label);
    QVERIFY2(label->height() >= label->heightForWidth(label->width()),
             qPrintable(QStringLiteral("%1 px for %2 px of text").arg(label->height()).arg(label->heightForWidth(label->width()))));
    QVERIFY2(label->width() >= v->width() / 2, qPrintable(QStringLiteral("%1 of %2").arg(label->width()).arg(v->width())));
  }
};

QTEST_MAIN(HabitsTest)
#include "habits_test.moc"
