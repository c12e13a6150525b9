#pragma once
// The session context (RenderDoc's ICaptureViewer shape): it owns the open
// document, the compiled program, the current case, the evaluation results,
// the selection and the timeline step. Views implement Viewer and are told
// when any of these change; they never talk to each other directly.
#include <QObject>
#include <QString>
#include <QTimer>

#include <memory>
#include <vector>

#include "views/engine.h"
#include "views/worker.h"

namespace tc {
namespace views {

/// What a view hears from the session. Every call happens on the GUI thread.
class Viewer {
 public:
  virtual ~Viewer() = default;
  virtual void programChanged() {}    ///< a new program (or none) and its layers
  virtual void resultsChanged() {}    ///< values, gradients or analysis changed
  virtual void selectionChanged() {}  ///< selected node or source-highlighted nodes
  virtual void stepChanged() {}       ///< timeline loaded or moved
};

class Session : public QObject {
  Q_OBJECT
 public:
  explicit Session(QObject* parent = nullptr);
  ~Session() override;

  EngineWorker& worker() { return *worker_; }
  void addViewer(Viewer* v);
  void removeViewer(Viewer* v);

  // --- document -----------------------------------------------------------
  /// Opens a .py source or a .json artifact (read-only). Errors go to `error`.
  bool openFile(const QString& path, QString* error);
  /// Starts an untitled source document.
  void newDocument(const QString& text);
  [[nodiscard]] const QString& filePath() const { return path_; }
  [[nodiscard]] bool readOnly() const { return read_only_; }
  [[nodiscard]] const QString& source() const { return source_; }
  /// The editor's text changed: recompile after the debounce interval.
  void setSource(const QString& text);
  /// Compile the current source now (skips the debounce).
  void compileNow();
  void setDebounceMs(int ms) { debounce_.setInterval(ms); }
  /// True while an edit waits for its debounced recompile.
  [[nodiscard]] bool compilePending() const { return debounce_.isActive(); }
  /// The last compile of the source failed: the program, values and layout
  /// shown are those of the last good compile (views grey out, exports refuse).
  [[nodiscard]] bool compileFailed() const { return !read_only_ && compile_failed_; }
  /// The program shown is compiled from the current source (always for artifacts).
  [[nodiscard]] bool upToDate() const {
    return read_only_ || (program_ && !compile_failed_ && compiled_source_ == source_);
  }
  /// Why upToDate() is false, for refusals ("" when up to date).
  [[nodiscard]] QString outOfDateReason() const;
  /// Sets the path for a later save and marks it as the document's name.
  void setFilePath(const QString& path) { path_ = path; }

  // --- compiled program ---------------------------------------------------
  [[nodiscard]] std::shared_ptr<const Program> program() const { return program_; }
  [[nodiscard]] const std::vector<int>& layers() const { return layers_; }
  [[nodiscard]] const Diagnostics& diagnostics() const { return diagnostics_; }
  [[nodiscard]] double compileMs() const { return compile_ms_; }
  [[nodiscard]] int compileCount() const { return compile_count_; }
  [[nodiscard]] const std::vector<InputSpec>& inputs() const { return inputs_; }
  [[nodiscard]] const std::vector<FunctionSignature>& functions() const { return functions_; }
  [[nodiscard]] const QString& function() const { return function_; }
  void setFunction(const QString& name);
  /// Changes a parameter's domain: rewrites the directive block of the source
  /// (emits sourceRewritten so the editor applies it as one undoable edit).
  void setInputDomain(const std::string& name, const Domain& domain);
  /// Source nodes on `line` (1-based), in id order.
  [[nodiscard]] std::vector<NodeId> nodesOnLine(int line) const;

  // --- the current case and evaluation ------------------------------------
  [[nodiscard]] const Case& currentCase() const { return case_; }
  void setCaseValue(const std::string& name, double value);
  void setCase(const Case& c);
  /// The program's parameters (stored values, editable for the session's runs), node order.
  [[nodiscard]] const std::vector<std::string>& parameters() const { return parameter_names_; }
  [[nodiscard]] const Case& parameterValues() const { return params_; }
  void setParameterValue(const std::string& name, double value);

  // --- named cases (saved beside the file as FILE.cases.json) -------------
  [[nodiscard]] QStringList caseNames() const;
  [[nodiscard]] int currentCaseIndex() const { return static_cast<int>(book_.current); }
  /// Adds a case holding the current values and switches to it (false: the name is taken or empty).
  bool addCase(const QString& name);
  bool renameCase(int index, const QString& name);
  void switchCase(int index);
  /// Where the named cases of the open file live ("" for an untitled document).
  [[nodiscard]] QString casesPath() const;
  /// Re-shows every view (after a display setting such as the number precision changed).
  void redisplay();
  [[nodiscard]] Semantics semantics() const { return semantics_; }
  void setSemantics(Semantics s);
  [[nodiscard]] double temperature() const { return temperature_; }
  void setTemperature(double t);
  [[nodiscard]] int outputIndex() const { return output_index_; }
  void setOutputIndex(int i);
  /// Re-evaluates the current case (F5).
  void run();

