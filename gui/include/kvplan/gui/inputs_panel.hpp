#pragma once
/// @file inputs_panel.hpp
/// The inputs panel of the main window (issue 27's split, after heaptrack_gui_private): the model
/// (search, preset list, open), the architecture's layer groups, the element types, the deployment and
/// the engine's options. It writes each edit to the Controller and shows the controller's inputs again
/// on Controller::inputsChanged; choices that need the window (unsaved edits, the Hub) go out as signals.

#include <QScrollArea>
#include <QString>
#include <cstdint>
#include <optional>

#include "kvplan/gui/controller.hpp"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
class QGroupBox;
class QLabel;
class QLineEdit;
class QListView;
class QPushButton;
class QSlider;
class QSortFilterProxyModel;
class QSpinBox;
class QTableView;

namespace kvplan::gui {

class CountBox;
class EngineRows;
class LayerGroupsModel;
class PresetListModel;

/// A spin box named `object_name` over [lo, hi], with thousands separators.
QSpinBox* number_spin_box(const char* object_name, int lo, int hi);
/// `v` as an int for a spin box: INT_MAX when it is larger.
[[nodiscard]] int clamp_to_int(std::uint64_t v);

/// The inputs, in a scroll area named "inputs_scroll". Widgets carry object names ("context", "users",
/// "tp" ...) so tests can find them.
class InputsPanel : public QScrollArea {
  Q_OBJECT

 public:
  /// Binds to `controller`, which must outlive the panel.
  explicit InputsPanel(Controller* controller, QWidget* parent = nullptr);

  /// Shows the controller's inputs (called on Controller::inputsChanged).
  void sync();
  /// The search box's text, trimmed.
  [[nodiscard]] QString searchText() const;
  /// How many presets the search box lists.
  [[nodiscard]] int presetMatches() const;
  /// While a repo id is fetched: `busy` under the search box and the Load button disabled; an empty
  /// `busy` ends it.
  void setFetchStatus(const QString& busy);

 Q_SIGNALS:
  /// A preset was clicked or activated, or Enter loaded the one listed: the window decides (unsaved edits).
  void presetPicked(const QString& id);
  /// Enter in the search box, or Load.
  void searchSubmitted();
  /// "Open preset, config.json or scenario...".
  void openRequested();

 private:
  QWidget* build();
  /// The groups of the panel, top to bottom, each with its widgets' connections to the controller.
  QGroupBox* buildModelBox();
  QGroupBox* buildArchitectureBox();
  QGroupBox* buildDtypeBox();
  QGroupBox* buildDeploymentBox();
  /// The engine options group in an area kept as tall as its tallest rows (keepEngineRowsHeight).
  QWidget* buildEngineBox();
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

  Controller* controller_;
  LayerGroupsModel* groups_ = nullptr;
  PresetListModel* presets_ = nullptr;
  QSortFilterProxyModel* preset_filter_ = nullptr;
  QLabel* model_title_ = nullptr;    ///< the model's name, bold (plain text: no rich-text layout)
  QLabel* model_source_ = nullptr;   ///< where it was loaded from, small
  QGroupBox* engine_box_ = nullptr;  ///< "Engine options"
  QWidget* engine_area_ = nullptr;   ///< the engine box and room below it (keepEngineRowsHeight)
  QLineEdit* search_ = nullptr;
  QPushButton* load_ = nullptr;   ///< "Load" beside the search box; disabled while fetching
  QLabel* hub_status_ = nullptr;  ///< "Fetching ORG/NAME ..." while a fetch runs
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
  QComboBox* kv_dtype_ = nullptr;        ///< one type for K and V
  QCheckBox* split_kv_ = nullptr;        ///< "K and V apart": shows the K and V rows
  QFormLayout* dtype_form_ = nullptr;    ///< the element types group
  QString kv_dtypes_key_;                ///< the engine and model the dtype items were checked for
  std::optional<UnitSystem> gpu_units_;  ///< the unit the GPU presets' memory is written in
};

}  // namespace kvplan::gui
