#include "views/graph_view.h"

#include "views/comparison.h"
#include "views/copy_actions.h"
#include "views/node_search.h"

#include <QContextMenuEvent>
#include <QMenu>

#include <QHelpEvent>
#include <QKeyEvent>
#include <QToolTip>
#include <QMouseEvent>
#include <QPainter>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <limits>

namespace tc {
namespace views {
namespace {

constexpr std::size_t kNeighbourhoodNodes = 300;
constexpr std::size_t kMaxBoxes = 6000;      // more visible than this: draw the overview image
constexpr std::size_t kMaxEdgeBoxes = 4000;  // more visible than this: skip edges
constexpr double kTextScale = 0.42;          // below this zoom, boxes are drawn without text
constexpr int kGroupLabelPixels = 12;        // group labels beside their boxes when zoomed out
constexpr std::size_t kMaxGroupLabels = 400;

QColor kind_colour(Op op) {
  switch (op_info(op).colour) {
    case OpColour::Input: return QColor(0xd6, 0xe6, 0xff);
    case OpColour::Parameter: return QColor(0xe6, 0xdf, 0xff);
    case OpColour::Constant: return QColor(0xee, 0xf0, 0xf4);
    case OpColour::State: return QColor(0xff, 0xef, 0xc2);
    case OpColour::Arith: return QColor(0xe3, 0xf6, 0xea);
    case OpColour::Compare: return QColor(0xff, 0xec, 0xd9);
    case OpColour::Choice: return QColor(0xff, 0xe0, 0x9e);
    case OpColour::Nonlinear: return QColor(0xfb, 0xe0, 0xee);
    case OpColour::Linear: return QColor(0xd9, 0xf1, 0xfb);
    case OpColour::Host: return QColor(0xee, 0xee, 0xe8);
  }
  return Qt::white;
}

}  // namespace

GraphView::GraphView(Session* session, Mode mode, QWidget* parent)
    : QWidget(parent), session_(session), mode_(mode) {
  setFocusPolicy(Qt::StrongFocus);
  setMouseTracking(false);
  setAutoFillBackground(false);
  setMinimumSize(200, 150);
  session_->addViewer(this);
  if (mode_ == Mode::Whole) connect(session_, &Session::centreRequested, this, &GraphView::centerOnSelection);
  // Groups opened and a search belong to the file they were made in.
  connect(session_, &Session::documentReplaced, this, [this] {
    expanded_.clear();
    search_text_.clear();
    search_program_.reset();
    search_results_.clear();
    search_index_ = -1;
  });
}

GraphView::~GraphView() { session_->removeViewer(this); }

void GraphView::programChanged() {
  ready_ = false;
  if (mode_ == Mode::Whole) {
    const auto prog = session_->program();
    const bool same_shape = laid_out_ && prog && laid_out_->nodes.size() == prog->nodes.size();
    fit_pending_ = !same_shape;
  }
  requestLayout();
}

void GraphView::resultsChanged() {
  // Heat map range: log-scaled magnitudes of the values shown.
  const auto& vals = session_->displayValues();
  double hi = 0;
  for (double v : vals)
    if (std::isfinite(v)) hi = std::max(hi, std::log1p(std::abs(v)));
  value_hi_ = hi;
  magnitudes_.clear();
  for (double v : vals)
    if (std::isfinite(v) && v != 0) magnitudes_.push_back(std::abs(v));
  std::sort(magnitudes_.begin(), magnitudes_.end());
  warned_.assign(session_->program() ? session_->program()->nodes.size() : 0, 0);
  for (const auto& [id, msg] : session_->analysis().warnings)
    if (static_cast<std::size_t>(id) < warned_.size()) warned_[static_cast<std::size_t>(id)] = 1;
  if (layout_ && layout_->ids.size() > kMaxEdgeBoxes) rebuildOverview();
  update();
}

void GraphView::selectionChanged() {
  if (mode_ == Mode::Neighbourhood && session_->selected() != centre_) {
    requestLayout();
    return;
  }
  if (mode_ == Mode::Whole && layout_ && session_->selected() >= 0) {
    const int e = entryOf(session_->selected());
    if (e >= 0) {
      const QPointF v = toView(layout_->pos[static_cast<std::size_t>(e)]);
      if (!rect().adjusted(30, 30, -30, -30).contains(v.toPoint())) centerOnSelection();
    }
  }
  update();
}

void GraphView::requestLayout() {
  auto program = session_->program();
  if (!program) {
    layout_.reset();
    laid_out_.reset();
    ready_ = true;
    update();
    return;
  }
  const auto layers = session_->layers();
  if (mode_ == Mode::Whole) {
    // Large circuits are drawn grouped (by statement, then by layer bands),
    // collapsed until a group is clicked open; the plan is made once per program.
    auto plan = plan_ && laid_out_ == program ? plan_ : nullptr;
    const auto expanded = expanded_;
    session_->worker().post(QStringLiteral("layout"), [this, program, layers, plan, expanded](JobControl&) -> EngineWorker::Deliver {
      std::shared_ptr<GraphLayout> g;
      std::shared_ptr<const GroupPlan> p = plan;
      if (program->nodes.size() > kGroupThreshold) {
        if (!p) p = std::make_shared<const GroupPlan>(plan_groups(*program, layers));
        g = grouped_layout(*program, layers, p, expanded);
      } else if (program->nodes.size() <= kGraphvizLimit) {
        auto r = graphviz_layout(*program, layers);
        if (r.ok()) g = *r;
      }
      if (!g) g = layered_layout(*program, layers);
      return [this, g, program, p] {
        if (program != session_->program()) return;
        // A new plan of the same shape (an edit elsewhere in the source) keeps the groups the user opened.
        if (plan_ != p && (!plan_ || !p || plan_->groups.size() != p->groups.size())) expanded_.assign(p ? p->groups.size() : 0, 0);
        plan_ = p;
        if (inlined_of_ != program) inlined_ = inline_constants(*(inlined_of_ = program));
        laid_out_ = program;
        setLayout(g);
      };
    }, this);
  } else {
    const NodeId centre = session_->selected();
    centre_ = centre;
    if (centre < 0) {
      layout_.reset();
      laid_out_ = program;
      ready_ = true;
      update();
      return;
    }
    session_->worker().post(QStringLiteral("neighbourhood"),
                            [this, program, layers, centre](JobControl&) -> EngineWorker::Deliver {
                              const auto ids = neighbourhood(*program, centre, kNeighbourhoodNodes);
                              auto r = graphviz_layout(*program, layers, &ids);
                              std::shared_ptr<GraphLayout> g = r.ok() ? *r : nullptr;
                              return [this, g, program] {
                                if (program != session_->program()) return;
                                if (inlined_of_ != program) inlined_ = inline_constants(*(inlined_of_ = program));
                                laid_out_ = program;
                                fit_pending_ = true;
                                setLayout(g);
                              };
                            }, this);
  }
}

void GraphView::setLayout(std::shared_ptr<GraphLayout> layout) {
  layout_ = std::move(layout);
  ready_ = true;
  rebuildOverview();
  if (fit_pending_) {
    if (mode_ == Mode::Neighbourhood) {
      fitAll();  // the whole neighbourhood in view; the selection is in it
    } else {
      fitAll();
    }
    fit_pending_ = false;
  }
  if (layout_) emit layoutFinished(layout_->milliseconds, layout_->graphviz);
  update();
}

void GraphView::setOverlay(Overlay o) {
  overlay_ = o;
  rebuildOverview();
  update();
}

void GraphView::setComparison(const Comparison* c) {
  comparison_ = c;
  if (c) connect(c, &Comparison::changed, this, [this] {
      rebuildOverview();
      update();
    });
}

void GraphView::fitAll() {
  if (!layout_ || layout_->ids.empty() || width() <= 0 || height() <= 0) return;
  const QRectF b = layout_->bounds;
  // The circuit's legend sits in the bottom right corner: keep the bottom rows clear of it.
  const double h = mode_ == Mode::Whole && height() > 300 ? height() - 80.0 : height();
  double s = std::min(width() / b.width(), h / b.height());
  // Never blow small graphs up beyond readable 1:1 (nor shrink to nothing).
  s = std::clamp(s, 1e-5, 1.25);
  scale_ = s;
  origin_ = b.center() - QPointF(width() / 2.0, h / 2.0) / scale_;
  update();
}

void GraphView::centerOnSelection() {
  if (!layout_) return;
  const int e = entryOf(session_->selected());
  if (e < 0) return;
  if (scale_ < 0.5) scale_ = mode_ == Mode::Neighbourhood ? std::max(scale_, 0.6) : 0.8;
  origin_ = layout_->pos[static_cast<std::size_t>(e)] - QPointF(width() / 2.0, height() / 2.0) / scale_;
  update();
}

bool GraphView::search(const QString& text) {
  auto program = session_->program();
  if (!program) return false;
  // The same query again steps to the next match (Find Node's result list).
  if (text != search_text_ || search_program_ != program) {
    search_text_ = text;
    search_program_ = program;
    search_results_ = find_nodes(*program, text.toStdString());
    search_index_ = -1;
  }
  if (search_results_.empty()) return false;
  return showSearchResult(search_index_ + 1);
}

bool GraphView::showSearchResult(int index) {
  if (search_results_.empty()) return false;
  const int n = static_cast<int>(search_results_.size());
  search_index_ = ((index % n) + n) % n;  // wraps around both ways
  session_->select(search_results_[static_cast<std::size_t>(search_index_)]);
  centerOnSelection();  // a node asked for by name or id is centred, wherever it was
  return true;
}

void GraphView::zoomAt(double factor, const QPointF& at) {
  const QPointF w = toWorld(at);
  scale_ = std::clamp(scale_ * factor, 1e-5, 4.0);
  origin_ = w - at / scale_;
  update();
}

void GraphView::rebuildOverview() {
  overview_ = QImage();
  overview_scaled_ = QImage();
  if (!layout_ || layout_->ids.size() <= kMaxEdgeBoxes) return;
  const QRectF b = layout_->bounds;
  const int w = std::clamp(static_cast<int>(b.width() / 8), 64, 4096);
  const int h = std::clamp(static_cast<int>(b.height() / 8), 16, 4096);
  overview_ = QImage(w, h, QImage::Format_ARGB32_Premultiplied);
  overview_.fill(Qt::transparent);
  const double sx = w / b.width(), sy = h / b.height();
  QPainter p(&overview_);
  for (std::size_t e = 0; e < layout_->ids.size(); ++e) {
    const QPointF c = layout_->pos[e];
    const int x = static_cast<int>((c.x() - layout_->width[e] / 2 - b.left()) * sx);
    const int y = static_cast<int>((c.y() - layout_->height / 2 - b.top()) * sy);
    const int rw = std::max(1, static_cast<int>(layout_->width[e] * sx));
    const int rh = std::max(1, static_cast<int>(layout_->height * sy));
    p.fillRect(x, y, rw, rh, fillFor(layout_->ids[e]).darker(190));  // dark enough to read once averaged down
  }
}

QColor GraphView::fillFor(NodeId id) const {
  auto program = laid_out_ ? laid_out_ : session_->program();
  if (!program || static_cast<std::size_t>(id) >= program->nodes.size()) return Qt::white;
  const Node& n = program->nodes[static_cast<std::size_t>(id)];
  // Comparing: what changed wins over every overlay.
  if (comparison_)
    if (const QColor c = Comparison::fill(comparison_->mark(id)); c.isValid()) return c;
  if (overlay_ == Overlay::Values) {
    const auto& vals = session_->displayValues();
    if (static_cast<std::size_t>(id) < vals.size()) {
      const double v = vals[static_cast<std::size_t>(id)];
      if (!std::isfinite(v)) return QColor(0xe4, 0xe4, 0xe4);  // not computed on this case
      const double t = heat(v);
      const QColor base = v < 0 ? QColor(0x4a, 0x7f, 0xd9) : QColor(0xe8, 0x6a, 0x2c);
      const QColor white(0xfb, 0xfb, 0xfb);
      auto mix = [&](int a, int b2) { return static_cast<int>(a + (b2 - a) * (0.15 + 0.75 * t)); };
      if (v == 0) return QColor(0xf7, 0xf7, 0xf2);
      return QColor(mix(white.red(), base.red()), mix(white.green(), base.green()), mix(white.blue(), base.blue()));
    }
  }
  if (overlay_ == Overlay::Intervals) {
    for (const auto& [wid, msg] : session_->analysis().warnings)
      if (wid == id) return QColor(0xff, 0xc9, 0xc9);
  }
  return kind_colour(n.op);
}

QString GraphView::labelFor(NodeId id, int line) const {
  auto program = laid_out_;
  const Node& n = program->nodes[static_cast<std::size_t>(id)];
  if (line == 0) {
    QString s = QStringLiteral("#%1 %2").arg(id).arg(QString::fromUtf8(op_name(n.op).data(), static_cast<int>(op_name(n.op).size())));
    if (!n.name.empty()) s += QLatin1Char(' ') + QString::fromStdString(n.name);
    if (n.op == Op::Constant) s += QLatin1Char(' ') + QString::fromStdString(format_short(n.value));
    // Constants drawn inside this box: the arguments in order, constants by value (`#7 mul %3, 2.5`).
    bool any = false;
    for (NodeId a : n.args) any = any || (static_cast<std::size_t>(a) < inlined_.size() && inlined_[static_cast<std::size_t>(a)]);
    if (any) {
      QStringList args;
      for (NodeId a : n.args) {
        const auto ai = static_cast<std::size_t>(a);
        args << (inlined_[ai] ? QString::fromStdString(format_short(program->nodes[ai].value)) : QStringLiteral("%%1").arg(a));
      }
      s += QLatin1Char(' ') + args.join(QStringLiteral(", "));
    }
    return s;
  }
  if (overlay_ == Overlay::Intervals) {
    const auto& iv = session_->analysis().intervals;
    if (static_cast<std::size_t>(id) < iv.size()) {
      return QStringLiteral("[%1, %2]").arg(QString::fromStdString(format_short(iv[static_cast<std::size_t>(id)].first)),
                                            QString::fromStdString(format_short(iv[static_cast<std::size_t>(id)].second)));
    }
    return {};
  }
  const auto& vals = session_->displayValues();
  if (static_cast<std::size_t>(id) < vals.size()) {
    const double v = vals[static_cast<std::size_t>(id)];
    QString s = std::isnan(v) ? tr("not computed") : QStringLiteral("= %1").arg(QString::fromStdString(format_short(v)));
    const auto& br = session_->exactRun().trace.branch;
    if (n.op == Op::Select && static_cast<std::size_t>(id) < br.size() && br[static_cast<std::size_t>(id)] >= 0)
      s += br[static_cast<std::size_t>(id)] ? tr("  (yes)") : tr("  (no)");
    return s;
  }
  return {};
}

QString GraphView::placeholderText() const {
  if (layout_ && laid_out_) return {};
  if (mode_ == Mode::Neighbourhood && session_->program()) return tr("Select a node to see its neighbourhood.");
  // (An artifact that does not load never becomes the document: Session::openFile.)
  if (!session_->program() && !session_->diagnostics().empty())
    return tr("No circuit: the source does not compile (see Problems).");
  if (!session_->program()) return tr("No program: open a .py file or an artifact.");
  return tr("Laying out…");
}

void GraphView::paintEvent(QPaintEvent*) {
  // One frame: the overview image when too many boxes are in view, else the
  // layer bands, edges, boxes and output names in world coordinates; then
  // the overlays in view coordinates (layer labels, minimap, caption, legend).
  QPainter p(this);
  p.fillRect(rect(), QColor(0xfc, 0xfc, 0xfd));
  if (!layout_ || !laid_out_) {
    p.setPen(QColor(0x80, 0x80, 0x88));
    p.drawText(rect(), Qt::AlignCenter, placeholderText());
    return;
  }
  const GraphLayout& g = *layout_;
  const QRectF world(toWorld(QPointF(0, 0)), toWorld(QPointF(width(), height())));
  bool more = false;
  const auto vis = g.visible(world, kMaxBoxes, &more);
  p.setRenderHint(QPainter::Antialiasing, vis.size() < 3000);
  if (more && !overview_.isNull()) {
    paintOverview(p);
  } else {
    p.save();
    p.scale(scale_, scale_);
    p.translate(-origin_);
    paintLayerBands(p, world);
    if (vis.size() <= kMaxEdgeBoxes) paintEdges(p, world);
    const bool text = scale_ >= kTextScale;
    paintBoxes(p, vis, text);
    if (text) paintOutputNames(p);
    p.restore();
  }
  paintGroupLabels(p, vis);
  paintLayerLabels(p);
  paintMinimap(p);
  paintCaption(p);
  if (mode_ == Mode::Whole) paintLegend(p);
  if (comparison_ && comparison_->active()) paint_compare_legend(p, rect(), *comparison_);
  if (session_->compileFailed()) paintOutOfDate(p);
  emit framePainted();
}

void GraphView::paintOverview(QPainter& p) {
  const GraphLayout& g = *layout_;
  const QRectF target(toView(g.bounds.topLeft()), toView(g.bounds.bottomRight()));
  const QSize size(std::max(1, qRound(target.width())), std::max(1, qRound(target.height())));
  if (size.width() <= overview_.width() && size.height() <= overview_.height()) {
    // Shrinking by plain sampling turns the layer rows into moire bands: average instead, once per size.
    if (overview_scaled_.size() != size)
      overview_scaled_ = overview_.scaled(size, Qt::IgnoreAspectRatio, Qt::SmoothTransformation);
    p.drawImage(target.topLeft(), overview_scaled_);
  } else {
    p.setRenderHint(QPainter::SmoothPixmapTransform, true);
    p.drawImage(target, overview_);
  }
}

void GraphView::paintLayerBands(QPainter& p, const QRectF& world) {
  const GraphLayout& g = *layout_;
  // Schedule layers as bands behind the rows (labelled at the left edge below).
  for (std::size_t r = 0; r < g.rows.size(); ++r) {
    const double y = g.rows[r].y;
    if (y + g.height < world.top() || y - g.height > world.bottom()) continue;
    if (r % 2 == 0) p.fillRect(QRectF(world.left(), y - g.height * 1.1, world.width(), g.height * 2.2), QColor(0xf1, 0xf3, 0xf7));
  }
}

void GraphView::paintEdges(QPainter& p, const QRectF& world) {
  const GraphLayout& g = *layout_;
  const NodeId sel = session_->selected();
  // Edges whose bounding box meets the view, including long edges that
  // pass through it with both ends off screen: one bounds test per edge
  // (a few milliseconds for 200,000 edges), drawn only when few boxes are in view.
  QPen pen(QColor(0x9a, 0xa3, 0xb5));
  pen.setCosmetic(true);
  pen.setWidthF(1.0);
  QPen hot(QColor(0x2b, 0x6c, 0xd8));
  hot.setCosmetic(true);
  hot.setWidthF(2.0);
  const int selEntry = sel >= 0 && static_cast<std::size_t>(sel) < g.index_of.size() ? g.index_of[static_cast<std::size_t>(sel)] : -1;
  p.setBrush(Qt::NoBrush);
  std::size_t drawn = 0;
  const double half = g.height / 2.0;
  for (const auto& edge : g.edges) {
    const QPointF a = g.pos[static_cast<std::size_t>(edge.from)] + QPointF(0, half);
    const QPointF b = g.pos[static_cast<std::size_t>(edge.to)] - QPointF(0, half);
    if (edge.path.isEmpty()) {
      if (std::max(a.x(), b.x()) < world.left() || std::min(a.x(), b.x()) > world.right() ||
          std::max(a.y(), b.y()) < world.top() || std::min(a.y(), b.y()) > world.bottom())
        continue;
    } else if (!edge.path.controlPointRect().intersects(world)) {
      continue;
    }
    if (++drawn > kMaxEdgeBoxes * 4) break;
    const bool isHot = edge.from == selEntry || edge.to == selEntry;
    if (edge.count > 1) {
      // A bundle of node edges between groups: thicker with more edges.
      QPen bundled = isHot ? hot : pen;
      bundled.setWidthF(std::min(6.0, 1.0 + std::log2(static_cast<double>(edge.count))));
      p.setPen(bundled);
    } else {
      p.setPen(isHot ? hot : pen);
    }
    if (!edge.path.isEmpty()) p.drawPath(edge.path);
    else p.drawLine(a, b);
  }
}

void GraphView::paintBoxes(QPainter& p, const std::vector<int>& vis, bool text) {
  const GraphLayout& g = *layout_;
  const auto& program = *laid_out_;
  const NodeId sel = session_->selected();
  const auto& hl = session_->highlighted();
  const bool selInline = sel >= 0 && static_cast<std::size_t>(sel) < inlined_.size() && inlined_[static_cast<std::size_t>(sel)];
  QFont f = font();
  // Zoomed out a little, grow the world font so labels stay legible (elided to the box).
  f.setPointSizeF(std::clamp(6.8 / scale_, 8.0, 10.0));
  p.setFont(f);
  const QFontMetricsF fm(f);
  QPen border(QColor(0x6b, 0x72, 0x80));
  border.setCosmetic(true);
  for (int e : vis) {
    const auto i = static_cast<std::size_t>(e);
    const NodeId id = g.ids[i];
    const QRectF r(g.pos[i].x() - g.width[i] / 2, g.pos[i].y() - g.height / 2, g.width[i], g.height);
    const bool isSel = id == sel;
    bool isHl = std::binary_search(hl.begin(), hl.end(), id);
    // A selected constant is drawn in its users' boxes: mark them.
    if (selInline)
      for (NodeId a : program.nodes[static_cast<std::size_t>(id)].args) isHl = isHl || a == sel;
    QPen b = border;
    const auto& grad = session_->chosenGrad();
    const bool gradFailed = id == grad.failed_node || id == grad.failed_select;
    if (gradFailed && !isSel) {
      // A hybrid derivative failed here: the select and the undefined node it needs.
      b = QPen(QColor(0xd9, 0x30, 0x25), 2.5, Qt::DashLine);
      b.setCosmetic(true);
    } else if (isSel) {
      b = QPen(QColor(0x1d, 0x5b, 0xd6), 3.0);
      b.setCosmetic(true);
    } else if (isHl) {
      // Teal: orange is Compare's "changed", blue the selection.
      b = QPen(QColor(0x0e, 0x94, 0x9c), 2.5);
      b.setCosmetic(true);
    }
    const bool isGroup = i < g.group.size() && g.group[i] >= 0;
    if (isGroup && !isSel) {
      b = QPen(QColor(0x6a, 0x4c, 0x9c), 1.6);
      b.setCosmetic(true);
    }
    QColor groupFill(0xec, 0xe6, 0xf6);
    if (comparison_ && !isSel) {
      const auto m = isGroup && plan_ ? comparison_->groupMark(*plan_, g.group[i]) : comparison_->mark(id);
      if (const QColor c = Comparison::border(m); c.isValid()) {
        b = QPen(c, 2.5, m == Comparison::Mark::LostInput ? Qt::DashLine : Qt::SolidLine);
        b.setCosmetic(true);
      }
      if (const QColor c = Comparison::fill(m); c.isValid() && isGroup) groupFill = c;
    }
    p.setPen(b);
    p.setBrush(isGroup ? groupFill : fillFor(id));
    if (text) p.drawRoundedRect(r, 5, 5);
    else p.drawRect(r);
    // Analysis warnings stay visible under every overlay: a red corner mark.
    if (static_cast<std::size_t>(id) < warned_.size() && warned_[static_cast<std::size_t>(id)]) {
      const double m = std::min<double>(10.0, g.height / 3.0);
      QPolygonF tri;
      tri << r.topRight() << r.topRight() + QPointF(-m, 0) << r.topRight() + QPointF(0, m);
      p.setPen(Qt::NoPen);
      p.setBrush(QColor(0xd9, 0x30, 0x25));
      p.drawPolygon(tri);
    }
    if (text) {
      p.setPen(QColor(0x1f, 0x23, 0x2b));
      const QRectF t1(r.left() + 4, r.top() + 2, r.width() - 8, r.height() / 2 - 1);
      const QRectF t2(r.left() + 4, r.center().y(), r.width() - 8, r.height() / 2 - 2);
      p.drawText(t1, Qt::AlignCenter, fm.elidedText(isGroup ? groupLabel(e, 0) : labelFor(id, 0), Qt::ElideRight, t1.width()));
      p.setPen(QColor(0x3c, 0x44, 0x55));
      // Semantic zoom: the value line appears once boxes are large enough to read it.
      if (scale_ >= 0.6 || isGroup)
        p.drawText(t2, Qt::AlignCenter, fm.elidedText(isGroup ? groupLabel(e, 1) : labelFor(id, 1), Qt::ElideRight, t2.width()));
    }
  }
}

void GraphView::paintOutputNames(QPainter& p) {
  const GraphLayout& g = *layout_;
  const auto& program = *laid_out_;
  p.setPen(QColor(0x1d, 0x5b, 0xd6));
  for (const auto& [name, oid] : program.outputs) {
    if (static_cast<std::size_t>(oid) >= g.index_of.size()) continue;
    const int e = g.index_of[static_cast<std::size_t>(oid)];
    if (e < 0) continue;
    const QPointF c = g.pos[static_cast<std::size_t>(e)];
    p.drawText(QRectF(c.x() - 80, c.y() + g.height / 2 + 2, 160, 16), Qt::AlignHCenter | Qt::AlignTop,
               QStringLiteral("▼ %1").arg(QString::fromStdString(name)));
  }
}

QString GraphView::breadcrumb() const {
  if (!plan_) return {};
  QStringList parts;
  for (std::size_t k = 0; k < plan_->groups.size() && k < expanded_.size(); ++k) {
    if (!expanded_[k]) continue;
    const auto& grp = plan_->groups[k];
    QString label = QString::fromStdString(grp.iteration.empty() ? grp.label : grp.iteration);
    // An inner group reads after its statement: "line 5 › i=3".
    if (grp.parent >= 0 && static_cast<std::size_t>(grp.parent) < plan_->groups.size())
      label = QString::fromStdString(plan_->groups[static_cast<std::size_t>(grp.parent)].label) + QStringLiteral(" › ") + label;
    parts << label;
  }
  return parts.join(QStringLiteral("  |  "));
}

QString GraphView::groupingText() const {
  // Say what the boxes are: an artifact without source locations is cut
  // into bands of schedule layers, not statements.
  const Grouping g = grouping_of(*plan_);
  QStringList what;
  if (g.statements) what << tr("statement");
  if (g.iterations) what << tr("loop iteration");
  if (g.layer_bands) what << tr("bands of schedule layers");
  return what.join(tr(", "));
}

QRect GraphView::captionRect() const {
  QRect r = rect().adjusted(8, 4, -8, -4);
  // Beside the legend, never under it: the legend is opaque and would hide the zoom.
  const QRect legend = legendRect();
  if (!legend.isEmpty()) r.setRight(std::max(r.left(), legend.left() - 8));
  return r;
}

QString GraphView::captionText() const {
  if (!layout_ || !laid_out_) return {};
  const GraphLayout& g = *layout_;
  const auto& program = *laid_out_;
  QString cap = mode_ == Mode::Neighbourhood
                    ? tr("neighbourhood of #%1: %2 nodes (Graphviz)").arg(centre_).arg(g.ids.size())
                    : (g.graphviz ? tr("%1 nodes, Graphviz dot by schedule layer").arg(program.nodes.size())
                       : plan_    ? tr("%1 nodes in %2 boxes, grouped by %3 (click a group to open it)")
                                     .arg(program.nodes.size())
                                     .arg(g.ids.size())
                                     .arg(groupingText())
                                  : tr("%1 nodes, layered layout by schedule layer").arg(program.nodes.size()));
  const QString zoom = tr("   zoom %1%").arg(scale_ * 100.0, 0, 'f', scale_ < 0.01 ? 3 : 0);
  const int room = captionRect().width();
  // Too long for the room left of the legend: first the click hint goes
  // (the docs say it too), then the end of the rest; the zoom stays.
  if (plan_ && !g.graphviz && mode_ == Mode::Whole && fontMetrics().horizontalAdvance(cap + zoom) > room)
    cap = tr("%1 nodes in %2 boxes, grouped by %3").arg(program.nodes.size()).arg(g.ids.size()).arg(groupingText());
  // The start says what is drawn and the zoom is what changes: cut the end of the description.
  return fontMetrics().elidedText(cap, Qt::ElideRight, std::max(0, room - fontMetrics().horizontalAdvance(zoom))) + zoom;
}

void GraphView::paintCaption(QPainter& p) {
  // Corner caption: what is shown.
  p.setPen(QColor(0x55, 0x5d, 0x6b));
  p.drawText(captionRect(), Qt::AlignLeft | Qt::AlignBottom, captionText());
  // Which groups are open, so an opened loop nest says where it is at any
  // zoom; on a light band of its own, the layer labels kept clear of it.
  const QRect crumbs = breadcrumbRect();
  if (!crumbs.isEmpty()) {
    p.fillRect(crumbs, QColor(255, 255, 255, 220));
    p.setPen(QColor(0x6a, 0x4c, 0x9c));
    p.drawText(crumbs.adjusted(4, 0, -4, 0), Qt::AlignLeft | Qt::AlignVCenter, tr("open: %1").arg(breadcrumb()));
  }
}

void GraphView::paintGroupLabels(QPainter& p, const std::vector<int>& vis) {
  // Zoomed out, a group box is too small for its label, and a fitted loop
  // nest became an unlabelled strip: the label goes beside the box at a
  // fixed screen size instead, the first come (top, left) winning where two
  // would overlap.
  painted_labels_.clear();
  if (!layout_ || !plan_ || scale_ >= kTextScale) return;
  const GraphLayout& g = *layout_;
  QFont f = font();
  f.setPixelSize(kGroupLabelPixels);
  p.setFont(f);
  const QFontMetricsF fm(f);
  const QRectF view(rect());
  for (int e : vis) {
    const auto i = static_cast<std::size_t>(e);
    if (i >= g.group.size() || g.group[i] < 0) continue;
    const int grp = g.group[i];
    const QString text = QString::fromStdString(plan_->groups[static_cast<std::size_t>(grp)].label);
    const QPointF c = toView(g.pos[i]);
    const QRectF r(c.x() + g.width[i] / 2.0 * scale_ + 3.0, c.y() - fm.height() / 2.0, fm.horizontalAdvance(text) + 6.0,
                   fm.height());
    if (!view.intersects(r)) continue;
    const bool clash = std::any_of(painted_labels_.begin(), painted_labels_.end(),
                                   [&](const PaintedLabel& l) { return l.rect.intersects(r); });
    if (clash) continue;
    p.fillRect(r, QColor(255, 255, 255, 215));
    p.setPen(QColor(0x4a, 0x32, 0x78));
    p.drawText(r, Qt::AlignCenter, text);
    painted_labels_.push_back({grp, r});
    if (painted_labels_.size() >= kMaxGroupLabels) break;
  }
}

QPointF GraphView::nodeViewPos(NodeId id) const {
  const int e = entryOf(id);
  return e < 0 ? QPointF() : toView(layout_->pos[static_cast<std::size_t>(e)]);
}

int GraphView::entryOf(NodeId id) const {
  if (!layout_ || id < 0 || static_cast<std::size_t>(id) >= layout_->index_of.size()) return -1;
  const int e = layout_->index_of[static_cast<std::size_t>(id)];
  if (e >= 0 || !laid_out_ || static_cast<std::size_t>(id) >= inlined_.size() || !inlined_[static_cast<std::size_t>(id)]) return e;
  // A constant drawn inline: the box of its first user that is laid out.
  for (const auto& n : laid_out_->nodes)
    if (std::find(n.args.begin(), n.args.end(), id) != n.args.end())
      if (const int u = layout_->index_of[static_cast<std::size_t>(n.id)]; u >= 0) return u;
  return -1;
}

QString GraphView::rowLabel(std::size_t row) const {
  // A row of the grouped drawing holds boxes placed by their dependencies,
  // each spanning many layers: the label gives the span ("L3-40"), since the
  // first layer alone read the same on every row of an opened loop.
  if (!layout_ || row >= layout_->rows.size() || layout_->rows[row].entries.empty()) return {};
  const auto& layers = session_->layers();
  int lo = std::numeric_limits<int>::max(), hi = std::numeric_limits<int>::min();
  for (int e : layout_->rows[row].entries) {
    const auto i = static_cast<std::size_t>(e);
    if (i < layout_->group.size() && layout_->group[i] >= 0 && plan_) {
      const auto& grp = plan_->groups[static_cast<std::size_t>(layout_->group[i])];
      lo = std::min(lo, grp.layer_lo);
      hi = std::max(hi, grp.layer_hi);
    } else if (const auto id = static_cast<std::size_t>(layout_->ids[i]); id < layers.size()) {
      lo = std::min(lo, layers[id]);
      hi = std::max(hi, layers[id]);
    }
  }
  if (lo > hi) return {};
  return lo == hi ? QStringLiteral("L%1").arg(lo) : QStringLiteral("L%1-%2").arg(lo).arg(hi);
}

QRect GraphView::breadcrumbRect() const {
  const QString crumbs = breadcrumb();
  if (crumbs.isEmpty()) return {};
  const QFontMetrics fm = fontMetrics();
  const int w = std::min(width() - 12, fm.horizontalAdvance(tr("open: %1").arg(crumbs)) + 8);
  return QRect(4, 2, std::max(0, w), fm.height() + 4);
}

std::vector<QRectF> GraphView::layerLabelRects() const {
  std::vector<QRectF> out;
  if (!layout_ || layout_->graphviz || scale_ < 0.15) return out;
  const QRectF crumbs = breadcrumbRect();
  out.reserve(layout_->rows.size());
  for (std::size_t r = 0; r < layout_->rows.size(); ++r) {
    const double y = toView(QPointF(0, layout_->rows[r].y)).y();
    const QRectF at(2, y - 7, 40, 14);
    // Off screen, or under the breadcrumb, which drew over the first label.
    if (y < 0 || y > height() || at.intersects(crumbs)) out.emplace_back();
    else out.push_back(at);
  }
  return out;
}

void GraphView::paintLayerLabels(QPainter& p) {
  const std::vector<QRectF> at = layerLabelRects();
  if (at.empty()) return;
  QFont f = font();
  f.setPointSizeF(7.5);
  p.setFont(f);
  p.setPen(QColor(0x8a, 0x90, 0x9c));
  for (std::size_t r = 0; r < at.size(); ++r)
    if (!at[r].isNull()) p.drawText(at[r], Qt::AlignLeft | Qt::AlignVCenter, rowLabel(r));
}

bool GraphView::minimapShown() const {
  if (!layout_ || mode_ != Mode::Whole) return false;
  const QRectF b = layout_->bounds;
  if (b.width() <= 0 || b.height() <= 0) return false;
  // In view pixels, with half a pixel to spare: fitAll puts one edge of the
  // circuit exactly on the view's edge, and a rounding error there showed
  // the minimap over the nodes just fitted.
  const QRectF inView(toView(b.topLeft()), toView(b.bottomRight()));
  return !QRectF(rect()).adjusted(-0.5, -0.5, 0.5, 0.5).contains(inView);
}

void GraphView::paintMinimap(QPainter& p) {
  // Only when part of the circuit is out of view: the whole layout small in a
  // corner, with the visible part outlined.
  if (!minimapShown()) return;
  const QRectF b = layout_->bounds;
  const QRectF world(toWorld(QPointF(0, 0)), toWorld(QPointF(width(), height())));
  const double s = std::min(150.0 / b.width(), 100.0 / b.height());
  const QRectF box(width() - b.width() * s - 10, 8, b.width() * s, b.height() * s);
  p.fillRect(box.adjusted(-2, -2, 2, 2), QColor(255, 255, 255, 225));
  p.setPen(QColor(0xb0, 0xb4, 0xbc));
  p.drawRect(box.adjusted(-2, -2, 2, 2));
  auto map = [&](QPointF w) { return QPointF(box.left() + (w.x() - b.left()) * s, box.top() + (w.y() - b.top()) * s); };
  if (!overview_.isNull()) {
    p.drawImage(box, overview_);
  } else {
    p.setPen(Qt::NoPen);
    p.setBrush(QColor(0x7a, 0x82, 0x94));
    const std::size_t step = std::max<std::size_t>(1, layout_->ids.size() / 6000);
    for (std::size_t e = 0; e < layout_->ids.size(); e += step) p.drawRect(QRectF(map(layout_->pos[e]), QSizeF(1.5, 1.5)));
  }
  p.setBrush(Qt::NoBrush);
  p.setPen(QPen(QColor(0x1d, 0x5b, 0xd6), 1.2));
  p.drawRect(QRectF(map(world.topLeft()), map(world.bottomRight())).intersected(box.adjusted(-2, -2, 2, 2)));
}

double GraphView::heat(double v) const {
  if (magnitudes_.empty() || !std::isfinite(v) || v == 0) return 0.0;
  const double m = std::abs(v);
  // Mid-rank among equal magnitudes, so one repeated value sits mid-scale rather than at an end.
  const auto lo = std::lower_bound(magnitudes_.begin(), magnitudes_.end(), m);
  const auto hi = std::upper_bound(magnitudes_.begin(), magnitudes_.end(), m);
  const double rank = (static_cast<double>(lo - magnitudes_.begin()) + static_cast<double>(hi - magnitudes_.begin())) / 2.0;
  return magnitudes_.size() == 1 ? 0.5 : std::clamp(rank / static_cast<double>(magnitudes_.size()), 0.0, 1.0);
}

QStringList GraphView::legendLabels() const {
  QStringList out;
  if (overlay_ != Overlay::Values || magnitudes_.empty()) return out;
  for (int q = 0; q <= 4; ++q) {
    const auto i = std::min(magnitudes_.size() - 1, static_cast<std::size_t>(q * (magnitudes_.size() - 1) / 4));
    out << QString::fromStdString(format_short(magnitudes_[i]));
  }
  return out;
}

namespace {
QFont legendFont(QFont f) {
  f.setPointSizeF(7.5);
  return f;
}
constexpr int kLegendSwatchH = 12, kLegendPad = 6;
}  // namespace

/// Each of the five cells is as wide as the longest magnitude label
/// ("1.44089e-05" was cut to "44089e-" in fixed 44 px cells) and the box at
/// least as wide as its title.
QRect GraphView::legendRect() const {
  const QStringList labels = legendLabels();
  if (mode_ != Mode::Whole || labels.isEmpty()) return {};
  const QFontMetrics fm(legendFont(font()));
  int sw = 44;
  for (const QString& l : labels) sw = std::max(sw, fm.horizontalAdvance(l) + 6);
  const int inner = std::max(5 * sw, fm.horizontalAdvance(tr("|value| by rank (− blue, + orange)")) + 4);
  const int sh = kLegendSwatchH, pad = kLegendPad;
  return QRect(width() - inner - 2 * pad - 8, height() - 3 * sh - 34 - pad, inner + 2 * pad, 3 * sh + 30);
}

void GraphView::paintLegend(QPainter& p) {
  const QStringList labels = legendLabels();
  const QRect box = legendRect();
  if (labels.isEmpty() || box.isEmpty()) return;
  // Bottom right: two rows of five swatches (negative blue, positive orange)
  // at the magnitudes of the 0/25/50/75/100 % ranks, grey for "not computed".
  const int sh = kLegendSwatchH, pad = kLegendPad;
  const int sw = (box.width() - 2 * pad) / 5;
  p.fillRect(box, QColor(255, 255, 255, 230));
  p.setPen(QColor(0xb0, 0xb4, 0xbc));
  p.drawRect(box);
  p.setFont(legendFont(font()));
  p.setPen(QColor(0x44, 0x4a, 0x55));
  p.drawText(QRect(box.left() + pad, box.top() + 2, box.width() - 2 * pad, 12), Qt::AlignLeft, tr("|value| by rank (− blue, + orange)"));
  for (int q = 0; q <= 4; ++q) {
    const double t = q / 4.0;
    const QColor white(0xfb, 0xfb, 0xfb);
    for (int sign = 0; sign < 2; ++sign) {
      const QColor base = sign ? QColor(0xe8, 0x6a, 0x2c) : QColor(0x4a, 0x7f, 0xd9);
      auto mix = [&](int a, int b2) { return static_cast<int>(a + (b2 - a) * (0.15 + 0.75 * t)); };
      const QColor c(mix(white.red(), base.red()), mix(white.green(), base.green()), mix(white.blue(), base.blue()));
      p.fillRect(box.left() + pad + q * sw, box.top() + 16 + sign * sh, sw - 2, sh - 1, c);
    }
    p.drawText(QRect(box.left() + pad + q * sw, box.top() + 16 + 2 * sh, sw - 2, 12), Qt::AlignCenter, labels[q]);
  }
}

void GraphView::paintOutOfDate(QPainter& p) {
  // The last good circuit stays for orientation, washed out under a banner.
  p.fillRect(rect(), QColor(0xfc, 0xfc, 0xfd, 170));
  const QRect banner(0, 0, width(), 26);
  p.fillRect(banner, QColor(0xff, 0xf1, 0xc2));
  p.setPen(QColor(0x8a, 0x5a, 0x00));
  p.drawText(banner.adjusted(8, 0, -8, 0), Qt::AlignVCenter | Qt::AlignLeft,
             tr("Out of date: the source does not compile (see Problems). This is the last circuit that compiled."));
}

void GraphView::wheelEvent(QWheelEvent* ev) {
  const double steps = ev->angleDelta().y() / 120.0;
  zoomAt(std::pow(1.2, steps), ev->position());
  ev->accept();
}

void GraphView::mousePressEvent(QMouseEvent* ev) {
  setFocus();
  if (ev->button() == Qt::LeftButton || ev->button() == Qt::MiddleButton) {
    dragging_ = true;
    moved_ = false;
    drag_start_ = ev->pos();
    drag_origin_ = origin_;
    setCursor(Qt::ClosedHandCursor);
  }
}

void GraphView::mouseMoveEvent(QMouseEvent* ev) {
  if (!dragging_) return;
  const QPoint d = ev->pos() - drag_start_;
  if (d.manhattanLength() > 3) moved_ = true;
  origin_ = drag_origin_ - QPointF(d) / scale_;
  update();
}

void GraphView::mouseReleaseEvent(QMouseEvent* ev) {
  unsetCursor();
  const bool click = dragging_ && !moved_ && ev->button() == Qt::LeftButton;
  dragging_ = false;
  if (click && layout_) {
    const int e = layout_->hit(toWorld(ev->position()));
    if (e >= 0 && static_cast<std::size_t>(e) < layout_->group.size() && layout_->group[static_cast<std::size_t>(e)] >= 0)
      toggleGroup(layout_->group[static_cast<std::size_t>(e)]);  // a group opens in place
    else if (e >= 0)
      session_->select(layout_->ids[static_cast<std::size_t>(e)]);
  }
}

void GraphView::toggleGroup(int g) {
  if (!plan_ || g < 0 || static_cast<std::size_t>(g) >= plan_->groups.size()) return;
  expanded_.resize(plan_->groups.size(), 0);
  expanded_[static_cast<std::size_t>(g)] = !expanded_[static_cast<std::size_t>(g)];
  // Closing a statement closes its bands too.
  if (!expanded_[static_cast<std::size_t>(g)])
    for (std::size_t k = 0; k < plan_->groups.size(); ++k)
      if (plan_->groups[k].parent == g) expanded_[k] = 0;
  ready_ = false;
  requestLayout();
}

QString GraphView::groupLabel(int entry, int line) const {
  const int g = layout_->group[static_cast<std::size_t>(entry)];
  const auto& grp = plan_->groups[static_cast<std::size_t>(g)];
  if (line == 0) return QStringLiteral("▸ %1").arg(QString::fromStdString(grp.label));
  return tr("%n node(s)", nullptr, static_cast<int>(grp.size));
}

NodeId GraphView::nodeAt(const QPointF& pos) const {
  if (!layout_) return -1;
  const int e = layout_->hit(toWorld(pos));
  if (e < 0 || static_cast<std::size_t>(e) >= layout_->ids.size()) return -1;
  if (static_cast<std::size_t>(e) < layout_->group.size() && layout_->group[static_cast<std::size_t>(e)] >= 0) return -1;
  return layout_->ids[static_cast<std::size_t>(e)];
}

void GraphView::contextMenuEvent(QContextMenuEvent* ev) {
  const NodeId id = nodeAt(ev->pos());
  if (id < 0) return;
  session_->select(id);
  QMenu menu(this);
  addNodeActions(&menu, session_, id);
  menu.exec(ev->globalPos());
}

void GraphView::mouseDoubleClickEvent(QMouseEvent* ev) {
  if (!layout_) return;
  if (layout_->hit(toWorld(ev->position())) < 0) fitAll();
  else zoomAt(1.6, ev->position());
}

void GraphView::keyPressEvent(QKeyEvent* ev) {
  const double step = 60.0 / scale_;
  switch (ev->key()) {
    case Qt::Key_Plus: case Qt::Key_Equal: zoomIn(); break;
    case Qt::Key_Minus: zoomOut(); break;
    case Qt::Key_0: case Qt::Key_Home: fitAll(); break;
    case Qt::Key_Left: origin_.rx() -= step; update(); break;
    case Qt::Key_Right: origin_.rx() += step; update(); break;
    case Qt::Key_Up: origin_.ry() -= step; update(); break;
    case Qt::Key_Down: origin_.ry() += step; update(); break;
    default: QWidget::keyPressEvent(ev);
  }
}

bool GraphView::event(QEvent* ev) {
  if (ev->type() == QEvent::ToolTip && layout_ && laid_out_) {
    auto* he = static_cast<QHelpEvent*>(ev);
    const int e = layout_->hit(toWorld(he->pos()));
    if (e < 0) {
      QToolTip::hideText();
      return true;
    }
    if (static_cast<std::size_t>(e) < layout_->group.size() && layout_->group[static_cast<std::size_t>(e)] >= 0 && plan_) {
      const auto& grp = plan_->groups[static_cast<std::size_t>(layout_->group[static_cast<std::size_t>(e)])];
      QToolTip::showText(he->globalPos(),
                         tr("<b>%1</b><br>%2 nodes, layers %3 to %4<br>click to open").arg(QString::fromStdString(grp.label).toHtmlEscaped())
                             .arg(grp.size).arg(grp.layer_lo).arg(grp.layer_hi),
                         this);
      return true;
    }
    const NodeId id = layout_->ids[static_cast<std::size_t>(e)];
    const auto i = static_cast<std::size_t>(id);
    QString tip = QStringLiteral("<b>%1</b><br><tt>%2</tt>")
                      .arg(QString::fromStdString(describe_node(*laid_out_, id)).toHtmlEscaped(),
                           QString::fromStdString(node_text(*laid_out_, id)).toHtmlEscaped());
    if (!laid_out_->nodes[i].iteration.empty())
      tip += QStringLiteral("<br>") + tr("iteration %1").arg(QString::fromStdString(iteration_text(laid_out_->nodes[i])).toHtmlEscaped());
    const auto& vals = session_->displayValues();
    if (i < vals.size() && !std::isnan(vals[i])) tip += QStringLiteral("<br>= %1").arg(QString::fromStdString(format_number(vals[i])));
    const auto& iv = session_->analysis().intervals;
    if (i < iv.size())
      tip += QStringLiteral("<br>[%1, %2]").arg(QString::fromStdString(format_short(iv[i].first)),
                                                 QString::fromStdString(format_short(iv[i].second)));
    for (const auto& [wid, msg] : session_->analysis().warnings)
      if (wid == id) tip += QStringLiteral("<br><span style='color:#c02020'>%1</span>").arg(QString::fromStdString(msg).toHtmlEscaped());
    QToolTip::showText(he->globalPos(), tip, this);
    return true;
  }
  return QWidget::event(ev);
}

void GraphView::showEvent(QShowEvent* ev) {
  QWidget::showEvent(ev);
  // The neighbourhood is fitted whenever its tab is shown (it may have been laid out while hidden).
  if (mode_ == Mode::Neighbourhood && layout_) fitAll();
}

void GraphView::resizeEvent(QResizeEvent*) {
  if (fit_pending_ || !layout_) return;
}

}  // namespace views
}  // namespace tc
