#include "views/timeline.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QAbstractListModel>
#include <QCoreApplication>
#include <QLabel>
#include <QListView>
#include <QMenu>
#include <QPainter>
#include <QSlider>
#include <QSplitter>
#include <QTableWidget>
#include <QToolButton>
#include <QVBoxLayout>

#if TC_HAVE_QTCHARTS
#include <QChart>
#include <QChartView>
#include <QGraphicsLayout>
#include <QLineSeries>
#include <QScatterSeries>
#include <QValueAxis>
#endif

#include <cmath>

namespace tc {
namespace views {

/// The event list beside the timeline (as Redux DevTools lists its actions):
/// row 0 is the starting state, row s the event of step s with its outputs
/// and the state it committed. Rows are made when shown, so a replay of a
/// hundred thousand steps costs nothing until scrolled.
class EventListModel : public QAbstractListModel {
 public:
  explicit EventListModel(Session* session, QObject* parent) : QAbstractListModel(parent), session_(session) {}
  void reset() {
    beginResetModel();
    endResetModel();
  }
  int rowCount(const QModelIndex& parent = {}) const override {
    if (parent.isValid() || !session_->hasReplay()) return 0;
    return static_cast<int>(session_->replay().steps.size()) + 1;
  }
  QVariant data(const QModelIndex& index, int role) const override {
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole) return {};
    const auto& replay = session_->replay();
    const int base = session_->snapshotBase();
    const int s = index.row();
    auto state_text = [&](const std::vector<double>& state) {
      QStringList parts;
      for (std::size_t u = 0; u < replay.state_names.size() && u < state.size(); ++u)
        parts << QStringLiteral("%1=%2").arg(QString::fromStdString(replay.state_names[u]), QString::fromStdString(format_short(state[u])));
      return parts.join(QStringLiteral(", "));
    };
    if (s == 0) return EventListModel::tr("%1  start: %2").arg(base).arg(state_text(replay.initial_state));
    if (s < 0 || static_cast<std::size_t>(s) > replay.steps.size()) return {};
    const auto& rec = replay.steps[static_cast<std::size_t>(s - 1)];
    QStringList event;
    for (const auto& [k, v] : rec.inputs) event << QStringLiteral("%1=%2").arg(QString::fromStdString(k), QString::fromStdString(format_short(v)));
    QString text = EventListModel::tr("%1  {%2} → %3").arg(base + s).arg(event.join(QStringLiteral(", ")), state_text(rec.state));
    if (role == Qt::ToolTipRole) text = EventListModel::tr("step %1, line %2 of the event log: click to go there").arg(base + s).arg(rec.line);
    return text;
  }

 private:
  static QString tr(const char* s) { return QCoreApplication::translate("EventListModel", s); }
  Session* session_;
};

/// The plot of state values over the steps: Qt Charts when the build has
/// it, else a small painted fallback (so the IDE builds without Qt Charts).
class StatePlot {
 public:
  explicit StatePlot(QWidget* parent);
  QWidget* widget() { return widget_; }
  void clear();
  /// One series per state variable; x is the step.
  void setSeries(const std::vector<QString>& names, const std::vector<std::vector<QPointF>>& points, double x0, double x1);
  /// The current step's points of every series: the state it committed
  /// (after, on the lines) and the state its event saw (before), each labelled.
  void setMarker(const std::vector<QPointF>& after, const std::vector<QPointF>& before, int step);
  [[nodiscard]] bool empty() const { return empty_; }
  /// The legend's entries, in order (tests read them).
  [[nodiscard]] QStringList legend() const;

