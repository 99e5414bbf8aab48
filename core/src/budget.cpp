// The engines' memory budgets (budget.hpp).
//
// vLLM V1, after vllm/v1/worker/gpu_worker.py (Worker.determine_available_memory) and
// vllm/utils/mem_utils.py (memory_profiling, MemoryProfilingResult), as vLLM 0.19.0 logs it at start-up
// ("total_gpu_memory (79.19GiB) x gpu_memory_utilization (0.95) = 75.23GiB; model weights take 14.99GiB;
// non_torch_memory takes 0.25GiB; PyTorch activation peak memory takes 1.89GiB; the rest of the memory
// reserved for KV Cache is 58.11GiB"):
//   requested  = total_memory (torch.cuda.mem_get_info) x gpu_memory_utilization
//   kv         = requested - weights - torch peak increase of profile_run - non-torch increase
// The CUDA graph estimate is printed but not subtracted up to 0.19 (VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS
// off by default). The profile run (GPUModelRunner.profile_run) runs one forward pass of
// max_num_batched_tokens tokens and, on the last pipeline stage, the sampler's dummy run over max_num_seqs
// sequences (_dummy_sampler_run: logits of max_num_seqs x vocabulary, cast to fp32 and sorted for top-k /
// top-p). The constants below were fitted on the nine vLLM 0.19.0 start-ups on H100 of
// llm-d-incubation/llm-d-planner PR #205 (accuracy/results/v0.19.0/logs); docs/engines/vllm-budget.md
// lists every run, predicted against logged.
#include "kvplan/budget.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <utility>

#include "engine_defaults.hpp"
#include "kvplan/dtype.hpp"
#include "kvplan/error.hpp"
#include "kvplan/format.hpp"
#include "kvplan/plan.hpp"
#include "kvplan/serving_dtype.hpp"

