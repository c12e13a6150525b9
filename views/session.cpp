#include "views/session.h"

#include <QFile>
#include <QFileInfo>

#include <chrono>
#include <cmath>

#include "base/atomic_file.h"
#include "ir/artifact.h"

namespace tc {
namespace views {

Session::Session(QObject* parent) : QObject(parent), worker_(new EngineWorker(this)) {
  // No delay: the worker replaces a queued compile with a newer one, so
  // typing never builds a backlog; the zero timer folds the edits of one
  // event-loop pass (a paste, a replace-all) into one compile.
  debounce_.setSingleShot(true);
  debounce_.setInterval(0);
  connect(&debounce_, &QTimer::timeout, this, [this] { compile(true); });
  error_hold_.setSingleShot(true);
  connect(&error_hold_, &QTimer::timeout, this, &Session::applyHeldCompile);
  last_edit_.start();
}

Session::~Session() = default;

void Session::addViewer(Viewer* v) { viewers_.push_back(v); }
void Session::removeViewer(Viewer* v) { std::erase(viewers_, v); }

template <class F>
void Session::notify(F f) {
  const auto copy = viewers_;
  for (Viewer* v : copy) f(v);
}

bool Session::openFile(const QString& path, QString* error) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) {
    if (error) *error = tr("cannot open %1: %2").arg(path, f.errorString());
    return false;
  }
  const QByteArray bytes = f.readAll();
  if (path.endsWith(QLatin1String(".json"), Qt::CaseInsensitive)) {
    // Parsing and validating a large artifact takes a while: off the GUI
    // thread, and off to the side. The open document (title, program,
    // exports, cases) stays until the artifact has loaded; one that fails to
    // load replaces nothing.
    const std::string text = bytes.toStdString();
    const std::string name = QFileInfo(path).fileName().toStdString();
    emit message(tr("loading %1…").arg(QFileInfo(path).fileName()));
    worker_->post(QStringLiteral("compile"), [this, text, name, path](JobControl&) -> EngineWorker::Deliver {
      const auto t0 = std::chrono::steady_clock::now();
      auto prog = load_artifact(text);
      std::shared_ptr<const Program> program;
      std::vector<int> layers;
      std::optional<Diagnostic> error;
      if (prog.ok()) {
        program = std::make_shared<const Program>(std::move(*prog));
        layers = schedule_layers(*program);
      } else {
        error = prog.error();
        if (error->file.empty()) error->file = name;
      }
      const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      return [this, path, program, layers = std::move(layers), error, ms]() mutable {
        if (error) {
          const QString why = QString::fromStdString(error->format());
          emit message(tr("cannot load %1: %2").arg(QFileInfo(path).fileName(), why));
          emit failed(tr("Open"), tr("cannot load %1: %2\nThe open document is unchanged.").arg(path, why));
          return;
        }
        startDocument();
        doc_.openArtifact(path);
        loadCaseBook();
        emit documentChanged();
        doc_.setInputs(cases_.adoptArtifactInputs(*program));
        doc_.applyLoad(program, std::move(layers), ms, std::nullopt);
        setProgram(program);
        emit compiled();
        emit message(tr("loaded in %1 ms, %2 nodes").arg(doc_.compileMs(), 0, 'f', 1).arg(program->nodes.size()));
      };
    });
    return true;
  }
  // A binary file would show up to its first NUL byte and fail to compile:
  // refuse it before it replaces the open document.
  if (const qsizetype nul = bytes.indexOf('\0'); nul >= 0) {
    if (error) *error = tr("cannot open %1: it is not a text file (a NUL byte at offset %2)").arg(path).arg(nul);
    return false;
  }
  startDocument();
  doc_.openSource(path, QString::fromUtf8(bytes));
  // No circuit until this file compiles: the last good one was another file's.
  setProgram(nullptr);
  loadCaseBook();
  emit documentChanged();
  compileNow();
  return true;
}

void Session::startDocument() {
  held_.reset();  // a failure held from the previous document's typing
  error_hold_.stop();
  timeline_.clear();
  selected_ = -1;
  highlighted_.clear();
  caret_line_ = -1;
  emit documentReplaced();
}

