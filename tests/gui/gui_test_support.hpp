#pragma once
// Shared helpers of the GUI tests that drive widgets: dropping a file, typing, the wheel, a window; the
// helpers without widgets (fixture folders, comparing plans) are logic_test_support.hpp's.
#include <QApplication>
#include <QDropEvent>
#include <QLineEdit>
#include <QMimeData>
#include <QPalette>
#include <QString>
#include <QStringList>
#include <QTest>
#include <QUrl>
#include <QWheelEvent>
#include <QWidget>

#include "kvplan/gui/charts.hpp"
#include "kvplan/gui/controller.hpp"
#include "kvplan/gui/main_window.hpp"
#include "kvplan/plan.hpp"
#include "logic_test_support.hpp"

namespace kvplan::gui::test {

/// Drops a local file or folder on `target`, as a file manager does: the drag is accepted, then dropped.
inline void drop(QWidget& target, const QString& path) {
  QMimeData mime;
  mime.setUrls({QUrl::fromLocalFile(path)});
  QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
  QApplication::sendEvent(&target, &enter);
  QVERIFY(enter.isAccepted());
  QDropEvent event(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
  QApplication::sendEvent(&target, &event);
}

/// Clicks into a box (a line edit, or a spin box's), selects what it holds (Ctrl+A), types `text` and
/// presses Enter, as a person does. The window must be active (QTest::qWaitForWindowActive).
inline void type_into(QWidget* box, const QString& text) {
  auto* edit = qobject_cast<QLineEdit*>(box);
  if (edit == nullptr) edit = box->findChild<QLineEdit*>();
  QVERIFY(edit != nullptr);
  QTest::mouseClick(edit, Qt::LeftButton, Qt::NoModifier, QPoint(edit->width() / 2, edit->height() / 2));
  QTRY_VERIFY(box->hasFocus());
  // Keys go to the focus widget: a spin box itself (its line edit's focus proxy), or the line edit.
  QTest::keyClick(box, Qt::Key_A, Qt::ControlModifier);
  QTest::keyClicks(box, text);
  QTest::keyClick(box, Qt::Key_Return);
}

/// Notches of the mouse wheel (up: positive) over the middle of `w`, without clicking it.
inline void wheel(QWidget* w, int notches) {
  const QPointF pos(w->width() / 2.0, w->height() / 2.0);
  QWheelEvent e(pos, w->mapToGlobal(pos), QPoint(), QPoint(0, 120 * notches), Qt::NoButton, Qt::NoModifier,
                Qt::NoScrollPhase, false);
  QApplication::sendEvent(w, &e);
}

/// Types `text` into the preset search box (cleared first) and presses Enter, as a person does.
inline void type_and_enter(MainWindow& w, const QString& text) {
  auto* search = w.findChild<QLineEdit*>(QStringLiteral("search"));
  QVERIFY(search != nullptr);
  search->clear();
  QTest::keyClicks(search, text);
  QTest::keyClick(search, Qt::Key_Return);
}

/// Waits until the charts show the data last displayed: ChartPanel refreshes them one per event-loop
/// turn after an input, so a test that reads a chart right after an input waits for that chain here.
/// Every chart on screen must get current through the event loop; charts off screen (which refresh when
/// shown) are then drawn at once.
inline void settle_charts(MainWindow& w) {
  ChartPanel* charts = w.charts();
  const auto visible_pending = [charts] {
    for (int c = 0; c < ChartPanel::kCount; ++c) {
      const auto chart = static_cast<ChartPanel::Chart>(c);
      if (charts->refreshPending(chart) && charts->onScreen(chart)) return true;
    }
    return false;
  };
  QTRY_VERIFY(!visible_pending());
  charts->refreshNow();
  QVERIFY(!charts->refreshPending());
  QCoreApplication::processEvents();  // the layout and paint the last refresh posted
}

/// `light` with dark window and base colours and white text: a dark theme.
inline QPalette dark_palette(const QPalette& light) {
  QPalette dark = light;
  dark.setColor(QPalette::Window, QColor(0x20, 0x20, 0x20));
  dark.setColor(QPalette::WindowText, Qt::white);
  dark.setColor(QPalette::Base, QColor(0x18, 0x18, 0x18));
  dark.setColor(QPalette::Text, Qt::white);
  return dark;
}

/// The text a spin box (or CountBox) shows, as a person reads it.
inline QString shown_text(QWidget* box) { return box->findChild<QLineEdit*>()->text(); }

/// A main window on its own controller, shown and activated (then QTest::qWaitForWindowActive(&w)).
struct Window {
  Controller c;
  MainWindow w{&c};
  Window() {
    w.show();
    w.activateWindow();
  }
  /// The child widget of type T with this object name; nullptr when none.
  template <typename T>
  T* find(const char* name) {
    return w.findChild<T*>(QLatin1String(name));
  }
};

}  // namespace kvplan::gui::test
