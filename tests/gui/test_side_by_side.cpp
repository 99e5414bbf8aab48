// Side by side and export (issue 16), driven as a person drives the window: Ctrl+B pins the plan,
// keys change the KV dtype and the context, the File menu's actions open the export dialog, which is
// filled in with keys. Expected figures are worked out from the inputs (comments), not read back.
//
// The worked case: Llama 3.1 8B (32 layers, 8 KV heads, head dim 128), 8,192 tokens, 8 users, one
// GPU with 40 GiB of KV memory given (so that weights and utilisation do not enter).
//   bf16: 2 (K, V) x 8 heads x 128 x 2 B x 32 layers = 131,072 B per token; x 8,192 = 1 GiB a sequence;
//         KV per GPU for 8 users = 8 GiB; max users = 40 GiB / 1 GiB = 40;
//         max context for 8 users = 40 GiB / (8 x 131,072 B) = 40,960 tokens.
//   fp8:  half of each: 65,536 B per token, 4 GiB per GPU (-50%), 80 users (+40), 81,920 tokens (+40,960).
#include <QAbstractItemModel>
#include <QApplication>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFile>
#include <QImage>
#include <QLineEdit>
#include <QMenu>
#include <QPushButton>
#include <QRegularExpression>
#include <QSpinBox>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QXmlStreamReader>
#include <functional>
#include <limits>

#include "gui_test_support.hpp"
#include "kvplan/gui/baseline.hpp"
#include "kvplan/gui/chart_data.hpp"
#include "kvplan/gui/chart_export.hpp"
#include "kvplan/gui/charts.hpp"
#include "kvplan/gui/controller.hpp"
#include "kvplan/gui/main_window.hpp"
#include "kvplan/gui/tables.hpp"

using namespace kvplan;
using namespace kvplan::gui;

namespace {
constexpr std::uint64_t GiB = 1ULL << 30;

struct Window {
  Controller c;
  MainWindow w{&c};
  Window() {
    w.resize(1366, 768);
    w.show();
    w.activateWindow();
  }
  template <typename T>
  T* find(const char* name) {
    return w.findChild<T*>(QLatin1String(name));
  }
  /// The results table's cell in `column` of the row keyed `key`, as the view shows it.
  QString cell(const char* key, int column, int role = Qt::DisplayRole) {
    const QAbstractItemModel* m = find<QTableView>("results")->model();
    for (int row = 0; row < m->rowCount(); ++row)
      if (m->index(row, 0).data(ResultsModel::KeyRole).toString() == QLatin1String(key))
        return m->index(row, column).data(role).toString();
    return QStringLiteral("<no row %1>").arg(QLatin1String(key));
  }
  int columns() { return find<QTableView>("results")->model()->columnCount(); }
  /// The worked case's inputs, typed.
  void typeWorkedCase() {
    test::type_into(find<QWidget>("kv_memory"), QStringLiteral("40GiB"));
    test::type_into(find<QWidget>("context"), QStringLiteral("8192"));
    test::type_into(find<QWidget>("users"), QStringLiteral("8"));
  }
  /// Picks a KV dtype by typing its name into the focused combo box (keyboard search).
  void chooseKvDtype(const char* dtype) {
    auto* kv = find<QComboBox>("kv_dtype");
    kv->setFocus(Qt::TabFocusReason);
    QTest::keyClicks(kv, QLatin1String(dtype));
  }
};

/// Fills in the export dialog once it is open (exec() runs its own loop; looked for every 20 ms, up to
/// 1 s) with keys, and presses Save; sets *seen when it did.
void answer_export_dialog(int width, int height, const QString& format, const QString& path, bool* seen,
                          int tries = 50) {
  QTimer::singleShot(20, [=] {
    auto* d = qobject_cast<ExportDialog*>(QApplication::activeModalWidget());
    if (d == nullptr) {
      if (tries > 0) answer_export_dialog(width, height, format, path, seen, tries - 1);
      return;
    }
    *seen = true;
    for (auto [name, value] : {std::pair{"export_width", width}, std::pair{"export_height", height}}) {
      auto* box = d->findChild<QSpinBox*>(QLatin1String(name));
      QTest::keyClick(box, Qt::Key_A, Qt::ControlModifier);
      QTest::keyClicks(box, QString::number(value));
    }
    QTest::keyClicks(d->findChild<QComboBox*>(QStringLiteral("export_format")), format);
    auto* edit = d->findChild<QLineEdit*>(QStringLiteral("export_path"));
    edit->selectAll();
    QTest::keyClicks(edit, path);
    d->findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Save)->click();
  });
}

