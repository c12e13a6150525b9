#pragma once
// The one engine thread of the IDE (RenderDoc's replay-manager shape): the
// GUI posts tagged requests; a newer request replaces a queued request of
// the same tag, so recompiling on every keystroke never builds a backlog;
// each request's result comes back to the GUI thread as a queued call and
// is dropped when a newer request of the same tag was posted meanwhile.
#include <QEventLoop>
#include <QObject>
#include <QPointer>
#include <QString>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "base/progress.h"

namespace tc {
namespace views {

/// Cancellation and progress for one request, shared with the engine code.
class JobControl : public tc::Progress {
 public:
  void update(std::uint64_t done, std::uint64_t total, std::string_view what) override;
  [[nodiscard]] bool cancelled() const override { return cancelled_.load(); }
  void cancel() { cancelled_.store(true); }
  /// The flag cancel() sets, for engines that poll one themselves (the prover's watcher).
  [[nodiscard]] const std::atomic<bool>* cancelFlag() const { return &cancelled_; }
  std::function<void(std::uint64_t, std::uint64_t, QString)> on_progress;  ///< called on the worker thread

 private:
  std::atomic<bool> cancelled_{false};
};

class EngineWorker : public QObject {
  Q_OBJECT
 public:
  /// A job runs on the worker thread and returns the continuation that
  /// delivers its result on the GUI thread.
  using Deliver = std::function<void()>;
  using Job = std::function<Deliver(JobControl&)>;

  explicit EngineWorker(QObject* parent = nullptr);
  ~EngineWorker() override;

  /// Queues `job` under `tag`, replacing a queued (not yet started) job of
  /// the same tag. The result is dropped when `context` (the view that asked)
  /// was destroyed meanwhile. Returns the request's generation.
  quint64 post(const QString& tag, Job job, QObject* context = nullptr);
  /// Cancels the running and the queued request of `tag`; their results are dropped.
  void cancel(const QString& tag);
  /// True while a request is queued, running, or its result is not yet delivered.
  [[nodiscard]] bool busy() const { return pending_ > 0; }
  /// Requests posted so far, per tag (tests check that replacement happened).
  [[nodiscard]] quint64 generation(const QString& tag) const;

 signals:
  /// Progress of the running request (queued to the GUI thread, throttled by the engine).
  void progress(const QString& tag, quint64 done, quint64 total, const QString& what);
  /// Emitted on the GUI thread whenever the last pending request completed.
  void idle();

 private:
  struct Request {
    QString tag;
    quint64 generation = 0;
    Job job;
    std::shared_ptr<JobControl> control;
    QPointer<QObject> context;
    bool has_context = false;
  };
  void loop();
  void finish(const QString& tag, quint64 generation, const Deliver& deliver, bool context_alive);

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Request> queue_;
  std::map<QString, std::shared_ptr<JobControl>> running_;
  std::map<QString, quint64> latest_;  // GUI thread only
  int pending_ = 0;                    // GUI thread only
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace views
}  // namespace tc
