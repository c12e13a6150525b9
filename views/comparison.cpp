// The comparison of the current circuit with another one (views/comparison.h).
#include "views/comparison.h"

#include <QColor>
#include <QFile>
#include <QFileInfo>
#include <QPainter>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "ir/artifact.h"
#include "ir/printer.h"
#include "views/graph_layout.h"
#include "workbench/workbench.h"

namespace tc {
namespace views {
namespace {

/// Two shown values agree when their bits do (0.0 and -0.0 differ, as in
/// core's diff) or neither was computed.
bool same_value(double a, double b) {
  if (std::isnan(a) && std::isnan(b)) return true;
  return std::memcmp(&a, &b, sizeof a) == 0;
}

QString num(double v) { return std::isnan(v) ? QObject::tr("not computed") : QString::fromStdString(format_number(v)); }

/// The case the other program runs on: the current case's value of each of
/// its inputs (0 for an input only the other program has, as the Compare dock says).
Case case_for(const Program& p, const Case& current) {
  Case c;
  for (const auto& n : p.nodes)
    if (n.op == Op::Input) {
      auto it = current.find(n.name);
      c[n.name] = it != current.end() ? it->second : 0.0;
    }
  return c;
}

}  // namespace

Comparison::Comparison(Session* session, QObject* parent) : QObject(parent), session_(session) {
  session_->addViewer(this);
  // A comparison is of the file it was started on, not of the next one opened.
  connect(session_, &Session::documentReplaced, this, &Comparison::clear);
}

Comparison::~Comparison() { session_->removeViewer(this); }

bool Comparison::compareWithFile(const QString& path, QString* error) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) {
    if (error) *error = tr("cannot open %1: %2").arg(path, f.errorString());
    return false;
  }
  const std::string text = f.readAll().toStdString();
  const std::string name = QFileInfo(path).fileName().toStdString();
  const bool artifact = path.endsWith(QLatin1String(".json"), Qt::CaseInsensitive);
  const std::string function = session_->function().toStdString();
  const QString label = QFileInfo(path).fileName();
  compareWith(text, name, artifact, function, label);
  return true;
}

void Comparison::compareWith(const std::string& text, const std::string& name, bool artifact, const std::string& function,
                             const QString& label) {
  // Loading or compiling the other side is engine work: on the worker.
  session_->worker().post(QStringLiteral("compare-open"), [this, text, name, artifact, function, label](JobControl&) -> EngineWorker::Deliver {
    std::shared_ptr<const Program> program;
    QString problem;
    if (artifact) {
      auto p = load_artifact(text);
      if (p.ok()) program = std::make_shared<const Program>(std::move(*p));
      else problem = QString::fromStdString(p.error().format());
    } else {
      auto r = compile_source(text, name, function);
      program = r.program;
      for (const auto& d : r.diagnostics)
        if (d.severity == Severity::Error) {
          problem = QString::fromStdString(d.format());
          break;
        }
      if (!program && problem.isEmpty()) problem = tr("the source does not compile");
    }
    return [this, program, problem, label, name] {
      if (!program) {
        emit failed(tr("Compare"), tr("cannot compare with %1: %2").arg(QString::fromStdString(name), problem));
        return;
      }
      start(Kind::File, program, label, {});
    };
  }, this);
}

bool Comparison::compareWithSaved(QString* error) {
  const QString path = session_->filePath();
  if (path.isEmpty() || session_->readOnly()) {
    if (error) *error = session_->readOnly() ? tr("an artifact has no saved versions: compare it with another artifact")
                                             : tr("the source has not been saved yet: nothing to compare with");
    return false;
  }
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) {
    if (error) *error = tr("cannot open %1: %2").arg(path, f.errorString());
    return false;
  }
  const QString name = QFileInfo(path).fileName();
  compareWith(f.readAll().toStdString(), name.toStdString(), false, session_->function().toStdString(),
              tr("%1 as saved").arg(name));
  return true;
}

bool Comparison::pinRun(QString* error) {
  const auto program = session_->program();
  if (!program || session_->compileFailed()) {
    if (error) *error = program ? tr("the source does not compile: there is no run to pin") : tr("no program: nothing to pin");
    return false;
  }
  // The run as the views show it: the case's values, or the timeline step's.
  QStringList parts;
  for (const auto& [name, v] : session_->displayCase()) parts << QStringLiteral("%1=%2").arg(QString::fromStdString(name), QString::fromStdString(format_short(v)));
  QString what = parts.join(QStringLiteral(", "));
  if (session_->showingStep()) what += (what.isEmpty() ? QString() : QStringLiteral(", ")) + tr("step %1").arg(session_->snapshotBase() + session_->step());
  start(Kind::Pinned, program, tr("pinned run (%1)").arg(what), session_->displayValues());
  return true;
}

