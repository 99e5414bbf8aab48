#pragma once
/// @file fit_view.hpp
/// The Fit view: `kvplan fit` for the explorer's model and workload. It searches deployments (GPU,
/// GPU count, tp x pp x replicas, KV dtype) with kvplan::fit off the GUI thread, shows the ranked rows
/// as the CLI prints them, and offers a row to load into the explorer. It computes no figure itself.

#include <QAbstractTableModel>
#include <QFutureWatcher>
#include <QWidget>
#include <cstdint>
#include <optional>

#include "kvplan/fit.hpp"
#include "kvplan/gui/controller.hpp"

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QSpinBox;
class QTableView;

namespace kvplan::gui {

/// What the Fit view searches besides the explorer's model and workload.
struct FitChoices {
  /// KV dtypes tried: fit's default (bf16, plus fp8_e4m3 where the GPU has fp8; llama.cpp: f16, q8_0),
  /// or the explorer's K and V dtypes only.
  enum class Kv { fit_default, explorer };
  std::string gpu;              ///< a GPU preset id; empty: every preset
  std::uint64_t max_gpus = 64;  ///< GPUs in all, replicas included
  std::uint64_t tp = 0;         ///< 0: every size the model takes
  std::uint64_t pp = 0;         ///< 0: every stage count up to the budget
  Kv kv = Kv::fit_default;
  std::size_t top = 20;           ///< rows shown
  double price_per_gpu_hour = 0;  ///< price of one GPU for an hour (any currency); 0: no cost ranking
  double max_ttft_s = 0;          ///< keep rows whose TTFT is at most this (seconds); 0: no limit
  double max_tpot_s = 0;          ///< keep rows whose TPOT is at most this (seconds); 0: no limit
  bool operator==(const FitChoices&) const = default;
};

/// The fit request for the scenario's model (its weight dtype applied), context, users, engine rules,
/// utilisation, reserve and weights override, over `presets` (or the one preset `choices.gpu` names),
/// with the choices' price (core's fit then ranks by cost per million output tokens) and TTFT / TPOT
/// limits (core's fit keeps the rows within them).
/// The explorer's GPU, parallelism and KV memory override play no part: they are what fit searches.
/// Throws kvplan::Error("gpu", ...) when `choices.gpu` is no preset, or when there are none.
FitRequest fit_request(const Scenario& s, const FitChoices& choices, const std::vector<Gpu>& presets);

/// The scenario with a fit row's deployment: its GPU (preset), tp, pp and replicas, K and V dtypes and
/// weight dtype; the KV memory override is dropped, since the row was planned from the GPU's memory.
/// Everything else (model edits, context, users, engine, utilisation) stays.
Scenario with_fit_row(const Scenario& s, const FitRow& row);

/// The KV dtypes of a plan as the CLI's fit table shows them: "bf16", or "fp8_e4m3/bf16" when K and V
/// differ.
QString fit_kv_text(const KvDtypes& t);

/// Ranked fit rows as a table: the columns of `kvplan fit` (GPU, GPUs, tp x pp x dp, KV, weights dtype,
/// weights / KV / free per GPU, max users, max context, TPOT, tokens/s per user and per GPU, TTFT) and
/// the engine's launch line last.
class FitTableModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column {
    GpuId,
    Gpus,
    Layout,
    Kv,
    WeightDtype,
    WeightsPerGpu,
    KvPerGpu,
    FreePerGpu,
    MaxUsers,
    MaxContext,
    Tpot,
    TokensPerUser,
    TokensPerGpu,
    Ttft,
    Cost,  ///< cost per million output tokens at the view's price (core's FitRow::cost_per_million_tokens)
    Launch,
    kColumns
  };

  using QAbstractTableModel::QAbstractTableModel;

  /// Shows these rows (best first).
  void setRows(std::vector<FitRow> rows);
  [[nodiscard]] const std::vector<FitRow>& rows() const { return rows_; }
  /// The unit of the byte columns (View > GB units); repaints them when it changes.
  void setUnits(UnitSystem units);

