#include "kvplan/gui/count_box.hpp"

#include <QFocusEvent>
#include <QKeyEvent>
#include <QKeySequence>
#include <QLineEdit>
#include <QStyle>
#include <QStyleOptionSpinBox>
#include <algorithm>

#include "kvplan/format.hpp"

namespace kvplan::gui {

CountBox::CountBox(QWidget* parent) : QAbstractSpinBox(parent) {
  setFocusPolicy(Qt::StrongFocus);
  setKeyboardTracking(false);
  connect(this, &QAbstractSpinBox::editingFinished, this, &CountBox::commit);
  showValue();
}

QString CountBox::textFor(std::uint64_t v, bool editing) const {
  if (editing) return QString::number(v);
  return QString::fromStdString(format_count(v)) + suffix_;
}

void CountBox::showValue() {
  const QString text = textFor(value_, hasFocus());
  if (lineEdit()->text() != text) lineEdit()->setText(text);
  lineEdit()->setModified(false);
}

void CountBox::setValue(std::uint64_t v) {
  value_ = std::clamp(v, min_, max_);
  showValue();
}

void CountBox::setRange(std::uint64_t lo, std::uint64_t hi) {
  min_ = lo;
  max_ = std::max(lo, hi);
  setValue(value_);
  updateGeometry();
}

void CountBox::setSuffix(const QString& suffix) {
  suffix_ = suffix;
  showValue();
  updateGeometry();
}

void CountBox::stepBy(int steps) {
  std::uint64_t v = value_;
  const auto n = static_cast<std::uint64_t>(steps < 0 ? -static_cast<std::int64_t>(steps) : steps);
  for (std::uint64_t i = 0; i < n; ++i)
    v = steps < 0 ? (v - min_ > step_ ? v - step_ : min_) : (max_ - v > step_ ? v + step_ : max_);
  if (v == value_) return;
  setValue(v);
  Q_EMIT textCommitted(QString::number(v));
}

QAbstractSpinBox::StepEnabled CountBox::stepEnabled() const {
  StepEnabled e = StepNone;
  if (value_ > min_) e |= StepDownEnabled;
  if (value_ < max_) e |= StepUpEnabled;
  return e;
}

QValidator::State CountBox::validate(QString&, int&) const { return QValidator::Acceptable; }

void CountBox::fixup(QString&) const {}

void CountBox::commit() {
  QString text = lineEdit()->text().trimmed();
  const QString suffix = suffix_.trimmed();
  if (!suffix.isEmpty() && text.endsWith(suffix)) text = text.chopped(suffix.size()).trimmed();
  if (text == textFor(value_, true) || text == textFor(value_, false).trimmed()) return;
  Q_EMIT textCommitted(text);
}

void CountBox::focusInEvent(QFocusEvent* event) {
  // Plain digits while editing: a separator appearing under the cursor would move the digits typed.
  if (!lineEdit()->isModified()) lineEdit()->setText(textFor(value_, true));
  QAbstractSpinBox::focusInEvent(event);
}

void CountBox::focusOutEvent(QFocusEvent* event) {
  QAbstractSpinBox::focusOutEvent(event);  // emits editingFinished: the typed text is committed
  showValue();
}

bool CountBox::event(QEvent* event) {
  if (event->type() == QEvent::ShortcutOverride && !lineEdit()->isModified()) {
    auto* key = static_cast<QKeyEvent*>(event);
    const QKeySequence pressed(key->keyCombination());
    if (key->matches(QKeySequence::Undo) || key->matches(QKeySequence::Redo) ||
        pressed == QKeySequence(QStringLiteral("Ctrl+Z")) ||
        pressed == QKeySequence(QStringLiteral("Ctrl+Shift+Z"))) {
      event->ignore();  // not overridden: the shortcut (Edit > Undo / Redo) fires
      return true;
    }
  }
  return QAbstractSpinBox::event(event);
}

QSize CountBox::sizeHint() const {
  ensurePolished();
  const QFontMetrics fm(font());
  const int w = fm.horizontalAdvance(textFor(max_, false)) + 8;
  QStyleOptionSpinBox opt;
  initStyleOption(&opt);
  return style()->sizeFromContents(QStyle::CT_SpinBox, &opt, QSize(w, lineEdit()->sizeHint().height()), this);
}

QSize CountBox::minimumSizeHint() const {
  ensurePolished();
  const QFontMetrics fm(font());
  const int w = fm.horizontalAdvance(textFor(std::min<std::uint64_t>(max_, 9'999'999), false)) + 8;
  QStyleOptionSpinBox opt;
  initStyleOption(&opt);
  return style()->sizeFromContents(QStyle::CT_SpinBox, &opt, QSize(w, lineEdit()->sizeHint().height()), this);
}

}  // namespace kvplan::gui
