// The window driven as a person drives it (issue 16, "work is not lost" and "words"; issue 11, the engine
// rows): the engine option rows come from core's option table and show each engine's default value,
// File > Open Recent keeps the last 8 files, and changing the model with unsaved edits asks first.
// Expected values are the engines' own defaults and the inputs typed, not read back from the program.
#include <QAbstractBarSeries>
#include <QAbstractButton>
#include <QAction>
#include <QApplication>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFile>
#include <QFontMetricsF>
#include <QFormLayout>
#include <QLabel>
#include <QLegendMarker>
#include <QLineEdit>
#include <QLineSeries>
#include <QListView>
#include <QLogValueAxis>
#include <QMenu>
#include <QMessageBox>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QSpinBox>
#include <QSplitter>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <cmath>
#include <memory>
#include <type_traits>
#include <variant>

#include "gui_test_support.hpp"
#include "kvplan/gui/chart_data.hpp"
#include "kvplan/gui/charts.hpp"
#include "kvplan/gui/controller.hpp"
#include "kvplan/gui/main_window.hpp"
#include "kvplan/gui/recent_files.hpp"
#include "kvplan/gui/tables.hpp"
#include "kvplan/options.hpp"
#include "kvplan/plan.hpp"
#include "kvplan/presets.hpp"

using namespace kvplan;
using namespace kvplan::gui;

namespace {
using test::shown_text;
using test::Window;

QString qstr(std::string_view s) { return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size())); }

/// Picks `text` in a combo box from the keyboard: focus, then type the item's first letters.
void choose(QComboBox* box, const QString& text) {
  box->setFocus(Qt::TabFocusReason);
  QTRY_VERIFY(box->hasFocus());
  QTest::qWait(QApplication::keyboardInputInterval() + 50);  // a new search, not the last one continued
  QTest::keyClicks(box, text);
  QCOMPARE(box->currentText(), text);
}

/// Answers the next message box with `button` as soon as it shows (a modal box runs its own loop), and
/// counts the boxes answered; stops listening when destroyed.
struct Answer {
  QTimer timer;
  int asked = 0;
  explicit Answer(QMessageBox::StandardButton button) {
    timer.setInterval(10);
    QObject::connect(&timer, &QTimer::timeout, [this, button] {
      for (QWidget* w : QApplication::topLevelWidgets())
        if (auto* box = qobject_cast<QMessageBox*>(w); box != nullptr && box->isVisible()) {
          ++asked;
          timer.stop();
          box->button(button)->click();
          return;
        }
    });
    timer.start();
  }
};

/// Clicks preset `id` in the list after typing it in the search box.
void click_preset(Window& win, const QString& id) {
  auto* search = win.find<QLineEdit>("search");
  search->clear();
  QTest::keyClicks(search, id);
  auto* list = win.find<QListView>("presets");
  for (int r = 0; r < list->model()->rowCount(); ++r) {
    const QModelIndex i = list->model()->index(r, 0);
    if (i.data(PresetListModel::IdRole).toString() == id) {
      QTest::mouseClick(list->viewport(), Qt::LeftButton, Qt::NoModifier, list->visualRect(i).center());
      return;
    }
  }
  QFAIL("preset not listed");
}

/// The entries of File > Open Recent, as shown ("&1 name"), without the separator and "Clear".
QStringList recent_entries(MainWindow& w) {
  QStringList out;
  auto* menu = w.findChild<QMenu*>(QStringLiteral("recent_menu"));
  if (menu == nullptr) return {QStringLiteral("no Open Recent menu")};
  for (QAction* a : menu->actions())
    if (!a->isSeparator() && a->data().isValid()) out << a->text();
  return out;
}

/// Whether a colour is within `tolerance` (summed over red, green, blue) of another.
bool near(const QColor& a, const QColor& b, int tolerance) {
  return std::abs(a.red() - b.red()) + std::abs(a.green() - b.green()) + std::abs(a.blue() - b.blue()) <
         tolerance;
}

/// Whether the left 16 columns of `w` at a quarter of its height from the bottom show colour `c`
/// (antialiasing blends a frame's edges: tolerance 40; a flat background: 6).
bool left_edge_shows(QWidget* w, const QColor& c, int tolerance = 40) {
  const QImage image = w->grab().toImage();
  for (int x = 0; x < 16; ++x)
    if (near(image.pixelColor(x, image.height() * 3 / 4), c, tolerance)) return true;
  return false;
}

