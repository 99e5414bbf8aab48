#pragma once
/// @file bench_chart.hpp
/// The one class with Qt Charts code in kvplan-bench (Qt Charts is deprecated from Qt 6.10: keep it
/// replaceable): median time against n on log-log axes, one line per run, and the fitted
/// t = a + b n + c n^2 of each run dashed in the same colour.

#include <memory>
#include <vector>

#include <QSize>
#include <QString>

#include "kvplan/bench/report.hpp"

class QChartView;

namespace kvplan::bench {

class BenchChart {
 public:
  /// Builds the chart; a QApplication must exist. Series without points are left out.
  BenchChart(const std::vector<Series>& series, const QString& title);
  ~BenchChart();
  BenchChart(const BenchChart&) = delete;
  BenchChart& operator=(const BenchChart&) = delete;

  /// Renders at `size` pixels and writes a PNG through a temporary and a rename (a failed write
  /// leaves the previous file and no temporary); false with `error` ("PATH: cannot be written:
  /// REASON") when the file cannot be written.
  bool save_png(const QString& path, QSize size, QString* error) const;

 private:
  std::unique_ptr<QChartView> view_;  ///< owns the chart
};

}  // namespace kvplan::bench