void Session::newDocument(const QString& text) {
  startDocument();
  doc_.openSource(QString(), text);
  setProgram(nullptr);
  cases_.reset();
  emit documentChanged();
  compileNow();
}

void Session::setSource(const QString& text) {
  if (!doc_.setSource(text)) return;
  last_edit_.restart();
  debounce_.start();
  // The circuit's line numbers are the compiled source's: no tint until it catches up.
  refreshHighlight();
}

void Session::setFunction(const QString& name) {
  if (doc_.setFunction(name)) compileNow();
}

void Session::compileNow() { compile(false); }

void Session::compile(bool typed) {
  debounce_.stop();
  if (!typed) applyHeldCompile();  // asked for explicitly: a held failure shows now
  if (doc_.readOnly()) return;
  const std::string src = doc_.source().toStdString();
  const std::string file = doc_.fileName();
  const std::string fn = doc_.function().toStdString();
  const QString requested = doc_.source();
  worker_->post(QStringLiteral("compile"), [this, src, file, fn, requested, typed](JobControl&) -> EngineWorker::Deliver {
    auto result = std::make_shared<CompileResult>(compile_source(src, file, fn));
    std::vector<int> layers;
    if (result->program) layers = schedule_layers(*result->program);
    return [this, result, requested, typed, layers = std::move(layers)]() mutable {
      const qint64 since_edit = last_edit_.elapsed();
      if (!result->program && typed && since_edit < error_grace_ms_) {
        // Probably a half-typed token: show it only if typing pauses.
        held_ = Held{result, requested, std::move(layers)};
        error_hold_.start(static_cast<int>(error_grace_ms_ - since_edit));
        return;
      }
      error_hold_.stop();
      held_.reset();
      applyCompile(result, requested, std::move(layers));
    };
  });
}

void Session::applyHeldCompile() {
  error_hold_.stop();
  if (!held_) return;
  Held h = std::move(*held_);
  held_.reset();
  applyCompile(h.result, h.requested, std::move(h.layers));
}

void Session::applyCompile(const std::shared_ptr<CompileResult>& result, const QString& requested, std::vector<int> layers) {
  if (doc_.applyCompile(*result, requested, std::move(layers))) {
    // Keep values the user set; new inputs start at zero (clamped into the domain).
    cases_.adoptInputs(doc_.inputs());
    setProgram(result->program);
  } else {
    // A transient error: the last good program, its inputs, domains,
    // values and selection stay; the problems list says what is wrong
    // now and the views mark themselves out of date.
    notify([](Viewer* v) { v->resultsChanged(); });
  }
  refreshHighlight();  // the caret line's nodes again, or none while out of date
  emit compiled();
  // A good compile says nothing here: the status bar's permanent labels
  // show its time and node count, and a message would overwrite what the
  // user's own action just reported (Replace All's count, a save).
  if (!result->program)
    emit message(tr("compile failed: %n problem(s)", nullptr, static_cast<int>(doc_.diagnostics().size())));
}

void Session::setProgram(std::shared_ptr<const Program> program) {
  doc_.setProgram(std::move(program), doc_.layers());
  const auto prog = doc_.program();
  // Parameters start at their stored values; values the user set are kept.
  cases_.adoptParameters(prog.get());
  if (prog && selected_ >= static_cast<NodeId>(prog->nodes.size())) selected_ = -1;
  highlighted_.clear();
  cases_.clearResults();
  analysis_ = {};
  cases_.fitOutputIndex(prog ? prog->outputs.size() : 0);
  // A replay belongs to the program it ran on: replay the same events on the new one.
  const bool replayed = timeline_.dropReplay();
  notify([](Viewer* v) { v->programChanged(); });
  if (replayed) notify([](Viewer* v) { v->stepChanged(); });
  if (prog) {
    evaluate();
    analyze();
    if (replayed) startReplay();
  }
}

void Session::setInputDomain(const std::string& name, const Domain& domain) {
  const auto text = doc_.rewriteDomain(name, domain);
  if (!text) return;
  emit sourceRewritten(*text);
  compileNow();
}

void Session::setCompileDirectives(const CompileDirectives& d) {
  const auto text = doc_.rewriteCompileDirectives(d);
  if (!text) return;
  emit sourceRewritten(*text);
  compileNow();
}

