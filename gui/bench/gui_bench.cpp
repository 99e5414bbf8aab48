// kvplan-gui-bench: how long the window takes to follow a moving context slider. Moves the slider
// through 100 positions across its range, each time letting the controller recompute and the window
// (results and all four charts) repaint, and prints the median and the worst time. Then the same for
// 100 user counts, which recompute every chart series (the context sweep reuses them), and then each
// other kind of input as a person changes it in the window: GPU, KV cache dtype, weight dtype, tp, the
// engine and the model (every step recomputes the series; each is measured with the paint the app does).
// Ends with a summary: per kind of input, the median and worst step, whether the worst fits a frame, and
// the part of the step until the controller emits planChanged (kvplan's figures; the rest is the window);
// then, since the charts refresh one per event-loop turn, the longest single block of the GUI thread per
// step (what must fit a 16 ms frame) beside the time until the window is settled (every chart current).
// Usage: kvplan-gui-bench [--only KIND] [--rounds] [SCENARIO.json]   (runs offscreen unless QT_QPA_PLATFORM
// is set)
// --only KIND: step through that kind of input alone (context, users, GPU, "KV dtype", "weight dtype", tp,
// engine, model), for profiling one kind at a time (perf record -g).
#include <QApplication>
#include <QComboBox>
#include <QElapsedTimer>
#include <QListView>
#include <QSlider>
#include <QSpinBox>
#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <functional>
#include <vector>

#include "kvplan/gui/charts.hpp"
#include "kvplan/gui/context_scale.hpp"
#include "kvplan/gui/controller.hpp"
#include "kvplan/gui/count_box.hpp"
#include "kvplan/gui/main_window.hpp"

