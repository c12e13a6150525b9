// The graph layouts, the tagged worker and the large-circuit path.
#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <atomic>
#include <thread>

#include "base/atomic_file.h"
#include "frontend/compile.h"
#include "ir/artifact.h"
#include "views/engine.h"
#include "views/graph_layout.h"
#include "views/graph_view.h"
#include "views/main_window.h"
#include "views/worker.h"

using namespace tc;
using namespace tc::views;

namespace {

/// A layered circuit: `width` float inputs, then `depth` layers of `width`
/// nodes whose arguments come from the layer below in a scrambled order.
Program layered_program(int width, int depth) {
  Program p;
  auto add = [&](Node n) {
    n.id = static_cast<NodeId>(p.nodes.size());
    p.nodes.push_back(std::move(n));
    return p.nodes.back().id;
  };
  std::vector<NodeId> prev;
  for (int i = 0; i < width; ++i) {
    Node n;
    n.op = Op::Input;
    n.name = "x" + std::to_string(i);
    n.domain = Domain::float64(-1.0, 1.0);
    prev.push_back(add(n));
  }
  const Op ops[] = {Op::Add, Op::Sub, Op::Relu, Op::Neg};
  for (int l = 0; l < depth; ++l) {
    std::vector<NodeId> cur;
    for (int i = 0; i < width; ++i) {
      Node n;
      n.op = ops[(i + l) % 4];
      const NodeId a = prev[static_cast<std::size_t>((i * 37 + l) % width)];
      const NodeId b = prev[static_cast<std::size_t>((i * 11 + 5) % width)];
      if (n.op == Op::Add || n.op == Op::Sub) n.args = {a, b};
      else n.args = {a};
      cur.push_back(add(n));
    }
    prev = cur;
  }
  p.outputs.emplace_back("result", prev.front());
  return p;
}

/// Crossings between consecutive layers when each layer is ordered by x.
long crossings(const GraphLayout& g, const std::vector<int>& layers) {
  long total = 0;
  std::vector<std::pair<double, double>> segs;
  std::map<int, std::vector<std::pair<double, double>>> by_layer;
  for (const auto& e : g.edges) {
    const NodeId from = g.ids[static_cast<std::size_t>(e.from)], to = g.ids[static_cast<std::size_t>(e.to)];
    if (layers[static_cast<std::size_t>(to)] != layers[static_cast<std::size_t>(from)] + 1) continue;
    by_layer[layers[static_cast<std::size_t>(from)]].emplace_back(g.pos[static_cast<std::size_t>(e.from)].x(),
                                                                  g.pos[static_cast<std::size_t>(e.to)].x());
  }
  for (auto& [l, s] : by_layer)
    for (std::size_t i = 0; i < s.size(); ++i)
      for (std::size_t j = i + 1; j < s.size(); ++j)
        if ((s[i].first - s[j].first) * (s[i].second - s[j].second) < 0) ++total;
  return total;
}

/// A 15 x 12 loop nest whose first statement reads only the input: every
/// iteration of it begins near layer 0, while the second statement chains
/// the iterations hundreds of layers deep (issue 24 item 9).
const char* kNest =
    "def f(x):\n"
    "    s = x\n"
    "    for i in range(15):\n"
    "        for j in range(12):\n"
    "            t = x * j + i * 0.25 - 1.0\n"
    "            s = s * 0.5 + t * s - 0.125 * t\n"
    "    return s\n";

/// The level-2 groups of level-1 group `parent`, in iteration order ("i=0", "i=1", ...).
std::vector<int> iterations_of(const GroupPlan& plan, int parent) {
  std::vector<std::pair<long, int>> v;
  for (std::size_t k = 0; k < plan.groups.size(); ++k) {
    const auto& g = plan.groups[k];
    if (g.parent != parent || g.iteration.empty()) continue;
    v.emplace_back(std::stol(g.iteration.substr(g.iteration.find('=') + 1)), static_cast<int>(k));
  }
  std::sort(v.begin(), v.end());
  std::vector<int> out;
  for (const auto& [i, k] : v) out.push_back(k);
  return out;
}

int statement_group(const GroupPlan& plan, int line) {
  for (std::size_t k = 0; k < plan.groups.size(); ++k)
    if (plan.groups[k].line == line && plan.groups[k].parent < 0) return static_cast<int>(k);
  return -1;
}

}  // namespace

