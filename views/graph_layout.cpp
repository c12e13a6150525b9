#include "views/graph_layout.h"

#include <graphviz/gvc.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <deque>
#include <map>
#include <numeric>

#include "views/engine.h"

namespace tc {
namespace views {

std::vector<char> inline_constants(const Program& program) {
  const std::size_t n = program.nodes.size();
  std::vector<char> used(n, 0), out(n, 0);
  for (const auto& node : program.nodes)
    for (NodeId a : node.args) used[static_cast<std::size_t>(a)] = 1;
  for (const auto& [name, id] : program.outputs)
    if (id >= 0 && static_cast<std::size_t>(id) < n) used[static_cast<std::size_t>(id)] = 0;  // an output keeps its box
  for (std::size_t i = 0; i < n; ++i) out[i] = program.nodes[i].op == Op::Constant && used[i];
  return out;
}

float node_box_width(const Program& program, const std::vector<char>& inlined, NodeId id) {
  const auto& args = program.nodes[static_cast<std::size_t>(id)].args;
  int k = 0;
  for (NodeId a : args) k += inlined[static_cast<std::size_t>(a)];
  // Room for the argument list ("%14, %12, 0"); longer lists are elided (the tooltip has them all).
  return k == 0 ? 94.0f : std::min(164.0f, 100.0f + 24.0f * static_cast<float>(args.size()));
}

void GraphLayout::finish() {
  const std::size_t n = ids.size();
  in_edges.assign(n, {});
  out_edges.assign(n, {});
  for (std::size_t e = 0; e < edges.size(); ++e) {
    in_edges[static_cast<std::size_t>(edges[e].to)].push_back(static_cast<int>(e));
    out_edges[static_cast<std::size_t>(edges[e].from)].push_back(static_cast<int>(e));
  }
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int a, int b) {
    const auto& pa = pos[static_cast<std::size_t>(a)];
    const auto& pb = pos[static_cast<std::size_t>(b)];
    return pa.y() != pb.y() ? pa.y() < pb.y() : pa.x() < pb.x();
  });
  rows.clear();
  for (int e : order) {
    const double y = pos[static_cast<std::size_t>(e)].y();
    if (rows.empty() || std::abs(rows.back().y - y) > 0.5) rows.push_back(Row{y, {}});
    rows.back().entries.push_back(e);
  }
  QRectF b;
  float maxw = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const QRectF r(pos[i].x() - width[i] / 2, pos[i].y() - height / 2, width[i], height);
    b = i == 0 ? r : b.united(r);
    maxw = std::max(maxw, width[i]);
  }
  max_width = maxw;
  for (const auto& e : edges) {
    if (!e.path.isEmpty()) b = b.united(e.path.boundingRect());
  }
  bounds = b.adjusted(-40, -40, 40, 40);
}

std::vector<int> GraphLayout::visible(const QRectF& r, std::size_t limit, bool* more) const {
  std::vector<int> out;
  if (more) *more = false;
  const double half_h = height / 2.0;
  float maxw = 0;
  // Width varies with Graphviz labels; a generous margin keeps boxes that poke into view.
  maxw = graphviz ? 400.0f : max_width;
  auto first = std::lower_bound(rows.begin(), rows.end(), r.top() - half_h,
                                [](const Row& row, double y) { return row.y < y; });
  for (auto it = first; it != rows.end() && it->y <= r.bottom() + half_h; ++it) {
    const auto& ents = it->entries;
    auto lo = std::lower_bound(ents.begin(), ents.end(), r.left() - maxw / 2,
                               [&](int e, double x) { return pos[static_cast<std::size_t>(e)].x() < x; });
    for (auto e = lo; e != ents.end() && pos[static_cast<std::size_t>(*e)].x() <= r.right() + maxw / 2; ++e) {
      if (out.size() >= limit) {
        if (more) *more = true;
        return out;
      }
      out.push_back(*e);
    }
  }
  return out;
}

