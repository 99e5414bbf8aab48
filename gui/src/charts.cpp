#include "kvplan/gui/charts.hpp"
#include "chart_theme.hpp"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QEvent>
#include <QFontMetricsF>
#include <QGraphicsLayout>
#include <QGraphicsScene>
#include <QGridLayout>
#include <QHorizontalStackedBarSeries>
#include <QLabel>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QPixmap>
#include <QScatterSeries>
#include <QTimer>
#include <QVBoxLayout>
#include <QValueAxis>
#include <algorithm>
#include <cmath>
#include <iterator>
#include <utility>

namespace kvplan::gui {

namespace {
/// One x-y chart and the series it reuses from update to update.
struct XYView {
  QChart* chart = nullptr;
  QChartView* view = nullptr;
  QAbstractAxis* x = nullptr;
  QAbstractAxis* y = nullptr;
  bool log_x = false, log_y = false;
  QList<QXYSeries*> series;
  QList<ChartLine::Style> styles;
  bool restyle = true;  ///< axes were made: colour them from the palette (apply_chart_palette)
};

/// The stacked bar of one GPU's memory.
struct BarView {
  QChart* chart = nullptr;
  QChartView* view = nullptr;
  QHorizontalStackedBarSeries* series = nullptr;
  QBarCategoryAxis* category = nullptr;
  QValueAxis* value = nullptr;
  QList<QBarSet*> sets;
  double range_max = -1;            ///< the value_max the axis was last set for (nice numbers widen it)
  QValueAxis* mark_axis = nullptr;  ///< hidden, 0 to 1: the marks' lines span the plot's height
  QList<QLineSeries*> marks;        ///< StackedBar::marks
};

QChartView* make_view(QChart* chart, QWidget* parent) {
  chart->legend()->setAlignment(Qt::AlignBottom);
  chart->setMargins(QMargins(4, 4, 4, 4));
  QFont title = chart->titleFont();
  title.setBold(true);
  chart->setTitleFont(title);
  auto* view = new QChartView(chart, parent);
  view->setRenderHint(QPainter::Antialiasing);
  // A moving marker dirties a few thin strips; one bounding rect repaints faster than their region.
  view->setViewportUpdateMode(QGraphicsView::BoundingRectViewportUpdate);
  // A chart's items (points, labels, grid lines) move at every step: a BSP index of them is rebuilt, at a
  // paint or by the index's timer in some later turn, for a scene of a few hundred items that a linear
  // walk paints as fast (Qt: NoIndex "for dynamic scenes").
  view->scene()->setItemIndexMethod(QGraphicsScene::NoIndex);
  view->setMinimumSize(300, 220);  // two by two, within a 1280 x 720 screen beside the inputs
  show_chart_focus(view);
  return view;
}

QAbstractAxis* make_axis(bool log, bool tokens) {
  if (log) {
    auto* a = new QLogValueAxis;
    a->setBase(tokens ? 4.0 : 10.0);  // tokens: 256, 1,024, 4,096 ... 1,048,576
    a->setLabelFormat(tokens ? QStringLiteral("%.0f") : QStringLiteral("%g"));
    // Minor grid lines are dashed, and dashed antialiased lines are most of a chart's paint time.
    a->setMinorTickCount(0);
    a->setMinorGridLineVisible(false);
    return a;
  }
  auto* a = new QValueAxis;
  a->setLabelFormat(QStringLiteral("%g"));
  return a;
}

void set_range(QAbstractAxis* a, double lo, double hi) {
  if (auto* l = qobject_cast<QLogValueAxis*>(a)) {
    if (l->min() == lo && l->max() == hi) return;
  } else if (auto* v = qobject_cast<QValueAxis*>(a)) {
    if (v->min() == lo && v->max() == hi) return;
  }
  a->setRange(lo, hi);
}

/// The memory bar's chart, axes and series, in a view under `parent`.
void make_bar(BarView& b, QWidget* parent) {
  b.chart = new QChart;
  b.series = new QHorizontalStackedBarSeries;
  b.series->setLabelsVisible(true);
  b.series->setLabelsFormat(QStringLiteral("@value"));
  b.series->setLabelsPrecision(12);  // the values come rounded (describe_charts): print them as they are
  b.series->setBarWidth(0.6);
  b.chart->addSeries(b.series);
  b.category = new QBarCategoryAxis;
  b.value = new QValueAxis;
  b.value->setLabelFormat(QStringLiteral("%g"));
  b.chart->addAxis(b.category, Qt::AlignLeft);
  b.chart->addAxis(b.value, Qt::AlignBottom);
  b.series->attachAxis(b.category);
  b.series->attachAxis(b.value);
  b.mark_axis = new QValueAxis;
  b.mark_axis->setRange(0, 1);
  b.mark_axis->setVisible(false);
  b.chart->addAxis(b.mark_axis, Qt::AlignRight);
  b.view = make_view(b.chart, parent);
  // Its legend in a column on the right: in a row under the bar, at 1366 x 768, the parts and the two
  // marks ("usable 71.7 GiB (x 0.9)") were elided to "KV ca...", "usabl...", "GPU ..." (issue 27).
  b.chart->legend()->setAlignment(Qt::AlignRight);
}

/// The title a chart shows: on screen its heading (the same for every input: ChartsData::caption says the
/// rest), in an export the full title.
QString shown_title(const QString& heading, const QString& title, bool on_screen) {
  return on_screen && !heading.isEmpty() ? heading : title;
}

/// A log y axis puts a label at every power of its base. Where the plot is too short for them, Qt elided
/// every label to "..." (the prefill chart's nine decades in 88 px at 1366 x 768): the base grows (10,
/// 100, 1000, ...) until each label has 1.2 lines of height in the plot area the last layout gave (called
/// again on QChart::plotAreaChanged). The x axes keep their base: their labels fit but for the last
/// ("10485..." at 1366 x 768), and fewer of them would say less.
void fit_log_labels(XYView& v) {
  auto* log = qobject_cast<QLogValueAxis*>(v.y);
  if (log == nullptr || !(log->min() > 0) || !(log->max() > log->min())) return;
  const double room = v.chart->plotArea().height();
  const double per_label = QFontMetricsF(log->labelsFont()).height() * 1.2;
  const double decades = std::log10(log->max() / log->min());
  int k = 1;
  if (room > 0)
    while (k < 6 && (std::floor(decades / k + 1e-9) + 1) * per_label > room) ++k;
  const double base = std::pow(10.0, k);
  if (log->base() != base) log->setBase(base);
}

// `palette`: a line colour too dark for a dark background is drawn in its text colour (readable_on).
void display_xy(XYView& v, const XYChart& c, const QPalette& palette, bool on_screen) {
  // Setters below are skipped when nothing changes: a text change relayouts the whole chart.
  const QString title = shown_title(c.heading, c.title, on_screen);
  if (v.chart->title() != title) v.chart->setTitle(title);
  const Qt::Alignment legend = c.legend_right ? Qt::AlignRight : Qt::AlignBottom;
  if (v.chart->legend()->alignment() != legend) v.chart->legend()->setAlignment(legend);
  if (v.x == nullptr || v.log_x != c.log_x || v.log_y != c.log_y) {
    for (auto* s : v.series) {
      v.chart->removeSeries(s);
      delete s;
    }
    v.series.clear();
    v.styles.clear();
    for (auto* a : v.chart->axes()) {
      v.chart->removeAxis(a);
      delete a;
    }
    v.x = make_axis(c.log_x, true);
    v.y = make_axis(c.log_y, false);
    v.log_x = c.log_x;
    v.log_y = c.log_y;
    v.chart->addAxis(v.x, Qt::AlignBottom);
    if (auto* log = qobject_cast<QLogValueAxis*>(v.x)) log->setBase(c.x_log_base);
    v.chart->addAxis(v.y, Qt::AlignLeft);
    v.restyle = true;
  }
  QList<ChartLine::Style> styles;
  for (const auto& l : c.lines) styles.push_back(l.style);
  if (styles != v.styles) {
    for (auto* s : v.series) {
      v.chart->removeSeries(s);
      delete s;
    }
    v.series.clear();
    for (const auto& l : c.lines) {
      QXYSeries* s = nullptr;
      if (l.style == ChartLine::Style::markers) {
        auto* scatter = new QScatterSeries;
        scatter->setMarkerSize(9);
        s = scatter;
      } else {
        s = new QLineSeries;
      }
      v.chart->addSeries(s);
      s->attachAxis(v.x);
      s->attachAxis(v.y);
      if (l.style != ChartLine::Style::markers) {
        QPen pen = s->pen();
        if (l.color.isValid()) pen.setColor(readable_on(palette, l.color));
        pen.setWidthF(l.width);
        pen.setStyle(l.style == ChartLine::Style::dashed   ? Qt::DashLine
                     : l.style == ChartLine::Style::dotted ? Qt::DotLine
                                                           : Qt::SolidLine);
        s->setPen(pen);
      } else if (l.color.isValid()) {
        s->setColor(readable_on(palette, l.color));
      }
      v.series.push_back(s);
    }
    v.styles = styles;
  }
  for (qsizetype i = 0; i < c.lines.size(); ++i) {
    QXYSeries* s = v.series[i];
    const QString name = on_screen ? c.screen_names.value(c.lines[i].name, c.lines[i].name) : c.lines[i].name;
    if (s->name() != name) s->setName(name);
    // Unchanged points are not given again: a replace() lays the whole line out anew (the context
    // slider moves one marker; the six curves stay).
    if (s->points() != c.lines[i].points) s->replace(c.lines[i].points);
    for (auto* m : v.chart->legend()->markers(s)) m->setVisible(c.lines[i].legend);
  }
  if (v.x->titleText() != c.x_title) v.x->setTitleText(c.x_title);
  if (v.y->titleText() != c.y_title) v.y->setTitleText(c.y_title);
  set_range(v.x, c.x_min, c.x_max);
  set_range(v.y, c.y_min, c.y_max);
  fit_log_labels(v);
}

/// The KV chart's legend on screen, as rich text that wraps under the plot: each visible entry its line's
/// colour and style (a solid, dashed or dotted stroke, a dot for markers) and its name, entries apart by
/// spaces where a line may break. Qt's legend beside the plot lays its entries in one column and clips
/// the rest: at 1366 x 768 the last two of nine were cut, and a long name elided (issue 27).
QString legend_html(const XYView& v, const XYChart& c) {
  QStringList entries;
  for (qsizetype i = 0; i < c.lines.size() && i < v.series.size(); ++i) {
    if (!c.lines[i].legend) continue;
    const QXYSeries* s = v.series[i];
    const bool dot = c.lines[i].style == ChartLine::Style::markers;
    const QColor colour = dot ? s->color() : s->pen().color();
    const QString stroke = dot                                            ? QStringLiteral("\u25CF")
                           : c.lines[i].style == ChartLine::Style::dashed ? QStringLiteral("\u2012 \u2012")
                           : c.lines[i].style == ChartLine::Style::dotted
                               ? QStringLiteral("\u00B7\u00B7\u00B7\u00B7")
                               : QStringLiteral("\u2501\u2501");
    QString name = s->name().toHtmlEscaped();
    name.replace(QLatin1Char(' '), QStringLiteral("&nbsp;"));
    entries << QStringLiteral("<span style=\"color:%1\"><b>%2</b></span>&nbsp;%3")
                   .arg(colour.name(), QString(stroke).replace(QLatin1Char(' '), QStringLiteral("&nbsp;")),
                        name);
  }
  return entries.join(QStringLiteral(" &nbsp; "));
}

// `text`: the palette's text colour, for a mark without a colour of its own.
void display_bar(BarView& v, const StackedBar& b, const QColor& text, bool on_screen) {
  const QString title = shown_title(b.heading, b.title, on_screen);
  if (v.chart->title() != title) v.chart->setTitle(title);
  if (v.sets.size() != b.parts.size()) {
    v.series->clear();
    v.sets.clear();
    for (qsizetype i = 0; i < b.parts.size(); ++i) {
      auto* set = new QBarSet(b.parts[i]);
      if (i < b.colors.size()) set->setColor(b.colors[i]);
      set->append(0);
      v.series->append(set);
      v.sets.push_back(set);
    }
  }
  for (qsizetype i = 0; i < b.parts.size(); ++i) {
    if (v.sets[i]->label() != b.parts[i]) v.sets[i]->setLabel(b.parts[i]);
    if (i < b.colors.size() && v.sets[i]->color() != b.colors[i]) v.sets[i]->setColor(b.colors[i]);
    const double value = i < b.values.size() ? b.values[i] : 0.0;
    if (v.sets[i]->at(0) != value) v.sets[i]->replace(0, value);
    const QColor label = i < b.labelled.size() && b.labelled[i] ? QColor(Qt::white) : QColor(Qt::transparent);
    if (v.sets[i]->labelColor() != label) v.sets[i]->setLabelColor(label);
  }
  if (v.category->categories() != QStringList{b.category}) v.category->setCategories({b.category});
  if (v.value->titleText() != b.value_title) v.value->setTitleText(b.value_title);
  if (v.range_max != b.value_max) {
    v.range_max = b.value_max;
    v.value->setRange(0, b.value_max);
    v.value->applyNiceNumbers();
  }
  // The marks: a vertical line each, labelled in the legend.
  if (v.marks.size() != b.marks.size()) {
    for (auto* s : v.marks) {
      v.chart->removeSeries(s);
      delete s;
    }
    v.marks.clear();
    for (qsizetype i = 0; i < b.marks.size(); ++i) {
      auto* s = new QLineSeries;
      v.chart->addSeries(s);
      s->attachAxis(v.value);
      s->attachAxis(v.mark_axis);
      v.marks.push_back(s);
    }
  }
  for (qsizetype i = 0; i < b.marks.size(); ++i) {
    const StackedBar::Mark& m = b.marks[i];
    QLineSeries* s = v.marks[i];
    const QString name = on_screen && !m.screen_name.isEmpty() ? m.screen_name : m.name;
    if (s->name() != name) s->setName(name);
    const QPen pen(m.color.isValid() ? m.color : text, 2, m.dashed ? Qt::DashLine : Qt::SolidLine);
    if (s->pen() != pen) s->setPen(pen);
    const QList<QPointF> points{{m.value, 0}, {m.value, 1}};
    if (s->points() != points) s->replace(points);
  }
}
}  // namespace

struct ChartPanel::Impl {
  XYView kv, users, prefill;
  BarView bar;
  QLabel* caption = nullptr;    ///< ChartsData::caption, above the grid
  QLabel* kv_legend = nullptr;  ///< the KV chart's legend on screen, wrapping under it (legend_html)
  ChartsData shown;             ///< what display() was last given: drawn again after a palette change, and by
                                ///< paintChart() at any size
  bool pending[kCount] = {};    ///< the chart shows older data than `shown`
  QTimer* chain = nullptr;      ///< zero interval, single shot: refreshNext() once per event-loop turn
  /// The chain's first turn after display() refreshes nothing: that turn paints what the input changed (the
  /// table, the inputs; a new model's layer table lays itself out), and a chart's refresh on top of it made
  /// the longest block of a model load (11.9 ms CPU at 1366 x 768, issue 27).
  bool skip_turn = false;

