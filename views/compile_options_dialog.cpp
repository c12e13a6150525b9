#include "views/compile_options_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>

#include <limits>

namespace tc {
namespace views {

CompileOptionsDialog::CompileOptionsDialog(const CompileDirectives& current, QWidget* parent) : QDialog(parent) {
  setObjectName(QStringLiteral("CompileOptionsDialog"));
  setWindowTitle(tr("Compile Options"));
  const CompileOptions defaults;
  auto* form = new QFormLayout(this);
  dtype_ = new QComboBox(this);
  dtype_->addItem(QStringLiteral("float64"));
  dtype_->addItem(QStringLiteral("float32"));
  dtype_->setCurrentIndex(current.dtype.value_or(defaults.dtype) == Dtype::Float32 ? 1 : 0);
  dtype_->setToolTip(tr("The number type the circuit computes in"));
  form->addRow(tr("&Dtype:"), dtype_);
  auto budget = [this](std::size_t value, const QString& tip) {
    auto* box = new QSpinBox(this);
    box->setRange(1, std::numeric_limits<int>::max());
    box->setGroupSeparatorShown(false);
    box->setValue(static_cast<int>(std::min<std::size_t>(value, static_cast<std::size_t>(std::numeric_limits<int>::max()))));
    box->setToolTip(tip);
    return box;
  };
  iterations_ = budget(current.max_iterations.value_or(defaults.max_iterations),
                       tr("Loop iterations the compiler may expand, all loops of the function together"));
  form->addRow(tr("Max &iterations:"), iterations_);
  nodes_ = budget(current.max_nodes.value_or(defaults.max_nodes), tr("Nodes the circuit may have"));
  form->addRow(tr("Max &nodes:"), nodes_);
  auto* note = new QLabel(tr("Saved in the file as a '# tensorcode: compile' line."), this);
  note->setWordWrap(true);
  form->addRow(note);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel | QDialogButtonBox::RestoreDefaults, this);
  form->addRow(buttons);
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  connect(buttons->button(QDialogButtonBox::RestoreDefaults), &QPushButton::clicked, this, [this, defaults] {
    dtype_->setCurrentIndex(0);
    iterations_->setValue(static_cast<int>(defaults.max_iterations));
    nodes_->setValue(static_cast<int>(defaults.max_nodes));
  });
}

CompileDirectives CompileOptionsDialog::directives() const {
  const CompileOptions defaults;
  CompileDirectives d;
  const Dtype dtype = dtype_->currentIndex() == 1 ? Dtype::Float32 : Dtype::Float64;
  if (dtype != defaults.dtype) d.dtype = dtype;
  const auto iterations = static_cast<std::size_t>(iterations_->value());
  if (iterations != defaults.max_iterations) d.max_iterations = iterations;
  const auto nodes = static_cast<std::size_t>(nodes_->value());
  if (nodes != defaults.max_nodes) d.max_nodes = nodes;
  return d;
}

}  // namespace views
}  // namespace tc
