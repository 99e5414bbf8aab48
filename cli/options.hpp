#pragma once
// Options of the kvplan subcommands: one struct per subcommand, filled by CLI11 as strings and
// turned into core inputs by build_inputs(), so every bad value gets kvplan's one-line error.

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

#include "kvplan/engine_log.hpp"
#include "kvplan/plan.hpp"
#include "kvplan/serving_dtype.hpp"
#include "kvplan/streaming.hpp"

namespace kvplan::cli {

/// How a model is chosen: MODEL (preset id, HF repo id, preset file, config.json) or flags.
struct ModelOptions {
  std::string model;
  std::string revision;  ///< a Hugging Face repo id's branch, tag or commit
  std::string hf_file;   ///< a GGUF file of the Hub repo MODEL, as llama.cpp's --hf-file
  std::string layers, heads, kv_heads, head_dim, window;
};

/// KV and weight types.
struct DtypeOptions {
  std::string kv_dtype, k_dtype, v_dtype, weight_dtype, mamba_cache_dtype, mamba_ssm_cache_dtype;
};

/// Engine policy and the engine's own options (strings: parsed with kvplan's errors).
struct EngineCliOptions {
  std::string engine = "ideal", version, kv_memory, speculative_config;
  std::string from_log;  ///< --from-log FILE: a real start-up log's KV memory (presets/engine_log.hpp)
  /// The engine options of core's table (kvplan/options.hpp) as given, by key: the text of a valued
  /// option, and whether a flag was given.
  std::map<std::string, std::string, std::less<>> values;
  std::map<std::string, bool, std::less<>> flags;
};

/// StreamingLLM's cap on full-attention layers: --sink-tokens S --recent-window W (both, or neither).
struct StreamingOptions {
  std::string sink_tokens, recent_window;
};

/// What `size` and `fit` share, with one help text each: the request (--context, --users), the memory
/// the engine takes (--gpu-util, --weights, --overhead) and the output (--units, --json).
struct CapacityOptions {
  std::string context = "4096", users = "1", gpu_util, weights, overhead;
  std::string units = "iec";
  bool json = false;
};

/// Deployment and capacity.
struct DeployOptions : CapacityOptions {
  std::string gpu, gpu_memory, gpus, tp, pp;
  std::string dp_attention;  ///< --dp-attention N (DP attention with expert parallel)
  std::string ctx_size;      ///< llama.cpp's -c: the context of every slot together
};

struct SizeOptions {
  /// --from-launch LINE: listed in help; parse_command_line puts the line's flags in its place before CLI11
  /// parses, so it is empty after a parse of the command line.
  std::string from_launch;
  ModelOptions model;
  DtypeOptions dtypes;
  DeployOptions deploy;
  EngineCliOptions engine;
  StreamingOptions streaming;
};

struct ShowOptions {
  ModelOptions model;
  DtypeOptions dtypes;
  EngineCliOptions engine;
  std::string units = "iec";
  bool json = false;
};

struct CompareOptions {
  ModelOptions model;
  StreamingOptions streaming;
  DtypeOptions dtypes;
  EngineCliOptions engine;
  std::string context = "4096";
  std::string units = "iec";
  bool json = false;
};

struct PrefillOptions {
  ModelOptions model;
  std::string prompt, vs, gpu, efficiency = "0.5", calibration;
  bool json = false;
};

/// ASCII lower case: every enum-like value (--units, --engine, --engine-version, dtype names, "auto")
/// is read case-insensitively, as presets and GPU ids are.
std::string lowercase(std::string_view text);
/// Whether a value is "auto", in any case.
bool is_auto(std::string_view text);
/// A positive finite decimal number (--ttft, --price-per-gpu-hour); `at_most_one`: a share in (0, 1]
/// (--gpu-util, --efficiency, engine ratios). Throws kvplan::Error(flag, ...): "must be a number in
/// (0, 1], got 'x'" / "must be a positive number, got 'x'" for text that is no such number, "must be in
/// (0, 1], got 'x'" for a share out of range.
double parse_positive(const std::string& text, std::string_view flag, bool at_most_one = false);

void add_model_options(CLI::App& app, ModelOptions& o);
void add_dtype_options(CLI::App& app, DtypeOptions& o);
/// --sink-tokens and --recent-window.
void add_streaming_options(CLI::App& app, StreamingOptions& o);
/// StreamingLLM's cap from --sink-tokens S --recent-window W; nullopt when neither is given. Throws
/// kvplan::Error naming the flag when only one is, for a bad count, or when `engine` is not ideal (no
/// engine has such a cache).
std::optional<StreamingCap> parse_streaming(const StreamingOptions& o, Engine engine);
/// Caps the model's full-attention layers at sink + recent tokens when both flags are given
/// (with_attention_sinks) and returns true; false (the model untouched) when neither is. Throws
/// kvplan::Error naming the flag when only one is, or when `engine` is not ideal (no engine has such a
/// cache). `size`, `compare` and `fit` all call it.
bool apply_streaming(const StreamingOptions& o, Engine engine, ModelSpec& m);
/// --engine and the engine options; `capacity` adds --kv-memory and --max-tokens.
void add_engine_options(CLI::App& app, EngineCliOptions& o, bool capacity);
/// --context, --users, --gpu-util, --weights, --overhead, --units and --json.
void add_capacity_options(CLI::App& app, CapacityOptions& o);
/// Every option of `size` (model, dtypes, engine, deployment, --units, --json): the CLI and the
/// fuzz harness wire the same command.
void add_size_options(CLI::App& app, SizeOptions& o);
/// An option given with an empty value ("--block-size ''") is an error, not its default: every value
/// here is a string read after parsing, where empty would otherwise mean "not given". Checks `app`
/// and its subcommands. Throws kvplan::Error(option, "is empty").
void reject_empty_values(const CLI::App& app);

/// The model: from MODEL, or from --layers/--heads/--kv-heads/--head-dim[/--window]. Every command needs
/// one: with neither, kvplan::Error("MODEL", "missing: ...") (size once planned a default model the user
/// never asked for).
ModelSpec resolve_model(const ModelOptions& o);
/// The model with a speculative-decoding drafter's layers added, from vLLM's --speculative-config JSON
/// ({"method": "eagle" | "eagle3" | "draft_model" | "mtp" | "deepseek_mtp" | "qwen3_next_mtp" | "ngram",
/// "model": preset, repo id or config path, "num_speculative_tokens": k}); empty text: the model as is.
ModelSpec apply_speculative_config(const std::string& text, ModelSpec m);

/// Whether `e` is core's figure past 2^64 (units.hpp throw_overflow: "overflows 64-bit arithmetic").
bool is_overflow(const Error& e);

/// Runs `f` (a plan or a search over plans of `in`'s model, context and users), naming the input of an
/// overflow by its flag (core's kvplan::rethrow_naming_input, plan.hpp). What size and fit share.
template <class F>
auto naming_overflow(const PlanInputs& in, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const Error& e) {
    kvplan::rethrow_naming_input(e, in);
  }
}

