#pragma once
// The Verify panel: the circuit against a reference (the source itself run by
// CPython, or another Python file and function) with the CLI's options:
// tolerances, dtype and a case file. Mismatches are listed side by side and
// load into the Inputs panel on a click; a result goes stale when the code
// or the settings change after it. Prove decides the same question over the
// whole input domain with SMT solvers (views/prove_job.h): equivalence with
// the reference file, or, without one, that the circuit cannot fail; its
// counterexample is listed like a mismatch.
#include <QWidget>

#include <functional>
#include <optional>
#include <string>

#include "views/session.h"

class QTreeWidgetItem;

class QComboBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QTreeWidget;

namespace tc {
namespace views {

class VerifyPanel : public QWidget {
  Q_OBJECT
 public:
  enum Column { Inputs, Circuit, Reference, Difference };
  explicit VerifyPanel(Session* session, QWidget* parent = nullptr);
  [[nodiscard]] QTreeWidget* mismatches() const { return list_; }
  [[nodiscard]] QString summary() const;
  [[nodiscard]] QLineEdit* referenceEdit() const { return reference_; }
  [[nodiscard]] QLineEdit* referenceFunctionEdit() const { return function_; }
  [[nodiscard]] QLineEdit* atolEdit() const { return atol_; }
  [[nodiscard]] QLineEdit* rtolEdit() const { return rtol_; }
  [[nodiscard]] QComboBox* dtypeBox() const { return dtype_; }
  [[nodiscard]] QLineEdit* casesEdit() const { return cases_edit_; }
  [[nodiscard]] QPushButton* runButton() const { return run_; }
  [[nodiscard]] QPushButton* proveButton() const { return prove_; }
  [[nodiscard]] QPushButton* cancelButton() const { return cancel_; }
  /// A result is shown but the source or the settings changed since it was computed.
  [[nodiscard]] bool stale() const { return stale_; }

 public slots:
  void start();
  /// Prove (Run > Prove, Ctrl+F6): runs on the engine worker with progress; Cancel stops the solvers.
  void startProve();
  void cancel();

 signals:
  void caseChosen(const tc::views::Case& c);

 private:
  void markStale();
  /// A refusal before anything ran: the message, no result, an empty bar.
  void refuse(const QString& why);
  /// Buttons and bar for a job of `tag` starting ("" when it ended).
  void setRunning(const QString& tag, const QString& what);
  void showResult();
  /// Forgets the reference, the cases file and the results (another file was opened).
  void reset();
  [[nodiscard]] QString settingsKey() const;
  /// What Verify and Prove both read before a job: the tolerances, the
  /// reference, the dtype and the source they run on.
  struct JobInput {
    double atol = 0.0, rtol = 0.0;
    std::string reference_path, reference_function;
    Dtype dtype = Dtype::Float64;
    QString source, settings;  // as shown now: the result is stale once they change
    std::string file, function;
  };
  /// The common refusals (no source, a source that does not compile, bad
  /// tolerances) in the job's own words, else the settings.
  std::optional<JobInput> readJobInput(const QString& no_source, const QString& cannot);
  /// The job's result for `input` is in: the shared bookkeeping around
  /// `fill`, which writes the summary and the rows.
  void deliver(const JobInput& input, const std::function<void()>& fill);
  /// A row of inputs and values that loads its case on a click.
  QTreeWidgetItem* addCaseRow(const Case& inputs, const std::string& circuit, const std::string& reference,
                              const std::string& difference);
  Session* session_;
  QLineEdit* reference_;
  QLineEdit* function_;
  QLineEdit* atol_;
  QLineEdit* rtol_;
  QComboBox* dtype_;
  QLineEdit* cases_edit_;
  QPushButton* run_;
  QPushButton* prove_;
  QPushButton* cancel_;
  QString running_;  // the tag of the job the Cancel button stops: "verify" or "prove"
  QProgressBar* progress_;
  QLabel* summary_;
  QTreeWidget* list_;
  std::vector<Case> cases_;
  QString result_text_;    // summary of the last result
  QString verified_source_;  // the source and settings it was computed for
  QString verified_settings_;
  bool has_result_ = false;
  bool stale_ = false;
};

}  // namespace views
}  // namespace tc
