#pragma once
// The circuit compared with another one: a second artifact, the file as last
// saved, or a run pinned earlier (the same circuit on another case or step).
// core/diff pairs the nodes and says what changed; this part keeps core's
// answer for the current program, the other side's values on the current
// case, and what each node of the current circuit is to show (added,
// changed, a removed node fed it, its value differs). The circuit view,
// the Inspector and the Compare dock read it; it never computes a diff of
// its own.
#include <QColor>
#include <QObject>
#include <QRect>
#include <QString>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "diff/diff.h"
#include "views/session.h"

class QPainter;

namespace tc {
namespace views {

struct GroupPlan;

class Comparison : public QObject, public Viewer {
  Q_OBJECT
 public:
  /// What a node (or group) of the current circuit shows, most telling first.
  enum class Mark : std::uint8_t { None, Same, ValueDiffers, LostInput, Changed, Added };
  enum class Kind { None, File, Pinned };

  explicit Comparison(Session* session, QObject* parent = nullptr);
  ~Comparison() override;

  /// Compares the current circuit with a .json artifact or a .py source
  /// (compiled with the current function). Asynchronous: false only when the
  /// file cannot be read; a rejected file arrives as failed().
  bool compareWithFile(const QString& path, QString* error);
  /// Compares with the open source as last saved (false with `error`: untitled, or an artifact).
  bool compareWithSaved(QString* error);
  /// Keeps the current circuit and its shown values (the case, or the
  /// timeline's step) as the other side: later runs are compared with it.
  bool pinRun(QString* error);
  void clear();

  [[nodiscard]] Kind kind() const { return kind_; }
  [[nodiscard]] bool active() const { return kind_ != Kind::None && diff_ != nullptr; }
  /// "gated.opt.json", "gated.py as saved", "pinned run (x=1, step 3)".
  [[nodiscard]] const QString& label() const { return label_; }
  [[nodiscard]] std::shared_ptr<const Program> other() const { return other_; }
  [[nodiscard]] std::shared_ptr<const Program> current() const { return current_; }
  /// core's result for (other, current): A is the other side, B the current one. Null until computed.
  [[nodiscard]] const Diff* diff() const { return diff_.get(); }

  /// The mark of node `id` of the current circuit.
  [[nodiscard]] Mark mark(NodeId id) const;
  /// The strongest mark among a group's members (a group of the grouped layout).
  [[nodiscard]] Mark groupMark(const GroupPlan& plan, int group) const;
  /// The other side's node paired with `id` (-1: added).
  [[nodiscard]] NodeId partner(NodeId id) const;
  /// The other side's value of the node paired with `id` (nullopt: none, or not computed).
  [[nodiscard]] std::optional<double> otherValue(NodeId id) const;
  /// The other side's value of its own node `other_id`.
  [[nodiscard]] std::optional<double> otherValueOf(NodeId other_id) const;
  /// Nodes whose shown value differs from the other side's (paired nodes only), ascending.
  [[nodiscard]] const std::vector<NodeId>& valueDifferences() const { return value_diffs_; }
  /// For the Inspector: both sides of node `id` as HTML ("" when not comparing).
  [[nodiscard]] QString detailHtml(NodeId id) const;
  /// The colours the circuit view paints marks in (fill, border).
  static QColor fill(Mark m);
  static QColor border(Mark m);
  static QString markName(Mark m);

  void programChanged() override;
  void resultsChanged() override;
  void stepChanged() override { resultsChanged(); }

 signals:
  /// The comparison started, was recomputed or ended.
  void changed();
  void failed(const QString& title, const QString& text);

 private:
  void compareWith(const std::string& text, const std::string& name, bool artifact, const std::string& function,
                   const QString& label);
  void start(Kind kind, std::shared_ptr<const Program> other, const QString& label, std::vector<double> values);
  void rediff();
  void revalue();
  void remark();

  Session* session_;
  Kind kind_ = Kind::None;
  QString label_;
  std::shared_ptr<const Program> other_;
  std::shared_ptr<const Program> current_;  // the program diff_ was made for
  std::shared_ptr<const Diff> diff_;
  std::vector<double> other_values_;  // per other node: pinned, or run on the current case
  std::vector<Mark> marks_;           // per current node
  std::vector<NodeId> value_diffs_;
  mutable const GroupPlan* marked_plan_ = nullptr;  // groupMark's cache
  mutable std::vector<Mark> group_marks_;
};

/// The circuit view's key to the marks, bottom left of `area`, with the other side's name.
void paint_compare_legend(QPainter& p, const QRect& area, const Comparison& c);

}  // namespace views
}  // namespace tc