 private:
  QWidget* widget_;
  bool empty_ = true;
#if TC_HAVE_QTCHARTS
  QChart* chart_;
  QScatterSeries* marker_ = nullptr;
  QScatterSeries* before_ = nullptr;
#else
  class Canvas;
  Canvas* canvas_;
#endif
};

#if TC_HAVE_QTCHARTS
StatePlot::StatePlot(QWidget* parent) {
  chart_ = new QChart;
  chart_->legend()->setAlignment(Qt::AlignBottom);  // beside the plot it took the plot's width and was cut
  QFont small = chart_->legend()->font();
  small.setPointSizeF(std::max(6.5, small.pointSizeF() - 1.5));
  chart_->legend()->setFont(small);
  chart_->setMargins(QMargins(0, 0, 0, 0));
  chart_->layout()->setContentsMargins(0, 0, 0, 0);
  chart_->setBackgroundRoundness(0);
  auto* view = new QChartView(chart_, parent);
  view->setRenderHint(QPainter::Antialiasing);
  widget_ = view;
}

void StatePlot::clear() {
  chart_->removeAllSeries();
  for (auto* axis : chart_->axes()) chart_->removeAxis(axis);
  marker_ = nullptr;
  before_ = nullptr;
  empty_ = true;
}

void StatePlot::setSeries(const std::vector<QString>& names, const std::vector<std::vector<QPointF>>& points, double x0,
                          double x1) {
  clear();
  auto* ax = new QValueAxis;
  auto* ay = new QValueAxis;
  ax->setTitleText(TimelinePanel::tr("step"));
  ax->setLabelFormat(QStringLiteral("%d"));
  chart_->addAxis(ax, Qt::AlignBottom);
  chart_->addAxis(ay, Qt::AlignLeft);
  double lo = 0, hi = 1;
  bool first = true;
  for (std::size_t k = 0; k < names.size(); ++k) {
    auto* s = new QLineSeries;
    s->setName(names[k]);
    for (const QPointF& p : points[k]) {
      s->append(p);
      lo = first ? p.y() : std::min(lo, p.y());
      hi = first ? p.y() : std::max(hi, p.y());
      first = false;
    }
    chart_->addSeries(s);
    s->attachAxis(ax);
    s->attachAxis(ay);
  }
  marker_ = new QScatterSeries;
  marker_->setName(TimelinePanel::tr("after (step 0)"));
  marker_->setMarkerSize(9);
  chart_->addSeries(marker_);
  marker_->attachAxis(ax);
  marker_->attachAxis(ay);
  before_ = new QScatterSeries;
  before_->setName(TimelinePanel::tr("before (step 0)"));
  before_->setMarkerShape(QScatterSeries::MarkerShapeRectangle);
  before_->setMarkerSize(8);
  chart_->addSeries(before_);
  before_->attachAxis(ax);
  before_->attachAxis(ay);
  bool integral = true;
  for (const auto& series : points)
    for (const QPointF& q : series) integral = integral && q.y() == std::floor(q.y());
  if (hi == lo) hi = lo + 1;
  ax->setRange(x0, std::max(x1, x0 + 1));
  // Integer steps: one tick per step when few, else round numbers.
  if (x1 - x0 <= 10) ax->setTickCount(static_cast<int>(std::max(1.0, x1 - x0)) + 1);
  else ax->applyNiceNumbers();
  if (integral && hi - lo <= 10) {
    // Whole-number states: ticks on whole values, so they read 0, 1, 2 (never
    // -1/2/5), and no more than the plot's height holds: in a short dock five
    // labels were each cut to "...".
    ay->setRange(lo, hi);
    const int room = std::max(2, std::max(widget_->height(), 120) / 36);
    const double step = std::max(1.0, std::ceil((hi - lo) / (room - 1)));
    ay->setTickType(QValueAxis::TicksDynamic);
    ay->setTickAnchor(lo);
    ay->setTickInterval(step);
    ay->setLabelFormat(QStringLiteral("%.0f"));
  } else {
    ay->setRange(lo - 0.05 * (hi - lo), hi + 0.05 * (hi - lo));
    ay->applyNiceNumbers();
    ay->setTickCount(3);
    ay->setLabelFormat(QStringLiteral("%g"));
  }
  QFont small = widget_->font();
  small.setPointSize(8);
  ax->setLabelsFont(small);
  ay->setLabelsFont(small);
  ax->setTitleFont(small);
  empty_ = false;
}

void StatePlot::setMarker(const std::vector<QPointF>& after, const std::vector<QPointF>& before, int step) {
  if (!marker_) return;
  marker_->clear();
  for (const QPointF& p : after) marker_->append(p);
  marker_->setName(TimelinePanel::tr("after (step %1)").arg(step));
  before_->clear();
  for (const QPointF& p : before) before_->append(p);
  before_->setName(TimelinePanel::tr("before (step %1)").arg(step));
  before_->setVisible(!before.empty());
}

QStringList StatePlot::legend() const {
  QStringList out;
  for (auto* series : chart_->series())
    if (series->isVisible()) out << series->name();
  return out;
}
#else
class StatePlot::Canvas : public QWidget {
 public:
  using QWidget::QWidget;
  std::vector<QString> names;
  std::vector<std::vector<QPointF>> points;
  std::vector<QPointF> marker, before;
  QString markerName, beforeName;
  double x0 = 0, x1 = 1;

