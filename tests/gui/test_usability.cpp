// The window driven as a person drives it: keys typed into boxes, the mouse wheel over widgets, engines
// switched with the combo box. Each case is a way the GUI planned something other than what was asked
// (issue 16, "Inputs that silently change the plan"); every expected value is worked out from the
// inputs typed, not read back from the program.
#include <QAbstractSpinBox>
#include <QApplication>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLineEdit>
#include <QSlider>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QTest>
#include <QWheelEvent>

#include "gui_test_support.hpp"
#include "kvplan/format.hpp"
#include "kvplan/gui/controller.hpp"
#include "kvplan/gui/main_window.hpp"

using namespace kvplan;
using namespace kvplan::gui;

namespace {
/// One notch of the mouse wheel (up: positive) over the middle of `w`, without clicking it.
void wheel(QWidget* w, int notches) {
  const QPointF pos(w->width() / 2.0, w->height() / 2.0);
  QWheelEvent e(pos, w->mapToGlobal(pos), QPoint(), QPoint(0, 120 * notches), Qt::NoButton, Qt::NoModifier,
                Qt::NoScrollPhase, false);
  QApplication::sendEvent(w, &e);
}

QString shown_text(QWidget* box) { return box->findChild<QLineEdit*>()->text(); }

struct Window {
  Controller c;
  MainWindow w{&c};
  Window() {
    w.show();
    w.activateWindow();
  }
  template <typename T>
  T* find(const char* name) {
    return w.findChild<T*>(QLatin1String(name));
  }
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
    // Focused, the wheel does step the widget.
    auto* tp = win.find<QSpinBox>("tp");
    tp->setFocus(Qt::TabFocusReason);
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
};

QTEST_MAIN(UsabilityTest)
#include "test_usability.moc"
