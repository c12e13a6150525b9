// The IDE on large circuits, measured through the real main window
// (offscreen): the time from a keystroke in the editor to the updated circuit
// painted, at about 1k, 10k and 90k nodes, and the time to open a 100k-node
// artifact until its circuit is painted, with the boxes a fit-all view shows.
// A keystroke is measured twice: as a key event typed into the editor (the
// IDE's own debounce included) and as an edit followed by an immediate
// compile request (no debounce). "Painted" is the circuit view's first paint
// of the new layout (GraphView::framePainted), not a later forced grab.
// Medians of several runs, in wall time, in process CPU time (both threads)
// and the time the process's threads waited runnable for a CPU (run queue,
// /proc/self/task/*/schedstat): wall minus CPU minus run-queue wait is the
// time the IDE itself waited (timers, one thread waiting for the other).
//
//   QT_QPA_PLATFORM=offscreen build/bin/tc_ide_bench [runs]
#include <QApplication>
#include <QDir>
#include <QFile>
#include <QKeyEvent>
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

/// Waits (event loop) until the circuit view paints a new layout.
bool wait_painted(MainWindow& w, int timeout_ms) {
  QEventLoop loop;
  bool laid_out = false, done = false;
  auto a = QObject::connect(w.graph(), &GraphView::layoutFinished, &loop, [&] { laid_out = true; });
  auto b = QObject::connect(w.graph(), &GraphView::framePainted, &loop, [&] {
    if (!laid_out || done) return;
    done = true;
    loop.quit();
  });
  QTimer::singleShot(timeout_ms, &loop, &QEventLoop::quit);
  if (!done) loop.exec();
  QObject::disconnect(a);
  QObject::disconnect(b);
  return done;
}

/// Milliseconds all threads of this process ran, and waited runnable for a CPU.
struct Sched {
  double run_ms = 0, wait_ms = 0;
};
Sched sched_now() {
  Sched s;
  for (const QString& t : QDir(QStringLiteral("/proc/self/task")).entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
    QFile f(QStringLiteral("/proc/self/task/%1/schedstat").arg(t));
    if (!f.open(QIODevice::ReadOnly)) continue;
    const auto parts = QString::fromLatin1(f.readAll()).split(QLatin1Char(' '));
    if (parts.size() >= 2) {
      s.run_ms += parts[0].toDouble() / 1e6;
      s.wait_ms += parts[1].toDouble() / 1e6;
    }
  }
  return s;
}

struct Sample {
  std::vector<double> wall, cpu, queue;
};

/// Runs `start` and waits for the painted circuit; false when it never came.
template <class F>
bool measure(MainWindow& w, Sample& out, F start) {
  QElapsedTimer t;
  t.start();
  const std::clock_t c0 = std::clock();
  const Sched s0 = sched_now();
  start();
  if (!wait_painted(w, 300000)) return false;
  out.wall.push_back(static_cast<double>(t.nsecsElapsed()) / 1e6);
  out.cpu.push_back(1000.0 * static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC);
  out.queue.push_back(sched_now().wait_ms - s0.wait_ms);
  return true;
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

  std::printf("keystroke to painted circuit (edit a constant, recompile, lay out, paint), median of %d\n", runs);
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
    if (!w.openPath(path) || !w.waitUntilSettled(300000) || !w.session()->program()) {
      std::printf("  %s: did not compile\n", size.name);
      continue;
    }
    Sample typed, direct;
    // Typed: a digit before the first constant, then Backspace, as key events into the editor.
    const int at = static_cast<int>(w.editor()->text().indexOf(QStringLiteral("x * ")) + 4);
    int line = 0, index = 0;
    w.editor()->lineIndexFromPosition(at, &line, &index);
    for (int r = 0; r < runs; ++r) {
      w.editor()->setFocus();
      w.editor()->setCursorPosition(line, r % 2 ? index + 1 : index);
      const bool ok = measure(w, typed, [&] {
        const int key = r % 2 ? Qt::Key_Backspace : Qt::Key_5;
        const QString text = r % 2 ? QString() : QStringLiteral("5");
        QKeyEvent press(QEvent::KeyPress, key, Qt::NoModifier, text);
        QKeyEvent release(QEvent::KeyRelease, key, Qt::NoModifier, text);
        QApplication::sendEvent(w.editor(), &press);
        QApplication::sendEvent(w.editor(), &release);
      });
      if (!ok) break;
      w.waitUntilSettled(300000);  // evaluation and analysis finish before the next keystroke
    }
    // Direct: the edit, then an immediate compile request (no debounce).
    for (int r = 0; r < runs; ++r) {
      QString text = w.editor()->text();
      text.replace(QStringLiteral("x * %1").arg(r % 2 ? 1.0 : 2.0, 0, 'f', 6), QStringLiteral("x * %1").arg(r % 2 ? 2.0 : 1.0, 0, 'f', 6));
      const bool ok = measure(w, direct, [&] {
        w.editor()->setText(text);
        w.session()->compileNow();
      });
      if (!ok) break;
      w.waitUntilSettled(300000);
    }
    std::printf("  %-4s %6zu nodes, typed:  %7.1f ms wall, %6.1f ms CPU, %6.1f ms run-queue wait (boxes at fit-all: %zu)\n",
                size.name, w.session()->program()->nodes.size(), median(typed.wall), median(typed.cpu), median(typed.queue),
                w.graph()->entryCount());
    std::printf("  %-4s %6zu nodes, direct: %7.1f ms wall, %6.1f ms CPU, %6.1f ms run-queue wait\n", size.name,
                w.session()->program()->nodes.size(), median(direct.wall), median(direct.cpu), median(direct.queue));
    std::fflush(stdout);
  }

  std::printf("open a 100,000-node artifact until its circuit is painted, median of %d\n", std::min(runs, 3));
  const QString big = dir.filePath(QStringLiteral("large.json"));
  (void)write_file_atomic(big.toStdString(), save_artifact(layered(100, 999)));
  Sample open;
  std::size_t boxes = 0;
  for (int r = 0; r < std::min(runs, 3); ++r) {
    MainWindow w;
    w.resize(1280, 800);
    w.show();
    if (!measure(w, open, [&] { (void)w.openPath(big); })) break;
    boxes = w.graph()->entryCount();
    w.waitUntilSettled(300000);
  }
  std::printf("  100000 nodes: %8.1f ms wall, %6.1f ms CPU, %6.1f ms run-queue wait (boxes at fit-all: %zu)\n", median(open.wall),
              median(open.cpu), median(open.queue), boxes);
  std::printf("load average: %s", [] {
    QFile f(QStringLiteral("/proc/loadavg"));
    static QByteArray text;
    text = f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray("?\n");
    return text.constData();
  }());
  return 0;
}