 protected:
  void paintEvent(QPaintEvent*) override {
    QPainter p(this);
    p.fillRect(rect(), Qt::white);
    if (points.empty()) return;
    double lo = 0, hi = 1;
    bool first = true;
    for (const auto& s : points)
      for (const QPointF& q : s) {
        lo = first ? q.y() : std::min(lo, q.y());
        hi = first ? q.y() : std::max(hi, q.y());
        first = false;
      }
    if (hi == lo) hi = lo + 1;
    const QRectF area = QRectF(rect()).adjusted(36, 8, -90, -20);
    auto map = [&](QPointF q) {
      return QPointF(area.left() + (q.x() - x0) / std::max(1e-9, x1 - x0) * area.width(),
                     area.bottom() - (q.y() - lo) / (hi - lo) * area.height());
    };
    p.setPen(QColor(0x99, 0x99, 0x99));
    p.drawRect(area);
    p.drawText(QRectF(0, area.top() - 6, 34, 14), Qt::AlignRight, QString::number(hi, 'g', 4));
    p.drawText(QRectF(0, area.bottom() - 8, 34, 14), Qt::AlignRight, QString::number(lo, 'g', 4));
    p.drawText(QRectF(area.left(), area.bottom() + 2, area.width(), 16), Qt::AlignCenter, TimelinePanel::tr("step"));
    p.setRenderHint(QPainter::Antialiasing);
    static const QColor colours[] = {QColor(0x20, 0x9f, 0xdf), QColor(0xe8, 0x6a, 0x2c), QColor(0x4a, 0xa0, 0x4a), QColor(0x99, 0x55, 0xcc)};
    for (std::size_t k = 0; k < points.size(); ++k) {
      p.setPen(QPen(colours[k % 4], 1.5));
      for (std::size_t i = 1; i < points[k].size(); ++i) p.drawLine(map(points[k][i - 1]), map(points[k][i]));
      p.drawText(QRectF(area.right() + 6, area.top() + 16.0 * static_cast<double>(k), 84, 14), Qt::AlignLeft, names[k]);
    }
    p.setBrush(QColor(0x8b, 0xc3, 0x4a));
    p.setPen(Qt::NoPen);
    for (const QPointF& q : marker) p.drawEllipse(map(q), 4, 4);
    p.setBrush(QColor(0x55, 0x55, 0x60));
    for (const QPointF& q : before) p.drawRect(QRectF(map(q) - QPointF(3, 3), QSizeF(6, 6)));
  }
};

StatePlot::StatePlot(QWidget* parent) : canvas_(new Canvas(parent)) { widget_ = canvas_; }

void StatePlot::clear() {
  canvas_->names.clear();
  canvas_->points.clear();
  canvas_->marker.clear();
  canvas_->before.clear();
  empty_ = true;
  canvas_->update();
}

void StatePlot::setSeries(const std::vector<QString>& names, const std::vector<std::vector<QPointF>>& points, double x0,
                          double x1) {
  canvas_->names = names;
  canvas_->points = points;
  canvas_->x0 = x0;
  canvas_->x1 = std::max(x1, x0 + 1);
  empty_ = false;
  canvas_->update();
}

void StatePlot::setMarker(const std::vector<QPointF>& after, const std::vector<QPointF>& before, int step) {
  canvas_->marker = after;
  canvas_->before = before;
  canvas_->markerName = TimelinePanel::tr("after (step %1)").arg(step);
  canvas_->beforeName = TimelinePanel::tr("before (step %1)").arg(step);
  canvas_->update();
}

QStringList StatePlot::legend() const {
  QStringList out(canvas_->names.begin(), canvas_->names.end());
  out << canvas_->markerName;
  if (!canvas_->before.empty()) out << canvas_->beforeName;
  return out;
}
#endif

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
  auto* previous = button(tr("◀ Change"), tr("Jump back to the last step where the selected node's value changed (Ctrl+Shift+F10)"));
  auto* change = button(tr("Change ▶"), tr("Jump to the next step where the selected node's value changed (Ctrl+F10)"));
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
  events_ = new QListView(split);
  events_->setObjectName(QStringLiteral("TimelineEvents"));
  eventModel_ = new EventListModel(session_, events_);
  events_->setModel(eventModel_);
  events_->setUniformItemSizes(true);  // rows are laid out without asking each for its size
  events_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  events_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_ = new QTableWidget(0, 2, split);
  table_->setHorizontalHeaderLabels({tr("Name"), tr("Value")});
  table_->verticalHeader()->setVisible(false);
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  plot_ = new StatePlot(split);
  split->addWidget(events_);
  split->addWidget(table_);
  split->addWidget(plot_->widget());
  // The plot gets half the width to start with: left to the list's and the
  // table's size hints it opened about 75 px wide, its legend cut to "…".
  events_->setMinimumWidth(120);
  table_->setMinimumWidth(150);
  plot_->widget()->setMinimumSize(240, 120);
  split->setStretchFactor(0, 1);
  split->setStretchFactor(1, 1);
  split->setStretchFactor(2, 3);
  split->setSizes({160, 200, 360});
  lay->addWidget(split, 1);