/// Runs `f`, whose only count is the one `flag` gave (`value`): an overflow in it is that input's,
/// "--prompt 10000000000000: the prefill FLOPs overflow 2^64 (...)" with `what` ("the prefill FLOPs
/// overflow 2^64 (2 x parameters x tokens, plus the attention pairs)").
template <class F>
auto naming_overflow(std::string_view flag, std::uint64_t value, std::string_view what, F&& f)
    -> decltype(f()) {
  try {
    return f();
  } catch (const Error& e) {
    if (!is_overflow(e)) throw;
    throw Error(std::string(flag) + " " + std::to_string(value), std::string(what));
  }
}

/// Runs `f(true)`, the command with --speculative-config's drafter layers. An engine refusal (core's
/// "engine" field: vLLM cannot unify the page sizes of the layers) that `f(false)`, the same command
/// without the drafter, does not raise is the drafter's: re-thrown naming --speculative-config, the flag
/// that caused it, not --engine. Without a drafter, or when the model alone is refused too, the error
/// stays as it is.
template <class F>
auto blaming_drafter(const std::string& speculative_config, F&& f) -> decltype(f(true)) {
  try {
    return f(true);
  } catch (const Error& e) {
    if (speculative_config.empty() || e.field() != "engine") throw;
    try {
      (void)f(false);
    } catch (const Error&) {
      throw e;
    }
    throw Error("--speculative-config", "the drafter's layers under the engine: " + e.reason());
  }
}

/// The warning for an fp32 checkpoint whose "auto" KV type the GPU decides (vLLM: bf16 from compute
/// capability 8.0, fp16 before), nullopt otherwise.
std::optional<std::string> auto_dtype_note(const ModelSpec& m, Engine engine);
/// K/V dtypes (engine names included: "auto" is auto_serving_dtype; "fp8_ds_mla" sets the engine option)
/// and the weight dtype (applied to the model).
KvDtypes resolve_kv_dtypes(const DtypeOptions& o, const ModelSpec& m, EngineOptions* engine = nullptr);
/// The engine options.
EngineOptions resolve_engine(const EngineCliOptions& o);
/// --weight-dtype applied to the model (every weight type; the checkpoint's bytes dropped). Without it, an
/// fp32 checkpoint whose weights come from the architecture takes the engine's auto dtype
/// (auto_serving_dtype: vLLM bf16, SGLang fp16 or bf16 for Gemma, TensorRT-LLM fp16), 2 B a parameter,
/// with a warning naming the rule; llama.cpp (a GGUF's own types) and weights read from files stay.
/// Throws Error("--weight-dtype", ...) on an unknown type.
void apply_weight_dtype(const DtypeOptions& o, ModelSpec& m, Engine engine);
/// --weights SIZE with --weight-dtype: the size would win silently, so the pair is refused
/// (Error("--weight-dtype", ...) naming both flags); --weights auto goes with any --weight-dtype.
void refuse_weights_with_weight_dtype(const std::string& weights, const std::string& weight_dtype);

/// --context: a token count (parse_tokens), or "max", the engine's own limit for the model as it derives it
/// from the config (context_limit.hpp), with a warning on `model` stating the rule. Throws kvplan::Error
/// naming --context when the model gives no length.
Tokens parse_context(const std::string& text, ModelSpec& model, Engine engine);
UnitSystem resolve_units(const std::string& units);
/// Everything `size` needs. With --from-log, the log's engine (unless another was asked for, which is an
/// error when it differs) and its KV memory; the log's figures go to *log when log is not null.
PlanInputs build_inputs(const SizeOptions& o, std::optional<presets::EngineLogFigures>* log = nullptr);

}  // namespace kvplan::cli
