// Issue 12's dead ends, driven through the real widgets (offscreen): bool
// inputs as check boxes, editable parameters, named cases saved beside the
// file, number precision, the heat map's spread and legend, navigation
// (Ctrl+G, a click in the IR text, Go to Line, Find Previous, Replace) and
// dock sizes that survive a restart.
#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDockWidget>
#include <QFile>
#include <QInputDialog>
#include <QLineEdit>
#include <QSettings>
#include <QScrollBar>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBlock>
#include <QTimer>
#include <QToolButton>

#include "views/editor.h"
#include "views/graph_view.h"
#include "views/main_window.h"
#include "views/panels.h"
#include "widget_actions.h"

using namespace tc;
using namespace tc::views;
using namespace tc::views::testing;

namespace {

void answerNextInputDialog(const QString& text) {
  QTimer::singleShot(50, [text] {
    auto* d = qobject_cast<QInputDialog*>(QApplication::activeModalWidget());
    if (!d) return;
    d->setTextValue(text);
    d->accept();
  });
}

QString writeFile(const QTemporaryDir& dir, const char* name, const char* text) {
  const QString path = dir.filePath(QLatin1String(name));
  QFile f(path);
  if (f.open(QIODevice::WriteOnly)) f.write(text);
  return path;
}

}  // namespace

class PanelsTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    useOwnSettings(QStringLiteral("tensorcode-ide-panels"));
  }

  void aBoolInputIsACheckBox() {
    QTemporaryDir dir;
    const QString path = writeFile(dir, "flip.py",
                                   "# tensorcode: input b=bool\n# tensorcode: input x=float64:-10:10\n"
                                   "def flip(b, x):\n    return x if b else -x\n");
    MainWindow w;
    w.show();
    QVERIFY(w.openPath(path));
    QVERIFY(w.waitUntilSettled(30000));
    w.session()->setCaseValue("x", 2.5);
    QVERIFY(w.waitUntilSettled(30000));
    QCOMPARE(w.session()->exactRun().outputs.at(0), -2.5);
    QCheckBox* box = w.inputs()->checkBoxOf(QStringLiteral("b"));
    QVERIFY(box);
    QVERIFY(!box->isChecked());
    QVERIFY(!w.inputs()->checkBoxOf(QStringLiteral("x")));
    box->setFocus();
    QTest::keyClick(box, Qt::Key_Space);
    QVERIFY(w.waitUntilSettled(30000));
    QCOMPARE(w.session()->currentCase().at("b"), 1.0);
    QCOMPARE(w.session()->exactRun().outputs.at(0), 2.5);
    // Typed as Python writes it, a bool value parses too.
    QCOMPARE(w.inputs()->table()->item(w.inputs()->rowOf(QStringLiteral("b")), 4)->flags() & Qt::ItemIsEditable, Qt::ItemFlags{});
  }

  void parametersAreEditable() {
    MainWindow w;
    w.show();
    QVERIFY(w.openPath(example("gated.json")));
    QVERIFY(w.waitUntilSettled(30000));
    const int row = w.inputs()->rowOf(QStringLiteral("weight"));
    QVERIFY(row >= 0);
    QCOMPARE(w.inputs()->table()->item(row, 1)->text(), QStringLiteral("parameter"));
    typeIntoCell(w.inputs()->table(), w.inputs()->rowOf(QStringLiteral("x")), 4, QStringLiteral("5"));
    QVERIFY(w.waitUntilSettled(30000));
    QCOMPARE(w.session()->exactRun().outputs.at(0), 0.0);  // weight 0 as stored
    typeIntoCell(w.inputs()->table(), row, 4, QStringLiteral("2"));
    QVERIFY(w.waitUntilSettled(30000));
    QCOMPARE(w.session()->parameterValues().at("weight"), 2.0);
    QCOMPARE(w.session()->exactRun().outputs.at(0), 10.0);
    // The gradient with respect to the parameter follows: d(w x)/dw = x.
    QCOMPARE(w.session()->exactGrad().inputs.at("weight"), 5.0);
  }

  // Issue 38 item 2: the intervals (Inspector, Overlay > Intervals) are
  // those of the parameter values on screen, not the stored ones.
  void intervalsFollowTheParametersOnScreen() {
    MainWindow w;
    w.show();
    QVERIFY(w.openPath(example("gated.json")));
    QVERIFY(w.waitUntilSettled(30000));
    const NodeId mul = 2, weight = 1;
    QCOMPARE(w.session()->program()->nodes[mul].op, Op::Mul);
    QVERIFY(w.session()->analysis().available);
    QCOMPARE(w.session()->analysis().intervals[weight], std::make_pair(0.0, 0.0));  // stored weight 0
    typeIntoCell(w.inputs()->table(), w.inputs()->rowOf(QStringLiteral("x")), 4, QStringLiteral("5"));
    typeIntoCell(w.inputs()->table(), w.inputs()->rowOf(QStringLiteral("weight")), 4, QStringLiteral("2"));
    QVERIFY(w.waitUntilSettled(30000));
    QCOMPARE(w.session()->exactRun().trace.values.at(mul), 10.0);
    const auto& iv = w.session()->analysis().intervals;
    QCOMPARE(iv[weight], std::make_pair(2.0, 2.0));
    QVERIFY2(iv[mul].first <= 10.0 && 10.0 <= iv[mul].second,
             qPrintable(QStringLiteral("[%1, %2]").arg(iv[mul].first).arg(iv[mul].second)));
  }

  // Issue 38 polish: in exact mode the detail box gave the exact gradient
  // twice ("∂ exact: 1 ∂ exact: 1").
  void theDetailBoxGivesEachGradientOnce() {
    MainWindow w;
    w.show();
    QVERIFY(w.openPath(example("gated.json")));
    QVERIFY(w.waitUntilSettled(30000));
    w.session()->select(2);
    QVERIFY(w.waitUntilSettled(30000));
    const QString exact = w.inspector()->detailText();
    QCOMPARE(exact.count(QString::fromUtf8("∂ exact:")), 1);
    w.session()->setSemantics(Semantics::Exact);
    QVERIFY(w.waitUntilSettled(30000));
    const QString once = w.inspector()->detailText();
    QCOMPARE(once.count(QString::fromUtf8("∂ exact:")), 1);
    QCOMPARE(once.count(QString::fromUtf8("∂ ")), 1);
    w.session()->setSemantics(Semantics::Relaxed);
    QVERIFY(w.waitUntilSettled(30000));
    const QString relaxed = w.inspector()->detailText();
    QCOMPARE(relaxed.count(QString::fromUtf8("∂ exact:")), 1);
    QCOMPARE(relaxed.count(QString::fromUtf8("∂ relaxed:")), 1);
  }

  void namedCasesAreSavedBesideTheFile() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("choose.py"));
    QVERIFY(QFile::copy(data("choose.py"), path));
    {
      MainWindow w;
      w.show();
      QVERIFY(w.openPath(path));
      QVERIFY(w.waitUntilSettled(30000));
      typeIntoCell(w.inputs()->table(), 0, 4, QStringLiteral("3"));
      QVERIFY(w.waitUntilSettled(30000));
      answerNextInputDialog(QStringLiteral("big"));
      QTest::mouseClick(w.inputs()->addCaseButton(), Qt::LeftButton);
      QCOMPARE(w.session()->caseNames(), (QStringList{QStringLiteral("default"), QStringLiteral("big")}));
      QCOMPARE(w.inputs()->caseBox()->currentText(), QStringLiteral("big"));
      typeIntoCell(w.inputs()->table(), 0, 4, QStringLiteral("100"));
      QVERIFY(w.waitUntilSettled(30000));
      QCOMPARE(w.session()->exactRun().outputs.at(0), 10.0);
      // Switch back: the default case still has 3.
      w.inputs()->caseBox()->setCurrentIndex(0);
      QVERIFY(w.waitUntilSettled(30000));
      QCOMPARE(w.session()->currentCase().at("a"), 3.0);
      QCOMPARE(w.inputs()->table()->item(0, 4)->text(), QStringLiteral("3"));
      QCOMPARE(w.session()->exactRun().outputs.at(0), 12.0);
      answerNextInputDialog(QStringLiteral("small"));
      QTest::mouseClick(w.inputs()->renameCaseButton(), Qt::LeftButton);
      QCOMPARE(w.session()->caseNames().first(), QStringLiteral("small"));
      w.inputs()->caseBox()->setCurrentIndex(1);
      QVERIFY(w.waitUntilSettled(30000));
      // Written with the document's Save, not before.
      QVERIFY(!QFile::exists(path + QStringLiteral(".cases.json")));
      pressKeys(w.editor(), QKeySequence::Save);
    }
    QVERIFY(QFile::exists(path + QStringLiteral(".cases.json")));
    MainWindow w2;
    w2.show();
    QVERIFY(w2.openPath(path));
    QVERIFY(w2.waitUntilSettled(30000));
    QCOMPARE(w2.session()->caseNames(), (QStringList{QStringLiteral("small"), QStringLiteral("big")}));
    QCOMPARE(w2.inputs()->caseBox()->currentText(), QStringLiteral("big"));
    QCOMPARE(w2.session()->currentCase().at("a"), 100.0);
    QCOMPARE(w2.session()->exactRun().outputs.at(0), 10.0);
  }

  void numbersPrintShortestWithAPrecision_data() {
    QTest::addColumn<double>("value");
    QTest::addColumn<int>("digits");
    QTest::addColumn<QString>("text");
    QTest::newRow("noise hidden") << 1638.0000000000007 << 6 << QStringLiteral("1638");
    QTest::newRow("noise on request") << 1638.0000000000007 << 0 << QStringLiteral("1638.0000000000007");
    QTest::newRow("short stays exact") << 0.1 << 6 << QStringLiteral("0.1");
    QTest::newRow("integer") << 120.0 << 2 << QStringLiteral("120");
    QTest::newRow("rounded") << 3.14159265 << 4 << QStringLiteral("3.142");
    QTest::newRow("tiny") << 1.5e-7 << 6 << QStringLiteral("1.5e-07");
  }
  void numbersPrintShortestWithAPrecision() {
    QFETCH(double, value);
    QFETCH(int, digits);
    QFETCH(QString, text);
    QCOMPARE(QString::fromStdString(format_with_precision(value, digits)), text);
  }

  void thePrecisionSettingReachesTheViews() {
    QTemporaryDir dir;
    const QString path = writeFile(dir, "noise.py", "# tensorcode: input x=float64:0:10\ndef noise(x):\n    return x * 0.1 * 3\n");
    MainWindow w;
    w.show();
    QVERIFY(w.openPath(path));
    QVERIFY(w.waitUntilSettled(30000));
    w.session()->setCaseValue("x", 1);
    QVERIFY(w.waitUntilSettled(30000));
    const NodeId out = w.session()->program()->outputs.front().second;
    auto* m = w.inspector()->model();
    QCOMPARE(m->data(m->index(out, InspectorModel::Value), Qt::DisplayRole).toString(), QStringLiteral("0.3"));
    QAction* full = findAction(&w, QStringLiteral("Full (shortest round trip)"));
    QVERIFY(full);
    full->trigger();
    QCOMPARE(m->data(m->index(out, InspectorModel::Value), Qt::DisplayRole).toString(), QStringLiteral("0.30000000000000004"));
    findAction(&w, QStringLiteral("6 significant digits"))->trigger();
  }

  void theInspectorNamesANodesLoopIteration() {
    QTemporaryDir dir;
    const QString path = writeFile(dir, "loop.py",
                                   "# tensorcode: input x=float64:-1:1\ndef loop(x):\n    s = x\n"
                                   "    for i in range(3):\n        for j in range(2):\n            s = s * x\n    return s\n");
    MainWindow w;
    w.show();
    QVERIFY(w.openPath(path));
    QVERIFY(w.waitUntilSettled(30000));
    // The output is the last multiplication: i = 2, j = 1.
    w.selectOutput();
    QVERIFY2(w.inspector()->detailText().contains(QStringLiteral("loop iteration: i=2, j=1")), qPrintable(w.inspector()->detailText()));
  }

  void theHeatMapSpreadsAndHasALegend() {
    QTemporaryDir dir;
    // One huge value beside small ones: by magnitude alone everything else would be one pale colour.
    const QString path = writeFile(dir, "spread.py",
                                   "# tensorcode: input x=float64:-10:10\ndef spread(x):\n"
                                   "    a = x + 1\n    b = a + 1\n    c = b * 1000000\n    return c + a\n");
    MainWindow w;
    w.show();
    QVERIFY(w.openPath(path));
    QVERIFY(w.waitUntilSettled(30000));
    w.session()->setCaseValue("x", 1);
    QVERIFY(w.waitUntilSettled(30000));
    GraphView* g = w.graph();
    QVERIFY(g->heat(2.0) < g->heat(3.0));
    QVERIFY(g->heat(3.0) < g->heat(3000000.0));
    QVERIFY(g->heat(3.0) > 0.2);  // not washed out next to the big value
    const QStringList legend = g->legendLabels();
    QCOMPARE(legend.size(), 5);
    QCOMPARE(legend.last(), QString::fromStdString(format_short(3000002.0)));  // the largest magnitude
  }

  // Issue 38 polish: the legend cut "1.44089e-05" to "44089e-" and lay over
  // the caption's zoom text.
  void theLegendFitsItsLabelsAndLeavesTheCaptionVisible() {
    QTemporaryDir dir;
    const QString path = writeFile(dir, "tiny.py",
                                   "# tensorcode: input x=float64:-10:10\ndef tiny(x):\n"
                                   "    a = x * 0.0000144089123\n    b = a * -0.00000123456\n    return a + b\n");
    MainWindow w;
    w.resize(1000, 700);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(w.openPath(path));
    QVERIFY(w.waitUntilSettled(30000));
    w.session()->setCaseValue("x", -1.2345);
    QVERIFY(w.waitUntilSettled(30000));
    GraphView* g = w.graph();
    const QStringList labels = g->legendLabels();
    QCOMPARE(labels.size(), 5);
    const QRect legend = g->legendRect();
    QVERIFY(!legend.isEmpty());
    QVERIFY(g->rect().contains(legend));
    QFont f = g->font();
    f.setPointSizeF(7.5);
    const QFontMetrics fm(f);
    const int cell = (legend.width() - 12) / 5;
    bool longLabel = false;
    for (const QString& l : labels) {
      QVERIFY2(fm.horizontalAdvance(l) <= cell - 2, qPrintable(QStringLiteral("'%1' in a %2 px cell").arg(l).arg(cell)));
      longLabel = longLabel || l.contains(QLatin1Char('e'));
    }
    QVERIFY2(longLabel, qPrintable(labels.join(QLatin1Char(' '))));
    // The caption ends left of the legend and still shows the zoom.
    QVERIFY(!g->captionRect().intersects(legend));
    QVERIFY2(g->captionText().contains(QStringLiteral("zoom")), qPrintable(g->captionText()));
    QVERIFY(g->fontMetrics().horizontalAdvance(g->captionText()) <= g->captionRect().width());
  }

  // Issue 38 polish: the Inspector's Node cells were cut to "#1281 ..."
  // (the column was sized from the first rows in view, "#0 input x").
  void theInspectorsNodeColumnFitsItsNames() {
    MainWindow w;
    w.resize(1280, 800);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(w.openPath(data("grid.py")));
    QVERIFY(w.waitUntilSettled(60000));
    w.selectOutput();  // the last node: the table scrolls to #1289
    QTest::qWait(50);
    QTableView* t = w.inspector()->tableView();
    const QFontMetrics fm(t->font());
    int checked = 0;
    for (int r = 0; r < t->model()->rowCount(); ++r) {
      if (r < t->rowAt(0) || r > t->rowAt(t->viewport()->height() - 1)) continue;  // the rows in view
      const QString text = t->model()->data(t->model()->index(r, InspectorModel::Node), Qt::DisplayRole).toString();
      QVERIFY2(fm.horizontalAdvance(text) + 8 <= t->columnWidth(InspectorModel::Node),
               qPrintable(QStringLiteral("'%1' in %2 px").arg(text).arg(t->columnWidth(InspectorModel::Node))));
      ++checked;
    }
    QVERIFY2(checked > 5 && t->rowAt(0) > 1000, qPrintable(QStringLiteral("%1 rows from %2").arg(checked).arg(t->rowAt(0))));
  }

  void navigationCentresAndFinds() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("choose.py"));
    QVERIFY(QFile::copy(data("choose.py"), path));
    MainWindow w;
    w.resize(1280, 800);
    w.show();
    QVERIFY(w.openPath(path));
    QVERIFY(w.waitUntilSettled(30000));
    // Ctrl+G, an id, Enter: selected and centred.
    QTest::keyClick(&w, Qt::Key_G, Qt::ControlModifier);
    QCOMPARE(QApplication::focusWidget(), static_cast<QWidget*>(w.nodeSearchEdit()));
    QTest::keyClicks(w.nodeSearchEdit(), QStringLiteral("%2"));
    QTest::keyClick(w.nodeSearchEdit(), Qt::Key_Return);
    QCOMPARE(w.session()->selected(), NodeId{2});
    const QPointF centre(w.graph()->width() / 2.0, w.graph()->height() / 2.0);
    QVERIFY((w.graph()->nodeViewPos(2) - centre).manhattanLength() < 2.0);
    // A click in the IR text selects and centres that node.
    const QTextBlock block = w.irText()->document()->findBlockByNumber(w.irText()->firstNodeLine() + 1);
    const QRect r = w.irText()->cursorRect(QTextCursor(block));  // viewport coordinates
    QTest::mouseClick(w.irText()->viewport(), Qt::LeftButton, {}, QPoint(20, r.center().y()));
    QCOMPARE(w.session()->selected(), NodeId{1});
    QVERIFY((w.graph()->nodeViewPos(1) - centre).manhattanLength() < 2.0);
    // The layer leads each IR line.
    QVERIFY2(block.text().startsWith(QLatin1Char('L')), qPrintable(block.text()));
    // Go to Line (Ctrl+L) with a window-modal box.
    QTest::keyClick(&w, Qt::Key_L, Qt::ControlModifier);
    auto* box = w.findChild<QInputDialog*>(QStringLiteral("GoToLineDialog"));
    QVERIFY(box);
    box->setIntValue(3);
    box->accept();
    int line = 0, col = 0;
    w.editor()->getCursorPosition(&line, &col);
    QCOMPARE(line, 2);
    // Find (Enter), Find Previous (Shift+F3) and Replace.
    w.findEdit()->setText(QStringLiteral("1"));
    QTest::keyClick(w.findEdit(), Qt::Key_Return);  // first "1" after the cursor: in "10"
    w.editor()->getCursorPosition(&line, &col);
    QCOMPARE(line, 2);
    QTest::keyClick(&w, Qt::Key_F3, Qt::ShiftModifier);  // back to the directive's "-128"
    w.editor()->getCursorPosition(&line, &col);
    QCOMPARE(line, 0);
    w.findEdit()->setText(QStringLiteral("12"));
    QTest::keyClick(w.findEdit(), Qt::Key_Return);
    w.replaceEdit()->setText(QStringLiteral("13"));
    QTest::keyClick(w.replaceEdit(), Qt::Key_Return);
    QVERIFY2(w.editor()->text().contains(QStringLiteral("-138")) || w.editor()->text().contains(QStringLiteral("else 13")),
             qPrintable(w.editor()->text()));
  }

  void aBusyCaretLineTintsAtMostFiveHundredIrLines() {
    // Line 8 of the 15 x 12 grid holds over 700 nodes. Each tinted IR line holds a
    // text cursor that Qt adjusts on every insertion: thousands of them froze
    // the next disassembly for seconds, so the IR text tints at most 500.
    MainWindow w;
    w.resize(1280, 800);
    w.show();
    QVERIFY(w.openPath(data("grid.py")));
    QVERIFY(w.waitUntilSettled(60000));
    w.editor()->setFocus();
    w.editor()->setCursorPosition(7, 10);  // line 8, as a click there puts it
    QVERIFY(w.waitUntilSettled(60000));
    QVERIFY(w.session()->highlighted().size() > 700);
    const int tinted = static_cast<int>(w.irText()->extraSelections().size()) - (w.session()->selected() >= 0 ? 1 : 0);
    QCOMPARE(tinted, 500);
    // A recompile replaces the text with the tints dropped first, then tints again.
    typeAtEnd(w.editor(), QStringLiteral("#"));
    QVERIFY(w.waitUntilSettled(60000));
    QVERIFY(w.irText()->extraSelections().size() <= 501);
  }

  void dockSizesSurviveARestart() {
    QSettings().remove(QStringLiteral("window"));
    int source_w = 0, inspector_h = 0;
    {
      MainWindow w;
      w.resize(1280, 800);
      w.show();
      QVERIFY(QTest::qWaitForWindowExposed(&w));
      QTest::qWait(50);
      auto* source = w.findChild<QDockWidget*>(QStringLiteral("SourceDock"));
      auto* inspector = w.findChild<QDockWidget*>(QStringLiteral("InspectorDock"));
      auto* ir = w.findChild<QDockWidget*>(QStringLiteral("IrDock"));
      const int source_before = source->width(), inspector_before = inspector->height();
      // Away from the default proportions, in both directions of the layout.
      w.resizeDocks({source}, {source_before + 80}, Qt::Horizontal);
      w.resizeDocks({inspector, ir}, {inspector_before - 120, ir->height() + 120}, Qt::Vertical);
      QTest::qWait(50);
      source_w = source->width();
      inspector_h = inspector->height();
      // Neighbouring minimum sizes may take some of it; what matters is that they moved.
      QVERIFY2(source_w - source_before >= 30, qPrintable(QStringLiteral("%1 -> %2").arg(source_before).arg(source_w)));
      QVERIFY2(inspector_before - inspector_h >= 60, qPrintable(QStringLiteral("%1 -> %2").arg(inspector_before).arg(inspector_h)));
      w.close();
    }
    MainWindow w2;
    w2.resize(1280, 800);
    w2.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w2));
    QTest::qWait(100);
    const int got_w = w2.findChild<QDockWidget*>(QStringLiteral("SourceDock"))->width();
    const int got_h = w2.findChild<QDockWidget*>(QStringLiteral("InspectorDock"))->height();
    QVERIFY2(std::abs(got_w - source_w) <= 4, qPrintable(QStringLiteral("%1 vs %2").arg(got_w).arg(source_w)));
    QVERIFY2(std::abs(got_h - inspector_h) <= 4, qPrintable(QStringLiteral("%1 vs %2").arg(got_h).arg(inspector_h)));
  }
};

QTEST_MAIN(PanelsTest)
#include "panels_test.moc"