  session_->addViewer(this);
  connect(open, &QToolButton::clicked, this, &TimelinePanel::openEventsRequested);
  connect(first, &QToolButton::clicked, this, [this] { session_->setStep(0); });
  connect(back, &QToolButton::clicked, this, &TimelinePanel::stepBack);
  connect(fwd, &QToolButton::clicked, this, &TimelinePanel::stepForward);
  connect(last, &QToolButton::clicked, this, [this] { session_->setStep(static_cast<int>(session_->replay().steps.size())); });
  connect(change, &QToolButton::clicked, this, &TimelinePanel::jumpToChange);
  connect(previous, &QToolButton::clicked, this, &TimelinePanel::jumpToPreviousChange);
  // A click on an event goes to its step (row 0: the starting state).
  connect(events_, &QListView::clicked, this, [this](const QModelIndex& index) {
    if (!syncing_) session_->setStep(index.row());
  });
  connect(save, &QAction::triggered, this, &TimelinePanel::saveSnapshotRequested);
  connect(restore, &QAction::triggered, this, &TimelinePanel::restoreSnapshotRequested);
  // The slider counts steps from the program's start, like "step N of M":
  // the steps a restored snapshot consumed sit left of the replay and cannot
  // be visited (the handle springs back to the snapshot's step).
  connect(slider_, &QSlider::valueChanged, this, [this](int v) {
    if (syncing_) return;
    const int base = session_->snapshotBase();
    if (v < base) {
      slider_->setValue(base);
      return;
    }
    session_->setStep(v - base);
  });
  stepChanged();
}

TimelinePanel::~TimelinePanel() {
  session_->removeViewer(this);
  delete plot_;  // its widget is owned by the splitter
}

void TimelinePanel::programChanged() { stepChanged(); }

QStringList TimelinePanel::plotLegend() const { return plot_->legend(); }
QWidget* TimelinePanel::plotWidget() const { return plot_->widget(); }

void TimelinePanel::stepForward() { session_->setStep(session_->step() + 1); }
void TimelinePanel::stepBack() { session_->setStep(session_->step() - 1); }

bool TimelinePanel::jumpToChange() {
  if (session_->selected() < 0) return false;
  const int s = session_->nextChange(session_->selected());
  if (s > 0) session_->setStep(s);
  return s > 0;
}

