#pragma once
/// @file controller.hpp
/// The GUI's logic: one QObject that holds the current scenario, asks core for every figure and
/// emits the result. Widgets call its actions and redraw on its signals; they compute nothing.

#include <QObject>
#include <QString>
#include <QStringList>
#include <QUndoStack>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "kvplan/gui/measured.hpp"
#include "kvplan/gui/scenario.hpp"
#include "kvplan/presets.hpp"
#include "kvplan/series.hpp"

namespace kvplan::gui {

/// An error as the window words it: a kvplan::Error's input key as the GUI's label for it ("tp" ->
/// "tensor parallel (tp)", kvplan/options.hpp), then the reason with each input it names by key worded
/// the same way ("use `pp` for a layer split" -> "use pipeline stages (pp) for a layer split",
/// kvplan::word_inputs); any other exception's own text.
QString error_text(const std::exception& e);

/// Shortest and longest context of the charts and the context slider (2^8 and 2^20 tokens).
inline constexpr std::uint64_t kMinChartContext = 256;
inline constexpr std::uint64_t kMaxChartContext = 1ULL << 20;
/// Points per doubling of context on the charts.
inline constexpr unsigned kChartPointsPerDoubling = 4;
/// Prompt length the prefill chart is relative to (1 = the cost of a 1,024-token prompt).
inline constexpr std::uint64_t kPrefillReferenceTokens = 1024;
/// StreamingLLM's cache on the KV chart by default: 4 attention sinks and 1,020 recent tokens, the
/// setting of Xiao et al. 2023 ("Efficient Streaming Language Models with Attention Sinks", table 1).
inline constexpr std::uint64_t kStreamingSinkTokens = 4;
inline constexpr std::uint64_t kStreamingRecentWindow = 1020;

/// Everything the window shows, computed by core from one scenario.
struct Figures {
  Plan plan;
  KvMemorySeries kv;  ///< KV per GPU against context: the model and its variants
  /// KV per GPU against kv.contexts with StreamingLLM's sinks + recent window on every full-attention
  /// layer (kvplan::with_attention_sinks, as `kvplan compare --sink-tokens --recent-window`); nullopt
  /// when the model has no full-attention layer to cap
  std::optional<KvCurve> streaming;
  UsersSeries users;                      ///< max users against context
  PrefillSeries prefill;                  ///< relative to kPrefillReferenceTokens
  MeasuredSet measured;                   ///< measured points loaded for the overlay (may be empty)
  std::vector<double> measured_relative;  ///< relative_measured(measured.points), same order
};

/// A number in one layer group, as the architecture table edits it.
enum class GroupField {
  count,
  heads,
  kv_heads,
  head_dim_k,
  head_dim_v,
  window,
  kv_lora_rank,
  qk_rope_head_dim
};

/// A scenario file read and checked but for its model, a Hugging Face repo id that presets::find_model may
/// have to fetch from the Hub (Controller::prepareScenario). `repo` empty: the file needs no fetch.
struct PreparedScenario {
  QString path;  ///< the file, as given
  QString repo;  ///< its /model/preset, a repo id; empty when the file needs no fetch
  std::shared_ptr<const nlohmann::json> json;  ///< the file's content, read once
};

/// Holds the inputs, calls kvplan::make_plan and the series functions, and emits the result.
/// Every action returns true when applied. A rejected action (a kvplan::Error from core or the
/// loaders) emits errorOccurred with the message and keeps the previous valid scenario and figures;
/// no exception leaves the controller.
class Controller : public QObject {
  Q_OBJECT

 public:
  /// Opens on `llama-3.1-8b` on one H100 SXM at 8,192 tokens and 8 users; when the presets cannot be
  /// read, on a small custom model and an 80 GiB custom GPU, with errorMessage() saying why.
  explicit Controller(QObject* parent = nullptr);