namespace {
void settle() {
  for (int i = 0; i < 5; ++i) QCoreApplication::processEvents();
}

/// CPU time of this thread (the GUI thread does all the work offscreen), in milliseconds: unlike wall
/// time it does not grow when other processes share the cores.
double cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

struct Times {
  std::vector<double> wall, cpu;  ///< the step and 3 event-loop rounds, as the earlier passes measured
  std::vector<double> core;       ///< wall ms from the step's start to the controller's planChanged: kvplan's
                             ///< figures computed, the window not yet updated (0: the step planned nothing)
  std::vector<double> block_wall, block_cpu;      ///< the longest single block of the GUI thread: the input
                                                  ///< event itself, or one event-loop round after it
  std::vector<double> settled_wall, settled_cpu;  ///< until every chart on screen is current and painted
  std::vector<int> block_round;  ///< where the longest CPU block was: 0 the input itself, n the n-th round
};

/// --rounds: print each step's blocks (the input's, then each event-loop round's CPU ms), to see which
/// round holds the longest.
bool show_rounds = false;

/// Wall ms since the current step started when the controller emitted planChanged (-1: not yet). Set by
/// a slot connected before the window's, so it marks the end of the controller's work.
double plan_mark = -1;
QElapsedTimer step_timer;

/// Times `steps` calls of `step(i)` (milliseconds), each followed by the event-loop rounds the app runs
/// after an input (the table's paint, then the charts one per round: ChartPanel's progressive update)
/// and, with `full`, a repaint of every chart from scratch as well. Each round is one processEvents()
/// call, timed on its own: the longest of them (or the input's own handling) is what blocks the GUI
/// thread, what must fit a 16 ms frame. Settled: until the chain of chart refreshes has ended and three
/// more rounds delivered the layout and paint it posted.
Times sweep(kvplan::gui::MainWindow& window, int steps, bool full, const std::function<void(int)>& step) {
  Times ms;
  const auto wall_ms = [] { return static_cast<double>(step_timer.nsecsElapsed()) / 1e6; };
  for (int i = 0; i < steps; ++i) {
    step_timer.start();
    plan_mark = -1;
    const double c0 = cpu_ms();
    step(i);
    double block_wall = wall_ms(), block_cpu = cpu_ms() - c0;
    QString blocks = QString::number(block_cpu, 'f', 1);
    int block_round = 0;
    double total_wall = 0, total_cpu = 0;
    int rounds = 0;
    // Rounds after the chain ended; the first three rounds always run (the earlier passes' total).
    for (int idle = 0; idle < 3 && rounds < 1000; ++rounds) {
      const bool chain_done = !window.charts()->refreshScheduled();
      const double w0 = wall_ms(), r0 = cpu_ms();
      QCoreApplication::processEvents();
      if (show_rounds) blocks += QStringLiteral(" ") + QString::number(cpu_ms() - r0, 'f', 1);
      block_wall = std::max(block_wall, wall_ms() - w0);
      if (cpu_ms() - r0 > block_cpu) {
        block_cpu = cpu_ms() - r0;
        block_round = rounds + 1;
      }
      if (chain_done) ++idle;
      if (rounds == 2) {
        total_wall = wall_ms();
        total_cpu = cpu_ms() - c0;
      }
    }
    if (full)
      for (int c = 0; c < kvplan::gui::ChartPanel::kCount; ++c) {
        const double w0 = wall_ms(), r0 = cpu_ms();
        window.charts()->chartWidget(static_cast<kvplan::gui::ChartPanel::Chart>(c))->repaint();
        block_wall = std::max(block_wall, wall_ms() - w0);
        block_cpu = std::max(block_cpu, cpu_ms() - r0);
      }
    if (show_rounds)
      std::printf("  step %2d: CPU ms of the input, then of each round: %s\n", i, qPrintable(blocks));
    ms.settled_wall.push_back(wall_ms());
    ms.settled_cpu.push_back(cpu_ms() - c0);
    ms.wall.push_back(full ? wall_ms() : total_wall);
    ms.cpu.push_back(full ? cpu_ms() - c0 : total_cpu);
    ms.block_wall.push_back(block_wall);
    ms.block_cpu.push_back(block_cpu);
    ms.block_round.push_back(block_round);
    ms.core.push_back(std::max(plan_mark, 0.0));
  }
  return ms;
}

/// One line of the closing summary: an input kind, its median and worst step as the app paints (wall).
struct Summary {
  const char* kind;
  double median, worst, cpu_worst, core_median, core_worst;
  double block_wall_median, block_wall_worst, block_cpu_median, block_cpu_worst;
  double settled_wall_median, settled_wall_worst, settled_cpu_median, settled_cpu_worst;
};
std::vector<Summary> summary;

/// The kind --only asks for (empty: every kind).
const char* only = "";
/// Whether the sweeps of `kind` run (--only names one kind, or none).
bool wanted(const char* kind) { return only[0] == '\0' || std::strcmp(only, kind) == 0; }

void report(const char* what, Times t, const char* kind = nullptr) {
  // The step whose wall time was worst, before sorting: a recurring one is layout, not noise.
  const auto worst = static_cast<int>(std::max_element(t.wall.begin(), t.wall.end()) - t.wall.begin());
  // The step whose longest block (CPU) was worst, and where in it: a spike at step 0 is a first use.
  const auto worst_block =
      t.block_cpu.empty()
          ? -1
          : static_cast<int>(std::max_element(t.block_cpu.begin(), t.block_cpu.end()) - t.block_cpu.begin());
  const auto stats = [](std::vector<double>& v) {
    std::sort(v.begin(), v.end());
    const double median = (v[v.size() / 2] + v[(v.size() - 1) / 2]) / 2;
    return std::array<double, 3>{median, v[(v.size() * 9) / 10], v.back()};
  };
  const auto w = stats(t.wall);
  const auto c = stats(t.cpu);
  const auto k = t.core.empty() ? std::array<double, 3>{} : stats(t.core);
  const auto or_zero = [&](std::vector<double>& v) { return v.empty() ? std::array<double, 3>{} : stats(v); };
  const auto bw = or_zero(t.block_wall), bc = or_zero(t.block_cpu);
  const auto sw = or_zero(t.settled_wall), sc = or_zero(t.settled_cpu);
  if (kind != nullptr)
    summary.push_back(
        {kind, w[0], w[2], c[2], k[0], k[2], bw[0], bw[2], bc[0], bc[2], sw[0], sw[2], sc[0], sc[2]});
  std::printf(
      "%-50s wall median %5.2f p90 %5.2f max %5.2f ms (step %d) | cpu median %5.2f p90 %5.2f max %5.2f ms\n",
      what, w[0], w[1], w[2], worst, c[0], c[1], c[2]);
  if (!t.block_wall.empty())
    std::printf(
        "%-50s longest block wall %5.2f / %5.2f, cpu %5.2f / %5.2f | settled wall %5.2f / %5.2f, "
        "cpu %5.2f / %5.2f ms (median / max); worst block: step %d, %s %d\n",
        "", bw[0], bw[2], bc[0], bc[2], sw[0], sw[2], sc[0], sc[2], worst_block,
        t.block_round[static_cast<std::size_t>(worst_block)] == 0 ? "the input" : "round",
        t.block_round[static_cast<std::size_t>(worst_block)]);
}
}  // namespace

