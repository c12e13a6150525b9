// The IDE's engine thread (EngineWorker) and the Session on top of it,
// without any widget: requests replaced and cancelled from the GUI thread
// while the worker runs, results dropped for destroyed contexts, edits racing
// the debounced recompile. CI also runs this test in a ThreadSanitizer build
// (installer/setup.sh, stage "tsan"), which is what the concurrency here is for.
#include <QCoreApplication>
#include <QSignalSpy>
#include <QTest>
#include <QThread>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>

#include "views/session.h"
#include "views/worker.h"

using tc::views::EngineWorker;
using tc::views::JobControl;
using tc::views::Session;

class WorkerSessionTest : public QObject {
  Q_OBJECT
 private slots:
  void onlyTheNewestRequestOfATagDelivers() {
    EngineWorker worker;
    std::atomic<int> ran{0};
    int delivered = -1, deliveries = 0;
    QThread* gui = QThread::currentThread();
    // A slow first job keeps the worker busy while 200 more are posted.
    worker.post("block", [](JobControl&) -> EngineWorker::Deliver {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      return {};
    });
    for (int i = 0; i < 200; ++i)
      worker.post("compile", [&ran, &delivered, &deliveries, gui, i](JobControl&) -> EngineWorker::Deliver {
        ++ran;
        return [&delivered, &deliveries, gui, i] {
          QCOMPARE(QThread::currentThread(), gui);  // delivered on the GUI thread
          delivered = i;
          ++deliveries;
        };
      });
    QTRY_VERIFY_WITH_TIMEOUT(!worker.busy(), 10000);
    QCOMPARE(delivered, 199);
    QCOMPARE(deliveries, 1);
    QVERIFY(ran.load() <= 2);  // the queued ones were replaced, not run
    QCOMPARE(worker.generation("compile"), quint64(200));
  }

  void cancelStopsTheRunningJobAndDropsItsResult() {
    EngineWorker worker;
    std::atomic<bool> started{false}, saw_cancel{false};
    bool delivered = false;
    worker.post("verify", [&](JobControl& ctl) -> EngineWorker::Deliver {
      started = true;
      for (int k = 0; k < 2000 && !ctl.cancelled(); ++k) std::this_thread::sleep_for(std::chrono::milliseconds(1));
      saw_cancel = ctl.cancelled();
      return [&delivered] { delivered = true; };
    });
    QTRY_VERIFY_WITH_TIMEOUT(started.load(), 5000);
    worker.cancel("verify");
    QTRY_VERIFY_WITH_TIMEOUT(!worker.busy(), 5000);
    QVERIFY(saw_cancel.load());
    QVERIFY(!delivered);
  }

  void aDestroyedContextGetsNoResult() {
    EngineWorker worker;
    bool delivered = false;
    auto* context = new QObject;
    std::atomic<bool> release{false};
    worker.post(
        "export",
        [&](JobControl&) -> EngineWorker::Deliver {
          while (!release) std::this_thread::sleep_for(std::chrono::milliseconds(1));
          return [&delivered] { delivered = true; };
        },
        context);
    delete context;  // on the GUI thread, while the job runs
    release = true;
    QTRY_VERIFY_WITH_TIMEOUT(!worker.busy(), 5000);
    QVERIFY(!delivered);
  }

  void progressReachesTheGuiThread() {
    EngineWorker worker;
    QSignalSpy spy(&worker, &EngineWorker::progress);
    worker.post("run", [](JobControl& ctl) -> EngineWorker::Deliver {
      for (std::uint64_t k = 1; k <= 5; ++k) ctl.update(k, 5, "cases");
      return {};
    });
    QTRY_VERIFY_WITH_TIMEOUT(!worker.busy(), 5000);
    QTRY_COMPARE_WITH_TIMEOUT(spy.count(), 5, 5000);
    QCOMPARE(spy.last().at(1).toULongLong(), 5ull);
  }