void Comparison::clear() {
  session_->worker().cancel(QStringLiteral("compare"));
  kind_ = Kind::None;
  label_.clear();
  other_.reset();
  current_.reset();
  diff_.reset();
  other_values_.clear();
  marks_.clear();
  value_diffs_.clear();
  group_marks_.clear();
  marked_plan_ = nullptr;
  emit changed();
}

void Comparison::start(Kind kind, std::shared_ptr<const Program> other, const QString& label, std::vector<double> values) {
  kind_ = kind;
  other_ = std::move(other);
  label_ = label;
  other_values_ = std::move(values);
  diff_.reset();
  current_.reset();
  rediff();
}

void Comparison::programChanged() {
  if (kind_ != Kind::None) rediff();
}

void Comparison::resultsChanged() {
  // A new case or step: the other side runs on it (a file), the marks follow the values shown.
  if (kind_ == Kind::File) rediff();
  else if (kind_ == Kind::Pinned) remark();
}

void Comparison::rediff() {
  const auto current = session_->program();
  const auto other = other_;
  if (!current || !other) return;
  // A file runs on the current case too (core compares the outputs on it); a pinned run keeps its own values.
  const bool on_case = kind_ == Kind::File;
  const Case c = case_for(*current, session_->currentCase());
  session_->worker().post(QStringLiteral("compare"), [this, current, other, on_case, c](JobControl&) -> EngineWorker::Deliver {
    struct Out {
      std::shared_ptr<const Diff> diff;
      std::vector<double> values;
      QString problem;
    };
    auto out = std::make_shared<Out>();
    DiffCases cases;
    DiffOptions options;
    ProgramSession before(other), after(current);  // share the programs: nothing copied
    if (on_case) {
      Case both = case_for(*other, c);
      for (const auto& [k, v] : c) both[k] = v;
      std::vector<std::pair<std::string, double>> row(both.begin(), both.end());
      if (add_diff_case(cases, row).ok()) options.cases = &cases;
      RunResult r = run_case(before, case_for(*other, c), Semantics::Exact, other->temperature);
      fill_known_values(*other, {}, r.trace.values);
      out->values = std::move(r.trace.values);
    }
    auto d = workbench::diff(before, after, options);
    if (!d.ok() && options.cases) {
      out->problem = QString::fromStdString(d.error().format());
      options.cases = nullptr;  // a program that cannot run here: still its structure
      d = workbench::diff(before, after, options);
    }
    if (d.ok()) out->diff = std::make_shared<const Diff>(std::move(*d));
    else out->problem = QString::fromStdString(d.error().format());
    return [this, out, current, other, on_case] {
      if (current != session_->program() || other != other_) return;
      if (!out->diff) {
        emit failed(tr("Compare"), out->problem);
        return;
      }
      diff_ = out->diff;
      current_ = current;
      if (on_case) other_values_ = std::move(out->values);
      remark();
    };
  }, this);
}

