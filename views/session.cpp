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
  log_origin_.clear();
  events_path_.clear();
  events_text_.clear();
  events_name_.clear();
  selected_ = -1;
  highlighted_.clear();
  compile_failed_ = false;
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
    loadCaseBook();
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
          emit failed(tr("Open"), tr("cannot load %1: %2").arg(path_, QString::fromStdString(error->format())));
          return;
        }
        Case c;
        inputs_.clear();
        for (NodeId id : program->nodes_of(Op::Input)) {
          const Node& n = program->nodes[static_cast<std::size_t>(id)];
          const Domain d = n.domain.value_or(Domain::float64());
          inputs_.push_back({n.name, d, true});
          auto it = case_.find(n.name);  // from the saved case, if any
          c[n.name] = it != case_.end() && !d.check(it->second) ? it->second : std::clamp(0.0, d.lo(), d.hi());
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
  params_.clear();
  loadCaseBook();
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
  params_.clear();
  book_ = {};
  book_.cases.push_back({"default", {}, {}});
  has_replay_ = false;
  replay_ = {};
  step_ = 0;
  log_origin_.clear();
  events_path_.clear();
  events_text_.clear();
  events_name_.clear();
  selected_ = -1;
  compile_failed_ = false;
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
  const QString requested = source_;
  worker_->post(QStringLiteral("compile"), [this, src, file, fn, requested](JobControl&) -> EngineWorker::Deliver {
    auto result = std::make_shared<CompileResult>(compile_source(src, file, fn));
    std::vector<int> layers;
    if (result->program) layers = schedule_layers(*result->program);
    return [this, result, requested, layers = std::move(layers)]() mutable {
      ++compile_count_;
      diagnostics_ = result->diagnostics;
      compile_ms_ = result->milliseconds;
      compiled_source_ = requested;
      compile_failed_ = !result->program;
      if (result->program) {
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
        // Values of parameters that disappeared stay in the case, so they come
        // back when the parameter does (an edit that renames and renames back).
        for (const auto& [k, v] : case_) c.emplace(k, v);
        case_ = c;
        layers_ = std::move(layers);
        setProgram(result->program);
      } else {
        // A transient error: keep the last good program, its inputs, domains,
        // values and selection; the problems list says what is wrong now and
        // the views mark themselves out of date.
        if (functions_.empty()) functions_ = result->functions;
        notify([](Viewer* v) { v->resultsChanged(); });
      }
      emit compiled();
      emit message(result->program ? tr("compiled in %1 ms, %2 nodes").arg(compile_ms_, 0, 'f', 1).arg(program_->nodes.size())
                                   : tr("compile failed: %n problem(s)", nullptr, static_cast<int>(diagnostics_.size())));
    };
  });
}

QString Session::outOfDateReason() const {
  if (upToDate()) return {};
  if (!program_ && !compile_failed_) return tr("nothing is compiled yet");
  if (compile_failed_) {
    for (const auto& d : diagnostics_)
      if (d.severity == Severity::Error)
        return tr("the source does not compile (%1); the circuit shown is the last one that compiled")
            .arg(QString::fromStdString(d.format()));
    return tr("the source does not compile; the circuit shown is the last one that compiled");
  }
  return tr("the source changed since the last compile; compile it first (Ctrl+B)");
}

void Session::setProgram(std::shared_ptr<const Program> program) {
  program_ = std::move(program);
  parameter_names_.clear();
  if (program_) {
    // Parameters start at their stored values; values the user set are kept.
    Case p;
    for (NodeId id : program_->nodes_of(Op::Parameter)) {
      const Node& n = program_->nodes[static_cast<std::size_t>(id)];
      parameter_names_.push_back(n.name);
      auto it = params_.find(n.name);
      p[n.name] = it != params_.end() ? it->second : n.value;
    }
    params_ = std::move(p);
  }
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
    if (replayed) startReplay();
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
  storeCurrentCase();
  evaluate();
}