int GraphLayout::hit(const QPointF& p) const {
  bool more = false;
  for (int e : visible(QRectF(p.x() - 1, p.y() - 1, 2, 2), 4096, &more)) {
    const auto i = static_cast<std::size_t>(e);
    if (std::abs(pos[i].x() - p.x()) <= width[i] / 2 && std::abs(pos[i].y() - p.y()) <= height / 2) return e;
  }
  return -1;
}

std::shared_ptr<GraphLayout> layered_layout(const Program& program, const std::vector<int>& layers) {
  const auto t0 = std::chrono::steady_clock::now();
  auto g = std::make_shared<GraphLayout>();
  const std::size_t n = program.nodes.size();
  const int nlayers = n ? *std::max_element(layers.begin(), layers.end()) + 1 : 0;
  const std::vector<char> inlined = inline_constants(program);
  std::vector<std::vector<int>> members(static_cast<std::size_t>(nlayers));
  for (std::size_t i = 0; i < n; ++i)
    if (!inlined[i]) members[static_cast<std::size_t>(layers[i])].push_back(static_cast<int>(i));

  // Users in CSR form for the upward sweeps (constants drawn inline have none to sweep).
  std::vector<int> ucount(n + 1, 0);
  for (const auto& node : program.nodes)
    for (NodeId a : node.args)
      if (!inlined[static_cast<std::size_t>(a)]) ++ucount[static_cast<std::size_t>(a) + 1];
  std::partial_sum(ucount.begin(), ucount.end(), ucount.begin());
  std::vector<int> users(static_cast<std::size_t>(ucount[n]));
  {
    std::vector<int> fill(ucount.begin(), ucount.end() - 1);
    for (const auto& node : program.nodes)
      for (NodeId a : node.args)
        if (!inlined[static_cast<std::size_t>(a)]) users[static_cast<std::size_t>(fill[static_cast<std::size_t>(a)]++)] = node.id;
  }

  // x: centred slot position inside the layer, so layers of different widths line up.
  std::vector<double> x(n, 0.0);
  auto place = [&](int l) {
    const auto& m = members[static_cast<std::size_t>(l)];
    const double off = (static_cast<double>(m.size()) - 1.0) / 2.0;
    for (std::size_t k = 0; k < m.size(); ++k) x[static_cast<std::size_t>(m[k])] = static_cast<double>(k) - off;
  };
  for (int l = 0; l < nlayers; ++l) place(l);
  std::vector<double> key(n, 0.0);
  auto sweep_layer = [&](int l, bool down) {
    auto& m = members[static_cast<std::size_t>(l)];
    for (int id : m) {
      double sum = 0;
      int cnt = 0;
      if (down) {
        for (NodeId a : program.nodes[static_cast<std::size_t>(id)].args) {
          if (inlined[static_cast<std::size_t>(a)]) continue;
          sum += x[static_cast<std::size_t>(a)];
          ++cnt;
        }
      } else {
        for (int u = ucount[static_cast<std::size_t>(id)]; u < ucount[static_cast<std::size_t>(id) + 1]; ++u) {
          sum += x[static_cast<std::size_t>(users[static_cast<std::size_t>(u)])];
          ++cnt;
        }
      }
      key[static_cast<std::size_t>(id)] = cnt ? sum / cnt : x[static_cast<std::size_t>(id)];
    }
    std::stable_sort(m.begin(), m.end(), [&](int a, int b) { return key[static_cast<std::size_t>(a)] < key[static_cast<std::size_t>(b)]; });
    place(l);
  };
  // Barycenter sweeps: down (by arguments) then up (by users), a few rounds.
  for (int round = 0; round < 3; ++round) {
    for (int l = 1; l < nlayers; ++l) sweep_layer(l, true);
    for (int l = nlayers - 2; l >= 0; --l) sweep_layer(l, false);
  }

  // Rows side by side in sweep order, each centred; boxes listing constants are wider.
  constexpr double kGap = 14.0, kLayer = 84.0;
  g->height = 37.0f;
  g->index_of.assign(n, -1);
  std::vector<float> width(n, 94.0f);
  for (std::size_t i = 0; i < n; ++i)
    if (!inlined[i]) width[i] = node_box_width(program, inlined, static_cast<NodeId>(i));
  for (int l = 0; l < nlayers; ++l) {
    const auto& m = members[static_cast<std::size_t>(l)];
    double total = 0;
    for (int id : m) total += width[static_cast<std::size_t>(id)] + kGap;
    double left = -total / 2.0;
    for (int id : m) {
      const auto i = static_cast<std::size_t>(id);
      x[i] = left + (width[i] + kGap) / 2.0;
      left += width[i] + kGap;
    }
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (inlined[i]) continue;
    g->index_of[i] = static_cast<int>(g->ids.size());
    g->ids.push_back(static_cast<NodeId>(i));
    g->pos.emplace_back(x[i], layers[i] * kLayer);
    g->width.push_back(width[i]);
  }
  g->edges.reserve(users.size());
  for (const auto& node : program.nodes) {
    if (inlined[static_cast<std::size_t>(node.id)]) continue;
    for (NodeId a : node.args)
      if (!inlined[static_cast<std::size_t>(a)])
        g->edges.push_back({g->index_of[static_cast<std::size_t>(a)], g->index_of[static_cast<std::size_t>(node.id)], {}});
  }
  g->finish();
  g->milliseconds = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return g;
}

