// Chart colours from the palette and a focus frame (chart_theme.hpp).
#include "chart_theme.hpp"

#include <QAbstractAxis>
#include <QChart>
#include <QChartView>
#include <QEvent>
#include <QLegend>
#include <QPalette>

#include "kvplan/gui/tables.hpp"

namespace kvplan::gui {

namespace {
/// Frames the chart of a view while the view has focus.
class FocusFrame : public QObject {
 public:
  explicit FocusFrame(QChartView* view) : QObject(view), view_(view) {}
  bool eventFilter(QObject* watched, QEvent* event) override {
    if (event->type() == QEvent::FocusIn || event->type() == QEvent::FocusOut) {
      const QPen pen = event->type() == QEvent::FocusIn ? QPen(view_->palette().color(QPalette::Highlight), 3)
                                                        : QPen(Qt::NoPen);
      view_->chart()->setBackgroundPen(pen);
    }
    return QObject::eventFilter(watched, event);
  }

 private:
  QChartView* view_;
};
}  // namespace

void apply_chart_palette(QChart* chart, const QPalette& palette) {
  const QChart::ChartTheme theme = is_dark(palette) ? QChart::ChartThemeDark : QChart::ChartThemeLight;
  if (chart->theme() != theme) {
    const QFont title = chart->titleFont();
    const QPen frame = chart->backgroundPen();
    chart->setTheme(theme);  // resets fonts, pens and series colours
    chart->setTitleFont(title);
    chart->setBackgroundPen(frame);
  }
  const QColor text = palette.color(QPalette::Text), mid = palette.color(QPalette::Mid);
  if (chart->backgroundBrush().color() != palette.color(QPalette::Base))
    chart->setBackgroundBrush(palette.color(QPalette::Base));
  if (chart->titleBrush().color() != text) chart->setTitleBrush(text);
  if (chart->legend()->labelColor() != text) chart->legend()->setLabelColor(text);
  for (QAbstractAxis* a : chart->axes()) {
    if (a->labelsBrush().color() != text) a->setLabelsBrush(text);
    if (a->titleBrush().color() != text) a->setTitleBrush(text);
    if (a->gridLineColor() != mid) a->setGridLineColor(mid);
    if (a->linePenColor() != mid) a->setLinePenColor(mid);
  }
}

QColor readable_on(const QPalette& palette, const QColor& color) {
  if (!is_dark(palette) || color.lightness() >= 80) return color;
  // A grey (the reference lines) takes the text colour; a hue keeps its hue, lighter: the baseline's
  // green became white, like the "available for KV" and "users asked" lines beside it (issue 27).
  if (color.hslSaturation() < 40) return palette.color(QPalette::Text);
  return QColor::fromHsl(color.hslHue(), color.hslSaturation(), 150);
}

void show_chart_focus(QChartView* view) { view->installEventFilter(new FocusFrame(view)); }

}  // namespace kvplan::gui
