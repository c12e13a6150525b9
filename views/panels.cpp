#include "views/panels.h"

#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QScrollBar>
#include <QSlider>
#include <QTableView>
#include <QTableWidget>
#include <QTextBlock>
#include <QVBoxLayout>

#include <cmath>

namespace tc {
namespace views {
namespace {

QString num(double v) { return QString::fromStdString(format_number(v)); }

bool same_inputs(const std::vector<InputSpec>& a, const std::vector<InputSpec>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i].name != b[i].name || !(a[i].domain == b[i].domain)) return false;
  return true;
}

const char* kTypes[] = {"int32", "bool", "float32", "float64"};

int type_index(DomainType t) {
  switch (t) {
    case DomainType::Int32: return 0;
    case DomainType::Boolean: return 1;
    case DomainType::Float32: return 2;
    case DomainType::Float64: return 3;
  }
  return 3;
}

QString op_qname(Op op) {
  const auto n = op_name(op);
  return QString::fromUtf8(n.data(), static_cast<qsizetype>(n.size()));
}

}  // namespace

// ---------------------------------------------------------------------------
InputsPanel::InputsPanel(Session* session, QWidget* parent) : QWidget(parent), session_(session) {
  auto* lay = new QVBoxLayout(this);
  lay->setContentsMargins(4, 4, 4, 4);
  auto* top = new QHBoxLayout;
  top->addWidget(new QLabel(tr("Function:"), this));
  function_ = new QComboBox(this);
  top->addWidget(function_, 1);
  lay->addLayout(top);
  table_ = new QTableWidget(0, 5, this);
  table_->setHorizontalHeaderLabels({tr("Parameter"), tr("Type"), tr("Min"), tr("Max"), tr("Value")});
  table_->verticalHeader()->setVisible(false);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
  table_->horizontalHeader()->setSectionResizeMode(1, QHeaderView::Fixed);
  table_->setColumnWidth(1, 86);
  lay->addWidget(table_, 1);
  result_ = new QLabel(this);
  result_->setWordWrap(true);
  result_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  lay->addWidget(result_);
  session_->addViewer(this);
  connect(session_, &Session::compiled, this, &InputsPanel::rebuild);
  connect(function_, &QComboBox::currentTextChanged, this, [this](const QString& f) {
    if (!building_ && !f.isEmpty()) session_->setFunction(f);
  });
  connect(table_, &QTableWidget::itemChanged, this, [this](QTableWidgetItem* item) {
    if (building_) return;
    if (item->column() == 2 || item->column() == 3) commitDomain(item->row());
    if (item->column() == 4) commitValue(item->row());
  });
}

InputsPanel::~InputsPanel() { session_->removeViewer(this); }

void InputsPanel::programChanged() { rebuild(); }

int InputsPanel::rowOf(const QString& name) const {
  for (int r = 0; r < table_->rowCount(); ++r)
    if (table_->item(r, 0) && table_->item(r, 0)->text() == name) return r;
  return -1;
}