void Comparison::remark() {
  marks_.clear();
  value_diffs_.clear();
  group_marks_.clear();
  marked_plan_ = nullptr;
  if (!diff_ || !current_ || !other_) {
    emit changed();
    return;
  }
  const Diff& d = *diff_;
  const auto& b_to_a = d.match.b_to_a;
  const auto& a_to_b = d.match.a_to_b;
  marks_.assign(current_->nodes.size(), Mark::Same);
  auto raise = [&](NodeId id, Mark m) {
    if (id >= 0 && static_cast<std::size_t>(id) < marks_.size() && marks_[static_cast<std::size_t>(id)] < m) marks_[static_cast<std::size_t>(id)] = m;
  };
  // Removed nodes are not in this circuit: the nodes they fed are marked instead.
  std::vector<char> removed(other_->nodes.size(), 0);
  for (NodeId a : d.removed) removed[static_cast<std::size_t>(a)] = 1;
  if (!d.removed.empty())
    for (const auto& n : other_->nodes)
      for (NodeId arg : n.args)
        if (removed[static_cast<std::size_t>(arg)] && static_cast<std::size_t>(n.id) < a_to_b.size()) raise(a_to_b[static_cast<std::size_t>(n.id)], Mark::LostInput);
  for (const auto& c : d.changed) raise(c.b, Mark::Changed);
  // The circuit draws a used constant inside its users' boxes (and groups
  // never hold one): an edited constant shows as a change of its users.
  for (const auto& n : current_->nodes)
    for (NodeId arg : n.args)
      if (current_->nodes[static_cast<std::size_t>(arg)].op == Op::Constant && marks_[static_cast<std::size_t>(arg)] == Mark::Changed)
        raise(n.id, Mark::Changed);
  for (NodeId b : d.added) raise(b, Mark::Added);
  // Values only where the current values belong to this program.
  const auto& shown = session_->displayValues();
  if (session_->program() == current_ && shown.size() == current_->nodes.size())
    for (std::size_t b = 0; b < shown.size() && b < b_to_a.size(); ++b) {
      const NodeId a = b_to_a[b];
      if (a < 0 || static_cast<std::size_t>(a) >= other_values_.size()) continue;
      if (same_value(shown[b], other_values_[static_cast<std::size_t>(a)])) continue;
      value_diffs_.push_back(static_cast<NodeId>(b));
      raise(static_cast<NodeId>(b), Mark::ValueDiffers);
    }
  emit changed();
}

Comparison::Mark Comparison::mark(NodeId id) const {
  if (kind_ == Kind::None || current_ != session_->program() || id < 0 || static_cast<std::size_t>(id) >= marks_.size()) return Mark::None;
  return marks_[static_cast<std::size_t>(id)];
}

Comparison::Mark Comparison::groupMark(const GroupPlan& plan, int group) const {
  if (marks_.empty() || group < 0 || static_cast<std::size_t>(group) >= plan.groups.size()) return Mark::None;
  if (marked_plan_ != &plan || group_marks_.size() != plan.groups.size()) {
    // Once per plan and comparison: each group takes the strongest mark of its members (both levels).
    group_marks_.assign(plan.groups.size(), Mark::Same);
    for (std::size_t i = 0; i < marks_.size(); ++i) {
      for (const auto* level : {&plan.top, &plan.sub}) {
        if (i >= level->size()) continue;
        const int g = (*level)[i];
        if (g >= 0 && static_cast<std::size_t>(g) < group_marks_.size()) group_marks_[static_cast<std::size_t>(g)] = std::max(group_marks_[static_cast<std::size_t>(g)], marks_[i]);
      }
    }
    marked_plan_ = &plan;
  }
  return group_marks_[static_cast<std::size_t>(group)];
}

NodeId Comparison::partner(NodeId id) const {
  if (!diff_ || mark(id) == Mark::None) return -1;
  const auto& b_to_a = diff_->match.b_to_a;
  return static_cast<std::size_t>(id) < b_to_a.size() ? b_to_a[static_cast<std::size_t>(id)] : -1;
}

std::optional<double> Comparison::otherValueOf(NodeId other_id) const {
  if (other_id < 0 || static_cast<std::size_t>(other_id) >= other_values_.size()) return std::nullopt;
  return other_values_[static_cast<std::size_t>(other_id)];
}

std::optional<double> Comparison::otherValue(NodeId id) const { return otherValueOf(partner(id)); }

QString Comparison::markName(Mark m) {
  switch (m) {
    case Mark::Added: return tr("added");
    case Mark::Changed: return tr("changed");
    case Mark::LostInput: return tr("a removed node fed it");
    case Mark::ValueDiffers: return tr("value differs");
    case Mark::Same: return tr("same");
    case Mark::None: break;
  }
  return {};
}

QColor Comparison::fill(Mark m) {
  switch (m) {
    case Mark::Added: return QColor(0xc8, 0xf0, 0xc8);
    case Mark::Changed: return QColor(0xff, 0xdf, 0xa0);
    case Mark::ValueDiffers: return QColor(0xf0, 0xd4, 0xf6);
    default: return {};  // invalid: the view keeps its own fill
  }
}

QColor Comparison::border(Mark m) {
  switch (m) {
    case Mark::Added: return QColor(0x2e, 0x9d, 0x3a);
    case Mark::Changed: return QColor(0xd0, 0x80, 0x00);
    case Mark::LostInput: return QColor(0xd9, 0x30, 0x25);
    case Mark::ValueDiffers: return QColor(0xa0, 0x30, 0xb8);
    default: return {};
  }
}