void Session::setCase(const Case& c) {
  for (const auto& [k, v] : c) case_[k] = v;
  storeCurrentCase();
  evaluate();
}

void Session::setParameterValue(const std::string& name, double value) {
  if (!params_.count(name) || !std::isfinite(value)) return;
  params_[name] = value;
  storeCurrentCase();
  evaluate();
}

QString Session::casesPath() const { return path_.isEmpty() ? QString() : path_ + QStringLiteral(".cases.json"); }

QStringList Session::caseNames() const {
  QStringList names;
  for (const auto& c : book_.cases) names << QString::fromStdString(c.name);
  return names;
}

void Session::loadCaseBook() {
  book_ = {};
  case_.clear();
  params_.clear();
  const QString file = casesPath();
  if (!file.isEmpty() && QFile::exists(file)) {
    auto text = read_file(file.toStdString());
    auto book = text.ok() ? parse_case_book(*text) : Result<CaseBook>(text.error());
    if (book.ok()) {
      book_ = std::move(*book);
      case_ = book_.cases[book_.current].inputs;
      params_ = book_.cases[book_.current].params;
    } else {
      emit message(tr("ignored %1: %2").arg(file, QString::fromStdString(book.error().message)));
    }
  }
  if (book_.cases.empty()) book_.cases.push_back({"default", {}, {}});
  emit casesChanged();
}

void Session::saveCaseBook() {
  const QString file = casesPath();
  // Only a file that has several cases (or had a case file) is worth a file beside it.
  if (file.isEmpty() || (book_.cases.size() < 2 && !QFile::exists(file))) return;
  auto st = write_file_atomic(file.toStdString(), case_book_json(book_));
  if (!st.ok()) emit message(QString::fromStdString(st.error().format()));
}

void Session::storeCurrentCase() {
  if (book_.cases.empty()) book_.cases.push_back({"default", {}, {}});
  auto& c = book_.cases[book_.current];
  c.inputs = case_;
  c.params.clear();
  // Only parameters moved away from their stored values belong to the case.
  if (program_)
    for (NodeId id : program_->nodes_of(Op::Parameter)) {
      const Node& n = program_->nodes[static_cast<std::size_t>(id)];
      auto it = params_.find(n.name);
      if (it != params_.end() && it->second != n.value) c.params[n.name] = it->second;
    }
  saveCaseBook();
}

bool Session::addCase(const QString& name) {
  const std::string n = name.trimmed().toStdString();
  if (n.empty()) return false;
  for (const auto& c : book_.cases)
    if (c.name == n) return false;
  storeCurrentCase();
  book_.cases.push_back({n, case_, book_.cases[book_.current].params});
  book_.current = book_.cases.size() - 1;
  saveCaseBook();
  emit casesChanged();
  return true;
}

bool Session::renameCase(int index, const QString& name) {
  const std::string n = name.trimmed().toStdString();
  if (n.empty() || index < 0 || index >= static_cast<int>(book_.cases.size())) return false;
  for (std::size_t i = 0; i < book_.cases.size(); ++i)
    if (book_.cases[i].name == n && static_cast<int>(i) != index) return false;
  book_.cases[static_cast<std::size_t>(index)].name = n;
  saveCaseBook();
  emit casesChanged();
  return true;
}

void Session::switchCase(int index) {
  if (index < 0 || index >= static_cast<int>(book_.cases.size()) || static_cast<std::size_t>(index) == book_.current) return;
  storeCurrentCase();
  book_.current = static_cast<std::size_t>(index);
  const auto& c = book_.cases[book_.current];
  for (const auto& [k, v] : c.inputs) case_[k] = v;
  for (auto& [k, v] : params_) {
    auto it = c.params.find(k);
    if (it != c.params.end()) v = it->second;
    else if (program_)
      if (auto id = program_->find_named(Op::Parameter, k)) v = program_->nodes[static_cast<std::size_t>(*id)].value;
  }
  saveCaseBook();
  emit casesChanged();
  evaluate();
}