void InputsPanel::rebuild() {
  building_ = true;
  function_->clear();
  for (const auto& f : session_->functions()) function_->addItem(QString::fromStdString(f.name));
  function_->setCurrentText(session_->function());
  function_->setEnabled(session_->functions().size() > 1);
  const auto& inputs = session_->inputs();
  if (!same_inputs(inputs, shown_) || table_->rowCount() != static_cast<int>(inputs.size())) {
    shown_ = inputs;
    table_->setRowCount(static_cast<int>(inputs.size()));
    for (int r = 0; r < static_cast<int>(inputs.size()); ++r) {
      const auto& in = inputs[static_cast<std::size_t>(r)];
      auto* name = new QTableWidgetItem(QString::fromStdString(in.name));
      name->setFlags(name->flags() & ~Qt::ItemIsEditable);
      if (!in.from_directive) name->setToolTip(tr("no domain saved for this parameter: float64 over its full range"));
      table_->setItem(r, 0, name);
      auto* type = new QComboBox(table_);
      for (const char* t : kTypes) type->addItem(QString::fromLatin1(t));
      type->setCurrentIndex(type_index(in.domain.type));
      type->setEnabled(!session_->readOnly());
      connect(type, &QComboBox::currentIndexChanged, this, [this, r] {
        if (!building_) commitDomain(r);
      });
      table_->setCellWidget(r, 1, type);
      auto bound = [&](const std::optional<double>& v) {
        auto* it = new QTableWidgetItem(v ? num(*v) : QString());
        if (session_->readOnly() || in.domain.type == DomainType::Boolean) it->setFlags(it->flags() & ~Qt::ItemIsEditable);
        return it;
      };
      table_->setItem(r, 2, bound(in.domain.min));
      table_->setItem(r, 3, bound(in.domain.max));
      table_->item(r, 2)->setToolTip(tr("empty: the type's full range"));
      table_->item(r, 3)->setToolTip(tr("empty: the type's full range"));
      table_->setItem(r, 4, new QTableWidgetItem());
    }
  }
  for (int r = 0; r < table_->rowCount(); ++r) {
    const std::string name = shown_[static_cast<std::size_t>(r)].name;
    auto it = session_->currentCase().find(name);
    if (table_->item(r, 4)) table_->item(r, 4)->setText(it != session_->currentCase().end() ? num(it->second) : QStringLiteral("0"));
  }
  building_ = false;
  resultsChanged();
}

void InputsPanel::commitDomain(int row) {
  if (row < 0 || row >= static_cast<int>(shown_.size())) return;
  auto* type = qobject_cast<QComboBox*>(table_->cellWidget(row, 1));
  const QString lo = table_->item(row, 2) ? table_->item(row, 2)->text().trimmed() : QString();
  const QString hi = table_->item(row, 3) ? table_->item(row, 3)->text().trimmed() : QString();
  QString spelling = type->currentText();
  if (spelling != QLatin1String("bool") && (!lo.isEmpty() || !hi.isEmpty())) {
    // Fill a missing end with the type's full range so the spelling parses.
    Domain full = spelling == QLatin1String("int32") ? Domain::int32() : spelling == QLatin1String("float32") ? Domain::float32() : Domain::float64();
    spelling += QStringLiteral(":%1:%2").arg(lo.isEmpty() ? num(full.lo()) : lo, hi.isEmpty() ? num(full.hi()) : hi);
  }
  auto d = parse_domain(spelling.toStdString());
  if (!d.ok()) {
    result_->setText(QStringLiteral("<span style='color:#c02020'>%1</span>").arg(QString::fromStdString(d.error().message).toHtmlEscaped()));
    return;
  }
  session_->setInputDomain(shown_[static_cast<std::size_t>(row)].name, *d);
}

void InputsPanel::commitValue(int row) {
  if (row < 0 || row >= static_cast<int>(shown_.size())) return;
  bool ok = false;
  const double v = table_->item(row, 4)->text().trimmed().toDouble(&ok);
  const auto& spec = shown_[static_cast<std::size_t>(row)];
  if (!ok) {
    result_->setText(QStringLiteral("<span style='color:#c02020'>%1</span>").arg(tr("%1: not a number").arg(QString::fromStdString(spec.name))));
    return;
  }
  if (auto why = spec.domain.check(v)) {
    result_->setText(QStringLiteral("<span style='color:#c02020'>%1: %2</span>")
                         .arg(QString::fromStdString(spec.name), QString::fromStdString(*why).toHtmlEscaped()));
    return;
  }
  session_->setCaseValue(spec.name, v);
}

void InputsPanel::applyCase(const Case& c) {
  session_->setCase(c);
  building_ = true;
  for (const auto& [k, v] : c) {
    const int r = rowOf(QString::fromStdString(k));
    if (r >= 0 && table_->item(r, 4)) table_->item(r, 4)->setText(num(v));
  }
  building_ = false;
  if (!c.empty()) {
    const int r = rowOf(QString::fromStdString(c.begin()->first));
    if (r >= 0) table_->setCurrentCell(r, 4);
  }
}

