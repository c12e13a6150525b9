#pragma once
// The inputs panel, the inspector (values and gradients) and the IR text view.
#include <QAbstractTableModel>
#include <QPlainTextEdit>
#include <QWidget>

#include "views/session.h"

class QCheckBox;
class QComboBox;
class QToolButton;
class QLabel;
class QSlider;
class QTableView;
class QTableWidget;

namespace tc {
namespace views {

/// Domain (type, min, max) and current value of every parameter.
class InputsPanel : public QWidget, public Viewer {
  Q_OBJECT
 public:
  explicit InputsPanel(Session* session, QWidget* parent = nullptr);
  ~InputsPanel() override;
  void programChanged() override;
  void resultsChanged() override;
  void stepChanged() override;
  /// Row of parameter `name` (for tests and for jumping from verify mismatches).
  [[nodiscard]] int rowOf(const QString& name) const;
  [[nodiscard]] QTableWidget* table() const { return table_; }
  /// Puts a case into the value column and evaluates it.
  void applyCase(const Case& c);
  /// The named-case selector and its buttons.
  [[nodiscard]] QComboBox* caseBox() const { return cases_; }
  [[nodiscard]] QToolButton* addCaseButton() const { return addCase_; }
  [[nodiscard]] QToolButton* renameCaseButton() const { return renameCase_; }
  /// The check box of a bool input's value cell (null for other rows).
  [[nodiscard]] QCheckBox* checkBoxOf(const QString& name) const;
  /// The line under the table: the outputs, or why the last edit was refused.
  [[nodiscard]] QString resultText() const;

 private:
  void rebuild();
  void showValues();
  void commitDomain(int row);
  void commitValue(int row);

  void rebuildCases();
  [[nodiscard]] bool isParameterRow(int row) const { return row >= static_cast<int>(shown_.size()); }
  Session* session_;
  QComboBox* function_;
  QComboBox* cases_;
  QToolButton* addCase_;
  QToolButton* renameCase_;
  std::vector<std::string> shownParams_;
  QTableWidget* table_;
  QLabel* result_;
  QLabel* stepNote_;
  std::vector<InputSpec> shown_;
  bool building_ = false;
};

/// Per-node values and gradients of the current case.
class InspectorModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { Node, Value, ExactGrad, ChosenGrad, Branch, ChosenValue, Interval, ColumnCount };
  explicit InspectorModel(Session* session, QObject* parent = nullptr);
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;
  void reset();

 private:
  Session* session_;
};

class InspectorPanel : public QWidget, public Viewer {
  Q_OBJECT
 public:
  explicit InspectorPanel(Session* session, QWidget* parent = nullptr);
  ~InspectorPanel() override;
  void programChanged() override;
  void resultsChanged() override;
  void selectionChanged() override;
  void stepChanged() override { resultsChanged(); }

  [[nodiscard]] QComboBox* semanticsBox() const { return semantics_; }
  [[nodiscard]] QSlider* temperatureSlider() const { return temperature_; }
  /// The detail text shown for the selected node (tests read it).
  [[nodiscard]] QString detailText() const;
  [[nodiscard]] InspectorModel* model() const { return model_; }
  [[nodiscard]] QTableView* tableView() const { return table_; }
  /// Temperature from a slider position (log scale 0.05 .. 20).
  static double temperatureAt(int position);
  /// While `c` compares, the detail shows the other side's node and value beside this one.
  void setComparison(const class Comparison* c);

 private:
  void updateDetail();
  const class Comparison* comparison_ = nullptr;
  Session* session_;
  QComboBox* semantics_;
  QSlider* temperature_;
  QLabel* temperatureLabel_;
  QComboBox* output_;
  QLabel* detail_;
  QTableView* table_;
  InspectorModel* model_;
  bool syncing_ = false;
};

/// The disassembly, one line per node, linked to the selection both ways.
class IrTextView : public QPlainTextEdit, public Viewer {
  Q_OBJECT
 public:
  explicit IrTextView(Session* session, QWidget* parent = nullptr);
  ~IrTextView() override;
  void programChanged() override;
  void selectionChanged() override;
  void resultsChanged() override { updateHeader(); }
  [[nodiscard]] int firstNodeLine() const { return first_node_line_; }
  /// The first line: semantics (the Inspector's), dtype, node count.
  [[nodiscard]] QString headerText() const;
  /// The node on block `line` of the listing (-1 for a header line).
  [[nodiscard]] NodeId nodeOnLine(int line) const;

 protected:
  void contextMenuEvent(QContextMenuEvent* ev) override;
  /// Ctrl+C with nothing selected is left to Edit > Copy (it copies the selected node's IR line).
  bool event(QEvent* ev) override;

 private:
  void updateHeader();
  QString header_;
  Session* session_;
  int first_node_line_ = 1;
  bool programmatic_ = false;
  std::shared_ptr<const Program> shown_;
};

}  // namespace views
}  // namespace tc
