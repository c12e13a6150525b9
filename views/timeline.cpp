#include "views/timeline.h"

#include <QChart>
#include <QGraphicsLayout>
#include <QChartView>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineSeries>
#include <QMenu>
#include <QPushButton>
#include <QScatterSeries>
#include <QSlider>
#include <QSplitter>
#include <QTableWidget>
#include <QToolButton>
#include <QValueAxis>
#include <QVBoxLayout>

#include <cmath>

namespace tc {
namespace views {

TimelinePanel::TimelinePanel(Session* session, QWidget* parent) : QWidget(parent), session_(session) {
  auto* lay = new QVBoxLayout(this);
  lay->setContentsMargins(4, 4, 4, 4);
  auto* bar = new QHBoxLayout;
  auto button = [&](const QString& text, const QString& tip) {
    auto* b = new QToolButton(this);
    b->setText(text);
    b->setToolTip(tip);
    bar->addWidget(b);
    return b;
  };
  auto* open = button(tr("Open…"), tr("Open an event log (JSON Lines)"));
  auto* first = button(QStringLiteral("|◀"), tr("Step 0"));
  auto* back = button(QStringLiteral("◀"), tr("Step back (Shift+F10)"));
  auto* fwd = button(QStringLiteral("▶"), tr("Step forward (F10)"));
  auto* last = button(QStringLiteral("▶|"), tr("Last step"));
  slider_ = new QSlider(Qt::Horizontal, this);
  slider_->setRange(0, 0);
  bar->addWidget(slider_, 1);
  position_ = new QLabel(tr("no event log"), this);
  bar->addWidget(position_);
  auto* change = button(tr("Next change"), tr("Jump to the next step where the selected node's value changed"));
  // Snapshots behind one menu button keep the bar narrow enough for the centre column.
  auto* snap = button(tr("Snapshot"), tr("Save or restore the state as a snapshot"));
  snap->setPopupMode(QToolButton::InstantPopup);
  auto* menu = new QMenu(snap);
  auto* save = menu->addAction(tr("Save snapshot…"));
  save->setToolTip(tr("Save the state at this step as a snapshot"));
  auto* restore = menu->addAction(tr("Restore snapshot…"));
  restore->setToolTip(tr("Restore a snapshot and replay from it"));
  snap->setMenu(menu);
  slider_->setMinimumWidth(60);
  position_->setMinimumWidth(80);
  lay->addLayout(bar);

  auto* split = new QSplitter(Qt::Horizontal, this);
  table_ = new QTableWidget(0, 2, split);
  table_->setHorizontalHeaderLabels({tr("Name"), tr("Value")});
  table_->verticalHeader()->setVisible(false);
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  chart_ = new QChart;
  chart_->legend()->setAlignment(Qt::AlignRight);
  chart_->setMargins(QMargins(0, 0, 0, 0));
  chart_->layout()->setContentsMargins(0, 0, 0, 0);
  chart_->setBackgroundRoundness(0);
  chartView_ = new QChartView(chart_, split);
  chartView_->setRenderHint(QPainter::Antialiasing);
  split->addWidget(table_);
  split->addWidget(chartView_);
  split->setStretchFactor(1, 3);
  table_->setMinimumWidth(180);
  chartView_->setMinimumHeight(120);
  lay->addWidget(split, 1);

  session_->addViewer(this);
  connect(open, &QToolButton::clicked, this, &TimelinePanel::openEventsRequested);
  connect(first, &QToolButton::clicked, this, [this] { session_->setStep(0); });
  connect(back, &QToolButton::clicked, this, &TimelinePanel::stepBack);
  connect(fwd, &QToolButton::clicked, this, &TimelinePanel::stepForward);
  connect(last, &QToolButton::clicked, this, [this] { session_->setStep(static_cast<int>(session_->replay().steps.size())); });
  connect(change, &QToolButton::clicked, this, &TimelinePanel::jumpToChange);
  connect(save, &QAction::triggered, this, &TimelinePanel::saveSnapshotRequested);
  connect(restore, &QAction::triggered, this, &TimelinePanel::restoreSnapshotRequested);
  connect(slider_, &QSlider::valueChanged, this, [this](int v) {
    if (!syncing_) session_->setStep(v);
  });
  stepChanged();
}

TimelinePanel::~TimelinePanel() { session_->removeViewer(this); }

void TimelinePanel::programChanged() { stepChanged(); }

void TimelinePanel::stepForward() { session_->setStep(session_->step() + 1); }
void TimelinePanel::stepBack() { session_->setStep(session_->step() - 1); }

void TimelinePanel::jumpToChange() {
  if (session_->selected() < 0) return;
  const int s = session_->nextChange(session_->selected());
  if (s > 0) session_->setStep(s);
}

double TimelinePanel::shownValue(const QString& label) const {
  for (int r = 0; r < table_->rowCount(); ++r)
    if (table_->item(r, 0)->text() == label) return table_->item(r, 1)->text().toDouble();
  return std::nan("");
}

void TimelinePanel::stepChanged() {
  const auto program = session_->program();
  const auto& replay = session_->replay();
  const int n = static_cast<int>(replay.steps.size());
  const int step = session_->step();
  syncing_ = true;
  const bool rebuilt = slider_->maximum() != n || !session_->hasReplay();
  slider_->setRange(0, n);
  slider_->setValue(step);
  syncing_ = false;
  if (!session_->hasReplay() || !program) {
    position_->setText(tr("no event log"));
    table_->setRowCount(0);
    chart_->removeAllSeries();
    return;
  }
  const int base = session_->snapshotBase();
  position_->setText(tr("step %1 of %2").arg(base + step).arg(base + n));
  table_->setRowCount(0);
  auto add = [&](const QString& name, const QString& value) {
    const int r = table_->rowCount();
    table_->insertRow(r);
    table_->setItem(r, 0, new QTableWidgetItem(name));
    table_->setItem(r, 1, new QTableWidgetItem(value));
  };
  const auto state = session_->stateAtStep();
  for (std::size_t u = 0; u < replay.state_names.size() && u < state.size(); ++u)
    add(tr("state %1").arg(QString::fromStdString(replay.state_names[u])), QString::fromStdString(format_number(state[u])));
  if (step > 0) {
    const auto& rec = replay.steps[static_cast<std::size_t>(step - 1)];
    for (std::size_t o = 0; o < program->outputs.size() && o < rec.outputs.size(); ++o)
      add(tr("output %1").arg(QString::fromStdString(program->outputs[o].first)), QString::fromStdString(format_number(rec.outputs[o])));
    for (const auto& [k, v] : rec.inputs) add(tr("event %1").arg(QString::fromStdString(k)), QString::fromStdString(format_number(v)));
    add(tr("event line"), QString::number(rec.line));
  }
  if (replay.error && step == n)
    add(tr("stopped"), QString::fromStdString(replay.error->format()));
  if (rebuilt || chart_->series().isEmpty()) rebuildChart();
  if (marker_) {
    marker_->clear();
    for (std::size_t u = 0; u < state.size(); ++u) marker_->append(base + step, state[u]);
  }
}

void TimelinePanel::rebuildChart() {
  chart_->removeAllSeries();
  for (auto* axis : chart_->axes()) chart_->removeAxis(axis);
  marker_ = nullptr;
  const auto program = session_->program();
  const auto& replay = session_->replay();
  if (!program || replay.state_names.empty()) return;
  auto* ax = new QValueAxis;
  auto* ay = new QValueAxis;
  ax->setTitleText(tr("step"));
  ax->setLabelFormat(QStringLiteral("%d"));
  chart_->addAxis(ax, Qt::AlignBottom);
  chart_->addAxis(ay, Qt::AlignLeft);
  double lo = 0, hi = 1;
  bool first = true;
  const int base = session_->snapshotBase();
  // Plot at most a few thousand points per series so long replays stay responsive.
  const std::size_t n = replay.steps.size();
  const std::size_t stride = std::max<std::size_t>(1, n / 2000);
  for (std::size_t u = 0; u < replay.state_names.size(); ++u) {
    auto* s = new QLineSeries;
    s->setName(QString::fromStdString(replay.state_names[u]));
    auto add = [&](double x, double y) {
      s->append(x, y);
      if (first) lo = hi = y;
      lo = std::min(lo, y);
      hi = std::max(hi, y);
      first = false;
    };
    if (u < replay.initial_state.size()) add(base, replay.initial_state[u]);
    for (std::size_t k = 0; k < n; k += stride) add(base + static_cast<double>(k + 1), replay.steps[k].state.at(u));
    chart_->addSeries(s);
    s->attachAxis(ax);
    s->attachAxis(ay);
  }
  marker_ = new QScatterSeries;
  marker_->setName(tr("current step"));
  marker_->setMarkerSize(9);
  chart_->addSeries(marker_);
  marker_->attachAxis(ax);
  marker_->attachAxis(ay);
  if (hi == lo) hi = lo + 1;
  ax->setRange(base, base + std::max<double>(1, static_cast<double>(n)));
  // Integer steps: one tick per step when few, else round numbers.
  if (n <= 10) ax->setTickCount(static_cast<int>(std::max<std::size_t>(n, 1)) + 1);
  else ax->applyNiceNumbers();
  ay->setRange(lo - 0.05 * (hi - lo), hi + 0.05 * (hi - lo));
  ay->applyNiceNumbers();
  ay->setTickCount(3);
  ay->setLabelFormat(QStringLiteral("%g"));
  QFont small = font();
  small.setPointSize(8);
  ax->setLabelsFont(small);
  ay->setLabelsFont(small);
  ax->setTitleFont(small);
}

}  // namespace views
}  // namespace tc