  [[nodiscard]] const RunResult& exactRun() const { return exact_run_; }
  [[nodiscard]] const RunResult& chosenRun() const { return chosen_run_; }
  [[nodiscard]] const NodeGradients& exactGrad() const { return exact_grad_; }
  [[nodiscard]] const NodeGradients& chosenGrad() const { return chosen_grad_; }
  [[nodiscard]] const Analysis& analysis() const { return analysis_; }
  [[nodiscard]] int runCount() const { return run_count_; }
  /// Problems of the current case shown beside the compile's: a gradient that
  /// cannot be computed (a hybrid jump term needing an undefined value).
  [[nodiscard]] Diagnostics caseProblems() const;
  /// The hybrid jump term of select `id` at the current case, as text:
  /// (yes - no) * surrogate' with both branch values, "undefined" for one that is.
  [[nodiscard]] QString jumpTermText(NodeId select) const;
  /// Per-node values to show: the timeline step's when a replay is loaded, else the current case's.
  [[nodiscard]] const std::vector<double>& displayValues() const;

  // --- selection ----------------------------------------------------------
  [[nodiscard]] NodeId selected() const { return selected_; }
  void select(NodeId id);
  /// Selects and asks the circuit view to centre the node (a click in the IR text, Go to node).
  void selectAndCentre(NodeId id);
  [[nodiscard]] const std::vector<NodeId>& highlighted() const { return highlighted_; }
  /// Highlights the nodes whose source starts on `line` (editor cursor moved).
  void highlightLine(int line);

  // --- timeline -----------------------------------------------------------
  bool loadEvents(const QString& path, QString* error);
  [[nodiscard]] const Replay& replay() const { return replay_; }
  [[nodiscard]] bool hasReplay() const { return has_replay_; }
  [[nodiscard]] int step() const { return step_; }
  void setStep(int step);
  /// State committed by the current step (the initial state at step 0), Replay::state_names order.
  [[nodiscard]] std::vector<double> stateAtStep() const;
  /// State the current step's event saw (the state before it; the initial state at step 0).
  [[nodiscard]] std::vector<double> stateBeforeStep() const;
  /// True when a replay is loaded and a step after 0 is shown: views show that step's case.
  [[nodiscard]] bool showingStep() const { return has_replay_ && step_ > 0 && step_ <= static_cast<int>(replay_.steps.size()); }
  /// The inputs and outputs to show: the current step's event when showingStep(), else the current case's run.
  [[nodiscard]] Case displayCase() const;
  [[nodiscard]] const std::vector<double>& displayOutputs() const;
  /// First step after the current one where node `id`'s value differs from the step before; -1 if none.
  [[nodiscard]] int nextChange(NodeId id) const;
  /// Writes the state at the current step as a snapshot, on the worker.
  /// False (with `error`) only when there is nothing to save; the outcome
  /// arrives as snapshotSaved() or failed().
  bool saveSnapshot(const QString& path, QString* error);
  /// Restores a snapshot. Taken at a step of the open event log, it puts the
  /// timeline at that step of the same log (the steps before it are kept, the
  /// events after it are replayed from the snapshot's state, none twice);
  /// otherwise the timeline shows the snapshot's state alone. Asynchronous:
  /// false only when the file cannot be read; later errors arrive as failed().
  bool restoreSnapshot(const QString& path, QString* error);
  /// Steps consumed before the replay's first event (from a restored snapshot).
  [[nodiscard]] int snapshotBase() const { return static_cast<int>(replay_.base_steps); }

 signals:
  void documentChanged();                 ///< a file was opened or a new document started
  void sourceRewritten(const QString& text);  ///< the session changed the source (directives)
  void compiled();                        ///< a compile finished (ok or not)
  void evaluated();                       ///< a run finished
  void casesChanged();
  void centreRequested();
  void snapshotSaved(const QString& path);  ///< saveSnapshot finished writing                 ///< selectAndCentre: the circuit view centres the selection                    ///< the named cases or the current one changed
  void message(const QString& text);      ///< status bar text
  void failed(const QString& title, const QString& text);  ///< an asynchronous request failed (shown as a warning)

 private:
  template <class F>
  void notify(F f);
  void evaluate();
  void analyze();
  void startReplay();
  void setProgram(std::shared_ptr<const Program> program);

  EngineWorker* worker_;
  std::vector<Viewer*> viewers_;
  QTimer debounce_;
  QString path_;
  QString source_;
  bool read_only_ = false;
  QString function_;

  std::shared_ptr<const Program> program_;
  std::vector<int> layers_;
  Diagnostics diagnostics_;
  double compile_ms_ = 0.0;
  bool compile_failed_ = false;
  QString compiled_source_;  // the source text of the last compile request delivered
  int compile_count_ = 0;
  std::vector<InputSpec> inputs_;
  std::vector<FunctionSignature> functions_;

  Case case_;
  Case params_;
  std::vector<std::string> parameter_names_;
  CaseBook book_;
  void loadCaseBook();
  void saveCaseBook();
  void storeCurrentCase();
  Semantics semantics_ = Semantics::Hybrid;
  double temperature_ = 1.0;
  int output_index_ = 0;
  RunResult exact_run_, chosen_run_;
  NodeGradients exact_grad_, chosen_grad_;
  Analysis analysis_;
  int run_count_ = 0;

  NodeId selected_ = -1;
  std::vector<NodeId> highlighted_;

  Replay replay_;
  bool has_replay_ = false;
  int step_ = 0;
  std::string log_origin_;  // snapshot the event log replays from ("" = the program's initial state)
  QString events_path_;
  std::string events_text_;  // the open event log (replayed again when the program changes)
  std::string events_name_;
};

}  // namespace views
}  // namespace tc
