#include "views/worker.h"

#include <QMetaObject>
#include <QPointer>

namespace tc {
namespace views {

void JobControl::update(std::uint64_t done, std::uint64_t total, std::string_view what) {
  if (on_progress) on_progress(done, total, QString::fromUtf8(what.data(), static_cast<qsizetype>(what.size())));
}

EngineWorker::EngineWorker(QObject* parent) : QObject(parent) {
  thread_ = std::thread([this] { loop(); });
}

EngineWorker::~EngineWorker() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    for (auto& [tag, control] : running_) control->cancel();
    queue_.clear();
  }
  wake_.notify_all();
  thread_.join();
}

quint64 EngineWorker::post(const QString& tag, Job job, QObject* context) {
  const quint64 gen = ++latest_[tag];
  ++pending_;
  Request req{tag, gen, std::move(job), std::make_shared<JobControl>(), QPointer<QObject>(context), context != nullptr};
  {
    std::lock_guard lock(mutex_);
    bool replaced = false;
    for (auto& queued : queue_) {
      if (queued.tag == tag) {
        queued = std::move(req);
        replaced = true;
        break;
      }
    }
    if (replaced) {
      --pending_;  // the replaced request will never deliver
    } else {
      queue_.push_back(std::move(req));
    }
  }
  wake_.notify_one();
  return gen;
}

void EngineWorker::cancel(const QString& tag) {
  ++latest_[tag];  // whatever is in flight will be dropped on delivery
  std::lock_guard lock(mutex_);
  for (auto it = queue_.begin(); it != queue_.end();) {
    if (it->tag == tag) {
      it = queue_.erase(it);
      --pending_;
    } else {
      ++it;
    }
  }
  if (auto it = running_.find(tag); it != running_.end()) it->second->cancel();
  if (pending_ == 0) QMetaObject::invokeMethod(this, [this] { emit idle(); }, Qt::QueuedConnection);
}

quint64 EngineWorker::generation(const QString& tag) const {
  auto it = latest_.find(tag);
  return it == latest_.end() ? 0 : it->second;
}

void EngineWorker::loop() {
  for (;;) {
    Request req;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      req = std::move(queue_.front());
      queue_.pop_front();
      running_[req.tag] = req.control;
    }
    QPointer<EngineWorker> self(this);
    const QString tag = req.tag;
    req.control->on_progress = [self, tag](std::uint64_t done, std::uint64_t total, QString what) {
      if (!self) return;
      QMetaObject::invokeMethod(
          self, [self, tag, done, total, what] { if (self) emit self->progress(tag, done, total, what); },
          Qt::QueuedConnection);
    };
    Deliver deliver;
    if (!req.control->cancelled()) deliver = req.job(*req.control);
    {
      std::lock_guard lock(mutex_);
      running_.erase(req.tag);
    }
    const quint64 gen = req.generation;
    QPointer<QObject> context = req.context;
    const bool has_context = req.has_context;
    QMetaObject::invokeMethod(
        this, [this, tag, gen, deliver, context, has_context] { finish(tag, gen, deliver, !has_context || context); },
        Qt::QueuedConnection);
  }
}

void EngineWorker::finish(const QString& tag, quint64 generation, const Deliver& deliver, bool context_alive) {
  const bool current = latest_[tag] == generation;
  if (pending_ > 0) --pending_;
  if (current && context_alive && deliver) deliver();
  if (pending_ == 0) emit idle();
}

}  // namespace views
}  // namespace tc
