#include "kvplan/gui/baseline.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "kvplan/format.hpp"
#include "kvplan/gui/chart_data.hpp"

namespace kvplan::gui {

namespace {
QString qstr(std::string_view s) { return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size())); }
QString count(std::uint64_t n) { return QString::fromStdString(format_count(n)); }
QString human(std::uint64_t b) { return QString::fromStdString(format_bytes(Bytes{b}, UnitSystem::iec)); }

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

const QColor kBaseline(0x00, 0x9e, 0x73);  // Okabe-Ito bluish green: apart from the theme's blues
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
  return (down ? QLatin1Char('-') : QLatin1Char('+')) + count(diff);
}

QString change_text(const Quantity& now, const Quantity& base, const QString& now_text,
                    const QString& base_text, bool with_base) {
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
      return was(percent_change(now.value, base.value), human(base.value));
    case K::count:
      if (now.value == base.value) return QStringLiteral("same");
      return was(count_change(now.value, base.value), count(base.value));
    case K::tokens:
      if (now.unbounded && base.unbounded) return QStringLiteral("same");
      if (base.unbounded) return QStringLiteral("was unbounded");
      if (now.unbounded) return was(QStringLiteral("now unbounded"), count(base.value));
      if (now.value == base.value) return QStringLiteral("same");
      return was(count_change(now.value, base.value), count(base.value));
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

void Baseline::pin(const Figures& figures, const QString& model_title) {
  figures_ = figures;
  title_ = model_title;
  Q_EMIT changed();
}

void Baseline::clear() {
  if (!figures_) return;
  figures_.reset();
  title_.clear();
  Q_EMIT changed();
}

QString Baseline::summary() const {
  if (!figures_) return {};
  const PlanInputs& in = figures_->plan.inputs;
  const QString kv =
      in.kv.k == in.kv.v ? qstr(name(in.kv.k)) : qstr(name(in.kv.k)) + QLatin1Char('/') + qstr(name(in.kv.v));
  const QString gpu =
      in.gpu ? QString::fromStdString(in.gpu->name) + QStringLiteral(" x ") + count(figures_->plan.gpus)
             : QStringLiteral("no GPU");
  return QStringLiteral("%1, %2 KV, %3 tokens, %4 users, %5, %6")
      .arg(title_, kv, count(in.context.value), count(in.users), gpu, qstr(name(in.engine.engine)));
}

void add_baseline_lines(ChartsData& charts, const Figures& baseline) {
  const auto& kv = baseline.kv;
  if (!kv.curves.empty()) {
    // curves[0] is the model as configured (the others are variants).
    ChartLine l{QStringLiteral("baseline"), {}, ChartLine::Style::dotted, kBaseline, true, 3};
    for (std::size_t i = 0; i < kv.curves[0].per_gpu.size() && i < kv.contexts.size(); ++i)
      if (kv.curves[0].per_gpu[i] != Bytes{0})
        l.points.push_back({static_cast<double>(kv.contexts[i].value), to_gib(kv.curves[0].per_gpu[i])});
    widen(charts.kv_memory, l);
    charts.kv_memory.lines.push_back(l);
  }
  const auto& u = baseline.users;
  ChartLine users{QStringLiteral("baseline max users"), {}, ChartLine::Style::dotted, kBaseline, true, 3};
  for (std::size_t i = 0; i < u.max_users.size() && i < u.contexts.size(); ++i)
    if (u.max_users[i] > 0)
      users.points.push_back({static_cast<double>(u.contexts[i].value), static_cast<double>(u.max_users[i])});
  widen(charts.max_users, users);
  charts.max_users.lines.push_back(users);
}

}  // namespace kvplan::gui
