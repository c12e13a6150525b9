// The Inputs panel: the function, the named cases and one row per input and parameter (views/panels.h).
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

}  // namespace

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
    // The log starts at its snapshot's step (the base), so that is the step before its first event.
    stepNote_->setText(tr("Showing step %1 of the event log (its event's inputs and outputs); go to step %2 to edit the case.")
                           .arg(session_->snapshotBase() + session_->step())
                           .arg(session_->snapshotBase()));
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
  // The refusal of an earlier edit goes now: a corrected bound that equals
  // the stored one changes no source, so no compile would clear it.
  resultsChanged();
  session_->setInputDomain(shown_[static_cast<std::size_t>(row)].name, *d);
}

QString InputsPanel::resultText() const { return result_->text(); }

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

}  // namespace views
}  // namespace tc