void Session::setCaseValue(const std::string& name, double value) {
  cases_.setValue(name, value, doc_.program().get());
  reportCaseSave();
  evaluate();
}

void Session::setCase(const Case& c) {
  cases_.setValues(c, doc_.program().get());
  reportCaseSave();
  evaluate();
}

void Session::setParameterValue(const std::string& name, double value) {
  if (!cases_.setParameter(name, value, doc_.program().get())) return;
  reportCaseSave();
  evaluate();
}

void Session::setFilePath(const QString& path) {
  doc_.setPath(path);
  cases_.setBookPath(casesPath());  // the named cases follow the file (Save As)
}

QString Session::casesPath() const {
  return doc_.path().isEmpty() ? QString() : doc_.path() + QStringLiteral(".cases.json");
}

void Session::loadCaseBook() {
  QString problem;
  cases_.loadBook(casesPath(), &problem);
  if (!problem.isEmpty()) emit message(problem);
  emit casesChanged();
}

void Session::reportCaseSave() {
  // Nothing is written here: the cases file is saved with the document (saveCases).
  emit casesModified();
}

bool Session::saveCases(QString* error) {
  const bool ok = cases_.writeBook();
  if (!ok && error) *error = cases_.saveProblem();
  emit casesModified();
  return ok;
}

bool Session::addCase(const QString& name) {
  if (!cases_.add(name, doc_.program().get())) return false;
  reportCaseSave();
  emit casesChanged();
  return true;
}

bool Session::renameCase(int index, const QString& name) {
  if (!cases_.rename(index, name)) return false;
  reportCaseSave();
  emit casesChanged();
  return true;
}

void Session::switchCase(int index) {
  if (!cases_.switchTo(index, doc_.program().get())) return;
  reportCaseSave();
  emit casesChanged();
  evaluate();
}

void Session::redisplay() {
  notify([](Viewer* v) { v->resultsChanged(); });
}

void Session::setSemantics(Semantics s) {
  if (cases_.setSemantics(s)) evaluate();
}

void Session::setTemperature(double t) {
  if (cases_.setTemperature(t)) evaluate();
}

void Session::setOutputIndex(int i) {
  if (cases_.setOutputIndex(i)) evaluate();
}

void Session::run() { evaluate(); }

void Session::evaluate() {
  auto program = doc_.program();
  if (!program) return;
  const Case c = cases_.current();
  const Case params = cases_.parameterValues();
  // Intervals follow the parameters however they changed (the Inputs table, a named case).
  if (params != analyzed_params_) analyze();
  const Semantics sem = cases_.semantics();
  const double temp = cases_.temperature();
  const std::size_t out = static_cast<std::size_t>(std::max(0, cases_.outputIndex()));
  // The state the case runs against is the timeline's (a restored snapshot's,
  // the replay's start), so the circuit, Inspector and Outputs agree with it.
  const Case state = timeline_.caseState();
  auto engine = doc_.programSession();
  worker_->post(QStringLiteral("run"), [this, program, engine, c, params, sem, temp, out, state](JobControl&) -> EngineWorker::Deliver {
    struct Pack {
      RunResult exact, chosen;
      NodeGradients gexact, gchosen;
    };
    auto p = std::make_shared<Pack>();
    p->exact = run_case(*engine, c, Semantics::Exact, program->temperature, state, params);
    fill_known_values(*program, params, p->exact.trace.values);
    p->chosen = sem == Semantics::Relaxed ? run_case(*engine, c, sem, temp, state, params) : p->exact;
    if (!program->outputs.empty() && out < program->outputs.size()) {
      p->gexact = node_gradients(*program, c, out, Semantics::Exact, temp, params, state);
      p->gchosen = node_gradients(*program, c, out, sem, temp, params, state);
    }
    return [this, p, program] {
      if (program != doc_.program()) return;
      cases_.setResults(std::move(p->exact), std::move(p->chosen), std::move(p->gexact), std::move(p->gchosen));
      notify([](Viewer* v) { v->resultsChanged(); });
      emit evaluated();
    };
  });
}

