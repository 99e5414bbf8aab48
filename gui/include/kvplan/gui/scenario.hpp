#pragma once
/// @file scenario.hpp
/// A scenario: everything the GUI's inputs hold, as one value that saves to and loads from JSON and
/// turns into the equivalent `kvplan size` command line. Plain C++ (no Qt), so it is tested on its own.

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "kvplan/plan.hpp"

namespace kvplan::gui {

/// Where the model came from.
struct ModelSource {
  enum class Kind {
    preset,  ///< a preset id (`ref`), resolved through kvplan::presets
    file,    ///< a preset file or Hugging Face config.json at `ref` (an absolute path)
    custom,  ///< no file: the architecture is the scenario's own
  };
  Kind kind = Kind::preset;
  std::string ref;
  bool operator==(const ModelSource&) const = default;
};

/// Everything a plan depends on, as the user chose it.
struct Scenario {
  ModelSource source;
  ModelSpec base;          ///< the model as loaded, before the user's edits and weight dtype
  PlanInputs inputs;       ///< inputs.model: `base` with the user's edits; inputs.gpu: always set;
                           ///< inputs.engine: the engine's rules with its defaults
  std::string gpu_preset;  ///< GPU preset id of inputs.gpu; empty: custom memory
  /// The unit of every byte figure shown (View > GB units): IEC (GiB, 2^30 B) or SI (GB, 10^9 B). Shown
  /// only; no figure depends on it.
  UnitSystem units = UnitSystem::iec;
  /// The pinned baselines (Compare > Pin as baseline), oldest first: each a whole scenario with no
  /// baselines of its own, compared with this one. At most kMaxBaselines.
  std::vector<Scenario> baselines;
  bool operator==(const Scenario&) const = default;
};

/// Sets every weight dtype of a model (linear layers, embeddings, routed experts), as the CLI's
/// --weight-dtype does.
void set_weight_dtype(ModelSpec& m, DType t);

/// Whether the weight dtypes differ from `base`'s (the user chose one for the whole model).
bool weight_dtype_overridden(const Scenario& s);

/// The model as the scenario's engine plans it, as the CLI's --weight-dtype does with the same inputs: a
/// weight dtype chosen over the checkpoint's (weight_dtype_overridden) applied as the engine loads it
/// (kvplan::apply_weight_dtype: fp8 quantised at load under vLLM and SGLang keeps the embeddings and LM
/// head at the serving dtype); else an fp32 checkpoint served at the engine's auto dtype
/// (serve_fp32_weights).
ModelSpec served_model(const Scenario& s);

/// Whether the architecture differs from `base` in anything but the weight dtypes.
bool architecture_edited(const Scenario& s);

/// The most baselines pinned at once: one colour each that stays apart from the others and from the
/// charts' own lines, in a light and a dark theme (baseline_color).
inline constexpr std::size_t kMaxBaselines = 6;

/// Version written under "kvplan_scenario"; files with a higher one are refused.
inline constexpr int kScenarioVersion = 1;

/// The scenario as JSON: {"kvplan_scenario": 1, "model": {"preset"|"file"|"custom", "architecture"
/// when edited: presets::model_to_json, kvplan/model_json.hpp}, "k_dtype", "v_dtype", "state_dtype",
/// "weight_dtype" (only when chosen for a model as loaded: it sets every weight dtype), "context", "users",
/// "gpu": {"preset"} or {"memory_bytes"}, "gpus", "tp", "pp", "gpu_memory_utilization", "reserve_bytes"
/// (null: the engine's budget), "weights_bytes" (null: from the architecture), "engine" (a kvplan::Engine
/// name), "engine_options" (only those away from their defaults, named as in kvplan::EngineOptions:
/// "version", "block_size", "max_num_batched_tokens", "max_num_seqs", "ubatch", "swa_full", "kv_unified",
/// "flash_attn_off", "n_rs_seq", "disable_hybrid_kv_cache_manager", "fp8_ds_mla", "max_tokens",
/// "swa_full_tokens_ratio"), "kv_memory_bytes" (only when given), "byte_units" ("GiB" or "GB": the unit
/// figures are shown in; a file without it shows GiB), "baselines" (only when pinned: a list of scenarios as
/// this one, without "baselines" of their own)}. Bytes are integers.
nlohmann::json scenario_to_json(const Scenario& s);

/// Whether a parsed JSON file is a scenario (an object with "kvplan_scenario").
bool is_scenario(const nlohmann::json& j);

/// The model of a scenario's "preset" reference (a preset id or a Hugging Face repo id); throws
/// kvplan::Error as presets::find_model does.
using ModelResolver = std::function<ModelSpec(const std::string& ref)>;

/// Reads a scenario. Presets, GPU ids and model files are resolved now (a relative model path against
/// `base_dir`; a "preset" reference by `resolve`, presets::find_model when empty: the GUI passes a repo
/// id's model fetched off its thread). Throws kvplan::Error naming `origin` and the JSON path ("s.json:
/// /tp: must be a positive integer"); the caller still has to make_plan the result to know it is plannable.
Scenario scenario_from_json(const nlohmann::json& j, const std::string& origin,
                            const std::filesystem::path& base_dir = {}, const ModelResolver& resolve = {});

/// The "preset" reference of a scenario's model (/model/preset), or empty when the model is a file or
/// custom (or the reference is not a string: scenario_from_json says why).
std::string scenario_preset_ref(const nlohmann::json& j);

/// scenario_from_json of a file; errors name the file.
Scenario load_scenario(const std::filesystem::path& path);

/// Writes scenario_to_json, indented. Throws kvplan::Error(path, ...) when the file cannot be written.
void save_scenario(const Scenario& s, const std::filesystem::path& path);

/// `kvplan size` arguments (without the program name) that print the same figures as `plan`:
/// the preset id or file path when the architecture is as loaded, else --layers/--heads/--kv-heads/
/// --head-dim[/--window] with --weights set to the plan's weights (flags carry no MLP); then always the
/// KV dtypes, context and users, --gpu or --gpu-memory; --weight-dtype, --engine and each engine
/// option's flag, --kv-memory, --gpus/--tp/--pp, --gpu-util, --overhead and --weights where they
/// differ from the defaults. Throws
/// kvplan::Error("command", ...) when the CLI cannot express the architecture (several layer groups,
/// MLA, chunked or recurrent layers, K and V head dims that differ) or the recurrent state dtype.
std::vector<std::string> size_command_args(const Scenario& s, const Plan& plan);

/// The arguments as one POSIX shell line, each quoted when it needs it.
std::string shell_join(const std::vector<std::string>& args);

}  // namespace kvplan::gui