Result<std::shared_ptr<GraphLayout>> graphviz_layout(const Program& program, const std::vector<int>& layers,
                                                     const std::vector<NodeId>* subset) {
  const auto t0 = std::chrono::steady_clock::now();
  // The whole circuit leaves constants drawn inline out; a subset (a
  // neighbourhood, see neighbourhood()) is taken as given.
  const std::vector<char> inlined = inline_constants(program);
  std::vector<NodeId> ids;
  if (subset) {
    for (NodeId id : *subset)
      if (id >= 0 && static_cast<std::size_t>(id) < program.nodes.size()) ids.push_back(id);
  } else {
    for (std::size_t i = 0; i < program.nodes.size(); ++i)
      if (!inlined[i]) ids.push_back(static_cast<NodeId>(i));
  }
  std::string dot = to_dot(program, layers, &ids);
  // The output labels are drawn by the view itself.
  if (auto p = dot.find("  \"out_"); p != std::string::npos) dot = dot.substr(0, p) + "}\n";
  // Wider boxes for labels that list inline constants (attributes may be set again later in dot).
  std::string widths;
  for (NodeId id : ids) {
    const float w = node_box_width(program, inlined, id);
    if (w > 94.0f) widths += "  n" + std::to_string(id) + " [width=" + std::to_string(w / 72.0) + "];\n";
  }
  if (!widths.empty()) dot.insert(dot.rfind('}'), widths);
  // dot's network simplex for x coordinates is bounded by default only by
  // node count x 2^31 iterations: on a long chain whose every step also reads
  // one shared input (a 150-iteration `s = s * 0.75 + x`), it ran for minutes.
  // nslimit=1 caps it at one pass over the nodes; the drawing keeps its ranks
  // and order, only some edges are less straight.
  dot.insert(dot.find('\n') + 1, "  nslimit=1;\n");
  GVC_t* gvc = gvContext();
  Agraph_t* graph = agmemread(dot.c_str());
  if (!graph) {
    gvFreeContext(gvc);
    return make_error("graphviz could not read the generated graph");
  }
  if (gvLayout(gvc, graph, "dot") != 0) {
    agclose(graph);
    gvFreeContext(gvc);
    return make_error("graphviz layout failed");
  }
  auto g = std::make_shared<GraphLayout>();
  g->graphviz = true;
  g->index_of.assign(program.nodes.size(), -1);
  const boxf bb = GD_bb(graph);
  auto flip = [&](pointf p) { return QPointF(p.x, bb.UR.y - p.y); };
  std::vector<Agnode_t*> gv_nodes;
  double maxh = 0;
  for (Agnode_t* nd = agfstnode(graph); nd; nd = agnxtnode(graph, nd)) {
    const char* name = agnameof(nd);
    if (!name || name[0] != 'n') continue;
    const NodeId id = static_cast<NodeId>(std::atoi(name + 1));
    if (id < 0 || static_cast<std::size_t>(id) >= program.nodes.size()) continue;
    g->index_of[static_cast<std::size_t>(id)] = static_cast<int>(g->ids.size());
    g->ids.push_back(id);
    g->pos.push_back(flip(ND_coord(nd)));
    g->width.push_back(static_cast<float>(ND_width(nd) * 72.0));
    maxh = std::max(maxh, ND_height(nd) * 72.0);
    gv_nodes.push_back(nd);
  }
  g->height = static_cast<float>(maxh);
  for (Agnode_t* nd : gv_nodes) {
    for (Agedge_t* e = agfstout(graph, nd); e; e = agnxtout(graph, e)) {
      const char* hn = agnameof(aghead(e));
      if (!hn || hn[0] != 'n') continue;
      const NodeId from = static_cast<NodeId>(std::atoi(agnameof(nd) + 1));
      const NodeId to = static_cast<NodeId>(std::atoi(hn + 1));
      GraphLayout::Edge edge{g->index_of[static_cast<std::size_t>(from)], g->index_of[static_cast<std::size_t>(to)], {}};
      if (edge.from < 0 || edge.to < 0) continue;
      if (splines* spl = ED_spl(e); spl && spl->size > 0) {
        const bezier& bz = spl->list[0];
        if (bz.size >= 4) {
          edge.path.moveTo(flip(bz.list[0]));
          for (int k = 1; k + 2 < bz.size; k += 3)
            edge.path.cubicTo(flip(bz.list[k]), flip(bz.list[k + 1]), flip(bz.list[k + 2]));
          if (bz.eflag) edge.path.lineTo(flip(bz.ep));
        }
      }
      g->edges.push_back(std::move(edge));
    }
  }
  gvFreeLayout(gvc, graph);
  agclose(graph);
  gvFreeContext(gvc);
  // The subset layout's boxes would otherwise stretch to dot's label widths only.
  g->finish();
  g->milliseconds = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return g;
}