namespace kvplan {

namespace {

constexpr std::uint64_t kMiB = 1ULL << 20;
constexpr std::uint64_t kGiB = 1ULL << 30;

/// Bytes the sampler's dummy run holds per logit (one sequence x one vocabulary entry) at its peak from
/// v0.17.0, where top-k/top-p masking runs in Triton at 8 sequences or more (vllm/v1/sample/ops/
/// topk_topp_triton.py, vllm-project/vllm PR #33538): the logits in the model dtype (2 B), their fp32 copy
/// (4 B) and 8 B more. Fitted: the slope of the activation peak over vocabulary in the 0.19.0 logs is
/// 14.1 B at 1,024 sequences (Llama-3.1-8B 1.89 GiB at 128,256 entries, Qwen2.5-7B 2.21 GiB at 152,064);
/// Qwen3-14B's 2.23 GiB under 0.17.0 and 0.18.0 (151,936 entries) is the same slope.
constexpr std::uint64_t kSamplerBytesPerLogit = 14;
/// The same up to v0.16, where top-k/top-p sorts the whole vocabulary in PyTorch
/// (vllm/v1/sample/ops/topk_topp_sampler.py apply_top_k_top_p: the fp32 values and int64 indices of the
/// sort, the softmax, its cumulative sum, the mask and the scattered-back logits, beside the logits).
/// Fitted: Qwen3-14B's activation peak of 5.64 GiB under 0.15.0 and 0.16.0 on H100 (1,024 x 151,936
/// logits) less its hidden states and kProfileRunBaseBytes is 37.5 B per logit, rounded up.
constexpr std::uint64_t kSamplerBytesPerLogitSorted = 38;
/// What the profile run holds beyond the logits and the hidden states: sampling metadata, the dummy
/// run's input buffers and allocator rounding. Fitted: the mean residual of the five dense and MXFP4 runs
/// of the 0.19.0 logs once logits and hidden states are counted (0.11 to 0.14 GiB).
constexpr std::uint64_t kProfileRunBaseBytes = 128 * kMiB;
/// Non-torch memory (CUDA context, cuBLAS workspaces) of one GPU without tensor or pipeline parallelism:
/// 0.24 to 0.26 GiB in the four tp 1 pp 1 runs of the 0.19.0 logs and Qwen3-14B's 0.25 GiB under 0.18.0.
constexpr std::uint64_t kNonTorchSingleGpu = 256 * kMiB;
/// The same up to v0.17: Qwen3-14B's 0.13 GiB under 0.15.0, 0.16.0 and 0.17.0 on H100 (it rose to 0.25
/// GiB with 0.18.0, the same model and GPU).
constexpr std::uint64_t kNonTorchSingleGpuTo017 = 133 * kMiB;
/// Non-torch memory with tp >= 2: NCCL's and the custom all-reduce's buffers besides the context; 2.07 to
/// 2.13 GiB in the four tp 2 and tp 4 runs of the 0.19.0 logs, whatever the model.
constexpr std::uint64_t kNonTorchTensorParallel = 2150 * kMiB;
/// The same under v0.11: 0.54 and 0.55 GiB in the two tp 2 runs of the 0.11.0 logs on H100 (Qwen3-32B,
/// Llama-3.3-70B-FP8; llm-d/llm-d-benchmark config_explorer). When it grew to 0.19's 2.1 GiB is not known:
/// 0.12 to 0.18 take 0.19's figure, which predicts the smaller pool.
constexpr std::uint64_t kNonTorchTensorParallel011 = 560 * kMiB;
/// Non-torch memory with pp >= 2 and tp 1 (rank 0): 0.07 GiB in the one such run of the 0.19.0 logs.
constexpr std::uint64_t kNonTorchPipelineOnly = 72 * kMiB;
/// CUDA graph memory as vLLM estimates it at start-up: 0.54 to 1.69 GiB over the nine 0.19.0 runs (mean
/// 1.06 GiB), with no simple dependence on the model or tp that they show. Subtracted from v0.21 on.
constexpr std::uint64_t kCudaGraphEstimate = 1 * kGiB;

bool name_has_a100(std::string_view name) {
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lower.find("a100") != std::string::npos;
}

bool large_gpu(Bytes total, std::string_view name) {
  return total.value >= 70 * kGiB && !name_has_a100(name);
}

Bytes mul(std::uint64_t a, std::uint64_t b) { return Bytes{checked_mul(a, b, "bytes")}; }

/// Widest dense MLP (or shared expert) one tp rank runs, in values per token.
std::uint64_t dense_width(const ModelSpec& m, std::uint64_t tp) {
  std::uint64_t w = 0;
  for (const auto& g : m.layers) {
    w = std::max(w, g.mlp.num_experts == 0 ? g.mlp.intermediate_size : 0);
    w = std::max(w, g.mlp.num_shared_experts * g.mlp.shared_intermediate_size);
  }
  return ceil_div(w, tp);
}

/// The fused-MoE workspace the Triton experts keep for a batch of `tokens` (vllm/model_executor/layers/
/// fused_moe/fused_moe.py TritonExperts.workspace_shapes: (M, topk, max(N, K)) and (M, topk, N / 2) in the
/// activation dtype, N = 2 x the expert width on the rank, K = hidden, plus the (M, K) output). MXFP4
/// experts run other kernels (triton_kernels matmul_ogs, Marlin) that keep none: 0 for them. The widest
/// MoE layer decides.
Bytes moe_workspace(const ModelSpec& m, std::uint64_t tp, std::uint64_t tokens, std::uint64_t act_bytes) {
  if (m.expert_weight_dtype == DType::mxfp4) return Bytes{0};
  Bytes most{0};
  for (const auto& g : m.layers) {
    if (g.mlp.num_experts == 0) continue;
    const std::uint64_t n = 2 * ceil_div(g.mlp.expert_intermediate_size, tp);
    const std::uint64_t per_token_slot = std::max(n, m.hidden_size) + n / 2;
    const Bytes ws = mul(checked_mul(tokens, g.mlp.experts_per_token, "bytes"),
                         checked_mul(per_token_slot, act_bytes, "bytes")) +
                     mul(tokens, checked_mul(m.hidden_size, act_bytes, "bytes"));
    most = std::max(most, ws);
  }
  return most;
}

std::string gib_text(Bytes b) { return format_bytes(b, UnitSystem::iec); }

/// The forward pass of a profile run over `tokens` tokens, one tp rank: the MLP's gate/up output (2 x width)
/// and its activation (1 x width), and four hidden-size tensors (input, residual, attention and MLP outputs),
/// in the activation dtype (`act_bytes`). Fitted on vLLM 0.19.0 (its rank 0 under pp).
Bytes forward_pass_bytes(const ModelSpec& m, std::uint64_t tp, std::uint64_t tokens,
                         std::uint64_t act_bytes) {
  return mul(tokens, checked_mul(checked_add(checked_mul(3, dense_width(m, tp), "bytes"),
                                             checked_mul(4, m.hidden_size, "bytes"), "bytes"),
                                 act_bytes, "bytes"));
}

/// Memory outside torch's allocator at the profile (CUDA context, cuBLAS workspaces, NCCL's buffers with
/// tp): the fitted constants by layout, `single_gpu` without tp or pp and `tensor_parallel` with tp >= 2
/// (both changed with the release).
Bytes non_torch_bytes(const Parallelism& p, std::uint64_t single_gpu, std::uint64_t tensor_parallel) {
  return Bytes{p.tp >= 2 ? tensor_parallel : p.pp >= 2 ? kNonTorchPipelineOnly : single_gpu};
}

/// vLLM's budget rules by release, oldest first; each row's logs are in docs/engines/vllm-budget.md.
constexpr VllmBudgetRelease kVllmBudgetReleases[] = {
    {11, 11, kSamplerBytesPerLogitSorted, kNonTorchSingleGpuTo017, kNonTorchTensorParallel011, false,
     kDefaultGpuUtilization,
     "v0.11: vllm/v1/sample/ops/topk_topp_sampler.py sorts the vocabulary in PyTorch"},
    {12, 16, kSamplerBytesPerLogitSorted, kNonTorchSingleGpuTo017, kNonTorchTensorParallel, false,
     kDefaultGpuUtilization,
     "v0.12 to v0.16: vllm/v1/sample/ops/topk_topp_sampler.py sorts the vocabulary in PyTorch"},
    {17, 17, kSamplerBytesPerLogit, kNonTorchSingleGpuTo017, kNonTorchTensorParallel, false,
     kDefaultGpuUtilization,
     "v0.17.0: vllm/v1/sample/ops/topk_topp_triton.py masks top-k/top-p in Triton (PR #33538)"},
    {18, 19, kSamplerBytesPerLogit, kNonTorchSingleGpu, kNonTorchTensorParallel, false,
     kDefaultGpuUtilization, "v0.18.0 to v0.19: as v0.17.0, 0.25 GiB outside torch on one GPU"},
    // PR #38284 turned the CUDA graph profile on "and correspondingly increases the default
    // --gpu-memory-utilization to 0.92" (its description; engine_defaults.hpp). Slated for v0.21 (its log
    // line says "default since v0.21.0"), it is in the released v0.20.0: two start-ups of the official
    // vllm/vllm-openai:v0.20.0 images log that line with "--gpu-memory-utilization=0.9000 is equivalent to
    // ... 0.8878 without CUDA graph memory profiling", and list 'gpu_memory_utilization': 0.9 among their
    // "non-default args" (docs/engines/vllm-budget.md).
    {20, 26, kSamplerBytesPerLogit, kNonTorchSingleGpu, kNonTorchTensorParallel, true,
     engine_defaults::kVllmGpuMemoryUtilizationFrom020,
     "v0.20.0 to v0.26: vllm/v1/worker/gpu_worker.py subtracts the CUDA graph estimate; vllm/config/cache.py "
     "gpu_memory_utilization 0.92 by default"},
    // v0.27.0 to v0.31.0 (0.27.1, 0.28.0, 0.29.0, 0.30.0 and 0.31.0 start-ups seen; none later): the same
    // budget as v0.21 to v0.26. gpu_worker.py determine_available_memory still subtracts the CUDA graph
    // estimate ("CUDA graph memory profiling is enabled (default since v0.21.0)" logged by 0.27.1 and
    // later), and logs it inside the peak activation of its closing line (peak_activation_memory =
    // torch_peak_increase + cudagraph_memory_estimate_applied), so a 0.31.0 log's KV memory is requested -
    // consumed - "peak activation" with no separate graph term. Non-torch 0.26 GiB on one GPU (0.31.0
    // Llama-3.1-8B: 15.26 GiB consumed less 15.0 GiB of weights). Default utilisation 0.92
    // (vllm/config/cache.py; the 0.31.0 log: "Desired GPU memory utilization is (0.92, 72.91 GiB)").
    {27, 31, kSamplerBytesPerLogit, kNonTorchSingleGpu, kNonTorchTensorParallel, true,
     engine_defaults::kVllmGpuMemoryUtilizationFrom020,
     "v0.27 to v0.31: vllm/v1/worker/gpu_worker.py subtracts the CUDA graph estimate; vllm/config/cache.py "
     "gpu_memory_utilization 0.92 by default"},
};

constexpr std::uint64_t round_up(std::uint64_t v, std::uint64_t to) { return ceil_div(v, to) * to; }

/// What vLLM and SGLang load beside the weights the plan counts, per GPU: the vision tower and projector
/// (their linear layers split over tp as the language model's: vllm/model_executor/models/siglip.py
/// QKVParallelLinear, ColumnParallelLinear, RowParallelLinear; counted on every stage) in the dtype the
/// engine serves at, and the RoPE cos/sin caches. None when the user gave the weights' size; no tower when
/// the checkpoint's exact bytes (safetensors, GGUF) are known, as they hold it.
struct LoadedExtras {
  Bytes encoder;
  Bytes rope;
};

}  // namespace

Bytes vllm_rope_cache_bytes(const ModelSpec& m);

namespace {
LoadedExtras loaded_extras(const BudgetInputs& in, Engine engine) {
  if (in.weights_given) return {};
  const ModelSpec& m = in.model;
  const std::uint64_t act = info(auto_serving_dtype(m, engine)).block_bytes;
  // Split over the tp ranks, or whole on each (ModelSpec::encoder_whole_per_gpu: Gemma 4's towers).
  const std::uint64_t split = m.encoder_whole_per_gpu ? 1 : in.parallel.tp;
  return {m.weights_bytes ? Bytes{0} : Bytes{ceil_div(mul(m.encoder_parameters, act).value, split)},
          vllm_rope_cache_bytes(m)};
}

/// The notes both engines' budgets give on LoadedExtras and on the GPU total; `encoder_tail` says what the
/// engine does about encoders beyond their weights.
void note_loaded_extras(MemoryBudget& b, const ModelSpec& m, const LoadedExtras& x, Bytes total,
                        const std::string& encoder_tail) {
  if (x.encoder.value != 0)
    b.notes.push_back("weights as loaded: the multimodal encoders and projectors (" +
                      format_count(m.encoder_parameters) + " parameters, " + gib_text(x.encoder) +
                      " per GPU); " + encoder_tail);
  if (!m.encoder_unknown.empty())
    b.notes.push_back("weights as loaded: " + m.encoder_unknown +
                      " (not counted: the weights here are below what the engine loads)");
  if (x.rope.value != 0)
    b.notes.push_back("weights as loaded: the RoPE cos/sin caches (" + gib_text(x.rope) + ")");
  if (!b.runtime_total)
    b.notes.push_back("the GPU's runtime-visible memory (torch's total_memory) is not known: nvidia-smi's " +
                      gib_text(total) + " used, which is larger (H100 80GB: 79.65 against 79.19 GiB)");
}
}  // namespace

Bytes vllm_rope_cache_bytes(const ModelSpec& m) {
  std::uint64_t head_dim = 0;
  bool sliding = false;
  for (const auto& g : m.layers) {
    const AttentionLayer& a = g.attention;
    if (a.kind == AttentionKind::mla) head_dim = std::max(head_dim, a.qk_rope_head_dim);
    if (a.kind == AttentionKind::full || a.kind == AttentionKind::sliding || a.kind == AttentionKind::chunked)
      head_dim = std::max(head_dim, a.head_dim_k);
    sliding = sliding || a.kind == AttentionKind::sliding;
  }
  const RopeScaling& rope = m.context_keys.rope;
  std::uint64_t positions = m.max_position_embeddings;
  if (rope.type == "linear" && rope.factor > 1.0) {
    const double scaled = static_cast<double>(positions) * rope.factor;
    if (!(scaled < 9.2e18)) throw Error("bytes", "overflows 64-bit arithmetic");  // never cast past 2^63
    positions = static_cast<std::uint64_t>(scaled);
  }
  const std::uint64_t act = info(auto_serving_dtype(m, Engine::vllm)).block_bytes;  // the model dtype
  Bytes b = mul(positions, checked_mul(head_dim, act, "bytes"));
  // Sliding layers with their own (unscaled) rotary base, as Gemma 3's rope_local_base_freq: a second cache.
  if (sliding && positions != m.max_position_embeddings)
    b += mul(m.max_position_embeddings, checked_mul(head_dim, act, "bytes"));
  return b;
}

Bytes vllm_mxfp4_padding_bytes(const ModelSpec& m, std::uint64_t tp, std::uint64_t pp) {
  if (m.expert_weight_dtype != DType::mxfp4) return Bytes{0};
  std::uint64_t values = 0;  // padded values per rank over the whole model, all three matrices
  for (const auto& g : m.layers) {
    if (g.mlp.num_experts == 0) continue;
    const std::uint64_t width = ceil_div(g.mlp.expert_intermediate_size, tp);
    const std::uint64_t padded = checked_mul(round_up(width, 128), round_up(m.hidden_size, 256), "bytes");
    const std::uint64_t plain = checked_mul(width, m.hidden_size, "bytes");
    values = checked_add(values,
                         checked_mul(checked_mul(g.count, g.mlp.num_experts, "bytes"),
                                     checked_mul(3, padded - plain, "bytes"), "bytes"),
                         "bytes");
  }
  // MXFP4: 16 B of values and one E8M0 scale per block of 32 (dtype.cpp's 17 B per 32).
  return Bytes{ceil_div(ceil_div(checked_mul(values, 17, "bytes"), 32), pp)};
}

std::uint64_t vllm_default_max_num_seqs(Bytes total, std::string_view name) {
  return large_gpu(total, name) ? 1024 : 256;
}

std::uint64_t vllm_default_max_num_batched_tokens(Bytes total, std::string_view name) {
  return large_gpu(total, name) ? 8192 : 2048;
}

MemoryBudget flat_budget(Bytes memory, double utilization, Bytes weights_per_gpu, Bytes reserve) {
  MemoryBudget b;
  b.total = memory;
  b.requested = usable_memory(memory, utilization);
  b.weights = weights_per_gpu;
  b.activation = reserve;  // the reserve stands for every runtime cost
  b.reserve = reserve;
  b.utilization = utilization;
  const Bytes fixed = weights_per_gpu + reserve;
  b.fits_weights = fixed <= b.requested;
  b.kv = b.fits_weights ? b.requested - fixed : Bytes{0};
  b.first_stage_kv = b.kv;
  return b;
}

RequestedName requested_name(Engine engine, const MemoryBudget& b) {
  if (!b.modelled) return {"usable", "memory x utilisation"};
  switch (engine) {
    case Engine::sglang: return {"requested", "free before load x mem_fraction_static"};
    case Engine::trtllm: return {"held", "profile peak + free_gpu_memory_fraction of the rest"};
    case Engine::llamacpp: {
      // llama.cpp shares out the device's memory whole: it has no fraction to name (issue 27).
      std::string basis = b.runtime_total ? "runtime total" : "nvidia-smi total";
      if (b.utilization != 1.0)
        basis += " x " + format_shortest(b.utilization) + " (kvplan's cap; llama.cpp has none)";
      return {"device memory", basis};
    }
    case Engine::vllm:
    case Engine::ideal: break;
  }
  return {"requested", "runtime total x utilisation"};
}

MemoryBudget vllm_budget(const BudgetInputs& in) {
  const ModelSpec& m = in.model;
  const Parallelism& p = in.parallel;
  const Bytes total = in.gpu.runtime_memory.value_or(in.gpu.memory);
  const VllmBudgetRelease release = vllm_budget_release(in.engine);
  const Bytes padding = in.weights_given ? Bytes{0} : vllm_mxfp4_padding_bytes(m, p.tp, p.pp);
  // Activations are in the dtype vLLM serves at (an fp32 checkpoint's auto dtype is bf16 or fp16: 2 B).
  const std::uint64_t act = info(auto_serving_dtype(m, Engine::vllm)).block_bytes;
  const LoadedExtras extras = loaded_extras(in, Engine::vllm);
  const double utilization = in.gpu_memory_utilization.value_or(release.default_gpu_utilization);
  MemoryBudget b =
      flat_budget(total, utilization, in.weights_per_gpu + padding + extras.encoder + extras.rope, Bytes{0});
  b.modelled = true;
  b.runtime_total = in.gpu.runtime_memory.has_value();
  b.rules = "vLLM V1 (" + std::string(release.source) +
            "; vllm/v1/worker/gpu_worker.py determine_available_memory)";

  b.max_num_batched_tokens = in.engine.max_num_batched_tokens != 0
                                 ? in.engine.max_num_batched_tokens
                                 : vllm_default_max_num_batched_tokens(total, in.gpu.name);
  // vLLM refuses a max_num_batched_tokens below max_num_seqs when both are given (SchedulerConfig's
  // verification); its defaults are capped instead (EngineArgs: min(max_num_seqs, max_num_batched_tokens)).
  if (in.engine.max_num_seqs != 0 && in.engine.max_num_batched_tokens != 0 &&
      in.engine.max_num_seqs > in.engine.max_num_batched_tokens)
    throw Error("max_num_seqs", format_count(in.engine.max_num_seqs) + " exceeds max_num_batched_tokens " +
                                    format_count(in.engine.max_num_batched_tokens) +
                                    ": vLLM refuses a batch of fewer tokens than sequences");
  b.max_num_seqs = std::min(
      in.engine.max_num_seqs != 0 ? in.engine.max_num_seqs : vllm_default_max_num_seqs(total, in.gpu.name),
      b.max_num_batched_tokens);
  const std::uint64_t tokens = b.max_num_batched_tokens;

  // The forward pass at max_num_batched_tokens: the MLP's gate/up output (2 x width) and its activation
  // (1 x width), and four hidden-size tensors (input, residual, attention and MLP outputs).
  const Bytes forward = forward_pass_bytes(m, p.tp, tokens, act);
  // The sampler's dummy run on the last stage, with the hidden states of the forward pass still held.
  const Bytes sampler =
      mul(checked_mul(b.max_num_seqs, m.vocab_size, "bytes"), release.sampler_bytes_per_logit) +
      mul(tokens, checked_mul(m.hidden_size, act, "bytes")) + Bytes{kProfileRunBaseBytes};
  const Bytes moe = moe_workspace(m, p.tp, tokens, act);
  const Bytes last = std::max(forward, sampler) + moe;
  const Bytes first = p.pp > 1 ? forward + moe : last;
  b.activation = last;  // the last stage's pool is the smallest: every stage gets it
  b.non_torch = non_torch_bytes(p, release.non_torch_single_gpu, release.non_torch_tensor_parallel);
  // From v0.21.0 the profile counts CUDA graph memory and subtracts it (vllm/v1/worker/gpu_worker.py,
  // VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS on by default).
  const bool graphs = release.subtracts_cuda_graphs;
  b.cuda_graphs = Bytes{graphs ? kCudaGraphEstimate : 0};
  b.reserve = b.activation + b.non_torch + b.cuda_graphs;
  const Bytes fixed = b.weights + b.reserve;
  b.fits_weights = fixed <= b.requested;
  b.kv = b.fits_weights ? b.requested - fixed : Bytes{0};
  const Bytes first_fixed = b.weights + first + b.non_torch + b.cuda_graphs;
  b.first_stage_kv = first_fixed <= b.requested ? b.requested - first_fixed : Bytes{0};

  const std::string util = format_shortest(utilization);
  b.lines.push_back("total_gpu_memory (" + gib(total) + "GiB) x gpu_memory_utilization (" + util +
                    ") = " + gib(b.requested) + "GiB");
  b.lines.push_back("model weights take " + gib(b.weights) + "GiB");
  b.lines.push_back("non_torch_memory takes " + gib(b.non_torch) + "GiB");
  b.lines.push_back(
      "PyTorch activation peak memory takes " + gib(p.pp > 1 ? first : last) + "GiB" +
      (p.pp > 1 ? " (rank 0; the last stage's, with the sampler: " + gib_text(last) + ")" : ""));
  b.lines.push_back(
      "the rest of the memory reserved for KV Cache is " + gib(p.pp > 1 ? b.first_stage_kv : b.kv) + "GiB" +
      (p.pp > 1 ? " (rank 0; every stage takes the smallest stage's pool: " + gib_text(b.kv) + ")" : ""));

  if (!in.gpu_memory_utilization && release.default_gpu_utilization != kDefaultGpuUtilization)
    b.notes.push_back("gpu_memory_utilization " + util +
                      ": vLLM's default from v0.20.0 (vllm/config/cache.py CacheConfig; PR #38284)");
  note_loaded_extras(b, m, extras, total,
                     "vLLM leaves an encoder out only when every modality it serves is limited to 0 per "
                     "prompt (interfaces.py _mark_tower_model; images and videos for a vision tower): not "
                     "modelled");
  if (padding.value != 0)
    b.notes.push_back(
        "weights as loaded: the MXFP4 experts padded for vLLM's Marlin MoE kernel (width to a "
        "multiple of 128, hidden to 256) add " +
        gib_text(padding) + " per GPU (Blackwell's FlashInfer path pads otherwise: not modelled)");
  b.notes.push_back(
      "activation peak: the sampler over " + format_count(b.max_num_seqs) + " sequences x " +
      format_count(m.vocab_size) + " vocabulary (" + gib_text(sampler) +
      " with the held hidden states), the forward pass of " + format_count(tokens) + " tokens (" +
      gib_text(forward) + ")" + (moe.value != 0 ? ", the fused-MoE workspace (" + gib_text(moe) + ")" : "") +
      "; " + format_count(release.sampler_bytes_per_logit) + " B per logit in vLLM 0." +
      format_count(release.first_minor) + " to 0." + format_count(release.last_minor) +
      (release.sampler_bytes_per_logit == kSamplerBytesPerLogitSorted ? " (top-k/top-p sorts the vocabulary)"
                                                                      : " (top-k/top-p in Triton)"));
  if (p.tp >= 2 && p.pp >= 2)
    b.notes.push_back("non-torch memory with both tp and pp is taken as tp's (" + gib_text(b.non_torch) +
                      "): no log of that layout was checked");
  if (graphs)
    b.notes.push_back("CUDA graph memory: vLLM 0.20 and later subtract their estimate; taken as " +
                      gib_text(b.cuda_graphs) + " (0.54 to 1.69 GiB in the 0.19.0 logs)");
  else
    b.notes.push_back(
        "CUDA graph memory is not subtracted (vLLM up to 0.19 prints its estimate only; "
        "VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=1 subtracts it)");
  if (release.first_minor == 27)
    b.notes.push_back(
        "vLLM 0.27 to 0.31: 0.19's profile-run figures, checked against two start-ups (0.31.0, "
        "Llama-3.1-8B on an A100 80GB: KV 0.11 GiB under the logged 56.21 GiB; 0.27.1, Qwen3-8B on an RTX "
        "4090: 0.45 GiB under 4.92 GiB); vLLM logs its CUDA graph estimate inside the peak activation");
  else if (release.first_minor == 20)
    b.notes.push_back(
        "the activation and non-torch figures follow vLLM 0.19's profile run, checked against one 0.26.0 "
        "start-up (Gemma-4-31B on a B300: the activation 0.19 GiB under the logged 3.9 GiB)");
  else if (release.first_minor == 12)
    b.notes.push_back(
        "vLLM 0.12 to 0.16's figures were checked against 0.15 and 0.16 start-ups on one GPU only (0.12 to "
        "0.14 are taken as alike: the same PyTorch top-k/top-p sort; with tp the non-torch figure is "
        "0.19's)");
  return b;
}

Bytes trtllm_available_kv(Bytes total, Bytes peak_without_kv, double fraction) {
  if (!std::isfinite(fraction) || fraction <= 0.0 || fraction > 1.0)
    throw Error("gpu_util", "must be in (0, 1]");
  if (peak_without_kv >= total) return Bytes{0};
  const long double v = std::floor(static_cast<long double>((total - peak_without_kv).value) *
                                   static_cast<long double>(fraction));
  return Bytes{static_cast<std::uint64_t>(v)};
}

MemoryBudget trtllm_budget(const BudgetInputs& in) {
  const ModelSpec& m = in.model;
  const Parallelism& p = in.parallel;
  const Bytes total = in.gpu.runtime_memory.value_or(in.gpu.memory);
  const double fraction = in.gpu_memory_utilization.value_or(kTrtllmDefaultFreeGpuMemoryFraction);
  const std::uint64_t act = info(auto_serving_dtype(m, Engine::trtllm)).block_bytes;
  const LoadedExtras extras = loaded_extras(in, Engine::trtllm);

  MemoryBudget b;
  b.modelled = true;
  b.rules =
      "TensorRT-LLM, PyTorch backend (tensorrt_llm/_torch/pyexecutor/_util.py KvCacheCreator: "
      "configure_kv_cache_capacity, _cal_max_memory)";
  b.total = total;
  b.runtime_total = in.gpu.runtime_memory.has_value();
  b.utilization = fraction;
  // The encoder as loaded; the RoPE caches are vLLM's buffers (TensorRT-LLM keeps its own: not counted).
  b.weights = in.weights_per_gpu + extras.encoder;
  b.max_num_batched_tokens =
      in.engine.max_num_batched_tokens != 0 ? in.engine.max_num_batched_tokens : kTrtllmDefaultMaxNumTokens;
  // The profile run: context requests of max_num_tokens tokens in all (_create_dummy_context_requests);
  // only each request's last token reaches the LM head (gather_context_logits off), so no sampler term.
  const Bytes forward = forward_pass_bytes(m, p.tp, b.max_num_batched_tokens, act);
  const Bytes moe = moe_workspace(m, p.tp, b.max_num_batched_tokens, act);
  b.activation = forward + moe;
  b.non_torch = non_torch_bytes(p, kNonTorchSingleGpu, kNonTorchTensorParallel);
  // CUDA graphs are captured before the profile (the "CUDA graph warmup" lines precede the memory lines):
  // their pool is in the memory outside torch that the peak counts.
  b.cuda_graphs = Bytes{kCudaGraphEstimate};
  b.reserve = b.activation + b.non_torch + b.cuda_graphs;
  const Bytes peak = b.weights + b.reserve;
  b.kv = trtllm_available_kv(total, peak, fraction);
  b.fits_weights = peak < total;
  b.requested = b.fits_weights ? peak + b.kv : total;
  b.first_stage_kv = b.kv;

  b.lines.push_back("Memory used after loading model weights (inside torch) in memory usage profiling: " +
                    gib(b.weights) + " GiB");
  b.lines.push_back(
      "Memory dynamically allocated during inference (inside torch) in memory usage profiling: " +
      gib(b.activation) + " GiB");
  b.lines.push_back("Memory used outside torch (e.g., NCCL and CUDA graphs) in memory usage profiling: " +
                    gib(b.non_torch + b.cuda_graphs) + " GiB");
  b.lines.push_back(
      "Peak memory during memory usage profiling (torch + non-torch, without the temporary KV "
      "cache): " +
      gib(peak) + " GiB, available KV cache memory when calculating max tokens: " + gib(b.kv) +
      " GiB, fraction is set " + format_shortest(fraction) + ", device total memory " + gib(total) + " GiB");

  if (!in.gpu_memory_utilization)
    b.notes.push_back(
        "free_gpu_memory_fraction " + format_shortest(fraction) +
        ": TensorRT-LLM's default, a share of the memory left after the weights and the "
        "profile (a GPU utilisation given sets it, as trtllm-serve's --kv_cache_free_gpu_memory_fraction "
        "does)");
  b.notes.push_back("activation peak: the forward pass of " + format_count(b.max_num_batched_tokens) +
                    " tokens, max_num_tokens (" + gib_text(forward) + ")" +
                    (moe.value != 0 ? ", the fused-MoE workspace (" + gib_text(moe) + ")" : "") +
                    "; non-torch " + gib_text(b.non_torch) + " and CUDA graphs " + gib_text(b.cuda_graphs) +
                    ": vLLM 0.19's fitted figures for the same costs, not checked against a TensorRT-LLM "
                    "start-up log");
  note_loaded_extras(b, m, {extras.encoder, Bytes{0}}, total,
                     "TensorRT-LLM's own multimodal encoder profile and cache are not modelled");
  return b;
}

namespace {

/// Free memory before the weights load that CUDA's context and torch take on one GPU under SGLang: 78.81
/// and 78.59 GiB free ("Load weight begin. avail mem") of the H100's 79.19 GiB in two tp 1 logs (0.38 and
/// 0.60 GiB taken; docs/engines/sglang-budget.md).
constexpr std::uint64_t kSglangStartupSingleGpu = 512 * kMiB;
/// The same with tp >= 2, NCCL's and the custom all-reduce's buffers added: 137.29 GiB free on the
/// smallest of eight H200 ranks of 139.80 GiB ("Init torch distributed ends. mem usage=1.96 to 2.01 GB",
/// sgl-project/sglang PR #11716).
constexpr std::uint64_t kSglangStartupTensorParallel = 2560 * kMiB;
/// pp >= 2 with tp 1: the context and torch.distributed's 0.16 GB ("Init torch distributed ends. mem
/// usage=0.16 GB" on every stage, sgl-project/sglang PR #12362).
constexpr std::uint64_t kSglangStartupPipelineOnly = 676 * kMiB;

/// SGLang 0.5's chunked_prefill_size and cuda_graph_max_bs for a GPU of `gpu_mib` MiB at tensor parallel
/// `tp` (server_args.py _handle_gpu_memory_settings: the memory bands of T4, A10, A100 40GB, H100,
/// H200 and B200).
std::pair<std::uint64_t, std::uint64_t> sglang_batch_defaults(double gpu_mib, std::uint64_t tp) {
  if (gpu_mib < 20 * 1024) return {2048, 8};
  if (gpu_mib < 35 * 1024) return {2048, tp < 4 ? 24 : 80};
  if (gpu_mib < 60 * 1024) return {4096, tp < 4 ? 32 : 160};
  if (gpu_mib < 160 * 1024) return {8192, tp < 4 ? 256 : 512};  // H100, A100 80GB; H20, H200
  return {16384, 512};
}

/// SGLang 0.5's reserved_mem in MB (server_args.py _handle_gpu_memory_settings).
double sglang_reserved_mib(double gpu_mib, std::uint64_t tp, std::uint64_t pp, std::uint64_t dp_attention) {
  const auto [chunked, graph_bs] = sglang_batch_defaults(gpu_mib, tp);
  double reserved = 512.0 + static_cast<double>(std::max<std::uint64_t>(chunked, 2048)) * 1.5 +
                    static_cast<double>(graph_bs) * 2.0 +
                    static_cast<double>(tp) * static_cast<double>(pp) / 8.0 * 1024.0;
  if (dp_attention > 1) {
    reserved += static_cast<double>(graph_bs) * static_cast<double>(dp_attention) * 3.0;
    if (graph_bs > 300) reserved += static_cast<double>(graph_bs) * static_cast<double>(dp_attention) * 1.5;
  }
  if (gpu_mib > 60.0 * 1024.0) reserved = std::max(reserved, 10.0 * 1024.0);
  return reserved;
}

}  // namespace

double sglang_default_mem_fraction_static(Bytes gpu_memory, std::uint64_t tp, std::uint64_t pp,
                                          std::uint64_t dp_attention, std::string_view rules) {
  if (rules == "0.4") return tp >= 16 ? 0.79 : tp >= 8 ? 0.81 : tp >= 4 ? 0.85 : tp >= 2 ? 0.87 : 0.88;
  if (!rules.empty() && rules != "0.5")
    throw Error("engine_version", "SGLang rule sets: 0.5, 0.4; got '" + std::string(rules) + "'");
  const double gpu_mib = static_cast<double>(gpu_memory.value) / static_cast<double>(kMiB);
  const double reserved = sglang_reserved_mib(gpu_mib, tp, pp, dp_attention);
  // SGLang's default would be 0 or negative and its server fails: the user must give the fraction.
  if (!(gpu_mib > reserved))
    throw Error("gpu_util", "SGLang's default mem_fraction_static reserves " +
                                format_count(static_cast<std::uint64_t>(reserved)) + " MB at tp " +
                                format_count(tp) + " x pp " + format_count(pp) + " of a " +
                                format_count(static_cast<std::uint64_t>(gpu_mib)) +
                                " MB GPU, leaving nothing: give the fraction");
  return std::round((gpu_mib - reserved) / gpu_mib * 1000.0) / 1000.0;
}

MemoryBudget sglang_budget(const BudgetInputs& in) {
  const ModelSpec& m = in.model;
  const Parallelism& p = in.parallel;
  const Bytes total = in.gpu.runtime_memory.value_or(in.gpu.memory);
  const std::string rules = in.engine.version.empty() ? "0.5" : in.engine.version;
  const double fraction =  // the default only when none is given: it can be refused (no room left)
      in.gpu_memory_utilization
          ? *in.gpu_memory_utilization
          : sglang_default_mem_fraction_static(in.gpu.memory, p.tp, p.pp, in.dp_attention, rules);
  const Bytes startup{p.tp >= 2   ? kSglangStartupTensorParallel
                      : p.pp >= 2 ? kSglangStartupPipelineOnly
                                  : kSglangStartupSingleGpu};
  const Bytes free_before = total > startup ? total - startup : Bytes{0};
  const LoadedExtras extras = loaded_extras(in, Engine::sglang);
  MemoryBudget b =
      flat_budget(free_before, fraction, in.weights_per_gpu + extras.encoder + extras.rope, Bytes{0});
  b.total = total;
  b.modelled = true;
  b.runtime_total = in.gpu.runtime_memory.has_value();
  b.non_torch = startup;
  b.rules = "SGLang " + rules +
            " (python/sglang/srt/model_executor/model_runner.py profile_max_num_token; server_args.py " +
            (rules == "0.4" ? "ServerArgs.__post_init__" : "_handle_gpu_memory_settings") + ")";

  const auto gb = [](Bytes v) { return gib(v); };  // SGLang's "GB" is GiB (get_available_gpu_memory)
  const std::string frac_text = format_fixed(fraction, 3);
  const Bytes after = free_before > b.weights ? free_before - b.weights : Bytes{0};
  b.lines.push_back("mem_fraction_static=" + format_shortest(fraction));
  b.lines.push_back("Load weight begin. avail mem=" + gb(free_before) + " GB");
  b.lines.push_back("Load weight end. avail mem=" + gb(after) + " GB, mem usage=" + gb(b.weights) + " GB");
  b.lines.push_back("rest_memory = " + gb(after) + " - " + gb(free_before) + " x (1 - " + frac_text +
                    ") = " + (b.fits_weights ? gb(b.kv) : "-" + gb(b.weights - b.requested)) + " GB");

  if (!in.gpu_memory_utilization) {
    std::string why = rules == "0.4"
                          ? "by tp " + format_count(p.tp)
                          : "reserving " +
                                format_count(static_cast<std::uint64_t>(sglang_reserved_mib(
                                    static_cast<double>(in.gpu.memory.value) / static_cast<double>(kMiB),
                                    p.tp, p.pp, in.dp_attention))) +
                                " MB of " + format_count(in.gpu.memory.value / kMiB) + " MiB";
    b.notes.push_back("mem_fraction_static " + frac_text + ": SGLang " + rules + "'s default, " + why +
                      " (--mem-fraction-static sets it)");
  }
  b.notes.push_back(
      "SGLang keeps activations and CUDA graphs in the (1 - mem_fraction_static) share of the free memory; "
      "they are not counted apart");
  b.notes.push_back("memory held before the weights load (CUDA context" +
                    std::string(p.tp >= 2   ? ", NCCL buffers"
                                : p.pp >= 2 ? ", torch.distributed"
                                            : "") +
                    "): " + gib_text(startup) + ", fitted on public SGLang logs");
  note_loaded_extras(b, m, extras, total,
                     "SGLang also lowers the default fraction for multimodal models "
                     "(adjust_mem_fraction_for_vlm): not modelled");
  if (rules == "0.5" && !in.gpu_memory_utilization)
    b.notes.push_back(
        "not modelled in the default fraction: piecewise CUDA graphs, speculative decoding's draft "
        "reserve, symmetric memory");
  return b;
}

namespace {
/// The minor number of a release written "0.MINOR" or "0.MINOR.PATCH" (a patch may carry a suffix:
/// "0.5.3.post1", "0.19.0rc1"), digits as a release writes them: no leading zero ("0.019" is not 0.19).
/// nullopt for anything else.
std::optional<unsigned> release_minor(std::string_view release) {
  const auto digits = [](std::string_view s) {
    return !s.empty() && s.size() <= 4 && (s.size() == 1 || s.front() != '0') &&
           std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  if (release.substr(0, 2) != "0.") return std::nullopt;
  const std::string_view rest = release.substr(2);
  const auto dot = rest.find('.');
  const std::string_view minor_text = rest.substr(0, dot);
  if (!digits(minor_text)) return std::nullopt;
  if (dot != std::string_view::npos) {
    const std::string_view patch = rest.substr(dot + 1);
    const auto end = patch.find_first_of(".r");
    // The only suffixes: ".postN" and "rcN" ("0.19.0.1" is not a release).
    const std::string_view suffix = end == std::string_view::npos ? "" : patch.substr(end);
    const bool suffix_ok = suffix.empty() || (suffix.substr(0, 5) == ".post" && digits(suffix.substr(5))) ||
                           (suffix.substr(0, 2) == "rc" && digits(suffix.substr(2)));
    if (!digits(patch.substr(0, end)) || !suffix_ok) return std::nullopt;
  }
  unsigned minor = 0;
  std::from_chars(minor_text.data(), minor_text.data() + minor_text.size(), minor);
  return minor;
}
}  // namespace

std::string sglang_rules_for_release(std::string_view release) {
  if (release == "0.5" || release == "0.4") return std::string(release);
  const auto minor = release_minor(release);
  // A bare "0.4" is a rule set (above); a release has its patch number.
  if (minor && release.find('.', 2) != std::string_view::npos) {
    if (*minor == 4) return "0.4";
    if (*minor == 5) return "0.5";
  }
  throw Error("engine_version",
              "'" + std::string(release) +
                  "' is not an SGLang release kvplan models: 0.4.x or 0.5.x (e.g. 0.5.3), or "
                  "the rule sets 0.5, 0.4");
}

unsigned vllm_release_minor(const EngineOptions& o) {
  if (!o.release.empty()) {
    vllm_rules_for_release(o.release);  // the known range, or the error naming it
    const auto typed = release_minor(o.release);
    if (!typed)
      throw Error("engine_version", "'" + o.release + "' is not a vLLM release number (e.g. 0.19.0)");
    return *typed;
  }
  if (o.version == "0.20") return 20;
  if (o.version == "0.21") return 21;
  if (o.version == "0.26") return 26;
  if (o.version == "v0") return 6;
  return 19;  // the default rule set "v1" is calibrated on 0.19.0
}

VllmBudgetRelease vllm_budget_release(const EngineOptions& o) {
  const unsigned minor = o.version == "v0" && o.release.empty() ? 19 : vllm_release_minor(o);
  for (const auto& row : kVllmBudgetReleases)
    if (minor >= row.first_minor && minor <= row.last_minor) return row;
  throw Error("engine_version",
              "'" + o.release + "' is not a vLLM release kvplan models: releases 0.11 to 0.31");
}

std::string vllm_rules_for_release(std::string_view release) {
  for (const auto v : engine_versions(Engine::vllm))
    if (v == release) return std::string(release);
  const auto minor = release_minor(release);
  if (minor && *minor >= 11 && *minor <= 19) return "v1";
  if (minor && *minor == 20) return "0.20";
  if (minor && *minor >= 21 && *minor <= 25) return "0.21";
  // 0.27 to 0.31 keep 0.26's KV rules (PR #47728's in-flight reserve); their budget row differs
  // (kVllmBudgetReleases: the default utilisation). 0.31 is the newest release seen.
  if (minor && *minor >= 26 && *minor <= 31) return "0.26";
  throw Error("engine_version", "'" + std::string(release) +
                                    "' is not a vLLM release kvplan models: releases 0.11 to 0.31 (e.g. "
                                    "0.19.0), or the rule sets v1, 0.20, 0.21, 0.26, v0");
}

}  // namespace kvplan
