// MainWindow's menus and actions (issue 27's split): File, Edit, View (the Fit dock) and Compare. The
// work is in the Controller, the panels and main_window_export.cpp; these only wire the actions.
#include <QAction>
#include <QDockWidget>
#include <QIcon>
#include <QKeySequence>
#include <QMenu>
#include <QMenuBar>
#include <QPixmap>
#include <QSettings>
#include <QSignalBlocker>
#include <QStatusBar>
#include <QUndoStack>

#include "kvplan/gui/baseline.hpp"
#include "kvplan/gui/charts.hpp"
#include "kvplan/gui/fit_view.hpp"
#include "kvplan/gui/main_window.hpp"
#include "kvplan/gui/recent_files.hpp"

namespace kvplan::gui {

namespace {
/// The platform's keys for `standard`, then `extra` unless the platform has it already: a key given
/// twice is an ambiguous shortcut that Qt never fires (KDE's and GNOME's Redo is Ctrl+Shift+Z already;
/// some themes have no Quit key at all).
QList<QKeySequence> keys_with(QKeySequence::StandardKey standard, const QKeySequence& extra) {
  QList<QKeySequence> keys;
  for (const QKeySequence& k : QKeySequence::keyBindings(standard))
    if (!k.isEmpty() && !keys.contains(k)) keys << k;
  if (!keys.contains(extra)) keys << extra;
  return keys;
}
}  // namespace

void MainWindow::buildMenus() {
  QMenu* file = menuBar()->addMenu(QStringLiteral("&File"));
  QAction* open = file->addAction(QStringLiteral("&Open (preset, config.json or scenario)..."), this,
                                  &MainWindow::openDialog);
  open->setShortcut(QKeySequence::Open);
  file->addAction(QStringLiteral("Open &model (GGUF file or config.json)..."), this,
                  &MainWindow::openModelDialog);
  file->addAction(QStringLiteral("Open model &folder..."), this, &MainWindow::openFolderDialog);
  QMenu* recent = file->addMenu(QStringLiteral("Open &Recent"));
  recent->setObjectName(QStringLiteral("recent_menu"));
  recent_ = new RecentFiles(recent, this);
  connect(recent_, &RecentFiles::chosen, this, &MainWindow::openPath);
  connect(recent_, &RecentFiles::missing, this, [this](const QString& path) {
    showError(QStringLiteral("Open Recent: %1 is no longer there; it was taken off the list.").arg(path));
  });
  QAction* save = file->addAction(QStringLiteral("&Save scenario..."), this, &MainWindow::saveDialog);
  save->setShortcut(QKeySequence::Save);
  file->addSeparator();
  file->addAction(QStringLiteral("Load measured prefill points..."), this, &MainWindow::measuredDialog);
  file->addAction(QStringLiteral("Clear measured prefill points"), controller_,
                  &Controller::clearMeasuredPrefill);
  file->addSeparator();
  QMenu* png = file->addMenu(QStringLiteral("&Export chart (PNG, SVG)"));
  for (int c = 0; c < ChartPanel::kCount; ++c)
    png->addAction(ChartPanel::chartName(static_cast<ChartPanel::Chart>(c)) + QStringLiteral("..."), this,
                   [this, c] { exportDialog(c); })
        ->setObjectName(QStringLiteral("export_chart_%1").arg(c));
  file->addAction(QStringLiteral("Export re&port (HTML, PDF)..."), this, &MainWindow::exportReportDialog)
      ->setObjectName(QStringLiteral("export_report"));
  file->addSeparator();
  QAction* quit = file->addAction(QStringLiteral("&Quit"), this, &QWidget::close);
  quit->setShortcuts(keys_with(QKeySequence::Quit, QKeySequence(QStringLiteral("Ctrl+Q"))));

  QMenu* edit = menuBar()->addMenu(QStringLiteral("&Edit"));
  QAction* undo = controller_->undoStack()->createUndoAction(this, QStringLiteral("&Undo"));
  undo->setShortcuts(keys_with(QKeySequence::Undo, QKeySequence(QStringLiteral("Ctrl+Z"))));
  QAction* redo = controller_->undoStack()->createRedoAction(this, QStringLiteral("&Redo"));
  redo->setShortcuts(keys_with(QKeySequence::Redo, QKeySequence(QStringLiteral("Ctrl+Shift+Z"))));
  edit->addAction(undo);
  edit->addAction(redo);
  edit->addSeparator();
  QAction* copy = edit->addAction(QStringLiteral("&Copy as command"), this, &MainWindow::copyCommand);
  copy->setShortcut(QKeySequence(QStringLiteral("Ctrl+Shift+C")));
  buildCompareMenu();
}

// The Fit view: a dock under the explorer, hidden until asked for; a chosen row loads as one action.
void MainWindow::buildFitDock() {
  fit_ = new FitView(controller_);
  fit_dock_ = new QDockWidget(QStringLiteral("Fit: smallest deployments for this model and workload"), this);
  fit_dock_->setObjectName(QStringLiteral("fit_dock"));
  fit_dock_->setWidget(fit_);
  addDockWidget(Qt::BottomDockWidgetArea, fit_dock_);
  fit_dock_->hide();
  QAction* show = fit_dock_->toggleViewAction();
  show->setText(QStringLiteral("&Fit: search deployments"));
  show->setShortcut(QKeySequence(QStringLiteral("Ctrl+Shift+F")));
  QMenu* view = menuBar()->addMenu(QStringLiteral("&View"));
  view->addAction(show);
  // Every byte figure (tables, memory bar, chart axes, report) in GB or GiB: core's format_bytes gives
  // both. Part of the scenario (saved with it, undone as an edit) and the next session's default.
  QAction* units = view->addAction(QStringLiteral("Sizes in &GB (10^9 B), not GiB (2^30 B)"));
  units->setObjectName(QStringLiteral("units_gb"));
  units->setCheckable(true);
  connect(units, &QAction::toggled, this, [this](bool gb) {
    const UnitSystem u = gb ? UnitSystem::si : UnitSystem::iec;
    if (u == controller_->units()) return;
    controller_->setUnits(u);
    if (remember_)
      QSettings().setValue(QStringLiteral("view/units"), gb ? QStringLiteral("GB") : QStringLiteral("GiB"));
  });
  const auto sync_units = [this, units] {
    const QSignalBlocker block(units);
    units->setChecked(controller_->units() == UnitSystem::si);
  };
  sync_units();
  connect(controller_, &Controller::inputsChanged, units, sync_units);
  connect(fit_, &FitView::deploymentChosen, this, &MainWindow::loadFitRow);
}

void MainWindow::buildCompareMenu() {
  QMenu* compare = menuBar()->addMenu(QStringLiteral("C&ompare"));
  QAction* pin = compare->addAction(QStringLiteral("&Pin as baseline"), this, &MainWindow::pinBaseline);
  pin->setObjectName(QStringLiteral("pin_baseline"));
  pin->setShortcut(QKeySequence(QStringLiteral("Ctrl+B")));
  pin->setToolTip(
      QStringLiteral("Keep this plan: every figure then shows its change against it, and the charts "
                     "draw it dotted"));
  // One entry per baseline, in its colour, to remove it alone (Scenario::baselines, oldest first).
  QMenu* remove = compare->addMenu(QStringLiteral("&Remove baseline"));
  remove->setObjectName(QStringLiteral("remove_baseline_menu"));
  QAction* clear =
      compare->addAction(QStringLiteral("&Clear all baselines"), controller_, &Controller::clearBaselines);
  clear->setObjectName(QStringLiteral("clear_baseline"));
  clear->setShortcut(QKeySequence(QStringLiteral("Ctrl+Shift+B")));
  const auto list = [this, remove, clear] {
    remove->clear();
    for (int i = 0; i < baseline_->count(); ++i) {
      QPixmap swatch(12, 12);
      swatch.fill(baseline_color(i));
      QAction* one = remove->addAction(
          QIcon(swatch), QStringLiteral("%1: %2").arg(baseline_name(i), baseline_->summaryAt(i)));
      one->setObjectName(QStringLiteral("remove_baseline_%1").arg(i));
      connect(one, &QAction::triggered, controller_, [this, i] { controller_->removeBaseline(i); });
    }
    remove->setEnabled(baseline_->pinned());
    clear->setEnabled(baseline_->pinned());
  };
  list();
  connect(baseline_, &Baseline::changed, this, [this, list] {
    list();
    statusBar()->showMessage(baseline_->pinned()
                                 ? QStringLiteral("%1 baseline(s); the table compares with the latest: %2")
                                       .arg(baseline_->count())
                                       .arg(baseline_->summary())
                                 : QStringLiteral("Baselines cleared"),
                             8000);
  });
}

}  // namespace kvplan::gui