int main(int argc, char** argv) {
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  const char* scenario = nullptr;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--rounds") == 0) {
      show_rounds = true;
    } else if (std::strcmp(argv[i], "--only") == 0 && i + 1 < argc) {
      only = argv[++i];
      static constexpr const char* kKinds[] = {"context",      "users", "GPU",    "KV dtype",
                                               "weight dtype", "tp",    "engine", "model"};
      if (std::none_of(std::begin(kKinds), std::end(kKinds),
                       [](const char* k) { return std::strcmp(k, only) == 0; })) {
        std::fprintf(stderr,
                     "kvplan-gui-bench: error: --only: unknown kind '%s' (context, users, GPU, "
                     "\"KV dtype\", \"weight dtype\", tp, engine, model)\n",
                     only);
        return 2;
      }
    } else if (scenario == nullptr && argv[i][0] != '-') {
      scenario = argv[i];
    } else {
      std::fprintf(stderr, "kvplan-gui-bench: error: unexpected argument '%s'\n", argv[i]);
      return 2;
    }
  }
  kvplan::gui::Controller controller;
  // Connected before the window exists, so it runs before the window's own slots.
  QObject::connect(&controller, &kvplan::gui::Controller::planChanged,
                   [] { plan_mark = static_cast<double>(step_timer.nsecsElapsed()) / 1e6; });
  if (scenario != nullptr && !controller.openFile(QString::fromLocal8Bit(scenario))) {
    std::fprintf(stderr, "kvplan-gui-bench: error: %s\n", qPrintable(controller.errorMessage()));
    return 2;
  }
  kvplan::gui::MainWindow window(&controller);
  window.resize(1366, 768);  // a laptop screen (the window opens within the screen otherwise)
  window.show();
  settle();
  auto* slider = window.findChild<QSlider*>(QStringLiteral("context_slider"));
  auto* users = window.findChild<kvplan::gui::CountBox*>(QStringLiteral("users"));
  if (slider == nullptr || users == nullptr) return 1;
  std::printf("model: %s, window %dx%d, platform %s\n", qPrintable(controller.modelTitle()), window.width(),
              window.height(), qPrintable(QGuiApplication::platformName()));

  // Every chart is on screen at this size (a chart off screen would refresh only when shown).
  for (int c = 0; c < kvplan::gui::ChartPanel::kCount; ++c)
    if (!window.charts()->onScreen(static_cast<kvplan::gui::ChartPanel::Chart>(c)))
      std::printf(
          "note: %s is off screen\n",
          qPrintable(kvplan::gui::ChartPanel::chartName(static_cast<kvplan::gui::ChartPanel::Chart>(c))));
  constexpr int kSteps = 100;
  const auto slide = [&](int i) { slider->setValue(i * kvplan::gui::kContextSliderMax / (kSteps - 1)); };
  if (wanted("context")) {
    report("context slider: recompute + paint (as in the app)", sweep(window, kSteps, false, slide),
           "context");
    slider->setValue(0);
    report("context slider: recompute + repaint all 4 charts", sweep(window, kSteps, true, slide));
  }
  if (wanted("users")) {
    report(
        "users (Enter in the box): recompute all series + paint",
        sweep(window, kSteps, false, [&](int i) { Q_EMIT users->textCommitted(QString::number(101 + i)); }),
        "users");
    report("users: recompute all series + repaint all 4 charts",
           sweep(window, kSteps, true, [&](int i) { Q_EMIT users->textCommitted(QString::number(1 + i)); }));
    Times compute;
    for (int i = 0; i < kSteps; ++i) {
      QElapsedTimer t;
      t.start();
      const double c0 = cpu_ms();
      controller.setUsers(static_cast<std::uint64_t>(200 + i));
      compute.wall.push_back(static_cast<double>(t.nsecsElapsed()) / 1e6);
      compute.cpu.push_back(cpu_ms() - c0);
    }
    report("users: recompute and window update, no repaint", compute);
  }

  // Every other kind of input, through its widget, as the app paints (no forced repaint).
  const auto cycle = [&](const char* what, const char* object, int steps, const char* kind) {
    auto* box = window.findChild<QComboBox*>(QLatin1String(object));
    if (!wanted(kind) || box == nullptr || box->count() < 2) return;
    const int start = box->currentIndex();
    report(what,
           sweep(window, steps, false,
                 [&](int i) {
                   // The next enabled item (types the engine has no cache for are disabled).
                   int next = (start + i + 1) % box->count();
                   for (int k = 0; k < box->count() &&
                                   !(box->model()->flags(box->model()->index(next, 0)) & Qt::ItemIsEnabled);
                        ++k)
                     next = (next + 1) % box->count();
                   box->setCurrentIndex(next);
                 }),
           kind);
    box->setCurrentIndex(start);
  };
  cycle("GPU preset: recompute all series + paint", "gpu", 40, "GPU");
  cycle("KV cache dtype: recompute all series + paint", "kv_dtype", 40, "KV dtype");
  cycle("weight dtype: recompute all series + paint", "weight_dtype", 40, "weight dtype");
  if (auto* tp = window.findChild<QSpinBox*>(QStringLiteral("tp")); tp != nullptr && wanted("tp")) {
    static constexpr int kTp[] = {1, 2, 4, 8};
    report("tp (1, 2, 4, 8): recompute all series + paint",
           sweep(window, 40, false, [&](int i) { tp->setValue(kTp[i % 4]); }), "tp");
    tp->setValue(1);
  }
  cycle("engine: recompute all series + paint", "engine", 40, "engine");
  if (auto* list = window.findChild<QListView*>(QStringLiteral("presets"));
      list && list->model()->rowCount() > 1 && wanted("model")) {
    const int models = std::min(40, list->model()->rowCount());
    report("model preset: load, recompute all series + paint",
           sweep(window, models, false, [&](int i) { Q_EMIT list->activated(list->model()->index(i, 0)); }),
           "model");
  }
  // Per kind of input, as the app paints: within one 16 ms frame or not.
  // "to plan": the controller's part (kvplan's figures and series), the rest is the window's.
  // "total": the step and 3 event-loop rounds, as the earlier passes measured it.
  std::printf("\n%-14s %12s %12s %14s %15s %14s  total worst within 16 ms\n", "input", "wall median",
              "wall worst", "CPU worst", "to plan median", "to plan worst");
  for (const Summary& s : summary)
    std::printf("%-14s %9.2f ms %9.2f ms %11.2f ms %12.2f ms %11.2f ms  %s\n", s.kind, s.median, s.worst,
                s.cpu_worst, s.core_median, s.core_worst, s.worst <= 16.0 ? "yes" : "no");
  // What a person feels: the longest single block of the GUI thread per step (must fit 16 ms), and
  // the time until every chart on screen is current (median / worst, ms).
  std::printf("\n%-14s %17s %17s %19s %19s  block worst within 16 ms (CPU)\n", "input", "block wall",
              "block CPU", "settled wall", "settled CPU");
  for (const Summary& s : summary)
    std::printf("%-14s %7.2f / %7.2f %7.2f / %7.2f %8.2f / %8.2f %8.2f / %8.2f  %s\n", s.kind,
                s.block_wall_median, s.block_wall_worst, s.block_cpu_median, s.block_cpu_worst,
                s.settled_wall_median, s.settled_wall_worst, s.settled_cpu_median, s.settled_cpu_worst,
                s.block_cpu_worst <= 16.0 ? "yes" : "no");
  return 0;
}