  [[nodiscard]] int rowCount(const QModelIndex& parent = {}) const override;
  [[nodiscard]] int columnCount(const QModelIndex& parent = {}) const override;
  [[nodiscard]] QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  [[nodiscard]] QVariant headerData(int section, Qt::Orientation o,
                                    int role = Qt::DisplayRole) const override;

 private:
  std::vector<FitRow> rows_;
  UnitSystem units_ = UnitSystem::iec;
};

/// The lines `kvplan fit` prints under its table, each after a newline: the "*" of a max context past
/// the engine's context limit (context_limit's rule and what the engine does), the model's warnings and
/// the context's (context_warning). Empty when there is nothing to say.
QString fit_notes(const PlanInputs& in, const std::vector<FitRow>& rows);

/// What one search gave, or why it failed.
struct FitOutcome {
  FitResult result;
  QString error;         ///< kvplan::Error's message; empty when the search ran
  double seconds = 0;    ///< wall time of fit() in the worker thread
  std::uint64_t id = 0;  ///< which request it answers
};

/// The Fit view: search choices (GPU, most GPUs, tp, pp, KV dtypes), a status line and the ranked
/// table. It searches again when shown and whenever the explorer's model or workload or a choice
/// changes, in a worker thread (a search over every preset takes longer than a frame); requests that
/// arrive during a search are merged into one search after it. A click or Enter on a row emits
/// deploymentChosen with the explorer's scenario and that row's deployment. Errors stay in the view's
/// status line; no exception leaves it. Widgets carry object names ("fit_gpu", "fit_max_gpus", "fit_tp",
/// "fit_pp", "fit_kv", "fit_price", "fit_max_ttft", "fit_max_tpot_ms", "fit_status", "fit_table").
class FitView : public QWidget {
  Q_OBJECT

 public:
  /// Reads the scenario from `controller`, which must outlive the view.
  explicit FitView(const Controller* controller, QWidget* parent = nullptr);
  ~FitView() override;

  [[nodiscard]] FitChoices choices() const;
  [[nodiscard]] FitTableModel* model() const { return model_; }
  [[nodiscard]] QTableView* table() const { return table_; }
  /// A search is running or waiting.
  [[nodiscard]] bool busy() const;
  /// The last finished search (empty result before the first).
  [[nodiscard]] const FitOutcome& outcome() const { return outcome_; }

  /// Searches unless the shown rows already answer the current scenario and choices.
  void refresh();
  /// Emits deploymentChosen for row `row` of the table; false when there is no such row.
  bool chooseRow(int row);

 Q_SIGNALS:
  /// The user picked a row: the explorer's scenario with that deployment (with_fit_row).
  void deploymentChosen(const kvplan::gui::Scenario& scenario);
  /// A search finished and its rows (or error) are shown.
  void searched();

 protected:
  void showEvent(QShowEvent* event) override;

 private:
  /// What a search depends on: the scenario's inputs without what fit searches, and the choices.
  struct Key {
    PlanInputs inputs;
    FitChoices choices;
    bool operator==(const Key&) const = default;
  };
  [[nodiscard]] Key key() const;
  void start();
  void finished();

  const Controller* controller_;
  FitTableModel* model_ = nullptr;
  QComboBox* gpu_ = nullptr;
  QSpinBox* max_gpus_ = nullptr;
  QSpinBox* tp_ = nullptr;
  QSpinBox* pp_ = nullptr;
  QComboBox* kv_ = nullptr;
  QDoubleSpinBox* price_ = nullptr;
  QDoubleSpinBox* max_ttft_ = nullptr;
  QDoubleSpinBox* max_tpot_ = nullptr;
  QLabel* status_ = nullptr;
  QTableView* table_ = nullptr;
  QFutureWatcher<FitOutcome> watcher_;
  std::optional<Key> shown_;    ///< what the rows answer
  std::optional<Key> running_;  ///< what the running search answers
  bool pending_ = false;        ///< a request came during the search
  std::uint64_t next_id_ = 0;
  FitOutcome outcome_;
};

}  // namespace kvplan::gui
