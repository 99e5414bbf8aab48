#include "kvplan/gui/baseline.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <utility>

#include "kvplan/format.hpp"
#include "kvplan/gui/chart_data.hpp"

namespace kvplan::gui {

namespace {
QString qstr(std::string_view s) { return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size())); }
QString grouped(std::uint64_t n) { return QString::fromStdString(format_count(n)); }
QString human(std::uint64_t b, UnitSystem units) {
  return QString::fromStdString(format_bytes(Bytes{b}, units));
}

/// |now - base| without overflow, and whether now is below base.
std::pair<std::uint64_t, bool> magnitude(std::uint64_t now, std::uint64_t base) {
  return now >= base ? std::pair{now - base, false} : std::pair{base - now, true};
}

/// Widens the y range of `c` to hold `line` (log axes: only positive points count), and stretches
/// the vertical markers (two points at one x spanning the old range) to the new one.
void widen(XYChart& c, const ChartLine& line) {
  double lo = std::numeric_limits<double>::infinity(), hi = 0;
  for (const auto& p : line.points)
    if (p.y() > 0) {
      lo = std::min(lo, p.y());
      hi = std::max(hi, p.y());
    }
  if (hi <= 0) return;
  const auto [line_min, line_max] = log_range(lo, hi);  // the room and rounding describe_charts gives
  const double y_min = std::min(c.y_min, line_min), y_max = std::max(c.y_max, line_max);
  for (auto& l : c.lines)
    if (l.points.size() == 2 && l.points[0].x() == l.points[1].x() && l.points[0].y() == c.y_min &&
        l.points[1].y() == c.y_max)
      l.points = {QPointF(l.points[0].x(), y_min), QPointF(l.points[0].x(), y_max)};
  c.y_min = y_min;
  c.y_max = y_max;
}

}  // namespace

QString percent_change(std::uint64_t now, std::uint64_t base) {
  if (base == 0) return {};
  const auto [diff, down] = magnitude(now, base);
  const QChar sign = down ? QLatin1Char('-') : QLatin1Char('+');
  // A ratio for reading (floating point only here); the figures themselves stay integers.
  const double pct = 100.0 * static_cast<double>(diff) / static_cast<double>(base);
  if (diff == 0) return QStringLiteral("+0%");
  if (pct >= 10) return sign + QString::number(std::llround(pct)) + QLatin1Char('%');
  const double tenths = std::round(pct * 10) / 10;
  if (tenths == 0) return sign + QStringLiteral("<0.1%");
  return sign + QString::number(tenths, 'f', tenths == std::floor(tenths) ? 0 : 1) + QLatin1Char('%');
}

QString count_change(std::uint64_t now, std::uint64_t base) {
  const auto [diff, down] = magnitude(now, base);
  return (down ? QLatin1Char('-') : QLatin1Char('+')) + grouped(diff);
}

QString change_text(const Quantity& now, const Quantity& base, const QString& now_text,
                    const QString& base_text, bool with_base, UnitSystem units) {
  using K = Quantity::Kind;
  const auto was = [with_base](const QString& change, const QString& before) {
    return with_base ? change + QStringLiteral(", was ") + before : change;
  };
  if (now.kind != base.kind || now.kind == K::text) {
    if (now_text == base_text) return QStringLiteral("same");
    return with_base ? QStringLiteral("was ") + base_text : QStringLiteral("changed");
  }
  switch (now.kind) {
    case K::bytes:
      if (now.value == base.value) return QStringLiteral("same");
      if (base.value == 0) return QStringLiteral("was 0 B");
      return was(percent_change(now.value, base.value), human(base.value, units));
    case K::count:
      if (now.value == base.value) return QStringLiteral("same");
      return was(count_change(now.value, base.value), grouped(base.value));
    case K::tokens:
      if (now.unbounded && base.unbounded) return QStringLiteral("same");
      if (base.unbounded) return QStringLiteral("was unbounded");
      if (now.unbounded) return was(QStringLiteral("now unbounded"), grouped(base.value));
      if (now.value == base.value) return QStringLiteral("same");
      return was(count_change(now.value, base.value), grouped(base.value));
    case K::ratio: {
      if (now.ratio == base.ratio) return QStringLiteral("same");
      const double d = now.ratio - base.ratio;
      return was((d < 0 ? QStringLiteral("-") : QStringLiteral("+")) +
                     QString::fromStdString(format_fixed(std::abs(d), 2)),
                 QString::fromStdString(format_fixed(base.ratio, 2)));
    }
    case K::verdict:
      return now.value == base.value ? QStringLiteral("same") : QStringLiteral("was ") + base_text;
    case K::text: break;
  }
  return {};
}