void InputsPanel::resultsChanged() {
  const auto program = session_->program();
  const auto& run = session_->exactRun();
  if (!program) {
    result_->clear();
    return;
  }
  if (run.error) {
    // The message names the node and its source position already.
    result_->setText(QStringLiteral("<span style='color:#c02020'>%1</span>")
                         .arg(tr("error: %1").arg(QString::fromStdString(run.error->message)).toHtmlEscaped()));
    return;
  }
  QStringList parts;
  for (std::size_t i = 0; i < program->outputs.size() && i < run.outputs.size(); ++i)
    parts << QStringLiteral("<b>%1</b> = %2").arg(QString::fromStdString(program->outputs[i].first).toHtmlEscaped(), num(run.outputs[i]));
  result_->setText(parts.isEmpty() ? QString() : tr("Outputs: %1").arg(parts.join(QStringLiteral(", "))));
}

// ---------------------------------------------------------------------------
InspectorModel::InspectorModel(Session* session, QObject* parent) : QAbstractTableModel(parent), session_(session) {}

int InspectorModel::rowCount(const QModelIndex& parent) const {
  if (parent.isValid() || !session_->program()) return 0;
  return static_cast<int>(session_->program()->nodes.size());
}

int InspectorModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

void InspectorModel::reset() {
  beginResetModel();
  endResetModel();
}

QVariant InspectorModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  const QString chosen = QString::fromUtf8(to_string(session_->semantics()).data());
  switch (section) {
    case Node: return tr("Node");
    case Value: return tr("Value");
    case ChosenValue: return tr("Value (%1)").arg(chosen);
    case ExactGrad: return tr("∂ exact");
    case ChosenGrad: return tr("∂ %1").arg(chosen);
    case Branch: return tr("Branch");
    case Interval: return tr("Interval");
    default: return {};
  }
}

QVariant InspectorModel::data(const QModelIndex& index, int role) const {
  const auto program = session_->program();
  if (!program || !index.isValid()) return {};
  const auto id = static_cast<std::size_t>(index.row());
  const tc::Node& n = program->nodes[id];
  // Cells show 6 significant digits; the tooltip has the exact value.
  const bool tip = role == Qt::ToolTipRole;
  auto at = [&](const std::vector<double>& v) -> QVariant {
    if (id >= v.size()) return QString();
    if (std::isnan(v[id])) return QString::fromUtf8("—");
    return tip ? num(v[id]) : QString::fromStdString(format_short(v[id]));
  };
  if (role == Qt::TextAlignmentRole && index.column() >= Value) return int(Qt::AlignRight | Qt::AlignVCenter);
  if (role == Qt::ForegroundRole && index.column() == ChosenGrad) {
    const auto& e = session_->exactGrad().adjoint;
    const auto& c = session_->chosenGrad().adjoint;
    if (id < e.size() && id < c.size() && e[id] != c[id] && !(std::isnan(e[id]) && std::isnan(c[id])))
      return QColor(0xc0, 0x50, 0x00);  // the surrogate differs from the exact derivative here
  }
  if (role != Qt::DisplayRole && !(tip && index.column() != Node && index.column() != Branch)) return {};
  switch (index.column()) {
    case Node: {
      QString s = QStringLiteral("#%1 %2").arg(id).arg(op_qname(n.op));
      if (!n.name.empty()) s += QLatin1Char(' ') + QString::fromStdString(n.name);
      return s;
    }
    case Value: return at(session_->displayValues());
    case ChosenValue: return at(session_->chosenRun().trace.values);
    case ExactGrad: return at(session_->exactGrad().adjoint);
    case ChosenGrad: return at(session_->chosenGrad().adjoint);
    case Branch: {
      const auto& b = session_->exactRun().trace.branch;
      if (n.op != tc::Op::Select || id >= b.size() || b[id] < 0) return QString();
      return b[id] ? tr("yes") : tr("no");
    }
    case Interval: {
      const auto& iv = session_->analysis().intervals;
      if (id >= iv.size()) return QString();
      return QStringLiteral("[%1, %2]").arg(QString::fromStdString(format_short(iv[id].first)), QString::fromStdString(format_short(iv[id].second)));
    }
    default: return {};
  }
}

