#include "views/editor.h"

#include <QFontDatabase>
#include <QHeaderView>
#include <Qsci/qscicommandset.h>
#include <Qsci/qscilexerpython.h>

namespace tc {
namespace views {
namespace {

enum Marker { kErrorMarker = 1, kWarningMarker = 2, kSelectedLine = 3 };
enum Indicator { kErrorIndicator = 8, kWarningIndicator = 9, kNodeIndicator = 10 };

QFont editor_font() {
  QFont f(QStringLiteral("DejaVu Sans Mono"));
  f.setStyleHint(QFont::Monospace);
  f.setPointSize(10);
  return f;
}

}  // namespace

SourceEditor::SourceEditor(Session* session, QWidget* parent) : QsciScintilla(parent), session_(session) {
  lexer_ = new QsciLexerPython(this);
  const QFont f = editor_font();
  lexer_->setDefaultFont(f);
  for (int style = 0; style < 128; ++style) lexer_->setFont(f, style);
  setLexer(lexer_);
  setUtf8(true);
  setIndentationsUseTabs(false);
  setIndentationWidth(4);
  setTabWidth(4);
  setAutoIndent(true);
  // Backspace in leading indentation removes one level (4 spaces), not one
  // space: a lone space breaks Python's indentation ("unindent does not match").
  setBackspaceUnindents(true);
  setBraceMatching(QsciScintilla::SloppyBraceMatch);
  setCaretLineVisible(true);
  setCaretLineBackgroundColor(QColor(0xf2, 0xf5, 0xfb));

  // Margin 0: line numbers; margin 1: error/warning markers.
  setMarginType(0, QsciScintilla::NumberMargin);
  setMarginsFont(f);
  setMarginWidth(0, QStringLiteral("0000"));
  setMarginsBackgroundColor(QColor(0xf5, 0xf6, 0xf8));
  setMarginsForegroundColor(QColor(0x8a, 0x90, 0x9c));
  setMarginType(1, QsciScintilla::SymbolMargin);
  setMarginWidth(1, 16);
  setMarginSensitivity(1, false);
  markerDefine(QsciScintilla::Circle, kErrorMarker);
  setMarkerBackgroundColor(QColor(0xd9, 0x30, 0x25), kErrorMarker);
  setMarkerForegroundColor(QColor(0xa0, 0x10, 0x10), kErrorMarker);
  markerDefine(QsciScintilla::Circle, kWarningMarker);
  setMarkerBackgroundColor(QColor(0xf0, 0xa2, 0x02), kWarningMarker);
  setMarkerForegroundColor(QColor(0xb0, 0x70, 0x00), kWarningMarker);
  markerDefine(QsciScintilla::Background, kSelectedLine);
  setMarkerBackgroundColor(QColor(0xdc, 0xe8, 0xff), kSelectedLine);
  // Markers 1 and 2 live in margin 1; the line background marker needs no margin.
  setMarginMarkerMask(1, (1 << kErrorMarker) | (1 << kWarningMarker));
  setMarginMarkerMask(0, 0);
  SendScintilla(SCI_SETSCROLLWIDTHTRACKING, 1);  // the range grows with the lines shown (reset per document)

  indicatorDefine(QsciScintilla::SquiggleIndicator, kErrorIndicator);
  setIndicatorForegroundColor(QColor(0xd9, 0x30, 0x25), kErrorIndicator);
  indicatorDefine(QsciScintilla::SquiggleIndicator, kWarningIndicator);
  setIndicatorForegroundColor(QColor(0xe0, 0x90, 0x00), kWarningIndicator);
  indicatorDefine(QsciScintilla::FullBoxIndicator, kNodeIndicator);
  setIndicatorForegroundColor(QColor(0x2b, 0x6c, 0xd8, 90), kNodeIndicator);
  setIndicatorOutlineColor(QColor(0x2b, 0x6c, 0xd8), kNodeIndicator);
  setAnnotationDisplay(QsciScintilla::AnnotationBoxed);

  session_->addViewer(this);
  connect(this, &QsciScintilla::textChanged, this, [this] {
    if (!programmatic_) session_->setSource(text());
  });
  connect(this, &QsciScintilla::cursorPositionChanged, this, &SourceEditor::onCursor);
  connect(session_, &Session::documentChanged, this, &SourceEditor::loadDocument);
  connect(session_, &Session::sourceRewritten, this, &SourceEditor::applyRewrite);
  connect(session_, &Session::compiled, this, &SourceEditor::showDiagnostics);
}

SourceEditor::~SourceEditor() { session_->removeViewer(this); }

void SourceEditor::loadDocument() {
  programmatic_ = true;
  if (session_->readOnly()) {
    setLexer(nullptr);
    QString header = tr("# %1 is an artifact: it carries no source, so this view is read-only.\n"
                        "# The IR text view lists its nodes; the graph shows the circuit.\n")
                         .arg(session_->filePath());
    setText(header);
    setReadOnly(true);
  } else {
    setLexer(lexer_);
    setReadOnly(false);
    setText(session_->source());
  }
  programmatic_ = false;
  // Each document starts at its top-left corner with a scroll range of its
  // own lines: Scintilla keeps the last offset and only ever widens the
  // range (2000 px to start with), so a file opened after an artifact's long
  // note started scrolled sideways.
  setCursorPosition(0, 0);
  SendScintilla(SCI_SETSCROLLWIDTH, 1);
  SendScintilla(SCI_SETXOFFSET, 0);
  SendScintilla(SCI_SETFIRSTVISIBLELINE, 0);
  clearAnnotations();
  markerDeleteAll();
}

void SourceEditor::applyRewrite(const QString& text) {
  // One undoable step, keeping the cursor where it was.
  int line = 0, index = 0;
  getCursorPosition(&line, &index);
  const int oldLines = lines();
  programmatic_ = true;
  beginUndoAction();
  selectAll();
  replaceSelectedText(text);
  endUndoAction();
  programmatic_ = false;
  setCursorPosition(std::max(0, line + lines() - oldLines), index);
}

int SourceEditor::replaceAll(const QString& find, const QString& with) {
  if (find.isEmpty() || isReadOnly()) return 0;
  // Scintilla's own target search and replace, between one begin/end undo
  // pair: a single Ctrl+Z restores the text, and the session sees the edits
  // through textChanged like typed ones.
  const QByteArray what = find.toUtf8(), by = with.toUtf8();
  int count = 0;
  long start = 0;
  SendScintilla(SCI_SETSEARCHFLAGS, 0);  // plain text, any case
  beginUndoAction();
  for (;;) {
    SendScintilla(SCI_SETTARGETSTART, start);
    SendScintilla(SCI_SETTARGETEND, SendScintilla(SCI_GETLENGTH));
    if (static_cast<long>(SendScintilla(SCI_SEARCHINTARGET, what.size(), what.constData())) < 0) break;
    SendScintilla(SCI_REPLACETARGET, by.size(), by.constData());
    start = static_cast<long>(SendScintilla(SCI_GETTARGETEND));  // after the replacement: never matched again
    ++count;
  }
  endUndoAction();
  return count;
}

void SourceEditor::showDiagnostics() {
  markerDeleteAll(kErrorMarker);
  markerDeleteAll(kWarningMarker);
  clearIndicatorRange(0, 0, lines(), 0, kErrorIndicator);
  clearIndicatorRange(0, 0, lines(), 0, kWarningIndicator);
  clearAnnotations();
  if (session_->readOnly()) return;
  QMap<int, QStringList> notes;
  for (const auto& d : session_->diagnostics()) {
    if (!d.loc || !d.loc->valid()) continue;
    const int line = d.loc->line - 1;
    if (line >= lines()) continue;
    const bool err = d.severity == Severity::Error;
    markerAdd(line, err ? kErrorMarker : kWarningMarker);
    const int col = std::max(0, d.loc->column - 1);
    const int len = lineLength(line);
    long pos = positionFromLineIndex(line, std::min(col, std::max(0, len - 1)));
    long end = SendScintilla(SCI_WORDENDPOSITION, static_cast<unsigned long>(pos), true);
    if (end <= pos) end = pos + 1;
    int eline = 0, eindex = 0;
    lineIndexFromPosition(static_cast<int>(end), &eline, &eindex);
    if (eline != line) eindex = len;
    fillIndicatorRange(line, std::min(col, std::max(0, len - 1)), line, eindex, err ? kErrorIndicator : kWarningIndicator);
    notes[line] << (err ? tr("error: %1") : tr("warning: %1")).arg(QString::fromStdString(d.message));
  }
  for (auto it = notes.begin(); it != notes.end(); ++it) annotate(it.key(), it.value().join(QLatin1Char('\n')), 0);
}

void SourceEditor::programChanged() { selectionChanged(); }

void SourceEditor::selectionChanged() {
  markerDeleteAll(kSelectedLine);
  clearIndicatorRange(0, 0, lines(), 0, kNodeIndicator);
  highlight_ = {0, 0};
  const auto program = session_->program();
  const NodeId id = session_->selected();
  if (!program || id < 0 || session_->readOnly()) return;
  const Node& n = program->nodes[static_cast<std::size_t>(id)];
  if (!n.location || !n.location->valid()) return;
  const int line = n.location->line - 1;
  if (line >= lines()) return;
  markerAdd(line, kSelectedLine);
  const int len = lineLength(line);
  const int col = std::clamp(n.location->column - 1, 0, std::max(0, len - 1));
  long pos = positionFromLineIndex(line, col);
  long end = SendScintilla(SCI_WORDENDPOSITION, static_cast<unsigned long>(pos), true);
  if (end <= pos) end = pos + 1;
  int eline = 0, eindex = 0;
  lineIndexFromPosition(static_cast<int>(end), &eline, &eindex);
  if (eline != line) eindex = len;
  fillIndicatorRange(line, col, line, eindex, kNodeIndicator);
  highlight_ = {line + 1, line + 1};
  // Move the view (not the cursor) so selecting in the graph never steals the editor's caret.
  ensureLineVisible(line);
}

void SourceEditor::goTo(int line, int column) {
  setFocus();
  setCursorPosition(std::max(0, line - 1), std::max(0, column - 1));
  ensureLineVisible(std::max(0, line - 1));
}

QStringList SourceEditor::yieldKeys(const QList<QKeySequence>& keys) {
  // A key bound to a command makes QScintilla accept the ShortcutOverride, so
  // the menu's shortcut never fires while the editor has focus.
  QStringList released;
  for (const QKeySequence& seq : keys) {
    for (int i = 0; i < seq.count(); ++i) {
      const int key = seq[i].toCombined();
      while (QsciCommand* c = standardCommands()->boundTo(key)) {
        if (c->key() == key) c->setKey(0);
        if (c->alternateKey() == key) c->setAlternateKey(0);
        released << c->description();
      }
    }
  }
  return released;
}

QList<int> SourceEditor::markedLines() const {
  QList<int> out;
  const int mask = (1 << kErrorMarker) | (1 << kWarningMarker);
  for (int l = 0; l < lines(); ++l) {
    if (const_cast<SourceEditor*>(this)->markersAtLine(l) & static_cast<unsigned>(mask)) out << l + 1;
  }
  return out;
}

void SourceEditor::onCursor(int line, int) {
  if (programmatic_) return;
  session_->highlightLine(line + 1);
}

ProblemsView::ProblemsView(Session* session, QWidget* parent) : QTreeWidget(parent), session_(session) {
  setColumnCount(3);
  setHeaderLabels({tr("Severity"), tr("Location"), tr("Message")});
  setRootIsDecorated(false);
  setAlternatingRowColors(true);
  // A long message (a hybrid jump term) wraps onto more lines instead of being cut at the dock's edge.
  setWordWrap(true);
  setUniformRowHeights(false);
  setTextElideMode(Qt::ElideNone);
  header()->setSectionResizeMode(2, QHeaderView::Stretch);
  header()->setStretchLastSection(true);
  connect(session_, &Session::compiled, this, &ProblemsView::refresh);
  connect(session_, &Session::evaluated, this, &ProblemsView::refresh);
  connect(this, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem* item) {
    emit jump(item->data(1, Qt::UserRole).toInt(), item->data(1, Qt::UserRole + 1).toInt());
  });
  connect(this, &QTreeWidget::itemClicked, this, [this](QTreeWidgetItem* item) {
    emit jump(item->data(1, Qt::UserRole).toInt(), item->data(1, Qt::UserRole + 1).toInt());
  });
  // A problem of the case (a failed gradient) also selects its node.
  connect(this, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem* item) {
    if (!item) return;
    const QVariant node = item->data(2, Qt::UserRole);
    if (node.isValid() && node.toInt() >= 0) session_->select(node.toInt());
  });
}

