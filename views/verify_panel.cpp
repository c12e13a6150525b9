#include "views/verify_panel.h"

#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QGridLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QToolButton>
#include <QTreeWidget>
#include <QVBoxLayout>

#include "views/prove_job.h"

namespace tc {
namespace views {

VerifyPanel::VerifyPanel(Session* session, QWidget* parent) : QWidget(parent), session_(session) {
  auto* lay = new QVBoxLayout(this);
  lay->setContentsMargins(4, 4, 4, 4);
  auto* grid = new QGridLayout;
  grid->setContentsMargins(0, 0, 0, 0);
  auto browse = [this](QLineEdit* edit, const QString& title, const QString& filter) {
    auto* b = new QToolButton(this);
    b->setText(tr("…"));
    b->setToolTip(title);
    connect(b, &QToolButton::clicked, this, [this, edit, title, filter] {
      const QString start = session_->filePath().isEmpty() ? QString() : QFileInfo(session_->filePath()).absolutePath();
      const QString path = QFileDialog::getOpenFileName(this, title, start, filter);
      if (!path.isEmpty()) edit->setText(path);
    });
    return b;
  };
  reference_ = new QLineEdit(this);
  reference_->setPlaceholderText(tr("the source itself, run by CPython"));
  reference_->setToolTip(tr("A Python file whose function is the reference (empty: the program's own source)"));
  function_ = new QLineEdit(this);
  function_->setPlaceholderText(tr("its only function"));
  function_->setToolTip(tr("The reference file's function (empty: its only one, or the one named like the program's)"));
  atol_ = new QLineEdit(QStringLiteral("0"), this);
  rtol_ = new QLineEdit(QStringLiteral("0"), this);
  atol_->setToolTip(tr("Absolute tolerance (0 and 0: values must be equal)"));
  rtol_->setToolTip(tr("Relative tolerance"));
  atol_->setMaximumWidth(90);
  rtol_->setMaximumWidth(90);
  dtype_ = new QComboBox(this);
  dtype_->addItem(QStringLiteral("float64"), static_cast<int>(Dtype::Float64));
  dtype_->addItem(QStringLiteral("float32"), static_cast<int>(Dtype::Float32));
  dtype_->setToolTip(tr("The circuit's arithmetic for the check"));
  cases_edit_ = new QLineEdit(this);
  cases_edit_->setPlaceholderText(tr("enumerate or sample the inputs' domains"));
  cases_edit_->setToolTip(tr("A JSON Lines file of cases ({\"a\": 5} per line)"));
  grid->addWidget(new QLabel(tr("Reference:"), this), 0, 0);
  grid->addWidget(reference_, 0, 1);
  grid->addWidget(browse(reference_, tr("Reference Python file"), tr("Python (*.py)")), 0, 2);
  grid->addWidget(new QLabel(tr("Function:"), this), 0, 3);
  grid->addWidget(function_, 0, 4);
  grid->addWidget(new QLabel(tr("Cases:"), this), 1, 0);
  grid->addWidget(cases_edit_, 1, 1);
  grid->addWidget(browse(cases_edit_, tr("Case file"), tr("JSON Lines (*.jsonl *.json)")), 1, 2);
  auto* tol = new QHBoxLayout;
  tol->addWidget(new QLabel(tr("atol"), this));
  tol->addWidget(atol_);
  tol->addWidget(new QLabel(tr("rtol"), this));
  tol->addWidget(rtol_);
  tol->addWidget(new QLabel(tr("dtype"), this));
  tol->addWidget(dtype_);
  tol->addStretch(1);
  grid->addLayout(tol, 1, 3, 1, 2);
  grid->setColumnStretch(1, 3);
  grid->setColumnStretch(4, 1);
  lay->addLayout(grid);

  auto* bar = new QHBoxLayout;
  run_ = new QPushButton(tr("Verify"), this);
  run_->setToolTip(tr("Check the circuit against the reference over the inputs' domains (F6)"));
  prove_ = new QPushButton(tr("Prove"), this);
  prove_->setToolTip(tr("Prove over the whole input domain with Z3 and cvc5: with a reference file, that the circuit agrees "
                        "with its function; without one, that the circuit cannot fail (Ctrl+F6)"));
  cancel_ = new QPushButton(tr("Cancel"), this);
  cancel_->setEnabled(false);
  progress_ = new QProgressBar(this);
  progress_->setRange(0, 100);
  progress_->setValue(0);
  summary_ = new QLabel(tr("not run yet"), this);
  summary_->setObjectName(QStringLiteral("VerifySummary"));
  summary_->setTextFormat(Qt::RichText);
  // A long result (a path, a message) wraps inside the dock; it never widens the
  // window or squeezes the side docks (and so never gets into the saved layout).
  summary_->setWordWrap(true);
  summary_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  summary_->setMinimumWidth(120);
  bar->addWidget(run_);
  bar->addWidget(prove_);
  bar->addWidget(cancel_);
  bar->addWidget(progress_, 1);
  lay->addLayout(bar);
  // Its own row, the dock's width: beside the progress bar it had a quarter
  // of it and wrapped to three lines, the last cut off.
  lay->addWidget(summary_);
  list_ = new QTreeWidget(this);
  list_->setHeaderLabels({tr("Inputs"), tr("Circuit"), tr("Reference"), tr("Difference")});
  list_->setRootIsDecorated(false);
  list_->setToolTip(tr("Click a mismatch to load its inputs as the current case"));
  list_->header()->setStretchLastSection(true);
  list_->header()->setSectionResizeMode(QHeaderView::Interactive);
  lay->addWidget(list_, 1);
  connect(run_, &QPushButton::clicked, this, &VerifyPanel::start);
  connect(prove_, &QPushButton::clicked, this, &VerifyPanel::startProve);
  connect(cancel_, &QPushButton::clicked, this, &VerifyPanel::cancel);
  connect(list_, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem* item) {
    const int i = item->data(0, Qt::UserRole).toInt();
    if (i >= 0 && i < static_cast<int>(cases_.size())) emit caseChosen(cases_[static_cast<std::size_t>(i)]);
  });
  connect(list_, &QTreeWidget::itemClicked, this, [this](QTreeWidgetItem* item) { emit list_->itemActivated(item, 0); });
  connect(&session_->worker(), &EngineWorker::progress, this,
          [this](const QString& tag, quint64 done, quint64 total, const QString& what) {
            if (tag != running_ || total == 0) return;
            progress_->setValue(static_cast<int>(100.0 * static_cast<double>(done) / static_cast<double>(total)));
            if (tag == QLatin1String("prove")) summary_->setText(tr("proving… (%1)").arg(what));
          });
  // A result describes one source and one set of options: mark it when either moves on.
  connect(session_, &Session::compiled, this, &VerifyPanel::markStale);
  connect(session_, &Session::documentChanged, this, &VerifyPanel::markStale);
  connect(session_, &Session::documentReplaced, this, &VerifyPanel::reset);
  for (QLineEdit* e : {reference_, function_, atol_, rtol_, cases_edit_}) connect(e, &QLineEdit::textChanged, this, &VerifyPanel::markStale);
  connect(dtype_, &QComboBox::currentIndexChanged, this, &VerifyPanel::markStale);
}

void VerifyPanel::reset() {
  // The reference, the cases file and the results were the previous file's.
  cancel();
  for (QLineEdit* e : {reference_, function_, cases_edit_}) e->clear();
  cases_.clear();
  list_->clear();
  summary_->clear();
  result_text_.clear();
  verified_source_.clear();
  verified_settings_.clear();
  has_result_ = false;
  stale_ = false;
  progress_->reset();
}

QString VerifyPanel::summary() const { return summary_->text(); }

QString VerifyPanel::settingsKey() const {
  return QStringList{reference_->text(), function_->text(), atol_->text(), rtol_->text(), dtype_->currentText(), cases_edit_->text()}
      .join(QChar(0x1f));
}

void VerifyPanel::markStale() {
  if (!has_result_) return;
  const bool now = session_->source() != verified_source_ || settingsKey() != verified_settings_;
  if (now == stale_) return;
  stale_ = now;
  showResult();
}

void VerifyPanel::showResult() {
  if (!stale_) {
    summary_->setText(result_text_);
  } else {
    summary_->setText(tr("<b style='color:#8a5a00'>stale</b> (the code or the settings changed since; F6 runs it again): %1")
                          .arg(result_text_));
  }
  const QColor fg = stale_ ? QColor(0x99, 0x99, 0x99) : palette().color(QPalette::Text);
  for (int i = 0; i < list_->topLevelItemCount(); ++i)
    for (int c = 0; c < list_->columnCount(); ++c) list_->topLevelItem(i)->setForeground(c, fg);
}

void VerifyPanel::refuse(const QString& why) {
  has_result_ = false;
  stale_ = false;
  list_->clear();
  cases_.clear();
  progress_->setValue(0);  // nothing ran: a full bar from the last run would say otherwise
  summary_->setText(QStringLiteral("<span style='color:#c02020'>%1</span>").arg(why.toHtmlEscaped()));
}

void VerifyPanel::setRunning(const QString& tag, const QString& what) {
  running_ = tag;
  const bool busy = !tag.isEmpty();
  run_->setEnabled(!busy);
  prove_->setEnabled(!busy);
  cancel_->setEnabled(busy);
  if (!busy) return;
  progress_->setValue(0);
  summary_->setText(what);
  list_->clear();
  cases_.clear();
  has_result_ = false;
  stale_ = false;
}

std::optional<VerifyPanel::JobInput> VerifyPanel::readJobInput(const QString& no_source, const QString& cannot) {
  if (session_->source().isEmpty()) {
    refuse(no_source);
    return std::nullopt;
  }
  if (session_->compileFailed()) {
    refuse(cannot.arg(session_->outOfDateReason()));
    return std::nullopt;
  }
  JobInput in;
  bool ok1 = false, ok2 = false;
  in.atol = atol_->text().trimmed().isEmpty() ? 0.0 : atol_->text().trimmed().toDouble(&ok1);
  in.rtol = rtol_->text().trimmed().isEmpty() ? 0.0 : rtol_->text().trimmed().toDouble(&ok2);
  if ((!atol_->text().trimmed().isEmpty() && !ok1) || (!rtol_->text().trimmed().isEmpty() && !ok2)) {
    refuse(tr("atol and rtol must be numbers"));
    return std::nullopt;
  }
  in.reference_path = reference_->text().trimmed().toStdString();
  in.reference_function = function_->text().trimmed().toStdString();
  in.dtype = static_cast<Dtype>(dtype_->currentData().toInt());
  in.source = session_->source();
  in.settings = settingsKey();
  const std::string file = QFileInfo(session_->filePath()).fileName().toStdString();
  in.file = file.empty() ? "untitled.py" : file;
  in.function = session_->function().toStdString();
  return in;
}

void VerifyPanel::deliver(const JobInput& input, const std::function<void()>& fill) {
  setRunning(QString(), QString());
  progress_->setValue(100);
  verified_source_ = input.source;
  verified_settings_ = input.settings;
  has_result_ = true;
  fill();
  for (int c = 0; c < list_->columnCount(); ++c) list_->resizeColumnToContents(c);
  stale_ = session_->source() != verified_source_ || settingsKey() != verified_settings_;
  showResult();
}

QTreeWidgetItem* VerifyPanel::addCaseRow(const Case& inputs, const std::string& circuit, const std::string& reference,
                                         const std::string& difference) {
  QStringList in;
  for (const auto& [k, v] : inputs) in << QStringLiteral("%1=%2").arg(QString::fromStdString(k), QString::fromStdString(format_number(v)));
  auto* item = new QTreeWidgetItem(list_, {in.join(QStringLiteral(", ")), QString::fromStdString(circuit),
                                           QString::fromStdString(reference), QString::fromStdString(difference)});
  item->setData(0, Qt::UserRole, static_cast<int>(cases_.size()));
  cases_.push_back(inputs);
  return item;
}

void VerifyPanel::start() {
  if (session_->readOnly() && reference_->text().trimmed().isEmpty()) {
    refuse(tr("an artifact has no source to verify against: choose a reference file"));
    return;
  }
  if (session_->readOnly()) {
    refuse(tr("verifying an artifact against a reference file is available on the command line (tensorcode verify --reference)"));
    return;
  }
  auto input = readJobInput(tr("there is no source to verify"), tr("cannot verify: %1"));
  if (!input) return;
  VerifySettings vs;
  vs.atol = input->atol;
  vs.rtol = input->rtol;
  vs.reference_path = input->reference_path;
  vs.reference_function = input->reference_function;
  vs.dtype = input->dtype;
  vs.cases_path = cases_edit_->text().trimmed().toStdString();
  setRunning(QStringLiteral("verify"), tr("verifying…"));
  session_->worker().post(QStringLiteral("verify"), [this, in = *input, vs](JobControl& ctl) -> EngineWorker::Deliver {
    auto r = std::make_shared<VerifyResult>(verify_source(in.source.toStdString(), in.file, in.function, vs, &ctl));
    return [this, r, in] {
      deliver(in, [&] {
        if (!r->ok) {
          result_text_ = QStringLiteral("<span style='color:#c02020'>%1</span>")
                             .arg(r->error ? QString::fromStdString(r->error->format()).toHtmlEscaped() : tr("failed"));
        } else if (r->passed) {
          result_text_ = tr("<b style='color:#1a7f37'>passed</b>: %1 cases%2 against %3")
                             .arg(r->cases)
                             .arg(r->exhaustive ? tr(" (exhaustive)") : QString(), QString::fromStdString(r->reference).toHtmlEscaped());
        } else {
          result_text_ = tr("<b style='color:#c02020'>%1 mismatch(es)</b> in %2 cases against %3")
                             .arg(r->mismatch_count)
                             .arg(r->cases)
                             .arg(QString::fromStdString(r->reference).toHtmlEscaped());
        }
        for (const auto& m : r->mismatches) addCaseRow(m.inputs, m.circuit, m.reference, m.difference);
      });
    };
  }, this);
}

void VerifyPanel::cancel() {
  // Only a running verify or proof can be cancelled; a finished result stays as it is.
  if (running_.isEmpty()) return;
  session_->worker().cancel(running_);
  setRunning(QString(), QString());
  summary_->setText(tr("cancelled"));
}

namespace {
QString solversText(const prove::ProveResult& r) {
  QStringList parts;
  for (const auto& a : r.solvers) parts << QStringLiteral("%1 %2").arg(QString::fromStdString(a.solver), QString::fromStdString(a.answer));
  return parts.join(QStringLiteral(", "));
}
}  // namespace

void VerifyPanel::startProve() {
  if (session_->readOnly()) {
    refuse(tr("proving an artifact is available on the command line (tensorcode prove)"));
    return;
  }
  if (!session_->source().isEmpty() && !session_->compileFailed() && !cases_edit_->text().trimmed().isEmpty()) {
    refuse(tr("a proof covers the whole input domain: clear the cases file to prove"));
    return;
  }
  auto input = readJobInput(tr("there is no source to prove"), tr("cannot prove: %1"));
  if (!input) return;
  ProveSettings ps;
  ps.atol = input->atol;
  ps.rtol = input->rtol;
  ps.reference_path = input->reference_path;
  ps.reference_function = input->reference_function;
  ps.dtype = input->dtype;
  setRunning(QStringLiteral("prove"), tr("proving…"));
  session_->worker().post(QStringLiteral("prove"), [this, in = *input, ps](JobControl& ctl) -> EngineWorker::Deliver {
    auto r = std::make_shared<ProveOutcome>(prove_source(in.source.toStdString(), in.file, in.function, ps, ctl.cancelFlag(), &ctl));
    return [this, r, in] {
      deliver(in, [&] {
        const QString against = QString::fromStdString(r->against).toHtmlEscaped();
        const QString how = tr("%1; %2 s").arg(solversText(r->result)).arg(r->result.seconds, 0, 'f', 1);
        using prove::Verdict;
        if (r->error) {
          result_text_ = QStringLiteral("<span style='color:#c02020'>%1</span>").arg(QString::fromStdString(r->error->format()).toHtmlEscaped());
        } else if (r->result.verdict == Verdict::Equivalent) {
          result_text_ = tr("<b style='color:#1a7f37'>proved equivalent</b> to %1 over the whole input domain (%2)").arg(against, how);
        } else if (r->result.verdict == Verdict::CannotFail) {
          result_text_ = tr("<b style='color:#1a7f37'>proved: cannot fail</b> over the whole input domain (%1)").arg(how);
        } else if (r->result.verdict == Verdict::Different) {
          result_text_ = tr("<b style='color:#c02020'>different</b> from %1: the counterexample below, reproduced by the evaluator (%2)")
                             .arg(against, how);
        } else if (r->result.verdict == Verdict::CanFail) {
          result_text_ = tr("<b style='color:#c02020'>can fail</b>: the counterexample below, reproduced by the evaluator (%1)").arg(how);
        } else {
          result_text_ = tr("<b style='color:#8a5a00'>unknown</b>: %1 (%2)").arg(QString::fromStdString(r->result.reason).toHtmlEscaped(), how);
        }
        if (!r->inputs.empty())
          addCaseRow(r->inputs, r->circuit, r->reference, r->difference)
              ->setToolTip(0, tr("Click to load this counterexample as the current case"));
      });
    };
  }, this);
}

}  // namespace views
}  // namespace tc
