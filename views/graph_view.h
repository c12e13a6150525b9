#pragma once
// The circuit drawn by schedule layer. A custom-painted view with culling
// (only rows and boxes inside the viewport are touched) and level of detail
// (labels, then edges, then individual boxes drop out as the view zooms
// out; far out a cached overview image stands in), so a 100,000-node
// circuit pans and zooms smoothly.
#include <QImage>
#include <QWidget>

#include <memory>

class QPainter;

#include "views/graph_layout.h"
#include "views/session.h"

namespace tc {
namespace views {

class Comparison;

class GraphView : public QWidget, public Viewer {
  Q_OBJECT
 public:
  enum class Mode { Whole, Neighbourhood };
  enum class Overlay { None, Intervals, Values };

  GraphView(Session* session, Mode mode, QWidget* parent = nullptr);
  ~GraphView() override;

  void programChanged() override;
  void resultsChanged() override;
  /// The open groups as a breadcrumb, outer before inner ("line 5 › i=3"; "" when none is open).
  [[nodiscard]] QString breadcrumb() const;
  /// Where the breadcrumb is drawn (empty while no group is open), and the
  /// layer labels drawn down the left edge: none of them under the breadcrumb.
  [[nodiscard]] QRect breadcrumbRect() const;
  [[nodiscard]] std::vector<QRectF> layerLabelRects() const;
  /// What the boxes of a grouped circuit follow, as the caption says it
  /// ("statement, loop iteration"); only while groupPlan() is set.
  [[nodiscard]] QString groupingText() const;
  /// What the view says instead of a circuit ("" while it shows one).
  [[nodiscard]] QString placeholderText() const;
  /// True while the view shows the out-of-date banner (the source does not compile).
  [[nodiscard]] bool outOfDate() const { return session_->compileFailed(); }
  /// Grouped drawing of large circuits: the plan (null below kGroupThreshold nodes).
  [[nodiscard]] const GroupPlan* groupPlan() const { return plan_.get(); }
  /// Opens or closes group `g` (as a click on its box does) and lays out again.
  void toggleGroup(int g);
  /// Boxes (nodes and groups) a fit-all view shows.
  [[nodiscard]] std::size_t entryCount() const { return layout_ ? layout_->ids.size() : 0; }
  /// Where node `id` is drawn, in widget coordinates (null point when not laid out);
  /// for a constant drawn inline, its first user's box.
  [[nodiscard]] QPointF nodeViewPos(NodeId id) const;
  /// Heat-map intensity of a value in [0, 1]: its magnitude's rank among the values shown.
  [[nodiscard]] double heat(double v) const;
  /// The legend's magnitude labels (0, 25, 50, 75, 100 % by rank); empty without a heat map.
  [[nodiscard]] QStringList legendLabels() const;
  /// Where the value legend is drawn (empty without one): its cells are as
  /// wide as the longest label. The caption stops left of it.
  [[nodiscard]] QRect legendRect() const;
  /// Where the caption (nodes, layout, zoom) is drawn, and its text as shown (elided to fit).
  [[nodiscard]] QRect captionRect() const;
  [[nodiscard]] QString captionText() const;
  void selectionChanged() override;
  void stepChanged() override { update(); }

  [[nodiscard]] const GraphLayout* graphLayout() const { return layout_.get(); }
  /// A group label the last frame drew in screen pixels beside a box too small to hold it.
  struct PaintedLabel {
    int group = -1;
    QRectF rect;  ///< widget coordinates
  };
  [[nodiscard]] const std::vector<PaintedLabel>& paintedGroupLabels() const { return painted_labels_; }
  /// The text of line `line` (0: id, op, name and inline constants; 1: value) of node `id`'s box.
  [[nodiscard]] QString boxText(NodeId id, int line) const { return laid_out_ ? labelFor(id, line) : QString(); }
  /// True once the layout for the current program (or selection) has arrived.
  [[nodiscard]] bool layoutReady() const { return ready_; }
  [[nodiscard]] double scale() const { return scale_; }
  void setOverlay(Overlay o);
  [[nodiscard]] Overlay overlay() const { return overlay_; }
  /// Colours nodes and groups by what `c` marks them (added, changed, a removed node fed it, value differs); null: none.
  void setComparison(const Comparison* c);