class LayoutTest : public QObject {
  Q_OBJECT
 private slots:
  void workerReplacesQueuedRequestsOfTheSameTag() {
    EngineWorker worker;
    std::atomic<bool> release{false};
    std::vector<int> delivered;
    // The first job blocks the worker so the next ones queue up behind it.
    worker.post(QStringLiteral("block"), [&](JobControl&) -> EngineWorker::Deliver {
      while (!release.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
      return [] {};
    });
    for (int i = 1; i <= 5; ++i) {
      worker.post(QStringLiteral("compile"), [&delivered, i](JobControl&) -> EngineWorker::Deliver {
        return [&delivered, i] { delivered.push_back(i); };
      });
    }
    worker.post(QStringLiteral("other"), [&delivered](JobControl&) -> EngineWorker::Deliver {
      return [&delivered] { delivered.push_back(100); };
    });
    release = true;
    QSignalSpy idle(&worker, &EngineWorker::idle);
    QTRY_VERIFY(!worker.busy());
    // Only the newest "compile" ran; the other tag was not disturbed.
    QCOMPARE(delivered, (std::vector<int>{5, 100}));
    QCOMPARE(worker.generation(QStringLiteral("compile")), quint64{5});
  }

  void cancelDropsTheResultAndStopsTheJob() {
    EngineWorker worker;
    std::atomic<bool> sawCancel{false}, started{false};
    bool delivered = false;
    worker.post(QStringLiteral("verify"), [&](JobControl& ctl) -> EngineWorker::Deliver {
      started = true;
      for (int i = 0; i < 60000 && !ctl.cancelled(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
      sawCancel = ctl.cancelled();
      return [&] { delivered = true; };
    });
    QTRY_VERIFY(started.load());  // cancel the running job, not a queued one
    worker.cancel(QStringLiteral("verify"));
    QTRY_VERIFY(!worker.busy());
    QVERIFY(sawCancel.load());
    QVERIFY(!delivered);
  }

  void layeredLayoutPutsEveryNodeOnItsScheduleLayer_data() {
    QTest::addColumn<int>("width");
    QTest::addColumn<int>("depth");
    QTest::newRow("narrow") << 3 << 5;
    QTest::newRow("square") << 30 << 30;
    QTest::newRow("wide") << 400 << 3;
  }
  void layeredLayoutPutsEveryNodeOnItsScheduleLayer() {
    QFETCH(int, width);
    QFETCH(int, depth);
    const Program p = layered_program(width, depth);
    QVERIFY(validate(p).ok());
    const auto layers = schedule_layers(p);
    auto g = layered_layout(p, layers);
    QCOMPARE(g->ids.size(), p.nodes.size());
    for (const auto& n : p.nodes) {
      const auto i = static_cast<std::size_t>(g->index_of[static_cast<std::size_t>(n.id)]);
      // One row per layer, top to bottom, and boxes of a row never overlap.
      for (NodeId a : n.args) QVERIFY(g->pos[static_cast<std::size_t>(a)].y() < g->pos[i].y());
    }
    for (const auto& row : g->rows)
      for (std::size_t k = 1; k < row.entries.size(); ++k)
        QVERIFY(g->pos[static_cast<std::size_t>(row.entries[k])].x() - g->pos[static_cast<std::size_t>(row.entries[k - 1])].x() >=
                g->width[0]);
    QCOMPARE(static_cast<int>(g->rows.size()), depth + 1);
    QCOMPARE(g->edges.size(), [&] {
      std::size_t e = 0;
      for (const auto& n : p.nodes) e += n.args.size();
      return e;
    }());
  }

  void barycenterSweepsReduceCrossings() {
    const Program p = layered_program(40, 6);
    const auto layers = schedule_layers(p);
    auto g = layered_layout(p, layers);
    // The same boxes in id order within each layer, i.e. without the sweeps.
    GraphLayout plain = *g;
    std::map<int, int> slot;
    for (const auto& n : p.nodes) {
      const int l = layers[static_cast<std::size_t>(n.id)];
      plain.pos[static_cast<std::size_t>(n.id)].setX(slot[l]++ * 100.0);
    }
    const long before = crossings(plain, layers), after = crossings(*g, layers);
    qInfo("crossings: id order %ld, after barycenter sweeps %ld", before, after);
    QVERIFY(after < before);
  }

  void cullingReturnsOnlyWhatIsInView() {
    const Program p = layered_program(200, 50);
    auto g = layered_layout(p, schedule_layers(p));
    bool more = false;
    const QRectF view(g->pos[500].x() - 300, g->pos[500].y() - 200, 600, 400);
    const auto vis = g->visible(view, 1000000, &more);
    QVERIFY(!more);
    QVERIFY(!vis.empty());
    QVERIFY(vis.size() < 200);
    for (int e : vis) QVERIFY(view.adjusted(-100, -50, 100, 50).contains(g->pos[static_cast<std::size_t>(e)]));
    QCOMPARE(g->hit(g->pos[500]), 500);
  }

  void graphvizLaysOutANeighbourhood() {
    const Program p = layered_program(50, 40);
    const auto layers = schedule_layers(p);
    const NodeId centre = 1000;
    const auto ids = neighbourhood(p, centre, 300);
    QVERIFY(ids.size() <= 300);
    QVERIFY(std::binary_search(ids.begin(), ids.end(), centre));
    auto g = graphviz_layout(p, layers, &ids);
    QVERIFY(g.ok());
    QVERIFY((*g)->graphviz);
    QCOMPARE((*g)->ids.size(), ids.size());
    for (NodeId id : ids) QVERIFY((*g)->index_of[static_cast<std::size_t>(id)] >= 0);
  }

  // A long chain whose every step also reads the input: without a bound on
  // dot's network simplex this neighbourhood took minutes (a hang in the
  // Neighbourhood tab); the test's ctest TIMEOUT catches a regression.
  void graphvizNeighbourhoodOfALongChainFinishes() {
    CompileOptions opts;
    opts.function = "damp";
    opts.inputs = {{"x", Domain::float64(-1, 1)}};
    auto out = compile_python("def damp(x):\n    s = x\n    for i in range(150):\n        s = s * 0.75 + x\n    return s\n",
                              opts);
    QVERIFY(out.ok());
    const Program& p = out->program;
    const auto ids = neighbourhood(p, 150, 300);
    QVERIFY(ids.size() > 250);
    auto g = graphviz_layout(p, schedule_layers(p), &ids);
    QVERIFY(g.ok());
    QVERIFY((*g)->graphviz);
    for (NodeId id : ids) QVERIFY((*g)->index_of[static_cast<std::size_t>(id)] >= 0);
  }

  void groupsATenThousandNodeLoopByStatement() {
    CompileOptions opts;
    opts.function = "f";
    opts.inputs = {{"x", Domain::float64(-1, 1)}};
    opts.max_iterations = 6000;
    auto out = compile_python("def f(x):\n    s = x\n    for i in range(100):\n        for j in range(50):\n"
                              "            s = s * 0.5 + x\n    return s\n",
                              opts);
    QVERIFY2(out.ok(), out.ok() ? "" : out.error().message.c_str());
    const Program& p = out->program;
    QVERIFY(p.nodes.size() >= 10000);
    const auto layers = schedule_layers(p);
    auto plan = std::make_shared<const GroupPlan>(plan_groups(p, layers));
    // The loop body's statement is one level-1 group, split into layer bands.
    int body = -1;
    for (std::size_t k = 0; k < plan->groups.size(); ++k)
      if (plan->groups[k].line == 5 && plan->groups[k].parent < 0) body = static_cast<int>(k);
    QVERIFY(body >= 0);
    QVERIFY(plan->groups[static_cast<std::size_t>(body)].size >= 10000);
    std::vector<char> expanded(plan->groups.size(), 0);
    auto closed = grouped_layout(p, layers, plan, expanded);
    QVERIFY2(closed->ids.size() <= 300, qPrintable(QString::number(closed->ids.size())));
    // Every node but the constants maps to a box; the body's nodes all to one.
    const int body_entry = closed->index_of[static_cast<std::size_t>(p.outputs.front().second)];
    QVERIFY(body_entry >= 0);
    QCOMPARE(closed->group[static_cast<std::size_t>(body_entry)], body);
    for (const auto& n : p.nodes) {
      if (n.op == Op::Constant) QCOMPARE(closed->index_of[static_cast<std::size_t>(n.id)], -1);
      else QVERIFY(closed->index_of[static_cast<std::size_t>(n.id)] >= 0);
    }
    // Bundled edges: their counts add up to the node edges between different boxes.
    long between = 0, bundled = 0;
    for (const auto& n : p.nodes)
      for (NodeId a : n.args) {
        const int ea = closed->index_of[static_cast<std::size_t>(a)], en = closed->index_of[static_cast<std::size_t>(n.id)];
        if (ea >= 0 && en >= 0 && ea != en) ++between;
      }
    for (const auto& e : closed->edges) bundled += e.count;
    QCOMPARE(bundled, between);
    // Opening the statement shows its bands; opening a band shows its nodes.
    expanded[static_cast<std::size_t>(body)] = 1;
    auto open = grouped_layout(p, layers, plan, expanded);
    QVERIFY(open->ids.size() > closed->ids.size());
    QVERIFY(open->ids.size() <= 300);
    const int band = open->group[static_cast<std::size_t>(open->index_of[static_cast<std::size_t>(p.outputs.front().second)])];
    QVERIFY(band >= 0);
    QCOMPARE(plan->groups[static_cast<std::size_t>(band)].parent, body);
    // With the frontend's iteration paths the statement splits by its outer loop: one group per i.
    QVERIFY2(plan->groups[static_cast<std::size_t>(band)].label.find(" · i=") != std::string::npos,
             plan->groups[static_cast<std::size_t>(band)].label.c_str());
    expanded[static_cast<std::size_t>(band)] = 1;
    auto nodes = grouped_layout(p, layers, plan, expanded);
    const int out_entry = nodes->index_of[static_cast<std::size_t>(p.outputs.front().second)];
    QCOMPARE(nodes->group[static_cast<std::size_t>(out_entry)], -1);
    QCOMPARE(nodes->ids[static_cast<std::size_t>(out_entry)], p.outputs.front().second);
  }

  // Issue 38 polish: the caption said "grouped by statement and loop
  // iteration" for an artifact without locations, cut into layer bands.
  void theGroupingIsNamedAfterWhatTheBoxesFollow() {
    CompileOptions opts;
    opts.function = "f";
    opts.inputs = {{"x", Domain::float64(-1, 1)}};
    opts.max_iterations = 6000;
    auto out = compile_python("def f(x):\n    s = x\n    for i in range(40):\n        for j in range(30):\n"
                              "            s = s * 0.5 + x\n    return s\n",
                              opts);
    QVERIFY2(out.ok(), out.ok() ? "" : out.error().message.c_str());
    Program p = out->program;
    Grouping g = grouping_of(plan_groups(p, schedule_layers(p)));
    QVERIFY(g.statements && g.iterations);
    for (auto& n : p.nodes) n.location.reset();  // as an artifact saved without its source
    g = grouping_of(plan_groups(p, schedule_layers(p)));
    QVERIFY(!g.statements && !g.iterations && g.layer_bands);
  }

  // Issue 38 polish: right after Fit the minimap still showed (the fitted
  // edge fell a rounding error outside the view) and covered a node.
  void fitHidesTheMinimap() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("wide.py"));
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    // About 600 nodes: the layered layout (no Graphviz), wider than tall at fit.
    f.write("# tensorcode: input x=float64:-1:1\ndef wide(x):\n    s = x\n    for i in range(150):\n"
            "        s = s * 0.5 + x * 0.25\n    return s\n");
    f.close();
    for (const QSize size : {QSize(1280, 800), QSize(1000, 700), QSize(1600, 1000)}) {
      MainWindow w;
      w.resize(size);
      w.show();
      QVERIFY(QTest::qWaitForWindowExposed(&w));
      QVERIFY(w.openPath(path));
      QVERIFY(w.waitUntilSettled(60000));
      GraphView* g = w.graph();
      QVERIFY(g->graphLayout() && !g->graphLayout()->graphviz);
      QTest::qWait(50);
      // Opened, the circuit is fitted: no minimap over it.
      QVERIFY2(!g->minimapShown(), qPrintable(QStringLiteral("opened at %1x%2").arg(size.width()).arg(size.height())));
      g->fitAll();
      QVERIFY2(!g->minimapShown(), qPrintable(QStringLiteral("%1x%2").arg(size.width()).arg(size.height())));
      g->zoomIn();
      g->zoomIn();
      QVERIFY(g->minimapShown());
    }
  }

  void openedIterationsReadTopToBottomInOrder() {
    CompileOptions opts;
    opts.function = "f";
    opts.inputs = {{"x", Domain::float64(-1, 1)}};
    auto out = compile_python(kNest, opts);
    QVERIFY2(out.ok(), out.ok() ? "" : out.error().message.c_str());
    const Program& p = out->program;
    QVERIFY2(p.nodes.size() > kGroupThreshold, qPrintable(QString::number(p.nodes.size())));
    const auto layers = schedule_layers(p);
    auto plan = std::make_shared<const GroupPlan>(plan_groups(p, layers));
    std::vector<char> expanded(plan->groups.size(), 0);
    for (int line : {5, 6}) {
      const int g = statement_group(*plan, line);
      QVERIFY(g >= 0);
      QCOMPARE(iterations_of(*plan, g).size(), std::size_t{15});
      expanded[static_cast<std::size_t>(g)] = 1;
    }
    // Each statement opened on its own, then both: iteration i above i+1, every time.
    for (int open : {5, 6, 0}) {
      std::vector<char> e = expanded;
      if (open) e[static_cast<std::size_t>(statement_group(*plan, open == 5 ? 6 : 5))] = 0;
      auto g = grouped_layout(p, layers, plan, e);
      for (int line : {5, 6}) {
        if (open && line != open) continue;
        const auto its = iterations_of(*plan, statement_group(*plan, line));
        double prev_y = -1e300;
        for (std::size_t k = 0; k < its.size(); ++k) {
          int entry = -1;
          for (std::size_t i = 0; i < g->group.size(); ++i)
            if (g->group[i] == its[k]) entry = static_cast<int>(i);
          QVERIFY(entry >= 0);
          const double y = g->pos[static_cast<std::size_t>(entry)].y();
          QVERIFY2(y > prev_y, qPrintable(QStringLiteral("line %1: %2 at y=%3 is not below the iteration before (y=%4)")
                                              .arg(line)
                                              .arg(QString::fromStdString(plan->groups[static_cast<std::size_t>(its[k])].label))
                                              .arg(y)
                                              .arg(prev_y)));
          prev_y = y;
        }
      }
    }
  }

  void aFittedLoopNestKeepsItsGroupLabelsReadable() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("nest.py"));
    QVERIFY(write_file_atomic(path.toStdString(), std::string("# tensorcode: input x=float64:-1:1\n") + kNest).ok());
    MainWindow w;
    w.resize(1280, 800);
    w.show();
    QVERIFY(w.openPath(path));
    QVERIFY(w.waitUntilSettled(120000));
    GraphView* view = w.graph();
    QVERIFY(view->groupPlan());
    const GroupPlan& plan = *view->groupPlan();
    // Open the second statement (line 7 with the directive) with a click on its box.
    const int stmt = statement_group(plan, 7);
    QVERIFY(stmt >= 0);
    QTest::keyClick(view, Qt::Key_Home);  // fit
    int entry = -1;
    for (std::size_t e = 0; e < view->graphLayout()->group.size(); ++e)
      if (view->graphLayout()->group[e] == stmt) entry = static_cast<int>(e);
    QVERIFY(entry >= 0);
    const QPoint at = view->nodeViewPos(view->graphLayout()->ids[static_cast<std::size_t>(entry)]).toPoint();
    QVERIFY(view->rect().contains(at));
    QTest::mouseClick(view, Qt::LeftButton, {}, at);
    QVERIFY(w.waitUntilSettled(120000));
    QVERIFY2(view->breadcrumb().contains(QStringLiteral("line 7")), qPrintable(view->breadcrumb()));
    QTest::keyClick(view, Qt::Key_Home);  // fit the opened nest
    QVERIFY(!view->grab().isNull());      // one frame painted at the fit zoom
    // The breadcrumb stays readable: no layer label is drawn under it (issue 38 polish).
    const QRect crumbs = view->breadcrumbRect();
    QVERIFY(!crumbs.isEmpty());
    int labels = 0;
    for (const QRectF& r : view->layerLabelRects()) {
      if (r.isNull()) continue;
      ++labels;
      QVERIFY2(!r.intersects(crumbs), qPrintable(QStringLiteral("a layer label at y %1 under the breadcrumb").arg(r.top())));
    }
    QVERIFY(labels > 0);
    // Every opened iteration is labelled, readable (at least 10 screen
    // pixels of text) and in order down the view, at whatever zoom fit chose.
    const auto its = iterations_of(plan, stmt);
    QCOMPARE(its.size(), std::size_t{15});
    double prev_y = -1e300;
    for (int it : its) {
      const GraphView::PaintedLabel* label = nullptr;
      for (const auto& l : view->paintedGroupLabels())
        if (l.group == it) label = &l;
      // At a zoom where boxes hold their own text, their labels are the box text.
      if (!label && view->scale() >= 0.42) continue;
      QVERIFY2(label, qPrintable(QStringLiteral("%1 has no label at zoom %2")
                                     .arg(QString::fromStdString(plan.groups[static_cast<std::size_t>(it)].label))
                                     .arg(view->scale())));
      QVERIFY2(label->rect.height() >= 10.0, qPrintable(QString::number(label->rect.height())));
      QVERIFY(view->rect().intersects(label->rect.toRect()));
      QVERIFY(label->rect.center().y() > prev_y);
      prev_y = label->rect.center().y();
    }
    qInfo("fitted the opened nest at zoom %.2f", view->scale());
  }

  void theNeighbourhoodDoesNotFloodThroughConstants() {
    // One constant shared by 180 users, each also using its own input.
    Program p;
    auto add = [&](Node n) {
      n.id = static_cast<NodeId>(p.nodes.size());
      p.nodes.push_back(std::move(n));
      return p.nodes.back().id;
    };
    Node c;
    c.op = Op::Constant;
    c.value = 2.0;
    const NodeId k = add(c);
    NodeId first = -1;
    for (int i = 0; i < 180; ++i) {
      Node in;
      in.op = Op::Input;
      in.name = "x" + std::to_string(i);
      in.domain = Domain::float64();
      const NodeId x = add(in);
      Node m;
      m.op = Op::Mul;
      m.args = {x, k};
      const NodeId id = add(m);
      if (first < 0) first = id;
      p.outputs.emplace_back("y" + std::to_string(i), id);
    }
    const auto ids = neighbourhood(p, first, 300);
    // The user and its input; not the constant (drawn in the user's box) nor its 179 other users.
    QCOMPARE(ids.size(), std::size_t{2});
    QVERIFY(std::find(ids.begin(), ids.end(), k) == ids.end());
    // From the constant itself its users are one hop away.
    QVERIFY(neighbourhood(p, k, 300).size() > 100);
  }

  void aLargeCircuitOpensGroupedAndAClickOpensAGroup() {
    const Program p = layered_program(100, 99);  // 10,000 nodes
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("ten.json"));
    QVERIFY(write_file_atomic(path.toStdString(), save_artifact(p)).ok());
    MainWindow w;
    w.resize(1280, 800);
    w.show();
    QVERIFY(w.openPath(path));
    QVERIFY(w.waitUntilSettled(120000));
    GraphView* view = w.graph();
    QVERIFY(view->groupPlan());
    const std::size_t closed = view->entryCount();
    QVERIFY2(closed <= 300, qPrintable(QString::number(closed)));
    // A click on a group box opens it in place.
    const auto* g = view->graphLayout();
    // A group box on screen: near the selection, or anywhere once fitted
    // (the test used to skip, and pass, when its one pick was off screen).
    int entry = -1;
    QPointF at;
    auto find_visible_group = [&] {
      for (std::size_t e = 0; e < g->ids.size() && entry < 0; ++e) {
        if (g->group[e] < 0) continue;
        const QPointF pos = view->nodeViewPos(g->ids[e]);
        if (view->rect().contains(pos.toPoint())) entry = static_cast<int>(e), at = pos;
      }
    };
    view->centerOnSelection();
    find_visible_group();
    if (entry < 0) {
      view->fitAll();
      find_visible_group();
    }
    QVERIFY2(entry >= 0, "no group box is on screen, even after fitting the view");
    QTest::mouseClick(view, Qt::LeftButton, {}, at.toPoint());
    QVERIFY(w.waitUntilSettled(120000));
    QVERIFY(view->entryCount() > closed);
    QVERIFY(view->graphLayout()->group.size() == view->entryCount());
    // The breadcrumb names the open group (issue 24 item 9).
    QString label;
    for (std::size_t k = 0; k < view->groupPlan()->groups.size(); ++k) {
      const auto& grp = view->groupPlan()->groups[k];
      if (view->breadcrumb().contains(QString::fromStdString(grp.label))) label = QString::fromStdString(grp.label);
    }
    QVERIFY2(!label.isEmpty(), qPrintable(QStringLiteral("breadcrumb '%1' names no group").arg(view->breadcrumb())));
    // Issue 38 item 3: the next file opens with its groups closed, even one
    // of the same shape (the opened groups used to carry over).
    const QString again = dir.filePath(QStringLiteral("ten-copy.json"));
    QVERIFY(QFile::copy(path, again));
    QVERIFY(w.openPath(again));
    QVERIFY(w.waitUntilSettled(120000));
    QCOMPARE(view->entryCount(), closed);
  }

  void opensAHundredThousandNodeArtifact() {
    // 100 inputs and 999 layers of 100: 100,000 nodes. Not timed here (the
    // figure is measured with `tensorcode-ide --screenshot --timing`), only
    // checked to take the layered path and to place every node.
    const Program p = layered_program(100, 999);
    QCOMPARE(p.nodes.size(), std::size_t{100000});
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("large.json"));
    QVERIFY(write_file_atomic(path.toStdString(), save_artifact(p)).ok());
    MainWindow w;
    w.resize(1280, 800);
    w.show();
    QElapsedTimer clock;
    clock.start();
    QVERIFY(w.openPath(path));
    QVERIFY(w.waitUntilSettled(120000));
    const auto* g = w.graph()->graphLayout();
    QVERIFY(g);
    QVERIFY(!g->graphviz);
    // Grouped: no locations, so bands of layers, collapsed; every node maps to a box.
    QVERIFY(w.graph()->groupPlan());
    QVERIFY2(g->ids.size() <= 300, qPrintable(QString::number(g->ids.size())));
    for (std::size_t i = 0; i < p.nodes.size(); ++i) QVERIFY(g->index_of[i] >= 0);
    qInfo("100,000 nodes: ready in %lld ms, layout %.0f ms, %zu boxes", static_cast<long long>(clock.elapsed()), g->milliseconds,
          g->ids.size());
    // Selecting a node lays out its neighbourhood with Graphviz.
    w.session()->select(50000);
    QVERIFY(w.waitUntilSettled(120000));
    const auto* nb = w.neighbourhood()->graphLayout();
    QVERIFY(nb);
    QVERIFY(nb->graphviz);
    QVERIFY(nb->ids.size() <= 300);
    // Painting the whole circuit and a zoomed-in part works (the overview image and culling paths).
    // Paint cost per frame at three zoom levels (reported, not asserted).
    bool painted = true;
    auto frame_ms = [&]() -> double {
      QElapsedTimer t;
      t.start();
      for (int i = 0; i < 5; ++i) painted = painted && !w.graph()->grab().isNull();
      return static_cast<double>(t.elapsed()) / 5.0;
    };
    w.graph()->fitAll();
    const double whole = frame_ms();
    // For looking at the overview rendering by eye (docs/ide.md).
    if (qEnvironmentVariableIsSet("TC_VIEWS_SHOTS"))
      w.graph()->grab().save(qEnvironmentVariable("TC_VIEWS_SHOTS") + QStringLiteral("/large-whole.png"));
    w.graph()->centerOnSelection();
    const double close = frame_ms();
    for (int i = 0; i < 12; ++i) w.graph()->zoomOut();
    const double far = frame_ms();
    QVERIFY(painted);
    qInfo("frame: whole circuit %.1f ms, 80%% zoom %.1f ms, zoomed out to %.3f: %.1f ms", whole, close,
          w.graph()->scale(), far);
  }
};

QTEST_MAIN(LayoutTest)
#include "layout_test.moc"
