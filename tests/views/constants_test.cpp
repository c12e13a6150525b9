// Constants are drawn inside their users' boxes, not as shared nodes: in the
// Graphviz drawing of a small circuit, the layered layout of a medium one and
// the grouped drawing of a large one (groups opened), a constant with many
// users has no box and no edge, and its value appears in every user's box.
// The neighbourhood never contains one and is fitted when its tab is shown.
// Real circuits, the real main window, offscreen.
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <map>

#include "base/atomic_file.h"
#include "views/graph_view.h"
#include "views/main_window.h"
#include "widget_actions.h"

using namespace tc;
using namespace tc::views;
using tc::views::testing::data;

namespace {

/// The constant with the most users, and how many.
std::pair<NodeId, int> most_used_constant(const Program& p) {
  std::map<NodeId, int> users;
  for (const auto& n : p.nodes)
    for (NodeId a : n.args)
      if (p.nodes[static_cast<std::size_t>(a)].op == Op::Constant) ++users[a];
  std::pair<NodeId, int> best{-1, 0};
  for (const auto& [id, k] : users)
    if (k > best.second) best = {id, k};
  return best;
}

/// Opens every group, statements first, then their iterations.
void open_all_groups(MainWindow& w) {
  GraphView* view = w.graph();
  for (int level = 0; level < 2 && view->groupPlan(); ++level) {
    const GroupPlan plan = *view->groupPlan();
    for (std::size_t g = 0; g < plan.groups.size(); ++g)
      if ((plan.groups[g].parent < 0) == (level == 0)) {
        view->toggleGroup(static_cast<int>(g));
        QVERIFY(w.waitUntilSettled(120000));
      }
  }
}

}  // namespace

class ConstantsTest : public QObject {
  Q_OBJECT
 private slots:
  void aSharedConstantIsDrawnInItsUsers_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("iterations");  // 0: the file as it is
    QTest::addColumn<QString>("drawing");
    QTest::newRow("graphviz, 40 iterations") << data("damp.py") << 0 << "graphviz";
    QTest::newRow("layered, 150 iterations") << data("damp.py") << 150 << "layered";
    QTest::newRow("grouped, grid 15 x 12") << data("grid.py") << 0 << "grouped";
  }
  void aSharedConstantIsDrawnInItsUsers() {
    QFETCH(QString, file);
    QFETCH(int, iterations);
    QFETCH(QString, drawing);
    QTemporaryDir dir;
    QString path = file;
    if (iterations > 0) {
      QFile f(file);
      QVERIFY(f.open(QIODevice::ReadOnly));
      QString text = QString::fromUtf8(f.readAll()).replace(QStringLiteral("range(40)"), QStringLiteral("range(%1)").arg(iterations));
      path = dir.filePath(QStringLiteral("damp.py"));
      QVERIFY(write_file_atomic(path.toStdString(), text.toStdString()).ok());
    }
    MainWindow w;
    w.resize(1280, 800);
    w.show();
    QVERIFY(w.openPath(path));
    QVERIFY(w.waitUntilSettled(120000));
    auto program = w.session()->program();
    QVERIFY(program);
    GraphView* view = w.graph();
    QVERIFY(view->graphLayout());
    QCOMPARE(view->graphLayout()->graphviz, drawing == QLatin1String("graphviz"));
    QCOMPARE(view->groupPlan() != nullptr, drawing == QLatin1String("grouped"));
    open_all_groups(w);
    const GraphLayout& g = *view->graphLayout();

    const auto [k, uses] = most_used_constant(*program);
    QVERIFY2(uses >= 40, qPrintable(QString::number(uses)));
    // No box for the constant, and no box or edge of any used constant.
    QCOMPARE(g.index_of[static_cast<std::size_t>(k)], -1);
    for (std::size_t e = 0; e < g.ids.size(); ++e) {
      const bool group = e < g.group.size() && g.group[e] >= 0;
      if (!group) QVERIFY(program->nodes[static_cast<std::size_t>(g.ids[e])].op != Op::Constant);
    }
    for (const auto& edge : g.edges) {
      const bool group = static_cast<std::size_t>(edge.from) < g.group.size() && g.group[static_cast<std::size_t>(edge.from)] >= 0;
      if (!group) QVERIFY(program->nodes[static_cast<std::size_t>(g.ids[static_cast<std::size_t>(edge.from)])].op != Op::Constant);
    }
    // Its value in every user's box.
    const QString value = QString::fromStdString(format_short(program->nodes[static_cast<std::size_t>(k)].value));
    int shown = 0;
    NodeId a_user = -1;
    for (const auto& n : program->nodes) {
      if (std::find(n.args.begin(), n.args.end(), k) == n.args.end()) continue;
      const int e = g.index_of[static_cast<std::size_t>(n.id)];
      QVERIFY(e >= 0);
      QCOMPARE(g.ids[static_cast<std::size_t>(e)], n.id);  // opened: the node's own box
      const QString text = view->boxText(n.id, 0);
      QVERIFY2(text.contains(value), qPrintable(text + QStringLiteral(" lacks ") + value));
      ++shown;
      a_user = n.id;
    }
    QCOMPARE(shown, uses);
    if (qEnvironmentVariableIsSet("TC_VIEWS_SHOTS"))
      view->grab().save(qEnvironmentVariable("TC_VIEWS_SHOTS") + QStringLiteral("/constants-%1.png").arg(drawing));

    if (drawing != QLatin1String("graphviz")) return;  // a deep 300-node neighbourhood is slow in dot: one row is enough
    // The neighbourhood of a user skips constants and is fitted when shown.
    w.session()->select(a_user);
    QVERIFY(w.waitUntilSettled(120000));
    w.showNeighbourhood();
    QVERIFY(w.waitUntilSettled(120000));
    GraphView* nb = w.neighbourhood();
    QVERIFY(nb->graphLayout());
    QVERIFY(nb->graphLayout()->index_of[static_cast<std::size_t>(a_user)] >= 0);
    for (NodeId id : nb->graphLayout()->ids) {
      QVERIFY(program->nodes[static_cast<std::size_t>(id)].op != Op::Constant);
      const QPointF at = nb->nodeViewPos(id);
      QVERIFY2(nb->rect().adjusted(-2, -2, 2, 2).contains(at.toPoint()),
               qPrintable(QStringLiteral("#%1 at %2,%3 outside the neighbourhood view").arg(id).arg(at.x()).arg(at.y())));
    }
    QVERIFY(!nb->grab().isNull());
  }
};

QTEST_MAIN(ConstantsTest)
#include "constants_test.moc"
