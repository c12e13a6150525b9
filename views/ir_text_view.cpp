// The IR text view: core's listing, linked to the selection both ways (views/panels.h).
#include "views/panels.h"

#include "views/copy_actions.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QLineEdit>
#include <QLabel>
#include <QScrollBar>
#include <QSlider>
#include <QTableView>
#include <QClipboard>
#include <QContextMenuEvent>
#include <QGuiApplication>
#include <QKeyEvent>
#include <QMenu>
#include <QTableWidget>
#include <QTextBlock>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <memory>

namespace tc {
namespace views {

IrTextView::IrTextView(Session* session, QWidget* parent) : QPlainTextEdit(parent), session_(session) {
  setReadOnly(true);
  setLineWrapMode(QPlainTextEdit::NoWrap);
  QFont f(QStringLiteral("DejaVu Sans Mono"));
  f.setStyleHint(QFont::Monospace);
  f.setPointSize(9);
  setFont(f);
  session_->addViewer(this);
  connect(this, &QPlainTextEdit::cursorPositionChanged, this, [this] {
    if (programmatic_ || !session_->program()) return;
    const int node = textCursor().blockNumber() - first_node_line_;
    if (node >= 0 && node < static_cast<int>(session_->program()->nodes.size())) session_->selectAndCentre(node);
  });
}

IrTextView::~IrTextView() { session_->removeViewer(this); }

NodeId IrTextView::nodeOnLine(int line) const {
  const int node = line - first_node_line_;
  const auto p = session_->program();
  return p && node >= 0 && node < static_cast<int>(p->nodes.size()) ? node : -1;
}

bool IrTextView::event(QEvent* ev) {
  if (ev->type() == QEvent::ShortcutOverride && !textCursor().hasSelection())
    if (auto* key = static_cast<QKeyEvent*>(ev); key->matches(QKeySequence::Copy)) return false;
  return QPlainTextEdit::event(ev);
}

void IrTextView::contextMenuEvent(QContextMenuEvent* ev) {
  // The text edit's own menu (Copy, Select All) and, on a node's line, the node's copy actions.
  std::unique_ptr<QMenu> menu(createStandardContextMenu(ev->pos()));
  const NodeId id = nodeOnLine(cursorForPosition(ev->pos()).blockNumber());
  if (id >= 0) {
    menu->addSeparator();
    addNodeActions(menu.get(), session_, id);
  }
  menu->exec(ev->globalPos());
}

void IrTextView::programChanged() {
  auto program = session_->program();
  if (!program) {
    setPlainText(QString());
    return;
  }
  auto layers = session_->layers();
  session_->worker().post(QStringLiteral("disassemble"), [this, program, layers](JobControl&) -> EngineWorker::Deliver {
    auto d = std::make_shared<Disassembly>(disassemble(*program, layers));
    return [this, d, program] {
      if (program != session_->program()) return;
      programmatic_ = true;
      const int scroll = verticalScrollBar()->value();
      // The user's horizontal position (the left edge on first open) survives
      // the reload; placing the cursor below would scroll to its column.
      const int hscroll = horizontalScrollBar()->value();
      // Every live QTextCursor (the extra selections hold one per tinted line)
      // is adjusted on every insertion: with the 9,000 nodes of one loop
      // statement tinted, setPlainText took seconds. Drop them first.
      setExtraSelections({});
      setPlainText(QString::fromStdString(d->text));
      verticalScrollBar()->setValue(scroll);
      first_node_line_ = d->first_node_line;
      shown_ = program;
      header_.clear();
      programmatic_ = false;
      updateHeader();
      selectionChanged();
      horizontalScrollBar()->setValue(hscroll);
    };
  }, this);
}

QString IrTextView::headerText() const {
  const auto p = session_->program();
  if (!p) return {};
  // One semantics label everywhere: the one the Inspector's switcher chose.
  // Forward values are exact under exact and hybrid alike, so the program's
  // own default only matters when it differs.
  QString h = QStringLiteral("; semantics %1").arg(QString::fromUtf8(to_string(session_->semantics()).data()));
  if (p->semantics != session_->semantics())
    h += tr(" (set in the Inspector; the program's default is %1)").arg(QString::fromUtf8(to_string(p->semantics).data()));
  h += QStringLiteral(", dtype %1, %2 nodes").arg(QString::fromUtf8(to_string(p->dtype).data())).arg(p->nodes.size());
  return h;
}

void IrTextView::updateHeader() {
  if (!shown_ || first_node_line_ < 1) return;
  const QString h = headerText();
  if (h == header_) return;
  header_ = h;
  programmatic_ = true;
  QTextCursor c(document()->findBlockByNumber(0));
  c.select(QTextCursor::LineUnderCursor);
  const QTextCursor keep = textCursor();
  const int hscroll = horizontalScrollBar()->value();
  c.insertText(h);
  setTextCursor(keep);
  horizontalScrollBar()->setValue(hscroll);
  programmatic_ = false;
}

void IrTextView::selectionChanged() {
  QList<QTextEdit::ExtraSelection> extras;
  const NodeId id = session_->selected();
  if (shown_ && id >= 0 && static_cast<std::size_t>(id) < shown_->nodes.size()) {
    QTextBlock block = document()->findBlockByNumber(id + first_node_line_);
    if (block.isValid()) {
      QTextEdit::ExtraSelection sel;
      sel.format.setBackground(QColor(0xdc, 0xe8, 0xff));
      sel.format.setProperty(QTextFormat::FullWidthSelection, true);
      sel.cursor = QTextCursor(block);
      extras << sel;
      programmatic_ = true;
      QTextCursor c(block);
      setTextCursor(c);
      ensureCursorVisible();
      programmatic_ = false;
    }
  }
  // The caret's line can hold thousands of nodes (a loop body): tint the
  // first kMaxTintedLines of them here; the circuit view marks them all.
  constexpr int kMaxTintedLines = 500;
  int tinted = 0;
  for (NodeId h : session_->highlighted()) {
    if (++tinted > kMaxTintedLines) break;
    QTextBlock block = document()->findBlockByNumber(h + first_node_line_);
    if (!block.isValid() || h == id) continue;
    QTextEdit::ExtraSelection sel;
    sel.format.setBackground(QColor(0xff, 0xf0, 0xd0));
    sel.format.setProperty(QTextFormat::FullWidthSelection, true);
    sel.cursor = QTextCursor(block);
    extras << sel;
  }
  setExtraSelections(extras);
}

}  // namespace views
}  // namespace tc