void Session::redisplay() {
  notify([](Viewer* v) { v->resultsChanged(); });
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
  const Case params = params_;
  const Semantics sem = semantics_;
  const double temp = temperature_;
  const std::size_t out = static_cast<std::size_t>(std::max(0, output_index_));
  worker_->post(QStringLiteral("run"), [this, program, c, params, sem, temp, out](JobControl&) -> EngineWorker::Deliver {
    struct Pack {
      RunResult exact, chosen;
      NodeGradients gexact, gchosen;
    };
    auto p = std::make_shared<Pack>();
    p->exact = run_case(*program, c, Semantics::Exact, program->temperature, {}, params);
    p->chosen = sem == Semantics::Relaxed ? run_case(*program, c, sem, temp, {}, params) : p->exact;
    if (!program->outputs.empty() && out < program->outputs.size()) {
      p->gexact = node_gradients(*program, c, out, Semantics::Exact, temp, params);
      p->gchosen = node_gradients(*program, c, out, sem, temp, params);
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

Diagnostics Session::caseProblems() const {
  Diagnostics out;
  const auto& g = chosen_grad_;
  if (!program_ || !g.error || !g.available) return out;
  Diagnostic d = *g.error;
  d.severity = Severity::Warning;
  d.message = "the " + std::string(to_string(semantics_)) + " gradient cannot be computed: " + d.message;
  if (g.failed_select >= 0) {
    const Node& s = program_->nodes[static_cast<std::size_t>(g.failed_select)];
    if (s.location) d.loc = s.location;  // the jump is the select's: point at it
    d.message += "; jump term " + jumpTermText(g.failed_select).toStdString();
  }
  out.push_back(d);
  return out;
}

QString Session::jumpTermText(NodeId select) const {
  if (!program_ || select < 0 || static_cast<std::size_t>(select) >= program_->nodes.size()) return {};
  const Node& n = program_->nodes[static_cast<std::size_t>(select)];
  if (n.op != Op::Select || n.args.size() != 3) return {};
  const auto& vals = exact_run_.trace.values;
  const auto& br = exact_run_.trace.branch;
  const auto i = static_cast<std::size_t>(select);
  const int taken = i < br.size() ? br[i] : -1;
  auto value = [&](int k) {
    const auto a = static_cast<std::size_t>(n.args[static_cast<std::size_t>(k)]);
    const bool is_taken = (k == 1 && taken == 1) || (k == 2 && taken == 0);
    const bool failed = chosen_grad_.failed_select == select && !is_taken;
    QString v = a < vals.size() && !std::isnan(vals[a]) ? QString::fromStdString(format_number(vals[a]))
                : failed                                ? tr("undefined")
                                                        : tr("not computed");
    return tr("%%1 = %2%3").arg(n.args[static_cast<std::size_t>(k)]).arg(v, is_taken ? tr(" (taken)") : tr(" (not taken)"));
  };
  return tr("(yes - no) * surrogate'(%%1): yes %2, no %3").arg(n.args[0]).arg(value(1), value(2));
}

void Session::select(NodeId id) {
  if (program_ && (id < -1 || id >= static_cast<NodeId>(program_->nodes.size()))) return;
  if (id == selected_) return;
  selected_ = id;
  notify([](Viewer* v) { v->selectionChanged(); });
}

void Session::selectAndCentre(NodeId id) {
  select(id);
  if (id == selected_) emit centreRequested();
}

void Session::highlightLine(int line) {
  // While the source does not compile, its line numbers no longer match the circuit's.
  auto ids = compile_failed_ ? std::vector<NodeId>{} : nodesOnLine(line);
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
  events_text_ = f.readAll().toStdString();
  events_name_ = QFileInfo(path).fileName().toStdString();
  startReplay();
  return true;
}

void Session::startReplay() {
  auto program = program_;
  const std::string origin = log_origin_;
  const std::string text = events_text_;
  const std::string name = events_name_;
  worker_->post(QStringLiteral("replay"), [this, program, origin, text, name](JobControl& ctl) -> EngineWorker::Deliver {
    auto r = std::make_shared<Replay>(replay_events(*program, origin, text, name, &ctl));
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

std::vector<double> Session::stateBeforeStep() const {
  if (step_ <= 1 || replay_.steps.empty()) return replay_.initial_state;
  return replay_.steps[static_cast<std::size_t>(step_ - 2)].state;
}

Case Session::displayCase() const {
  if (showingStep()) return replay_.steps[static_cast<std::size_t>(step_ - 1)].inputs;
  return case_;
}

const std::vector<double>& Session::displayOutputs() const {
  if (showingStep()) return replay_.steps[static_cast<std::size_t>(step_ - 1)].outputs;
  return exact_run_.outputs;
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

bool Session::saveSnapshot(const QString& path, QString* error) {
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
  // Written on the worker; the answer comes back as a signal (no nested event loop).
  static quint64 counter = 0;
  worker_->post(QStringLiteral("save-snapshot-%1").arg(++counter), [this, program, names, state, steps, max_steps, file, path](JobControl&) -> EngineWorker::Deliver {
    auto st = std::make_shared<Status>(ok_status());
    auto text = snapshot_json(*program, names, state, steps, max_steps);
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
    std::uint64_t base = 0;
    Replay replay;
  };
  auto log = std::make_shared<Log>();
  log->open = has_replay_ && !events_text_.empty();
  if (log->open) {
    log->events = events_text_;
    log->name = events_name_;
    log->base = replay_.base_steps;
    log->replay = replay_;
  }
  auto program = program_;
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
      const std::uint64_t n = log->replay.steps.size();
      if (log->open && info->steps >= log->base && info->steps <= log->base + n) {
        // Taken on this log: keep the steps before it, replay the rest from its state.
        const auto skip = static_cast<std::size_t>(info->steps - log->base);
        Replay tail = replay_events(*out->program, text, log->events, log->name, &ctl, skip);
        Replay& r = out->replay;
        r.state_names = tail.state_names;
        r.initial_state = log->replay.initial_state;
        r.base_steps = log->base;
        r.max_steps = tail.max_steps;
        r.steps.assign(log->replay.steps.begin(), log->replay.steps.begin() + static_cast<std::ptrdiff_t>(skip));
        for (auto& s : tail.steps) r.steps.push_back(std::move(s));
        r.error = tail.error;
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
      if (program != program_) {
        if (program) return;  // the program changed meanwhile: the snapshot was checked against the old one
        setProgram(out->program);
      }
      replay_ = std::move(out->replay);
      has_replay_ = true;
      step_ = out->step;
      if (!out->on_log) {
        // A state off the open log (or with no log): it becomes the origin of a log opened next.
        log_origin_ = text;
        events_path_.clear();
        events_text_.clear();
        events_name_.clear();
      }
      notify([](Viewer* v) { v->stepChanged(); });
      notify([](Viewer* v) { v->resultsChanged(); });
      if (out->on_log) {
        emit message(tr("snapshot %1 restored at step %2 of the event log; the steps after it replay from its state")
                         .arg(file)
                         .arg(out->steps));
      } else if (log->open) {
        emit message(tr("snapshot %1 (step %2) is not on the open event log (steps %3 to %4): the log was closed")
                         .arg(file)
                         .arg(out->steps)
                         .arg(log->base)
                         .arg(log->base + log->replay.steps.size()));
      } else {
        emit message(tr("snapshot %1 restored at step %2").arg(file).arg(out->steps));
      }
    };
  });
  return true;
}

}  // namespace views
}  // namespace tc