Baseline::Baseline(const Controller* controller, QObject* parent)
    : QObject(parent), controller_(controller), shown_(controller->scenario().baselines) {
  // Each change of the scenario checks whether its baselines changed (a pin, an undo, a file opened).
  connect(controller_, &Controller::planChanged, this, [this] {
    if (controller_->scenario().baselines == shown_) return;
    shown_ = controller_->scenario().baselines;
    Q_EMIT changed();
  });
}

int Baseline::count() const { return static_cast<int>(controller_->baselineFigures().size()); }

const Figures* Baseline::figuresAt(int index) const {
  const auto& all = controller_->baselineFigures();
  return index >= 0 && static_cast<std::size_t>(index) < all.size() ? &all[static_cast<std::size_t>(index)]
                                                                    : nullptr;
}

const Figures* Baseline::figures() const { return figuresAt(count() - 1); }

QString Baseline::summary() const { return summaryAt(count() - 1); }

QString Baseline::summaryAt(int index) const {
  const Figures* f = figuresAt(index);
  const auto& scenarios = controller_->scenario().baselines;
  if (f == nullptr || static_cast<std::size_t>(index) >= scenarios.size()) return {};
  const PlanInputs& in = f->plan.inputs;
  const QString kv =
      in.kv.k == in.kv.v ? qstr(name(in.kv.k)) : qstr(name(in.kv.k)) + QLatin1Char('/') + qstr(name(in.kv.v));
  const QString gpu =
      in.gpu ? QString::fromStdString(in.gpu->name) + QStringLiteral(" x ") + grouped(f->plan.gpus)
             : QStringLiteral("no GPU");
  return QStringLiteral("%1, %2 KV, %3 tokens, %4 users, %5, %6")
      .arg(Controller::modelTitleOf(scenarios[static_cast<std::size_t>(index)]), kv,
           grouped(in.context.value), grouped(in.users), gpu, qstr(name(in.engine.engine)));
}

QColor baseline_color(int index) {
  // Hues at least 38 degrees apart (26, 85, 164, 202, 286, 327), saturated, so that a dark theme's
  // lightening (readable_on keeps the hue) leaves them apart: Okabe and Ito's bluish green, vermillion,
  // blue and reddish purple (https://jfly.uni-koeln.de/color/), an olive and a violet.
  static const QColor colors[] = {QColor(0x00, 0x9e, 0x73), QColor(0xd5, 0x5e, 0x00),
                                  QColor(0x00, 0x72, 0xb2), QColor(0xcc, 0x79, 0xa7),
                                  QColor(0x66, 0xa6, 0x1e), QColor(0x7b, 0x32, 0x94)};
  constexpr int n = static_cast<int>(std::size(colors));
  return colors[((index % n) + n) % n];
}

QString baseline_name(int index) {
  return index <= 0 ? QStringLiteral("baseline") : QStringLiteral("baseline %1").arg(index + 1);
}

void add_baseline_lines(ChartsData& charts, const Figures& baseline, UnitSystem units, int index) {
  const auto& kv = baseline.kv;
  if (!kv.curves.empty()) {
    // curves[0] is the model as configured (the others are variants).
    ChartLine l{baseline_name(index), {}, ChartLine::Style::dotted, baseline_color(index), true, 3};
    for (std::size_t i = 0; i < kv.curves[0].per_gpu.size() && i < kv.contexts.size(); ++i)
      if (kv.curves[0].per_gpu[i] != Bytes{0})
        l.points.push_back(
            {static_cast<double>(kv.contexts[i].value), in_axis_units(kv.curves[0].per_gpu[i], units)});
    widen(charts.kv_memory, l);
    charts.kv_memory.lines.push_back(l);
  }
  const auto& u = baseline.users;
  ChartLine users{baseline_name(index) + QStringLiteral(" max users"),
                  {},
                  ChartLine::Style::dotted,
                  baseline_color(index),
                  true,
                  3};
  for (std::size_t i = 0; i < u.max_users.size() && i < u.contexts.size(); ++i)
    if (u.max_users[i] > 0)
      users.points.push_back({static_cast<double>(u.contexts[i].value), static_cast<double>(u.max_users[i])});
  widen(charts.max_users, users);
  charts.max_users.lines.push_back(users);
}

}  // namespace kvplan::gui