  /// The current (last valid) scenario, its inputs, its plan and every chart series.
  [[nodiscard]] const Scenario& scenario() const { return scenario_; }
  [[nodiscard]] const PlanInputs& inputs() const { return scenario_.inputs; }
  [[nodiscard]] const Plan& plan() const { return figures_.plan; }
  [[nodiscard]] const Figures& figures() const { return figures_; }
  /// The last rejected action's message; empty after an applied one.
  [[nodiscard]] const QString& errorMessage() const { return error_; }
  /// The model presets and GPU presets found at start-up (empty when the presets cannot be read).
  [[nodiscard]] const std::vector<presets::ModelPreset>& modelPresets() const { return model_presets_; }
  [[nodiscard]] const std::vector<Gpu>& gpuPresets() const { return gpu_presets_; }
  /// The engines core has rules for (kvplan::Engine), by name; "ideal" (the exact layout) first.
  [[nodiscard]] static QStringList engines();
  /// "Llama 3.1 70B", with " (edited)" once the architecture differs from the file or preset.
  [[nodiscard]] QString modelTitle() const;
  /// modelTitle() of scenario `s` (a baseline's).
  [[nodiscard]] static QString modelTitleOf(const Scenario& s);

  /// Pins the current scenario as a baseline (Scenario::baselines, its own baselines left out): an edit
  /// like any other, undoable and saved with the scenario. Refused past kMaxBaselines.
  bool pinBaseline();
  /// Removes baseline `index` (oldest first).
  bool removeBaseline(int index);
  /// Removes every baseline.
  bool clearBaselines();
  /// Each baseline's figures, in Scenario::baselines' order (planned when pinned or loaded).
  [[nodiscard]] const std::vector<Figures>& baselineFigures() const { return baseline_figures_; }
  /// Every applied change of the scenario, undoable (Edit > Undo): each step restores the scenario
  /// before it, figures recomputed. Clean when the scenario is as last loaded or saved.
  [[nodiscard]] QUndoStack* undoStack() const { return undo_; }
  /// The undo stack's index just after the last model or scenario was loaded (selectModel, openFile,
  /// openModelFile, loadScenario); 0 before any. The edits since then are what opening a file loses.
  [[nodiscard]] int loadedAt() const { return loaded_at_; }
  /// The scenario file last loaded or saved; empty before one is.
  [[nodiscard]] const QString& scenarioPath() const { return scenario_path_; }
  /// Path of the loaded measured prefill points; empty when none.
  [[nodiscard]] const QString& measuredPath() const { return measured_path_; }

