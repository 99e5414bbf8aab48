// The window driven as a person drives it: keys typed into boxes, the mouse wheel over widgets, engines
// switched with the combo box. Each case is a way the GUI planned something other than what was asked
// (issue 16, "Inputs that silently change the plan"); every expected value is worked out from the
// inputs typed, not read back from the program.
#include <QAbstractButton>
#include <QAbstractItemView>
#include <QAbstractSpinBox>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLineEdit>
#include <QListView>
#include <QPalette>
#include <QPlainTextEdit>
#include <QRegularExpression>
#include <QScrollArea>
#include <QSlider>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QTemporaryDir>
#include <QTest>
#include <QWheelEvent>
#include <cmath>

#include "gui_test_support.hpp"
#include "kvplan/format.hpp"
#include "kvplan/gui/chart_data.hpp"
#include "kvplan/gui/charts.hpp"
#include "kvplan/gui/controller.hpp"
#include "kvplan/gui/main_window.hpp"
#include "kvplan/gui/tables.hpp"

using namespace kvplan;
using namespace kvplan::gui;

namespace {
using test::shown_text;
using test::wheel;

struct Window : test::Window {
  QString notice() { return find<QLabel>("notice") ? find<QLabel>("notice")->text() : QString(); }
};
}  // namespace

class UsabilityTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void typedContextKeepsItsDigits_data() {
    QTest::addColumn<QString>("typed");
    QTest::addColumn<qulonglong>("tokens");
    QTest::newRow("131072") << QStringLiteral("131072") << 131072ULL;
    QTest::newRow("12345") << QStringLiteral("12345") << 12345ULL;
    QTest::newRow("32,768") << QStringLiteral("32,768") << 32768ULL;
    QTest::newRow("131,072") << QStringLiteral("131,072") << 131072ULL;
    QTest::newRow("128k = 128 x 1000") << QStringLiteral("128k") << 128000ULL;
    QTest::newRow("32Ki = 32 x 1024") << QStringLiteral("32Ki") << 32768ULL;
  }
  void typedContextKeepsItsDigits() {
    QFETCH(QString, typed);
    QFETCH(qulonglong, tokens);
    Window win;
    QVERIFY(QTest::qWaitForWindowActive(&win.w));
    auto* context = win.find<QAbstractSpinBox>("context");
    QVERIFY(context != nullptr);
    test::type_into(context, typed);
    QVERIFY2(win.w.shownError().isEmpty(), qPrintable(win.w.shownError()));
    QCOMPARE(win.c.inputs().context.value, static_cast<std::uint64_t>(tokens));
    // Leaving the box: separators come back, for the value planned.
    QTest::keyClick(context, Qt::Key_Tab);
    QVERIFY(!context->hasFocus());
    QVERIFY2(shown_text(context).startsWith(QString::fromStdString(format_count(tokens))),
             qPrintable(shown_text(context)));
  }

  void typedUsersKeepTheirDigits() {
    Window win;
    QVERIFY(QTest::qWaitForWindowActive(&win.w));
    auto* users = win.find<QAbstractSpinBox>("users");
    QVERIFY(users != nullptr);
    test::type_into(users, QStringLiteral("12345"));
    QCOMPARE(win.c.inputs().users, 12345ULL);
    test::type_into(users, QStringLiteral("1,024"));
    QCOMPARE(win.c.inputs().users, 1024ULL);
    QVERIFY(win.w.shownError().isEmpty());
  }

  // One user (or one GPU) is singular, as the CLI writes it (format_count's plural rule): the results'
  // row labels said "max context for 1 users" and "all 1 GPUs".
  void oneUserIsSingular() {
    Window win;
    QVERIFY(QTest::qWaitForWindowActive(&win.w));
    test::type_into(win.find<QAbstractSpinBox>("users"), QStringLiteral("1"));
    QCOMPARE(win.c.inputs().users, 1ULL);
    test::type_into(win.find<QAbstractSpinBox>("gpus"), QStringLiteral("1"));
    QVERIFY2(win.w.shownError().isEmpty(), qPrintable(win.w.shownError()));
    const QRegularExpression plural(QStringLiteral("(^|[^0-9,.])1 (users|GPUs)\\b"));
    QStringList labels;
    for (int i = 0; i < win.w.results()->rowCount(); ++i) {
      const QString label = win.w.results()->index(i, 0).data().toString();
      QVERIFY2(!plural.match(label).hasMatch(), qPrintable(label));
      labels << label;
    }
    QVERIFY2(labels.contains(QStringLiteral("max context for 1 user")), qPrintable(labels.join('|')));
    QVERIFY2(labels.filter(QStringLiteral("1 user, all 1 GPU)")).size() == 1, qPrintable(labels.join('|')));
  }

  // On screen each chart's title is what it plots, the same for every input (a title change lays a Qt
  // chart out again); the line above the charts names what the titles named: the model, the users and
  // parallelism, the GPU and its count, the usable memory and the verdict. Exports keep the full titles.
  void theChartCaptionNamesWhatTheTitlesDid() {
    Window win;
    QVERIFY(QTest::qWaitForWindowActive(&win.w));
    ChartPanel* charts = win.w.charts();
    const QStringList headings = {
        QStringLiteral("KV cache per GPU vs context"), QStringLiteral("Memory per GPU"),
        QStringLiteral("Max concurrent users vs context"), QStringLiteral("Prefill cost vs prompt length")};
    const auto check = [&](const QString& users, int gpus) {
      test::settle_charts(win.w);
      for (int i = 0; i < ChartPanel::kCount; ++i)
        QCOMPARE(charts->shownTitle(static_cast<ChartPanel::Chart>(i)), headings[i]);
      const QString caption = charts->caption();
      const PlanInputs& in = win.c.inputs();
      QVERIFY(in.gpu.has_value());
      for (const QString& part :
           {win.c.modelTitle(), users,
            QStringLiteral("tp %1 pp %2").arg(in.deployment.parallel.tp).arg(in.deployment.parallel.pp),
            QStringLiteral("%1 x %2").arg(QString::fromStdString(in.gpu->name)).arg(gpus),
            QStringLiteral("usable ") +
                QString::fromStdString(format_bytes(win.c.plan().per_gpu.usable_bytes, UnitSystem::iec)),
            win.c.plan().fits ? QStringLiteral(": fits") : QStringLiteral(": does NOT fit")})
        QVERIFY2(caption.contains(part), qPrintable(part + QStringLiteral(" not in: ") + caption));
    };
    test::type_into(win.find<QAbstractSpinBox>("users"), QStringLiteral("3"));
    test::type_into(win.find<QAbstractSpinBox>("gpus"), QStringLiteral("2"));
    QVERIFY2(win.w.shownError().isEmpty(), qPrintable(win.w.shownError()));
    check(QStringLiteral("3 users"), 2);
    test::type_into(win.find<QAbstractSpinBox>("users"), QStringLiteral("1"));
    check(QStringLiteral("1 user,"), 2);
    // The export keeps the model in the title.
    const ChartsData d = describe_charts(win.c.figures(), win.c.modelTitle());
    QVERIFY(d.kv_memory.title.startsWith(headings[0] + QStringLiteral(": ") + win.c.modelTitle()));
  }

  void anUnreadableCountShowsTheBannerAndPlansNothing_data() {
    QTest::addColumn<QString>("box");
    QTest::addColumn<QString>("typed");
    QTest::newRow("context 12x") << QStringLiteral("context") << QStringLiteral("12x");
    QTest::newRow("context 1,2345") << QStringLiteral("context") << QStringLiteral("1,2345");
    QTest::newRow("context 0") << QStringLiteral("context") << QStringLiteral("0");
    QTest::newRow("users 8k") << QStringLiteral("users")
                              << QStringLiteral("8k");  // the CLI's --users: digits
    QTest::newRow("users 2.5") << QStringLiteral("users") << QStringLiteral("2.5");
  }
  void anUnreadableCountShowsTheBannerAndPlansNothing() {
    QFETCH(QString, box);
    QFETCH(QString, typed);
    Window win;
    QVERIFY(QTest::qWaitForWindowActive(&win.w));
    auto* widget = win.w.findChild<QAbstractSpinBox*>(box);
    QVERIFY(widget != nullptr);
    const Scenario before = win.c.scenario();
    test::type_into(widget, typed);
    QVERIFY2(win.w.shownError().contains(box == QLatin1String("users") ? QStringLiteral("users")
                                                                       : QStringLiteral("context")),
             qPrintable(QStringLiteral("banner: '%1'").arg(win.w.shownError())));
    QVERIFY(win.c.scenario() == before);
  }

  void theWheelEditsOnlyTheFocusedWidget() {
    Window win;
    QVERIFY(QTest::qWaitForWindowActive(&win.w));
    auto* search = win.find<QLineEdit>("search");
    QVERIFY(search != nullptr);
    search->setFocus(Qt::MouseFocusReason);
    QTRY_VERIFY(search->hasFocus());
    const Scenario before = win.c.scenario();
    // Every combo box, spin box and slider of the window, passed over by the wheel while another has focus.
    QList<QWidget*> passed;
    for (QComboBox* b : win.w.findChildren<QComboBox*>()) passed << b;
    for (QAbstractSpinBox* b : win.w.findChildren<QAbstractSpinBox*>()) passed << b;
    for (QSlider* b : win.w.findChildren<QSlider*>()) passed << b;
    QVERIFY(passed.size() >= 10);
    for (QWidget* x : passed) {
      if (!x->isVisibleTo(&win.w)) continue;
      wheel(x, 1);
      wheel(x, -1);
      wheel(x, -1);
      QVERIFY2(win.c.scenario() == before, qPrintable(x->objectName()));
    }
    // Clicked (and so focused), the wheel does step the widget (issue 27: focus alone is not enough).
    auto* tp = win.find<QSpinBox>("tp");
    auto* tp_edit = tp->findChild<QLineEdit*>();
    QTest::mouseClick(tp_edit, Qt::LeftButton, Qt::NoModifier,
                      QPoint(tp_edit->width() / 2, tp_edit->height() / 2));
    QTRY_VERIFY(tp->hasFocus());
    wheel(tp, 1);
    QCOMPARE(win.c.inputs().deployment.parallel.tp, 2ULL);  // 1 + one step
  }

  void oneKvCacheDtypeUnderEveryEngine() {
    Window win;
    auto* engine = win.find<QComboBox>("engine");
    auto* kv = win.find<QComboBox>("kv_dtype");
    QVERIFY(engine != nullptr);
    QVERIFY2(kv != nullptr, "one \"KV cache dtype\" control");
    for (const char* e : {"vllm", "sglang", "trtllm", "llamacpp", "ideal"}) {
      engine->setCurrentText(QLatin1String(e));
      QCOMPARE(QString::fromStdString(std::string(name(win.c.inputs().engine.engine))), QLatin1String(e));
      const char* wanted = std::string_view(e) == "llamacpp" ? "q8_0" : "fp8_e4m3";
      kv->setCurrentText(QLatin1String(wanted));
      QVERIFY2(win.w.shownError().isEmpty(), qPrintable(QLatin1String(e) + ": " + win.w.shownError()));
      QCOMPARE(name(win.c.inputs().kv.k), std::string_view(wanted));
      QCOMPARE(name(win.c.inputs().kv.v), std::string_view(wanted));
      kv->setCurrentText(QStringLiteral("bf16"));
      QCOMPARE(win.c.inputs().kv.k, DType::bf16);
    }
    // Under vLLM the types it has no cache for cannot be picked.
    engine->setCurrentText(QStringLiteral("vllm"));
    auto* items = qobject_cast<QStandardItemModel*>(kv->model());
    QVERIFY(items != nullptr);
    QVERIFY(!items->item(kv->findText(QStringLiteral("q8_0")))->isEnabled());
    QVERIFY(items->item(kv->findText(QStringLiteral("fp8_e5m2")))->isEnabled());
  }

  void switchingEnginesMapsTheInputsAndSaysSo() {
    Window win;
    auto* engine = win.find<QComboBox>("engine");
    auto* kv = win.find<QComboBox>("kv_dtype");
    auto* tp = win.find<QSpinBox>("tp");
    QVERIFY(engine && kv && tp);
    engine->setCurrentText(QStringLiteral("vllm"));
    kv->setCurrentText(QStringLiteral("fp8_e4m3"));
    QVERIFY(win.c.setTensorParallel(2));
    // vLLM + fp8 + tp 2 -> llama.cpp: fp8 has no llama.cpp cache (q8_0 is its 8-bit one); no tp there.
    engine->setCurrentText(QStringLiteral("llamacpp"));
    QVERIFY2(win.w.shownError().isEmpty(), qPrintable(win.w.shownError()));
    QCOMPARE(win.c.inputs().engine.engine, Engine::llamacpp);
    QCOMPARE(win.c.inputs().kv.k, DType::q8_0);
    QCOMPARE(win.c.inputs().kv.v, DType::q8_0);
    QCOMPARE(win.c.inputs().deployment.parallel.tp, 1ULL);
    QCOMPARE(win.c.inputs().deployment.parallel.pp, 2ULL);
    QCOMPARE(win.c.plan().gpus, 2ULL);
    const QString said = win.notice();
    for (const char* words :
         {"KV cache dtype", "fp8_e4m3", "q8_0", "tensor parallel (tp)", "pipeline parallel (pp)"})
      QVERIFY2(said.contains(QLatin1String(words)), qPrintable(QStringLiteral("notice: '%1'").arg(said)));
    QVERIFY(!tp->isEnabled());  // llama.cpp has no tp to set
    // Back to vLLM: q8_0 has no vLLM cache, fp8 does.
    engine->setCurrentText(QStringLiteral("vllm"));
    QVERIFY2(win.w.shownError().isEmpty(), qPrintable(win.w.shownError()));
    QCOMPARE(win.c.inputs().kv.k, DType::fp8_e4m3);
    QVERIFY(win.notice().contains(QStringLiteral("q8_0")));
    QVERIFY(tp->isEnabled());
    // A change that needs nothing mapped says nothing.
    engine->setCurrentText(QStringLiteral("sglang"));
    QVERIFY(win.notice().isEmpty());
  }

  void typedGpuCountStaysTheTotal() {
    Window win;
    QVERIFY(QTest::qWaitForWindowActive(&win.w));
    auto* gpus = win.find<QSpinBox>("gpus");
    auto* tp = win.find<QSpinBox>("tp");
    auto* pp = win.find<QSpinBox>("pp");
    QVERIFY(gpus && tp && pp);
    test::type_into(gpus, QStringLiteral("2"));
    test::type_into(tp, QStringLiteral("2"));
    QCOMPARE(win.c.plan().gpus, 2ULL);  // not 4
    QCOMPARE(win.c.inputs().deployment.parallel.dp, 1ULL);
    QCOMPARE(gpus->value(), 2);
    test::type_into(gpus, QStringLiteral("8"));
    test::type_into(tp, QStringLiteral("4"));
    QCOMPARE(win.c.plan().gpus, 8ULL);
    QCOMPARE(win.c.inputs().deployment.parallel.dp, 2ULL);  // 8 / (4 x 1) replicas
    test::type_into(pp, QStringLiteral("2"));
    QCOMPARE(win.c.plan().gpus, 8ULL);
    QCOMPARE(win.c.inputs().deployment.parallel.dp, 1ULL);
    // 6 GPUs cannot hold replicas of tp 4: the conflict is shown, nothing changes.
    test::type_into(pp, QStringLiteral("1"));
    test::type_into(tp, QStringLiteral("1"));
    QCOMPARE(win.c.inputs().deployment.parallel.dp, 8ULL);
    test::type_into(gpus, QStringLiteral("6"));
    QCOMPARE(win.c.inputs().deployment.parallel.dp, 6ULL);
    const Scenario before = win.c.scenario();
    test::type_into(tp, QStringLiteral("4"));
    QVERIFY2(win.w.shownError().contains(QStringLiteral("GPUs")), qPrintable(win.w.shownError()));
    QVERIFY(win.c.scenario() == before);
    QCOMPARE(tp->value(), 1);
  }

  // Issue 16, "every chart and row follows the engine": Gemma 3 27B (5 of 6 layers sliding-window),
  // fp8, vLLM with the hybrid KV cache manager off, where every layer gets a full-size cache.
  void theKvChartTableAndLogFollowTheEngine() {
    Window win;
    QVERIFY(QTest::qWaitForWindowActive(&win.w));
    test::type_into(win.find<QLineEdit>("search"), QStringLiteral("gemma-3-27b"));
    auto* list = win.find<QListView>("presets");
    QCOMPARE(list->model()->rowCount(), 1);
    QTest::mouseClick(list->viewport(), Qt::LeftButton, Qt::NoModifier,
                      list->visualRect(list->model()->index(0, 0)).center());
    QCOMPARE(win.c.scenario().source.ref, std::string("gemma-3-27b"));
    win.find<QComboBox>("engine")->setCurrentText(QStringLiteral("vllm"));
    win.find<QComboBox>("kv_dtype")->setCurrentText(QStringLiteral("fp8_e4m3"));
    auto* hybrid = win.find<QCheckBox>("disable_hybrid_kv_cache_manager");
    QTest::mouseClick(hybrid, Qt::LeftButton, Qt::NoModifier, QPoint(6, hybrid->height() / 2));
    QVERIFY(win.c.inputs().engine.disable_hybrid_kv_cache_manager);
    test::type_into(win.find<QAbstractSpinBox>("context"), QStringLiteral("65536"));  // a chart point
    QVERIFY2(win.w.shownError().isEmpty(), qPrintable(win.w.shownError()));

    // The chart's model curve at 65,536 tokens is the table's KV per GPU: the engine's figure.
    const Plan& plan = win.c.plan();
    const ChartsData d = describe_charts(win.c.figures(), win.c.modelTitle());
    const ChartLine* model = nullptr;
    for (const auto& l : d.kv_memory.lines)
      if (l.name.startsWith(QStringLiteral("this model"))) model = &l;
    QVERIFY(model != nullptr);
    bool found = false;
    for (const QPointF& pt : model->points)
      if (pt.x() == 65536.0) {
        found = true;
        QCOMPARE(pt.y(), to_gib(plan.per_gpu.kv_bytes_total));
      }
    QVERIFY(found);
    QVERIFY2(model->name.contains(QStringLiteral("vllm")), qPrintable(model->name));
    // Rows of the exact layout say so; the totals say whose rules they follow (the total said "exact
    // layout" while it held the engine's figure: gpt-oss under TensorRT-LLM showed twice the exact one).
    // 8 users at 65,536 tokens, one GPU. vLLM, hybrid manager off: all 62 layers full, 2 x 16 KV heads x
    // 128 x 1 B = 4,096 B per layer per token: 8 x 65,536 x 62 x 4,096 = 133,143,986,176 B. The exact
    // layout: 10 full layers (every 6th) at 65,536 tokens, 52 at the 1,024 window:
    // 8 x 4,096 x (655,360 + 53,248) = 23,219,666,944 B.
    QCOMPARE(win.c.inputs().users, 8ULL);
    ResultsModel& r = *win.w.results();
    QVERIFY(r.label(QStringLiteral("kv_bytes_per_sequence")).contains(QStringLiteral("exact layout")));
    QVERIFY2(r.label(QStringLiteral("kv_bytes_total")).contains(QStringLiteral("vllm rules")),
             qPrintable(r.label(QStringLiteral("kv_bytes_total"))));
    QVERIFY(!r.label(QStringLiteral("kv_bytes_total")).contains(QStringLiteral("exact layout")));
    QVERIFY2(r.value(QStringLiteral("kv_bytes_total")).contains(QStringLiteral("133,143,986,176 B")),
             qPrintable(r.value(QStringLiteral("kv_bytes_total"))));
    QVERIFY(r.label(QStringLiteral("ideal_kv_bytes_total")).contains(QStringLiteral("exact layout")));
    QVERIFY2(r.value(QStringLiteral("ideal_kv_bytes_total")).contains(QStringLiteral("23,219,666,944 B")),
             qPrintable(r.value(QStringLiteral("ideal_kv_bytes_total"))));
    QVERIFY(r.label(QStringLiteral("per_gpu.kv_bytes_total")).contains(QStringLiteral("vllm rules")));
    QVERIFY2(r.value(QStringLiteral("per_gpu.kv_bytes_total")).contains(QStringLiteral("133,143,986,176 B")),
             qPrintable(r.value(QStringLiteral("per_gpu.kv_bytes_total"))));
    // The engine's own log lines, as the CLI prints them.
    auto* log = win.find<QPlainTextEdit>("engine_log");
    QVERIFY(log != nullptr);
    QVERIFY(!plan.engine.log_lines.empty());
    for (const auto& line : plan.engine.log_lines)
      QVERIFY2(log->toPlainText().contains(QString::fromStdString(line)), line.c_str());
  }

  // Text from a file reaches the window escaped, as the CLI prints it: a model_type with U+202E (right-
  // to-left override) and BEL showed the warning reversed after it and BEL as a box.
  void textFromFilesIsEscaped() {
    Window win;
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("config.json"));
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(R"({"architectures": ["LlamaForCausalLM"], "model_type": "llama\u202e\u0007evil",
      "num_hidden_layers": 2, "num_attention_heads": 8, "num_key_value_heads": 8, "hidden_size": 512,
      "intermediate_size": 1024, "vocab_size": 1000, "max_position_embeddings": 4096})");
    f.close();
    QVERIFY2(win.c.openFile(path), qPrintable(win.c.errorMessage()));
    const QString shown = win.find<QLabel>("warnings")->text();
    QVERIFY2(shown.contains(QStringLiteral("llama\\u202e\\x07evil")), qPrintable(shown));
    QVERIFY(!shown.contains(QChar(0x202e)));
    QVERIFY(!shown.contains(QChar(0x07)));
  }

  // The memory bar's labels: reserve "1" beside free "12.7" read as "112.7", "30.5" was clipped to
  // "0.5", 1,050 GiB showed as "1.05e+03".
  void memoryBarLabelsCanBeRead() {
    Window win;
    QVERIFY(QTest::qWaitForWindowActive(&win.w));
    // Llama 3.1 8B on one H100 (79.6 GiB): weights 15.0 GiB, KV 8.00 GiB, reserve 1 GiB (1.3% of the
    // axis: too narrow for a label), the rest free.
    const Plan& p = win.c.plan();
    ChartsData d = describe_charts(win.c.figures(), win.c.modelTitle());
    QCOMPARE(d.memory.labelled, (QList<bool>{true, true, false, true}));
    QCOMPARE(d.memory.values[2], 1.0);
    QCOMPARE(d.memory.values[3], std::round(to_gib(p.per_gpu.free_bytes) * 10) / 10);  // one decimal
    // A GPU of 2 TiB (custom memory): 1,000+ GiB free, printed as a plain number by its label format.
    test::type_into(win.find<QLineEdit>("gpu_memory"), QStringLiteral("2TiB"));
    d = describe_charts(win.c.figures(), win.c.modelTitle());
    QVERIFY(d.memory.values[3] > 1000);
    QCOMPARE(QString::number(d.memory.values[3], 'g', 12), QString::number(d.memory.values[3], 'f', 1));
  }

  // Issue 16, "a window people can use": it fits a 1366 x 768 and a 1280 x 720 laptop screen, and
  // every input can be scrolled into view there.
  void fitsALaptopScreenAndEveryInputCanBeReached_data() {
    QTest::addColumn<QSize>("size");
    QTest::addColumn<QString>("engine");
    QTest::newRow("1366x768") << QSize(1366, 768) << QStringLiteral("ideal");
    QTest::newRow("1366x768, vllm options") << QSize(1366, 768) << QStringLiteral("vllm");
    QTest::newRow("1280x720, llamacpp options") << QSize(1280, 720) << QStringLiteral("llamacpp");
  }
  void fitsALaptopScreenAndEveryInputCanBeReached() {
    QFETCH(QSize, size);
    QFETCH(QString, engine);
    Window win;
    win.find<QComboBox>("engine")->setCurrentText(engine);
    win.w.resize(size);
    QVERIFY(QTest::qWaitForWindowExposed(&win.w));
    QCoreApplication::processEvents();
    QCOMPARE(win.w.size(), size);
    QList<QWidget*> inputs;
    for (QWidget* x : win.w.findChildren<QWidget*>()) {
      const bool input = qobject_cast<QComboBox*>(x) || qobject_cast<QAbstractSpinBox*>(x) ||
                         qobject_cast<QCheckBox*>(x) || qobject_cast<QSlider*>(x) ||
                         qobject_cast<QAbstractButton*>(x) || qobject_cast<QAbstractItemView*>(x) ||
                         qobject_cast<QLineEdit*>(x);
      // A spin box's or combo box's own line edit, a view's own parts and the charts are not inputs.
      const bool part = qobject_cast<QAbstractSpinBox*>(x->parentWidget()) ||
                        qobject_cast<QComboBox*>(x->parentWidget()) ||
                        qobject_cast<QAbstractItemView*>(x->parentWidget()) || x->inherits("QScrollBar");
      if (input && !part && x->isVisibleTo(&win.w)) inputs << x;
    }
    QVERIFY(inputs.size() >= 20);
    for (QWidget* x : inputs) {
      for (QWidget* up = x->parentWidget(); up != nullptr; up = up->parentWidget())
        if (auto* area =
                qobject_cast<QScrollArea*>(up->parentWidget() ? up->parentWidget()->parentWidget() : nullptr);
            area != nullptr && area->widget() == up)
          area->ensureWidgetVisible(x, 0, 0);
      QCoreApplication::processEvents();
      const QString what =
          x->objectName().isEmpty() ? QString::fromLatin1(x->metaObject()->className()) : x->objectName();
      QVERIFY2(!x->visibleRegion().isEmpty(),
               qPrintable(what + QStringLiteral(" cannot be scrolled into view")));
      const QRect on_window(x->mapTo(&win.w, QPoint(0, 0)), x->size());
      QVERIFY2(win.w.rect().contains(on_window.center()),
               qPrintable(what + QStringLiteral(" outside the window")));
    }
  }

  // Issue 16, "keyboard": Tab reaches the inputs in order and leaves the tables (it cycled inside the
  // layer table and the results table); Ctrl+F goes to the search box, Enter loads its single match;
  // the labels' mnemonics go to their fields.
  void theKeyboardReachesEveryInput() {
    Window win;
    win.w.resize(1366, 768);
    QVERIFY(QTest::qWaitForWindowActive(&win.w));
    QTest::keyClick(&win.w, Qt::Key_F, Qt::ControlModifier);
    auto* search = win.find<QLineEdit>("search");
    QTRY_VERIFY(search->hasFocus());
    QStringList order;
    for (int i = 0; i < 60; ++i) {
      QWidget* now = QApplication::focusWidget();
      QVERIFY(now != nullptr);
      const QString name = now->objectName();
      if (!name.isEmpty() && (order.isEmpty() || order.back() != name)) order << name;
      QTest::keyClick(now, Qt::Key_Tab);
    }
    // Each in the order of the panel, none left out by a table that kept the focus.
    QStringList wanted = {
        QStringLiteral("search"),   QStringLiteral("presets"),      QStringLiteral("groups"),
        QStringLiteral("kv_dtype"), QStringLiteral("weight_dtype"), QStringLiteral("gpu"),
        QStringLiteral("gpus"),     QStringLiteral("tp"),           QStringLiteral("engine"),
        QStringLiteral("context"),  QStringLiteral("users"),        QStringLiteral("results")};
    qsizetype at = 0;
    for (const QString& w : wanted) {
      const qsizetype found = order.indexOf(w, at);
      QVERIFY2(found >= 0, qPrintable(w + QStringLiteral(" not reached in order: ") + order.join(' ')));
      at = found + 1;
    }
    // A mnemonic: Alt+U goes to "concurrent users".
    QTest::keyClick(&win.w, Qt::Key_U, Qt::AltModifier);
    QTRY_VERIFY(win.find<QWidget>("users")->hasFocus());
    // Ctrl+F, a search with one match, Enter: that model is loaded.
    QTest::keyClick(&win.w, Qt::Key_F, Qt::ControlModifier);
    QTRY_VERIFY(search->hasFocus());
    QTest::keyClicks(search, QStringLiteral("qwen3-32b"));
    QTest::keyClick(search, Qt::Key_Return);
    QCOMPARE(win.c.scenario().source.ref, std::string("qwen3-32b"));
  }

  // Issue 16, "dark themes": the verdict was white text on pale green or pink.
  void verdictsCanBeReadInADarkTheme() {
    const QPalette light = QApplication::palette();
    const QPalette dark = test::dark_palette(light);
    for (const QPalette& palette : {dark, light}) {
      QApplication::setPalette(palette);
      Window win;
      ResultsModel& r = *win.w.results();
      int row = -1;
      for (int i = 0; i < r.rowCount(); ++i)
        if (r.index(i, 0).data(ResultsModel::KeyRole).toString() == QLatin1String("fits")) row = i;
      QVERIFY(row >= 0);
      const QModelIndex cell = r.index(row, 1);
      const QColor fill = cell.data(Qt::BackgroundRole).value<QBrush>().color();
      const QVariant fg = cell.data(Qt::ForegroundRole);
      const QColor text = fg.isValid() ? fg.value<QBrush>().color() : palette.color(QPalette::Text);
      QVERIFY2(std::abs(fill.lightness() - text.lightness()) >= 100,
               qPrintable(QStringLiteral("row: %1 on %2").arg(text.name(), fill.name())));
      auto* banner = win.find<QLabel>("fits");
      const QColor b_fill = banner->palette().color(QPalette::Window);
      const QColor b_text = banner->palette().color(QPalette::WindowText);
      QVERIFY2(std::abs(b_fill.lightness() - b_text.lightness()) >= 100,
               qPrintable(QStringLiteral("banner: %1 on %2").arg(b_text.name(), b_fill.name())));
    }
    QApplication::setPalette(light);
  }

  // Issue 16, "work is not lost": undo and redo every input (Ctrl+Z, Ctrl+Shift+Z), the title's
  // modified mark, and an engine's options kept across a switch to another engine and back.
  void editsCanBeUndoneAndTheTitleSaysSo() {
    Window win;
    QVERIFY(QTest::qWaitForWindowActive(&win.w));
    QVERIFY(!win.w.isWindowModified());
    QVERIFY(win.w.windowTitle().contains(QStringLiteral("[*]")));
    auto* users = win.find<QAbstractSpinBox>("users");
    test::type_into(users, QStringLiteral("12345"));
    auto* engine = win.find<QComboBox>("engine");
    engine->setCurrentText(QStringLiteral("vllm"));
    QCOMPARE(win.c.inputs().users, 12345ULL);
    QVERIFY(win.w.isWindowModified());
    auto* list = win.find<QListView>("presets");
    list->setFocus(Qt::MouseFocusReason);  // out of the text box, whose own Ctrl+Z undoes typing
    QTRY_VERIFY(list->hasFocus());
    QTest::keyClick(list, Qt::Key_Z, Qt::ControlModifier);
    QCOMPARE(win.c.inputs().engine.engine, Engine::ideal);
    QCOMPARE(engine->currentText(), QStringLiteral("ideal"));
    QTest::keyClick(list, Qt::Key_Z, Qt::ControlModifier);
    QCOMPARE(win.c.inputs().users, 8ULL);  // the opening scenario's
    QVERIFY(!win.w.isWindowModified());
    QTest::keyClick(list, Qt::Key_Z, Qt::ControlModifier | Qt::ShiftModifier);
    QCOMPARE(win.c.inputs().users, 12345ULL);
    QVERIFY(win.w.isWindowModified());
    QVERIFY2(shown_text(users).startsWith(QStringLiteral("12,345")), qPrintable(shown_text(users)));

    // vLLM's block size survives a switch to llama.cpp and back. Unset, the box says vLLM's default
    // block_size, 16 tokens (vllm/config/cache.py), and TensorRT-LLM's tokens_per_block, 32.
    engine->setCurrentText(QStringLiteral("trtllm"));
    QCOMPARE(shown_text(win.find<QSpinBox>("block_size")), QStringLiteral("engine default (32)"));
    engine->setCurrentText(QStringLiteral("vllm"));
    QCOMPARE(shown_text(win.find<QSpinBox>("block_size")), QStringLiteral("engine default (16)"));
    test::type_into(win.find<QSpinBox>("block_size"), QStringLiteral("32"));
    QCOMPARE(win.c.inputs().engine.block_size, 32ULL);
    engine->setCurrentText(QStringLiteral("llamacpp"));
    QCOMPARE(win.c.inputs().engine.block_size, 0ULL);  // not a llama.cpp option
    engine->setCurrentText(QStringLiteral("vllm"));
    QCOMPARE(win.c.inputs().engine.block_size, 32ULL);
    QCOMPARE(win.find<QSpinBox>("block_size")->value(), 32);
  }
};

QTEST_MAIN(UsabilityTest)
#include "test_usability.moc"