void ProblemsView::refresh() {
  clear();
  auto add = [this](const Diagnostic& d, NodeId node) {
    auto* item = new QTreeWidgetItem(this);
    const bool err = d.severity == Severity::Error;
    item->setText(0, err ? tr("error") : d.severity == Severity::Warning ? tr("warning") : tr("note"));
    item->setForeground(0, err ? QColor(0xc0, 0x20, 0x20) : QColor(0xb0, 0x70, 0x00));
    if (d.loc && d.loc->valid()) {
      item->setText(1, QStringLiteral("%1:%2").arg(d.loc->line).arg(d.loc->column));
      item->setData(1, Qt::UserRole, d.loc->line);
      item->setData(1, Qt::UserRole + 1, d.loc->column);
    }
    item->setText(2, QString::fromStdString(d.message));
    item->setToolTip(2, QString::fromStdString(d.message));
    if (node >= 0) item->setData(2, Qt::UserRole, node);
  };
  for (const auto& d : session_->diagnostics()) add(d, -1);
  // The current case's problems, unless the source is broken (then they belong to an old circuit).
  if (!session_->compileFailed()) {
    const auto& g = session_->chosenGrad();
    for (const auto& d : session_->caseProblems()) add(d, g.failed_select >= 0 ? g.failed_select : d.node.value_or(-1));
  }
  resizeColumnToContents(0);
  resizeColumnToContents(1);
}

}  // namespace views
}  // namespace tc
