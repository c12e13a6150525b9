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
  /// Per-node values to show: the timeline step's when a replay is loaded, else the current case's.
  [[nodiscard]] const std::vector<double>& displayValues() const;

  // --- selection ----------------------------------------------------------
  [[nodiscard]] NodeId selected() const { return selected_; }
  void select(NodeId id);
  [[nodiscard]] const std::vector<NodeId>& highlighted() const { return highlighted_; }
  /// Highlights the nodes whose source starts on `line` (editor cursor moved).
  void highlightLine(int line);

  // --- timeline -----------------------------------------------------------
  bool loadEvents(const QString& path, QString* error);
  [[nodiscard]] const Replay& replay() const { return replay_; }
  [[nodiscard]] bool hasReplay() const { return has_replay_; }
  [[nodiscard]] int step() const { return step_; }
  void setStep(int step);
  /// State after the current step (the initial state at step 0), Program::updates order.
  [[nodiscard]] std::vector<double> stateAtStep() const;
  /// First step after the current one where node `id`'s value differs from the step before; -1 if none.
  [[nodiscard]] int nextChange(NodeId id) const;
  bool saveSnapshot(const QString& path, QString* error) const;
  bool restoreSnapshot(const QString& path, QString* error);
  /// Steps consumed before the replay's first event (from a restored snapshot).
  [[nodiscard]] int snapshotBase() const { return static_cast<int>(replay_.base_steps); }

 signals:
  void documentChanged();                 ///< a file was opened or a new document started
  void sourceRewritten(const QString& text);  ///< the session changed the source (directives)
  void compiled();                        ///< a compile finished (ok or not)
  void evaluated();                       ///< a run finished
  void message(const QString& text);      ///< status bar text

 private:
  template <class F>
  void notify(F f);
  void evaluate();
  void analyze();
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
  int compile_count_ = 0;
  std::vector<InputSpec> inputs_;
  std::vector<FunctionSignature> functions_;

  Case case_;
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
  std::string snapshot_text_;  // restored snapshot the next replay starts from
  QString events_path_;
};

}  // namespace views
}  // namespace tc
