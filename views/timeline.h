#pragma once
// The state timeline: an event log replayed through the runtime, opened
// paused at step 0, stepped and scrubbed, with per-step state and outputs
// and a plot of the state over the steps.
#include <QStringList>
#include <QWidget>

#include "views/session.h"

class QLabel;
class QListView;
class QSlider;
class QTableWidget;
class QToolButton;

namespace tc {
namespace views {

class StatePlot;
class EventListModel;

class TimelinePanel : public QWidget, public Viewer {
  Q_OBJECT
 public:
  explicit TimelinePanel(Session* session, QWidget* parent = nullptr);
  ~TimelinePanel() override;
  void programChanged() override;
  void stepChanged() override;

  [[nodiscard]] QTableWidget* table() const { return table_; }
  [[nodiscard]] QSlider* scrubber() const { return slider_; }
  /// The value shown for a state or output row label (e.g. "state count"); NaN when absent.
  [[nodiscard]] double shownValue(const QString& label) const;
  /// The plot's legend entries (state lines, then the current step's after and before markers).
  [[nodiscard]] QStringList plotLegend() const;
  /// The plot's widget (Qt Charts' view, or the painted fallback).
  [[nodiscard]] QWidget* plotWidget() const;
  /// The event list beside the plot: row 0 the starting state, row s step s's event (click: go there).
  [[nodiscard]] QListView* eventList() const { return events_; }

 public slots:
  void stepForward();
  void stepBack();
  /// To the next (previous) step where the selected node's value changed; false when there is none.
  bool jumpToChange();
  bool jumpToPreviousChange();

 signals:
  void openEventsRequested();
  void saveSnapshotRequested();
  void restoreSnapshotRequested();

 private:
  void rebuildChart();
  Session* session_;
  QLabel* position_;
  QSlider* slider_;
  QTableWidget* table_;
  QListView* events_;
  EventListModel* eventModel_;
  StatePlot* plot_;
  bool syncing_ = false;
};

}  // namespace views
}  // namespace tc