  // The model.
  /// A preset by id, or a Hugging Face repo id ORG/NAME as the CLI resolves it (presets::find_model: a
  /// preset's repo, else the local Hub cache); drops the architecture edits and the weights override.
  bool selectModel(const QString& presetId);
  /// A model resolved elsewhere (a repo id fetched off the GUI thread: HubLoader), taken as selectModel
  /// takes a preset: the source is its id, the architecture edits and the weights override are dropped.
  bool applyModel(const ModelSpec& model);
  /// A scenario file (has "kvplan_scenario"), a kvplan preset file, a Hugging Face config.json, a GGUF
  /// file or a model folder. A scenario whose model is a Hugging Face repo id may fetch it from the Hub
  /// here, on the caller's thread (seconds): the window opens files through prepareScenario first.
  bool openFile(const QString& path);
  /// The first half of opening `path` when it is a scenario whose model may come from the Hub: its
  /// /model/preset is a Hugging Face repo id that is no preset id, and HF_HUB_OFFLINE is not set. Then
  /// the rest of the file is read and checked now (a stand-in for the model) and `out` holds the file and
  /// the repo id; the caller resolves the repo off its thread (HubLoader) and calls finishScenario. Any
  /// other file leaves out.repo empty (open it with openFile). False, rejected as openFile rejects it
  /// (errorOccurred, the state kept), when the scenario cannot be read.
  bool prepareScenario(const QString& path, PreparedScenario& out);
  /// The second half: loads the prepared scenario with `model` (presets::find_model's model of its repo
  /// id) as loadScenario loads a file; false, rejected, when it does not plan.
  bool finishScenario(const PreparedScenario& file, const ModelSpec& model);
  /// A kvplan preset file, a Hugging Face config.json, a GGUF file (header only) or a model folder (its
  /// config.json, exact weights from the safetensors headers beside it); kept by absolute path.
  bool openModelFile(const QString& path);
  /// One number of layer group `group` (0-based); a field the group's scheme lacks is refused.
  bool setGroupValue(int group, GroupField field, std::uint64_t value);
  /// full, sliding, chunked or mla; a switch fills what the new kind needs (MHA heads, a 4,096
  /// window, DeepSeek's 512 + 64 MLA ranks) and clears what it does not. Recurrent groups stay.
  bool setGroupKind(int group, AttentionKind kind);
  /// Splits a group of n >= 2 layers into n / 2 and n - n / 2, to give part of a model another scheme.
  bool splitGroup(int group);
  /// Back to the architecture as loaded.
  bool resetArchitecture();
  /// One element type for the K and V caches (the window's "KV cache dtype"; vLLM, SGLang and
  /// TensorRT-LLM take one type for both).
  bool setKvDtype(DType t);
  /// Whether the current engine, model and deployment plan with K and V caches of type `t`: false
  /// only when core refuses the type itself (the engine has no such cache).
  [[nodiscard]] bool kvDtypeAccepted(DType t) const;
  /// Element type of the K cache (and of MLA's latent) / of the V cache.
  bool setKDtype(DType t);
  bool setVDtype(DType t);
  /// Whether the scenario's engine (at its version and options) splits a layer's heads over GPUs:
  /// asked of core (a plan at tp 2 of a 32-head model; llama.cpp refuses --tp), not a rule kept here.
  [[nodiscard]] bool engineTakesTensorParallel() const;
  /// Whether the scenario's engine takes different K and V cache types: asked of core (a plan with a
  /// bf16 K and an fp16 V cache; vLLM, SGLang and TensorRT-LLM refuse --k-dtype apart from --v-dtype).
  [[nodiscard]] bool engineTakesTwoKvTypes() const;
  /// Every weight dtype of the model (linear layers, embeddings, experts), as the CLI's --weight-dtype.
  bool setWeightDtype(DType t);
  /// Back to the weight dtypes of the checkpoint as loaded (every part: linear layers, embeddings,
  /// experts), as the CLI plans without --weight-dtype.
  bool setWeightDtypeAsLoaded();
  /// Whether the weight dtypes are the checkpoint's (no --weight-dtype).
  [[nodiscard]] bool weightDtypeAsLoaded() const;
  /// What the checkpoint's weights are, in core's words (weight_dtype_label: "mxfp4 experts, bf16
  /// rest"), and what the engine serves an fp32 checkpoint as ("fp32, served as bf16").
  [[nodiscard]] QString checkpointWeightLabel() const;

