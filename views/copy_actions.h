#pragma once
// A debugger's copy habits: the texts a node is copied as (its value, its id,
// its IR line, one Inspector row) and the context menu every view that shows
// nodes offers (circuit, Inspector, IR text). "Show in Source" goes through
// the session, which the main window answers by moving the editor.
#include <QString>

#include "ir/program.h"

class QMenu;
class QWidget;

namespace tc {
namespace views {

class Session;

/// The node's shown value in full precision ("" when none), its id as the IR writes it ("%7"),
/// and its IR line ("%7 = div %3, %5": core's node_line, the `tensorcode info --ir` line without
/// its layer and location).
QString nodeValueText(const Session& session, NodeId id);
QString nodeIdText(NodeId id);
QString nodeIrLine(const Session& session, NodeId id);
/// One Inspector row as tab-separated text: node, value, both gradients, branch, interval.
QString nodeRowText(const Session& session, NodeId id);

/// Adds Copy Value, Copy Node Id, Copy IR Line and Show in Source for node `id` to `menu`.
void addNodeActions(QMenu* menu, Session* session, NodeId id);

}  // namespace views
}  // namespace tc
