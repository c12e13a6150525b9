// Journeys through the Program and Help menus of issue 24 (item 8 and the
// debugger's habits), with real key events offscreen: a budget error names
// the IDE's own setting, Program > Compile Options raises it and saves it in
// the file as a directive, and Help lists every shortcut.
#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QClipboard>
#include <QContextMenuEvent>
#include <QFile>
#include <QGuiApplication>
#include <QMenu>
#include <QTableView>
#include <QTextBlock>
#include <QTextCursor>
#include <QTimer>
#include <QLabel>
#include <QLineEdit>
#include <QSettings>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>

#include "views/compile_options_dialog.h"
#include "ir/printer.h"
#include "views/editor.h"
#include "views/graph_view.h"
#include "views/main_window.h"
#include "views/panels.h"
#include "widget_actions.h"

using namespace tc;
using namespace tc::views;
using namespace tc::views::testing;

namespace {

const char* const kBigLoop =
    "# tensorcode: input a=int32:0:3\n"
    "def f(a):\n"
    "    s = 0\n"
    "    for i in range(10005):\n"
    "        s = s + a\n"
    "    return s\n";

/// Presses the Compile Options shortcut and returns the dialog it opens.
CompileOptionsDialog* openCompileOptions(MainWindow& w) {
  QAction* a = findAction(&w, QStringLiteral("Compile &Options…"));
  if (!a || a->shortcut().isEmpty()) return nullptr;
  pressKeys(w.editor(), a->shortcut());
  CompileOptionsDialog* d = nullptr;
  for (int i = 0; i < 100 && !(d && d->isVisible()); ++i) {
    QTest::qWait(20);
    d = w.findChild<CompileOptionsDialog*>();
  }
  return d && d->isVisible() ? d : nullptr;
}

QString fileText(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

}  // namespace

class MenusTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    useOwnSettings(QStringLiteral("tensorcode-ide-menus"));
  }

  // Item 8: a budget error is no dead end.
  void aBudgetErrorIsRaisedInCompileOptionsAndSaved() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("big.py"));
    {
      QFile f(path);
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write(kBigLoop);
    }
    {
      MainWindow w;
      showAndOpen(w, path);
      QVERIFY(w.session()->compileFailed() || !w.session()->program());
      QVERIFY(!w.session()->diagnostics().empty());
      const Diagnostic& d = w.session()->diagnostics().front();
      QCOMPARE(d.code, DiagCode::IterationBudget);
      const QString msg = QString::fromStdString(d.message);
      QVERIFY2(msg.contains(QStringLiteral("the Max iterations setting (Program > Compile Options)")), qPrintable(msg));
      QVERIFY2(!msg.contains(QStringLiteral("--max")), qPrintable(msg));
      // Raise the budget in the dialog, by keyboard.
      CompileOptionsDialog* dialog = openCompileOptions(w);
      QVERIFY(dialog);
      QCOMPARE(dialog->iterationsBox()->value(), 1024);
      dialog->iterationsBox()->setFocus();
      dialog->iterationsBox()->selectAll();
      QTest::keyClicks(dialog->iterationsBox(), QStringLiteral("20000"));
      QTest::keyClick(dialog->iterationsBox(), Qt::Key_Return);
      QVERIFY(w.waitUntilSettled(30000));
      QVERIFY2(w.session()->program() && !w.session()->compileFailed(),
               w.session()->diagnostics().empty() ? "" : w.session()->diagnostics().front().message.c_str());
      QVERIFY2(w.editor()->text().contains(QStringLiteral("# tensorcode: compile max-iterations=20000\n")),
               qPrintable(w.editor()->text()));
      typeIntoCell(w.inputs()->table(), w.inputs()->rowOf(QStringLiteral("a")), 4, QStringLiteral("3"));
      QVERIFY(w.waitUntilSettled(30000));
      QCOMPARE(w.session()->exactRun().outputs.at(0), 30015.0);
      // Nothing is on disk before Save; Save writes it.
      QVERIFY(!fileText(path).contains(QStringLiteral("compile")));
      pressKeys(w.editor(), QKeySequence::Save);
      QVERIFY(fileText(path).contains(QStringLiteral("# tensorcode: compile max-iterations=20000")));
    }
    // Reopened: it compiles at once, and the dialog shows the saved settings.
    MainWindow w;
    showAndOpen(w, path);
    QVERIFY(w.session()->program() && !w.session()->compileFailed());
    CompileOptionsDialog* dialog = openCompileOptions(w);
    QVERIFY(dialog);
    QCOMPARE(dialog->iterationsBox()->value(), 20000);
    QCOMPARE(dialog->dtypeBox()->currentText(), QStringLiteral("float64"));
    // The dtype too: float32 by keyboard.
    dialog->dtypeBox()->setFocus();
    QTest::keyClick(dialog->dtypeBox(), Qt::Key_Down);
    QCOMPARE(dialog->dtypeBox()->currentText(), QStringLiteral("float32"));
    QTest::keyClick(dialog->dtypeBox(), Qt::Key_Return);
    QVERIFY(w.waitUntilSettled(30000));
    QCOMPARE(w.session()->program()->dtype, Dtype::Float32);
    QVERIFY2(w.editor()->text().contains(QStringLiteral("# tensorcode: compile dtype=float32 max-iterations=20000\n")),
             qPrintable(w.editor()->text()));
  }

  // Help > Keyboard Shortcuts lists the menu entries with their keys.
  void helpListsTheShortcuts() {
    MainWindow w;
    w.resize(1280, 800);
    w.show();
    QApplication::setActiveWindow(&w);
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    pressKeys(w.editor(), QKeySequence(Qt::Key_F1));
    QTreeWidget* list = nullptr;
    QTRY_VERIFY_WITH_TIMEOUT((list = w.findChild<QTreeWidget*>(QStringLiteral("ShortcutList"))) != nullptr, 3000);
    auto keyOf = [list](const QString& action) {
      for (int i = 0; i < list->topLevelItemCount(); ++i)
        if (list->topLevelItem(i)->text(1) == action) return list->topLevelItem(i)->text(2);
      return QString();
    };
    QCOMPARE(keyOf(QStringLiteral("Go to Line")), QKeySequence(QStringLiteral("Ctrl+L")).toString(QKeySequence::NativeText));
    QCOMPARE(keyOf(QStringLiteral("Compile Options")),
             QKeySequence(QStringLiteral("Ctrl+Shift+B")).toString(QKeySequence::NativeText));
    QCOMPARE(keyOf(QStringLiteral("Step Forward")), QStringLiteral("F10"));
    QCOMPARE(keyOf(QStringLiteral("Keyboard Shortcuts")), QStringLiteral("F1"));
  }

  // Item 10: Find Node by op, id, name and source line, stepping through the matches.
  void findNodeByOpNameIdAndLine() {
    MainWindow w;
    showAndOpen(w, data("ratio.py"));
    auto p = w.session()->program();
    QVERIFY(p);
    auto search = [&w](const QString& text) {
      pressKeys(w.editor(), QKeySequence(QStringLiteral("Ctrl+G")));
      QCOMPARE(QApplication::focusWidget(), static_cast<QWidget*>(w.nodeSearchEdit()));
      QTest::keyClicks(w.nodeSearchEdit(), text);  // Ctrl+G selected the old text: typing replaces it
      QTest::keyClick(w.nodeSearchEdit(), Qt::Key_Return);
    };
    search(QStringLiteral("select"));
    QCOMPARE(p->nodes[static_cast<std::size_t>(w.session()->selected())].op, Op::Select);
    const int selects = static_cast<int>(p->nodes_of(Op::Select).size());
    QCOMPARE(w.nodeSearchCount()->text(), QStringLiteral("1 of %1").arg(selects));
    // Source line 6 ("return x / (y + 1)"): its nodes, one Return after another.
    search(QStringLiteral("line 6"));
    std::vector<NodeId> onLine;
    for (const auto& n : p->nodes)
      if (n.location && n.location->line == 6) onLine.push_back(n.id);
    QVERIFY(onLine.size() >= 2);
    QCOMPARE(w.session()->selected(), onLine[0]);
    QTest::keyClick(w.nodeSearchEdit(), Qt::Key_Return);
    QCOMPARE(w.session()->selected(), onLine[1]);
    QCOMPARE(w.nodeSearchCount()->text(), QStringLiteral("2 of %1").arg(onLine.size()));
    // An id and a name.
    search(QStringLiteral("#2"));
    QCOMPARE(w.session()->selected(), NodeId{2});
    search(QStringLiteral("y"));
    QCOMPARE(w.session()->selected(), *p->find_named(Op::Input, "y"));
    search(QStringLiteral("nothing-like-this"));
    QCOMPARE(w.nodeSearchCount()->text(), QStringLiteral("no match"));
  }

  // Copy habits: Ctrl+C in the Inspector, the circuit and the IR text; the IR line's context menu.
  void ctrlCAndContextMenusCopyANode() {
    MainWindow w;
    showAndOpen(w, data("ratio.py"));
    auto p = w.session()->program();
    const NodeId y = *p->find_named(Op::Input, "y");
    w.session()->select(y);
    QClipboard* clip = QGuiApplication::clipboard();
    // The IR line as the listing writes it, with its "%N =" (issue 38: it was dropped).
    const QString ir = QStringLiteral("%%1 = ").arg(y) + QString::fromStdString(node_text(*p, y));
    // The Inspector: the row, tab-separated.
    clip->clear();
    QTableView* table = w.inspector()->tableView();
    table->setCurrentIndex(w.inspector()->model()->index(y, InspectorModel::Value));
    pressKeys(table, QKeySequence::Copy);
    QVERIFY2(clip->text().startsWith(ir + QLatin1Char('\t')), qPrintable(clip->text()));
    // The circuit: the IR line and the value.
    clip->clear();
    pressKeys(w.graph(), QKeySequence::Copy);
    QCOMPARE(clip->text(), ir + QStringLiteral("  = 0"));
    // The IR text with nothing selected: the selected node's line.
    clip->clear();
    pressKeys(w.irText(), QKeySequence::Copy);
    QCOMPARE(clip->text(), ir);
    // Right-click on the IR line of node 2: Copy Node Id.
    QTextCursor c(w.irText()->document()->findBlockByNumber(w.irText()->firstNodeLine() + 2));
    const QPoint at = w.irText()->cursorRect(c).center();
    QString triggered;
    auto* poll = new QTimer(&w);
    QObject::connect(poll, &QTimer::timeout, poll, [poll, &triggered] {
      auto* menu = qobject_cast<QMenu*>(QApplication::activePopupWidget());
      if (!menu) return;
      poll->stop();
      for (QAction* a : menu->actions())
        if (a->text() == QStringLiteral("Copy Node &Id")) {
          triggered = a->text();
          a->trigger();
        }
      menu->close();
    });
    poll->start(20);
    clip->clear();
    QContextMenuEvent ev(QContextMenuEvent::Mouse, at, w.irText()->viewport()->mapToGlobal(at));
    QApplication::sendEvent(w.irText()->viewport(), &ev);  // a right-click arrives at the viewport
    QVERIFY(!triggered.isEmpty());
    QCOMPARE(clip->text(), QStringLiteral("%2"));
  }
};

QTEST_MAIN(MenusTest)
#include "menus_test.moc"
