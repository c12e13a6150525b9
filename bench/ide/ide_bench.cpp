// The IDE on large circuits, measured through the real main window
// (offscreen): the time from a keystroke in the editor to the updated circuit
// drawn, at about 1k, 10k and 90k nodes, and the time to open a 100k-node
// artifact until its circuit is drawn, with the boxes a fit-all view shows.
// Medians of several runs, in wall time and in process CPU time (both
// threads): on a shared, loaded machine the CPU figure is the one to compare.
//
//   QT_QPA_PLATFORM=offscreen build/bin/tc_ide_bench [runs]
#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QSettings>
#include <QTemporaryDir>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <string>
#include <vector>

#include "base/atomic_file.h"
#include "ir/artifact.h"
#include "views/editor.h"
#include "views/graph_view.h"
#include "views/main_window.h"

using namespace tc;
using namespace tc::views;

namespace {

/// A loop whose body is one statement of `ops` operations, `iters` times.
std::string loop_source(int iters, int ops, double c) {
  std::string body = "s * 0.5";
  for (int k = 1; k < ops / 2; ++k) body += " + x * " + std::to_string(c + k);
  return "# tensorcode: input x=float64:-1:1\ndef f(x):\n    s = x\n    for i in range(" + std::to_string(iters) +
         "):\n        s = " + body + "\n    return s\n";
}

/// A layered artifact of width * (depth + 1) nodes (tests/views/data/make_large_artifact.py's shape).
Program layered(int width, int depth) {
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
      n.args = n.op == Op::Add || n.op == Op::Sub ? std::vector<NodeId>{a, b} : std::vector<NodeId>{a};
      cur.push_back(add(n));
    }
    prev = cur;
  }
  p.outputs.emplace_back("result", prev.front());
  return p;
}

/// Waits (event loop) until the circuit view delivers a layout, then paints it once.
bool wait_drawn(MainWindow& w, int timeout_ms) {
  QEventLoop loop;
  bool done = false;
  auto c = QObject::connect(w.graph(), &GraphView::layoutFinished, &loop, [&] {
    done = true;
    loop.quit();
  });
  QTimer::singleShot(timeout_ms, &loop, &QEventLoop::quit);
  loop.exec();
  QObject::disconnect(c);
  if (done) (void)w.graph()->grab();  // the frame itself
  return done;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  if (!qEnvironmentVariableIsSet("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  QCoreApplication::setOrganizationName(QStringLiteral("tensorcode-bench"));
  QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, QDir::tempPath() + QStringLiteral("/tc-ide-bench"));
  const int runs = argc > 1 ? std::max(1, std::atoi(argv[1])) : 5;
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  QTemporaryDir dir;

  std::printf("keystroke to drawn graph (edit a constant, recompile, evaluate, lay out, paint), median of %d\n", runs);
  struct Size {
    const char* name;
    int iters, ops;
  };
  for (const Size& size : {Size{"1k", 250, 4}, Size{"10k", 1000, 10}, Size{"90k", 1000, 90}}) {
    const QString path = dir.filePath(QStringLiteral("loop_%1.py").arg(QLatin1String(size.name)));
    (void)write_file_atomic(path.toStdString(), loop_source(size.iters, size.ops, 1.0));
    MainWindow w;
    w.resize(1280, 800);
    w.show();
    w.session()->setDebounceMs(0);
    if (!w.openPath(path) || !w.waitUntilSettled(300000) || !w.session()->program()) {
      std::printf("  %s: did not compile\n", size.name);
      continue;
    }
    std::vector<double> ms, cpu;
    for (int r = 0; r < runs; ++r) {
      // One keystroke: a digit of the first constant changes.
      QString text = w.editor()->text();
      text.replace(QStringLiteral("x * %1").arg(r % 2 ? 1.0 : 2.0, 0, 'f', 6), QStringLiteral("x * %1").arg(r % 2 ? 2.0 : 1.0, 0, 'f', 6));
      QElapsedTimer t;
      t.start();
      const std::clock_t c0 = std::clock();
      w.editor()->setText(text);
      w.session()->compileNow();
      if (!wait_drawn(w, 300000)) break;
      ms.push_back(static_cast<double>(t.nsecsElapsed()) / 1e6);
      cpu.push_back(1000.0 * static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC);
      w.waitUntilSettled(300000);  // let evaluation and analysis finish before the next keystroke
    }
    std::printf("  %-4s %6zu nodes: %8.1f ms wall, %8.1f ms CPU (boxes at fit-all: %zu)\n", size.name,
                w.session()->program()->nodes.size(), median(ms), median(cpu), w.graph()->entryCount());
    std::fflush(stdout);
  }

  std::printf("open a 100,000-node artifact until its circuit is drawn, median of %d\n", std::min(runs, 3));
  const QString big = dir.filePath(QStringLiteral("large.json"));
  (void)write_file_atomic(big.toStdString(), save_artifact(layered(100, 999)));
  std::vector<double> open_ms, open_cpu;
  std::size_t boxes = 0;
  for (int r = 0; r < std::min(runs, 3); ++r) {
    MainWindow w;
    w.resize(1280, 800);
    w.show();
    QElapsedTimer t;
    t.start();
    const std::clock_t c0 = std::clock();
    if (!w.openPath(big) || !wait_drawn(w, 300000)) break;
    open_ms.push_back(static_cast<double>(t.nsecsElapsed()) / 1e6);
    open_cpu.push_back(1000.0 * static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC);
    boxes = w.graph()->entryCount();
    w.waitUntilSettled(300000);
  }
  std::printf("  100000 nodes: %8.1f ms wall, %8.1f ms CPU (boxes at fit-all: %zu)\n", median(open_ms), median(open_cpu), boxes);
  return 0;
}
