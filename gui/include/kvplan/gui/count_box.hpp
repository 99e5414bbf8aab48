#pragma once
/// @file count_box.hpp
/// CountBox: a spin box for a positive count that is typed as the CLI takes it ("131072", "128k",
/// "32Ki", "131,072"). It parses nothing itself: Enter, or leaving the box, hands the typed text to
/// whoever listens (textCommitted), which parses it with core's parser and shows an error when it
/// cannot. Nothing is sent while typing, so no digit is ever reformatted under the cursor.

#include <QAbstractSpinBox>
#include <QString>
#include <cstdint>
#include <limits>

namespace kvplan::gui {

/// A positive-count box: thousands separators and the suffix only while it is not being edited
/// (focused, it shows plain digits); the arrows and Up/Down step it by singleStep() within the range
/// and send the new value as text. Values are uint64 (no int range).
class CountBox : public QAbstractSpinBox {
  Q_OBJECT

 public:
  explicit CountBox(QWidget* parent = nullptr);

  /// The value shown (the last one set or stepped to).
  [[nodiscard]] std::uint64_t value() const { return value_; }
  /// Shows `v` (clamped to the range); emits nothing. A text being typed is replaced.
  void setValue(std::uint64_t v);
  /// The range the arrows step within (a typed value is the listener's to check).
  void setRange(std::uint64_t lo, std::uint64_t hi);
  /// The amount one arrow step adds or removes (at least 1).
  void setSingleStep(std::uint64_t step) { step_ = step == 0 ? 1 : step; }
  /// Shown after the number when the box is not being edited (" tokens"); a typed one is dropped.
  void setSuffix(const QString& suffix);

  /// The text shown for `v`: "131,072 tokens" when not editing, "131072" when editing.
  [[nodiscard]] QString textFor(std::uint64_t v, bool editing) const;

  void stepBy(int steps) override;
  /// Every text is acceptable while typing: the listener parses it on Enter and reports errors.
  QValidator::State validate(QString& input, int& pos) const override;
  void fixup(QString& input) const override;
  [[nodiscard]] QSize sizeHint() const override;
  [[nodiscard]] QSize minimumSizeHint() const override;

 Q_SIGNALS:
  /// The user finished typing a text other than the value's (Enter or focus out), or stepped:
  /// the text without the suffix, as typed.
  void textCommitted(const QString& text);

 protected:
  [[nodiscard]] StepEnabled stepEnabled() const override;
  void focusInEvent(QFocusEvent* event) override;
  void focusOutEvent(QFocusEvent* event) override;
  /// Undo and redo keys (Ctrl+Z, Ctrl+Shift+Z, the platform's) go to the window's undo stack unless
  /// text is being typed: the line edit's own undo had nothing to undo once a value was applied, and
  /// took the keys from the window's Edit > Undo.
  bool event(QEvent* event) override;

 private:
  void commit();
  void showValue();

  std::uint64_t value_ = 1;
  std::uint64_t min_ = 1;
  std::uint64_t max_ = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t step_ = 1;
  QString suffix_;
};

}  // namespace kvplan::gui