 public slots:
  void fitAll();
  /// True while the minimap is drawn: part of the circuit is out of view
  /// (never right after fitAll, where it would cover the nodes it fitted).
  [[nodiscard]] bool minimapShown() const;
  void zoomIn() { zoomAt(1.25, rect().center()); }
  void zoomOut() { zoomAt(0.8, rect().center()); }
  void centerOnSelection();
  /// Selects the first node `text` matches (an id, "line N", an op name or a
  /// name; views/node_search.h) and centres it; the same text again steps to
  /// the next match. False when none matches.
  bool search(const QString& text);
  /// Shows match `index` of the last search (wrapping); false when it had none.
  bool showSearchResult(int index);
  /// The node drawn at `pos` (widget coordinates); -1 for none or a closed group.
  [[nodiscard]] NodeId nodeAt(const QPointF& pos) const;
  /// The last search's matches (views/node_search.h) and which one is shown (-1: none yet).
  [[nodiscard]] const std::vector<NodeId>& searchResults() const { return search_results_; }
  [[nodiscard]] int searchIndex() const { return search_index_; }

 signals:
  void layoutFinished(double milliseconds, bool graphviz);
  /// A frame was painted (bench/ide measures keystroke to the first frame of a new layout).
  void framePainted();

 protected:
  void paintEvent(QPaintEvent*) override;
  void wheelEvent(QWheelEvent*) override;
  void mousePressEvent(QMouseEvent*) override;
  void mouseMoveEvent(QMouseEvent*) override;
  void mouseReleaseEvent(QMouseEvent*) override;
  void mouseDoubleClickEvent(QMouseEvent*) override;
  void contextMenuEvent(QContextMenuEvent*) override;
  void keyPressEvent(QKeyEvent*) override;
  void resizeEvent(QResizeEvent*) override;
  void showEvent(QShowEvent* ev) override;
  bool event(QEvent* ev) override;

 private:
  void paintOutOfDate(QPainter& p);
  void requestLayout();
  void setLayout(std::shared_ptr<GraphLayout> layout);
  void zoomAt(double factor, const QPointF& at);
  void rebuildOverview();
  QColor fillFor(NodeId id) const;
  /// The entry node `id` is drawn in (its own box, its group's, or for an inline constant its first user's); -1: none.
  [[nodiscard]] int entryOf(NodeId id) const;
  QString labelFor(NodeId id, int line) const;
  [[nodiscard]] QPointF toWorld(const QPointF& p) const { return p / scale_ + origin_; }
  [[nodiscard]] QPointF toView(const QPointF& w) const { return (w - origin_) * scale_; }

  Session* session_;
  Mode mode_;
  Overlay overlay_ = Overlay::Values;
  const Comparison* comparison_ = nullptr;
  std::shared_ptr<GraphLayout> layout_;
  std::shared_ptr<const Program> laid_out_;  // program of layout_
  NodeId centre_ = -1;                       // neighbourhood centre of layout_
  bool ready_ = true;  // nothing to lay out until a program arrives
  bool fit_pending_ = true;
  double scale_ = 1.0;
  QPointF origin_;  // world point at the widget's top-left
  QPoint drag_start_;
  QPointF drag_origin_;
  bool dragging_ = false;
  bool moved_ = false;
  QImage overview_;
  QImage overview_scaled_;  // overview_ smoothly shrunk to the size last drawn (no moire)
  double value_lo_ = 0, value_hi_ = 0;  // heat map range (log-scaled magnitudes)
  // Heat map by rank: the sorted magnitudes of the values shown, so colours
  // spread over the values actually present instead of saturating.
  std::vector<double> magnitudes_;
  std::shared_ptr<const GroupPlan> plan_;
  std::vector<char> expanded_;
  QString groupLabel(int entry, int line) const;
  QString rowLabel(std::size_t row) const;
  // The parts of paintEvent, in drawing order.
  void paintOverview(QPainter& p);
  void paintLayerBands(QPainter& p, const QRectF& world);
  void paintEdges(QPainter& p, const QRectF& world);
  void paintBoxes(QPainter& p, const std::vector<int>& vis, bool text);
  void paintOutputNames(QPainter& p);
  void paintCaption(QPainter& p);
  void paintLayerLabels(QPainter& p);
  void paintMinimap(QPainter& p);
  void paintLegend(QPainter& p);
  void paintGroupLabels(QPainter& p, const std::vector<int>& vis);
  std::vector<PaintedLabel> painted_labels_;
  std::vector<char> warned_;            // per node: analyze warned about it
  std::vector<char> inlined_;           // per node of inlined_of_: a constant drawn inside its users' boxes
  std::shared_ptr<const Program> inlined_of_;
  QString search_text_;
  std::shared_ptr<const Program> search_program_;
  std::vector<NodeId> search_results_;
  int search_index_ = -1;
};

}  // namespace views
}  // namespace tc
