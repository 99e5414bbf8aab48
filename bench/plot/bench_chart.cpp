#include "bench_chart.hpp"

#include <algorithm>
#include <cmath>

#include <QChart>
#include <QChartView>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QPen>
#include <QPixmap>

#include "kvplan/gui/save_file.hpp"

namespace kvplan::bench {

namespace {
/// Warm colours for the naive backends, cool ones for the tiled: the two families stay apart at a glance.
const QColor kNaive[] = {QColor(0xd62728), QColor(0xff7f0e), QColor(0x8c564b),
                         QColor(0xe377c2), QColor(0xbcbd22), QColor(0x7f7f7f)};
const QColor kTiled[] = {QColor(0x1f77b4), QColor(0x17becf), QColor(0x2ca02c),
                         QColor(0x9467bd), QColor(0x393b79), QColor(0x637939)};

QString run_name(const Series& s) {
  QString name = QString::fromStdString(s.label);
  if (s.exponent) name += QString(" (n^%1)").arg(*s.exponent, 0, 'f', 2);
  return name;
}
}  // namespace

BenchChart::BenchChart(const std::vector<Series>& series, const QString& title)
    : view_(std::make_unique<QChartView>(new QChart)) {
  QChart* chart = view_->chart();
  view_->setRenderHint(QPainter::Antialiasing);
  chart->setTitle(title);
  auto* x = new QLogValueAxis;
  x->setBase(2);
  x->setLabelFormat("%g");
  x->setTitleText("sequence length n (tokens)");
  auto* y = new QLogValueAxis;
  y->setBase(10);
  y->setLabelFormat("%.0e");
  bool all_min = !series.empty();
  for (const Series& s : series) all_min = all_min && s.statistic == "min";
  y->setTitleText(all_min ? "time per forward pass (s), best of the timed runs"
                          : "median time per forward pass (s)");
  y->setMinorTickCount(-1);
  chart->addAxis(x, Qt::AlignBottom);
  chart->addAxis(y, Qt::AlignLeft);

  double n_lo = INFINITY, n_hi = 0, t_lo = INFINITY, t_hi = 0;
  std::size_t naive = 0, tiled = 0;
  for (const Series& s : series) {
    if (s.n.empty()) continue;
    const bool is_naive = s.backend.find("naive") != std::string::npos;
    const QColor c = is_naive ? kNaive[naive++ % std::size(kNaive)] : kTiled[tiled++ % std::size(kTiled)];
    auto* line = new QLineSeries;
    line->setName(run_name(s));
    line->setPointsVisible(true);
    line->setPen(QPen(c, 2));
    for (std::size_t i = 0; i < s.n.size(); ++i) {
      const double n = static_cast<double>(s.n[i]);
      line->append(n, s.seconds[i]);
      n_lo = std::min(n_lo, n);
      n_hi = std::max(n_hi, n);
      t_lo = std::min(t_lo, s.seconds[i]);
      t_hi = std::max(t_hi, s.seconds[i]);
    }
    chart->addSeries(line);
    line->attachAxis(x);
    line->attachAxis(y);
    if (!s.quadratic) continue;
    // The fitted a + b n + c n^2, sampled evenly in log n over the measured range.
    auto* fit = new QLineSeries;
    fit->setPen(QPen(c, 1.5, Qt::DashLine));
    const double lo = std::log(static_cast<double>(*std::min_element(s.n.begin(), s.n.end())));
    const double hi = std::log(static_cast<double>(*std::max_element(s.n.begin(), s.n.end())));
    for (int k = 0; k <= 64; ++k) {
      const double n = std::exp(lo + (hi - lo) * k / 64.0);
      const double t = s.quadratic->a + s.quadratic->b * n + s.quadratic->c * n * n;
      if (t > 0) fit->append(n, t);
    }
    chart->addSeries(fit);
    fit->attachAxis(x);
    fit->attachAxis(y);
    for (QLegendMarker* m : chart->legend()->markers(fit)) m->setVisible(false);
  }
  if (n_hi > 0) {
    x->setRange(n_lo / 1.25, n_hi * 1.25);
    // Whole decades, a little beyond the data so that the end labels show.
    y->setRange(std::pow(10.0, std::floor(std::log10(t_lo / 1.05))),
                std::pow(10.0, std::ceil(std::log10(t_hi * 1.05))));
  }
  chart->legend()->setAlignment(Qt::AlignRight);
}

BenchChart::~BenchChart() = default;

bool BenchChart::save_png(const QString& path, QSize size, QString* error) const {
  view_->resize(size);
  return kvplan::gui::savePngAtomically(view_->grab(), path, error);
}

}  // namespace kvplan::bench
