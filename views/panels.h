#pragma once
// The inputs panel, the inspector (values and gradients) and the IR text view.
#include <QAbstractTableModel>
#include <QPlainTextEdit>
#include <QWidget>

#include "views/session.h"

class QComboBox;
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
  /// Row of parameter `name` (for tests and for jumping from verify mismatches).
  [[nodiscard]] int rowOf(const QString& name) const;
  [[nodiscard]] QTableWidget* table() const { return table_; }
  /// Puts a case into the value column and evaluates it.
  void applyCase(const Case& c);

 private:
  void rebuild();
  void commitDomain(int row);
  void commitValue(int row);

  Session* session_;
  QComboBox* function_;
  QTableWidget* table_;
  QLabel* result_;
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
  /// Temperature from a slider position (log scale 0.05 .. 20).
  static double temperatureAt(int position);

 private:
  void updateDetail();
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
  [[nodiscard]] int firstNodeLine() const { return first_node_line_; }

 private:
  Session* session_;
  int first_node_line_ = 1;
  bool programmatic_ = false;
  std::shared_ptr<const Program> shown_;
};

}  // namespace views
}  // namespace tc