double InspectorPanel::temperatureAt(int position) {
  // 0..100 maps to 0.05..20 on a log scale; 50 is about 1.
  return 0.05 * std::pow(400.0, position / 100.0);
}

InspectorPanel::InspectorPanel(Session* session, QWidget* parent) : QWidget(parent), session_(session) {
  auto* lay = new QVBoxLayout(this);
  lay->setContentsMargins(4, 4, 4, 4);
  auto* form = new QFormLayout;
  semantics_ = new QComboBox(this);
  semantics_->addItem(tr("exact"), static_cast<int>(Semantics::Exact));
  semantics_->addItem(tr("relaxed"), static_cast<int>(Semantics::Relaxed));
  semantics_->addItem(tr("hybrid"), static_cast<int>(Semantics::Hybrid));
  semantics_->setCurrentIndex(2);
  semantics_->setToolTip(tr("Semantics of the second gradient column, compared with the exact gradient"));
  form->addRow(tr("Semantics:"), semantics_);
  auto* trow = new QHBoxLayout;
  temperature_ = new QSlider(Qt::Horizontal, this);
  temperature_->setRange(0, 100);
  temperature_->setValue(50);
  temperatureLabel_ = new QLabel(this);
  temperatureLabel_->setMinimumWidth(48);
  trow->addWidget(temperature_, 1);
  trow->addWidget(temperatureLabel_);
  form->addRow(tr("Temperature:"), trow);
  output_ = new QComboBox(this);
  form->addRow(tr("Gradient of:"), output_);
  lay->addLayout(form);
  detail_ = new QLabel(this);
  detail_->setWordWrap(true);
  detail_->setTextFormat(Qt::RichText);
  detail_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  detail_->setFrameShape(QFrame::StyledPanel);
  detail_->setMargin(6);
  detail_->setMinimumHeight(90);
  detail_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
  lay->addWidget(detail_);
  table_ = new QTableView(this);
  model_ = new InspectorModel(session_, this);
  table_->setModel(model_);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->verticalHeader()->setVisible(false);
  table_->verticalHeader()->setDefaultSectionSize(20);
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->horizontalHeader()->setDefaultSectionSize(64);
  table_->horizontalHeader()->setMinimumSectionSize(40);
  table_->setColumnWidth(InspectorModel::Node, 96);
  table_->setAlternatingRowColors(true);
  lay->addWidget(table_, 1);

  session_->addViewer(this);
  temperatureLabel_->setText(QString::number(temperatureAt(50), 'g', 3));
  connect(semantics_, &QComboBox::currentIndexChanged, this, [this] {
    if (syncing_) return;
    session_->setSemantics(static_cast<Semantics>(semantics_->currentData().toInt()));
    model_->headerDataChanged(Qt::Horizontal, 0, InspectorModel::ColumnCount - 1);
  });
  connect(temperature_, &QSlider::valueChanged, this, [this](int v) {
    const double t = temperatureAt(v);
    temperatureLabel_->setText(QString::number(t, 'g', 3));
    if (!syncing_) session_->setTemperature(t);
  });
  connect(output_, &QComboBox::currentIndexChanged, this, [this](int i) {
    if (!syncing_ && i >= 0) session_->setOutputIndex(i);
  });
  connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& cur) {
    if (!syncing_ && cur.isValid()) session_->select(cur.row());
  });
}

InspectorPanel::~InspectorPanel() { session_->removeViewer(this); }

void InspectorPanel::programChanged() {
  syncing_ = true;
  output_->clear();
  if (auto p = session_->program())
    for (const auto& [name, id] : p->outputs) output_->addItem(QString::fromStdString(name));
  output_->setCurrentIndex(session_->outputIndex());
  syncing_ = false;
  model_->reset();
  updateDetail();
}

