#pragma once
/// @file main_window.hpp
/// The main window: widgets bound to a Controller. It wires signals both ways and shows what the
/// controller holds; every figure comes from the controller's Plan and Figures.

#include <QMainWindow>
#include <QSize>
#include <optional>

#include "kvplan/gui/controller.hpp"

class QCheckBox;
class QComboBox;
class QFormLayout;
class QDockWidget;
class QDoubleSpinBox;
class QGroupBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QListView;
class QPlainTextEdit;
class QSlider;
class QSortFilterProxyModel;
class QSpinBox;
class QTableView;

namespace kvplan::gui {

class Baseline;
class ChartPanel;
class FitView;
class HubLoader;
struct HubOutcome;
class CountBox;
class EngineRows;
class LayerGroupsModel;
class PresetListModel;
class RecentFiles;
class ResultsModel;

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
  QWidget* buildInputs();
  QWidget* buildResults();
  void buildMenus();
  void buildFitDock();
  QWidget* buildStreamingRow();
  void syncInputs();
  /// Before the model is replaced: with unsaved edits that the change would lose, asks Save / Discard /
  /// Cancel, as quitting does. The edits lost: for a file opened (a scenario replaces everything), those
  /// made since the last model was loaded (Controller::loadedAt); for a preset, the architecture edits and
  /// the weights override (the deployment stays). False when the user cancels or the save does not happen.
  bool mayDropEdits(bool whole_scenario);
  /// Save / Discard / Cancel about unsaved changes; true when the user discards them or they are saved.
  bool askToSave();
  /// The engine options group: rows for the current engine's options only, showing `in`.
  void syncEngineOptions(const PlanInputs& in);
  /// Shows the rows of engine `o.engine` at `o.version` (the version row, the table's rows, fp8_ds_mla).
  void showEngineRows(const EngineOptions& o);
  /// Keeps the engine options area at least as tall as the group has been, starting with its tallest
  /// over every engine and version (`every_engine`): an engine switch then changes rows inside the area
  /// without resizing the inputs panel (a repaint of all of it and of its scroll bars) or its scroll range.
  void keepEngineRowsHeight(bool every_engine);
  /// The engine options as the widgets show them, for the current engine.
  [[nodiscard]] EngineOptions engineOptionsShown() const;
  /// The KV dtype controls: one type, or K and V apart; types the engine has no cache for disabled.
  void syncKvDtypes(const PlanInputs& in);
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
  /// The Compare menu (pin, clear baseline); in main_window_export.cpp with the export actions.
  void buildCompareMenu();

  Controller* controller_;
  ResultsModel* results_ = nullptr;
  LayerGroupsModel* groups_ = nullptr;
  PresetListModel* presets_ = nullptr;
  QSortFilterProxyModel* preset_filter_ = nullptr;
  ChartPanel* charts_ = nullptr;
  Baseline* baseline_ = nullptr;
  FitView* fit_ = nullptr;
  QDockWidget* fit_dock_ = nullptr;

  QLabel* error_banner_ = nullptr;
  QLabel* fits_banner_ = nullptr;    ///< "FITS" / "DOES NOT FIT", coloured
  QLabel* limit_ = nullptr;          ///< the plan's limit, in words
  QLabel* warnings_ = nullptr;       ///< the plan's warnings
  QLabel* model_title_ = nullptr;    ///< the model's name, bold (plain text: no rich-text layout)
  QLabel* model_source_ = nullptr;   ///< where it was loaded from, small
  QGroupBox* engine_box_ = nullptr;  ///< "Engine options"
  QWidget* engine_area_ = nullptr;   ///< the engine box and room below it (keepEngineRowsHeight)
  QLabel* command_ = nullptr;
  QTableView* results_view_ = nullptr;
  QLabel* measured_label_ = nullptr;
  QLineEdit* search_ = nullptr;
  QListView* preset_list_ = nullptr;
  QTableView* groups_view_ = nullptr;
  QComboBox* k_dtype_ = nullptr;
  QComboBox* v_dtype_ = nullptr;
  QComboBox* weight_dtype_ = nullptr;
  QComboBox* gpu_ = nullptr;
  QLineEdit* gpu_memory_ = nullptr;
  QSpinBox* gpus_ = nullptr;
  QSpinBox* tp_ = nullptr;
  QSpinBox* pp_ = nullptr;
  QDoubleSpinBox* util_ = nullptr;
  QLineEdit* reserve_ = nullptr;
  QLineEdit* weights_ = nullptr;
  QComboBox* engine_ = nullptr;
  QFormLayout* engine_form_ = nullptr;
  Engine engine_shown_ = Engine::ideal;  ///< the engine whose options the group shows
  QComboBox* engine_version_ = nullptr;  ///< data: the version ("" for the default)
  EngineRows* engine_rows_ = nullptr;    ///< a row per record of core's engine option table
  QCheckBox* fp8_ds_mla_ = nullptr;      ///< vLLM's fp8_ds_mla cache dtype (a dtype, not a table option)
  QLineEdit* kv_memory_ = nullptr;
  QSlider* context_slider_ = nullptr;
  CountBox* context_ = nullptr;
  CountBox* users_ = nullptr;
  QComboBox* kv_dtype_ = nullptr;         ///< one type for K and V
  QCheckBox* split_kv_ = nullptr;         ///< "K and V apart": shows the K and V rows
  QFormLayout* dtype_form_ = nullptr;     ///< the element types group
  QString kv_dtypes_key_;                 ///< the engine and model the dtype items were checked for
  QLabel* notice_ = nullptr;              ///< Controller::notice(): what an action changed besides its own
  QPlainTextEdit* engine_log_ = nullptr;  ///< the engine's own log lines (Plan::engine.log_lines)
  RecentFiles* recent_ = nullptr;
  HubLoader* hub_ = nullptr;                  ///< repo ids resolved off the GUI thread
  QPushButton* load_ = nullptr;               ///< "Load" beside the search box; disabled while fetching
  QLabel* hub_status_ = nullptr;              ///< "Fetching ORG/NAME ..." while a fetch runs
  ModelSource hub_source_;                    ///< the model source when the fetch started
  std::optional<PreparedScenario> hub_file_;  ///< the scenario file whose repo is being fetched
  Scenario hub_scenario_;                     ///< the scenario when hub_file_'s fetch started
  bool remember_ = false;                     ///< restoreSettings() was called: save the geometry on close
};

}  // namespace kvplan::gui
