#pragma once
// The case part of the session: the input values of the current case, the
// program's parameter values, the named cases saved beside the file
// (FILE.cases.json), the evaluation settings (semantics, temperature, the
// output differentiated) and the results of evaluating the case. Values the
// user set survive recompiles and transient compile errors. No worker here:
// the session runs the case and hands the results to setResults().
//
// It is the one owner of the case's values: it remembers a value for every
// name it was given (other functions of the file, a cases file's entries),
// but the current case - what runs and what the panels show - holds exactly
// the current function's inputs; the rest waits, noted, for a function that
// takes it. The cases file is written only by writeBook() (the user's Save).
#include <QString>
#include <QStringList>

#include <memory>
#include <vector>

#include "views/engine.h"

namespace tc {
namespace views {

class CaseState {
 public:
  /// The current function's inputs with their values: what every run uses.
  [[nodiscard]] const Case& current() const { return case_; }
  /// Names with a remembered value that the current function does not take (name order).
  [[nodiscard]] std::vector<std::string> ignoredNames() const;
  /// The program's parameters (node order) and the values the session's runs use.
  [[nodiscard]] const std::vector<std::string>& parameters() const { return parameter_names_; }
  [[nodiscard]] const Case& parameterValues() const { return params_; }

  /// Forgets every value and named case (a new document).
  void reset();
  /// Values for a freshly compiled source's inputs: kept where the user set
  /// them (clamped into the domain, rounded for integers), zero for new ones;
  /// values of inputs that disappeared are kept for when they come back.
  void adoptInputs(const std::vector<InputSpec>& inputs);
  /// Values for a loaded artifact's inputs (the saved case's where valid, else 0 clamped); returns their specs.
  std::vector<InputSpec> adoptArtifactInputs(const Program& program);
  /// Parameter values for a new program: values the user set are kept, others start at the stored value.
  void adoptParameters(const Program* program);

  void setValue(const std::string& name, double value, const Program* program);
  void setValues(const Case& c, const Program* program);
  /// False when `name` is not a parameter or the value is not finite.
  bool setParameter(const std::string& name, double value, const Program* program);

  // --- named cases ----------------------------------------------------------
  /// Reads the named cases of the file at `file` ("" for an untitled document);
  /// a broken file is ignored with `problem` set.
  void loadBook(const QString& file, QString* problem);
  [[nodiscard]] const QString& bookPath() const { return book_path_; }
  /// Where the named cases are saved from now on (the document was saved under a new name).
  void setBookPath(const QString& file);
  [[nodiscard]] QStringList names() const;
  [[nodiscard]] int currentIndex() const { return static_cast<int>(book_.current); }
  /// Adds a case holding the current values and switches to it (false: the name is taken or empty).
  bool add(const QString& name, const Program* program);
  bool rename(int index, const QString& name);
  /// False when `index` is out of range or already current.
  bool switchTo(int index, const Program* program);
  /// The named cases changed since they were read or written, and there is
  /// something worth a file (several cases, or a cases file already there).
  [[nodiscard]] bool modified() const;
  /// Writes FILE.cases.json when modified() (the document is being saved);
  /// false with saveProblem() set when writing failed.
  bool writeBook();
  /// A problem from the last writeBook() ("" when none).
  [[nodiscard]] const QString& saveProblem() const { return save_problem_; }

  // --- evaluation settings --------------------------------------------------
  [[nodiscard]] Semantics semantics() const { return semantics_; }
  bool setSemantics(Semantics s);
  [[nodiscard]] double temperature() const { return temperature_; }
  bool setTemperature(double t);
  [[nodiscard]] int outputIndex() const { return output_index_; }
  bool setOutputIndex(int i);
  /// Keeps the output index inside a program with `outputs` outputs.
  void fitOutputIndex(std::size_t outputs);

  // --- results of the current case ----------------------------------------
  [[nodiscard]] const RunResult& exactRun() const { return exact_run_; }
  [[nodiscard]] const RunResult& chosenRun() const { return chosen_run_; }
  [[nodiscard]] const NodeGradients& exactGrad() const { return exact_grad_; }
  [[nodiscard]] const NodeGradients& chosenGrad() const { return chosen_grad_; }
  [[nodiscard]] int runCount() const { return run_count_; }
  void setResults(RunResult exact, RunResult chosen, NodeGradients gexact, NodeGradients gchosen);
  void clearResults();
  /// Problems of the current case: a gradient that cannot be computed (a hybrid
  /// jump term needing an undefined value), and a note per remembered value the
  /// current function does not take.
  [[nodiscard]] Diagnostics problems(const Program* program) const;
  /// The hybrid jump term of select `id` at the current case, as text:
  /// (yes - no) * surrogate' with both branch values, "undefined" for one that is.
  [[nodiscard]] QString jumpTermText(const Program* program, NodeId select) const;

 private:
  void storeCurrent(const Program* program);
  /// case_ from all_ and the current input names.
  void refreshCurrent();

  Case all_;   // every value the user or the cases file gave, by name
  Case case_;  // all_ restricted to the current function's inputs
  std::vector<std::string> input_names_;
  bool inputs_known_ = false;  // input_names_ belongs to the compiled program (else case_ is all_)
  bool book_dirty_ = false;
  bool book_on_disk_ = false;  // a cases file was read or written for this document
  Case params_;
  std::vector<std::string> parameter_names_;
  CaseBook book_;
  QString book_path_;
  QString save_problem_;
  Semantics semantics_ = Semantics::Hybrid;
  double temperature_ = 1.0;
  int output_index_ = 0;
  RunResult exact_run_, chosen_run_;
  NodeGradients exact_grad_, chosen_grad_;
  int run_count_ = 0;
};

}  // namespace views
}  // namespace tc
