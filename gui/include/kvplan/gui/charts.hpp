#pragma once
/// @file charts.hpp
/// The four charts on screen. This class and its .cpp are the only Qt Charts code in kvplan (Qt Charts
/// is deprecated from Qt 6.10): it renders ChartsData, so another backend replaces these two files.

#include <QRect>
#include <QString>
#include <QWidget>
#include <memory>

#include "kvplan/gui/chart_data.hpp"

class QPainter;

namespace kvplan::gui {

/// A 2 x 2 grid of charts: KV memory against context, per-GPU memory, max users, prefill cost, under one
/// caption line. On screen the charts' titles are their headings, so that an input step changes no chart
/// text (a text change lays a Qt chart out again, measuring every axis label); exports show full titles.
/// Progressive update: display() sets the caption and the memory bar at once and the other charts one per
/// event-loop turn (a zero timer; a newer display() restarts the chain from the first chart, in grid order),
/// so no single turn lays out and paints all four; a chart that is not on screen (hidden, scrolled out, a
/// collapsed splitter) is refreshed when it shows. Exports (paintChart) always draw the data last displayed.
class ChartPanel : public QWidget {
  Q_OBJECT

 public:
  /// The charts, in grid order.
  enum Chart { KvMemory = 0, GpuMemory = 1, MaxUsers = 2, PrefillCost = 3 };
  static constexpr int kCount = 4;

  explicit ChartPanel(QWidget* parent = nullptr);
  ~ChartPanel() override;

  /// Redraws every chart from `data`, reusing its series (no chart is rebuilt unless its lines change kind).
  /// The caption changes at once; each chart within the next event-loop turns (refreshPending()).
  void display(const ChartsData& data);

  /// Whether some chart still shows older data than display() was last given (a chart off screen
  /// waits to be shown; one on screen waits at most kCount event-loop turns).
  [[nodiscard]] bool refreshPending() const;
  /// Whether this chart still shows older data than display() was last given.
  [[nodiscard]] bool refreshPending(Chart chart) const;

  /// Whether the chain of refreshes is under way (a zero timer is started): false once every chart on
  /// screen is current.
  [[nodiscard]] bool refreshScheduled() const;

  /// Whether a person can see some of this chart now: shown, not scrolled out, not collapsed to nothing.
  [[nodiscard]] bool onScreen(Chart chart) const;

  /// Refreshes every pending chart now, on screen or not (before grabbing the window; tests).
  void refreshNow();

  /// Draws one chart as last displayed into `target` of `painter` (a QImage's, a QSvgGenerator's, a
  /// QPdfWriter's), laid out afresh at the target's size in pixels: an export at 1600 x 900 has a
  /// plot of that size with text at its normal size, not a scaled copy of the on-screen chart.
  void paintChart(Chart chart, QPainter* painter, const QRect& target) const;

  /// "KV memory vs context", ... : names for menus and file names.
  [[nodiscard]] static QString chartName(Chart chart);

  /// The widget showing one chart (for tests and grabbing).
  [[nodiscard]] QWidget* chartWidget(Chart chart) const;

  /// The title a chart shows on screen: its heading (XYChart::heading), the same for every input.
  [[nodiscard]] QString shownTitle(Chart chart) const;

  /// The line above the charts (ChartsData::caption): the model, users, parallelism, GPU and verdict
  /// that the full titles name, which exports keep.
  [[nodiscard]] QString caption() const;

  /// Series each chart shows now (for tests: the renderer keeps what it was given).
  [[nodiscard]] int seriesCount(Chart chart) const;

 protected:
  /// A palette change (a dark theme) colours the charts again (apply_chart_palette in chart_theme.cpp).
  void changeEvent(QEvent* event) override;
  /// A chart view shown or painted while it is pending and the chain is idle (it was off screen when the
  /// chain ran) is refreshed at once, before it paints, and the chain restarts for the others.
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  /// Refreshes the first pending chart on screen; starts the timer again while others remain.
  void refreshNext();
  /// Draws one chart from the data last displayed (display_xy / display_bar).
  void refreshChart(Chart chart);

  struct Impl;
  std::unique_ptr<Impl> d_;
};

}  // namespace kvplan::gui