/// Triggers `action` (a File > Export item) and answers its dialog; false when no dialog opened.
bool export_with_dialog(QAction* action, int width, int height, const QString& format, const QString& path) {
  bool seen = false;
  answer_export_dialog(width, height, format, path, &seen);
  action->trigger();
  return seen;
}

/// Every data: URI PNG of an HTML report, decoded, in order.
QList<QImage> embedded_pngs(const QString& html) {
  QList<QImage> out;
  static const QRegularExpression re(QStringLiteral("src=\"data:image/png;base64,([A-Za-z0-9+/=]+)\""));
  for (auto it = re.globalMatch(html); it.hasNext();)
    out << QImage::fromData(QByteArray::fromBase64(it.next().captured(1).toLatin1()), "PNG");
  return out;
}
}  // namespace

class SideBySideTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void changesAreWorkedOutExactly() {
    QCOMPARE(percent_change(4 * GiB, 8 * GiB), QStringLiteral("-50%"));
    QCOMPARE(percent_change(196, 100), QStringLiteral("+96%"));
    QCOMPARE(percent_change(1033, 1000), QStringLiteral("+3.3%"));     // 33 / 1000
    QCOMPARE(percent_change(1030, 1000), QStringLiteral("+3%"));       // 3.0: no decimal
    QCOMPARE(percent_change(10001, 10000), QStringLiteral("+<0.1%"));  // 0.01%: not "+0%"
    QCOMPARE(percent_change(100, 100), QStringLiteral("+0%"));
    QCOMPARE(percent_change(5, 0), QString());  // no percentage of nothing
    QCOMPARE(count_change(196, 100), QStringLiteral("+96"));
    QCOMPARE(count_change(0, 1024), QStringLiteral("-1,024"));
    // The whole uint64_t range, with no overflow: 2^64 - 1.
    QCOMPARE(count_change(0, std::numeric_limits<std::uint64_t>::max()),
             QStringLiteral("-18,446,744,073,709,551,615"));
    QCOMPARE(
        change_text(Quantity::of_bytes(Bytes{4 * GiB}), Quantity::of_bytes(Bytes{8 * GiB}), {}, {}, true),
        QStringLiteral("-50%, was 8.00 GiB"));
    QCOMPARE(change_text(Quantity::of_count(80), Quantity::of_count(40), {}, {}, true),
             QStringLiteral("+40, was 40"));
    QCOMPARE(change_text(Quantity::of_count(40), Quantity::of_count(40), {}, {}), QStringLiteral("same"));
    // The column's short form: the change alone.
    QCOMPARE(change_text(Quantity::of_bytes(Bytes{4 * GiB}), Quantity::of_bytes(Bytes{8 * GiB}), {}, {}),
             QStringLiteral("-50%"));
    QCOMPARE(change_text(Quantity::of_count(196), Quantity::of_count(100), {}, {}), QStringLiteral("+96"));
    QCOMPARE(change_text({}, {}, QStringLiteral("vllm rules"), QStringLiteral("ideal")),
             QStringLiteral("changed"));
    QCOMPARE(change_text({}, {}, QStringLiteral("vllm rules"), QStringLiteral("ideal"), true),
             QStringLiteral("was ideal"));
    QCOMPARE(change_text(Quantity::of_tokens(std::nullopt), Quantity::of_tokens(Tokens{4096}), {}, {}, true),
             QStringLiteral("now unbounded, was 4,096"));
    QCOMPARE(change_text(Quantity::of_tokens(Tokens{4096}), Quantity::of_tokens(std::nullopt), {}, {}),
             QStringLiteral("was unbounded"));
    QCOMPARE(change_text(Quantity::of_verdict(false), Quantity::of_verdict(true), QStringLiteral("NO"),
                         QStringLiteral("YES")),
             QStringLiteral("was YES"));
    QCOMPARE(change_text(Quantity::of_ratio(3.5), Quantity::of_ratio(2), {}, {}, true),
             QStringLiteral("+1.50, was 2.00"));
    QCOMPARE(change_text(Quantity::of_bytes(Bytes{1}), Quantity::of_bytes(Bytes{0}), {}, {}),
             QStringLiteral("was 0 B"));
  }

  void pinnedBaselineShowsEveryChange() {
    Window win;
    QVERIFY(QTest::qWaitForWindowActive(&win.w));
    win.typeWorkedCase();
    QVERIFY2(win.w.shownError().isEmpty(), qPrintable(win.w.shownError()));
    QCOMPARE(win.columns(), 2);
    test::settle_charts(win.w);
    const int kv_lines = win.w.charts()->seriesCount(ChartPanel::KvMemory);
    const int users_lines = win.w.charts()->seriesCount(ChartPanel::MaxUsers);

    QTest::keyClick(&win.w, Qt::Key_B, Qt::ControlModifier);  // Compare > Pin as baseline
    QCOMPARE(win.columns(), 3);
    QCOMPARE(win.cell("per_gpu.kv_bytes_total", 2), QStringLiteral("same"));
    // The changes are in sight at 1366 x 768, not past the table's right edge.
    auto* table = win.find<QTableView>("results");
    QVERIFY(table->columnWidth(2) > 0);
    QVERIFY2(table->columnViewportPosition(2) + table->columnWidth(2) <= table->viewport()->width(),
             qPrintable(QStringLiteral("vs baseline at %1 + %2, table %3")
                            .arg(table->columnViewportPosition(2))
                            .arg(table->columnWidth(2))
                            .arg(table->viewport()->width())));
    test::settle_charts(win.w);
    QCOMPARE(win.w.charts()->seriesCount(ChartPanel::KvMemory), kv_lines + 1);
    QCOMPARE(win.w.charts()->seriesCount(ChartPanel::MaxUsers), users_lines + 1);

    win.chooseKvDtype("fp8_e4m3");
    QCOMPARE(win.c.inputs().kv.k, DType::fp8_e4m3);
    QCOMPARE(win.cell("bytes_per_token", 2), QStringLiteral("-50%"));
    QCOMPARE(win.cell("bytes_per_token", 2, Qt::ToolTipRole),
             QStringLiteral("-50%, was 128 KiB"));  // 131,072 B
    QCOMPARE(win.cell("per_gpu.kv_bytes_total", 2), QStringLiteral("-50%"));
    QCOMPARE(win.cell("per_gpu.kv_bytes_total", 2, Qt::ToolTipRole), QStringLiteral("-50%, was 8.00 GiB"));
    QCOMPARE(win.cell("max_users", 2), QStringLiteral("+40"));
    QCOMPARE(win.cell("max_users", 2, Qt::ToolTipRole), QStringLiteral("+40, was 40"));
    QCOMPARE(win.cell("max_context", 2), QStringLiteral("+40,960"));
    QCOMPARE(win.cell("max_context", 2, Qt::ToolTipRole), QStringLiteral("+40,960, was 40,960"));
    QCOMPARE(win.cell("per_gpu.available_kv_bytes", 2), QStringLiteral("same"));
    QCOMPARE(win.cell("fits", 2), QStringLiteral("same"));
    // The value column is the current plan's, as without a baseline.
    QCOMPARE(win.cell("max_users", 1), QStringLiteral("80"));

    // The charts: the baseline's KV curve passes 8 GiB at 8,192 tokens, the current one 4 GiB.
    ChartsData charts = describe_charts(win.c.figures(), win.c.modelTitle());
    add_baseline_lines(charts, *win.w.baseline()->figures());
    const ChartLine& base = charts.kv_memory.lines.back();
    QCOMPARE(base.style, ChartLine::Style::dotted);
    bool seen = false;
    for (const QPointF& p : base.points)
      if (p.x() == 8192) {
        QCOMPARE(p.y(), 8.0);
        seen = true;
      }
    QVERIFY(seen);
    QCOMPARE(charts.max_users.lines.back().style, ChartLine::Style::dotted);

    // The baseline survives input changes: at 16,384 tokens fp8 needs what bf16 did at 8,192.
    test::type_into(win.find<QWidget>("context"), QStringLiteral("16384"));
    QCOMPARE(win.c.inputs().context.value, 16384ULL);
    QCOMPARE(win.cell("per_gpu.kv_bytes_total", 2), QStringLiteral("same"));  // 8 x 16,384 x 65,536 B = 8 GiB
    QCOMPARE(win.cell("max_users", 2), QStringLiteral("same"));               // 40 GiB / 1 GiB = 40

    // Clear baseline: two columns again, no dashed baseline lines.
    QTest::keyClick(&win.w, Qt::Key_B, Qt::ControlModifier | Qt::ShiftModifier);
    QVERIFY(!win.w.baseline()->pinned());
    QCOMPARE(win.columns(), 2);
    test::settle_charts(win.w);
    QCOMPARE(win.w.charts()->seriesCount(ChartPanel::KvMemory), kv_lines);
    QCOMPARE(win.w.charts()->seriesCount(ChartPanel::MaxUsers), users_lines);
  }

  void baselineSurvivesAModelChange() {
    Window win;
    QVERIFY(QTest::qWaitForWindowActive(&win.w));
    win.typeWorkedCase();
    QTest::keyClick(&win.w, Qt::Key_B, Qt::ControlModifier);
    QVERIFY(win.w.baseline()->pinned());
    const QString summary = win.w.baseline()->summary();
    QVERIFY2(summary.contains(QStringLiteral("8,192 tokens")), qPrintable(summary));
    QVERIFY(win.c.selectModel(QStringLiteral("llama-3.1-70b")));
    QVERIFY(win.w.baseline()->pinned());
    QCOMPARE(win.w.baseline()->summary(), summary);
    // 70B: 80 layers, 8 KV heads, head dim 128: 2 x 8 x 128 x 2 B x 80 = 327,680 B per token, +150%.
    QCOMPARE(win.cell("bytes_per_token", 2), QStringLiteral("+150%"));
    QCOMPARE(win.cell("bytes_per_token", 2, Qt::ToolTipRole), QStringLiteral("+150%, was 128 KiB"));
  }

  void exportsAChartAtTheChosenSize() {
    Window win;
    QVERIFY(QTest::qWaitForWindowActive(&win.w));
    QTemporaryDir dir;
    auto* action = win.find<QAction>("export_chart_0");
    QVERIFY(action != nullptr);

    const QString png = dir.filePath(QStringLiteral("kv.png"));
    QVERIFY(export_with_dialog(action, 1200, 700, QStringLiteral("PNG"), png));
    QVERIFY2(win.w.shownError().isEmpty(), qPrintable(win.w.shownError()));
    const QImage image(png);
    QCOMPARE(image.size(), QSize(1200, 700));  // not the on-screen chart's size
    // Drawn, not blank: more than a few colours.
    QSet<QRgb> colours;
    for (int y = 0; y < image.height(); y += 7)
      for (int x = 0; x < image.width(); x += 7) colours.insert(image.pixel(x, y));
    QVERIFY2(colours.size() > 10, qPrintable(QString::number(colours.size())));

    const QString svg = dir.filePath(QStringLiteral("kv.svg"));
    QVERIFY(export_with_dialog(action, 1000, 500, QStringLiteral("SVG"), svg));
    QFile file(svg);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QXmlStreamReader xml(&file);
    QVERIFY(xml.readNextStartElement());
    QCOMPARE(xml.name(), QStringLiteral("svg"));
    QCOMPARE(xml.attributes().value(QStringLiteral("viewBox")).toString(), QStringLiteral("0 0 1000 500"));
    bool has_title = false;
    while (!xml.atEnd()) {
      xml.readNext();
      if (xml.isCharacters() && xml.text().contains(QStringLiteral("KV cache per GPU vs context")))
        has_title = true;
    }
    QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));  // it parses
    QVERIFY(has_title);

    // A write that fails names the path and keeps the window as it was.
    QVERIFY(export_with_dialog(action, 800, 600, QStringLiteral("PNG"),
                               QStringLiteral("/no-such-folder/kv.png")));
    QVERIFY2(win.w.shownError().contains(QStringLiteral("/no-such-folder/kv.png")),
             qPrintable(win.w.shownError()));
  }

  void exportsAReportWithFiguresChartsAndCommand() {
    Window win;
    QVERIFY(QTest::qWaitForWindowActive(&win.w));
    win.typeWorkedCase();
    QTest::keyClick(&win.w, Qt::Key_B, Qt::ControlModifier);
    win.chooseKvDtype("fp8_e4m3");
    QTemporaryDir dir;
    auto* action = win.find<QAction>("export_report");
    QVERIFY(action != nullptr);

    const QString path = dir.filePath(QStringLiteral("report.html"));
    QVERIFY(export_with_dialog(action, 800, 450, QStringLiteral("HTML"), path));
    QVERIFY2(win.w.shownError().isEmpty(), qPrintable(win.w.shownError()));
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QString html = QString::fromUtf8(file.readAll());
    const QString command = win.c.commandLine();
    QVERIFY(command.startsWith(QStringLiteral("kvplan size ")));
    QVERIFY(command.contains(QStringLiteral("fp8_e4m3")));
    QVERIFY(html.contains(command.toHtmlEscaped()));
    QVERIFY(html.contains(QStringLiteral("<td>80</td>")));                  // max users, fp8
    QVERIFY(html.contains(QStringLiteral("<td>+40, was 40</td>")));         // against the bf16 baseline
    QVERIFY(html.contains(QStringLiteral("<td>-50%, was 8.00 GiB</td>")));  // KV per GPU
    const QList<QImage> images = embedded_pngs(html);
    QCOMPARE(images.size(), ChartPanel::kCount);
    for (const QImage& image : images) QCOMPARE(image.size(), QSize(800, 450));

    const QString pdf = dir.filePath(QStringLiteral("report.pdf"));
    QVERIFY(export_with_dialog(action, 800, 450, QStringLiteral("PDF"), pdf));
    QFile pdf_file(pdf);
    QVERIFY(pdf_file.open(QIODevice::ReadOnly));
    QVERIFY(pdf_file.read(5) == "%PDF-");
    QVERIFY(pdf_file.size() > 10000);  // four charts in it

    // A report that cannot be written names the path; nothing is left behind.
    const QString bad = QStringLiteral("/no-such-folder/report.html");
    QVERIFY(export_with_dialog(action, 800, 450, QStringLiteral("HTML"), bad));
    QVERIFY2(win.w.shownError().startsWith(bad + QStringLiteral(": cannot be written")),
             qPrintable(win.w.shownError()));
    QVERIFY(!QFile::exists(bad));
  }
};

QTEST_MAIN(SideBySideTest)
#include "test_side_by_side.moc"