void Session::analyze() {
  auto program = doc_.program();
  // The parameters on screen, not the stored ones (issue 38 item 2).
  const Case params = cases_.parameterValues();
  analyzed_params_ = params;
  auto program_session = doc_.programSession();
  worker_->post(QStringLiteral("analyze"), [this, program, program_session, params](JobControl&) -> EngineWorker::Deliver {
    auto a = std::make_shared<Analysis>(program_session ? analyze_program(*program_session, params) : Analysis{});
    return [this, a, program] {
      if (program != doc_.program()) return;
      analysis_ = std::move(*a);
      notify([](Viewer* v) { v->resultsChanged(); });
    };
  });
}

void Session::select(NodeId id) {
  const auto program = doc_.program();
  if (program && (id < -1 || id >= static_cast<NodeId>(program->nodes.size()))) return;
  if (id == selected_) return;
  selected_ = id;
  notify([](Viewer* v) { v->selectionChanged(); });
}

void Session::selectAndCentre(NodeId id) {
  select(id);
  if (id == selected_) emit centreRequested();
}

void Session::showInSource(NodeId id) {
  const auto p = doc_.program();
  if (!p || id < 0 || static_cast<std::size_t>(id) >= p->nodes.size()) return;
  select(id);
  const auto& loc = p->nodes[static_cast<std::size_t>(id)].location;
  if (loc && loc->valid()) emit sourceRequested(loc->line, loc->column);
}

void Session::highlightLine(int line) {
  caret_line_ = line;
  refreshHighlight();
}

void Session::refreshHighlight() {
  // While the source is out of date (edited since, or not compiling), its
  // line numbers no longer match the circuit's.
  auto ids = !doc_.upToDate() || caret_line_ < 1 ? std::vector<NodeId>{} : doc_.nodesOnLine(caret_line_);
  if (ids == highlighted_) return;
  highlighted_ = std::move(ids);
  notify([](Viewer* v) { v->selectionChanged(); });
}

bool Session::loadEvents(const QString& path, QString* error) {
  if (!doc_.program()) {
    if (error) *error = tr("compile or open a program first");
    return false;
  }
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) {
    if (error) *error = tr("cannot open %1: %2").arg(path, f.errorString());
    return false;
  }
  timeline_.openLog(path, f.readAll().toStdString());
  startReplay();
  return true;
}

void Session::startReplay() {
  auto program = doc_.program();
  const std::string origin = timeline_.origin();
  const std::string text = timeline_.logText();
  const std::string name = timeline_.logName();
  worker_->post(QStringLiteral("replay"), [this, program, origin, text, name](JobControl& ctl) -> EngineWorker::Deliver {
    auto r = std::make_shared<Replay>(replay_events(*program, origin, text, name, &ctl));
    return [this, r, program] {
      if (program != doc_.program()) return;
      timeline_.setReplay(std::move(*r), 0);
      notify([](Viewer* v) { v->stepChanged(); });
      notify([](Viewer* v) { v->resultsChanged(); });
      evaluate();  // the case runs against the replay's starting state
      const Replay& replay = timeline_.replay();
      if (replay.error) emit message(QString::fromStdString(replay.error->format()));
      else
        emit message(tr("event log loaded: %n step(s), paused at step %1", nullptr, static_cast<int>(replay.steps.size()))
                         .arg(timeline_.snapshotBase()));
    };
  });
}

void Session::setStep(int step) {
  if (!timeline_.setStep(step)) return;
  notify([](Viewer* v) { v->stepChanged(); });
  notify([](Viewer* v) { v->resultsChanged(); });
}

bool Session::saveSnapshot(const QString& path, QString* error) {
  auto program = doc_.program();
  if (!program) {
    if (error) *error = tr("no program to snapshot");
    return false;
  }
  // The timeline's step (none without a replay: the program's initial state); core's runtime writes the snapshot.
  const std::optional<SnapshotPoint> at = timeline_.snapshotPoint();
  const std::string file = path.toStdString();
  // Written on the worker; the answer comes back as a signal (no nested event loop).
  static quint64 counter = 0;
  worker_->post(QStringLiteral("save-snapshot-%1").arg(++counter), [this, program, at, file, path](JobControl&) -> EngineWorker::Deliver {
    auto st = std::make_shared<Status>(ok_status());
    auto text = snapshot_text(*program, at);
    *st = text.ok() ? write_file_atomic(file, *text) : Status(text.error());
    return [this, st, path] {
      if (st->ok()) {
        emit snapshotSaved(path);
        emit message(tr("snapshot saved: %1").arg(path));
      } else {
        emit failed(tr("Save snapshot"), QString::fromStdString(st->error().format()));
      }
    };
  });
  return true;
}

