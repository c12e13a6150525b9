#pragma once
// The source editor (QScintilla, Python lexer) and the problems list.
#include <QTreeWidget>
#include <Qsci/qsciscintilla.h>

#include "views/session.h"

class QsciLexerPython;

namespace tc {
namespace views {

class SourceEditor : public QsciScintilla, public Viewer {
  Q_OBJECT
 public:
  explicit SourceEditor(Session* session, QWidget* parent = nullptr);
  ~SourceEditor() override;

  void programChanged() override;
  void selectionChanged() override;

  /// Puts the cursor on a 1-based line and column and scrolls there.
  void goTo(int line, int column);
  /// Lines (1-based) that carry an error or warning marker now.
  [[nodiscard]] QList<int> markedLines() const;
  /// 1-based line range of the node-selection highlight, or {0, 0}.
  [[nodiscard]] QPair<int, int> selectionHighlight() const { return highlight_; }
  /// Drops the editor's own binding of each key (QScintilla's defaults: Ctrl+L
  /// cuts the line, Ctrl++ zooms the text) so the window's actions get it;
  /// returns the descriptions of the commands that lost a key.
  QStringList yieldKeys(const QList<QKeySequence>& keys);
  /// Replaces every occurrence of `find` (plain text, any case, as Find
  /// matches) by `with` as one undo step; the number replaced (0 when
  /// read-only or nothing matches).
  int replaceAll(const QString& find, const QString& with);

 private:
  void showDiagnostics();
  void loadDocument();
  void applyRewrite(const QString& text);
  void onCursor(int line, int index);

  Session* session_;
  QsciLexerPython* lexer_;
  bool programmatic_ = false;
  QPair<int, int> highlight_{0, 0};
};

/// Errors and warnings of the last compile; activating one jumps to it.
class ProblemsView : public QTreeWidget {
  Q_OBJECT
 public:
  explicit ProblemsView(Session* session, QWidget* parent = nullptr);
  void refresh();

 signals:
  void jump(int line, int column);

 private:
  Session* session_;
};

}  // namespace views
}  // namespace tc
