// The Inspector: per-node values and gradients of the case or the step, and the selected node's detail (views/panels.h).
#include "views/panels.h"

#include "views/comparison.h"
#include "views/copy_actions.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFont>
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

QString op_qname(Op op) {
  const auto n = op_name(op);
  return QString::fromUtf8(n.data(), static_cast<qsizetype>(n.size()));
}

/// A node the lazy run skipped (an untaken branch) whose value the gradient's
/// forward pass computed, else NaN. The exact gradient's forward values are
/// the exact run's; the hybrid one's too (a relaxed one's are not). Never for
/// a replay step: the gradients belong to the case, not to the step.
double untakenValue(const Session& s, std::size_t i) {
  const auto& shown = s.displayValues();
  if (s.showingStep() || i >= shown.size() || !std::isnan(shown[i])) return std::nan("");
  for (const NodeGradients* g : {&s.exactGrad(), &s.chosenGrad()}) {
    if (g == &s.chosenGrad() && s.semantics() != Semantics::Hybrid) break;
    if (i < g->forward.size() && !std::isnan(g->forward[i])) return g->forward[i];
  }
  return std::nan("");
}

}  // namespace

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
  if (index.column() == Value && (role == Qt::ForegroundRole || role == Qt::FontRole || tip)) {
    const double u = untakenValue(*session_, id);
    if (!std::isnan(u)) {
      if (role == Qt::ForegroundRole) return QColor(0x70, 0x70, 0x80);
      if (role == Qt::FontRole) {
        QFont f;
        f.setItalic(true);
        return f;
      }
      return tr("untaken branch: %1 (the run skipped it; the gradient's forward pass computed it)").arg(num(u));
    }
  }
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
    case Value: {
      const double u = untakenValue(*session_, id);
      return std::isnan(u) ? at(session_->displayValues()) : QVariant(QString::fromStdString(format_short(u)));
    }
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
  // The Node column from its own text: Qt sizes it from the rows in view,
  // the first ones ("#0 input x"), and later rows were cut ("#1281 ...").
  // The first and the last 2,000 rows (the last ones have the longest ids;
  // a bounded cost for 100k-node circuits), at most 320 px.
  const QFontMetrics fm(table_->font());
  int want = table_->columnWidth(InspectorModel::Node);
  const int rows = model_->rowCount();
  auto fit = [&](int r) {
    want = std::max(want, fm.horizontalAdvance(model_->data(model_->index(r, InspectorModel::Node), Qt::DisplayRole).toString()) + 14);
  };
  for (int r = 0; r < std::min(rows, 2000); ++r) fit(r);
  for (int r = std::max(2000, rows - 2000); r < rows; ++r) fit(r);
  table_->setColumnWidth(InspectorModel::Node, std::min(want, 320));
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

void InspectorPanel::setComparison(const Comparison* c) {
  comparison_ = c;
  if (c) connect(c, &Comparison::changed, this, &InspectorPanel::updateDetail);
}

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
  } else if (const double u = untakenValue(*session_, i); !std::isnan(u)) {
    html += QStringLiteral("<br>") + tr("value: untaken branch: <b>%1</b> (the run skipped it; the gradient's forward pass computed it)").arg(num(u));
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
    // Under exact semantics the chosen gradient is the exact one: said once.
    if (session_->semantics() == Semantics::Exact)
      html += QStringLiteral("<br>") + tr("∂ exact: <b>%1</b>").arg(gtxt(ge));
    else
      html += QStringLiteral("<br>") + tr("∂ exact: <b>%1</b> &nbsp; ∂ %2: <b>%3</b>").arg(gtxt(ge), chosen, gtxt(gc));
  }
  const auto& br = session_->exactRun().trace.branch;
  if (n.op == tc::Op::Select && i < br.size() && br[i] >= 0)
    html += QStringLiteral("<br>") + (br[i] ? tr("branch taken: yes (%%1)").arg(n.args[1]) : tr("branch taken: no (%%1)").arg(n.args[2]));
  const auto& iv = session_->analysis().intervals;
  if (i < iv.size()) html += QStringLiteral("<br>") + tr("interval: [%1, %2]").arg(num(iv[i].first), num(iv[i].second));
  for (const auto& [wid, msg] : session_->analysis().warnings)
    if (wid == id) html += QStringLiteral("<br><span style='color:#c02020'>%1</span>").arg(QString::fromStdString(msg).toHtmlEscaped());
  if (comparison_) html += comparison_->detailHtml(id);
  detail_->setText(html);
}

}  // namespace views
}  // namespace tc