QString Comparison::detailHtml(NodeId id) const {
  const Mark m = mark(id);
  if (m == Mark::None || !diff_) return {};
  const NodeId a = partner(id);
  QString html = QStringLiteral("<hr>") + tr("compared with <b>%1</b>: %2").arg(label_.toHtmlEscaped(), markName(m));
  bool own = false;
  for (const auto& c : diff_->changed)
    if (c.b == id) {
      QStringList fields;
      for (auto f : node_field_names(c.fields)) fields << QString::fromUtf8(f.data(), static_cast<qsizetype>(f.size()));
      html += QStringLiteral(" (%1)").arg(fields.join(QStringLiteral(", ")));
      own = true;
    }
  if (m == Mark::Changed && !own)
    for (NodeId arg : current_->nodes[static_cast<std::size_t>(id)].args)
      if (current_->nodes[static_cast<std::size_t>(arg)].op == Op::Constant && mark(arg) == Mark::Changed)
        html += QStringLiteral(" ") + tr("(its constant %1 changed)").arg(QStringLiteral("%") + QString::number(arg));
  const auto& shown = session_->displayValues();
  const auto i = static_cast<std::size_t>(id);
  const QString mine = i < shown.size() ? num(shown[i]) : tr("n/a");
  if (a < 0) {
    html += QStringLiteral("<br>") + tr("this side: <b>%1</b> &nbsp; other side: no such node").arg(mine);
    return html;
  }
  const auto theirs = otherValueOf(a);
  html += QStringLiteral("<br>") + tr("this side: <b>%1</b> &nbsp; other side (%2): <b>%3</b>")
                                       .arg(mine, QStringLiteral("%") + QString::number(a), theirs ? num(*theirs) : tr("not run"));
  if (m == Mark::Changed)
    html += QStringLiteral("<br>") + tr("other side: <tt>%1</tt>").arg(QString::fromStdString(node_text(*other_, a)).toHtmlEscaped());
  return html;
}

void paint_compare_legend(QPainter& p, const QRect& area, const Comparison& c) {
  const std::pair<Comparison::Mark, QString> keys[] = {
      {Comparison::Mark::Added, Comparison::markName(Comparison::Mark::Added)},
      {Comparison::Mark::Changed, Comparison::markName(Comparison::Mark::Changed)},
      {Comparison::Mark::LostInput, Comparison::markName(Comparison::Mark::LostInput)},
      {Comparison::Mark::ValueDiffers, Comparison::markName(Comparison::Mark::ValueDiffers)}};
  QFont f = p.font();
  f.setPointSizeF(7.5);
  p.setFont(f);
  const QFontMetrics fm(f);
  const QString title = Comparison::tr("compared with %1").arg(c.label());
  int w = fm.horizontalAdvance(title);
  for (const auto& [m, name] : keys) w = std::max(w, 22 + fm.horizontalAdvance(name));
  const int row = fm.height() + 2;
  const QRect box(area.left() + 8, area.bottom() - 24 - row * 5 - 8, w + 14, row * 5 + 8);
  p.fillRect(box, QColor(255, 255, 255, 230));
  p.setPen(QColor(0xb0, 0xb4, 0xbc));
  p.drawRect(box);
  p.setPen(QColor(0x44, 0x4a, 0x55));
  p.drawText(QRect(box.left() + 7, box.top() + 4, w, row), Qt::AlignLeft | Qt::AlignVCenter, title);
  int y = box.top() + 4 + row;
  for (const auto& [m, name] : keys) {
    const QRect sw(box.left() + 7, y + 2, 16, row - 4);
    QPen pen(Comparison::border(m), 2, m == Comparison::Mark::LostInput ? Qt::DashLine : Qt::SolidLine);
    p.setPen(pen);
    p.setBrush(Comparison::fill(m).isValid() ? Comparison::fill(m) : QColor(0xf4, 0xf4, 0xf6));
    p.drawRect(sw);
    p.setPen(QColor(0x44, 0x4a, 0x55));
    p.drawText(QRect(sw.right() + 6, y, w, row), Qt::AlignLeft | Qt::AlignVCenter, name);
    y += row;
  }
  p.setBrush(Qt::NoBrush);
}

}  // namespace views
}  // namespace tc