QAction* recent_action(MainWindow& w, const QString& text) {
  for (QAction* a : w.findChild<QMenu*>(QStringLiteral("recent_menu"))->actions())
    if (a->text() == text) return a;
  return nullptr;
}
}  // namespace

class EditingTest : public QObject {
  Q_OBJECT

  QTemporaryDir settings_;
  QTemporaryDir files_;

 private Q_SLOTS:
  void initTestCase() {
    // The Open Recent list goes to a settings file of this test only.
    QVERIFY(settings_.isValid() && files_.isValid());
    QCoreApplication::setOrganizationName(QStringLiteral("kvplan-test"));
    QCoreApplication::setApplicationName(QStringLiteral("editing"));
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, settings_.path());
  }

  // Issue 11: the rows are core's table, shown for the engines it names. Issue 16: "Spin boxes show the
  // engine default's value": vLLM block_size 16 (vllm/config/cache.py) and max_num_batched_tokens 8192,
  // SGLang page_size 1, TensorRT-LLM tokens_per_block 32, llama.cpp n_ubatch 512 (common/common.h).
  void theEngineRowsAreCoresTableWithTheDefaults() {
    Window win;
    QVERIFY(QTest::qWaitForWindowActive(&win.w));
    auto* engine = win.find<QComboBox>("engine");
    auto* version = win.find<QComboBox>("engine_version");
    struct Case {
      QString engine, version;
      QStringList shown;
      QList<QPair<QString, QString>> defaults;  // spin box, text at 0
    };
    const QList<Case> cases = {
        {"ideal", "", {}, {}},
        {"vllm",
         "",
         {"block_size", "max_num_batched_tokens", "max_num_seqs", "disable_hybrid_kv_cache_manager"},
         {{"block_size", "engine default (16)"},
          {"max_num_batched_tokens", "engine default (8,192)"},
          {"max_num_seqs", "engine default (1,024)"}}},
        {"vllm", "v0", {"block_size"}, {{"block_size", "engine default (16)"}}},
        // max_tokens: SGLang's --max-total-tokens cap (model_runner.py init_memory_pool), as TensorRT-LLM's.
        {"sglang",
         "",
         {"block_size", "max_tokens", "swa_full_tokens_ratio"},
         {{"block_size", "engine default (1)"}, {"max_tokens", "engine default"}}},
        {"llamacpp",
         "",
         {"ubatch", "swa_full", "kv_unified", "flash_attn_off", "n_rs_seq"},
         {{"ubatch", "engine default (512)"}}},
        {"trtllm",
         "",
         {"block_size", "max_num_batched_tokens", "max_tokens"},
         {{"block_size", "engine default (32)"},
          {"max_num_batched_tokens", "engine default (8,192)"},
          {"max_tokens", "engine default"}}},
    };
    for (const Case& k : cases) {
      choose(engine, k.engine);
      if (!k.version.isEmpty()) choose(version, k.version);
      QCOMPARE(win.c.inputs().engine.version, k.version.toStdString());
      for (const EngineOptionSpec& o : engine_option_table()) {
        auto* row = win.find<QWidget>(std::string(o.key).c_str());
        QVERIFY2(row != nullptr, o.key.data());
        QVERIFY2(row->isVisibleTo(&win.w) == k.shown.contains(qstr(o.key)),
                 qPrintable(k.engine + ' ' + k.version + ": " + qstr(o.key)));
        // Each row says what it is in the table's words.
        if (o.kind == OptionKind::flag) {
          QCOMPARE(qobject_cast<QCheckBox*>(row)->text(), qstr(o.gui_label));
        } else {
          auto* form = qobject_cast<QFormLayout*>(row->parentWidget()->layout());
          QVERIFY(form != nullptr);
          QCOMPARE(qobject_cast<QLabel*>(form->labelForField(row))->text(), qstr(o.gui_label));
        }
      }
      for (const auto& [name, text] : k.defaults)
        QCOMPARE(shown_text(win.find<QSpinBox>(name.toLatin1().constData())), text);
    }
    // A value typed under llama.cpp is the plan's, and survives a switch to vLLM and back.
    choose(engine, QStringLiteral("llamacpp"));
    test::type_into(win.find<QSpinBox>("ubatch"), QStringLiteral("256"));
    QCOMPARE(win.c.inputs().engine.ubatch, 256ULL);
    QTest::mouseClick(win.find<QCheckBox>("swa_full"), Qt::LeftButton, Qt::NoModifier,
                      QPoint(6, win.find<QCheckBox>("swa_full")->height() / 2));
    QVERIFY(win.c.inputs().engine.swa_full);
    choose(engine, QStringLiteral("vllm"));
    QCOMPARE(win.c.inputs().engine.ubatch, 0ULL);  // not a vLLM option
    choose(engine, QStringLiteral("llamacpp"));
    QCOMPARE(win.c.inputs().engine.ubatch, 256ULL);
    QVERIFY(win.c.inputs().engine.swa_full);
    QCOMPARE(win.find<QSpinBox>("ubatch")->value(), 256);
    QVERIFY(win.find<QCheckBox>("swa_full")->isChecked());
    // SGLang's ratio: a double spin box, typed.
    choose(engine, QStringLiteral("sglang"));
    test::type_into(win.find<QDoubleSpinBox>("swa_full_tokens_ratio"), QStringLiteral("0.5"));
    QCOMPARE(win.c.inputs().engine.swa_full_tokens_ratio, 0.5);
  }

  // The defaults the rows show are the policies' own: with an option set to its shown default, each
  // engine plans and logs exactly what it does with the option unset (a sliding-window model and a
  // dense one, on an H100 with 16 users of 32,768 tokens).
  void theShownDefaultsAreThePolicies() {
    for (const char* id : {"gemma-3-27b", "llama-3.1-8b"}) {
      PlanInputs in;
      in.model = presets::find_model(id);
      in.gpu = presets::find_gpu("h100-sxm");
      in.context = Tokens{32768};
      in.users = 16;
      int checked = 0;
      for (const EngineOptionSpec& o : engine_option_table())
        for (const Engine e : {Engine::vllm, Engine::sglang, Engine::llamacpp, Engine::trtllm}) {
          const std::uint64_t d = o.engine_default.at(static_cast<std::size_t>(e));
          if (d == 0) continue;
          in.engine = EngineOptions{};
          in.engine.engine = e;
          PlanInputs set = in;
          std::visit(
              [&](auto member) {
                if constexpr (std::is_same_v<std::remove_cvref_t<decltype(set.engine.*member)>,
                                             std::uint64_t>)
                  set.engine.*member = d;
              },
              o.member);
          const Plan unset_plan = make_plan(in), set_plan = make_plan(set);
          const QString what = QLatin1String(id) + ' ' + qstr(o.key) + ' ' + qstr(name(e));
          QVERIFY2(unset_plan.engine.log_lines == set_plan.engine.log_lines, qPrintable(what));
          QVERIFY2(unset_plan.per_gpu.kv_bytes_total == set_plan.per_gpu.kv_bytes_total, qPrintable(what));
          QVERIFY2(unset_plan.max_users == set_plan.max_users, qPrintable(what));
          QVERIFY2(unset_plan.max_context == set_plan.max_context, qPrintable(what));
          ++checked;
        }
      // block_size x 3 engines, max_num_batched_tokens x 2 (vLLM, TensorRT-LLM's max_num_tokens),
      // max_num_seqs, ubatch
      QCOMPARE(checked, 7);
    }
  }

  // Issue 16, "work is not lost": File > Open Recent lists the last 8 files opened, newest first, keeps
  // them for the next session, and takes off (with a message) a file that is gone.
  void openRecentKeepsTheLastEightFiles() {
    QFile scenario(test::gui_fixture("screenshot.json"));
    QVERIFY(scenario.open(QIODevice::ReadOnly));
    const QByteArray json = scenario.readAll();
    const auto path = [this](int i) { return files_.filePath(QStringLiteral("s%1.json").arg(i)); };
    for (int i = 1; i <= 9; ++i) {
      QFile f(path(i));
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write(json);
    }
    {
      Window win;
      win.w.restoreSettings();
      QVERIFY(QTest::qWaitForWindowActive(&win.w));
      QVERIFY(recent_entries(win.w).isEmpty());
      for (int i = 1; i <= 9; ++i) test::drop(win.w, path(i));
      QCOMPARE(win.c.scenarioPath(), path(9));
      // Newest first, 8 of them: s9 ... s2.
      QCOMPARE(recent_entries(win.w), QStringList({"&1 s9.json", "&2 s8.json", "&3 s7.json", "&4 s6.json",
                                                   "&5 s5.json", "&6 s4.json", "&7 s3.json", "&8 s2.json"}));
      win.w.close();
    }
    // The next session has the same list.
    Window win;
    win.w.restoreSettings();
    QVERIFY(QTest::qWaitForWindowActive(&win.w));
    QCOMPARE(recent_entries(win.w).size(), 8);
    QCOMPARE(recent_entries(win.w).first(), QStringLiteral("&1 s9.json"));
    // A file that is gone: taken off, said so, the scenario kept.
    QVERIFY(QFile::remove(path(5)));
    recent_action(win.w, QStringLiteral("&5 s5.json"))->trigger();
    QVERIFY2(win.w.shownError().contains(path(5)), qPrintable(win.w.shownError()));
    QVERIFY(win.w.shownError().contains(QStringLiteral("no longer there")));
    QCOMPARE(recent_entries(win.w), QStringList({"&1 s9.json", "&2 s8.json", "&3 s7.json", "&4 s6.json",
                                                 "&5 s4.json", "&6 s3.json", "&7 s2.json"}));
    QVERIFY(win.c.scenarioPath().isEmpty());
    // One that is there opens, and goes first.
    recent_action(win.w, QStringLiteral("&6 s3.json"))->trigger();
    QCOMPARE(win.c.scenarioPath(), path(3));
    QCOMPARE(win.c.inputs().users, 16ULL);  // screenshot.json's
    QCOMPARE(recent_entries(win.w).first(), QStringLiteral("&1 s3.json"));
  }

  // Issue 16, "work is not lost": another preset, or a file opened, with unsaved edits asks Save /
  // Discard / Cancel; Cancel keeps everything, Discard goes on. With nothing to lose, nothing is asked.
  void changingTheModelWithUnsavedEditsAsksFirst() {
    Window win;
    QVERIFY(QTest::qWaitForWindowActive(&win.w));
    QCOMPARE(win.c.scenario().source.ref, std::string("llama-3.1-8b"));
    {
      // No edit yet: another preset loads without a question.
      Answer answer(QMessageBox::Cancel);
      click_preset(win, QStringLiteral("qwen3-32b"));
      QCOMPARE(answer.asked, 0);
      QCOMPARE(win.c.scenario().source.ref, std::string("qwen3-32b"));
    }
    // A weights override, which a preset switch drops.
    test::type_into(win.find<QLineEdit>("weights"), QStringLiteral("20GiB"));
    QCOMPARE(win.c.inputs().deployment.weights, std::optional<Bytes>(Bytes{20ULL << 30}));
    {
      Answer answer(QMessageBox::Cancel);
      click_preset(win, QStringLiteral("llama-3.1-70b"));
      QCOMPARE(answer.asked, 1);
      QCOMPARE(win.c.scenario().source.ref, std::string("qwen3-32b"));
      QCOMPARE(win.c.inputs().deployment.weights, std::optional<Bytes>(Bytes{20ULL << 30}));
      auto* list = win.find<QListView>("presets");
      QVERIFY(list->selectionModel()->selectedIndexes().isEmpty());  // 70b is not shown as chosen
    }
    {
      Answer answer(QMessageBox::Discard);
      click_preset(win, QStringLiteral("llama-3.1-70b"));
      QCOMPARE(answer.asked, 1);
      QCOMPARE(win.c.scenario().source.ref, std::string("llama-3.1-70b"));
      QVERIFY(!win.c.inputs().deployment.weights.has_value());
    }
    // After the message boxes the window is active again.
    win.w.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&win.w));
    // Users typed, then a scenario file opened (it replaces everything): asked.
    test::type_into(win.find<QWidget>("users"), QStringLiteral("9"));
    QCOMPARE(win.c.inputs().users, 9ULL);
    {
      Answer answer(QMessageBox::Cancel);
      test::drop(win.w, test::gui_fixture("screenshot.json"));
      QCOMPARE(answer.asked, 1);
      QCOMPARE(win.c.inputs().users, 9ULL);
      QVERIFY(win.c.scenarioPath().isEmpty());
    }
    {
      Answer answer(QMessageBox::Discard);
      test::drop(win.w, test::gui_fixture("screenshot.json"));
      QCOMPARE(answer.asked, 1);
      QCOMPARE(win.c.inputs().users, 16ULL);  // screenshot.json's
    }
    {
      // Just loaded: nothing to lose.
      Answer answer(QMessageBox::Cancel);
      test::drop(win.w, test::gui_fixture("scenario-70b-tp4.json"));
      QCOMPARE(answer.asked, 0);
      QVERIFY(win.c.scenarioPath().endsWith(QStringLiteral("scenario-70b-tp4.json")));
    }
  }

  // At 1366 x 768 and 1280 x 720 every y label of the prefill chart (nine decades in about 130 px) read
  // "...": Qt elides labels with less height than a line. Each log y axis now has a label per 1.2 lines at
  // most, at the laptop sizes as at 1800 x 1150.
  void logAxisLabelsHaveRoomAtLaptopSizes() {
    for (const QSize size : {QSize(1366, 768), QSize(1280, 720), QSize(1800, 1150)}) {
      Window win;
      win.w.resize(size);
      QVERIFY(QTest::qWaitForWindowActive(&win.w));
      test::settle_charts(win.w);
      QTest::qWait(50);  // the charts' layout after the resize
      for (const auto chart : {ChartPanel::KvMemory, ChartPanel::MaxUsers, ChartPanel::PrefillCost}) {
        QChart* c = qobject_cast<QChartView*>(win.w.charts()->chartWidget(chart))->chart();
        for (QAbstractAxis* a : c->axes(Qt::Vertical))
          if (auto* log = qobject_cast<QLogValueAxis*>(a)) {
            const double decades = std::log10(log->max() / log->min());
            const double labels = std::floor(decades / std::log10(log->base()) + 1e-9) + 1;
            const double line = QFontMetricsF(log->labelsFont()).height();
            QVERIFY2(labels * line <= c->plotArea().height(),
                     qPrintable(QStringLiteral("%1 at %2x%3: %4 labels of %5 px in %6 px")
                                    .arg(ChartPanel::chartName(chart))
                                    .arg(size.width())
                                    .arg(size.height())
                                    .arg(labels)
                                    .arg(line)
                                    .arg(c->plotArea().height())));
          }
      }
    }
  }

  // Issue 16, "dark themes": the charts follow the palette (they stayed white); "keyboard": a chart that
  // takes focus shows it (nothing showed).
  void chartsFollowTheDarkPaletteAndShowFocus() {
    const QPalette light = QApplication::palette();
    QPalette dark = test::dark_palette(light);
    dark.setColor(QPalette::Highlight, QColor(0x20, 0xa0, 0xff));
    QApplication::setPalette(dark);
    {
      Window win;
      win.w.resize(1366, 768);
      QVERIFY(QTest::qWaitForWindowActive(&win.w));
      test::settle_charts(win.w);
      for (int c = 0; c < ChartPanel::kCount; ++c) {
        auto* view =
            qobject_cast<QChartView*>(win.w.charts()->chartWidget(static_cast<ChartPanel::Chart>(c)));
        QVERIFY(view != nullptr);
        QCOMPARE(view->chart()->theme(), QChart::ChartThemeDark);
        QVERIFY2(left_edge_shows(view, QColor(0x18, 0x18, 0x18), 6),
                 qPrintable(ChartPanel::chartName(static_cast<ChartPanel::Chart>(c))));
        for (QAbstractAxis* a : view->chart()->axes())
          if (a->isVisible()) QCOMPARE(a->labelsBrush().color(), QColor(Qt::white));
        // Every line readable on the dark background (the model's curve was near-black).
        for (QAbstractSeries* s : view->chart()->series())
          if (auto* line = qobject_cast<QLineSeries*>(s))
            QVERIFY2(line->pen().color().lightness() >= 80, qPrintable(line->name()));
      }
      // Focus: a click on the KV chart frames it in the highlight colour; focus elsewhere, no frame.
      QWidget* kv = win.w.charts()->chartWidget(ChartPanel::KvMemory);
      QVERIFY(!left_edge_shows(kv, QColor(0x20, 0xa0, 0xff)));
      QTest::mouseClick(kv, Qt::LeftButton, Qt::NoModifier, QPoint(kv->width() / 2, kv->height() / 2));
      QTRY_VERIFY(kv->hasFocus());
      QVERIFY(left_edge_shows(kv, QColor(0x20, 0xa0, 0xff)));
      QTest::keyClick(kv, Qt::Key_Tab);
      QTRY_VERIFY(!kv->hasFocus());
      QVERIFY(!left_edge_shows(kv, QColor(0x20, 0xa0, 0xff)));
      // Back to a light palette while the window is open: the charts follow.
      QApplication::setPalette(light);
      auto* view = qobject_cast<QChartView*>(kv);
      QTRY_COMPARE(view->chart()->theme(), QChart::ChartThemeLight);
      QVERIFY(left_edge_shows(kv, light.color(QPalette::Base), 6));
    }
    QApplication::setPalette(light);
  }

  // Issue 16, responsiveness: the charts refresh one per event-loop turn after an input (ChartPanel's
  // progressive update). After a quick burst of inputs (users 1, 2, 3, one event-loop round between
  // them, so the chain of an older input is part way through), once settled every chart shows the last
  // input's data, never an older plan's; the caption is current at once.
  void aBurstOfInputsLeavesEveryChartOnTheLastPlan() {
    Window win;
    win.w.resize(1366, 768);
    QVERIFY(QTest::qWaitForWindowActive(&win.w));
    test::settle_charts(win.w);
    auto* users = win.find<QWidget>("users");
    ChartsData before_last;
    for (const char* n : {"1", "2", "3"}) {
      before_last = describe_charts(win.c.figures(), win.c.modelTitle());
      test::type_into(users, QLatin1String(n));
      // Progressive: the input's own handling leaves the charts to the next event-loop turns.
      QVERIFY(win.w.charts()->refreshPending());
      QCoreApplication::processEvents();
    }
    QCOMPARE(win.c.inputs().users, 3ULL);
    const ChartsData last = describe_charts(win.c.figures(), win.c.modelTitle());
    QCOMPARE(win.w.charts()->caption(), last.caption);
    // The burst matters: 3 users' charts differ from 2 users'.
    QVERIFY(last.caption != before_last.caption);
    QVERIFY(last.max_users.lines.size() == before_last.max_users.lines.size());
    bool differs = false;
    for (qsizetype i = 0; i < last.max_users.lines.size(); ++i)
      differs = differs || last.max_users.lines[i].points != before_last.max_users.lines[i].points;
    QVERIFY(differs);

    test::settle_charts(win.w);
    const auto view = [&](ChartPanel::Chart c) {
      return qobject_cast<QChartView*>(win.w.charts()->chartWidget(c))->chart();
    };
    const std::pair<ChartPanel::Chart, const XYChart*> xy[] = {{ChartPanel::KvMemory, &last.kv_memory},
                                                               {ChartPanel::MaxUsers, &last.max_users},
                                                               {ChartPanel::PrefillCost, &last.prefill}};
    for (const auto& [chart, data] : xy) {
      const QList<QAbstractSeries*> series = view(chart)->series();
      QCOMPARE(series.size(), data->lines.size());
      for (qsizetype i = 0; i < series.size(); ++i) {
        auto* s = qobject_cast<QXYSeries*>(series[i]);
        QVERIFY(s != nullptr);
        QVERIFY2(s->points() == data->lines[i].points,
                 qPrintable(ChartPanel::chartName(chart) + QStringLiteral(": ") + data->lines[i].name));
      }
    }
    QAbstractBarSeries* bar = nullptr;
    for (QAbstractSeries* s : view(ChartPanel::GpuMemory)->series())
      if (auto* b = qobject_cast<QAbstractBarSeries*>(s)) bar = b;
    QVERIFY(bar != nullptr);
    QCOMPARE(bar->barSets().size(), last.memory.values.size());
    for (qsizetype i = 0; i < last.memory.values.size(); ++i)
      QCOMPARE(bar->barSets()[i]->at(0), last.memory.values[i]);

    // Charts off screen wait to be shown: with the charts' area hidden, an input leaves them pending
    // once the event loop is idle; shown again, they catch up through the event loop.
    ChartPanel* charts = win.w.charts();
    auto* area = win.find<QScrollArea>("charts_scroll");
    QVERIFY(area != nullptr);
    area->hide();
    test::type_into(users, QStringLiteral("4"));
    QTest::qWait(50);
    QVERIFY(!charts->refreshScheduled());
    for (int c = 0; c < ChartPanel::kCount; ++c) {
      QVERIFY(!charts->onScreen(static_cast<ChartPanel::Chart>(c)));
      QVERIFY(charts->refreshPending(static_cast<ChartPanel::Chart>(c)));
    }
    area->show();
    QTRY_VERIFY(!charts->refreshPending());
    const ChartsData four = describe_charts(win.c.figures(), win.c.modelTitle());
    const QList<QAbstractSeries*> shown = view(ChartPanel::MaxUsers)->series();
    QCOMPARE(shown.size(), four.max_users.lines.size());
    for (qsizetype i = 0; i < shown.size(); ++i)
      QVERIFY(qobject_cast<QXYSeries*>(shown[i])->points() == four.max_users.lines[i].points);
  }

  // Issue 16, responsiveness: a chart scrolled out of the charts' pane is left pending by the chain of
  // refreshes; scrolled back into view (the mouse wheel), it was painted once with the older plan's data
  // and refreshed only in the next event-loop turn. Now it is refreshed before that first paint.
  void aChartScrolledBackIntoViewIsCurrentWhenPainted() {
    Window win;
    win.w.resize(1366, 768);
    QVERIFY(QTest::qWaitForWindowActive(&win.w));
    auto* split = win.find<QSplitter>("right_split");
    auto* area = win.find<QScrollArea>("charts_scroll");
    QVERIFY(split != nullptr && area != nullptr);
    split->setSizes({10000, 1});  // the charts' pane at its least height: the lower charts below it
    test::settle_charts(win.w);
    ChartPanel* charts = win.w.charts();
    const auto chart = ChartPanel::MaxUsers;
    QTRY_VERIFY(area->verticalScrollBar()->maximum() > 0);
    QVERIFY(!charts->onScreen(chart));

    // users 2: the "users asked" line moves; the chain refreshes the charts on screen only.
    test::type_into(win.find<QWidget>("users"), QStringLiteral("2"));
    QTRY_VERIFY(!charts->refreshScheduled());
    QVERIFY(charts->refreshPending(chart));

    // Watches the chart's paints, each after ChartPanel's own filter (installed again after this one, so
    // that it runs first, as it does in the window): whether the chart was still pending when painted.
    struct PaintWatch : QObject {
      ChartPanel* charts = nullptr;
      int paints = 0, stale = 0;
      bool eventFilter(QObject*, QEvent* e) override {
        if (e->type() == QEvent::Paint) {
          ++paints;
          if (charts->refreshPending(ChartPanel::MaxUsers)) ++stale;
        }
        return false;
      }
    } watch;
    watch.charts = charts;
    QWidget* viewport = qobject_cast<QChartView*>(charts->chartWidget(chart))->viewport();
    viewport->removeEventFilter(charts);
    viewport->installEventFilter(&watch);
    viewport->installEventFilter(charts);
    for (int i = 0; i < 100 && !charts->onScreen(chart); ++i) test::wheel(area->viewport(), -1);
    QVERIFY(charts->onScreen(chart));
    QTRY_VERIFY(watch.paints > 0 && !charts->refreshPending(chart));
    QCOMPARE(watch.stale, 0);  // before: one paint with the older plan's data
    const ChartsData now = describe_charts(win.c.figures(), win.c.modelTitle());
    const QList<QAbstractSeries*> series =
        qobject_cast<QChartView*>(charts->chartWidget(chart))->chart()->series();
    QCOMPARE(series.size(), now.max_users.lines.size());
    for (qsizetype i = 0; i < series.size(); ++i)
      QVERIFY(qobject_cast<QXYSeries*>(series[i])->points() == now.max_users.lines[i].points);
    viewport->removeEventFilter(&watch);
  }

  // Issue 16, "the memory bar ... has no line for usable memory or GPU capacity". 100 GiB at utilisation
  // 0.5: usable floor(100 GiB x 0.5) = 50 GiB exactly.
  void theMemoryBarMarksUsableMemoryAndCapacity() {
    Window win;
    QVERIFY(QTest::qWaitForWindowActive(&win.w));
    test::type_into(win.find<QLineEdit>("gpu_memory"), QStringLiteral("100GiB"));
    test::type_into(win.find<QDoubleSpinBox>("gpu_util"), QStringLiteral("0.5"));
    QCOMPARE(win.c.inputs().gpu->memory, Bytes{100ULL << 30});
    QCOMPARE(win.c.inputs().deployment.gpu_memory_utilization, 0.5);
    const StackedBar bar = describe_charts(win.c.figures(), win.c.modelTitle()).memory;
    QCOMPARE(bar.marks.size(), 2);
    QCOMPARE(bar.marks[0].name, QStringLiteral("usable 50.0 GiB (x 0.5)"));
    QCOMPARE(bar.marks[0].value, 50.0);
    QCOMPARE(bar.marks[1].name, QStringLiteral("GPU 100.0 GiB"));
    QCOMPARE(bar.marks[1].value, 100.0);
    QVERIFY(bar.value_max >= 100.0);  // both lines inside the axis
    // On screen: a legend entry for each line, by a short name (beside the bar at 1366 x 768 the full
    // ones were elided; the caption above the charts gives the figures).
    test::settle_charts(win.w);
    auto* view = qobject_cast<QChartView*>(win.w.charts()->chartWidget(ChartPanel::GpuMemory));
    QStringList legend;
    for (QLegendMarker* m : view->chart()->legend()->markers())
      if (m->isVisible()) legend << m->label();
    QVERIFY2(legend.contains(QStringLiteral("usable (x 0.5)")), qPrintable(legend.join('|')));
    QVERIFY2(legend.contains(QStringLiteral("GPU memory")), qPrintable(legend.join('|')));
    // The KV memory given (as the engine logs it): no usable-memory figure, the capacity stays.
    test::type_into(win.find<QLineEdit>("kv_memory"), QStringLiteral("10GiB"));
    const StackedBar given = describe_charts(win.c.figures(), win.c.modelTitle()).memory;
    QCOMPARE(given.marks.size(), 1);
    QCOMPARE(given.marks[0].name, QStringLiteral("GPU 100.0 GiB"));
  }

  // Issue 16, responsiveness: an engine switch shows other option rows without resizing the inputs panel
  // (a resize repainted all of it and its scroll bars), and each engine's rows still show and can be
  // scrolled into view, at 1366 x 768, the engine chosen at the keyboard.
  void anEngineSwitchKeepsTheInputsPanelsHeight() {
    Window win;
    win.w.resize(1366, 768);
    QVERIFY(QTest::qWaitForWindowActive(&win.w));
    auto* scroll = win.find<QScrollArea>("inputs_scroll");
    QVERIFY(scroll != nullptr && scroll->widget() != nullptr);
    auto* engine = win.find<QComboBox>("engine");
    engine->setFocus(Qt::TabFocusReason);
    QTRY_VERIFY(engine->hasFocus());
    QCOMPARE(engine->currentText(), QStringLiteral("ideal"));
    QCoreApplication::processEvents();
    const int height = scroll->widget()->height();
    QVERIFY(height > scroll->viewport()->height());  // the panel scrolls at this size
    for (int i = 1; i < engine->count(); ++i) {
      QTest::keyClick(engine, Qt::Key_Down);
      QCOMPARE(engine->currentIndex(), i);
      QCOMPARE(qstr(name(win.c.inputs().engine.engine)), engine->currentText());
      QCoreApplication::processEvents();
      QCOMPARE(scroll->widget()->height(), height);
      // The engine's rows are there: vLLM's block size, llama.cpp's n_ubatch; the last row reachable.
      if (engine->currentText() == QLatin1String("vllm"))
        QVERIFY(win.find<QWidget>("block_size")->isVisible());
      if (engine->currentText() == QLatin1String("llamacpp"))
        QVERIFY(win.find<QWidget>("ubatch")->isVisible());
      auto* kv_memory = win.find<QWidget>("kv_memory");
      scroll->ensureWidgetVisible(kv_memory);
      QCoreApplication::processEvents();
      const QPoint at = kv_memory->mapTo(scroll->viewport(), QPoint(0, 0));
      QVERIFY(at.y() >= 0 && at.y() + kv_memory->height() <= scroll->viewport()->height());
    }
  }

  // Issue 16, "Enter loads the single match": with several presets listed, Enter loaded the first one
  // without a word. Now it loads none, the search box keeps the focus, and the status bar says how many
  // match; with one left, Enter loads it.
  void enterWithSeveralMatchesLoadsNone() {
    Window win;
    QVERIFY(QTest::qWaitForWindowActive(&win.w));
    const Scenario before = win.c.scenario();
    QTest::keyClick(&win.w, Qt::Key_F, Qt::ControlModifier);
    auto* search = win.find<QLineEdit>("search");
    QTRY_VERIFY(search->hasFocus());
    QTest::keyClicks(search, QStringLiteral("llama"));
    const int listed = win.find<QListView>("presets")->model()->rowCount();
    QVERIFY2(listed > 1, qPrintable(QString::number(listed)));
    QTest::keyClick(search, Qt::Key_Return);
    QVERIFY(win.c.scenario() == before);
    QVERIFY(search->hasFocus());
    QCOMPARE(win.w.statusBar()->currentMessage(),
             QStringLiteral("%1 presets match \"llama\": type more of the name, or pick one from the list")
                 .arg(listed));
    // Narrowed to one: Enter loads it.
    QTest::keyClicks(search, QStringLiteral("-3.1-70b"));
    QCOMPARE(win.find<QListView>("presets")->model()->rowCount(), 1);
    QTest::keyClick(search, Qt::Key_Return);
    QCOMPARE(win.c.scenario().source.ref, std::string("llama-3.1-70b"));
  }
};

QTEST_MAIN(EditingTest)
#include "test_editing.moc"