bool TimelinePanel::jumpToPreviousChange() {
  if (session_->selected() < 0) return false;
  const int s = session_->previousChange(session_->selected());
  if (s > 0) session_->setStep(s);
  return s > 0;
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
  const int base = session_->hasReplay() ? session_->snapshotBase() : 0;
  syncing_ = true;
  const bool rebuilt = slider_->maximum() != base + n || !session_->hasReplay();
  slider_->setRange(0, base + n);
  slider_->setValue(base + step);
  if (rebuilt || eventModel_->rowCount() != (session_->hasReplay() ? n + 1 : 0)) eventModel_->reset();
  if (session_->hasReplay()) {
    const QModelIndex current = eventModel_->index(step, 0);
    events_->setCurrentIndex(current);
    events_->scrollTo(current);
  }
  syncing_ = false;
  if (!session_->hasReplay() || !program) {
    position_->setText(tr("no event log"));
    table_->setRowCount(0);
    plot_->clear();
    return;
  }
  position_->setText(tr("step %1 of %2").arg(base + step).arg(base + n));
  table_->setRowCount(0);
  auto add = [&](const QString& name, const QString& value) {
    const int r = table_->rowCount();
    table_->insertRow(r);
    table_->setItem(r, 0, new QTableWidgetItem(name));
    table_->setItem(r, 1, new QTableWidgetItem(value));
  };
  // Two states per step: the one its event saw (outputs and every node value
  // of the step are computed from it; the inspector shows these) and the one
  // it committed. Step 0 has only the starting state.
  const auto state = session_->stateAtStep();
  const auto before = session_->stateBeforeStep();
  for (std::size_t u = 0; u < replay.state_names.size() && u < state.size(); ++u) {
    const QString name = QString::fromStdString(replay.state_names[u]);
    if (step == 0) {
      add(tr("state %1").arg(name), QString::fromStdString(format_number(state[u])));
      continue;
    }
    if (u < before.size()) {
      add(tr("state %1 (before)").arg(name), QString::fromStdString(format_number(before[u])));
      table_->item(table_->rowCount() - 1, 0)->setToolTip(tr("the state this step's event saw; its outputs and node values are computed from it"));
    }
    add(tr("state %1 (after)").arg(name), QString::fromStdString(format_number(state[u])));
    table_->item(table_->rowCount() - 1, 0)->setToolTip(tr("the state this step committed"));
  }
  if (step > 0) {
    const auto& rec = replay.steps[static_cast<std::size_t>(step - 1)];
    for (std::size_t o = 0; o < program->outputs.size() && o < rec.outputs.size(); ++o)
      add(tr("output %1").arg(QString::fromStdString(program->outputs[o].first)), QString::fromStdString(format_number(rec.outputs[o])));
    for (const auto& [k, v] : rec.inputs) add(tr("event %1").arg(QString::fromStdString(k)), QString::fromStdString(format_number(v)));
    add(tr("event line"), QString::number(rec.line));
  }
  if (replay.error && step == n)
    add(tr("stopped"), QString::fromStdString(replay.error->format()));
  if (rebuilt || plot_->empty()) rebuildChart();
  // The lines are the committed states; the current step shows both of its
  // states, labelled, so the plot agrees with the Inspector (which shows before).
  std::vector<QPointF> after, seen;
  for (std::size_t u = 0; u < state.size(); ++u) after.emplace_back(base + step, state[u]);
  if (step > 0)
    for (std::size_t u = 0; u < before.size(); ++u) seen.emplace_back(base + step, before[u]);
  plot_->setMarker(after, seen, base + step);
}

void TimelinePanel::rebuildChart() {
  plot_->clear();
  const auto program = session_->program();
  const auto& replay = session_->replay();
  if (!program || replay.state_names.empty()) return;
  const int base = session_->snapshotBase();
  // Plot at most a few thousand points per series so long replays stay responsive.
  const std::size_t n = replay.steps.size();
  const std::size_t stride = std::max<std::size_t>(1, n / 2000);
  std::vector<QString> names;
  std::vector<std::vector<QPointF>> points;
  for (std::size_t u = 0; u < replay.state_names.size(); ++u) {
    names.push_back(tr("%1 (after each step)").arg(QString::fromStdString(replay.state_names[u])));
    std::vector<QPointF> pts;
    if (u < replay.initial_state.size()) pts.emplace_back(base, replay.initial_state[u]);
    for (std::size_t k = 0; k < n; k += stride) pts.emplace_back(base + static_cast<double>(k + 1), replay.steps[k].state.at(u));
    points.push_back(std::move(pts));
  }
  plot_->setSeries(names, points, base, base + static_cast<double>(n));
}

}  // namespace views
}  // namespace tc
