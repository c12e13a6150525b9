#include "views/copy_actions.h"

#include <QAction>
#include <QClipboard>
#include <QGuiApplication>
#include <QMenu>

#include <cmath>

#include "ir/printer.h"
#include "views/session.h"

namespace tc {
namespace views {
namespace {

QString number_or_empty(const std::vector<double>& v, NodeId id) {
  const auto i = static_cast<std::size_t>(id);
  if (id < 0 || i >= v.size() || std::isnan(v[i])) return {};
  return QString::fromStdString(format_number(v[i]));
}

bool valid(const Session& session, NodeId id) {
  const auto p = session.program();
  return p && id >= 0 && static_cast<std::size_t>(id) < p->nodes.size();
}

}  // namespace

QString nodeValueText(const Session& session, NodeId id) { return number_or_empty(session.displayValues(), id); }

QString nodeIdText(NodeId id) { return QStringLiteral("%%1").arg(id); }

QString nodeIrLine(const Session& session, NodeId id) {
  if (!valid(session, id)) return {};
  return QString::fromStdString(node_line(*session.program(), id));
}

QString nodeRowText(const Session& session, NodeId id) {
  if (!valid(session, id)) return {};
  QStringList cells{nodeIrLine(session, id), nodeValueText(session, id), number_or_empty(session.exactGrad().adjoint, id),
                    number_or_empty(session.chosenGrad().adjoint, id)};
  const auto& b = session.exactRun().trace.branch;
  const auto i = static_cast<std::size_t>(id);
  cells << (i < b.size() && b[i] >= 0 ? (b[i] ? QStringLiteral("yes") : QStringLiteral("no")) : QString());
  const auto& iv = session.analysis().intervals;
  cells << (i < iv.size() ? QStringLiteral("[%1, %2]").arg(QString::fromStdString(format_number(iv[i].first)),
                                                             QString::fromStdString(format_number(iv[i].second)))
                          : QString());
  return cells.join(QLatin1Char('\t'));
}

void addNodeActions(QMenu* menu, Session* session, NodeId id) {
  auto copy = [](const QString& text) { QGuiApplication::clipboard()->setText(text); };
  const QString value = nodeValueText(*session, id);
  auto* v = menu->addAction(QMenu::tr("Copy &Value"), menu, [copy, value] { copy(value); });
  v->setEnabled(!value.isEmpty());
  menu->addAction(QMenu::tr("Copy Node &Id"), menu, [copy, id] { copy(nodeIdText(id)); });
  const QString line = nodeIrLine(*session, id);
  menu->addAction(QMenu::tr("Copy IR &Line"), menu, [copy, line] { copy(line); });
  auto* show = menu->addAction(QMenu::tr("Show in &Source"), menu, [session, id] { session->showInSource(id); });
  const auto p = session->program();
  show->setEnabled(p && valid(*session, id) && p->nodes[static_cast<std::size_t>(id)].location && !session->readOnly());
}

}  // namespace views
}  // namespace tc
