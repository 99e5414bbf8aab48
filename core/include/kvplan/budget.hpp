#pragma once
/// @file budget.hpp
/// The engine's memory budget per GPU: what the engine leaves for its KV cache once the weights, the
/// activations of its profile run and its memory outside the allocator are counted, component by
/// component, as the engine itself works it out and logs it. Each component's source is cited beside
/// its formula (core/src/budget.cpp); the fitted constants are few and named after what they hold.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kvplan/engine.hpp"
#include "kvplan/model.hpp"
#include "kvplan/units.hpp"

namespace kvplan {

/// One GPU's budget (the stage whose pool is smallest: every stage gets that stage's pool).
/// kv = requested - weights - activation - non_torch - cuda_graphs (0 when negative, fits_weights false).
struct MemoryBudget {
  bool modelled = false;       ///< false: a flat reserve (--overhead, or the 1 GiB of unmodelled engines)
  std::string rules;           ///< whose rules, with the engine's source file and function
  Bytes total;                 ///< GPU memory as the engine sees it (torch's total_memory where known)
  bool runtime_total = false;  ///< total is the runtime-visible figure, not nvidia-smi's
  Bytes requested;             ///< floor(total x gpu_memory_utilization)
  Bytes weights;               ///< weights per GPU as loaded
  Bytes activation;            ///< peak of the profile run (sampler, forward, MoE workspace)
  Bytes non_torch;             ///< memory outside torch's allocator (CUDA context, NCCL buffers)
  Bytes cuda_graphs;           ///< CUDA graph memory subtracted (0 where the version does not)
  /// The part of requested kept for neither weights nor KV: vLLM activation + non_torch + cuda_graphs; a
  /// flat budget's reserve; SGLang 0 (its reserve, free x (1 - mem_fraction_static), is outside requested).
  Bytes reserve;
  /// The share of memory the engine was given (vLLM gpu_memory_utilization, SGLang mem_fraction_static),
  /// the user's or the engine's default for this GPU and layout.
  double utilization = 0.0;
  Bytes kv;                  ///< what is left for the KV cache on the binding stage
  bool fits_weights = true;  ///< requested covers the fixed costs
  /// pp > 1: the first stage's KV memory (vLLM logs rank 0's "Available KV cache memory"); else = kv.
  Bytes first_stage_kv;
  std::uint64_t max_num_seqs = 0;            ///< the sequences the sampler was profiled with
  std::uint64_t max_num_batched_tokens = 0;  ///< the tokens of the profile run's forward pass
  std::vector<std::string> lines;            ///< the figures as the engine words them
  std::vector<std::string> notes;            ///< what is assumed or not modelled, said plainly
};

/// The GPU a budget is made for: its memory as the driver reports it, the runtime-visible total where
/// known (torch.cuda.mem_get_info's total), and its name (vLLM's defaults look for "a100").
struct BudgetGpu {
  Bytes memory;                         ///< nvidia-smi's total
  std::optional<Bytes> runtime_memory;  ///< torch's total_memory; nullopt: unknown (memory used)
  std::string name;
};

/// Per-GPU fixed costs a budget needs from the plan.
struct BudgetInputs {
  const ModelSpec& model;
  Parallelism parallel;
  BudgetGpu gpu;
  std::optional<double> gpu_memory_utilization;  ///< nullopt: the engine's default
  Bytes weights_per_gpu;                         ///< the plan's weights per GPU (fullest stage)
  EngineOptions engine;
  bool weights_given = false;      ///< the user gave the weights' size: taken as loaded, nothing added
  std::uint64_t dp_attention = 1;  ///< DP attention ranks per replica (SGLang --dp with attention DP)
};

/// The bytes vLLM's Marlin MXFP4 MoE kernel adds per GPU to MXFP4 routed experts (gpt-oss) by padding
/// them: the expert width on the rank rounded up to a multiple of 128 and the hidden size to 256 ("the moe
/// marlin kernel requires that for each linear n % 256 == 0 and k % 128 == 0", vllm/model_executor/
/// layers/quantization/mxfp4.py Mxfp4MoEMethod.create_weights, Mxfp4Backend.MARLIN, the backend below
/// Blackwell), at 17 B per 32 values, over the layers of the fullest of pp stages. 0 for other experts.
Bytes vllm_mxfp4_padding_bytes(const ModelSpec& m, std::uint64_t tp, std::uint64_t pp);

/// The RoPE cos/sin cache vLLM keeps as a buffer of the model (vllm/model_executor/layers/
/// rotary_embedding: RotaryEmbedding.cos_sin_cache, [max_position, rotary_dim] in the model dtype;
/// LinearScalingRotaryEmbedding over max_position x factor positions), one per distinct rotary config:
/// the scaled one, and an unscaled one for sliding layers when the scaling makes them differ (Gemma 3's
/// local base). Rotary dim: head_dim (MLA: qk_rope_head_dim), the widest layer's.
Bytes vllm_rope_cache_bytes(const ModelSpec& m);

/// vLLM V1's default max_num_seqs for `vllm serve` on a GPU of `total` bytes named `name`: 1,024 on GPUs
/// of at least 70 GiB whose name does not contain "a100", else 256 (vllm/engine/arg_utils.py,
/// EngineArgs.get_batch_defaults, UsageContext.OPENAI_API_SERVER), capped at max_num_batched_tokens.
std::uint64_t vllm_default_max_num_seqs(Bytes total, std::string_view name);
/// The same function's max_num_batched_tokens: 8,192 on those GPUs, else 2,048.
std::uint64_t vllm_default_max_num_batched_tokens(Bytes total, std::string_view name);

/// The budget rules of one range of vLLM releases: what changed between them in the profile run
/// (docs/engines/vllm-budget.md, "By release", lists each row's source and the logs that check it).
struct VllmBudgetRelease {
  unsigned first_minor = 0;  ///< first release of the range, 0.MINOR
  unsigned last_minor = 0;   ///< last release of the range, 0.MINOR
  /// Bytes the sampler's dummy run holds per logit (max_num_seqs x vocabulary) at its peak.
  std::uint64_t sampler_bytes_per_logit = 0;
  std::uint64_t non_torch_single_gpu = 0;       ///< memory outside torch on one GPU (tp 1, pp 1), bytes
  std::uint64_t non_torch_tensor_parallel = 0;  ///< the same with tp >= 2 (NCCL, custom all-reduce), bytes
  bool subtracts_cuda_graphs = false;           ///< the CUDA graph estimate is taken from the KV memory
  /// gpu_memory_utilization when none is given (vllm/config/cache.py CacheConfig.gpu_memory_utilization).
  double default_gpu_utilization = 0.0;
  const char* source = "";  ///< the tag and file the row follows
};

/// The vLLM release `o` plans, as its minor number 0.MINOR: of o.release ("0.15.1") where a release number
/// was typed, else of the rule set o.version (v1 or empty: 19, calibrated on 0.19.0; "0.20": 20; "0.21":
/// 21; "0.26": 26; "v0": 6, the V0 engine of the 0.6 releases). Throws kvplan::Error("engine_version", ...)
/// for a release number outside 0.11 to 0.31.
unsigned vllm_release_minor(const EngineOptions& o);

/// The rules vLLM's budget applies for `o`: the row of o.release ("0.15.1") where a release number was
/// typed, else of the rule set o.version ("v1" or empty: 0.19, "0.20", "0.21", "0.26"). Throws
/// kvplan::Error("engine_version", ...) naming the known range on a release outside it.
VllmBudgetRelease vllm_budget_release(const EngineOptions& o);

/// vLLM V1's budget (vllm/v1/worker/gpu_worker.py determine_available_memory, vllm/utils/mem_utils.py
/// memory_profiling): requested = total x utilisation; kv = requested - weights - torch peak increase of
/// the profile run - non-torch increase. The activation peak is the sampler's dummy run at max_num_seqs
/// x vocabulary on the last stage, or the forward pass at max_num_batched_tokens elsewhere, plus the
/// fused-MoE workspace; the sampler's bytes per logit, the non-torch memory and whether CUDA graphs are
/// subtracted follow the release (vllm_budget_release), calibrated on public start-up logs of 0.15 to
/// 0.19 (docs/engines/vllm-budget.md).
/// Throws kvplan::Error("gpu_util", ...) on a utilisation outside (0, 1].
MemoryBudget vllm_budget(const BudgetInputs& in);

/// SGLang's default mem_fraction_static for a GPU whose driver reports `gpu_memory` (nvidia-smi's
/// memory.total, as get_nvgpu_memory_capacity reads it, in MiB), under rule set `rules`:
/// - "0.5" (the default; python/sglang/srt/server_args.py ServerArgs._handle_gpu_memory_settings):
///   chunked_prefill_size and cuda_graph_max_bs by GPU memory and tp, then reserved_mem (MB) = 512 +
///   max(chunked_prefill_size, 2048) x 1.5 + cuda_graph_max_bs x 2 + tp x pp / 8 x 1024 (+ cuda_graph_max_bs
///   x dp x 3, and x 1.5 more past 300, with DP attention), at least 10,240 on GPUs over 60 GiB; the
///   fraction is round((gpu_mem - reserved_mem) / gpu_mem, 3);
/// - "0.4" (ServerArgs.__post_init__ of the 0.4 releases): 0.88, 0.87 at tp >= 2, 0.85 at 4, 0.81 at 8,
///   0.79 at 16.
/// Throws kvplan::Error("engine_version", ...) on another rule set.
double sglang_default_mem_fraction_static(Bytes gpu_memory, std::uint64_t tp, std::uint64_t pp,
                                          std::uint64_t dp_attention, std::string_view rules);

/// SGLang's budget (python/sglang/srt/model_executor/model_runner.py profile_max_num_token, later
/// model_runner_kv_cache_mixin.py): rest = free after the weights load - free before x (1 -
/// mem_fraction_static), free before being the smallest rank's free memory once CUDA and torch.distributed
/// are up ("Load weight begin. avail mem"). So kv = free before x fraction - weights: requested is free
/// before x fraction, non_torch what CUDA and NCCL hold before the weights load (fitted on public logs,
/// docs/engines/sglang-budget.md). The fraction is the user's or sglang_default_mem_fraction_static.
/// Throws kvplan::Error("gpu_util", ...) on a fraction outside (0, 1].
MemoryBudget sglang_budget(const BudgetInputs& in);

/// Maps an SGLang release number ("0.4.6", "0.5.3") to the rule set kvplan models for it ("0.4", "0.5");
/// a rule-set name is returned as it is. Throws kvplan::Error("engine_version", ...) naming the known range.
std::string sglang_rules_for_release(std::string_view release);

/// TensorRT-LLM's default max_num_tokens: the tokens of its profile run's forward pass
/// (tensorrt_llm/builder.py BuildConfig.max_num_tokens, which trtllm-serve's --max_num_tokens defaults to).
inline constexpr std::uint64_t kTrtllmDefaultMaxNumTokens = 8192;
/// TensorRT-LLM's default KvCacheConfig.free_gpu_memory_fraction (tensorrt_llm/llmapi/llm_args.py;
/// trtllm-serve's --kv_cache_free_gpu_memory_fraction, tensorrt_llm/commands/serve.py).
inline constexpr double kTrtllmDefaultFreeGpuMemoryFraction = 0.9;

/// TensorRT-LLM's KV memory from its profile (tensorrt_llm/_torch/pyexecutor/_util.py
/// KvCacheCreator._cal_max_memory): (total - peak + the temporary KV cache of the profile) x fraction, peak
/// being torch's peak plus the memory outside torch. `peak_without_kv` is that peak less the temporary KV
/// cache (weights, activations, CUDA context, NCCL, CUDA graphs). floor(); 0 when the peak exceeds total.
/// Throws kvplan::Error("gpu_util", ...) on a fraction outside (0, 1].
Bytes trtllm_available_kv(Bytes total, Bytes peak_without_kv, double fraction);

/// TensorRT-LLM's budget, PyTorch backend (tensorrt_llm/_torch/pyexecutor/_util.py KvCacheCreator
/// configure_kv_cache_capacity and _cal_max_memory): the weights load, CUDA graphs are captured, a profile
/// forward pass of max_num_tokens context tokens runs, and the KV cache takes free_gpu_memory_fraction of
/// what is left: kv = trtllm_available_kv(total, weights + activation + non_torch + cuda_graphs, fraction).
/// The fraction applies to the memory left after the weights, not to the GPU (vLLM's utilisation does).
/// The activation, non-torch and CUDA graph figures are vLLM 0.19's fitted ones (vllm_budget), taken for
/// the same physical costs: no TensorRT-LLM start-up log of a discrete GPU was checked (the notes say so).
/// Throws kvplan::Error("gpu_util", ...) on a fraction outside (0, 1].
MemoryBudget trtllm_budget(const BudgetInputs& in);

/// The flat budget of an engine kvplan does not model, or of a reserve the user gave: requested =
/// floor(memory x utilisation), one reserve, kv = requested - weights - reserve.
MemoryBudget flat_budget(Bytes memory, double utilization, Bytes weights_per_gpu, Bytes reserve);

/// The worst-case ubatch llama.cpp reserves its compute graph for (src/llama-context.cpp sched_reserve and
/// graph_reserve), and the KV cells its attention reads: what its compute buffer depends on besides the
/// model.
struct LlamacppGraph {
  std::uint64_t n_tokens = 0;  ///< min(n_ctx, n_ubatch) rounded up to a multiple of n_seq_max
  std::uint64_t n_outputs =
      0;  ///< llama-server's: min(n_tokens, n_seq x (1 + drafts)); the library's: n_tokens
  std::uint64_t full_cells = 0;  ///< cells per stream of the non-SWA cache (n_kv of its mask); 0: none
  std::uint64_t swa_cells = 0;   ///< cells per stream of the SWA cache; 0: none
  bool flash_attn = true;        ///< -fa on / auto (the CPU and CUDA backends have FLASH_ATTN_EXT)
};

/// llama.cpp's reserved graph for `n_seq` sequences of `context` tokens each under `o` (n_ubatch, -fa,
/// --kv-unified, --swa-full, the cache padding of o.version), as core/src/engine_llamacpp.cpp sizes its
/// caches. Throws kvplan::Error("context", ...) past 2^64.
LlamacppGraph llamacpp_graph(const ModelSpec& m, const EngineOptions& o, std::uint64_t n_seq,
                             std::uint64_t context);

/// llama.cpp's compute buffer on the device that runs the whole graph (`sched_reserve: <dev> compute buffer
/// size`), as the peak of ggml-alloc's reuse over the graph's phases (core/src/budget_llamacpp.cpp has each
/// term and its source): the KQ masks live through the layers, plus the largest of the attention phase (the
/// scores n_head x n_kv x n_tokens x 4 B without flash attention), the FFN or MoE phase, the recurrent
/// phase and the output phase (logits n_vocab x n_outputs x 4 B). Checked against the real llama.cpp
/// (tests/live) and public CUDA logs (docs/engines/llamacpp-budget.md). `phase` names the largest.
struct LlamacppComputeBuffer {
  Bytes total;
  Bytes masks;  ///< the KQ masks (full and SWA), f16 with flash attention, else f32
  Bytes attention, ffn, recurrent, output;  ///< each phase's peak, masks included where they are live
  std::string phase;                        ///< "attention", "ffn", "moe", "recurrent" or "output"
};
LlamacppComputeBuffer llamacpp_compute_buffer(const ModelSpec& m, const LlamacppGraph& g);

/// llama.cpp's log line for a compute buffer of `b` bytes on CUDA0: "sched_reserve:      CUDA0 compute buffer
/// size =   258.50 MiB" (src/llama-context.cpp sched_reserve's "%s: %10s compute buffer size = %8.2f MiB").
std::string llamacpp_compute_line(Bytes b);

/// llama.cpp's budget on one GPU that holds the whole model (-ngl all): total - model buffer (the weights
/// as loaded) - compute buffer = what is left for the KV cache. llama.cpp has no utilisation fraction: the
/// whole GPU is requested unless the user gives a fraction. The compute buffer is `activation` (and the
/// reserve); its line is llama.cpp's "compute buffer size = ... MiB". Throws as llamacpp_compute_buffer.
MemoryBudget llamacpp_budget(const BudgetInputs& in, const LlamacppGraph& g);

/// The memory a modelled budget shares out (MemoryBudget::requested), in the engine's own words: `name`
/// is what the engine calls it, `basis` what it is made of. vLLM: {"requested", "runtime total x
/// utilisation"} (gpu_worker.py requested_memory); SGLang: {"requested", "free before load x
/// mem_fraction_static"}; TensorRT-LLM: {"held", "profile peak + free_gpu_memory_fraction of the rest"};
/// llama.cpp, which has no fraction (it allocates on the device until it is full; its --fit,
/// llama_params_fit, fits to the device's free memory: tools/fit-params/README.md): {"device memory",
/// "runtime total"}, "nvidia-smi total" where the runtime's is
/// unknown, with " x U (kvplan's cap; llama.cpp has none)" added only where the user gave a fraction U.
/// Engines without a modelled budget: {"usable", "memory x utilisation"}.
struct RequestedName {
  std::string name;
  std::string basis;
};
RequestedName requested_name(Engine engine, const MemoryBudget& b);

/// Maps a vLLM release number ("0.19.0", "0.11.2", "0.31.0") to the rule set kvplan models for it ("v1"
/// for 0.11 to 0.19, "0.20" for 0.20, "0.21" for 0.21 to 0.25, "0.26" for 0.26 to 0.31; the release's own
/// budget row, vllm_budget_release, still applies); a rule-set name (engine_versions) is returned as it is.
/// Throws kvplan::Error("engine_version", ...) naming the known range otherwise.
std::string vllm_rules_for_release(std::string_view release);

}  // namespace kvplan
