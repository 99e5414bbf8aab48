// The engine option rows from core's option table (engine_rows.hpp).
#include "kvplan/gui/engine_rows.hpp"

#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QSignalBlocker>
#include <QSpinBox>
#include <algorithm>
#include <climits>
#include <type_traits>

#include "kvplan/format.hpp"

namespace kvplan::gui {

namespace {
QString qstr(std::string_view s) { return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size())); }

int clamp_int(std::uint64_t v) {
  return v > static_cast<std::uint64_t>(INT_MAX) ? INT_MAX : static_cast<int>(v);
}
}  // namespace

EngineRows::EngineRows(QFormLayout* form, QObject* parent) : QObject(parent), form_(form) {
  for (const EngineOptionSpec& spec : engine_option_table()) {
    QWidget* w = nullptr;
    switch (spec.kind) {
      case OptionKind::count:
      case OptionKind::tokens: {
        auto* s = new QSpinBox;
        // core's bound (validate_engine_options), so a box never shows a clamped value
        s->setRange(0, clamp_int(spec.max));
        s->setGroupSeparatorShown(true);
        s->setKeyboardTracking(false);
        s->setSpecialValueText(QStringLiteral("engine default"));
        connect(s, &QSpinBox::valueChanged, this, &EngineRows::edited);
        w = s;
        break;
      }
      case OptionKind::flag: {
        auto* c = new QCheckBox(qstr(spec.gui_label));
        connect(c, &QCheckBox::toggled, this, &EngineRows::edited);
        w = c;
        break;
      }
      case OptionKind::ratio: {
        auto* d = new QDoubleSpinBox;
        d->setRange(0.001, 1.0);  // (0, 1], as validate_engine_options takes it
        d->setDecimals(3);
        d->setSingleStep(0.05);
        d->setKeyboardTracking(false);
        connect(d, &QDoubleSpinBox::valueChanged, this, &EngineRows::edited);
        w = d;
        break;
      }
    }
    w->setObjectName(qstr(spec.key));
    w->setToolTip(qstr(spec.help) + QStringLiteral(" (") + qstr(spec.cli_flag) + QStringLiteral(")."));
    form_->addRow(spec.kind == OptionKind::flag ? QString() : qstr(spec.gui_label), w);
    form_->setRowVisible(w, false);
    rows_.push_back({&spec, w});
  }
}

void EngineRows::show(const EngineOptions& o) {
  for (const Row& r : rows_) {
    form_->setRowVisible(r.widget, engine_option_applies(*r.spec, o));  // a no-op when unchanged
    std::visit(
        [&](auto member) {
          using T = std::remove_cvref_t<decltype(o.*member)>;
          const QSignalBlocker block(r.widget);
          if constexpr (std::is_same_v<T, bool>) {
            static_cast<QCheckBox*>(r.widget)->setChecked(o.*member);
          } else if constexpr (std::is_same_v<T, double>) {
            static_cast<QDoubleSpinBox*>(r.widget)->setValue(o.*member);
          } else {
            auto* s = static_cast<QSpinBox*>(r.widget);
            const std::uint64_t d = r.spec->engine_default.at(static_cast<std::size_t>(o.engine));
            const QString text =
                d > 0 ? QStringLiteral("engine default (%1)").arg(QString::fromStdString(format_count(d)))
                      : QStringLiteral("engine default");
            if (s->specialValueText() != text) s->setSpecialValueText(text);
            s->setValue(clamp_int(o.*member));
          }
        },
        r.spec->member);
  }
}

void EngineRows::read(EngineOptions& o) const {
  for (const Row& r : rows_) {
    if (!engine_option_applies(*r.spec, o)) continue;
    std::visit(
        [&](auto member) {
          using T = std::remove_cvref_t<decltype(o.*member)>;
          if constexpr (std::is_same_v<T, bool>)
            o.*member = static_cast<QCheckBox*>(r.widget)->isChecked();
          else if constexpr (std::is_same_v<T, double>)
            o.*member = static_cast<QDoubleSpinBox*>(r.widget)->value();
          else
            o.*member = static_cast<std::uint64_t>(static_cast<QSpinBox*>(r.widget)->value());
        },
        r.spec->member);
  }
}

QWidget* EngineRows::widget(std::string_view key) const {
  const auto it =
      std::find_if(rows_.begin(), rows_.end(), [key](const Row& r) { return r.spec->key == key; });
  return it == rows_.end() ? nullptr : it->widget;
}

}  // namespace kvplan::gui