  // The deployment.
  /// A GPU preset by id.
  bool selectGpu(const QString& presetId);
  /// A custom GPU with this memory (a size as the CLI takes it: "80GiB", "85520809984").
  bool setGpuMemory(const QString& size);
  /// GPUs in all: a multiple of tp x pp (the rest are data-parallel replicas).
  bool setGpuCount(std::uint64_t gpus);
  /// tp and pp keep the GPU count: replicas = GPUs / (tp x pp). GPUs fewer than one replica needs
  /// grow to one replica (said in notice()); a count that is no multiple of tp x pp is refused
  /// (Error "GPUs").
  bool setTensorParallel(std::uint64_t tp);
  bool setPipelineParallel(std::uint64_t pp);
  /// Share of GPU memory the engine uses, in (0, 1].
  bool setUtilization(double fraction);
  /// Runtime reserve per GPU, a size ("1GiB").
  bool setReserve(const QString& size);
  /// Whole-model weights: a size, or "auto" / empty for the architecture's.
  bool setWeights(const QString& sizeOrAuto);
  /// The engine whose allocation rules apply (a kvplan::Engine name), with the options it had when it
  /// was last left (its defaults the first time, or when it is the current engine already).
  /// What the engine cannot take is mapped, and said in notice(): a KV dtype it has no cache for
  /// becomes its type nearest in bits per value (fp8 -> q8_0 for llama.cpp, q8_0 -> fp8_e4m3 for
  /// vLLM), K and V one type where the engine needs it, and tp moves to pp under llama.cpp (which
  /// splits layers, not heads). Anything else the engine refuses is refused.
  bool setEngine(const QString& engine);
  /// The engine and all its options at once (kvplan::EngineOptions; an option another engine owns,
  /// or a version the engine lacks, is refused by core's validate_engine_options). Turning on vLLM's
  /// fp8_ds_mla sets the K and V dtypes to fp8_e4m3, as the CLI's --kv-dtype fp8_ds_mla does.
  bool setEngineOptions(const EngineOptions& options);
  /// KV-cache memory per GPU as the engine logs it (vLLM's "Available KV cache memory"), a size as
  /// the CLI's --kv-memory takes it; empty or "auto" to derive it from the GPU again.
  bool setKvMemory(const QString& sizeOrAuto);
  /// Tokens per sequence (positive).
  bool setContext(std::uint64_t tokens);
  /// The context as typed: what the CLI's --context takes ("131072", "128k", "32Ki"; core's
  /// parse_tokens) and thousands separators ("131,072"). Unreadable text is an Error("context").
  bool setContextText(const QString& text);
  /// Concurrent sequences (positive).
  bool setUsers(std::uint64_t users);
  /// Users as typed: digits as the CLI's --users takes them (core's parse_count), thousands
  /// separators allowed ("1,024"). Anything else is an Error("users").
  bool setUsersText(const QString& text);

  /// The unit byte figures are shown in (Scenario::units): GiB (IEC) or GB (SI). An edit of the
  /// scenario like any other, undoable and saved with it; `as_edit` false (the start-up choice from the
  /// settings) sets it without an undo step, the scenario staying unmodified.
  bool setUnits(UnitSystem units, bool as_edit = true);
  [[nodiscard]] UnitSystem units() const { return scenario_.units; }

  /// What the last applied action changed besides what was asked (a KV dtype mapped for an engine,
  /// tp moved to pp, GPUs grown to one replica), one clause each in the window's own labels; empty
  /// when it changed nothing else.
  [[nodiscard]] const QString& notice() const { return notice_; }

  // Files.
  /// Reads a scenario (scenario.hpp); it replaces the current one only if it plans.
  bool loadScenario(const QString& path);
  /// Writes the current scenario; no state changes.
  bool saveScenario(const QString& path);
  /// Replaces the scenario if it plans.
  bool applyScenario(const Scenario& s);
  /// Measured prefill points for the overlay: a kvplan-bench report or a list of points (measured.hpp).
  bool loadMeasuredPrefill(const QString& path);
  /// Removes the overlay.
  void clearMeasuredPrefill();

  /// The StreamingLLM curve of the KV chart: `sink` attention-sink tokens plus `recent` recent ones.
  /// Refused (kvplan::Error from with_attention_sinks) when recent is 0 or the sum overflows.
  bool setStreamingWindow(std::uint64_t sink, std::uint64_t recent);
  [[nodiscard]] std::uint64_t streamingSinkTokens() const { return streaming_sink_; }
  [[nodiscard]] std::uint64_t streamingRecentWindow() const { return streaming_recent_; }

  /// The `kvplan size` arguments (without the program name) that print the current plan's figures;
  /// empty with `error` set when the CLI cannot express the architecture.
  [[nodiscard]] QStringList commandArgs(QString* error = nullptr) const;
  /// "kvplan size ...", shell-quoted; empty with `error` set as for commandArgs.
  [[nodiscard]] QString commandLine(QString* error = nullptr) const;

