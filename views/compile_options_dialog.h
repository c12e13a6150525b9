#pragma once
// Run > Compile Options: the dtype and the two budgets (max iterations, max
// nodes) a program compiles with. They are saved in the file as one
// `# tensorcode: compile ...` directive (core/frontend/compile.h), so the
// budget that a large loop needs travels with the source.
#include <QDialog>

#include "frontend/compile.h"

class QComboBox;
class QSpinBox;

namespace tc {
namespace views {

class CompileOptionsDialog : public QDialog {
  Q_OBJECT
 public:
  /// Shows `current` (settings the file does not give show their defaults).
  explicit CompileOptionsDialog(const CompileDirectives& current, QWidget* parent = nullptr);
  /// What the dialog holds, settings equal to their defaults left out (they need no directive).
  [[nodiscard]] CompileDirectives directives() const;
  [[nodiscard]] QComboBox* dtypeBox() const { return dtype_; }
  [[nodiscard]] QSpinBox* iterationsBox() const { return iterations_; }
  [[nodiscard]] QSpinBox* nodesBox() const { return nodes_; }

 private:
  QComboBox* dtype_;
  QSpinBox* iterations_;
  QSpinBox* nodes_;
};

}  // namespace views
}  // namespace tc
