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
  // Named cases on their own row, so the dock stays narrow.
  top = new QHBoxLayout;
  top->addWidget(new QLabel(tr("Case:"), this));
  cases_ = new QComboBox(this);
  cases_->setToolTip(tr("Named input cases, saved beside the file (FILE.cases.json)"));
  top->addWidget(cases_, 1);
  addCase_ = new QToolButton(this);
  addCase_->setText(tr("Add"));
  addCase_->setToolTip(tr("Keep the current values as a new named case"));
  renameCase_ = new QToolButton(this);
  renameCase_->setText(tr("Rename"));
  top->addWidget(addCase_);
  top->addWidget(renameCase_);
  lay->addLayout(top);
  table_ = new QTableWidget(0, 5, this);
  table_->setHorizontalHeaderLabels({tr("Parameter"), tr("Type"), tr("Min"), tr("Max"), tr("Value")});
  table_->verticalHeader()->setVisible(false);
  // Columns sized to their contents (headers never truncated); the value column takes the rest.
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
  table_->horizontalHeader()->setStretchLastSection(true);
  lay->addWidget(table_, 1);
  stepNote_ = new QLabel(this);
  stepNote_->setWordWrap(true);
  stepNote_->setStyleSheet(QStringLiteral("color:#8a5a00"));
  stepNote_->hide();
  lay->addWidget(stepNote_);
  result_ = new QLabel(this);
  result_->setWordWrap(true);
  result_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  lay->addWidget(result_);
  session_->addViewer(this);
  connect(session_, &Session::compiled, this, &InputsPanel::rebuild);
  connect(session_, &Session::casesChanged, this, &InputsPanel::rebuildCases);
  connect(cases_, &QComboBox::currentIndexChanged, this, [this](int i) {
    if (!building_ && i >= 0) session_->switchCase(i);
  });
  connect(addCase_, &QToolButton::clicked, this, [this] {
    bool ok = false;
    const QString name = QInputDialog::getText(this, tr("Add case"), tr("Name of the new case:"), QLineEdit::Normal,
                                               tr("case %1").arg(session_->caseNames().size() + 1), &ok);
    if (ok && !session_->addCase(name)) result_->setText(tr("a case named '%1' exists already").arg(name.toHtmlEscaped()));
  });
  connect(renameCase_, &QToolButton::clicked, this, [this] {
    bool ok = false;
    const QString name = QInputDialog::getText(this, tr("Rename case"), tr("New name:"), QLineEdit::Normal, cases_->currentText(), &ok);
    if (ok && !session_->renameCase(cases_->currentIndex(), name))
      result_->setText(tr("a case named '%1' exists already").arg(name.toHtmlEscaped()));
  });
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
  const auto& params = session_->parameters();
  const int rows = static_cast<int>(inputs.size() + params.size());
  if (!same_inputs(inputs, shown_) || params != shownParams_ || table_->rowCount() != rows) {
    shown_ = inputs;
    shownParams_ = params;
    table_->setRowCount(rows);
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
      if (in.domain.type == DomainType::Boolean) {
        // A bool is a check box, not a number to type (True would not parse).
        auto* box = new QCheckBox(table_);
        box->setToolTip(tr("True when checked"));
        connect(box, &QCheckBox::toggled, this, [this, r](bool on) {
          if (!building_ && r < static_cast<int>(shown_.size())) session_->setCaseValue(shown_[static_cast<std::size_t>(r)].name, on ? 1.0 : 0.0);
        });
        table_->setCellWidget(r, 4, box);
      }
    }
    // Parameters: stored values, editable for this session's runs (no domain).
    for (int k = 0; k < static_cast<int>(params.size()); ++k) {
      const int r = static_cast<int>(inputs.size()) + k;
      auto* name = new QTableWidgetItem(QString::fromStdString(params[static_cast<std::size_t>(k)]));
      name->setFlags(name->flags() & ~Qt::ItemIsEditable);
      name->setToolTip(tr("a parameter: its stored value is the default; edits apply to this session's runs and cases"));
      table_->setItem(r, 0, name);
      table_->removeCellWidget(r, 1);
      for (int c = 1; c <= 3; ++c) {
        auto* it = new QTableWidgetItem(c == 1 ? tr("parameter") : QString());
        it->setFlags(it->flags() & ~Qt::ItemIsEditable);
        table_->setItem(r, c, it);
      }
      table_->removeCellWidget(r, 4);
      table_->setItem(r, 4, new QTableWidgetItem());
    }
    table_->resizeColumnsToContents();
  }
  building_ = false;
  showValues();
}

