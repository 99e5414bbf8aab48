// The Fit view driven as a user: the explorer's model and workload, the view's choices, the ranked rows
// searched off the GUI thread, and a row loaded into the explorer by a click or by Enter.
#include <QAbstractSpinBox>
#include <QComboBox>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QLabel>
#include <QLineEdit>
#include <QListView>
#include <QSpinBox>
#include <QTableView>
#include <QTest>

#include "gui_test_support.hpp"
#include "kvplan/gui/controller.hpp"
#include "kvplan/gui/fit_view.hpp"
#include "kvplan/gui/main_window.hpp"
#include "kvplan/gui/tables.hpp"

using namespace kvplan;
using namespace kvplan::gui;

namespace {
template <class T>
T* child(QWidget& w, const char* name) {
  T* c = w.findChild<T*>(QLatin1String(name));
  if (c == nullptr) qFatal("no widget named %s", name);
  return c;
}

/// Clicks the preset `id` in the window's preset list, after typing it in the search box.
void pick_preset(MainWindow& w, const QString& id) {
  child<QLineEdit>(w, "search")->setText(id);
  auto* list = child<QListView>(w, "presets");
  for (int r = 0; r < list->model()->rowCount(); ++r) {
    const QModelIndex i = list->model()->index(r, 0);
    if (i.data(PresetListModel::IdRole).toString() == id) {
      list->scrollTo(i);
      QTest::mouseClick(list->viewport(), Qt::LeftButton, {}, list->visualRect(i).center());
      return;
    }
  }
  QFAIL("preset not listed");
}

QString cell(const FitView& v, int row, int column) {
  return v.model()->index(row, column).data().toString();
}

/// Waits for the view's search to finish.
bool settle(FitView& v) {
  QElapsedTimer t;
  t.start();
  while (v.busy() && t.elapsed() < 60000) QTest::qWait(10);
  return !v.busy();
}
}  // namespace

class FitViewTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  // The worked job: Llama-3.1-70B, 16 users x 32,768 tokens, H100 SXM, pp 1. Per GPU (test_fit.cpp
  // works it from the README): usable floor(85,520,809,984 x 0.9) = 76,968,728,985 B; bf16 weights
  // 141,107,412,992 B; reserve 2^30 B; KV per token 80 layers x (8 / tp) heads x 128 x 2 (K, V) x 2 B.
  // tp 4: 76,968,728,985 - 35,276,853,248 - 1,073,741,824 = 40,618,133,913 B (37.8 GiB) available against
  // 16 x 32,768 x 80 x 2 x 128 x 2 x 2 = 42,949,672,960 B (40 GiB) of KV: tp 4 needs a second replica
  // (8 GPUs), and tp 8 (58,256,560,537 B available, 20 GiB of KV) leaves more free: the first row of the
  // checkpoint's bf16 weights. As the CLI's fit, the view also searches the weights quantised to fp8 at
  // load (72,656,373,952 B, test_fit.cpp): at tp 4 18,164,093,488 B a GPU leave 57,730,893,673 B for the
  // 42,949,672,960 B of KV, so 4 GPUs rank first, and the row loads with its weight type.
  void workedJobLoadsFp8WeightsTp4() {
    Controller c;
    MainWindow w(&c);
    w.show();
    QVERIFY(QTest::qWaitForWindowActive(&w));
    pick_preset(w, QStringLiteral("llama-3.1-70b"));
    QCOMPARE(QString::fromStdString(c.inputs().model.id), QStringLiteral("llama-3.1-70b"));
    kvplan::gui::test::type_into(child<QAbstractSpinBox>(w, "context"), QStringLiteral("32768"));
    kvplan::gui::test::type_into(child<QAbstractSpinBox>(w, "users"), QStringLiteral("16"));
    QCOMPARE(c.inputs().context.value, 32768u);
    QCOMPARE(c.inputs().users, 16u);

    auto* dock = child<QDockWidget>(w, "fit_dock");
    QVERIFY(!dock->isVisible());
    dock->toggleViewAction()->trigger();  // View > Fit
    QVERIFY(dock->isVisible());
    FitView* v = w.fitView();
    auto* gpu = child<QComboBox>(w, "fit_gpu");
    gpu->setCurrentIndex(gpu->findData(QStringLiteral("h100-sxm")));
    child<QSpinBox>(w, "fit_pp")->setValue(1);
    child<QComboBox>(w, "fit_kv")->setCurrentIndex(1);  // the explorer's K and V: bf16
    QVERIFY(settle(*v));
    QVERIFY2(v->outcome().error.isEmpty(), qPrintable(v->outcome().error));
    qInfo("fit, H100 SXM, pp 1, bf16: %.1f ms in the worker thread", v->outcome().seconds * 1e3);
    QVERIFY(v->model()->rowCount() >= 2);
    QCOMPARE(cell(*v, 0, FitTableModel::GpuId), QStringLiteral("h100-sxm"));
    QCOMPARE(cell(*v, 0, FitTableModel::Gpus), QStringLiteral("4"));
    QCOMPARE(cell(*v, 0, FitTableModel::Layout), QStringLiteral("4 x 1 x 1"));
    QCOMPARE(cell(*v, 0, FitTableModel::Kv), QStringLiteral("bf16"));
    QCOMPARE(cell(*v, 0, FitTableModel::WeightDtype),
             QStringLiteral("fp8_e4m3 per-tensor (quantised at load), bf16 embeddings"));
    QVERIFY(cell(*v, 0, FitTableModel::Launch).startsWith(QStringLiteral("vllm serve ")));
    QVERIFY(cell(*v, 0, FitTableModel::Launch).endsWith(QStringLiteral(" --quantization fp8")));
    QCOMPARE(v->model()->rows()[0].plan.per_gpu.available_kv_bytes, Bytes{57'730'893'673});
    // The checkpoint's weights: tp 8 first of theirs, then two tp-4 replicas.
    int tp8 = -1;
    for (int i = v->model()->rowCount() - 1; i >= 0; --i)
      if (!v->model()->rows()[static_cast<std::size_t>(i)].weight_dtype &&
          cell(*v, i, FitTableModel::Layout) == QStringLiteral("8 x 1 x 1"))
        tp8 = i;
    QVERIFY(tp8 > 0);
    QCOMPARE(v->model()->rows()[static_cast<std::size_t>(tp8)].plan.per_gpu.available_kv_bytes,
             Bytes{58'256'560'537});
    QCOMPARE(cell(*v, tp8, FitTableModel::WeightDtype), QStringLiteral("bf16"));

    // The explorer starts at tp 1 on one GPU; a click on the first row loads 4 GPUs at tp 4, fp8 weights.
    QCOMPARE(child<QSpinBox>(w, "tp")->value(), 1);
    QTableView* table = child<QTableView>(w, "fit_table");
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {},
                      table->visualRect(v->model()->index(0, 0)).center());
    QCOMPARE(child<QSpinBox>(w, "tp")->value(), 4);
    QCOMPARE(child<QSpinBox>(w, "pp")->value(), 1);
    QCOMPARE(child<QSpinBox>(w, "gpus")->value(), 4);
    QCOMPARE(child<QComboBox>(w, "gpu")->currentData().toString(), QStringLiteral("h100-sxm"));
    QCOMPARE(child<QComboBox>(w, "k_dtype")->currentText(), QStringLiteral("bf16"));
    QVERIFY(c.plan().fits);
    QCOMPARE(c.plan().per_gpu.weights_bytes, Bytes{18'164'093'488});
    QCOMPARE(c.plan().per_gpu.available_kv_bytes, Bytes{57'730'893'673});
    // KV per GPU: 16 x 32,768 x 80 x 2 heads x 128 x 2 x 2 B = 42,949,672,960 B.
    QCOMPARE(c.plan().per_gpu.kv_bytes_total, Bytes{42'949'672'960});
    QVERIFY(w.shownError().isEmpty());
  }

  // With fit's default KV dtypes the H100 also tries fp8_e4m3: 16 x 32,768 x 80 x 2 heads x 128 x 2 x 1 B =
  // 21,474,836,480 B at tp 4, within its 40,618,133,913 B, so 4 GPUs at tp 4 rank first. tp 2 holds
  // 76,968,728,985 - 70,553,706,496 - 1,073,741,824 = 5,341,280,665 B: one 2,684,354,560 B user per
  // replica, 32 GPUs. Enter on the row loads it.
  void fp8RowLoadsByEnter() {
    Controller c;
    MainWindow w(&c);
    w.show();
    QVERIFY(QTest::qWaitForWindowActive(&w));
    pick_preset(w, QStringLiteral("llama-3.1-70b"));
    kvplan::gui::test::type_into(child<QAbstractSpinBox>(w, "context"), QStringLiteral("32768"));
    kvplan::gui::test::type_into(child<QAbstractSpinBox>(w, "users"), QStringLiteral("16"));
    w.showFitView();
    FitView* v = w.fitView();
    auto* gpu = child<QComboBox>(w, "fit_gpu");
    gpu->setCurrentIndex(gpu->findData(QStringLiteral("h100-sxm")));
    child<QSpinBox>(w, "fit_pp")->setValue(1);
    QVERIFY(settle(*v));
    QCOMPARE(cell(*v, 0, FitTableModel::Gpus), QStringLiteral("4"));
    QCOMPARE(cell(*v, 0, FitTableModel::Layout), QStringLiteral("4 x 1 x 1"));
    QCOMPARE(cell(*v, 0, FitTableModel::Kv), QStringLiteral("fp8_e4m3"));
    QTableView* table = child<QTableView>(w, "fit_table");
    table->setFocus();
    table->setCurrentIndex(v->model()->index(0, 0));
    QTest::keyClick(table, Qt::Key_Return);
    QCOMPARE(child<QSpinBox>(w, "tp")->value(), 4);
    QCOMPARE(child<QSpinBox>(w, "gpus")->value(), 4);
    QCOMPARE(child<QComboBox>(w, "k_dtype")->currentText(), QStringLiteral("fp8_e4m3"));
    QCOMPARE(child<QComboBox>(w, "v_dtype")->currentText(), QStringLiteral("fp8_e4m3"));
    QCOMPARE(c.plan().per_gpu.kv_bytes_total, Bytes{21'474'836'480});
  }

  // The search over every preset runs in a worker: the call returns at once and the window keeps
  // answering; a workload change during a search is searched again after it, not lost.
  void searchRunsOffTheGuiThread() {
    Controller c;
    MainWindow w(&c);
    w.show();
    QVERIFY(QTest::qWaitForWindowActive(&w));
    pick_preset(w, QStringLiteral("llama-3.1-70b"));
    QElapsedTimer t;
    t.start();
    w.showFitView();  // every GPU preset, up to 64 GPUs, every tp, pp and default KV dtype
    const qint64 returned_ms = t.elapsed();
    FitView* v = w.fitView();
    QVERIFY(v->busy());
    kvplan::gui::test::type_into(child<QAbstractSpinBox>(w, "users"),
                                 QStringLiteral("3"));  // arrives during the search
    QVERIFY(settle(*v));
    qInfo("fit over every preset: show returned in %lld ms; last search %.1f ms in the worker",
          static_cast<long long>(returned_ms), v->outcome().seconds * 1e3);
    QVERIFY(!v->outcome().result.rows.empty());
    // The rows answer the last workload: 3 users.
    QCOMPARE(v->outcome().result.rows.front().plan.inputs.users, 3u);
  }

  // Nothing fits: Llama-3.1-405B's bf16 weights (about 756 GiB) on at most 4 L4s (20.2 GiB usable each, 24 GB
  // x 0.9). The view shows fit's note and the nearest layout, which a click still loads: the explorer then
  // says what it lacks.
  void nothingFitsShowsTheNearest() {
    Controller c;
    MainWindow w(&c);
    w.show();
    QVERIFY(QTest::qWaitForWindowActive(&w));
    pick_preset(w, QStringLiteral("llama-3.1-405b"));
    w.showFitView();
    FitView* v = w.fitView();
    auto* gpu = child<QComboBox>(w, "fit_gpu");
    gpu->setCurrentIndex(gpu->findData(QStringLiteral("l4")));
    child<QSpinBox>(w, "fit_max_gpus")->setValue(4);
    QVERIFY(settle(*v));
    QVERIFY(v->outcome().result.rows.empty());
    QVERIFY(v->outcome().result.nearest.has_value());
    QCOMPARE(v->model()->rowCount(), 1);
    const QString status = child<QLabel>(w, "fit_status")->text();
    QVERIFY2(status.contains(QStringLiteral("20.2 GiB usable")), qPrintable(status));
    QCOMPARE(cell(*v, 0, FitTableModel::MaxUsers), QStringLiteral("0"));
    QVERIFY(v->chooseRow(0));
    QCOMPARE(child<QComboBox>(w, "gpu")->currentData().toString(), QStringLiteral("l4"));
    QVERIFY(!c.plan().fits);
  }

  // A request fit refuses (tp 3 does not divide Llama-3.1-70B's 64 heads) is shown in the view's status
  // line; the table empties and the explorer keeps its state.
  void badChoiceIsShownAndStateKept() {
    Controller c;
    MainWindow w(&c);
    pick_preset(w, QStringLiteral("llama-3.1-70b"));
    w.show();
    w.showFitView();
    FitView* v = w.fitView();
    auto* gpu = child<QComboBox>(w, "fit_gpu");
    gpu->setCurrentIndex(gpu->findData(QStringLiteral("h100-sxm")));
    QVERIFY(settle(*v));
    const Scenario before = c.scenario();
    child<QSpinBox>(w, "fit_tp")->setValue(3);
    QVERIFY(settle(*v));
    QVERIFY(v->outcome().error.contains(QStringLiteral("tensor parallel (tp)")));
    QVERIFY(child<QLabel>(w, "fit_status")->text().contains(QStringLiteral("tensor parallel (tp)")));
    QCOMPARE(v->model()->rowCount(), 0);
    QVERIFY(c.scenario() == before);
    QVERIFY(!v->chooseRow(0));
  }
};

QTEST_MAIN(FitViewTest)
#include "test_fit.moc"