Grouping grouping_of(const GroupPlan& plan) {
  Grouping g;
  for (const auto& grp : plan.groups) {
    if (grp.parent < 0 && grp.line > 0) g.statements = true;
    else if (grp.parent >= 0 && !grp.iteration.empty()) g.iterations = true;
    else g.layer_bands = true;
  }
  return g;
}

GroupPlan plan_groups(const Program& program, const std::vector<int>& layers) {
  GroupPlan plan;
  const std::size_t n = program.nodes.size();
  const std::vector<char> inlined = inline_constants(program);
  plan.top.assign(n, -1);
  plan.sub.assign(n, -1);
  const int nlayers = layers.empty() ? 1 : *std::max_element(layers.begin(), layers.end()) + 1;
  // Nodes without a location: about a hundred bands of layers.
  const int band = std::max(1, (nlayers + 99) / 100);
  std::map<long long, int> index;  // key: line (> 0) or -(band + 1)
  for (std::size_t i = 0; i < n; ++i) {
    const Node& node = program.nodes[i];
    if (inlined[i]) continue;
    const int layer = i < layers.size() ? layers[i] : 0;
    const long long key = node.location && node.location->line > 0 ? node.location->line : -(layer / band) - 1;
    auto [it, fresh] = index.try_emplace(key, static_cast<int>(plan.groups.size()));
    if (fresh) {
      GroupPlan::Group g;
      g.line = key > 0 ? static_cast<int>(key) : 0;
      g.layer_lo = g.layer_hi = layer;
      plan.groups.push_back(g);
    }
    auto& g = plan.groups[static_cast<std::size_t>(it->second)];
    g.layer_lo = std::min(g.layer_lo, layer);
    g.layer_hi = std::max(g.layer_hi, layer);
    ++g.size;
    plan.top[i] = it->second;
  }
  const std::size_t level1 = plan.groups.size();
  for (std::size_t k = 0; k < level1; ++k) {
    auto& g = plan.groups[k];
    g.label = g.line > 0 ? "line " + std::to_string(g.line) : "layers " + std::to_string(g.layer_lo) + "-" + std::to_string(g.layer_hi);
  }
  // Level 2: big statement groups split into bands of their layers, about kGroupSplit nodes each.
  std::vector<std::map<long long, int>> bands(level1);
  std::vector<int> width(level1, 1);
  for (std::size_t k = 0; k < level1; ++k) {
    const auto& g = plan.groups[k];
    if (g.size <= kGroupSplit) continue;
    const int span = g.layer_hi - g.layer_lo + 1;
    const int parts = static_cast<int>((g.size + kGroupSplit - 1) / kGroupSplit);
    width[k] = std::max(1, (span + parts - 1) / parts);
  }
  // A statement inside a loop splits by its outermost loop's iteration
  // (line 5 · i=3) when the IR records it, else by bands of its layers.
  std::vector<char> by_iteration(level1, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const int t = plan.top[i];
    if (t >= 0 && !program.nodes[i].iteration.empty()) by_iteration[static_cast<std::size_t>(t)] = 1;
  }
  for (std::size_t i = 0; i < n; ++i) {
    const int t = plan.top[i];
    if (t < 0 || plan.groups[static_cast<std::size_t>(t)].size <= kGroupSplit) continue;
    const auto tk = static_cast<std::size_t>(t);
    const int layer = i < layers.size() ? layers[i] : 0;
    const auto& iter = program.nodes[i].iteration;
    // Iteration values can be any 64-bit integer: keep them apart from band numbers.
    const long long b = by_iteration[tk] ? (iter.empty() ? -1 : iter.front().value) : (layer - plan.groups[tk].layer_lo) / width[tk];
    auto [it, fresh] = bands[tk].try_emplace(b, static_cast<int>(plan.groups.size()));
    if (fresh) {
      GroupPlan::Group g;
      g.parent = t;
      g.line = plan.groups[tk].line;
      g.layer_lo = g.layer_hi = layer;
      if (by_iteration[tk] && !iter.empty()) g.iteration = iter.front().variable + "=" + std::to_string(iter.front().value);
      plan.groups.push_back(g);
    }
    auto& g = plan.groups[static_cast<std::size_t>(it->second)];
    g.layer_lo = std::min(g.layer_lo, layer);
    g.layer_hi = std::max(g.layer_hi, layer);
    ++g.size;
    plan.sub[i] = it->second;
  }
  for (std::size_t k = level1; k < plan.groups.size(); ++k) {
    auto& g = plan.groups[k];
    g.label = (g.line > 0 ? "line " + std::to_string(g.line) + " · " : std::string()) +
              (!g.iteration.empty() ? g.iteration
                                    : "layers " + std::to_string(g.layer_lo) + "-" + std::to_string(g.layer_hi));
  }
  return plan;
}

