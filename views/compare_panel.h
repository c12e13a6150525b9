#pragma once
// The Compare dock: what core's diff found between the current circuit and
// the other side (program settings, inputs and parameters, outputs on the
// current case, changed, added and removed nodes, values that differ), one
// row each; a click selects the row's node in every view.
#include <QWidget>

#include "views/comparison.h"

class QLabel;
class QPushButton;
class QTreeWidget;
class QTreeWidgetItem;

namespace tc {
namespace views {

class ComparePanel : public QWidget {
  Q_OBJECT
 public:
  ComparePanel(Session* session, Comparison* comparison, QWidget* parent = nullptr);

  [[nodiscard]] QTreeWidget* list() const { return list_; }
  [[nodiscard]] QString summary() const;
  /// Selects the next (or previous) row that names a node of this circuit, wrapping; false when none does.
  bool step(int direction);
  /// Rows shown per list before "… and N more" (the rest stays in core's JSON and text forms).
  static constexpr int kRowsPerList = 500;

 private:
  void rebuild();
  QTreeWidgetItem* row(QTreeWidgetItem* parent, const QString& what, const QString& mine, const QString& theirs, NodeId id);

  Session* session_;
  Comparison* comparison_;
  QLabel* summary_;
  QPushButton* stop_;
  QTreeWidget* list_;
};

}  // namespace views
}  // namespace tc
