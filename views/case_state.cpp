#include "views/case_state.h"

#include <QCoreApplication>
#include <QFile>

#include <algorithm>
#include <cmath>

#include "base/atomic_file.h"

namespace tc {
namespace views {

void CaseState::reset() {
  all_.clear();
  case_.clear();
  input_names_.clear();
  inputs_known_ = false;
  params_.clear();
  book_ = {};
  book_.cases.push_back({"default", {}, {}});
  book_path_.clear();
  save_problem_.clear();
  book_dirty_ = false;
  book_on_disk_ = false;
}

void CaseState::refreshCurrent() {
  if (!inputs_known_) {
    case_ = all_;
    return;
  }
  Case c;
  for (const auto& name : input_names_) {
    auto it = all_.find(name);
    c[name] = it != all_.end() ? it->second : 0.0;
  }
  case_ = std::move(c);
}

std::vector<std::string> CaseState::ignoredNames() const {
  std::vector<std::string> out;
  if (!inputs_known_) return out;
  for (const auto& [k, v] : all_)
    if (!case_.count(k)) out.push_back(k);
  return out;
}

void CaseState::adoptInputs(const std::vector<InputSpec>& inputs) {
  input_names_.clear();
  for (const auto& in : inputs) {
    auto it = all_.find(in.name);
    double v = it != all_.end() ? it->second : 0.0;
    if (in.domain.check(v)) v = std::clamp(in.domain.is_integral() ? std::round(v) : v, in.domain.lo(), in.domain.hi());
    all_[in.name] = v;
    input_names_.push_back(in.name);
  }
  // Values of inputs that disappeared (another function, an edit that
  // renames and renames back) stay remembered in all_ but leave the case.
  inputs_known_ = true;
  refreshCurrent();
}

std::vector<InputSpec> CaseState::adoptArtifactInputs(const Program& program) {
  std::vector<InputSpec> specs;
  input_names_.clear();
  for (NodeId id : program.nodes_of(Op::Input)) {
    const Node& n = program.nodes[static_cast<std::size_t>(id)];
    const Domain d = n.domain.value_or(Domain::float64());
    specs.push_back({n.name, d, true});
    auto it = all_.find(n.name);  // from the saved case, if any
    all_[n.name] = it != all_.end() && !d.check(it->second) ? it->second : std::clamp(0.0, d.lo(), d.hi());
    input_names_.push_back(n.name);
  }
  inputs_known_ = true;
  refreshCurrent();
  return specs;
}

void CaseState::adoptParameters(const Program* program) {
  parameter_names_.clear();
  if (!program) return;
  Case p;
  for (NodeId id : program->nodes_of(Op::Parameter)) {
    const Node& n = program->nodes[static_cast<std::size_t>(id)];
    parameter_names_.push_back(n.name);
    auto it = params_.find(n.name);
    p[n.name] = it != params_.end() ? it->second : n.value;
  }
  params_ = std::move(p);
}

void CaseState::setValue(const std::string& name, double value, const Program* program) {
  all_[name] = value;
  refreshCurrent();
  storeCurrent(program);
}

void CaseState::setValues(const Case& c, const Program* program) {
  for (const auto& [k, v] : c) all_[k] = v;
  refreshCurrent();
  storeCurrent(program);
}

bool CaseState::setParameter(const std::string& name, double value, const Program* program) {
  if (!params_.count(name) || !std::isfinite(value)) return false;
  params_[name] = value;
  storeCurrent(program);
  return true;
}

void CaseState::loadBook(const QString& file, QString* problem) {
  book_ = {};
  book_path_ = file;
  save_problem_.clear();
  book_dirty_ = false;
  book_on_disk_ = false;
  all_.clear();
  params_.clear();
  inputs_known_ = false;  // the new document's inputs come with its compile
  if (!file.isEmpty() && QFile::exists(file)) {
    auto text = read_file(file.toStdString());
    auto book = text.ok() ? parse_case_book(*text) : Result<CaseBook>(text.error());
    if (book.ok()) {
      book_ = std::move(*book);
      book_on_disk_ = true;
      // Entries the function does not take are kept aside, never run (problems() notes them).
      all_ = book_.cases[book_.current].inputs;
      params_ = book_.cases[book_.current].params;
    } else if (problem) {
      *problem = QCoreApplication::translate("tc::views::Session", "ignored %1: %2")
                     .arg(file, QString::fromStdString(book.error().message));
    }
  }
  if (book_.cases.empty()) book_.cases.push_back({"default", {}, {}});
  refreshCurrent();
}

void CaseState::setBookPath(const QString& file) {
  if (file == book_path_) return;
  book_path_ = file;
  book_dirty_ = true;  // the next save writes the cases beside the new name
}

QStringList CaseState::names() const {
  QStringList out;
  for (const auto& c : book_.cases) out << QString::fromStdString(c.name);
  return out;
}

bool CaseState::modified() const {
  // Only several cases (or a document that has a cases file) are worth a file beside it.
  return book_dirty_ && !book_path_.isEmpty() && (book_.cases.size() >= 2 || book_on_disk_);
}

bool CaseState::writeBook() {
  save_problem_.clear();
  if (!modified()) {
    book_dirty_ = false;
    return true;
  }
  auto st = write_file_atomic(book_path_.toStdString(), case_book_json(book_));
  if (!st.ok()) {
    save_problem_ = QString::fromStdString(st.error().format());
    return false;
  }
  book_dirty_ = false;
  book_on_disk_ = true;
  return true;
}

void CaseState::storeCurrent(const Program* program) {
  if (book_.cases.empty()) book_.cases.push_back({"default", {}, {}});
  auto& c = book_.cases[book_.current];
  c.inputs = all_;  // what other functions of the file use stays with the case
  c.params.clear();
  // Only parameters moved away from their stored values belong to the case.
  if (program)
    for (NodeId id : program->nodes_of(Op::Parameter)) {
      const Node& n = program->nodes[static_cast<std::size_t>(id)];
      auto it = params_.find(n.name);
      if (it != params_.end() && it->second != n.value) c.params[n.name] = it->second;
    }
  book_dirty_ = true;
}

bool CaseState::add(const QString& name, const Program* program) {
  const std::string n = name.trimmed().toStdString();
  if (n.empty()) return false;
  for (const auto& c : book_.cases)
    if (c.name == n) return false;
  storeCurrent(program);
  book_.cases.push_back({n, all_, book_.cases[book_.current].params});
  book_.current = book_.cases.size() - 1;
  book_dirty_ = true;
  return true;
}

bool CaseState::rename(int index, const QString& name) {
  const std::string n = name.trimmed().toStdString();
  if (n.empty() || index < 0 || index >= static_cast<int>(book_.cases.size())) return false;
  for (std::size_t i = 0; i < book_.cases.size(); ++i)
    if (book_.cases[i].name == n && static_cast<int>(i) != index) return false;
  book_.cases[static_cast<std::size_t>(index)].name = n;
  book_dirty_ = true;
  return true;
}

bool CaseState::switchTo(int index, const Program* program) {
  if (index < 0 || index >= static_cast<int>(book_.cases.size()) || static_cast<std::size_t>(index) == book_.current)
    return false;
  storeCurrent(program);
  book_.current = static_cast<std::size_t>(index);
  const auto& c = book_.cases[book_.current];
  for (const auto& [k, v] : c.inputs) all_[k] = v;
  refreshCurrent();
  for (auto& [k, v] : params_) {
    auto it = c.params.find(k);
    if (it != c.params.end()) v = it->second;
    else if (program)
      if (auto id = program->find_named(Op::Parameter, k)) v = program->nodes[static_cast<std::size_t>(*id)].value;
  }
  book_dirty_ = true;
  return true;
}

bool CaseState::setSemantics(Semantics s) {
  if (s == semantics_) return false;
  semantics_ = s;
  return true;
}

bool CaseState::setTemperature(double t) {
  if (!(t > 0) || !std::isfinite(t) || t == temperature_) return false;
  temperature_ = t;
  return true;
}

bool CaseState::setOutputIndex(int i) {
  if (i == output_index_) return false;
  output_index_ = i;
  return true;
}

void CaseState::fitOutputIndex(std::size_t outputs) {
  if (output_index_ >= static_cast<int>(outputs)) output_index_ = 0;
}

void CaseState::setResults(RunResult exact, RunResult chosen, NodeGradients gexact, NodeGradients gchosen) {
  exact_run_ = std::move(exact);
  chosen_run_ = std::move(chosen);
  exact_grad_ = std::move(gexact);
  chosen_grad_ = std::move(gchosen);
  ++run_count_;
}

void CaseState::clearResults() {
  exact_run_ = chosen_run_ = {};
  exact_grad_ = chosen_grad_ = {};
}

Diagnostics CaseState::problems(const Program* program) const {
  Diagnostics out;
  if (!program) return out;
  const std::string case_name = book_.current < book_.cases.size() ? book_.cases[book_.current].name : "default";
  for (const auto& name : ignoredNames()) {
    Diagnostic note = make_warning("case '" + quote_user(case_name) + "' has a value for '" + quote_user(name) +
                                   "', which is not an input of this function: ignored");
    note.severity = Severity::Note;
    out.push_back(std::move(note));
  }
  const auto& g = chosen_grad_;
  if (!g.error || !g.available) return out;
  Diagnostic d = *g.error;
  d.severity = Severity::Warning;
  d.message = "the " + std::string(to_string(semantics_)) + " gradient cannot be computed: " + d.message;
  if (g.failed_select >= 0) {
    const Node& s = program->nodes[static_cast<std::size_t>(g.failed_select)];
    if (s.location) d.loc = s.location;  // the jump is the select's: point at it
    d.message += "; jump term " + jumpTermText(program, g.failed_select).toStdString();
  }
  out.push_back(d);
  return out;
}

QString CaseState::jumpTermText(const Program* program, NodeId select) const {
  if (!program || select < 0 || static_cast<std::size_t>(select) >= program->nodes.size()) return {};
  const Node& n = program->nodes[static_cast<std::size_t>(select)];
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
                : failed                                ? QCoreApplication::translate("tc::views::Session", "undefined")
                                                        : QCoreApplication::translate("tc::views::Session", "not computed");
    return QCoreApplication::translate("tc::views::Session", "%%1 = %2%3")
        .arg(n.args[static_cast<std::size_t>(k)])
        .arg(v, is_taken ? QCoreApplication::translate("tc::views::Session", " (taken)")
                         : QCoreApplication::translate("tc::views::Session", " (not taken)"));
  };
  return QCoreApplication::translate("tc::views::Session", "(yes - no) * surrogate'(%%1): yes %2, no %3")
      .arg(n.args[0])
      .arg(value(1), value(2));
}

}  // namespace views
}  // namespace tc