std::shared_ptr<GraphLayout> grouped_layout(const Program& program, const std::vector<int>& /*layers: in the plan*/,
                                            std::shared_ptr<const GroupPlan> plan, const std::vector<char>& expanded) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::size_t n = program.nodes.size();
  auto is_open = [&](int g) { return g >= 0 && static_cast<std::size_t>(g) < expanded.size() && expanded[static_cast<std::size_t>(g)]; };
  const std::vector<char> inlined = inline_constants(program);
  // Item of every node: its outermost closed group, else the node itself (constants drawn inline: none).
  std::vector<int> item(n, -1);
  std::vector<int> item_node, item_group;
  std::vector<int> group_item(plan->groups.size(), -1);
  for (std::size_t i = 0; i < n; ++i) {
    if (inlined[i]) continue;
    int g = plan->top[i];
    if (g >= 0 && is_open(g)) g = plan->sub[i] >= 0 && !is_open(plan->sub[i]) ? plan->sub[i] : -1;
    if (g < 0) {
      item[i] = static_cast<int>(item_node.size());
      item_node.push_back(static_cast<int>(i));
      item_group.push_back(-1);
      continue;
    }
    auto& gi = group_item[static_cast<std::size_t>(g)];
    if (gi < 0) {
      gi = static_cast<int>(item_node.size());
      item_node.push_back(static_cast<int>(i));  // first member: the group's representative
      item_group.push_back(g);
    }
    item[i] = gi;
  }
  const std::size_t m = item_node.size();
  // Bundled edges between items.
  std::map<std::pair<int, int>, int> bundle;
  for (std::size_t i = 0; i < n; ++i) {
    if (item[i] < 0) continue;
    for (NodeId a : program.nodes[i].args) {
      const int ia = item[static_cast<std::size_t>(a)];
      if (ia < 0 || ia == item[i]) continue;
      ++bundle[{ia, item[i]}];
    }
  }
  std::vector<std::vector<int>> args(m), users(m);
  for (const auto& [e, c] : bundle) {
    args[static_cast<std::size_t>(e.second)].push_back(e.first);
    users[static_cast<std::size_t>(e.first)].push_back(e.second);
  }
  // Rows by dependencies between the items, not by their first layer: the
  // iterations of a loop often all begin near layer 0 (a term that reads
  // only the inputs), and by first layer they all shared one row, scrambled.
  // Items were made in the order of their first node, and node ids are in
  // topological order, so an edge to a later item reads forward; an edge
  // back to an earlier one only arises between groups that interleave (a
  // closed statement and the opened iterations of another in the same loop)
  // and is left out of the ranking, which breaks every cycle. The opened
  // iterations of one group are chained in their order as well, so
  // iteration i sits above i+1 even where i+1 does not read i directly.
  // An opened iteration's nodes take part in the chain as one sibling: the
  // next iteration starts below the lowest of them.
  struct Chain {
    int sibling = -1;  // the level-2 group items are being placed for
    int top = 0;       // the first row it may use
    int bottom = -1;   // the lowest row it uses so far
  };
  std::vector<Chain> chains(plan->groups.size());  // per level-1 group
  std::vector<int> row_of(m, 0);
  int nrows = m ? 1 : 0;
  for (std::size_t k = 0; k < m; ++k) {
    int r = 0;
    for (int a : args[k])
      if (static_cast<std::size_t>(a) < k) r = std::max(r, row_of[static_cast<std::size_t>(a)] + 1);
    const int node = item_node[k];
    const int sibling = item_group[k] >= 0 ? item_group[k] : plan->sub[static_cast<std::size_t>(node)];
    const int parent = sibling >= 0 ? plan->groups[static_cast<std::size_t>(sibling)].parent : -1;
    if (parent >= 0) {
      Chain& c = chains[static_cast<std::size_t>(parent)];
      if (c.sibling != sibling) {
        if (c.sibling >= 0) c.top = c.bottom + 1;
        c.sibling = sibling;
      }
      r = std::max(r, c.top);
      c.bottom = std::max(c.bottom, r);
    }
    row_of[k] = r;
    nrows = std::max(nrows, r + 1);
  }
  // Every row below the first holds an item with a predecessor on the row above: none is empty.
  std::vector<std::vector<int>> members(static_cast<std::size_t>(nrows));
  for (std::size_t k = 0; k < m; ++k) members[static_cast<std::size_t>(row_of[k])].push_back(static_cast<int>(k));
  // Within a row, order by barycenter sweeps as in layered_layout.
  std::vector<double> x(m, 0.0), key(m, 0.0);
  auto place = [&](std::size_t r) {
    const auto& mm = members[r];
    const double off = (static_cast<double>(mm.size()) - 1.0) / 2.0;
    for (std::size_t k = 0; k < mm.size(); ++k) x[static_cast<std::size_t>(mm[k])] = static_cast<double>(k) - off;
  };
  for (std::size_t r = 0; r < members.size(); ++r) place(r);
  auto sweep = [&](std::size_t r, bool down) {
    auto& mm = members[r];
    for (int k : mm) {
      const auto& nb = down ? args[static_cast<std::size_t>(k)] : users[static_cast<std::size_t>(k)];
      double sum = 0;
      for (int j : nb) sum += x[static_cast<std::size_t>(j)];
      key[static_cast<std::size_t>(k)] = nb.empty() ? x[static_cast<std::size_t>(k)] : sum / static_cast<double>(nb.size());
    }
    std::stable_sort(mm.begin(), mm.end(), [&](int a, int b) { return key[static_cast<std::size_t>(a)] < key[static_cast<std::size_t>(b)]; });
    place(r);
  };
  for (int round = 0; round < 3; ++round) {
    for (std::size_t r = 1; r < members.size(); ++r) sweep(r, true);
    for (std::size_t r = members.size(); r-- > 1;) sweep(r - 1, false);
  }
  auto g = std::make_shared<GraphLayout>();
  constexpr double kSlot = 180.0, kRow = 84.0;
  g->height = 37.0f;
  g->ids.resize(m);
  g->pos.resize(m);
  g->width.resize(m);
  g->group = item_group;
  g->plan = plan;
  for (std::size_t k = 0; k < m; ++k) {
    g->ids[k] = static_cast<NodeId>(item_node[k]);
    g->pos[k] = QPointF(x[k] * kSlot, row_of[k] * kRow);
    g->width[k] = item_group[k] >= 0 ? 156.0f : node_box_width(program, inlined, static_cast<NodeId>(item_node[k]));
  }
  g->index_of.assign(n, -1);
  for (std::size_t i = 0; i < n; ++i) g->index_of[i] = item[i];
  g->edges.reserve(bundle.size());
  for (const auto& [e, c] : bundle) g->edges.push_back({e.first, e.second, {}, c});
  g->finish();
  g->milliseconds = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return g;
}