 Q_SIGNALS:
  /// The scenario and every figure changed (after an applied action).
  void planChanged();
  /// Widgets should re-read the inputs: after an applied action, and after a rejected one so that
  /// an edited field shows the kept value again.
  void inputsChanged();
  /// An action was rejected; the previous state is kept.
  void errorOccurred(const QString& message);

 private:
  /// Runs `edit` on a copy of the scenario, computes its figures, and commits both, or reports the
  /// error and keeps the current ones. `origin`, when given (a scenario file's name), names the file in an
  /// error of planning the edited scenario: "s.json: /tp: 3 does not divide ...", as a bad key or baseline of
  /// the file is named.
  bool apply(const std::function<void(Scenario&)>& edit, const std::string& origin = {});
  /// Replaces the scenario with `read()` (loadScenario, finishScenario): the file `path` is then the
  /// scenario's file, the undo stack clean.
  bool loadScenarioFile(const QString& path, const std::function<Scenario()>& read);
  bool commit(Scenario next, MeasuredSet measured, const QString& measured_path);
  /// Replaces the scenario with `s` without a new undo step (the undo stack's own undo and redo).
  void restore(const Scenario& s);
  friend class ScenarioStep;
  void reject(const QString& message);
  Figures compute(const Scenario& s, const MeasuredSet& measured);
  AttentionLayer& group(Scenario& s, int index) const;
  /// tp x pp to `tp` x `pp` keeping the GPU count (see setTensorParallel).
  void setSplit(Scenario& s, std::uint64_t tp, std::uint64_t pp);
  /// Maps what s's engine refuses (KV dtype, tp) until it plans; see setEngine.
  void fitToEngine(Scenario& s);

  Scenario scenario_;
  Figures figures_;
  QString error_;
  QString measured_path_;
  QString notice_;
  QUndoStack* undo_ = nullptr;
  /// Records a successful load (loadedAt); returns `ok`.
  bool loaded(bool ok);
  /// Makes `m` the scenario's model (selectModel, applyModel): source, base and model; no weights override.
  static void useModel(Scenario& s, ModelSpec m);
  int loaded_at_ = 0;
  bool restoring_ = false;  ///< restore() is running: no undo step for it
  QString scenario_path_;
  std::map<Engine, EngineOptions> engine_options_;  ///< each engine's options when it was last left
  QStringList changes_;  ///< what the running action changed besides what was asked (notice())
  std::vector<presets::ModelPreset> model_presets_;
  std::vector<Gpu> gpu_presets_;
  std::vector<Tokens> contexts_;
  std::vector<std::uint64_t> prompts_;
  // The series do not depend on the context: kept while only the context moves.
  std::optional<PlanInputs> series_key_;
  KvMemorySeries kv_cache_;
  UsersSeries users_cache_;
  std::optional<KvCurve> streaming_cache_;
  std::uint64_t streaming_sink_ = kStreamingSinkTokens;
  std::uint64_t streaming_recent_ = kStreamingRecentWindow;
  /// engineTakesTensorParallel / engineTakesTwoKvTypes for the engine options they were asked for.
  struct EngineTakes {
    EngineOptions engine;
    bool tp = true, two_types = true;
  };
  mutable std::optional<EngineTakes> engine_takes_;
  [[nodiscard]] const EngineTakes& engineTakes() const;
  std::optional<ModelSpec> prefill_key_;
  PrefillSeries prefill_cache_;
  /// The figures of baseline `b`: from baseline_cache_, or computed (the current scenario's series
  /// caches kept as they were, so the next context step still reuses them). A baseline that does not plan
  /// throws kvplan::Error naming `where` (its JSON pointer, "/baselines/1", after the file's name when
  /// one is read) and the key of it at fault ("/baselines/1/tp").
  Figures figuresOfBaseline(const Scenario& b, const std::string& where);
  std::vector<Figures> baseline_figures_;
  std::vector<std::pair<Scenario, Figures>> baseline_cache_;  ///< the last baselines planned, newest last
};

}  // namespace kvplan::gui
