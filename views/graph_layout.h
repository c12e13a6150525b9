#pragma once
// Layouts of the circuit for the graph views, computed on the worker thread.
// Small circuits (and selection neighbourhoods) go through Graphviz dot;
// large ones use our own layered layout: layers from the schedule, order
// within a layer by barycenter sweeps, which stays linear-ish where dot is
// superlinear.
#include <QPainterPath>
#include <QPointF>
#include <QRectF>

#include <memory>
#include <string>
#include <vector>

#include "base/result.h"
#include "ir/program.h"

namespace tc {
namespace views {

struct GraphLayout {
  struct Edge {
    int from = 0;  ///< entry index of the argument
    int to = 0;    ///< entry index of the user
    QPainterPath path;  ///< Graphviz spline; empty: a straight line
    int count = 1;      ///< node edges bundled into this one (between groups)
  };
  std::vector<NodeId> ids;   ///< node id per entry
  std::vector<QPointF> pos;  ///< centre per entry
  std::vector<float> width;  ///< box width per entry
  float height = 34.0f;      ///< box height
  std::vector<Edge> edges;
  std::vector<int> index_of;  ///< node id -> entry, -1 when not laid out (size: program nodes)
  std::vector<std::vector<int>> in_edges;  ///< entry -> edge indices ending there
  std::vector<std::vector<int>> out_edges; ///< entry -> edge indices starting there
  QRectF bounds;
  float max_width = 0.0f;  ///< widest box (culling margin)
  /// Grouped layouts: entry -> group index into `plan` (-1 for a node entry).
  std::vector<int> group;
  std::shared_ptr<const struct GroupPlan> plan;
  bool graphviz = false;
  double milliseconds = 0.0;

  /// Rows of equal y, each sorted by x: the culling index.
  struct Row {
    double y = 0;
    std::vector<int> entries;
  };
  std::vector<Row> rows;
  /// Entries whose box intersects `r` (at most `limit`; `more` set when cut).
  std::vector<int> visible(const QRectF& r, std::size_t limit, bool* more) const;
  /// Entry at world point `p`, or -1.
  [[nodiscard]] int hit(const QPointF& p) const;
  void finish();  ///< builds index_of, edge lists, rows and bounds
};

/// Constants drawn inside their users' boxes (the user's label lists their
/// values, `#7 mul %3, 2.5`) rather than as boxes of their own: one constant
/// can have hundreds of users, and as a shared node in the top row it drew
/// long edges across the whole circuit. Per node, 1 for a constant that has
/// users and is not an output (a constant nobody uses, or an output, keeps its box).
std::vector<char> inline_constants(const Program& program);
/// Box width of a node entry: wider when its label lists inline constants.
float node_box_width(const Program& program, const std::vector<char>& inlined, NodeId id);

/// Hierarchical groups for large circuits (above kGroupThreshold nodes).
/// Level 1 is the source statement (the node's line; nodes without a
/// location fall into bands of schedule layers); a level-1 group of more
/// than kGroupSplit nodes is split further (level 2) by the iteration of
/// its outermost loop (Node::iteration), or into bands of its layers. Constants drawn inline
/// (inline_constants) are never grouped; their values show in their users' boxes.
struct GroupPlan {
  struct Group {
    std::string label;  ///< "line 5", "line 5 · layers 3-40", "layers 100-199"
    int parent = -1;    ///< the level-1 group of a level-2 group
    int layer_lo = 0, layer_hi = 0;
    std::size_t size = 0;  ///< member nodes
    int line = 0;          ///< source line (0: none)
    std::string iteration;  ///< a level-2 group of one loop iteration: "i=3"
  };
  std::vector<Group> groups;
  std::vector<int> top;  ///< node -> level-1 group (-1: not grouped, e.g. constants)
  std::vector<int> sub;  ///< node -> level-2 group (-1: none)
};
inline constexpr std::size_t kGroupSplit = 400;
GroupPlan plan_groups(const Program& program, const std::vector<int>& layers);
/// What a plan's groups follow, for the caption: source statements (level 1
/// with a line), loop iterations (level 2 of one iteration), bands of
/// schedule layers (nodes without a location, or a statement without loops).
struct Grouping {
  bool statements = false, iterations = false, layer_bands = false;
};
Grouping grouping_of(const GroupPlan& plan);
/// The layout with every group not in `expanded` (indexed by group) drawn as
/// one box, its members mapped to it (index_of), and the node edges between
/// two boxes bundled into one edge with a count. Rows follow the dependencies
/// between the boxes (longest path), and the opened iterations of a
/// statement are chained in order: iteration i is always above i+1.
std::shared_ptr<GraphLayout> grouped_layout(const Program& program, const std::vector<int>& layers,
                                            std::shared_ptr<const GroupPlan> plan, const std::vector<char>& expanded);

/// Up to this many nodes the main view uses Graphviz (dot on a deep chain
/// of 750 nodes took minutes on a loaded machine: keep it to small circuits).
inline constexpr std::size_t kGraphvizLimit = 300;
/// Above this many the circuit is drawn grouped; in between, the layered layout of every node.
inline constexpr std::size_t kGroupThreshold = 1000;

/// The layered layout of every node.
std::shared_ptr<GraphLayout> layered_layout(const Program& program, const std::vector<int>& layers);
/// Graphviz dot layout of `subset` (all nodes when null), ranked by layer.
Result<std::shared_ptr<GraphLayout>> graphviz_layout(const Program& program, const std::vector<int>& layers,
                                                     const std::vector<NodeId>* subset = nullptr);
/// Up to `max_nodes` nodes nearest to `centre` (arguments and users, breadth
/// first), ascending ids. Constants drawn inline are skipped (never a hop
/// through one, never a box of their own) unless `centre` is one.
std::vector<NodeId> neighbourhood(const Program& program, NodeId centre, std::size_t max_nodes);

}  // namespace views
}  // namespace tc