void InputsPanel::stepChanged() { showValues(); }

void InputsPanel::rebuildCases() {
  building_ = true;
  cases_->clear();
  cases_->addItems(session_->caseNames());
  cases_->setCurrentIndex(session_->currentCaseIndex());
  building_ = false;
  showValues();
}

QCheckBox* InputsPanel::checkBoxOf(const QString& name) const {
  const int r = rowOf(name);
  return r >= 0 ? qobject_cast<QCheckBox*>(table_->cellWidget(r, 4)) : nullptr;
}

void InputsPanel::showValues() {
  // During a replay the panel follows the timeline: a step's event inputs,
  // read-only (step 0 goes back to the editable case).
  building_ = true;
  const bool step = session_->showingStep();
  const Case shown = session_->displayCase();
  for (int r = 0; r < table_->rowCount(); ++r) {
    QTableWidgetItem* item = table_->item(r, 4);
    if (!item) continue;
    QString text;
    if (isParameterRow(r)) {
      const std::size_t k = static_cast<std::size_t>(r) - shown_.size();
      auto it = k < shownParams_.size() ? session_->parameterValues().find(shownParams_[k]) : session_->parameterValues().end();
      text = it != session_->parameterValues().end() ? num(it->second) : QString();
    } else {
      auto it = shown.find(shown_[static_cast<std::size_t>(r)].name);
      text = it != shown.end() ? num(it->second) : (step ? QString::fromUtf8("—") : QStringLiteral("0"));
      if (auto* box = qobject_cast<QCheckBox*>(table_->cellWidget(r, 4))) {
        box->setChecked(it != shown.end() && it->second != 0);
        box->setEnabled(!step);
        text.clear();
      }
    }
    item->setText(text);
    const auto flags = item->flags();
    item->setFlags(step || table_->cellWidget(r, 4) ? flags & ~Qt::ItemIsEditable : flags | Qt::ItemIsEditable);
  }
  stepNote_->setVisible(step);
  if (step)
    stepNote_->setText(tr("Showing step %1 of the event log (its event's inputs and outputs); go to step 0 to edit the case.")
                           .arg(session_->snapshotBase() + session_->step()));
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
  if (isParameterRow(row)) {
    const std::size_t k = static_cast<std::size_t>(row) - shown_.size();
    if (k >= shownParams_.size()) return;
    bool ok = false;
    const double v = table_->item(row, 4)->text().trimmed().toDouble(&ok);
    if (!ok || !std::isfinite(v)) {
      result_->setText(QStringLiteral("<span style='color:#c02020'>%1</span>")
                           .arg(tr("%1: not a number").arg(QString::fromStdString(shownParams_[k]))));
      return;
    }
    session_->setParameterValue(shownParams_[k], v);
    return;
  }
  if (row < 0 || row >= static_cast<int>(shown_.size())) return;
  bool ok = false;
  QString typed = table_->item(row, 4)->text().trimmed();
  // Python spellings of a bool are values too.
  if (typed == QLatin1String("True")) typed = QStringLiteral("1");
  if (typed == QLatin1String("False")) typed = QStringLiteral("0");
  const double v = typed.toDouble(&ok);
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
  if (!session_->showingStep() && run.error) {
    // The message names the node and its source position already.
    result_->setText(QStringLiteral("<span style='color:#c02020'>%1</span>")
                         .arg(tr("error: %1").arg(QString::fromStdString(run.error->message)).toHtmlEscaped()));
    return;
  }
  QStringList parts;
  const auto& outs = session_->displayOutputs();
  for (std::size_t i = 0; i < program->outputs.size() && i < outs.size(); ++i)
    parts << QStringLiteral("<b>%1</b> = %2").arg(QString::fromStdString(program->outputs[i].first).toHtmlEscaped(), num(outs[i]));
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
    // Under exact semantics both columns would read "∂ exact": the second one
    // is the chosen semantics' column, so it says so.
    case ChosenGrad:
      return session_->semantics() == Semantics::Exact ? tr("∂ chosen (exact)") : tr("∂ %1").arg(chosen);
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
  if (role == Qt::ForegroundRole && index.column() == ChosenGrad && !session_->chosenGrad().ok &&
      (static_cast<NodeId>(id) == session_->chosenGrad().failed_node || static_cast<NodeId>(id) == session_->chosenGrad().failed_select))
    return QColor(0xc0, 0x20, 0x20);
  if (role == Qt::ForegroundRole && index.column() == ChosenGrad && session_->chosenGrad().available &&
      !session_->chosenGrad().ok)
    return QColor(0x90, 0x90, 0x98);  // "n/a": the failed pass computed nothing here
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
    case ChosenGrad: {
      const auto& g = session_->chosenGrad();
      if (!g.ok && g.error && (static_cast<NodeId>(id) == g.failed_node || static_cast<NodeId>(id) == g.failed_select))
        return tip ? QString::fromStdString(g.error->message) : tr("fails");
      // The whole pass failed: every other row says so instead of a blank cell.
      if (g.available && !g.ok && g.error)
        return tip ? tr("not computed: the gradient failed (%1)").arg(QString::fromStdString(g.error->message)) : tr("n/a");
      return at(g.adjoint);
    }
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
  table_->horizontalHeader()->setResizeContentsPrecision(0);  // fit to the rows in view
  table_->setColumnWidth(InspectorModel::Node, 96);
  table_->setAlternatingRowColors(true);
  table_->setContextMenuPolicy(Qt::CustomContextMenu);
  connect(table_, &QWidget::customContextMenuRequested, this, [this](const QPoint& pos) {
    const QModelIndex index = table_->indexAt(pos);
    if (!index.isValid()) return;
    const NodeId id = index.row();
    session_->select(id);
    QMenu menu(this);
    menu.addAction(tr("Copy &Row"), &menu, [this, id] { QGuiApplication::clipboard()->setText(nodeRowText(*session_, id)); });
    addNodeActions(&menu, session_, id);
    menu.exec(table_->viewport()->mapToGlobal(pos));
  });
  lay->addWidget(table_, 1);

  session_->addViewer(this);
  temperatureLabel_->setText(QString::number(temperatureAt(50), 'g', 3));
  connect(semantics_, &QComboBox::currentIndexChanged, this, [this] {
    if (syncing_) return;
    session_->setSemantics(static_cast<Semantics>(semantics_->currentData().toInt()));
    model_->headerDataChanged(Qt::Horizontal, 0, InspectorModel::ColumnCount - 1);
    table_->resizeColumnsToContents();
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
  // Headers and the first rows decide the widths (Qt samples a bounded number of rows).
  table_->resizeColumnsToContents();
  updateDetail();
}

void InspectorPanel::resultsChanged() {
  if (model_->rowCount() > 0)
    emit model_->dataChanged(model_->index(0, 0), model_->index(model_->rowCount() - 1, InspectorModel::ColumnCount - 1));
  // Values arrive after the program (its widths were taken from empty cells):
  // widen a column whose shown cells no longer fit, so none reads "0....".
  // The header measures the rows in view only (precision 0), so this stays cheap.
  for (int c = 0; c < InspectorModel::ColumnCount - 1; ++c) {
    const int had = table_->columnWidth(c);
    table_->resizeColumnToContents(c);
    if (table_->columnWidth(c) < had) table_->setColumnWidth(c, had);  // widen only: a width the user chose stays
  }
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
  if (!n.iteration.empty())
    html += QStringLiteral("<br>") + tr("loop iteration: %1").arg(QString::fromStdString(iteration_text(n)).toHtmlEscaped());
  if (session_->showingStep()) {
    // The step's values are those its event computed from the state it saw.
    const int step = session_->snapshotBase() + session_->step();
    html += QStringLiteral("<br>") + tr("value at step %1: <b>%2</b>").arg(step).arg(val(session_->displayValues()));
    if (n.op == tc::Op::State) {
      const auto& names = session_->replay().state_names;
      const auto after = session_->stateAtStep();
      for (std::size_t u = 0; u < names.size() && u < after.size(); ++u)
        if (names[u] == n.name)
          html += QStringLiteral(" ") + tr("(the state the step saw; it committed <b>%1</b>)").arg(num(after[u]));
    }
  } else {
    html += QStringLiteral("<br>") + tr("value: <b>%1</b>").arg(val(session_->displayValues()));
  }
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
