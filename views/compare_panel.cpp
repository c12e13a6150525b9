// The Compare dock (views/compare_panel.h): core's diff as rows to click through.
#include "views/compare_panel.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <cmath>

#include "ir/printer.h"

namespace tc {
namespace views {
namespace {

QString qs(const std::string& s) { return QString::fromStdString(s); }
QString num(double v) { return std::isnan(v) ? QObject::tr("not computed") : QString::fromStdString(format_number(v)); }

/// A node as the IR names it ("%7"); passed to arg() as text, so no "%%" is ever scanned for placeholders.
QString pct(NodeId id) { return QStringLiteral("%") + QString::number(id); }

QString line_of(const Program& p, NodeId id) {
  QString t = pct(id) + QLatin1Char(' ') + qs(node_text(p, id));
  if (t.size() > 90) t = t.left(87) + QStringLiteral("...");
  return t;
}

QString fields_of(unsigned fields) {
  QStringList out;
  for (auto f : node_field_names(fields)) out << QString::fromUtf8(f.data(), static_cast<qsizetype>(f.size()));
  return out.join(QStringLiteral(", "));
}

}  // namespace

ComparePanel::ComparePanel(Session* session, Comparison* comparison, QWidget* parent)
    : QWidget(parent), session_(session), comparison_(comparison) {
  auto* lay = new QVBoxLayout(this);
  lay->setContentsMargins(4, 4, 4, 4);
  auto* top = new QHBoxLayout;
  summary_ = new QLabel(this);
  summary_->setObjectName(QStringLiteral("CompareSummary"));
  summary_->setWordWrap(true);
  stop_ = new QPushButton(tr("Stop Comparing"), this);
  stop_->setObjectName(QStringLiteral("StopComparing"));
  top->addWidget(summary_, 1);
  top->addWidget(stop_);
  lay->addLayout(top);
  list_ = new QTreeWidget(this);
  list_->setObjectName(QStringLiteral("CompareList"));
  list_->setColumnCount(3);
  list_->setHeaderLabels({tr("Difference"), tr("This side"), tr("Other side")});
  list_->setUniformRowHeights(true);
  list_->header()->setStretchLastSection(true);
  lay->addWidget(list_, 1);
  connect(stop_, &QPushButton::clicked, comparison_, &Comparison::clear);
  connect(comparison_, &Comparison::changed, this, &ComparePanel::rebuild);
  connect(list_, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem* item) {
    if (!item) return;
    const NodeId id = item->data(0, Qt::UserRole).toInt();
    if (id >= 0) session_->selectAndCentre(id);
  });
  rebuild();
}

QString ComparePanel::summary() const { return summary_->text(); }

QTreeWidgetItem* ComparePanel::row(QTreeWidgetItem* parent, const QString& what, const QString& mine, const QString& theirs,
                                   NodeId id) {
  auto* item = new QTreeWidgetItem(parent, {what, mine, theirs});
  item->setData(0, Qt::UserRole, id);
  if (id < 0) item->setForeground(0, QColor(0x70, 0x70, 0x78));
  return item;
}

void ComparePanel::rebuild() {
  list_->clear();
  const Diff* d = comparison_->diff();
  stop_->setEnabled(comparison_->kind() != Comparison::Kind::None);
  if (comparison_->kind() == Comparison::Kind::None) {
    summary_->setText(tr("Not comparing. File > Compare with Artifact or Compare with Saved Version diffs the circuit with another "
                         "one; Run > Pin This Run keeps the current values to compare later runs and steps with."));
    return;
  }
  if (!d || !comparison_->current() || !comparison_->other()) {
    summary_->setText(tr("Comparing with %1…").arg(comparison_->label()));
    return;
  }
  const Program& mine = *comparison_->current();
  const Program& theirs = *comparison_->other();
  const std::size_t diffs = comparison_->valueDifferences().size();
  summary_->setText(tr("Compared with <b>%1</b>: %2 changed, %3 added, %4 removed, %5 unchanged; %6 value(s) differ on this case.")
                        .arg(comparison_->label().toHtmlEscaped(), QString::number(d->changed.size()), QString::number(d->added.size()),
                             QString::number(d->removed.size()), QString::number(d->unchanged), QString::number(diffs)));
  auto section = [&](const QString& title, std::size_t count) {
    auto* s = new QTreeWidgetItem(list_, {QStringLiteral("%1 (%2)").arg(title).arg(count)});
    s->setData(0, Qt::UserRole, -1);
    s->setFirstColumnSpanned(true);
    s->setExpanded(true);
    return s;
  };
  auto more = [&](QTreeWidgetItem* s, std::size_t total) {
    if (total > static_cast<std::size_t>(kRowsPerList)) row(s, tr("… and %1 more").arg(total - kRowsPerList), {}, {}, -1);
  };
  if (!d->program.empty()) {
    auto* s = section(tr("Program"), d->program.size());
    for (const auto& f : d->program) row(s, qs(f.field), qs(f.b), qs(f.a), -1);
  }
  if (!d->leaves.empty()) {
    auto* s = section(tr("Inputs, parameters and state"), d->leaves.size());
    for (const auto& l : d->leaves) {
      const Node* nb = l.b ? &mine.nodes[static_cast<std::size_t>(*l.b)] : nullptr;
      const Node* na = l.a ? &theirs.nodes[static_cast<std::size_t>(*l.a)] : nullptr;
      const auto& n = nb ? *nb : *na;
      QString what = QStringLiteral("%1 %2: %3").arg(QString::fromUtf8(op_name(l.op).data()), qs(n.name), qs(std::string(to_string(l.status))));
      if (l.fields) what += QStringLiteral(" (%1)").arg(fields_of(l.fields));
      auto text = [](const Node* x) {
        if (!x) return QObject::tr("none");
        return x->op == Op::Input ? qs(x->name) : QStringLiteral("%1 = %2").arg(qs(x->name), num(x->value));
      };
      row(s, what, text(nb), text(na), l.b ? *l.b : -1);
    }
  }
  if (!d->outputs.empty()) {
    int n = 0;
    QTreeWidgetItem* s = nullptr;
    for (const auto& o : d->outputs) {
      const bool differs = o.status != ItemStatus::Same || !o.same_circuit || o.differing > 0;
      if (!differs) continue;
      if (!s) s = section(tr("Outputs"), 0);
      ++n;
      QString what = tr("output %1: %2").arg(qs(o.name), qs(std::string(to_string(o.status))));
      if (o.status == ItemStatus::Same || o.status == ItemStatus::Changed) what += o.same_circuit ? tr(", same circuit") : tr(", circuit changed");
      QString a, b;
      if (o.cases > 0) {
        what += o.differing ? tr(", differs on this case") : tr(", same value on this case");
        if (!o.examples.empty()) {
          const auto& e = o.examples.front();
          b = e.b ? num(*e.b) : tr("error: %1").arg(qs(e.b_error));
          a = e.a ? num(*e.a) : tr("error: %1").arg(qs(e.a_error));
        }
      }
      // Without a difference on the case (or without cases): the values the views show.
      if (b.isEmpty() && o.b && static_cast<std::size_t>(*o.b) < session_->displayValues().size() && session_->program() == comparison_->current())
        b = num(session_->displayValues()[static_cast<std::size_t>(*o.b)]);
      if (a.isEmpty() && o.a)
        if (auto v = comparison_->otherValueOf(*o.a)) a = num(*v);
      row(s, what, b, a, o.b ? *o.b : -1);
    }
    if (s) s->setText(0, tr("Outputs (%1)").arg(n));
  }
  if (!d->changed.empty()) {
    auto* s = section(tr("Changed nodes"), d->changed.size());
    for (std::size_t k = 0; k < d->changed.size() && k < static_cast<std::size_t>(kRowsPerList); ++k) {
      const auto& c = d->changed[k];
      row(s, tr("%1 changed (%2)").arg(pct(c.b), fields_of(c.fields)), line_of(mine, c.b), line_of(theirs, c.a), c.b);
    }
    more(s, d->changed.size());
  }
  if (!d->added.empty()) {
    auto* s = section(tr("Added nodes"), d->added.size());
    for (std::size_t k = 0; k < d->added.size() && k < static_cast<std::size_t>(kRowsPerList); ++k)
      row(s, tr("%1 added").arg(pct(d->added[k])), line_of(mine, d->added[k]), {}, d->added[k]);
    more(s, d->added.size());
  }
  if (!d->removed.empty()) {
    auto* s = section(tr("Removed nodes"), d->removed.size());
    // A removed node is not in this circuit: its row selects the first node here that it fed, if any.
    std::vector<NodeId> fed(theirs.nodes.size(), -1);
    for (const auto& n : theirs.nodes)
      for (NodeId arg : n.args) {
        const auto i = static_cast<std::size_t>(arg);
        const NodeId b = d->match.a_to_b[static_cast<std::size_t>(n.id)];
        if (fed[i] < 0 && b >= 0) fed[i] = b;
      }
    for (std::size_t k = 0; k < d->removed.size() && k < static_cast<std::size_t>(kRowsPerList); ++k) {
      const NodeId a = d->removed[k];
      const NodeId user = fed[static_cast<std::size_t>(a)];
      row(s, user >= 0 ? tr("%1 removed (fed %2 here)").arg(pct(a), pct(user)) : tr("%1 removed").arg(pct(a)), {}, line_of(theirs, a), user);
    }
    more(s, d->removed.size());
  }
  const auto& vd = comparison_->valueDifferences();
  if (!vd.empty()) {
    auto* s = section(tr("Values that differ on this case"), vd.size());
    const auto& shown = session_->displayValues();
    for (std::size_t k = 0; k < vd.size() && k < static_cast<std::size_t>(kRowsPerList); ++k) {
      const NodeId id = vd[k];
      const auto other = comparison_->otherValue(id);
      row(s, line_of(mine, id), static_cast<std::size_t>(id) < shown.size() ? num(shown[static_cast<std::size_t>(id)]) : QString(),
          other ? num(*other) : QString(), id);
    }
    more(s, vd.size());
  }
  if (list_->topLevelItemCount() == 0) row(list_->invisibleRootItem(), tr("no differences"), {}, {}, -1);
  list_->resizeColumnToContents(0);
}

bool ComparePanel::step(int direction) {
  // The rows that name a node here, in list order.
  std::vector<QTreeWidgetItem*> rows;
  for (QTreeWidgetItemIterator it(list_); *it; ++it)
    if ((*it)->data(0, Qt::UserRole).toInt() >= 0) rows.push_back(*it);
  if (rows.empty()) return false;
  const auto at = std::find(rows.begin(), rows.end(), list_->currentItem());
  const int n = static_cast<int>(rows.size());
  int k = at == rows.end() ? (direction > 0 ? 0 : n - 1) : static_cast<int>(at - rows.begin()) + direction;
  k = ((k % n) + n) % n;
  list_->setCurrentItem(rows[static_cast<std::size_t>(k)]);
  list_->scrollToItem(rows[static_cast<std::size_t>(k)]);
  return true;
}

}  // namespace views
}  // namespace tc
