#include "kvplan/gui/chart_data.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

#include "kvplan/format.hpp"

namespace kvplan::gui {

namespace {
QString qstr(const std::string& s) { return QString::fromStdString(s); }
QString count(std::uint64_t n) { return qstr(format_count(n)); }
QString human(Bytes b, UnitSystem units) { return qstr(format_bytes(b, units)); }

const QColor kAvailable(0x20, 0x20, 0x20);
const QColor kMarker(0x90, 0x90, 0x90);
/// Share of the memory bar's axis a part needs for a value label inside it ("47.7" at the chart's size).
constexpr double kBarLabelShare = 0.08;

/// Sets the y range of a log chart to its positive points, with some room, and the x range to the
/// charts' contexts widened to `x`.
void fit(XYChart& c, double x) {
  double lo = std::numeric_limits<double>::infinity(), hi = 0;
  for (const auto& l : c.lines)
    for (const auto& p : l.points)
      if (p.y() > 0) {
        lo = std::min(lo, p.y());
        hi = std::max(hi, p.y());
      }
  std::tie(c.y_min, c.y_max) = log_range(lo, hi);
  // Some room past the last tick, so that its label is not cut at the plot's edge.
  c.x_min = std::min(static_cast<double>(kMinChartContext), x);
  c.x_max = std::max(static_cast<double>(kMaxChartContext), x) * 1.6;
}

/// A vertical line at x across the chart's y range (call after fit()).
ChartLine vertical(const XYChart& c, double x, const QString& name) {
  return {name, {QPointF(x, c.y_min), QPointF(x, c.y_max)}, ChartLine::Style::dashed, kMarker, true, 1.5};
}

ChartLine horizontal(const XYChart& c, double y, const QString& name, QColor color) {
  return {name, {QPointF(c.x_min, y), QPointF(c.x_max, y)}, ChartLine::Style::dashed, color, true, 2};
}
}  // namespace

std::pair<double, double> log_range(double lo, double hi) {
  if (!(hi > 0) || !(lo > 0) || !std::isfinite(lo) || !std::isfinite(hi)) lo = hi = 1;
  // Powers of ten are exact enough as doubles for an axis: std::pow(10, k) for a small integer k.
  const double low = std::pow(10.0, std::floor(std::log10(lo / 1.5)));
  const double high = std::pow(10.0, std::ceil(std::log10(hi * 1.5)));
  return {low, high};
}

double to_gib(Bytes b) { return in_axis_units(b, UnitSystem::iec); }

double in_axis_units(Bytes b, UnitSystem units) {
  // 2^30 and 10^9: the "GiB" and "GB" of core's format_bytes (core/src/format.cpp).
  const double unit = units == UnitSystem::iec ? static_cast<double>(1ULL << 30) : 1e9;
  return static_cast<double>(b.value) / unit;
}

QString axis_unit_name(UnitSystem units) {
  return units == UnitSystem::iec ? QStringLiteral("GiB") : QStringLiteral("GB");
}

ChartsData describe_charts(const Figures& f, const QString& model_title, UnitSystem units) {
  const auto gib = [units](Bytes b) { return in_axis_units(b, units); };
  const QString unit = axis_unit_name(units);
  const Plan& p = f.plan;
  const PlanInputs& in = p.inputs;
  const Parallelism& par = in.deployment.parallel;
  const auto ctx = static_cast<double>(in.context.value);
  const QString deployment = QStringLiteral("%1, tp %2 pp %3")
                                 .arg(qstr(format_count(in.users, "user", "users")))
                                 .arg(par.tp)
                                 .arg(par.pp);
  ChartsData d;

  // 1. KV memory per GPU against context.
  XYChart& kv = d.kv_memory;
  kv.heading = QStringLiteral("KV cache per GPU vs context");
  kv.title = QStringLiteral("%1: %2, %3").arg(kv.heading, model_title, deployment);
  kv.x_title = QStringLiteral("context (tokens, log)");
  kv.y_title = QStringLiteral("KV/GPU (%1, log)").arg(unit);
  kv.legend_right = true;
  kv.x_log_base = 16;
  // The variants first, the model as configured last so that it is drawn on top of a variant it equals.
  for (std::size_t k = 0; k < f.kv.curves.size(); ++k) {
    const KvCurve& c = f.kv.curves[(k + 1) % f.kv.curves.size()];
    const bool model = (k + 1) % f.kv.curves.size() == 0;
    ChartLine l;
    // Under an engine's rules every curve follows them (core's kv_memory_series plans each variant with
    // the engine; the model's, with a GPU, is the engine's capacity series: Controller::compute), so
    // each says whose rules: vLLM's sliding window is about 3x the exact layout, and grows with the
    // context with the hybrid manager off. Under ideal every curve is the exact layout.
    const bool rules = in.engine.engine != Engine::ideal;
    const QString whose = QStringLiteral(" (%1 rules)").arg(qstr(std::string(name(in.engine.engine))));
    if (model)
      l.name = QStringLiteral("this model") + (rules ? whose : QString());
    else
      l.name = qstr(c.label) + (rules ? whose : QString());
    if (!c.error.empty())
      l.name += c.per_gpu.empty() ? QStringLiteral(" (n/a: ") + qstr(c.error) + QStringLiteral(")")
                                  : QStringLiteral(" (stops: overflow)");
    l.width = model ? 4 : 2;
    if (model) l.color = QColor(0x10, 0x10, 0x10).lighter(150);
    for (std::size_t i = 0; i < c.per_gpu.size() && i < f.kv.contexts.size(); ++i)
      if (c.per_gpu[i] != Bytes{0})
        l.points.push_back({static_cast<double>(f.kv.contexts[i].value), gib(c.per_gpu[i])});
    kv.lines.push_back(l);
  }
  // StreamingLLM's cap beside the variants, under the model's own line.
  if (f.streaming) {
    ChartLine l;
    l.name = qstr(f.streaming->label);  // "StreamingLLM 4+1,020": sinks + recent window
    if (!f.streaming->error.empty()) l.name += QStringLiteral(" (stops: ") + qstr(f.streaming->error) + ')';
    l.style = ChartLine::Style::dashed;
    l.color = QColor(0x8e, 0x44, 0xad);
    for (std::size_t i = 0; i < f.streaming->per_gpu.size() && i < f.kv.contexts.size(); ++i)
      if (f.streaming->per_gpu[i] != Bytes{0})
        l.points.push_back({static_cast<double>(f.kv.contexts[i].value), gib(f.streaming->per_gpu[i])});
    kv.lines.insert(kv.lines.isEmpty() ? 0 : kv.lines.size() - 1, l);
  }
  if (f.kv.available_per_gpu && *f.kv.available_per_gpu != Bytes{0})
    kv.lines.push_back({QStringLiteral("available (%1)").arg(human(*f.kv.available_per_gpu, units)),
                        {QPointF(0, gib(*f.kv.available_per_gpu))},
                        ChartLine::Style::dashed,
                        kAvailable,
                        true,
                        2});
  fit(kv, ctx);
  if (f.kv.available_per_gpu && *f.kv.available_per_gpu != Bytes{0})
    kv.lines.back() = horizontal(kv, gib(*f.kv.available_per_gpu), kv.lines.back().name, kAvailable);
  QString available;  // the caption's
  if (f.kv.available_per_gpu && *f.kv.available_per_gpu != Bytes{0}) {
    kv.screen_names.insert(kv.lines.back().name, QStringLiteral("available for KV"));
    available = QStringLiteral("; available for KV %1").arg(human(*f.kv.available_per_gpu, units));
  }
  kv.lines.push_back(vertical(kv, ctx, QStringLiteral("this context")));

  // 2. Per-GPU memory as one stacked bar.
  StackedBar& bar = d.memory;
  const PerGpu& g = p.per_gpu;
  const QString gpu = in.gpu ? qstr(in.gpu->name) : QStringLiteral("no GPU");
  const QString verdict = p.fits ? QStringLiteral("fits") : QStringLiteral("does NOT fit");
  bar.heading = QStringLiteral("Memory per GPU");
  QString memory;  // the title past the heading, without the GPU's name (the caption has it already)
  if (!p.has_gpu)
    memory = QStringLiteral("no GPU chosen");
  else if (in.kv_memory || !in.gpu)  // the KV memory as the engine logs it: no usable-memory figure
    memory = QStringLiteral("KV memory %1 (given): %2").arg(human(g.available_kv_bytes, units), verdict);
  else  // in the results table's words: vLLM's "requested", llama.cpp's "device memory" (budget.hpp)
    memory = QStringLiteral("%1 %2 of %3: %4")
                 .arg(qstr(requested_name(in.engine.engine, p.budget).name), human(g.usable_bytes, units),
                      human(in.gpu->memory, units), verdict);
  bar.title = p.has_gpu ? QStringLiteral("%1: %2, %3").arg(bar.heading, gpu, memory)
                        : bar.heading + QStringLiteral(" (") + memory + ')';
  bar.value_title = QStringLiteral("memory per GPU (%1)").arg(unit);
  bar.category = QStringLiteral("fullest GPU");
  bar.parts = {QStringLiteral("weights"), QStringLiteral("KV cache")};
  bar.colors = {QColor(0x4c, 0x72, 0xb0), QColor(0xdd, 0x84, 0x52)};
  bar.values = {gib(g.weights_bytes), gib(g.kv_bytes_total)};
  // SGLang's budget has no activation or CUDA graph part of its own (they live in the 1 - fraction share):
  // its bar shows the reserve, as its results table does.
  const bool sglang_budget = in.engine.engine == Engine::sglang && p.budget.modelled && !in.kv_memory;
  if (p.has_gpu && !in.kv_memory && p.budget.modelled && !sglang_budget) {
    // vLLM's budget, part by part as the results table and vLLM's log name them (core/budget.hpp);
    // together they are per_gpu.reserve_bytes.
    // llama.cpp's one component is its compute buffer (budget.hpp llamacpp_budget): it has no torch and
    // no CUDA graph part to show.
    if (in.engine.engine == Engine::llamacpp) {
      bar.parts << QStringLiteral("compute buffer");
      bar.colors << QColor(0x8c, 0x8c, 0x8c);
      bar.values << gib(p.budget.activation);
    } else {
      bar.parts << QStringLiteral("activation") << QStringLiteral("non-torch")
                << QStringLiteral("CUDA graphs");
      bar.colors << QColor(0x8c, 0x8c, 0x8c) << QColor(0xb0, 0x7a, 0xa1) << QColor(0x93, 0x7a, 0x5f);
      bar.values << gib(p.budget.activation) << gib(p.budget.non_torch) << gib(p.budget.cuda_graphs);
    }
  } else {
    bar.parts << (sglang_budget ? QStringLiteral("reserve (outside mem_fraction_static)")
                                : QStringLiteral("reserve"));
    bar.colors << QColor(0x8c, 0x8c, 0x8c);
    bar.values << gib(g.reserve_bytes);
  }
  bar.parts << QStringLiteral("free");
  bar.colors << QColor(0x55, 0xa8, 0x68);
  bar.values << gib(g.free_bytes);
  // Lines for the usable memory (memory x utilisation; the reserve is a part of the bar) and the GPU's
  // capacity; with the KV memory given there is no usable-memory figure.
  if (in.gpu) {
    const bool basis_words = in.engine.engine == Engine::llamacpp || in.engine.engine == Engine::trtllm;
    if (!in.kv_memory && p.budget.modelled && basis_words) {
      // llama.cpp has no utilisation, and TensorRT-LLM's fraction is of the memory left after its profile
      // peak, not of the GPU: the line says what it is in the table's words ("held ... (profile peak +
      // free_gpu_memory_fraction of the rest)").
      const RequestedName device = requested_name(in.engine.engine, p.budget);
      bar.marks.push_back({QStringLiteral("%1 %2 %3 (%4)")
                               .arg(qstr(device.name))
                               .arg(gib(g.usable_bytes), 0, 'f', 1)
                               .arg(unit, qstr(device.basis)),
                           qstr(device.name), gib(g.usable_bytes), QColor(0xc4, 0x4e, 0x52), true});
    } else if (!in.kv_memory) {
      // vLLM's and SGLang's "requested", else "usable" (requested_name).
      const QString word = qstr(requested_name(in.engine.engine, p.budget).name);
      bar.marks.push_back({QStringLiteral("%4 %1 %3 (x %2)")
                               .arg(gib(g.usable_bytes), 0, 'f', 1)
                               .arg(applied_gpu_utilization(p))
                               .arg(unit, word),
                           QStringLiteral("%1 (x %2)").arg(word).arg(applied_gpu_utilization(p)),
                           gib(g.usable_bytes), QColor(0xc4, 0x4e, 0x52), true});
    }
    bar.marks.push_back({QStringLiteral("GPU %1 %2").arg(gib(in.gpu->memory), 0, 'f', 1).arg(unit),
                         QStringLiteral("GPU memory"), gib(in.gpu->memory), QColor(), false});
  }
  double total = 0;
  for (const double v : bar.values) total += v;
  bar.value_max = std::max(total, in.gpu ? gib(in.gpu->memory) : 0.0) * 1.05;
  if (bar.value_max <= 0) bar.value_max = 1;
  // Each part's label is its value, so it is rounded for reading (one decimal, two under 10 GiB: a
  // length change of at most 0.05 GiB) and never scientific; a part too narrow for its label gets
  // none, or it would run into the next one (reserve "1" beside free "12.7" read "112.7").
  for (double& v : bar.values) {
    const double scale = v >= 10 ? 10 : 100;
    const bool labelled = v >= kBarLabelShare * bar.value_max;
    v = std::round(v * scale) / scale;
    bar.labelled.push_back(labelled);
  }

  // 3. Max users against context.
  XYChart& users = d.max_users;
  users.heading = QStringLiteral("Max concurrent users vs context");
  const QString on = QStringLiteral("%1 x %2").arg(gpu).arg(par.tp * par.pp * par.dp);
  users.title = QStringLiteral("%1: %2 on %3").arg(users.heading, model_title, on);
  users.x_title = QStringLiteral("context (tokens, log)");
  users.y_title = QStringLiteral("users (log)");
  ChartLine max_line{QStringLiteral("max users"), {}, ChartLine::Style::line, {}, true, 3};
  for (std::size_t i = 0; i < f.users.max_users.size() && i < f.users.contexts.size(); ++i)
    if (f.users.max_users[i] > 0)
      max_line.points.push_back(
          {static_cast<double>(f.users.contexts[i].value), static_cast<double>(f.users.max_users[i])});
  users.lines.push_back(max_line);
  users.lines.push_back({QStringLiteral("users asked (%1)").arg(count(in.users)),
                         {QPointF(0, static_cast<double>(in.users))},
                         ChartLine::Style::dashed,
                         kAvailable,
                         true,
                         2});
  users.lines.push_back({QStringLiteral("max users at this context"),
                         {},
                         ChartLine::Style::markers,
                         QColor(0xdd, 0x84, 0x52),
                         true,
                         2});
  if (p.has_gpu && p.max_users > 0)
    users.lines.back().points = {QPointF(ctx, static_cast<double>(p.max_users))};
  fit(users, ctx);
  users.y_min = std::min(users.y_min, 0.5);
  users.lines[1] = horizontal(users, static_cast<double>(in.users), users.lines[1].name, kAvailable);
  users.screen_names.insert(users.lines[1].name, QStringLiteral("users asked"));
  users.lines.push_back(vertical(users, ctx, QStringLiteral("this context")));

  // 4. Relative prefill cost against prompt length.
  XYChart& pre = d.prefill;
  pre.heading = QStringLiteral("Prefill cost vs prompt length");
  pre.title = QStringLiteral("%1: %2").arg(pre.heading, model_title);
  // Short y titles: the plots of the lower row are about 88 px tall at 1366 x 768 (a longer title was cut).
  pre.x_title = QStringLiteral("prompt tokens (log); y 1 = %1 tokens").arg(count(f.prefill.reference_tokens));
  pre.y_title = QStringLiteral("FLOPs (log)");
  const auto relative = [&](const QString& name, const std::vector<double>& values) {
    ChartLine l{name, {}, ChartLine::Style::line, {}, true, 2.5};
    for (std::size_t i = 0; i < values.size() && i < f.prefill.points.size(); ++i)
      if (values[i] > 0)
        l.points.push_back({static_cast<double>(f.prefill.points[i].prompt_tokens), values[i]});
    return l;
  };
  pre.lines.push_back(relative(QStringLiteral("linear (weights)"), f.prefill.linear));
  pre.lines.push_back(relative(QStringLiteral("attention (quadratic)"), f.prefill.attention));
  pre.lines.push_back(relative(QStringLiteral("total"), f.prefill.total));
  if (!f.measured.points.empty()) {
    ChartLine m{
        qstr(f.measured.label) + (f.measured.attention_only ? QStringLiteral(", anchored on attention")
                                                            : QStringLiteral(", anchored on the total")),
        {},
        ChartLine::Style::markers,
        QColor(0xc4, 0x1e, 0x3a),
        true,
        2};
    for (std::size_t i = 0; i < f.measured.points.size() && i < f.measured_relative.size(); ++i)
      m.points.push_back({static_cast<double>(f.measured.points[i].prompt_tokens), f.measured_relative[i]});
    pre.lines.push_back(m);
  }
  fit(pre, ctx);
  pre.lines.push_back(vertical(pre, ctx, QStringLiteral("this context")));

  // What the titles (and the legend names of screen_names) say beyond the headings, once: "Llama 3.1 70B:
  // 8 users, tp 2 pp 1 on H100 x 4; per GPU usable 71.5 GiB of 80 GiB: fits; available for KV 30.2 GiB".
  d.caption = QStringLiteral("%1: %2 on %3; %4%5")
                  .arg(model_title, deployment, on, p.has_gpu ? QStringLiteral("per GPU ") + memory : memory,
                       available);
  // The curves run to kMaxChartContext; a longer context is marked on the axis, and said here so that
  // the line past the curves' end is not read as a figure (the table has the figures at the context).
  if (in.context.value > kMaxChartContext)
    d.caption += QStringLiteral("; curves end at %1 tokens, the table gives %2")
                     .arg(count(kMaxChartContext), count(in.context.value));
  return d;
}

}  // namespace kvplan::gui
