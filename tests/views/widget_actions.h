#pragma once
// What the IDE's Qt Test journeys do with widgets, as a user does it: type
// into a table cell or the editor, find a menu action; and where their files
// are. Shared by journeys_test.cpp and panels_test.cpp.
#include <QAction>
#include <QApplication>
#include <QLineEdit>
#include <QString>
#include <QTableWidget>
#include <QTest>
#include <QWidget>

#include "views/editor.h"

namespace tc::views::testing {

inline QString data(const char* name) { return QStringLiteral(TC_VIEWS_TEST_DATA "/") + QLatin1String(name); }
inline QString example(const char* name) { return QStringLiteral(TC_EXAMPLES "/") + QLatin1String(name); }

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

inline QAction* findAction(QWidget* w, const QString& text) {
  for (QAction* a : w->findChildren<QAction*>())
    if (a->text() == text) return a;
  return nullptr;
}

}  // namespace tc::views::testing
