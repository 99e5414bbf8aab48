#pragma once
// Chart colours from the palette and a focus frame (chart_theme.cpp); Qt Charts code, used by charts.cpp
// only.

#include <QColor>

class QChart;
class QChartView;
class QPalette;

namespace kvplan::gui {

/// Colours `chart` from `palette`: Qt Charts' dark theme under a dark palette (is_dark), the light one
/// otherwise (a theme change resets the series' colours: draw them again after it), then the background
/// the palette's Base colour, the title, legend and axis labels its Text colour and the grid lines its
/// Mid colour. Call it again after adding axes.
void apply_chart_palette(QChart* chart, const QPalette& palette);

/// `color`, or where it is too dark to read on a dark palette's background (lightness under 80 of 255):
/// a grey (HSL saturation under 40: the model's near-black curve, the memory-available line) becomes the
/// palette's Text colour, a colour keeps its hue at lightness 150 (the baseline's green stays green).
QColor readable_on(const QPalette& palette, const QColor& color);

/// Shows keyboard focus on a chart: while `view` has focus the chart's background has a frame in the
/// palette's Highlight colour (3 px), none otherwise.
void show_chart_focus(QChartView* view);

}  // namespace kvplan::gui
