#include "views/session.h"

#include <QFile>
#include <QFileInfo>

#include <chrono>
#include <cmath>

#include "base/atomic_file.h"
#include "ir/artifact.h"
#include "runtime/runtime.h"

namespace tc {
namespace views {

Session::Session(QObject* parent) : QObject(parent), worker_(new EngineWorker(this)) {
  debounce_.setSingleShot(true);
  debounce_.setInterval(350);
  connect(&debounce_, &QTimer::timeout, this, &Session::compileNow);
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
  has_replay_ = false;
  replay_ = {};
  step_ = 0;
  snapshot_text_.clear();
  events_path_.clear();
  selected_ = -1;
  highlighted_.clear();
  if (path.endsWith(QLatin1String(".json"), Qt::CaseInsensitive)) {
    // Parsing and validating a large artifact takes a while: off the GUI thread.
    path_ = path;
    read_only_ = true;
    source_.clear();
    function_.clear();
    functions_.clear();
    diagnostics_.clear();
    inputs_.clear();
    compile_ms_ = 0;
    emit documentChanged();
    const std::string text = bytes.toStdString();
    const std::string name = QFileInfo(path).fileName().toStdString();
    worker_->post(QStringLiteral("compile"), [this, text, name](JobControl&) -> EngineWorker::Deliver {
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
      return [this, program, layers = std::move(layers), error, ms]() mutable {
        ++compile_count_;
        compile_ms_ = ms;
        if (error) {
          diagnostics_ = {*error};
          emit compiled();
          emit message(QString::fromStdString(error->format()));
          return;
        }
        Case c;
        inputs_.clear();
        for (NodeId id : program->nodes_of(Op::Input)) {
          const Node& n = program->nodes[static_cast<std::size_t>(id)];
          const Domain d = n.domain.value_or(Domain::float64());
          inputs_.push_back({n.name, d, true});
          c[n.name] = std::clamp(0.0, d.lo(), d.hi());
        }
        case_ = c;
        layers_ = std::move(layers);
        setProgram(program);
        emit compiled();
        emit message(tr("loaded in %1 ms, %2 nodes").arg(compile_ms_, 0, 'f', 1).arg(program_->nodes.size()));
      };
    });
    return true;
  }
  path_ = path;
  read_only_ = false;
  function_.clear();
  case_.clear();
  source_ = QString::fromUtf8(bytes);
  emit documentChanged();
  compileNow();
  return true;
}

void Session::newDocument(const QString& text) {
  path_.clear();
  read_only_ = false;
  function_.clear();
  case_.clear();
  has_replay_ = false;
  replay_ = {};
  step_ = 0;
  snapshot_text_.clear();
  events_path_.clear();
  selected_ = -1;
  source_ = text;
  emit documentChanged();
  compileNow();
}

void Session::setSource(const QString& text) {
  if (read_only_ || text == source_) return;
  source_ = text;
  debounce_.start();
}

void Session::setFunction(const QString& name) {
  if (name == function_) return;
  function_ = name;
  compileNow();
}

void Session::compileNow() {
  debounce_.stop();
  if (read_only_) return;
  const std::string src = source_.toStdString();
  const std::string file = path_.isEmpty() ? std::string("untitled.py") : QFileInfo(path_).fileName().toStdString();
  const std::string fn = function_.toStdString();
  worker_->post(QStringLiteral("compile"), [this, src, file, fn](JobControl&) -> EngineWorker::Deliver {
    auto result = std::make_shared<CompileResult>(compile_source(src, file, fn));
    std::vector<int> layers;
    if (result->program) layers = schedule_layers(*result->program);
    return [this, result, layers = std::move(layers)]() mutable {
      ++compile_count_;
      diagnostics_ = result->diagnostics;
      compile_ms_ = result->milliseconds;
      functions_ = result->functions;
      function_ = QString::fromStdString(result->function);
      inputs_ = result->inputs;
      // Keep values the user set; new parameters start at zero (clamped into the domain).
      Case c;
      for (const auto& in : inputs_) {
        auto it = case_.find(in.name);
        double v = it != case_.end() ? it->second : 0.0;
        if (in.domain.check(v)) v = std::clamp(in.domain.is_integral() ? std::round(v) : v, in.domain.lo(), in.domain.hi());
        c[in.name] = v;
      }
      case_ = c;
      if (result->program) {
        layers_ = std::move(layers);
        setProgram(result->program);
      } else {
        // Keep showing the last good program; the problems list says what is wrong now.
        notify([](Viewer* v) { v->resultsChanged(); });
      }
      emit compiled();
      emit message(result->program ? tr("compiled in %1 ms, %2 nodes").arg(compile_ms_, 0, 'f', 1).arg(program_->nodes.size())
                                   : tr("compile failed: %n problem(s)", nullptr, static_cast<int>(diagnostics_.size())));
    };
  });
}

void Session::setProgram(std::shared_ptr<const Program> program) {
  program_ = std::move(program);
  if (program_ && layers_.size() != program_->nodes.size()) layers_ = schedule_layers(*program_);
  if (!program_) layers_.clear();
  if (program_ && selected_ >= static_cast<NodeId>(program_->nodes.size())) selected_ = -1;
  highlighted_.clear();
  exact_run_ = chosen_run_ = {};
  exact_grad_ = chosen_grad_ = {};
  analysis_ = {};
  if (output_index_ >= static_cast<int>(program_ ? program_->outputs.size() : 0)) output_index_ = 0;
  // A replay belongs to the program it ran on: replay the same events on the new one.
  const bool replayed = has_replay_;
  has_replay_ = false;
  replay_ = {};
  step_ = 0;
  notify([](Viewer* v) { v->programChanged(); });
  if (replayed) notify([](Viewer* v) { v->stepChanged(); });
  if (program_) {
    evaluate();
    analyze();
    if (replayed && !events_path_.isEmpty()) loadEvents(events_path_, nullptr);
  }
}

void Session::setInputDomain(const std::string& name, const Domain& domain) {
  if (read_only_) return;
  std::vector<InputSpec> specs = inputs_;
  for (auto& s : specs) {
    if (s.name == name) {
      s.domain = domain;
      s.from_directive = true;
    }
  }
  const QString text = QString::fromStdString(write_directives(source_.toStdString(), specs));
  if (text == source_) return;
  source_ = text;
  emit sourceRewritten(text);
  compileNow();
}

std::vector<NodeId> Session::nodesOnLine(int line) const {
  std::vector<NodeId> ids;
  if (!program_) return ids;
  for (const auto& n : program_->nodes) {
    if (n.location && n.location->line == line) ids.push_back(n.id);
  }
  return ids;
}

void Session::setCaseValue(const std::string& name, double value) {
  case_[name] = value;
  evaluate();
}

void Session::setCase(const Case& c) {
  for (const auto& [k, v] : c) case_[k] = v;
  evaluate();
}

void Session::setSemantics(Semantics s) {
  if (s == semantics_) return;
  semantics_ = s;
  evaluate();
}

void Session::setTemperature(double t) {
  if (!(t > 0) || !std::isfinite(t) || t == temperature_) return;
  temperature_ = t;
  evaluate();
}

void Session::setOutputIndex(int i) {
  if (i == output_index_) return;
  output_index_ = i;
  evaluate();
}

void Session::run() { evaluate(); }

void Session::evaluate() {
  if (!program_) return;
  auto program = program_;
  const Case c = case_;
  const Semantics sem = semantics_;
  const double temp = temperature_;
  const std::size_t out = static_cast<std::size_t>(std::max(0, output_index_));
  worker_->post(QStringLiteral("run"), [this, program, c, sem, temp, out](JobControl&) -> EngineWorker::Deliver {
    struct Pack {
      RunResult exact, chosen;
      NodeGradients gexact, gchosen;
    };
    auto p = std::make_shared<Pack>();
    p->exact = run_case(*program, c, Semantics::Exact, program->temperature);
    p->chosen = sem == Semantics::Relaxed ? run_case(*program, c, sem, temp) : p->exact;
    if (!program->outputs.empty() && out < program->outputs.size()) {
      p->gexact = node_gradients(*program, c, out, Semantics::Exact, temp);
      p->gchosen = node_gradients(*program, c, out, sem, temp);
    }
    return [this, p, program] {
      if (program != program_) return;
      exact_run_ = std::move(p->exact);
      chosen_run_ = std::move(p->chosen);
      exact_grad_ = std::move(p->gexact);
      chosen_grad_ = std::move(p->gchosen);
      ++run_count_;
      notify([](Viewer* v) { v->resultsChanged(); });
      emit evaluated();
    };
  });
}

void Session::analyze() {
  auto program = program_;
  worker_->post(QStringLiteral("analyze"), [this, program](JobControl&) -> EngineWorker::Deliver {
    auto a = std::make_shared<Analysis>(analyze_program(*program));
    return [this, a, program] {
      if (program != program_) return;
      analysis_ = std::move(*a);
      notify([](Viewer* v) { v->resultsChanged(); });
    };
  });
}

const std::vector<double>& Session::displayValues() const {
  if (has_replay_ && step_ > 0 && step_ <= static_cast<int>(replay_.steps.size())) {
    const auto& vals = replay_.steps[static_cast<std::size_t>(step_ - 1)].values;
    if (!vals.empty()) return vals;
  }
  return exact_run_.trace.values;
}

void Session::select(NodeId id) {
  if (program_ && (id < -1 || id >= static_cast<NodeId>(program_->nodes.size()))) return;
  if (id == selected_) return;
  selected_ = id;
  notify([](Viewer* v) { v->selectionChanged(); });
}

void Session::highlightLine(int line) {
  auto ids = nodesOnLine(line);
  if (ids == highlighted_) return;
  highlighted_ = std::move(ids);
  notify([](Viewer* v) { v->selectionChanged(); });
}

bool Session::loadEvents(const QString& path, QString* error) {
  if (!program_) {
    if (error) *error = tr("compile or open a program first");
    return false;
  }
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) {
    if (error) *error = tr("cannot open %1: %2").arg(path, f.errorString());
    return false;
  }
  events_path_ = path;
  const std::string text = f.readAll().toStdString();
  auto program = program_;
  const std::string snap = snapshot_text_;
  const std::string name = QFileInfo(path).fileName().toStdString();
  worker_->post(QStringLiteral("replay"), [this, program, snap, text, name](JobControl& ctl) -> EngineWorker::Deliver {
    auto r = std::make_shared<Replay>(replay_events(*program, snap, text, name, &ctl));
    return [this, r, program] {
      if (program != program_) return;
      replay_ = std::move(*r);
      has_replay_ = true;
      step_ = 0;
      notify([](Viewer* v) { v->stepChanged(); });
      notify([](Viewer* v) { v->resultsChanged(); });
      if (replay_.error) emit message(QString::fromStdString(replay_.error->format()));
      else emit message(tr("event log loaded: %n step(s), paused at step 0", nullptr, static_cast<int>(replay_.steps.size())));
    };
  });
  return true;
}

void Session::setStep(int step) {
  step = std::clamp(step, 0, static_cast<int>(replay_.steps.size()));
  if (step == step_) return;
  step_ = step;
  notify([](Viewer* v) { v->stepChanged(); });
  notify([](Viewer* v) { v->resultsChanged(); });
}

std::vector<double> Session::stateAtStep() const {
  if (step_ == 0 || replay_.steps.empty()) return replay_.initial_state;
  return replay_.steps[static_cast<std::size_t>(step_ - 1)].state;
}

int Session::nextChange(NodeId id) const {
  // Step s's values are those the event of step s computed; compare each with the step before.
  const auto& steps = replay_.steps;
  const auto i = static_cast<std::size_t>(id);
  for (int s = std::max(step_, 1) + 1; s <= static_cast<int>(steps.size()); ++s) {
    const auto& before = steps[static_cast<std::size_t>(s - 2)].values;
    const auto& after = steps[static_cast<std::size_t>(s - 1)].values;
    if (i >= before.size() || i >= after.size()) return -1;
    const double a = before[i], b = after[i];
    if (std::isnan(a) && std::isnan(b)) continue;
    if (std::isnan(a) != std::isnan(b) || a != b) return s;
  }
  return -1;
}

bool Session::saveSnapshot(const QString& path, QString* error) const {
  if (!program_) {
    if (error) *error = tr("no program to snapshot");
    return false;
  }
  std::vector<std::string> names = replay_.state_names;
  if (!has_replay_) {
    for (NodeId id : program_->nodes_of(Op::State)) names.push_back(program_->nodes[static_cast<std::size_t>(id)].name);
  }
  std::vector<double> state = stateAtStep();
  if (!has_replay_) {
    for (NodeId id : program_->nodes_of(Op::State)) state.push_back(program_->nodes[static_cast<std::size_t>(id)].value);
  }
  const std::uint64_t max_steps = replay_.max_steps ? replay_.max_steps : Runtime::kDefaultMaxSteps;
  const std::uint64_t steps = replay_.base_steps + static_cast<std::uint64_t>(step_);
  auto program = program_;
  const std::string file = path.toStdString();
  const Status st = await_on_worker<Status>(*worker_, [program, names, state, steps, max_steps, file](JobControl&) -> Status {
    auto text = snapshot_json(*program, names, state, steps, max_steps);
    if (!text.ok()) return text.error();
    return write_file_atomic(file, *text);
  });
  if (!st.ok()) {
    if (error) *error = QString::fromStdString(st.error().format());
    return false;
  }
  return true;
}

bool Session::restoreSnapshot(const QString& path, QString* error) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) {
    if (error) *error = tr("cannot open %1: %2").arg(path, f.errorString());
    return false;
  }
  const std::string text = f.readAll().toStdString();
  auto prog = await_on_worker<Result<std::shared_ptr<const Program>>>(
      *worker_, [text](JobControl&) { return snapshot_program(text); });
  if (!prog.ok()) {
    if (error) *error = QString::fromStdString(prog.error().format());
    return false;
  }
  if (program_ && (*prog)->nodes.size() != program_->nodes.size()) {
    if (error) *error = tr("the snapshot belongs to a different circuit (%1 nodes, this one has %2)")
                            .arg((*prog)->nodes.size())
                            .arg(program_->nodes.size());
    return false;
  }
  if (!program_) setProgram(*prog);
  snapshot_text_ = text;
  // Replay the open event log (if any) from the snapshot; otherwise show the snapshot at step 0.
  if (!events_path_.isEmpty()) return loadEvents(events_path_, error);
  auto program = program_;
  const std::string snap = snapshot_text_;
  replay_ = await_on_worker<Replay>(*worker_, [program, snap](JobControl& ctl) {
    return replay_events(*program, snap, std::string(), std::string(), &ctl);
  });
  has_replay_ = true;
  step_ = 0;
  notify([](Viewer* v) { v->stepChanged(); });
  emit message(tr("snapshot restored at step %1").arg(replay_.base_steps));
  return true;
}

}  // namespace views
}  // namespace tc
