#pragma once
/// @file chart_data.hpp
/// What the four charts draw, as plain data: titles, axis titles with units, ranges and point lists,
/// taken from the controller's Figures (bytes shown in GiB). The chart class renders this and
/// nothing else, so another chart library needs only a new renderer, and tests read the charts here.

#include <QColor>
#include <QList>
#include <QMap>
#include <QPointF>
#include <QString>
#include <QStringList>
#include <utility>

#include "kvplan/gui/controller.hpp"

namespace kvplan::gui {

/// One series of an x-y chart.
struct ChartLine {
  /// dotted: the pinned baseline's curves, apart from the dashed reference lines (available for KV,
  /// users asked) in any theme.
  enum class Style { line, dashed, dotted, markers };
  QString name;
  QList<QPointF> points;
  Style style = Style::line;
  QColor color;        ///< invalid: the chart theme's next colour
  bool legend = true;  ///< shown in the legend
  double width = 2;    ///< pen width in pixels (lines)
};

/// An x-y chart.
struct XYChart {
  QString title;    ///< the full title, naming the model and the deployment: exports and the report
  QString heading;  ///< the on-screen title: what the chart plots, the same for every input (the rest
                    ///< of the title is ChartsData::caption), so that an input step changes no chart text
  QString x_title;
  QString y_title;
  bool log_x = true;
  bool log_y = true;
  double x_min = 1, x_max = 10, y_min = 1, y_max = 10;
  QList<ChartLine> lines;     ///< drawn in order (the last on top)
  bool legend_right = false;  ///< legend beside the plot (many entries) instead of below it
  /// Ticks of a log x axis at powers of this base: 4 (256, 1,024 ...), or 16 where the plot is narrow
  /// (beside a legend) and "1048576" would not fit between ticks (Qt elides it).
  double x_log_base = 4;
  /// Legend names shown otherwise on screen: "available (70 GiB)" as "available for KV", its figure in
  /// ChartsData::caption, so that a step changes no legend text (exports show the full names).
  QMap<QString, QString> screen_names;
};

/// A single stacked bar (one GPU's memory).
struct StackedBar {
  QString title;    ///< the full title (GPU, usable memory, verdict): exports and the report
  QString heading;  ///< the on-screen title, the same for every input (see XYChart::heading)
  QString value_title;
  QString category;
  QStringList parts;
  QList<QColor> colors;
  QList<double> values;  ///< one per part, rounded to what its label shows (0.1 GiB; 0.01 under 10)
  QList<bool> labelled;  ///< one per part: wide enough for its value label inside it
  double value_max = 1;
  /// A labelled line across the bar at a value: the usable memory (GPU memory x utilisation), the GPU's
  /// capacity. Its name, with the value, is its legend entry.
  struct Mark {
    QString name;
    /// The legend's name on screen, short enough for the legend beside the bar at 1366 x 768 (the
    /// caption above the charts gives the figure): "usable (x 0.9)"; empty: `name`.
    QString screen_name;
    double value = 0;  ///< GiB
    QColor color;      ///< invalid: the palette's text colour
    bool dashed = false;
  };
  QList<Mark> marks;
};

/// The four charts.
struct ChartsData {
  XYChart kv_memory;  ///< 1. KV memory per GPU against context, the model and its variants, available KV
  StackedBar memory;  ///< 2. per-GPU memory: weights, KV, reserve (vLLM: its budget's parts), free
  XYChart max_users;  ///< 3. max concurrent users against context
  XYChart prefill;    ///< 4. relative prefill cost against prompt length, with measured points
  /// One line above the charts on screen: what the full titles say beyond the headings (the model, the
  /// users and parallelism, the GPU and count, the usable memory and the verdict).
  QString caption;
};

/// The y range of a log chart holding positive values from `lo` to `hi`: a factor 1.5 of room either
/// side, then out to whole decades (0.1, 1, 10 ...), so that most input steps keep the range and the
/// tick labels (a range change lays the chart out again). Returns {min, max}; lo = hi = 1 when
/// nothing is positive.
std::pair<double, double> log_range(double lo, double hi);

/// Bytes as GiB, for an axis (display only: every figure stays an integer in the Plan).
double to_gib(Bytes b);
/// Bytes in the axis unit of `units`: GiB (2^30 B) for IEC, GB (10^9 B) for SI, as core's
/// format_bytes names them (display only).
double in_axis_units(Bytes b, UnitSystem units);
/// The axis unit's name: "GiB" or "GB".
QString axis_unit_name(UnitSystem units);

/// Describes the charts of `f`; `model_title` names the model in titles; byte figures (axes, legends,
/// captions, the memory bar) in `units`. Only the marker lines and points depend on the context, and
/// their names do not, so a moving context slider redraws the markers and leaves titles and legends alone.
ChartsData describe_charts(const Figures& f, const QString& model_title, UnitSystem units = UnitSystem::iec);

}  // namespace kvplan::gui
