// The window, offscreen: widgets drive the controller, every chart and the results react, files
// dropped or broken, PNG export and "Copy as command".
#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QMimeData>
#include <QSignalSpy>
#include <QSlider>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>
#include <QUrl>
#include <functional>

#include "gui_test_support.hpp"
#include "kvplan/gui/chart_data.hpp"
#include "kvplan/gui/charts.hpp"
#include "kvplan/gui/context_scale.hpp"
#include "kvplan/gui/controller.hpp"
#include "kvplan/gui/count_box.hpp"
#include "kvplan/gui/main_window.hpp"
#include "kvplan/gui/tables.hpp"

using namespace kvplan;
using namespace kvplan::gui;

namespace {
/// A chart as text, to tell whether it changed.
QString dump(const XYChart& c) {
  QString s = c.title + c.x_title + c.y_title;
  for (const auto& l : c.lines) {
    s += '|' + l.name;
    for (const auto& p : l.points)
      s += QStringLiteral(" %1,%2").arg(p.x(), 0, 'g', 17).arg(p.y(), 0, 'g', 17);
  }
  return s;
}
QString dump(const StackedBar& b) {
  QString s = b.title;
  for (const double v : b.values) s += QStringLiteral(" %1").arg(v, 0, 'g', 17);
  return s;
}
QStringList dump(const ChartsData& d) {
  return {dump(d.kv_memory), dump(d.memory), dump(d.max_users), dump(d.prefill)};
}

QStringList results_text(const ResultsModel& r) {
  QStringList out;
  for (int i = 0; i < r.rowCount(); ++i)
    out << r.index(i, 0).data().toString() + r.index(i, 1).data().toString();
  return out;
}

void set_line(QLineEdit* edit, const QString& text) {
  edit->setText(text);
  Q_EMIT edit->editingFinished();
}

using test::drop;
}  // namespace

using Action = std::function<bool(Controller&)>;
Q_DECLARE_METATYPE(Action)

class WindowTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void opensOnARealPresetWithFourCharts() {
    Controller c;
    MainWindow w(&c);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(w.shownError().isEmpty());
    test::settle_charts(w);
    // KV: the model, its 5 variants and StreamingLLM's cap, the available line and the context marker.
    QCOMPARE(w.charts()->seriesCount(ChartPanel::KvMemory), 9);
    QCOMPARE(w.charts()->seriesCount(ChartPanel::GpuMemory), 4);    // weights, KV, reserve, free
    QCOMPARE(w.charts()->seriesCount(ChartPanel::MaxUsers), 4);     // max users, asked, this context, marker
    QCOMPARE(w.charts()->seriesCount(ChartPanel::PrefillCost), 4);  // linear, attention, total, marker
    QCOMPARE(w.findChild<QLabel*>(QStringLiteral("fits"))->text(), QStringLiteral("FITS"));
    const ChartsData d = describe_charts(c.figures(), c.modelTitle());
    for (const XYChart* x : {&d.kv_memory, &d.max_users, &d.prefill}) {
      QVERIFY(!x->title.isEmpty());
      QVERIFY(x->x_title.contains(QStringLiteral("tokens")));  // axis titles carry units
      QVERIFY(x->y_title.contains('('));
    }
    QVERIFY(d.memory.value_title.contains(QStringLiteral("GiB")));
  }

  void widgetsDriveTheController() {
    Controller c;
    MainWindow w(&c);
    w.show();
    w.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&w));
    auto* users = w.findChild<CountBox*>(QStringLiteral("users"));
    auto* context = w.findChild<CountBox*>(QStringLiteral("context"));
    auto* slider = w.findChild<QSlider*>(QStringLiteral("context_slider"));
    auto* tp = w.findChild<QSpinBox*>(QStringLiteral("tp"));
    auto* gpus = w.findChild<QSpinBox*>(QStringLiteral("gpus"));
    auto* util = w.findChild<QDoubleSpinBox*>(QStringLiteral("gpu_util"));
    auto* k = w.findChild<QComboBox*>(QStringLiteral("k_dtype"));
    auto* gpu = w.findChild<QComboBox*>(QStringLiteral("gpu"));
    auto* memory = w.findChild<QLineEdit*>(QStringLiteral("gpu_memory"));
    auto* reserve = w.findChild<QLineEdit*>(QStringLiteral("reserve"));
    auto* weights = w.findChild<QLineEdit*>(QStringLiteral("weights"));
    auto* engine = w.findChild<QComboBox*>(QStringLiteral("engine"));
    for (QObject* o : std::initializer_list<QObject*>{users, context, slider, tp, gpus, util, k, gpu, memory,
                                                      reserve, weights, engine})
      QVERIFY(o != nullptr);

    test::type_into(users, QStringLiteral("16"));
    QCOMPARE(c.inputs().users, 16ULL);
    test::type_into(context, QStringLiteral("32768"));
    QCOMPARE(c.inputs().context.value, 32768ULL);
    QCOMPARE(slider->value(), slider_for_context(32768));
    slider->setValue(600);
    QCOMPARE(c.inputs().context.value, context_for_slider(600));
    QCOMPARE(static_cast<std::uint64_t>(context->value()), context_for_slider(600));
    tp->setValue(4);
    QCOMPARE(c.inputs().deployment.parallel.tp, 4ULL);
    QCOMPARE(gpus->value(), 4);  // 1 GPU is less than one replica of tp 4: it grows to one
    gpus->setValue(8);
    QCOMPARE(c.inputs().deployment.parallel.dp, 2ULL);
    util->setValue(0.8);
    QCOMPARE(c.inputs().deployment.gpu_memory_utilization, 0.8);
    engine->setCurrentText(QStringLiteral("vllm"));
    QVERIFY2(w.shownError().isEmpty(), qPrintable(w.shownError()));
    QCOMPARE(c.inputs().engine.engine, Engine::vllm);
    engine->setCurrentText(QStringLiteral("ideal"));
    k->setCurrentText(QStringLiteral("fp8_e4m3"));
    QCOMPARE(c.inputs().kv.k, DType::fp8_e4m3);
    set_line(reserve, QStringLiteral("2GiB"));
    QCOMPARE(c.inputs().deployment.reserve.value_or(Bytes{0}), Bytes{2ULL << 30});
    set_line(weights, QStringLiteral("100GiB"));
    QCOMPARE(c.inputs().deployment.weights, std::optional<Bytes>(Bytes{100ULL << 30}));
    set_line(weights, QString());
    QVERIFY(!c.inputs().deployment.weights);
    set_line(memory, QStringLiteral("48GiB"));
    QVERIFY(c.scenario().gpu_preset.empty());
    QCOMPARE(c.inputs().gpu->memory, Bytes{48ULL << 30});
    QCOMPARE(gpu->currentData().toString(), QString());  // "custom memory"
    gpu->setCurrentIndex(gpu->findData(QStringLiteral("h200")));
    QCOMPARE(c.scenario().gpu_preset, std::string("h200"));
    QCOMPARE(memory->text(), size_input_text(c.inputs().gpu->memory));
    QVERIFY(w.shownError().isEmpty());
    QCOMPARE(w.findChild<QLabel*>(QStringLiteral("command"))->text(), c.commandLine());
  }

  void sizesAreEchoedExactlyAndShort() {
    QCOMPARE(size_input_text(Bytes{80ULL << 30}), QStringLiteral("80GiB"));
    QCOMPARE(size_input_text(Bytes{40000000000ULL}), QStringLiteral("40GB"));  // not 39062500KiB
    QCOMPARE(size_input_text(Bytes{85520809984ULL}), QStringLiteral("81559MiB"));
    QCOMPARE(size_input_text(Bytes{85520809985ULL}), QStringLiteral("85520809985"));
    QCOMPARE(size_input_text(Bytes{1000}), QStringLiteral("1kB"));
    for (const std::uint64_t v : {80ULL << 30, 40000000000ULL, 85520809984ULL, 85520809985ULL, 1000ULL, 1ULL})
      QCOMPARE(parse_bytes(size_input_text(Bytes{v}).toStdString()).value, v);
  }

  void theEngineOptionsFollowTheEngine() {
    Controller c;
    MainWindow w(&c);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    auto* engine = w.findChild<QComboBox*>(QStringLiteral("engine"));
    auto* version = w.findChild<QComboBox*>(QStringLiteral("engine_version"));
    auto* block = w.findChild<QSpinBox*>(QStringLiteral("block_size"));
    auto* ubatch = w.findChild<QSpinBox*>(QStringLiteral("ubatch"));
    auto* kv_unified = w.findChild<QCheckBox*>(QStringLiteral("kv_unified"));
    auto* kv_memory = w.findChild<QLineEdit*>(QStringLiteral("kv_memory"));
    for (QObject* o : std::initializer_list<QObject*>{engine, version, block, ubatch, kv_unified, kv_memory})
      QVERIFY(o != nullptr);
    // ideal: no engine option in sight.
    QVERIFY(!block->isVisibleTo(&w));
    QVERIFY(!version->isVisibleTo(&w));

    engine->setCurrentText(QStringLiteral("vllm"));
    QVERIFY(block->isVisibleTo(&w));
    QVERIFY(!ubatch->isVisibleTo(&w));
    QCOMPARE(version->count(), 5);  // v1 (default), 0.20, 0.21, 0.26, v0
    block->setValue(32);
    QCOMPARE(c.inputs().engine.block_size, 32ULL);
    version->setCurrentIndex(version->findData(QStringLiteral("v0")));
    QCOMPARE(c.inputs().engine.version, std::string("v0"));
    QCOMPARE(c.plan().engine.block_size, 32ULL);
    set_line(kv_memory, QStringLiteral("4GiB"));
    QCOMPARE(c.inputs().kv_memory, std::optional<Bytes>(Bytes{4ULL << 30}));
    QVERIFY(c.plan().engine.num_blocks.has_value());
    set_line(kv_memory, QStringLiteral("lots"));
    QVERIFY(w.shownError().contains(QStringLiteral("kv-memory")));
    QCOMPARE(kv_memory->text(), size_input_text(Bytes{4ULL << 30}));  // the kept value again

    // Another engine starts from its defaults, with its own rows.
    engine->setCurrentText(QStringLiteral("llamacpp"));
    QCOMPARE(c.inputs().engine.block_size, 0ULL);
    QVERIFY(!block->isVisibleTo(&w));
    QVERIFY(ubatch->isVisibleTo(&w) && kv_unified->isVisibleTo(&w));
    QCOMPARE(version->count(), 3);
    kv_unified->setChecked(true);
    QVERIFY(c.inputs().engine.kv_unified);
    ubatch->setValue(256);
    QCOMPARE(c.inputs().engine.ubatch, 256ULL);
    QVERIFY(c.inputs().engine.kv_unified);
    QCOMPARE(w.findChild<QLabel*>(QStringLiteral("command"))->text(), c.commandLine());
    QVERIFY(c.commandLine().contains(QStringLiteral("--kv-unified --ubatch 256")) ||
            (c.commandLine().contains(QStringLiteral("--ubatch 256")) &&
             c.commandLine().contains(QStringLiteral("--kv-unified"))));
  }

  void aRejectedValueShowsWhyAndTheFieldGoesBack() {
    Controller c;
    MainWindow w(&c);
    w.show();
    w.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&w));
    auto* tp = w.findChild<QSpinBox*>(QStringLiteral("tp"));
    const Plan before = c.plan();
    tp->setValue(3);  // 32 heads
    QVERIFY2(w.shownError().startsWith(QStringLiteral("tensor parallel (tp): ")), qPrintable(w.shownError()));
    QCOMPARE(tp->value(), 1);
    KVPLAN_COMPARE_PLANS(c.plan(), before);
    test::type_into(w.findChild<CountBox*>(QStringLiteral("users")), QStringLiteral("9"));
    QVERIFY(w.shownError().isEmpty());  // the next good input clears it
  }

  void chartsAndResultsReactToEveryInput_data() {
    QTest::addColumn<Action>("act");
    QTest::addColumn<bool>("prefill");  // the prefill chart depends on the model and the context only
    const auto row = [](const char* name, Action f, bool prefill) { QTest::newRow(name) << f << prefill; };
    row(
        "model", [](Controller& c) { return c.selectModel(QStringLiteral("qwen3-32b")); }, true);
    row(
        "architecture", [](Controller& c) { return c.setGroupValue(0, GroupField::kv_heads, 2); }, true);
    row(
        "scheme", [](Controller& c) { return c.setGroupKind(0, AttentionKind::sliding); }, true);
    row(
        "context", [](Controller& c) { return c.setContext(50000); }, true);
    row(
        "users", [](Controller& c) { return c.setUsers(3); }, false);
    row(
        "K dtype", [](Controller& c) { return c.setKDtype(DType::int4); }, false);
    row(
        "V dtype", [](Controller& c) { return c.setVDtype(DType::fp32); }, false);
    row(
        "weight dtype", [](Controller& c) { return c.setWeightDtype(DType::fp8_e4m3); }, false);
    row(
        "GPU", [](Controller& c) { return c.selectGpu(QStringLiteral("h200")); }, false);
    row(
        "GPU memory", [](Controller& c) { return c.setGpuMemory(QStringLiteral("40GiB")); }, false);
    row(
        "GPU count", [](Controller& c) { return c.setGpuCount(2); }, false);
    row(
        "tp", [](Controller& c) { return c.setTensorParallel(2); }, false);
    row(
        "pp", [](Controller& c) { return c.setPipelineParallel(2); }, false);
    row(
        "utilisation", [](Controller& c) { return c.setUtilization(0.7); }, false);
    row(
        "reserve", [](Controller& c) { return c.setReserve(QStringLiteral("4GiB")); }, false);
    row(
        "weights", [](Controller& c) { return c.setWeights(QStringLiteral("30GiB")); }, false);
    row(
        "engine", [](Controller& c) { return c.setEngine(QStringLiteral("vllm")); }, false);
  }

  void chartsAndResultsReactToEveryInput() {
    QFETCH(Action, act);
    QFETCH(bool, prefill);
    Controller c;
    MainWindow w(&c);
    QVERIFY(c.setUsers(20));
    const QStringList charts_before = dump(describe_charts(c.figures(), c.modelTitle()));
    const QStringList results_before = results_text(*w.results());
    QVERIFY2(act(c), qPrintable(c.errorMessage()));
    const QStringList charts_after = dump(describe_charts(c.figures(), c.modelTitle()));
    if (QTest::currentDataTag() != QLatin1String("engine")) {
      // The engine changes what fits and max users, not the exact layout the curves draw.
      QVERIFY2(charts_after[0] != charts_before[0], "KV memory chart");
      QVERIFY2(charts_after[1] != charts_before[1], "memory per GPU chart");
    }
    QVERIFY2(charts_after[2] != charts_before[2], "max users chart");
    QCOMPARE(charts_after[3] != charts_before[3], prefill);
    QVERIFY2(results_text(*w.results()) != results_before, "results table");
  }

  void exportsEachChartAsPng() {
    Controller c;
    MainWindow w(&c);
    w.resize(1600, 1000);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QTemporaryDir dir;
    for (int chart = 0; chart < ChartPanel::kCount; ++chart) {
      const QString path = dir.filePath(QStringLiteral("chart%1.png").arg(chart));
      QVERIFY(w.exportChart(chart, path));
      const QImage image(path);
      QVERIFY(!image.isNull());
      QVERIFY(image.width() > 200 && image.height() > 150);
    }
    QVERIFY(!w.exportChart(0, QStringLiteral("/no-such-folder/chart.png")));
    QVERIFY(w.shownError().contains(QStringLiteral("/no-such-folder/chart.png")));
  }

  void copyAsCommandPutsTheLineOnTheClipboard() {
    Controller c;
    MainWindow w(&c);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(c.setUsers(4));
    w.copyCommand();
    QCOMPARE(QApplication::clipboard()->text(), c.commandLine());
    QVERIFY(QApplication::clipboard()->text().startsWith(QStringLiteral("kvplan size llama-3.1-8b ")));
    QVERIFY(c.splitGroup(0));
    QVERIFY(c.setGroupKind(1, AttentionKind::sliding));
    w.copyCommand();
    QVERIFY(w.shownError().startsWith(QStringLiteral("Copy as command: command: ")));
  }

  void droppingAFileOpensIt() {
    Controller c;
    MainWindow w(&c);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    drop(w, QStringLiteral(KVPLAN_TEST_FIXTURES "/llama-like/config.json"));
    QCOMPARE(c.scenario().source.kind, ModelSource::Kind::file);
    drop(w, test::gui_fixture("scenario-70b-tp4.json"));
    QCOMPARE(c.scenario().source.ref, std::string("llama-3.1-70b"));
    QCOMPARE(w.findChild<QLabel*>(QStringLiteral("fits"))->text(), QStringLiteral("DOES NOT FIT"));
    const Scenario before = c.scenario();
    drop(w, test::fixture("malformed.json"));
    QVERIFY2(w.shownError().contains(QStringLiteral("malformed.json")), qPrintable(w.shownError()));
    QVERIFY(c.scenario() == before);
  }
};

QTEST_MAIN(WindowTest)
#include "test_window.moc"
