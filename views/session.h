#pragma once
// The session context (RenderDoc's ICaptureViewer shape). It composes three
// parts split by concern: the document (source, path, compiled program,
// out-of-date state; views/document.h), the case (inputs, parameters, named
// cases, evaluation settings and results; views/case_state.h) and the
// timeline (event log, replay, step, snapshots; views/timeline_state.h), and
// owns the selection. It posts the engine work for all of them to the worker
// and tells the views (Viewer) when anything changed; views read the parts
// through the session and never talk to each other directly.
#include <QObject>
#include <QString>
#include <QElapsedTimer>
#include <QTimer>

#include <memory>
#include <optional>
#include <vector>

#include "views/case_state.h"
#include "views/document.h"
#include "views/engine.h"
#include "views/timeline_state.h"
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

  /// The three parts the session composes (read them; change them through the session,
  /// which posts the engine work and tells the views).
  [[nodiscard]] const Document& document() const { return doc_; }
  [[nodiscard]] const CaseState& cases() const { return cases_; }
  [[nodiscard]] const Timeline& timeline() const { return timeline_; }

  // --- document (views/document.h) ------------------------------------------
  /// Opens a .py source or a .json artifact (read-only). Errors go to `error`.
  /// An artifact loads off the GUI thread and replaces the open document only
  /// once it has loaded; one that fails says why (failed()) and changes nothing.
  bool openFile(const QString& path, QString* error);
  /// Starts an untitled source document.
  void newDocument(const QString& text);
  [[nodiscard]] const QString& filePath() const { return doc_.path(); }
  [[nodiscard]] bool readOnly() const { return doc_.readOnly(); }
  [[nodiscard]] const QString& source() const { return doc_.source(); }
  /// The editor's text changed: recompile once the event loop has folded the edits (no delay by default).
  /// A compile of a keystroke that fails is shown only once typing pauses
  /// (the error grace, 350 ms after the last edit): a half-typed token does
  /// not flash the out-of-date state, while a good edit shows at once.
  void setSource(const QString& text);
  /// Compile the current source now (skips the debounce; its failure shows at once).
  void compileNow();
  void setDebounceMs(int ms) { debounce_.setInterval(ms); }
  void setErrorGraceMs(int ms) { error_grace_ms_ = ms; }
  /// True while an edit waits for its debounced recompile, or a failed compile for the end of its grace.
  [[nodiscard]] bool compilePending() const { return debounce_.isActive() || error_hold_.isActive(); }
  /// The last compile of the source failed: the program, values and layout
  /// shown are those of the last good compile (views grey out, exports refuse).
  [[nodiscard]] bool compileFailed() const { return doc_.compileFailed(); }
  /// The program shown is compiled from the current source (always for artifacts).
  [[nodiscard]] bool upToDate() const { return doc_.upToDate(); }
  /// Why upToDate() is false, for refusals ("" when up to date).
  [[nodiscard]] QString outOfDateReason() const { return doc_.outOfDateReason(); }
  /// Sets the path for a later save and marks it as the document's name.
  void setFilePath(const QString& path);

  // --- compiled program ---------------------------------------------------
  [[nodiscard]] std::shared_ptr<const Program> program() const { return doc_.program(); }
  /// The program's core session (null without a program): analyses and exports go through it.
  [[nodiscard]] std::shared_ptr<ProgramSession> programSession() const { return doc_.programSession(); }
  [[nodiscard]] const std::vector<int>& layers() const { return doc_.layers(); }
  [[nodiscard]] const Diagnostics& diagnostics() const { return doc_.diagnostics(); }
  [[nodiscard]] double compileMs() const { return doc_.compileMs(); }
  [[nodiscard]] int compileCount() const { return doc_.compileCount(); }
  [[nodiscard]] const std::vector<InputSpec>& inputs() const { return doc_.inputs(); }
  [[nodiscard]] const std::vector<FunctionSignature>& functions() const { return doc_.functions(); }
  [[nodiscard]] const QString& function() const { return doc_.function(); }
  void setFunction(const QString& name);
  /// Changes a parameter's domain: rewrites the directive block of the source
  /// (emits sourceRewritten so the editor applies it as one undoable edit).
  void setInputDomain(const std::string& name, const Domain& domain);
  /// The source's compile options (dtype, max iterations, max nodes; defaults where it gives none).
  [[nodiscard]] CompileDirectives compileDirectives() const { return doc_.compileDirectives(); }
  /// Changes the compile options: rewrites the `# tensorcode: compile` line of
  /// the source (emits sourceRewritten, one undoable edit) and recompiles.
  void setCompileDirectives(const CompileDirectives& d);
  /// Source nodes on `line` (1-based), in id order.
  [[nodiscard]] std::vector<NodeId> nodesOnLine(int line) const { return doc_.nodesOnLine(line); }

  // --- the current case and evaluation (views/case_state.h) ---------------
  [[nodiscard]] const Case& currentCase() const { return cases_.current(); }
  void setCaseValue(const std::string& name, double value);
  void setCase(const Case& c);
  /// The program's parameters (stored values, editable for the session's runs), node order.
  [[nodiscard]] const std::vector<std::string>& parameters() const { return cases_.parameters(); }
  [[nodiscard]] const Case& parameterValues() const { return cases_.parameterValues(); }
  void setParameterValue(const std::string& name, double value);

  // --- named cases (saved beside the file as FILE.cases.json) -------------
  [[nodiscard]] QStringList caseNames() const { return cases_.names(); }
  [[nodiscard]] int currentCaseIndex() const { return cases_.currentIndex(); }
  /// Adds a case holding the current values and switches to it (false: the name is taken or empty).
  bool addCase(const QString& name);
  bool renameCase(int index, const QString& name);
  void switchCase(int index);
  /// Where the named cases of the open file live ("" for an untitled document).
  [[nodiscard]] QString casesPath() const;
  /// The named cases changed and are not saved yet (part of the document's unsaved changes).
  [[nodiscard]] bool hasUnsavedCases() const { return cases_.modified(); }
  /// Writes the named cases beside the file (the document is being saved; nothing is written before).
  /// False with `error` when writing failed.
  bool saveCases(QString* error);
  /// Re-shows every view (after a display setting such as the number precision changed).
  void redisplay();
  [[nodiscard]] Semantics semantics() const { return cases_.semantics(); }
  void setSemantics(Semantics s);
  [[nodiscard]] double temperature() const { return cases_.temperature(); }
  void setTemperature(double t);
  [[nodiscard]] int outputIndex() const { return cases_.outputIndex(); }
  void setOutputIndex(int i);
  /// Re-evaluates the current case (F5).
  void run();

  [[nodiscard]] const RunResult& exactRun() const { return cases_.exactRun(); }
  [[nodiscard]] const RunResult& chosenRun() const { return cases_.chosenRun(); }
  [[nodiscard]] const NodeGradients& exactGrad() const { return cases_.exactGrad(); }
  [[nodiscard]] const NodeGradients& chosenGrad() const { return cases_.chosenGrad(); }
  [[nodiscard]] const Analysis& analysis() const { return analysis_; }
  [[nodiscard]] int runCount() const { return cases_.runCount(); }
  /// Problems of the current case shown beside the compile's: a gradient that
  /// cannot be computed (a hybrid jump term needing an undefined value).
  [[nodiscard]] Diagnostics caseProblems() const { return cases_.problems(doc_.program().get()); }
  /// The hybrid jump term of select `id` at the current case, as text:
  /// (yes - no) * surrogate' with both branch values, "undefined" for one that is.
  [[nodiscard]] QString jumpTermText(NodeId select) const { return cases_.jumpTermText(doc_.program().get(), select); }
  /// Per-node values to show: the timeline step's when a replay is loaded, else the current case's.
  [[nodiscard]] const std::vector<double>& displayValues() const { return timeline_.values(cases_.exactRun().trace.values); }

  // --- selection ----------------------------------------------------------
  [[nodiscard]] NodeId selected() const { return selected_; }
  void select(NodeId id);
  /// Selects and asks the circuit view to centre the node (a click in the IR text, Go to node).
  void selectAndCentre(NodeId id);
  [[nodiscard]] const std::vector<NodeId>& highlighted() const { return highlighted_; }
  /// Selects `id` and asks the editor to show where its source is (a context menu's Show in Source).
  void showInSource(NodeId id);
  /// Highlights the nodes whose source starts on `line` (editor cursor moved).
  void highlightLine(int line);

  // --- timeline (views/timeline_state.h) ------------------------------------
  bool loadEvents(const QString& path, QString* error);
  [[nodiscard]] const Replay& replay() const { return timeline_.replay(); }
  [[nodiscard]] bool hasReplay() const { return timeline_.hasReplay(); }
  [[nodiscard]] int step() const { return timeline_.step(); }
  void setStep(int step);
  /// State committed by the current step (the initial state at step 0), Replay::state_names order.
  [[nodiscard]] std::vector<double> stateAtStep() const { return timeline_.stateAtStep(); }
  /// State the current step's event saw (the state before it; the initial state at step 0).
  [[nodiscard]] std::vector<double> stateBeforeStep() const { return timeline_.stateBeforeStep(); }
  /// True when a replay is loaded and a step after 0 is shown: views show that step's case.
  [[nodiscard]] bool showingStep() const { return timeline_.showingStep(); }
  /// The inputs and outputs to show: the current step's event when showingStep(), else the current case's run.
  [[nodiscard]] Case displayCase() const { return timeline_.inputs(cases_.current()); }
  [[nodiscard]] const std::vector<double>& displayOutputs() const { return timeline_.outputs(cases_.exactRun().outputs); }
  /// First step after the current one where node `id`'s value differs from the step before; -1 if none.
  [[nodiscard]] int nextChange(NodeId id) const { return timeline_.nextChange(id); }
  [[nodiscard]] int previousChange(NodeId id) const { return timeline_.previousChange(id); }
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
  [[nodiscard]] int snapshotBase() const { return timeline_.snapshotBase(); }

 signals:
  void documentChanged();                     ///< a file was opened or a new document started
  /// Emitted before documentChanged when another file or a new document
  /// replaces the open one: views drop what belonged to the old one (groups
  /// opened, a comparison, Verify's reference and results, a node search).
  void documentReplaced();
  void sourceRewritten(const QString& text);  ///< the session changed the source (directives)
  void compiled();                            ///< a compile finished (ok or not)
  void evaluated();                           ///< a run finished
  void casesChanged();                        ///< the named cases or the current one changed
  void casesModified();                       ///< a case value or name changed, or the cases were saved
  void centreRequested();                     ///< selectAndCentre: the circuit view centres the selection
  void sourceRequested(int line, int column);  ///< showInSource: the editor moves there (1-based)
  void snapshotSaved(const QString& path);    ///< saveSnapshot finished writing
  void message(const QString& text);          ///< status bar text
  void failed(const QString& title, const QString& text);  ///< an asynchronous request failed (shown as a warning)

 private:
  template <class F>
  void notify(F f);
  void evaluate();
  void analyze();
  void startReplay();
  void setProgram(std::shared_ptr<const Program> program);
  void loadCaseBook();
  void reportCaseSave();
  void compile(bool typed);
  void applyCompile(const std::shared_ptr<CompileResult>& result, const QString& requested, std::vector<int> layers);
  void applyHeldCompile();
  /// Clears what belongs to the document being replaced (held failure, replay, selection).
  void startDocument();
  /// highlighted_ from the caret line, or empty while the source is out of date.
  void refreshHighlight();

  EngineWorker* worker_;
  std::vector<Viewer*> viewers_;
  QTimer debounce_;
  QTimer error_hold_;  // a failed compile of a keystroke waits here for typing to pause
  int error_grace_ms_ = 350;
  QElapsedTimer last_edit_;
  struct Held {
    std::shared_ptr<CompileResult> result;
    QString requested;
    std::vector<int> layers;
  };
  std::optional<Held> held_;
  Document doc_;
  CaseState cases_;
  Timeline timeline_;
  Analysis analysis_;
  Case analyzed_params_;  ///< the parameter values analysis_ was asked for
  int caret_line_ = -1;   ///< the editor's caret line (1-based), whose nodes are tinted
  NodeId selected_ = -1;
  std::vector<NodeId> highlighted_;
};

}  // namespace views
}  // namespace tc