bool Session::restoreSnapshot(const QString& path, QString* error) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) {
    if (error) *error = tr("cannot open %1: %2").arg(path, f.errorString());
    return false;
  }
  const std::string text = f.readAll().toStdString();
  // The open log and how far it reaches, to place the snapshot on it.
  struct Log {
    bool open = false;
    std::string events, name;
    Replay replay;
  };
  auto log = std::make_shared<Log>();
  log->open = timeline_.hasReplay() && timeline_.logOpen();
  if (log->open) {
    log->events = timeline_.logText();
    log->name = timeline_.logName();
    log->replay = timeline_.replay();
  }
  auto program = doc_.program();
  const QString file = QFileInfo(path).fileName();
  worker_->post(QStringLiteral("replay"), [this, program, text, log, file](JobControl& ctl) -> EngineWorker::Deliver {
    struct Out {
      std::optional<Diagnostic> error;
      std::shared_ptr<const Program> program;
      Replay replay;
      std::uint64_t steps = 0;
      bool on_log = false;
      int step = 0;
    };
    auto out = std::make_shared<Out>();
    auto info = snapshot_info(text);
    if (!info.ok()) {
      out->error = info.error();
    } else if (program && info->program->nodes.size() != program->nodes.size()) {
      out->error = make_error("the snapshot belongs to a different circuit (" + std::to_string(info->program->nodes.size()) +
                              " nodes, this one has " + std::to_string(program->nodes.size()) + ")");
    } else {
      out->program = program ? program : info->program;
      out->steps = info->steps;
      const std::uint64_t base = log->replay.base_steps;
      const std::uint64_t n = log->replay.steps.size();
      if (log->open && info->steps >= base && info->steps <= base + n) {
        // Taken on this log: keep the steps before it, replay the rest from its state.
        const auto skip = static_cast<std::size_t>(info->steps - base);
        out->replay = Timeline::placeOnLog(log->replay, skip,
                                           replay_events(*out->program, text, log->events, log->name, &ctl, skip));
        out->on_log = true;
        out->step = static_cast<int>(skip);
      } else {
        out->replay = replay_events(*out->program, text, std::string(), std::string(), &ctl);
        if (out->replay.error) out->error = out->replay.error;
      }
    }
    return [this, out, program, log, file, text] {
      if (out->error) {
        const QString msg = QString::fromStdString(out->error->format());
        emit message(msg);
        emit failed(tr("Restore snapshot"), msg);
        return;
      }
      if (program != doc_.program()) {
        if (program) return;  // the program changed meanwhile: the snapshot was checked against the old one
        setProgram(out->program);
      }
      timeline_.setReplay(std::move(out->replay), out->step);
      // A state off the open log (or with no log): it becomes the origin of a log opened next.
      if (!out->on_log) timeline_.restoreOffLog(text);
      notify([](Viewer* v) { v->stepChanged(); });
      notify([](Viewer* v) { v->resultsChanged(); });
      evaluate();  // the case now runs against the snapshot's state
      if (out->on_log) {
        emit message(tr("snapshot %1 restored at step %2 of the event log; the steps after it replay from its state")
                         .arg(file)
                         .arg(out->steps));
      } else if (log->open) {
        emit message(tr("snapshot %1 (step %2) is not on the open event log (steps %3 to %4): the log was closed")
                         .arg(file)
                         .arg(out->steps)
                         .arg(log->replay.base_steps)
                         .arg(log->replay.base_steps + log->replay.steps.size()));
      } else {
        emit message(tr("snapshot %1 restored at step %2").arg(file).arg(out->steps));
      }
    };
  });
  return true;
}

}  // namespace views
}  // namespace tc
