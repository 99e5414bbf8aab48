#pragma once
/// @file main_window.hpp
/// The main window: widgets bound to a Controller. It wires signals both ways and shows what the
/// controller holds; every figure comes from the controller's Plan and Figures.

#include <QMainWindow>
#include <QSize>
#include <optional>

#include "kvplan/gui/controller.hpp"

class QDockWidget;
class QLabel;

namespace kvplan::gui {

class Baseline;
class ChartPanel;
class FitView;
class HubLoader;
struct HubOutcome;
class InputsPanel;
class RecentFiles;
class ResultsModel;
class ResultsPanel;

/// The kvplan-gui window. Inputs on the left (model, architecture, dtypes, deployment), results and
/// the equivalent command at the top right, the four charts below them. File > Open and drag and drop
/// take a scenario, a preset file or a config.json. Widgets carry object names ("context", "users",
/// "tp" ...) so tests can find them.
class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  /// Binds to `controller`, which must outlive the window.
  explicit MainWindow(Controller* controller, QWidget* parent = nullptr);
  ~MainWindow() override;

  [[nodiscard]] ChartPanel* charts() const { return charts_; }
  [[nodiscard]] ResultsModel* results() const { return results_; }
  /// The message shown in the window's error banner (empty when hidden).
  [[nodiscard]] QString shownError() const;

  /// Puts Controller::commandLine() on the clipboard, or shows why it cannot.
  void copyCommand();
  /// Writes one chart at `size` pixels as `format` ("PNG", "SVG"; empty: SVG when the path ends in
  /// ".svg", else PNG) with export_chart; errors go to the banner. File > Export chart asks these in
  /// an ExportDialog.
  bool exportChart(int chart, const QString& path, QSize size = QSize(1600, 900),
                   const QString& format = QString());
  /// Writes the report (report.hpp) as `format` ("HTML", "PDF"; empty: PDF when the path ends in
  /// ".pdf", else HTML), its charts at `chart_size`; errors go to the banner. File > Export report
  /// asks these in an ExportDialog.
  bool exportReport(const QString& path, QSize chart_size = QSize(1600, 900),
                    const QString& format = QString());
  /// The pinned plan the results and charts are compared with (Compare > Pin as baseline).
  [[nodiscard]] Baseline* baseline() const { return baseline_; }
  /// Pins the current figures as the baseline.
  void pinBaseline();
  /// Restores the size, place and splitter of the last session (QSettings), and saves them on close
  /// from now on. Without this call (tests, --screenshot) the window opens within the screen, at most
  /// 1600 x 1000, and saves nothing.
  void restoreSettings();

  /// File > Open Recent's list (RecentFiles).
  [[nodiscard]] RecentFiles* recentFiles() const { return recent_; }
  /// Opens a file as File > Open does (asking first about unsaved edits, see mayDropEdits) and, once it
  /// loads, lists it under File > Open Recent. A scenario whose model is a Hugging Face repo id that may
  /// have to come from the Hub (Controller::prepareScenario) is checked now and its repo fetched in a
  /// worker (HubLoader), the window usable meanwhile: it loads when the model arrives, unless the inputs
  /// changed in between (then it is not loaded and the banner says so: opening it again replaces them); a
  /// failed fetch keeps the state and shows the error, naming the repo id. True when the file loaded or
  /// its fetch started.
  bool openPath(const QString& path);

  /// The Fit view (a dock, hidden until View > Fit shows it) and showing it.
  [[nodiscard]] FitView* fitView() const { return fit_; }
  void showFitView();
  /// Loads a deployment the Fit view chose into the explorer (Controller::applyScenario).
  void loadFitRow(const Scenario& scenario);

 protected:
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;
  void closeEvent(QCloseEvent* event) override;

 private:
  void buildMenus();
  void buildFitDock();
  QWidget* buildStreamingRow();
  /// Before the model is replaced: with unsaved edits that the change would lose, asks Save / Discard /
  /// Cancel, as quitting does. The edits lost: for a file opened (a scenario replaces everything), those
  /// made since the last model was loaded (Controller::loadedAt); for a preset, the architecture edits and
  /// the weights override (the deployment stays). False when the user cancels or the save does not happen.
  bool mayDropEdits(bool whole_scenario);
  /// Save / Discard / Cancel about unsaved changes; true when the user discards them or they are saved.
  bool askToSave();
  void showPlan();
  void showError(const QString& message);
  void openDialog();
  void openModelDialog();
  void openFolderDialog();
  /// Enter in the search box: a Hugging Face repo id, or text no preset matches, goes to the resolver;
  /// with several presets listed, none loads and the status bar says how many match.
  void searchEntered();
  /// A repo id's fetch ended (HubLoader::finished): its model loads, or its error shows and the model
  /// stays; a model chosen during the fetch stays too.
  void hubFinished(const HubOutcome& outcome);
  /// The fetch of a scenario's repo ended (see openPath).
  void scenarioFetched(const PreparedScenario& file, const HubOutcome& outcome);
  /// Starts resolving `repo` in the worker and shows it: the Load button disabled, `busy` under the
  /// search box and in the status bar.
  void startFetch(const QString& repo, const QString& busy);
  void saveDialog();
  void measuredDialog();
  void exportDialog(int chart);
  void exportReportDialog();
  /// The Compare menu (pin, clear baseline); in main_window_menus.cpp with the other menus.
  void buildCompareMenu();

  Controller* controller_;
  ResultsModel* results_ = nullptr;
  InputsPanel* inputs_ = nullptr;          ///< the inputs, left (inputs_panel.hpp)
  ResultsPanel* results_panel_ = nullptr;  ///< the results, top right (results_panel.hpp)
  ChartPanel* charts_ = nullptr;           ///< the charts, below the results (charts.hpp)
  Baseline* baseline_ = nullptr;
  FitView* fit_ = nullptr;
  QDockWidget* fit_dock_ = nullptr;

  QLabel* error_banner_ = nullptr;
  QLabel* notice_ = nullptr;  ///< Controller::notice(): what an action changed besides its own
  RecentFiles* recent_ = nullptr;
  HubLoader* hub_ = nullptr;                  ///< repo ids resolved off the GUI thread
  ModelSource hub_source_;                    ///< the model source when the fetch started
  std::optional<PreparedScenario> hub_file_;  ///< the scenario file whose repo is being fetched
  Scenario hub_scenario_;                     ///< the scenario when hub_file_'s fetch started
  bool remember_ = false;                     ///< restoreSettings() was called: save the geometry on close
};

}  // namespace kvplan::gui