  void destroyingTheWorkerWithQueuedJobsDoesNotHang() {
    std::atomic<int> ran{0};
    {
      EngineWorker worker;
      for (int i = 0; i < 50; ++i)
        worker.post(QString("tag%1").arg(i), [&ran](JobControl&) -> EngineWorker::Deliver {
          ++ran;
          std::this_thread::sleep_for(std::chrono::milliseconds(2));
          return {};
        });
    }
    QVERIFY(ran.load() < 50);
  }

  void editsRacingTheRecompileEndWithTheLastSource() {
    Session session;
    session.setDebounceMs(1);
    QSignalSpy compiled(&session, &Session::compiled);
    session.newDocument("# tensorcode: input a=int32:-8:8\ndef f(a):\n    return a + 0\n");
    QTRY_VERIFY_WITH_TIMEOUT(!session.worker().busy() && session.program(), 10000);
    for (int k = 1; k <= 60; ++k) {
      session.setSource(QString("# tensorcode: input a=int32:-8:8\ndef f(a):\n    return a + %1\n").arg(k));
      if (k % 7 == 0) session.run();
      if (k % 5 == 0) QCoreApplication::processEvents();
    }
    session.compileNow();
    QTRY_VERIFY_WITH_TIMEOUT(!session.worker().busy() && !session.compilePending(), 10000);
    QVERIFY(compiled.count() >= 2);
    QVERIFY(session.diagnostics().empty());
    session.setCaseValue("a", 3);
    session.run();
    QTRY_VERIFY_WITH_TIMEOUT(!session.worker().busy(), 10000);
    QVERIFY(session.exactRun().ok);
    QCOMPARE(session.exactRun().outputs.at(0), 63.0);  // 3 + 60: the last edit won
  }

  void aFailedKeystrokeCompileWaitsForTypingToPause() {
    const QString good = "# tensorcode: input a=int32:-8:8\ndef f(a):\n    return a + %1\n";
    const QString broken = "# tensorcode: input a=int32:-8:8\ndef f(a):\n    return a + \n";
    Session session;
    session.setDebounceMs(1);
    session.setErrorGraceMs(600000);  // typing "never pauses" within this test
    session.newDocument(good.arg(1));
    QTRY_VERIFY_WITH_TIMEOUT(!session.worker().busy() && session.program(), 10000);
    const auto first = session.program();
    // A half-typed edit compiles, fails, and is held: nothing is marked out of date yet.
    auto compiles = [&] { return session.worker().generation("compile"); };
    quint64 g = compiles();
    session.setSource(broken);
    QTRY_VERIFY_WITH_TIMEOUT(compiles() > g && !session.worker().busy(), 10000);
    QVERIFY(session.compilePending());  // the held failure
    QVERIFY(!session.compileFailed());
    QCOMPARE(session.compileCount(), 1);
    // The next keystroke fixes it: the failure is never shown, the good program arrives.
    session.setSource(good.arg(2));
    QTRY_VERIFY_WITH_TIMEOUT(!session.worker().busy() && !session.compilePending(), 10000);
    QVERIFY(!session.compileFailed());
    QVERIFY(session.program() != first);
    QVERIFY(session.upToDate());
    // Broken again, then an explicit compile (Ctrl+B, export, verify): shown at once.
    g = compiles();
    session.setSource(broken);
    QTRY_VERIFY_WITH_TIMEOUT(compiles() > g && !session.worker().busy(), 10000);
    QVERIFY(session.compilePending());
    QVERIFY(!session.compileFailed());
    session.compileNow();
    QTRY_VERIFY_WITH_TIMEOUT(!session.worker().busy() && !session.compilePending(), 10000);
    QVERIFY(session.compileFailed());
    QVERIFY(!session.diagnostics().empty());
    // Without a grace a failed keystroke compile shows as soon as it arrives.
    session.setErrorGraceMs(0);
    session.setSource(good.arg(3));
    QTRY_VERIFY_WITH_TIMEOUT(!session.worker().busy() && !session.compilePending() && !session.compileFailed(), 10000);
    session.setSource(broken);
    QTRY_VERIFY_WITH_TIMEOUT(!session.worker().busy() && !session.compilePending() && session.compileFailed(), 10000);
  }
};

QTEST_GUILESS_MAIN(WorkerSessionTest)
#include "worker_session_test.moc"
