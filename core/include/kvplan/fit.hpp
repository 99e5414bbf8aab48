#pragma once
/// @file fit.hpp
/// The deployment search behind `kvplan fit`: every GPU preset x tp x pp x replicas x KV dtype (and, for
/// mixture-of-experts models under engines that have it, DP attention with expert parallel) up to a GPU
/// budget, each judged by make_plan (under the chosen engine's rules) and timed by estimate_speed,
/// ranked by fewest GPUs then most free KV memory per GPU, or by cost per million output tokens.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kvplan/plan.hpp"
#include "kvplan/speed.hpp"

namespace kvplan {

/// Most GPUs `fit` searches (--max-gpus): far past a real deployment's count; every count up to it is
/// tried, so a larger limit would only take minutes.
inline constexpr std::uint64_t kMaxFitGpus = 4096;

/// Most layouts (GPU preset x weight type x KV dtype x tp x pp x DP attention) one `fit` judges: the
/// default searches judge 2,000 to 5,000 in under 0.3 s; past this a request is refused before any is
/// planned (an unbounded search took 83 s and 818 MB), so every search ends within seconds.
inline constexpr std::uint64_t kMaxFitLayouts = 20000;

/// Default GPUs per node (--gpus-per-node): an HGX/DGX board of 8 GPUs on one NVLink switch.
inline constexpr std::uint64_t kDefaultGpusPerNode = 8;

/// Highest --price-per-gpu-hour fit takes, in USD per GPU-hour (the cost column is $/Mtok): an H100 rents
/// for a few dollars an hour, so a million is far past any real price; past it the figure is a typo, and
/// the cost it ranks by would be a number nobody can read.
inline constexpr std::uint64_t kMaxPricePerGpuHour = 1'000'000;

/// The range --price-per-gpu-hour takes, for its errors: "must be a price in USD per GPU-hour, more than
/// 0 and at most 1,000,000" (the table's cost column is $/Mtok).
std::string price_range_text();

/// What the launch line needs beyond the plan: the inputs a front end applied to the model before the
/// search, which the engine takes as its own flags.
struct LaunchExtras {
  /// The weight dtype the user asked for over the checkpoint's (--weight-dtype): vLLM and SGLang
  /// quantise a checkpoint online to fp8 only (`--quantization fp8`); other types need a checkpoint
  /// quantised so, which the line says.
  std::optional<DType> weight_dtype;
  /// The speculative-decoding config (vLLM's --speculative-config JSON) as the engine must be given it,
  /// empty when none.
  std::string speculative_config;
  /// A note for the line's comment (a drafter given as a local file), empty when none.
  std::string note;
};

/// What to search.
struct FitRequest {
  ModelSpec model;  ///< weight dtype already applied
  Tokens context{4096};
  std::uint64_t users = 1;
  std::vector<Gpu> gpus;          ///< candidates (at least one)
  std::uint64_t max_gpus = 64;    ///< GPUs in all, replicas included
  std::vector<std::uint64_t> tp;  ///< allowed tp sizes; empty: every size validate_parallelism accepts
  std::vector<std::uint64_t> pp;  ///< allowed stage counts; empty: 1 .. min(layers, max_gpus / tp)
  /// Allowed DP attention sizes (Deployment::dp_attention; 1: off); empty: 1 and, with search_dp_attention,
  /// for a mixture-of-experts model under an engine that has DP attention (dp_attention_engine), every
  /// divisor of tp above 1; at
  /// pp 1 only (other stage counts take 1).
  std::vector<std::uint64_t> dp_attention;
  /// Search DP attention when dp_attention is empty (`kvplan fit` sets it). Off by default for front ends
  /// whose rows do not carry Deployment::dp_attention yet (the GUI's fit view copies tp, pp and dp only):
  /// such a row would load another layout than the one ranked.
  bool search_dp_attention = false;
  /// GPUs in one node (NVLink domain): tp, which under DP attention is the whole attention-DP group and its
  /// expert-parallel group, stays within one node; pp stages and replicas span nodes.
  std::uint64_t gpus_per_node = kDefaultGpusPerNode;
  std::vector<KvDtypes> kv_dtypes;  ///< empty: default_kv_dtypes per GPU
  /// Weight types tried besides the model as given, each as the engine loads it (apply_weight_dtype: fp8
  /// quantised at load under vLLM and SGLang, else a checkpoint quantised so); empty: with
  /// search_weight_dtypes, default_weight_dtypes per GPU. A type equal to the model's is tried once.
  std::vector<DType> weight_dtypes;
  /// Search weight types (weight_dtypes, or their default). Off by default: a front end turns it on when
  /// a chosen row loads its weight type too (the CLI's fit, the GUI's fit view through with_fit_row).
  bool search_weight_dtypes = false;
  Deployment deployment;  ///< utilisation, reserve, weights override (parallel ignored)
  EngineOptions engine;
  SpeedEfficiency efficiency;
  std::optional<double> price_per_gpu_hour;  ///< rank by cost per million output tokens
  std::optional<double> max_ttft_s;          ///< SLA: keep rows with ttft <= this
  std::optional<double> max_tpot_s;          ///< SLA: keep rows with tpot <= this
  std::size_t top = 10;                      ///< rows returned (max_context searched only for these)
  LaunchExtras launch;                       ///< for the launch lines
  /// The model's full-attention layers are capped by with_attention_sinks (--sink-tokens,
  /// --recent-window): rows get a note instead of a launch line, as no engine keeps such a cache. Only
  /// under Engine::ideal.
  bool attention_sinks = false;
};

/// One deployment that was judged.
struct FitRow {
  Plan plan;  ///< make_plan at this layout (max_context searched for returned rows only)
  std::optional<SpeedFigures> speed;              ///< nullopt: the GPU lacks a bandwidth, peak or link figure
  std::optional<double> cost_per_million_tokens;  ///< price x GPUs / (tokens/s x 3600) x 10^6
  std::string launch;                             ///< the engine's command line for this layout
  /// The weight type the row asks the engine for (FitRequest::weight_dtypes), nullopt: the model as given.
  std::optional<DType> weight_dtype;
};

/// The search's answer.
struct FitResult {
  std::vector<FitRow> rows;      ///< fitting (and within the SLA) rows, best first, at most `top`
  std::uint64_t candidates = 0;  ///< layouts judged (make_plan calls, dp probes included)
  std::uint64_t fitting = 0;     ///< of them, fitting and within the SLA, before `top`
  std::uint64_t holding = 0;     ///< layouts that hold the users, within the SLA or not
  /// When no row is returned: the layout that comes nearest. If some layouts hold the users but none
  /// meets the SLA, the one nearest the SLA (the smallest worst ratio of its TPOT and TTFT to their
  /// limits; then fewest GPUs, most free memory), and nearest_misses_sla is set; else the one that
  /// serves the most users (then the least KV short per GPU). Empty when no layout could be planned, or
  /// when the layouts that hold the users have no speed figures to hold against the SLA.
  std::optional<FitRow> nearest;
  bool nearest_misses_sla = false;
  std::string nearest_note;  ///< what it lacks, in words
  /// Classes of layouts left out because the model or the engine refuses them, one line each naming the
  /// cause: tp sizes that divide the target's num_attention_heads but not another layer's heads or a KV
  /// head count ("tp 2, 4, 8 skipped: tp and num_key_value_heads 3 (the drafter's): one must divide the
  /// other ..."), tp sizes past a node (gpus_per_node), DP attention where the engine or the model has
  /// none, and layouts make_plan refused while others were planned ("12 layouts skipped, refused:
  /// `gpu`: ...", the error's field as core's key in backticks, kvplan::input_ref, for the front end to
  /// word with kvplan::word_inputs). Empty when nothing was left out.
  std::vector<std::string> refused;
  /// The dimensions searched, in words: "tp 1-8 (within a node of 8 GPUs), pp 1-61, replicas, DP attention
  /// with expert parallel, KV bf16, fp8_e4m3".
  std::string searched;
  /// Weight types were searched besides the model as given (ranked after it on as many GPUs).
  bool weights_searched = false;
};

/// KV dtypes fit tries on `gpu` by default: bf16, plus fp8_e4m3 when the GPU has fp8 tensor cores
/// (Gpu::fp8); under llama.cpp rules f16 and q8_0 (its cache types; it has no fp8 cache).
std::vector<KvDtypes> default_kv_dtypes(const Gpu& gpu, Engine engine);

/// Weight types fit tries by default besides the model as given: fp8_e4m3 quantised at load where the
/// engine does it by default without holding the checkpoint whole first, and the GPU has fp8 tensor cores
/// (Gpu::fp8), for an unquantised 16- or 32-bit checkpoint whose weights come from its architecture or
/// files: vLLM from 0.16 (and ideal, whose line is vLLM's). vLLM creates such weights on the meta device
/// and quantises each as it loads (vllm PR #31914, first in 0.16), so the checkpoint's precision never has
/// to fit; SGLang's `--quantization fp8` and vLLM before 0.16 load every weight at its own precision first
/// (loads_checkpoint_before_quantising), so they are tried there only when asked. Empty otherwise
/// (TensorRT-LLM and llama.cpp need a checkpoint quantised so). Throws kvplan::Error("engine_version", ...)
/// for a vLLM release outside the range kvplan models.
std::vector<DType> default_weight_dtypes(const ModelSpec& m, const Gpu& gpu, const EngineOptions& engine);

/// Whether fit searches DP attention with expert parallel under `engine`: vLLM (`--data-parallel-size N
/// --enable-expert-parallel`, vllm/config/parallel.py ParallelConfig), SGLang (`--enable-dp-attention --dp
/// N --ep-size T`, sglang/srt/server_args.py) and the exact layout (whose line is vLLM's). Not llama.cpp
/// (no DP attention nor expert parallel), and not TensorRT-LLM (its enable_attention_dp, an LLM API option,
/// is planned by `size --dp-attention` but not searched).
bool dp_attention_engine(Engine engine);

/// Searches every layout. For each GPU, KV dtype, tp, pp and DP attention size it plans one replica
/// (make_plan without the max-context search), takes the fewest replicas that hold the users, ceil(users /
/// max users of one replica), and confirms it with a plan at that count; layouts over max_gpus are dropped.
/// Layouts the engine refuses (tp under llama.cpp, a dtype it lacks) are skipped, and said so in
/// FitResult::refused. pp runs from 1 to the target's layers: a speculative drafter's layers
/// (ModelSpec::draft_layers) join the last stage, as in vLLM, so no stage is the drafter's alone. Throws
/// kvplan::Error by key (options.hpp) for bad requests: no GPU ("gpu"), a tp the model cannot take or past
/// gpus_per_node ("tp"), a DP attention size the engine or model lacks ("dp_attention"), pp past the layers
/// ("pp"), zero users or context, max_gpus 0 or a search of more than kMaxFitLayouts layouts ("max_gpus"), a
/// price not positive. A value repeated in
/// gpus, tp, pp or kv_dtypes is searched once.
FitResult fit(const FitRequest& request);

/// Whether `tokens` passes the context limit `engine` derives for the model (engine_max_context; false
/// when the limit is unknown). vLLM and SGLang refuse such a context, TensorRT-LLM lowers max_seq_len to
/// the limit, unless told otherwise (long_context_env); llama.cpp warns and runs it.
bool past_max_position(const ModelSpec& m, Tokens tokens, Engine engine);

/// A max context found by the capacity search, for people: "177,784 tokens", or, past the engine's limit
/// (context_limit), "177,784 tokens (past vLLM's derived max_model_len 131,072 (max_position_embeddings
/// 131,072): vLLM refuses it without VLLM_ALLOW_LONG_MAX_MODEL_LEN=1)"; ideal: "(past the model's
/// 131,072 max_position_embeddings)". The figure stays what memory holds; the mark says the engine will
/// not take it as is.
std::string max_context_text(const ModelSpec& m, Tokens max_context, Engine engine);

/// The environment setting with which `engine` accepts a context past its own limit (context_limit), empty
/// when it needs none: vLLM VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 (vllm/config/model.py
/// _get_and_verify_max_len raises otherwise), SGLang SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1
/// (srt/configs/model_config.py), TensorRT-LLM TLLM_ALLOW_LONG_MAX_MODEL_LEN=1
/// (_torch/pyexecutor/model_engine.py _init_max_seq_len); llama-server takes any -c (it warns past
/// n_ctx_train).
std::string_view long_context_env(Engine engine);

/// Whether the environment word `assignment` ("NAME=value", before a launch line's command) turns on
/// `engine`'s long_context_env: vLLM's VLLM_ALLOW_LONG_MAX_MODEL_LEN with a value that, stripped and in
/// lower case, is 1 or true (vllm/envs.py); SGLang's SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN in lower
/// case true or 1 (srt/utils get_bool_env_var); TensorRT-LLM's TLLM_ALLOW_LONG_MAX_MODEL_LEN=1 as its line
/// is written. False under llama.cpp (it needs none) and for any other word.
bool long_context_env_on(Engine engine, std::string_view assignment);

/// The launch command of a row under `engine` (ideal: vLLM's): vllm serve / python -m
/// sglang.launch_server / llama-server / trtllm-serve with the layout's tp, pp, context, sequences per
/// replica, KV dtype and memory fraction; replicas add the engine's data-parallel flag where it has one.
/// DP attention N over tp T: vLLM `--tensor-parallel-size T/N --data-parallel-size N
/// --enable-expert-parallel` (--max-num-seqs per DP rank, each rank's own scheduler), SGLang `--tp T --dp N
/// --enable-dp-attention --ep-size T` (--max-running-requests over all N ranks: SGLang's model_runner takes
/// max_running_requests // dp_size per rank); replicas of such a layout are separate servers (a wider
/// --data-parallel-size would widen the expert-parallel group), said in the line's comment.
/// Every engine option set away from its default is written as the engine's own flag
/// (EngineOptionSpec::launch_flag; TensorRT-LLM's kv_cache_config fields as an --extra_llm_api_options
/// YAML file, its content in a trailing shell comment), and so are the extras: a row planned with an
/// option the line leaves out would start another deployment than the one planned. A context past the
/// limit the engine derives (context_limit; ideal's line is vLLM's, so vLLM's limit) goes with the
/// engine's setting (long_context_env) before the command, where it has one, and a trailing comment
/// naming the rule, so the line never passes a length the engine refuses or cuts.
std::string launch_command(const Plan& p, const LaunchExtras& extras = {});

}  // namespace kvplan
