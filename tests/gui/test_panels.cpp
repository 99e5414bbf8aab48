// Issue 27, what was left of round 3: the window split by panel (after heaptrack_gui_private), each
// panel working on a Controller without the window; and View > Sizes in GB, every byte figure following
// it. Expected texts are worked out by hand from the inputs (80 GB = 80 x 10^9 B), in comments beside them.
#include <QAbstractAxis>
#include <QAbstractTextDocumentLayout>
#include <QAction>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFile>
#include <QGraphicsTextItem>
#include <QLabel>
#include <QLegendMarker>
#include <QLineEdit>
#include <QLineSeries>
#include <QListView>
#include <QMenu>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBlock>
#include <QTextDocument>
#include <QUndoStack>
#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "gui_test_support.hpp"
#include "kvplan/gui/baseline.hpp"
#include "kvplan/gui/chart_data.hpp"
#include "kvplan/gui/charts.hpp"
#include "kvplan/gui/controller.hpp"
#include "kvplan/gui/inputs_panel.hpp"
#include "kvplan/gui/main_window.hpp"
#include "kvplan/gui/report.hpp"
#include "kvplan/gui/results_panel.hpp"
#include "kvplan/gui/scenario.hpp"
#include "kvplan/gui/tables.hpp"

using namespace kvplan;
using namespace kvplan::gui;

namespace {
/// The titles of a chart's axes on screen, and its visible legend entries, joined with "|".
QString axes_and_legend(MainWindow& w, ChartPanel::Chart chart) {
  auto* view = qobject_cast<QChartView*>(w.charts()->chartWidget(chart));
  if (view == nullptr) return {};
  QStringList out;
  for (QAbstractAxis* a : view->chart()->axes()) out << a->titleText();
  for (QLegendMarker* m : view->chart()->legend()->markers())
    if (m->isVisible()) out << m->label();
  return out.join('|');
}

/// The line series of a chart named `name` on screen, nullptr when none.
QLineSeries* series_named(MainWindow& w, ChartPanel::Chart chart, const QString& name) {
  auto* view = qobject_cast<QChartView*>(w.charts()->chartWidget(chart));
  for (QAbstractSeries* s : view->chart()->series())
    if (s->name() == name) return qobject_cast<QLineSeries*>(s);
  return nullptr;
}

/// The texts a chart's legend shows (elided or not), read from its items on screen.
QStringList legend_texts(MainWindow& w, ChartPanel::Chart chart) {
  auto* view = qobject_cast<QChartView*>(w.charts()->chartWidget(chart));
  QStringList out;
  QList<QGraphicsItem*> items = view->chart()->legend()->childItems();
  while (!items.isEmpty()) {
    QGraphicsItem* item = items.takeFirst();
    if (auto* text = dynamic_cast<QGraphicsTextItem*>(item); text != nullptr && text->isVisible())
      out << text->toPlainText();
    items << item->childItems();
  }
  return out;
}

/// The angle between two hues in degrees (0 to 180).
int hue_gap(const QColor& a, const QColor& b) {
  const int d = std::abs(a.hslHue() - b.hslHue()) % 360;
  return std::min(d, 360 - d);
}

/// Colour distance a person tells apart at a glance (sum of channel differences), as test_round3's.
int colour_distance(const QColor& a, const QColor& b) {
  return std::abs(a.red() - b.red()) + std::abs(a.green() - b.green()) + std::abs(a.blue() - b.blue());
}
}  // namespace

class PanelsTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  // The inputs panel alone (no MainWindow) writes its edits to the controller and shows core's rules:
  // tp greyed out under llama.cpp (Controller::engineTakesTensorParallel, from core), and a preset
  // picked goes out as a signal, the window deciding whether to load it (unsaved edits).
  void theInputsPanelWorksWithoutTheWindow() {
    Controller c;
    InputsPanel panel(&c);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QCOMPARE(panel.objectName(), QStringLiteral("inputs_scroll"));
    auto* tp = panel.findChild<QSpinBox*>(QStringLiteral("tp"));
    auto* gpus = panel.findChild<QSpinBox*>(QStringLiteral("gpus"));
    QVERIFY(tp != nullptr && gpus != nullptr);
    gpus->setValue(2);
    tp->setValue(2);
    QCOMPARE(c.inputs().deployment.parallel.tp, std::uint64_t{2});
    // The controller's change shows in the panel (Controller::inputsChanged -> InputsPanel::sync).
    QVERIFY(c.setEngine(QStringLiteral("llamacpp")));
    QVERIFY(!tp->isEnabled());
    QCOMPARE(tp->isEnabled(), c.engineTakesTensorParallel());
    QVERIFY(c.setEngine(QStringLiteral("vllm")));
    QVERIFY(tp->isEnabled());
    // A preset clicked: the signal names it, and the panel itself loads nothing.
    const QString before = c.modelTitle();
    QSignalSpy picked(&panel, &InputsPanel::presetPicked);
    auto* list = panel.findChild<QListView*>(QStringLiteral("presets"));
    QVERIFY(list != nullptr && list->model()->rowCount() > 1);
    const QModelIndex other = list->model()->index(list->currentIndex().row() == 0 ? 1 : 0, 0);
    panel.ensureWidgetVisible(list);
    list->scrollTo(other);
    QTest::mouseClick(list->viewport(), Qt::LeftButton, Qt::NoModifier, list->visualRect(other).center());
    QCOMPARE(picked.count(), 1);
    QCOMPARE(picked.at(0).at(0).toString(), other.data(PresetListModel::IdRole).toString());
    QCOMPARE(c.modelTitle(), before);
  }

  // The results panel alone shows the controller's verdict and limit, and follows a change.
  void theResultsPanelWorksWithoutTheWindow() {
    Controller c;
    ResultsModel model(&c);
    ResultsPanel panel(&c, &model);
    QObject::connect(&c, &Controller::planChanged, &panel, &ResultsPanel::showPlan);
    panel.showPlan();
    panel.showInputs();
    auto* fits = panel.findChild<QLabel*>(QStringLiteral("fits"));
    auto* command = panel.findChild<QLabel*>(QStringLiteral("command"));
    QVERIFY(fits != nullptr && command != nullptr);
    QVERIFY(command->text().startsWith(QStringLiteral("kvplan ")));
    // A million users of the default model (Llama 3.1 8B at 8,192 tokens: 128 KiB x 8,192 = 1 GiB of KV
    // each) need about 10^6 GiB, past one H100's 80 GiB.
    QVERIFY(c.setUsers(1'000'000));
    QCOMPARE(fits->text(), QStringLiteral("DOES NOT FIT"));
    QVERIFY(c.setUsers(1));
    QCOMPARE(fits->text(), c.plan().fits ? QStringLiteral("FITS") : QStringLiteral("DOES NOT FIT"));
  }

  // View > Sizes in GB: a GPU of 80 GB (80 x 10^9 B) at utilisation 0.5 has usable 40 x 10^9 B, which
  // is "40.0 GB" in SI and 40e9 / 2^30 = 37.25 -> "37.3 GiB" in IEC (core's format_bytes: three
  // significant digits). The memory bar's lines: "GPU 80.0 GB" and, in GiB, 80e9 / 2^30 = 74.51 ->
  // "GPU 74.5 GiB". The table, the memory bar's legend and axis, the KV chart's axis all follow; the
  // choice is one undo step and is saved in the scenario.
  void everyByteFigureFollowsTheGbToggle() {
    test::Window win;
    QVERIFY(QTest::qWaitForWindowActive(&win.w));
    test::type_into(win.find<QLineEdit>("gpu_memory"), QStringLiteral("80GB"));
    test::type_into(win.find<QDoubleSpinBox>("gpu_util"), QStringLiteral("0.5"));
    QCOMPARE(win.c.inputs().gpu->memory, Bytes{80'000'000'000ULL});
    ResultsModel* results = win.w.results();
    QVERIFY2(results->value(QStringLiteral("per_gpu.usable_bytes")).startsWith(QStringLiteral("37.3 GiB")),
             qPrintable(results->value(QStringLiteral("per_gpu.usable_bytes"))));
    auto* gb = win.w.findChild<QAction*>(QStringLiteral("units_gb"));
    QVERIFY(gb != nullptr && gb->isCheckable() && !gb->isChecked());
    const int steps = win.c.undoStack()->count();
    gb->trigger();
    QCOMPARE(win.c.units(), UnitSystem::si);
    QCOMPARE(win.c.undoStack()->count(), steps + 1);
    // The GPU presets' memory too: the H100 SXM's 81,559 MiB = 85,520,809,984 B -> "85.5 GB".
    auto* gpu = win.find<QComboBox>("gpu");
    const int h100 = gpu->findData(QStringLiteral("h100-sxm"));
    QVERIFY(h100 >= 0);
    QVERIFY2(gpu->itemText(h100).endsWith(QStringLiteral(" (85.5 GB)")), qPrintable(gpu->itemText(h100)));
    // "40.0 GB (40,000,000,000 B)": the exact figure unchanged beside it.
    QCOMPARE(results->value(QStringLiteral("per_gpu.usable_bytes")),
             QStringLiteral("40.0 GB (40,000,000,000 B)"));
    test::settle_charts(win.w);
    const QString bar = axes_and_legend(win.w, ChartPanel::GpuMemory);
    const StackedBar described = describe_charts(win.c.figures(), win.c.modelTitle(), win.c.units()).memory;
    QCOMPARE(described.marks.size(), 2);
    QCOMPARE(described.marks[0].name, QStringLiteral("usable 40.0 GB (x 0.5)"));
    QCOMPARE(described.marks[1].name, QStringLiteral("GPU 80.0 GB"));
    QVERIFY2(bar.contains(QStringLiteral("memory per GPU (GB)")), qPrintable(bar));
    QVERIFY2(!bar.contains(QStringLiteral("GiB")), qPrintable(bar));
    const QString kv = axes_and_legend(win.w, ChartPanel::KvMemory);
    QVERIFY2(kv.contains(QStringLiteral("KV/GPU (GB, log)")), qPrintable(kv));
    // Saved in the scenario, and read back.
    const nlohmann::json j = scenario_to_json(win.c.scenario());
    QCOMPARE(QString::fromStdString(j.at("byte_units").get<std::string>()), QStringLiteral("GB"));
    QCOMPARE(scenario_from_json(j, "t.json", ".").units, UnitSystem::si);
    // Undo: back to GiB, the menu's check with it.
    win.c.undoStack()->undo();
    QCOMPARE(win.c.units(), UnitSystem::iec);
    QVERIFY(!gb->isChecked());
    QVERIFY(results->value(QStringLiteral("per_gpu.usable_bytes")).startsWith(QStringLiteral("37.3 GiB")));
    test::settle_charts(win.w);
    QCOMPARE(describe_charts(win.c.figures(), win.c.modelTitle(), win.c.units()).memory.marks[1].name,
             QStringLiteral("GPU 74.5 GiB"));
    QVERIFY2(axes_and_legend(win.w, ChartPanel::GpuMemory).contains(QStringLiteral("memory per GPU (GiB)")),
             qPrintable(axes_and_legend(win.w, ChartPanel::GpuMemory)));
  }

  // A scenario's "byte_units" other than "GiB" or "GB" is refused, naming the key; a file without it
  // shows GiB (files written before the toggle).
  void aBadByteUnitIsRefused() {
    Controller c;
    nlohmann::json j = scenario_to_json(c.scenario());
    j["byte_units"] = "MB";
    try {
      (void)scenario_from_json(j, "s.json", ".");
      QFAIL("byte_units MB was read");
    } catch (const Error& e) {
      QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("byte_units")), e.what());
    }
    j.erase("byte_units");
    QCOMPARE(scenario_from_json(j, "s.json", ".").units, UnitSystem::iec);
  }

  // More than one baseline (Compare > Pin as baseline, again): 3 pinned at 8, 16 and 32 users, each
  // with its own curve and legend entry, in its own colour, apart in a dark theme (hues 30 degrees or
  // more apart, none a grey like "available for KV"); one removed from Compare > Remove baseline, the
  // others kept in order; saved in the scenario and read back; all cleared at once.
  void severalBaselinesEachWithItsColour() {
    const QPalette light = QApplication::palette();
    QApplication::setPalette(test::dark_palette(light));
    {
      test::Window win;
      QVERIFY(QTest::qWaitForWindowActive(&win.w));
      for (const std::uint64_t users : {8U, 16U, 32U}) {
        QVERIFY(win.c.setUsers(users));
        QTest::keyClick(&win.w, Qt::Key_B, Qt::ControlModifier);  // Compare > Pin as baseline
      }
      QCOMPARE(win.w.baseline()->count(), 3);
      QVERIFY(win.c.setUsers(4));
      test::settle_charts(win.w);
      const QStringList names{QStringLiteral("baseline"), QStringLiteral("baseline 2"),
                              QStringLiteral("baseline 3")};
      QList<QColor> colours;
      for (const QString& n : names) {
        QLineSeries* kv = series_named(win.w, ChartPanel::KvMemory, n);
        QLineSeries* users = series_named(win.w, ChartPanel::MaxUsers, n + QStringLiteral(" max users"));
        QVERIFY2(kv != nullptr && users != nullptr, qPrintable(n));
        QCOMPARE(users->pen().color(), kv->pen().color());
        colours << kv->pen().color();
      }
      QLineSeries* available = series_named(win.w, ChartPanel::KvMemory, QStringLiteral("available for KV"));
      QVERIFY(available != nullptr);
      for (qsizetype i = 0; i < colours.size(); ++i) {
        QVERIFY2(colours[i].hslSaturation() >= 40, qPrintable(colours[i].name()));
        QVERIFY2(colour_distance(colours[i], available->pen().color()) >= 150, qPrintable(colours[i].name()));
        for (qsizetype k = 0; k < i; ++k)
          QVERIFY2(hue_gap(colours[i], colours[k]) >= 30,
                   qPrintable(colours[i].name() + QStringLiteral(" vs ") + colours[k].name()));
      }
      // The table compares with the latest pinned (32 users).
      QCOMPARE(win.w.baseline()->figures()->plan.inputs.users, std::uint64_t{32});
      // Compare > Remove baseline > the second (16 users): 8 and 32 stay, in that order.
      auto* remove = win.w.findChild<QMenu*>(QStringLiteral("remove_baseline_menu"));
      QVERIFY(remove != nullptr);
      QCOMPARE(remove->actions().size(), 3);
      QVERIFY(remove->actions()[1]->text().contains(QStringLiteral("16 users")));
      remove->actions()[1]->trigger();
      QCOMPARE(win.w.baseline()->count(), 2);
      QCOMPARE(win.w.baseline()->figuresAt(0)->plan.inputs.users, std::uint64_t{8});
      QCOMPARE(win.w.baseline()->figuresAt(1)->plan.inputs.users, std::uint64_t{32});
      QCOMPARE(remove->actions().size(), 2);
      test::settle_charts(win.w);
      QVERIFY(series_named(win.w, ChartPanel::KvMemory, QStringLiteral("baseline 2")) != nullptr);
      QVERIFY(series_named(win.w, ChartPanel::KvMemory, QStringLiteral("baseline 3")) == nullptr);
      // Saved in the scenario and read back: a fresh controller has both, planned.
      const QString path = QDir(QDir::tempPath()).filePath(QStringLiteral("kvplan-baselines-test.json"));
      QVERIFY2(win.c.saveScenario(path), qPrintable(win.c.errorMessage()));
      Controller other;
      QVERIFY2(other.loadScenario(path), qPrintable(other.errorMessage()));
      QFile::remove(path);
      QCOMPARE(other.scenario().baselines.size(), std::size_t{2});
      QCOMPARE(other.baselineFigures().size(), std::size_t{2});
      QCOMPARE(other.baselineFigures()[0].plan.inputs.users, std::uint64_t{8});
      QCOMPARE(other.baselineFigures()[1].plan.inputs.users, std::uint64_t{32});
      QCOMPARE(other.inputs().users, std::uint64_t{4});
      // Undo brings the removed one back; Clear all baselines (Ctrl+Shift+B) removes every one.
      win.c.undoStack()->undo();
      QCOMPARE(win.w.baseline()->count(), 3);
      QTest::keyClick(&win.w, Qt::Key_B, Qt::ControlModifier | Qt::ShiftModifier);
      QCOMPARE(win.w.baseline()->count(), 0);
      QVERIFY(!remove->isEnabled());
    }
    QApplication::setPalette(light);
  }

  // At most kMaxBaselines (6): the 7th pin is refused with a message, the 6 kept.
  void aSeventhBaselineIsRefused() {
    Controller c;
    for (std::size_t i = 0; i < kMaxBaselines; ++i) {
      QVERIFY(c.setUsers(i + 1));
      QVERIFY(c.pinBaseline());
    }
    QVERIFY(!c.pinBaseline());
    QVERIFY2(c.errorMessage().contains(QStringLiteral("remove one")), qPrintable(c.errorMessage()));
    QCOMPARE(c.scenario().baselines.size(), kMaxBaselines);
  }

  // The PDF report's layout (issue 27, 7.): each page under a header naming the model, the GPU, the
  // engine and its rules, and over "page N of M"; the table as wide as the page (no cell past its edge);
  // each chart whole on a page. The PDF written has the layout's pages (its /Pages /Count).
  void thePdfReportIsLaidOutForItsPages() {
    test::Window win;
    QVERIFY(QTest::qWaitForWindowActive(&win.w));
    QVERIFY(win.c.setEngine(QStringLiteral("vllm")));
    QVERIFY(win.c.setUsers(16));
    win.w.pinBaseline();
    QVERIFY(win.c.setUsers(32));
    test::settle_charts(win.w);
    const Report r =
        make_report(*win.w.results(), *win.w.charts(), win.c, win.w.baseline()->summary(), QSize(1600, 900));
    const QStringList header = report_header(r);
    QCOMPARE(header.size(), 2);
    // The default scenario: one H100 SXM, tp 1, pp 1 (Controller's start), under vLLM's rules now.
    QVERIFY2(header[0].startsWith(win.c.modelTitle() + QStringLiteral(" | NVIDIA H100")),
             qPrintable(header[0]));
    QVERIFY2(header[0].contains(QStringLiteral(" x 1 (tp 1, pp 1) | vllm")), qPrintable(header[0]));
    QVERIFY(!win.c.plan().engine.rules.empty());
    QCOMPARE(header[1], QStringLiteral("rules: ") + QString::fromStdString(win.c.plan().engine.rules));
    QCOMPARE(report_footer(2, 5), QStringLiteral("page 2 of 5"));

    const ReportPage page = report_page();
    // A4 at 96 dpi: 210 mm = 793.7 px by 297 mm = 1122.5 px; 15 mm margins are 56.7 px.
    QVERIFY(std::abs(page.paper.width() - 793.7) < 0.1 && std::abs(page.paper.height() - 1122.5) < 0.1);
    QVERIFY(page.body.left() >= 56.6 && page.body.right() <= page.paper.width() - 56.6);
    QVERIFY(page.header.bottom() < page.body.top() && page.body.bottom() < page.footer.top());
    const auto doc = report_document(r, page);
    // Nothing laid out past the body's right edge: the table's cells wrap within the page's width.
    // Nothing drawn past the body's right edge on any page (the table's cells wrap within the page's
    // width): each page drawn on a canvas twice as wide stays white right of the body.
    const double body_w = page.body.width(), body_h = page.body.height();
    for (int i = 0; i < doc->pageCount(); ++i) {
      QImage canvas(QSize(static_cast<int>(2 * body_w), static_cast<int>(body_h)), QImage::Format_RGB32);
      canvas.fill(Qt::white);
      QPainter painter(&canvas);
      painter.translate(0, -i * body_h);
      doc->drawContents(&painter, QRectF(0, i * body_h, 2 * body_w, body_h));
      painter.end();
      for (int y = 0; y < canvas.height(); ++y)
        for (int x = static_cast<int>(std::ceil(body_w)) + 1; x < canvas.width(); ++x)
          if (canvas.pixel(x, y) != qRgb(255, 255, 255))
            QFAIL(qPrintable(
                QStringLiteral("page %1: ink at x %2 > %3, y %4").arg(i + 1).arg(x).arg(body_w).arg(y)));
    }
    // Each chart (1,600 x 900) scaled to the body's width at most and to a page's height, aspect kept.
    const QString html = report_html(r, false, page.body.size());
    QVERIFY(html.contains(QStringLiteral("width=\"100%\"")));
    QRegularExpression size_re(QStringLiteral("<img [^>]*width=\"(\\d+)\" height=\"(\\d+)\""));
    int charts = 0;
    for (auto it = size_re.globalMatch(html); it.hasNext(); ++charts) {
      const auto m = it.next();
      const double w = m.captured(1).toDouble(), h = m.captured(2).toDouble();
      QVERIFY2(w <= page.body.width() && h <= page.body.height(), qPrintable(m.captured(0)));
      QVERIFY2(std::abs(w / h - 1600.0 / 900.0) < 0.01, qPrintable(m.captured(0)));
    }
    QCOMPARE(charts, ChartPanel::kCount);
    // The table (about 25 rows of 22 px) and four charts about 380 px tall each, two to a page of
    // about 940 px: three pages at least.
    QVERIFY2(doc->pageCount() >= 3, qPrintable(QString::number(doc->pageCount())));
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("report.pdf"));
    QVERIFY2(win.w.exportReport(path, QSize(1600, 900), QStringLiteral("PDF")),
             qPrintable(win.w.shownError()));
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray pdf = file.readAll();
    const auto count = QRegularExpression(QStringLiteral("/Type /Pages\\s*/Kids[^/]*/Count (\\d+)"))
                           .match(QString::fromLatin1(pdf));
    QVERIFY2(count.hasMatch(), "no /Pages /Count in the PDF");
    QCOMPARE(count.captured(1).toInt(), doc->pageCount());
  }

  // At 1366 x 768 the memory bar's legend in a row under the bar elided "KV cache", "usable 71.7 GiB
  // (x 0.9)" and "GPU 79.6 GiB" to "KV ca...", "usabl...", "GPU ..." (the screenshot scenario: Llama 3.1
  // 70B on four H100s). Every entry now shows whole.
  void theMemoryBarLegendIsWholeAt1366x768() {
    test::Window win;
    QVERIFY(win.c.openFile(QStringLiteral(KVPLAN_GUI_FIXTURES "/screenshot.json")));
    win.w.resize(1366, 768);
    QVERIFY(QTest::qWaitForWindowExposed(&win.w));
    test::settle_charts(win.w);
    const QStringList shown = legend_texts(win.w, ChartPanel::GpuMemory);
    QStringList labels;
    auto* view = qobject_cast<QChartView*>(win.w.charts()->chartWidget(ChartPanel::GpuMemory));
    for (QLegendMarker* m : view->chart()->legend()->markers())
      if (m->isVisible()) labels << m->label();
    QVERIFY(labels.contains(QStringLiteral("KV cache")));
    QCOMPARE(shown.size(), labels.size());
    for (const QString& text : shown)
      QVERIFY2(labels.contains(text), qPrintable(text + QStringLiteral(" (elided) of ") + labels.join('|')));
  }
};

QTEST_MAIN(PanelsTest)
#include "test_panels.moc"
