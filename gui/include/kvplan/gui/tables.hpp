#pragma once
/// @file tables.hpp
/// Item models for the window's tables: the results of the current plan, the layer groups of the
/// architecture (editable through the controller), and the searchable list of model presets.
/// They format with kvplan/format.hpp and compute nothing.

#include <QAbstractListModel>
#include <QAbstractTableModel>
#include <QColor>
#include <QList>
#include <QPalette>
#include <optional>
#include <utility>

#include "kvplan/gui/baseline.hpp"
#include "kvplan/gui/controller.hpp"

namespace kvplan::gui {

/// "1.25 GiB (1,342,177,280 B)": the human figure in `units` (core's format_bytes; SI: "1.34 GB")
/// and the exact one, as the CLI prints them.
QString bytes_text(Bytes b, UnitSystem units = UnitSystem::iec);

/// An input size echoed exactly, in the unit it divides, the shortest such text ("80GiB", "40GB",
/// "81559MiB", "85520809985"), so that parse_bytes reads back the same bytes.
QString size_input_text(Bytes b);

/// The fill and text colours of a verdict (fits: green, does not: red): dark fills under light text for
/// a dark theme, pale fills under dark text for a light one.
std::pair<QColor, QColor> verdict_colors(bool good, bool dark_theme);
/// Whether `palette` is a dark theme's (its window colour is dark).
bool is_dark(const QPalette& palette);

/// Every figure of the plan, one row each: a label and its value (two columns), and with a pinned
/// baseline a third, "vs baseline" (change_text: "-50%"; its tooltip "-50%, was 125 GiB"). Rows are keyed by
/// the CLI's
/// --json names ("bytes_per_token", "per_gpu.kv_bytes_total", "fits", "max_users" ...). The plan's
/// warnings are not rows (the window shows them apart, so that the table keeps its height).
class ResultsModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  /// Role of the row's key (a QString) in data().
  static constexpr int KeyRole = Qt::UserRole;

  explicit ResultsModel(const Controller* controller, QObject* parent = nullptr);

  [[nodiscard]] int rowCount(const QModelIndex& parent = {}) const override;
  [[nodiscard]] int columnCount(const QModelIndex& parent = {}) const override;
  [[nodiscard]] QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  [[nodiscard]] QVariant headerData(int section, Qt::Orientation o,
                                    int role = Qt::DisplayRole) const override;

  /// The value shown for a key; empty when the plan has no such row.
  [[nodiscard]] QString value(const QString& key) const;
  /// The label shown for a key.
  [[nodiscard]] QString label(const QString& key) const;
  /// The "vs baseline" text shown for a key ("-50%"); empty without a baseline or such a row.
  [[nodiscard]] QString change(const QString& key) const;

  /// Compares every row with `baseline`'s plan while one is pinned (the third column); follows its
  /// changed() signal. `baseline` must outlive the model.
  void setBaseline(const Baseline* baseline);

 private:
  struct Row {
    QString key, label, value;
    std::optional<bool> good;  ///< colours the row: green when true, red when false
    Quantity quantity;         ///< the exact figure behind `value`
    QString change;            ///< against the baseline: "-50%" (change_text)
    QString change_detail;     ///< the same with the baseline's figure: "-50%, was 8.00 GiB" (tooltip)
  };
  /// The rows of any plan (the current one, or the baseline's to compare with), byte figures in `units`.
  static QList<Row> rowsOf(const Plan& p, UnitSystem units = UnitSystem::iec);
  /// Whether the row `key` holds a figure whose meaning is its engine's (the reserve, the requested memory,
  /// the budget's parts, the engine's own rows): against a baseline of another engine it is "other
  /// engine", not a change.
  static bool engineScoped(const QString& key);
  void refresh();

  const Controller* controller_;
  const Baseline* baseline_ = nullptr;
  QList<Row> rows_;
  int columns_ = 2;
};

/// The model's layer groups, one row each, editable: count, scheme, heads, KV heads, head dims,
/// window or chunk, MLA ranks. Edits go to Controller::setGroupValue / setGroupKind; cells that do not
/// apply to a group's scheme are empty and read-only. The last column is the plan's bytes per token
/// per layer.
class LayerGroupsModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column {
    Layers,
    Count,
    Scheme,
    Heads,
    KvHeads,
    HeadDimK,
    HeadDimV,
    Window,
    KvLoraRank,
    RopeDim,
    BytesPerToken,
    ColumnCount
  };

  explicit LayerGroupsModel(Controller* controller, QObject* parent = nullptr);

  [[nodiscard]] int rowCount(const QModelIndex& parent = {}) const override;
  [[nodiscard]] int columnCount(const QModelIndex& parent = {}) const override;
  [[nodiscard]] QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  [[nodiscard]] QVariant headerData(int section, Qt::Orientation o,
                                    int role = Qt::DisplayRole) const override;
  [[nodiscard]] Qt::ItemFlags flags(const QModelIndex& index) const override;
  /// Scheme: "full", "sliding", "chunked" or "mla"; numbers: a positive integer. False when the
  /// controller rejects the edit (it says why through errorOccurred).
  bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;

  /// The schemes a group can be switched to, as the Scheme column edits them.
  [[nodiscard]] static QStringList schemes();

 private:
  Controller* controller_;
  std::vector<LayerGroup> shown_layers_;  ///< what the view shows, to skip updates that change nothing
  std::vector<Bytes> shown_bytes_;
};

/// The model presets for a searchable list: display "Name (id)", the id in IdRole, and every name a
/// preset answers to (id, name, Hugging Face repo, aliases) in SearchRole for a filter proxy.
class PresetListModel : public QAbstractListModel {
  Q_OBJECT

 public:
  static constexpr int IdRole = Qt::UserRole;
  static constexpr int SearchRole = Qt::UserRole + 1;

  explicit PresetListModel(const std::vector<presets::ModelPreset>& presets, QObject* parent = nullptr);

  [[nodiscard]] int rowCount(const QModelIndex& parent = {}) const override;
  [[nodiscard]] QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  /// Row of a preset id, -1 when absent.
  [[nodiscard]] int rowOf(const QString& id) const;

 private:
  std::vector<presets::ModelPreset> presets_;
};

}  // namespace kvplan::gui