void InspectorPanel::resultsChanged() {
  if (model_->rowCount() > 0)
    emit model_->dataChanged(model_->index(0, 0), model_->index(model_->rowCount() - 1, InspectorModel::ColumnCount - 1));
  updateDetail();
}

void InspectorPanel::selectionChanged() {
  const NodeId id = session_->selected();
  syncing_ = true;
  if (id >= 0 && id < model_->rowCount()) {
    table_->selectRow(id);
    table_->scrollTo(model_->index(id, 0));
  } else {
    table_->clearSelection();
  }
  syncing_ = false;
  updateDetail();
}

QString InspectorPanel::detailText() const { return detail_->text(); }

void InspectorPanel::updateDetail() {
  const auto program = session_->program();
  const NodeId id = session_->selected();
  if (!program || id < 0 || static_cast<std::size_t>(id) >= program->nodes.size()) {
    detail_->setText(tr("<i>Select a node in the graph, the IR text or this table.</i>"));
    return;
  }
  const auto i = static_cast<std::size_t>(id);
  const tc::Node& n = program->nodes[i];
  auto val = [&](const std::vector<double>& v) {
    return i < v.size() ? (std::isnan(v[i]) ? tr("not computed") : num(v[i])) : tr("n/a");
  };
  QString html = QStringLiteral("<b>%1</b>").arg(QString::fromStdString(describe_node(*program, id)).toHtmlEscaped());
  html += QStringLiteral("<br><tt>%1</tt>").arg(QString::fromStdString(node_text(*program, id)).toHtmlEscaped());
  html += QStringLiteral("<br>") + tr("value: <b>%1</b>").arg(val(session_->displayValues()));
  if (session_->semantics() == Semantics::Relaxed)
    html += QStringLiteral(" &nbsp; ") + tr("relaxed value: %1").arg(val(session_->chosenRun().trace.values));
  const QString chosen = QString::fromUtf8(to_string(session_->semantics()).data());
  const auto& ge = session_->exactGrad();
  const auto& gc = session_->chosenGrad();
  if (!ge.available) {
    const QString why = ge.error ? QString::fromStdString(ge.error->message) : tr("gradients are not available in this build");
    html += QStringLiteral("<br><span style='color:#777'>%1</span>").arg(why.toHtmlEscaped());
  } else {
    auto gtxt = [&](const NodeGradients& g) {
      return g.ok ? val(g.adjoint)
                  : QStringLiteral("<span style='color:#c02020'>%1</span>")
                        .arg(g.error ? QString::fromStdString(g.error->message).toHtmlEscaped() : tr("failed"));
    };
    html += QStringLiteral("<br>") + tr("∂ exact: <b>%1</b> &nbsp; ∂ %2: <b>%3</b>").arg(gtxt(ge), chosen, gtxt(gc));
  }
  const auto& br = session_->exactRun().trace.branch;
  if (n.op == tc::Op::Select && i < br.size() && br[i] >= 0)
    html += QStringLiteral("<br>") + (br[i] ? tr("branch taken: yes (%%1)").arg(n.args[1]) : tr("branch taken: no (%%1)").arg(n.args[2]));
  const auto& iv = session_->analysis().intervals;
  if (i < iv.size()) html += QStringLiteral("<br>") + tr("interval: [%1, %2]").arg(num(iv[i].first), num(iv[i].second));
  for (const auto& [wid, msg] : session_->analysis().warnings)
    if (wid == id) html += QStringLiteral("<br><span style='color:#c02020'>%1</span>").arg(QString::fromStdString(msg).toHtmlEscaped());
  detail_->setText(html);
}

// ---------------------------------------------------------------------------
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
    if (node >= 0 && node < static_cast<int>(session_->program()->nodes.size())) session_->select(node);
  });
}

IrTextView::~IrTextView() { session_->removeViewer(this); }

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
      setPlainText(QString::fromStdString(d->text));
      verticalScrollBar()->setValue(scroll);
      first_node_line_ = d->first_node_line;
      shown_ = program;
      programmatic_ = false;
      selectionChanged();
    };
  }, this);
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
  for (NodeId h : session_->highlighted()) {
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
