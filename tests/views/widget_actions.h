#pragma once
// What the IDE's Qt Test journeys do with widgets, as a user does it: type
// into a table cell or the editor, find a menu action; and where their files
// are, and the settings each test runs with. Shared by the views tests.
#include <QAction>
#include <QApplication>
#include <QCoreApplication>
#include <QLineEdit>
#include <QSettings>
#include <QString>
#include <QTableWidget>
#include <QTest>
#include <QTimer>
#include <QWidget>

#include <functional>
#include <memory>

#include "views/editor.h"
#include "views/main_window.h"
#include "views/session.h"
#include "views_test_paths.h"

namespace tc::views::testing {

inline QString data(const char* name) { return tc_views_paths::under(tc_views_paths::viewsTestData(), name); }
inline QString example(const char* name) { return tc_views_paths::under(tc_views_paths::examples(), name); }

/// Types `text` into the cell (row, col) of `table` as a user does: F2, keys, Return.
inline void typeIntoCell(QTableWidget* table, int row, int col, const QString& text) {
  QApplication::setActiveWindow(table->window());
  table->setFocus();
  table->setCurrentCell(row, col);
  QTest::keyClick(table, Qt::Key_F2);
  QWidget* editor = QApplication::focusWidget();
  QVERIFY(editor && editor != table);
  if (auto* line = qobject_cast<QLineEdit*>(editor)) line->selectAll();
  QTest::keyClicks(editor, text);
  QTest::keyClick(editor, Qt::Key_Return);
}

/// Types at the end of the source editor.
inline void typeAtEnd(SourceEditor* editor, const QString& text) {
  editor->setFocus();
  const int last = editor->lines() - 1;
  editor->setCursorPosition(last, editor->text(last).size());
  QTest::keyClicks(editor, text);
}

/// Types `lines` as new lines at the end of the source editor, key by key,
/// replacing whatever indentation auto-indent offers with the line's own.
inline void typeLinesAtEnd(SourceEditor* editor, const QStringList& lines) {
  typeAtEnd(editor, QString());
  for (const QString& line : lines) {
    QTest::keyClick(editor, Qt::Key_Return);
    int l = 0, c = 0;
    editor->getCursorPosition(&l, &c);
    while (c > 0) {  // only auto-indent is left of the caret on a new line
      QTest::keyClick(editor, Qt::Key_Backspace);
      editor->getCursorPosition(&l, &c);
    }
    QTest::keyClicks(editor, line);
  }
}

/// Calls `answer` on the next modal widget of type T (a blocking dialog runs
/// its own event loop, so this polls from a timer); gives up after 5 s so a
/// dialog that never opens cannot leak into the next test.
template <class T>
inline void answerNextModal(std::function<void(T*)> answer) {
  auto* poll = new QTimer;
  auto tries = std::make_shared<int>(0);
  QObject::connect(poll, &QTimer::timeout, poll, [poll, tries, answer] {
    if (auto* d = qobject_cast<T*>(QApplication::activeModalWidget())) {
      poll->stop();
      poll->deleteLater();
      answer(d);
    } else if (++*tries > 250) {
      poll->stop();
      poll->deleteLater();
    }
  });
  poll->start(20);
}

/// Presses `keys` in `target` as a user does after a dialog closed: the
/// window is made active again first (shortcuts only fire in the active window).
inline void pressKeys(QWidget* target, const QKeySequence& keys) {
  QApplication::setActiveWindow(target->window());
  target->setFocus();
  QTest::keySequence(target, keys);
}

/// Settings of a test's own, cleared: a test run neither reads the user's
/// IDE settings nor leaves state for the next run. `app` names the test.
inline void useOwnSettings(const QString& app) {
  QCoreApplication::setOrganizationName(QStringLiteral("tensorcode-test"));
  QCoreApplication::setApplicationName(app);
  QSettings().clear();
}

/// Shows the window at a fixed size, opens `path` and waits until it has
/// compiled and run; edits are then recompiled after 30 ms, not the
/// user-facing debounce.
inline void showAndOpen(MainWindow& w, const QString& path) {
  w.resize(1280, 800);
  w.show();
  QApplication::setActiveWindow(&w);
  QVERIFY(QTest::qWaitForWindowExposed(&w));
  QVERIFY(w.openPath(path));
  QVERIFY(w.waitUntilSettled(30000));
  w.session()->setDebounceMs(30);
}

inline QAction* findAction(QWidget* w, const QString& text) {
  for (QAction* a : w->findChildren<QAction*>())
    if (a->text() == text) return a;
  return nullptr;
}

}  // namespace tc::views::testing