std::vector<NodeId> neighbourhood(const Program& program, NodeId centre, std::size_t max_nodes) {
  const std::size_t n = program.nodes.size();
  std::vector<std::vector<NodeId>> users(n);
  for (const auto& node : program.nodes)
    for (NodeId a : node.args) users[static_cast<std::size_t>(a)].push_back(node.id);
  const std::vector<char> inlined = inline_constants(program);
  std::vector<char> seen(n, 0);
  std::vector<NodeId> out;
  std::deque<NodeId> queue;
  if (centre < 0 || static_cast<std::size_t>(centre) >= n) return out;
  queue.push_back(centre);
  seen[static_cast<std::size_t>(centre)] = 1;
  while (!queue.empty() && out.size() < max_nodes) {
    const NodeId id = queue.front();
    queue.pop_front();
    out.push_back(id);
    // Constants drawn inline are neither boxes nor hops: one shared constant
    // (180 users) would flood the neighbourhood with unrelated nodes. Only
    // from a constant asked for itself are its users one hop away.
    auto visit = [&](NodeId m) {
      if (!seen[static_cast<std::size_t>(m)] && !inlined[static_cast<std::size_t>(m)]) {
        seen[static_cast<std::size_t>(m)] = 1;
        queue.push_back(m);
      }
    };
    for (NodeId a : program.nodes[static_cast<std::size_t>(id)].args) visit(a);
    for (NodeId u : users[static_cast<std::size_t>(id)]) visit(u);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace views
}  // namespace tc