  [[nodiscard]] QChartView* view(Chart c) const {
    switch (c) {
      case KvMemory: return kv.view;
      case GpuMemory: return bar.view;
      case MaxUsers: return users.view;
      case PrefillCost: return prefill.view;
    }
    return nullptr;
  }
};

ChartPanel::ChartPanel(QWidget* parent) : QWidget(parent), d_(std::make_unique<Impl>()) {
  auto* column = new QVBoxLayout(this);
  column->setContentsMargins(0, 0, 0, 0);
  column->setSpacing(2);
  // One line, as wide as the panel whatever its text (Ignored: a long caption neither widens the window
  // nor wraps, so a new caption moves no chart).
  d_->caption = new QLabel;
  d_->caption->setObjectName(QStringLiteral("chart_caption"));
  d_->caption->setTextFormat(Qt::PlainText);
  d_->caption->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
  column->addWidget(d_->caption);
  auto* grid = new QGridLayout;
  grid->setContentsMargins(0, 0, 0, 0);
  grid->setSpacing(4);
  column->addLayout(grid, 1);
  for (XYView* v : {&d_->kv, &d_->users, &d_->prefill}) {
    v->chart = new QChart;
    v->view = make_view(v->chart, this);
    // A resized chart (a smaller window, a moved splitter) spaces its log labels for its new plot area.
    connect(v->chart, &QChart::plotAreaChanged, this, [v] { fit_log_labels(*v); });
  }
  make_bar(d_->bar, this);
  for (QChart* c : {d_->kv.chart, d_->users.chart, d_->prefill.chart, d_->bar.chart})
    apply_chart_palette(c, palette());

  // The KV chart's legend under it, wrapping (legend_html); Qt's own stays in exports (paintChart).
  d_->kv.chart->legend()->setVisible(false);
  d_->kv_legend = new QLabel;
  d_->kv_legend->setObjectName(QStringLiteral("kv_legend"));
  d_->kv_legend->setTextFormat(Qt::RichText);
  d_->kv_legend->setWordWrap(true);
  d_->kv_legend->setContentsMargins(6, 0, 4, 2);
  auto* kv_box = new QWidget;
  auto* kv_column = new QVBoxLayout(kv_box);
  kv_column->setContentsMargins(0, 0, 0, 0);
  kv_column->setSpacing(0);
  kv_column->addWidget(d_->kv.view, 1);
  kv_column->addWidget(d_->kv_legend);
  grid->addWidget(kv_box, 0, 0);
  grid->addWidget(d_->bar.view, 0, 1);
  grid->addWidget(d_->users.view, 1, 0);
  grid->addWidget(d_->prefill.view, 1, 1);
  for (int i = 0; i < 2; ++i) {
    grid->setColumnStretch(i, 1);
    grid->setRowStretch(i, 1);
  }
  d_->chain = new QTimer(this);
  d_->chain->setSingleShot(true);
  d_->chain->setInterval(0);
  connect(d_->chain, &QTimer::timeout, this, &ChartPanel::refreshNext);
  for (int c = 0; c < kCount; ++c) {
    QChartView* v = d_->view(static_cast<Chart>(c));
    v->installEventFilter(this);
    v->viewport()->installEventFilter(this);
  }
}

ChartPanel::~ChartPanel() = default;

void ChartPanel::display(const ChartsData& data) {
  if (d_->caption->text() != data.caption) {
    d_->caption->setText(data.caption);
    d_->caption->setToolTip(data.caption);  // the whole line where the panel is too narrow for it
  }
  d_->shown = data;
  // Newest wins: whatever the chain had left of older data is redone from the first chart.
  for (bool& p : d_->pending) p = true;
  // The memory bar says what the results table says, in the same turn: a few bar values, no axis or
  // legend text to lay out. Left to the chain, a dragged slider restarted it before the bar's turn and
  // the bar lagged the table (issue 27).
  if (onScreen(GpuMemory)) refreshChart(GpuMemory);
  d_->skip_turn = true;
  d_->chain->start();
}

bool ChartPanel::refreshPending() const {
  return std::any_of(std::begin(d_->pending), std::end(d_->pending), [](bool p) { return p; });
}

bool ChartPanel::refreshPending(Chart chart) const { return d_->pending[chart]; }

bool ChartPanel::refreshScheduled() const { return d_->chain->isActive(); }

void ChartPanel::refreshNow() {
  d_->chain->stop();
  for (int c = 0; c < kCount; ++c)
    if (d_->pending[c]) refreshChart(static_cast<Chart>(c));
}

bool ChartPanel::onScreen(Chart chart) const {
  // The viewport's region: the view's own is covered by its viewport, an opaque child, so always empty.
  const QWidget* viewport = d_->view(chart)->viewport();
  return viewport->isVisible() && !viewport->visibleRegion().isEmpty();
}

void ChartPanel::refreshNext() {
  if (std::exchange(d_->skip_turn, false)) {
    d_->chain->start();
    return;
  }
  bool refreshed = false;
  for (int c = 0; c < kCount; ++c) {
    const auto chart = static_cast<Chart>(c);
    if (!d_->pending[c] || !onScreen(chart)) continue;
    if (refreshed) {  // one chart per turn: the next one in the next turn
      d_->chain->start();
      return;
    }
    refreshChart(chart);
    refreshed = true;
  }
}

void ChartPanel::refreshChart(Chart chart) {
  const ChartsData& data = d_->shown;
  XYView* xy = nullptr;
  switch (chart) {
    case KvMemory: display_xy(*(xy = &d_->kv), data.kv_memory, palette(), true); break;
    case GpuMemory: display_bar(d_->bar, data.memory, palette().color(QPalette::Text), true); break;
    case MaxUsers: display_xy(*(xy = &d_->users), data.max_users, palette(), true); break;
    case PrefillCost: display_xy(*(xy = &d_->prefill), data.prefill, palette(), true); break;
  }
  if (xy != nullptr && xy->restyle) {
    apply_chart_palette(xy->chart, palette());
    xy->restyle = false;
  }
  if (chart == KvMemory) {
    const QString legend = legend_html(d_->kv, data.kv_memory);
    if (d_->kv_legend->text() != legend) {
      d_->kv_legend->setText(legend);
      // Its height only grows: a legend a line shorter (another engine's names) moves no chart.
      const int width = d_->kv_legend->width();
      const int height = width > 100 ? d_->kv_legend->heightForWidth(width) : 0;  // 0 wide: not laid out yet
      if (height > d_->kv_legend->minimumHeight()) d_->kv_legend->setMinimumHeight(height);
    }
  }
  d_->pending[chart] = false;
}

bool ChartPanel::eventFilter(QObject* watched, QEvent* event) {
  // A chart the chain left behind (off screen when it ran) that shows or is painted again (scrolled back
  // into view, a splitter opened) is refreshed now, before this paint, so that it never appears with
  // older data; the chain goes on for any other chart left behind.
  if ((event->type() == QEvent::Show || event->type() == QEvent::Paint) && !d_->chain->isActive())
    for (int c = 0; c < kCount; ++c) {
      QChartView* v = d_->view(static_cast<Chart>(c));
      if (d_->pending[c] && (watched == v || watched == v->viewport())) {
        refreshChart(static_cast<Chart>(c));
        if (refreshPending()) d_->chain->start();
        break;
      }
    }
  return QWidget::eventFilter(watched, event);
}

void ChartPanel::changeEvent(QEvent* event) {
  QWidget::changeEvent(event);
  if (event->type() != QEvent::PaletteChange && event->type() != QEvent::ApplicationPaletteChange) return;
  // A theme change resets the series' colours: make them again from the data last shown.
  for (XYView* v : {&d_->kv, &d_->users, &d_->prefill}) {
    apply_chart_palette(v->chart, palette());
    v->styles.clear();  // differs from the data's: display_xy makes the series again
  }
  BarView& b = d_->bar;
  apply_chart_palette(b.chart, palette());
  b.series->clear();
  b.sets.clear();
  for (auto* s : b.marks) {
    b.chart->removeSeries(s);
    delete s;
  }
  b.marks.clear();
  const ChartsData data = d_->shown;
  display(data);
}

void ChartPanel::paintChart(Chart chart, QPainter* painter, const QRect& target) const {
  // A chart of its own, laid out at the target's size (fonts stay their size, the plot grows), so an
  // export is not the on-screen chart scaled. The view is never shown.
  std::unique_ptr<QChartView> view;
  if (chart == GpuMemory) {
    BarView b;
    make_bar(b, nullptr);
    apply_chart_palette(b.chart, palette());
    display_bar(b, d_->shown.memory, palette().color(QPalette::Text), false);
    view.reset(b.view);
  } else {
    XYView v;
    v.chart = new QChart;
    v.view = make_view(v.chart, nullptr);
    display_xy(v,
               chart == KvMemory   ? d_->shown.kv_memory
               : chart == MaxUsers ? d_->shown.max_users
                                   : d_->shown.prefill,
               palette(), false);
    apply_chart_palette(v.chart, palette());  // after the axes exist: the export looks as the window does
    view.reset(v.view);
  }
  view->setMinimumSize(1, 1);
  view->setFrameShape(QFrame::NoFrame);
  view->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  view->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  view->resize(target.size());
  // The resize event (pending while hidden) sizes the chart to the view; the layout then places the
  // plot, axes and legend for that size.
  view->setAttribute(Qt::WA_DontShowOnScreen);
  view->show();
  view->chart()->resize(QSizeF(target.size()));
  if (QGraphicsLayout* layout = view->chart()->layout()) layout->activate();
  view->render(painter, QRectF(target), QRect(QPoint(0, 0), target.size()));
}

QString ChartPanel::chartName(Chart chart) {
  switch (chart) {
    case KvMemory: return QStringLiteral("KV memory vs context");
    case GpuMemory: return QStringLiteral("Memory per GPU");
    case MaxUsers: return QStringLiteral("Max users vs context");
    case PrefillCost: return QStringLiteral("Prefill cost vs prompt length");
  }
  return {};
}

QWidget* ChartPanel::chartWidget(Chart chart) const { return d_->view(chart); }

QString ChartPanel::shownTitle(Chart chart) const {
  const QChartView* v = d_->view(chart);
  return v == nullptr ? QString() : v->chart()->title();
}

QString ChartPanel::caption() const { return d_->caption->text(); }

int ChartPanel::seriesCount(Chart chart) const {
  const QChartView* v = d_->view(chart);
  if (v == nullptr) return 0;
  if (chart == GpuMemory) return static_cast<int>(d_->bar.sets.size());
  return static_cast<int>(v->chart()->series().size());
}

}  // namespace kvplan::gui
