#pragma once
/// @file kv.hpp
/// The exact KV-cache layout: bytes per token per layer, per model, per sequence, and per GPU
/// under tensor and pipeline parallelism. All figures are integers (bytes); every product is
/// overflow-checked and throws kvplan::Error instead of wrapping.

#include <cstdint>
#include <optional>
#include <vector>

#include "kvplan/model.hpp"
#include "kvplan/units.hpp"

namespace kvplan {

/// Element types of the cache: K and V separately (MLA's latent uses `k`). Recurrent layers' fixed
/// state is at the element types the model declares (RecurrentSpec::conv_dtype, ssm_dtype) unless
/// overridden here, as vLLM's --mamba-cache-dtype (`state`: both parts) and --mamba-ssm-cache-dtype
/// (`ssm_state`: the SSM / recurrent part only) do.
struct KvDtypes {
  DType k = DType::bf16;
  DType v = DType::bf16;
  std::optional<DType> state{};      ///< override of the whole recurrent state; nullopt: as declared
  std::optional<DType> ssm_state{};  ///< override of the SSM part; nullopt: `state`, else as declared
  bool operator==(const KvDtypes&) const = default;
};

/// Where an engine puts the layers left over when pp stages do not divide the T layers evenly (each
/// stage has floor(T / pp), and T mod pp stages one more). See pipeline_stage.
enum class PipelineSplit {
  /// The first T mod pp stages (TensorRT-LLM's Mapping.pp_layers: torch.tensor_split; llama.cpp, ideal).
  first_stages,
  /// The T mod pp stages before the last, counting back from the second-to-last; the last never gets
  /// one (vLLM's get_pp_indices, vllm/distributed/utils.py: 22 layers / 4 -> 5, 6, 6, 5).
  before_last,
  /// The last T mod pp stages (SGLang's get_pp_indices, python/sglang/srt/distributed/utils.py:
  /// 22 layers / 4 -> 5, 5, 6, 6; its older copies gave the whole remainder to the last stage).
  last_stages,
};

/// How the model is split over GPUs: tp ranks share each layer's heads, pp stages own
/// consecutive layers, and `dp` whole replicas (tp x pp GPUs each) share the users. `split`: where the
/// engine puts the layers pp does not divide evenly (pipeline_split(Engine) in engine.hpp; the plan and
/// the engine policies set it from the engine).
struct Parallelism {
  std::uint64_t tp = 1;
  std::uint64_t pp = 1;
  std::uint64_t dp = 1;
  PipelineSplit split = PipelineSplit::first_stages;
  bool operator==(const Parallelism&) const = default;
};

/// KV heads one tensor-parallel rank holds: kv / tp when tp <= kv, else 1 (each rank keeps a
/// replica of one head). Follows vLLM's Attention layer (num_kv_heads // tp, at least 1) and
/// Megatron's GQA split. MLA and none layers: not applicable (returns 0).
std::uint64_t kv_heads_per_rank(const AttentionLayer& a, std::uint64_t tp);

/// Bytes one rank caches per token for one layer:
///   full/sliding/chunked: row(k, kv_heads_rank * head_dim_k) + row(v, kv_heads_rank * head_dim_v)
///   mla: row(k, kv_lora_rank + qk_rope_head_dim), not split by tp (DeepSeek-V2 paper, 2.1.2:
///        the cache holds c_t^KV and k_t^R only)
///   plus the indexer key cache when indexer_head_dim > 0: indexer_head_dim fp8 bytes + 4 B (fp32 scale)
///        per 128 values, whatever the KV dtype (vLLM DeepseekV32IndexerCache: head_dim + head_dim /
///        quant_block_size * 4, uint8; SGLang NSATokenToKVPool the same), not split by tp
///   none, or a layer that reuses another's K/V (kv_shared): 0.
/// With tp = 1 this is the whole layer's figure.
Bytes layer_bytes_per_token(const AttentionLayer& a, const KvDtypes& t, std::uint64_t tp = 1);

/// Bytes of DeepSeek-V3.2's indexer key cache per token for one layer (0 without an indexer).
Bytes indexer_bytes_per_token(const AttentionLayer& a);

/// Fixed per-sequence state of a recurrent layer (kind none), one rank: a convolution part at
/// conv_dtype and an SSM / recurrent part at ssm_dtype (each overridable in `t`). Values, after
/// vLLM's MambaStateShapeCalculator (vllm/model_executor/layers/mamba/mamba_utils.py):
///   mamba:          conv d_inner x (d_conv - 1);                 ssm d_inner x d_state
///   mamba2:         conv (d_inner + 2 n_groups d_state) x (d_conv - 1); ssm n_heads x head_dim x d_state
///   gated_deltanet: conv (2 key_dim + value_dim) x (d_conv - 1); ssm num_value_heads x key_head_dim x
///                   value_head_dim (key_dim = num_key_heads x key_head_dim, value_dim likewise)
///   kda:            conv 3 x num_key_heads x key_head_dim x (d_conv - 1) (q, k, v short convs);
///                   ssm num_key_heads x key_head_dim^2, always fp32
///                   (MambaStateDtypeCalculator.kda_state_dtype)
///   lightning:      ssm num_key_heads x key_head_dim^2 (linear_attention_state_shape), no conv
///   short_conv:     conv d_inner x (d_conv - 1), no ssm
/// With tp > 1 channels and heads are divided by tp (rounded up; Mamba2 groups are replicated when
/// fewer than tp, as extra_groups_for_head_shards does). Attention layers: 0.
Bytes layer_state_bytes(const AttentionLayer& a, const KvDtypes& t, std::uint64_t tp = 1);

/// The two parts of a recurrent layer's state, in values (not bytes), one rank; see layer_state_bytes.
struct StateValues {
  std::uint64_t conv = 0;
  std::uint64_t ssm = 0;
};
StateValues layer_state_values(const RecurrentSpec& r, std::uint64_t tp = 1);

/// Tokens one layer keeps at context L: min(L, W) for sliding/chunked, L otherwise.
Tokens cached_tokens(const AttentionLayer& a, Tokens context);

/// Refuses a V type other than K's for a model with MLA layers under the exact layout: MLA caches one
/// latent per token per layer (kv_lora_rank + qk_rope_head_dim, DeepSeek-V2 paper section 2.1.2) from
/// which both K and V are projected, so there is no V to store at another type, and the V type would be
/// silently ignored. Throws Error("v_dtype", ...).
void require_v_type_applies(const ModelSpec& m, const KvDtypes& t);

/// Sum over all cached layers of layer_bytes_per_token, as if no window were full
/// (the lesson's headline "bytes per token": 80 layers x 2 x 64 x 128 x 2 B = 2,621,440 B).
Bytes bytes_per_token(const ModelSpec& m, const KvDtypes& t);

/// Sum over the layers whose cache never caps (full and MLA): the long-run cost of one more token.
Bytes full_bytes_per_token(const ModelSpec& m, const KvDtypes& t);

/// KV bytes of one sequence at context L: each layer's bytes per token x cached_tokens(L).
/// Excludes recurrent state (see state_bytes_per_sequence).
Bytes kv_bytes_per_sequence(const ModelSpec& m, const KvDtypes& t, Tokens context);

/// Fixed recurrent state of one sequence over all layers.
Bytes state_bytes_per_sequence(const ModelSpec& m, const KvDtypes& t);

/// The layers [first, first + count) owned by one pipeline stage.
struct Stage {
  std::uint64_t first = 0;
  std::uint64_t count = 0;
  bool operator==(const Stage&) const = default;
};

/// Most pipeline stages kvplan plans: far past real deployments (tens of stages), and every figure
/// walks the stages, so a larger count would only exhaust memory and time.
inline constexpr std::uint64_t kMaxPipelineStages = 4096;

/// Splits `layers` into `pp` contiguous stages. The last `draft` layers (a speculative drafter's,
/// ModelSpec::draft_layers) stay out of the split and join the last stage, as vLLM loads the drafter on
/// the last rank only; the other T = layers - draft are split into stages of floor(T / pp) layers, T mod
/// pp of them taking one more, which ones as `split` says (the engine's rule; first_stages by default).
/// The engines' manual overrides (VLLM_PP_LAYER_PARTITION, SGLANG_PP_LAYER_PARTITION, TensorRT-LLM's
/// pp_partition) are not modelled. Throws kvplan::Error("pp", ...) when pp is 0, exceeds T (a stage
/// without a layer of the target: vLLM's get_pp_indices would leave it empty) or kMaxPipelineStages.
std::vector<Stage> pipeline_stages(std::uint64_t layers, std::uint64_t pp, std::uint64_t draft = 0,
                                   PipelineSplit split = PipelineSplit::first_stages);

/// Stage s (0-based) of pipeline_stages(layers, pp, draft, split), without building the others; pp must
/// be positive, s < pp and draft < layers (check_pipeline_stages first). O(1), allocates nothing.
Stage pipeline_stage(std::uint64_t layers, std::uint64_t pp, std::uint64_t s, std::uint64_t draft = 0,
                     PipelineSplit split = PipelineSplit::first_stages);

/// The checks of pipeline_stages alone, with its errors, building nothing.
void check_pipeline_stages(std::uint64_t layers, std::uint64_t pp, std::uint64_t draft = 0);

/// Checks tp and pp against the model: tp must divide num_attention_heads; with tp <= kv heads,
/// tp must divide them, else tp must be a multiple of them (vLLM's rule); pp <= layers.
void validate_parallelism(const ModelSpec& m, const Parallelism& p);

/// validate_parallelism's check of tp against one layer's heads (a layer without attention passes);
/// throws kvplan::Error("tp", ...) as it does.
void validate_tp(const AttentionLayer& a, std::uint64_t tp);

/// One GPU's (one tp rank's) share of a sequence, for the layers of one stage.
struct StageBytes {
  Stage stage;
  Bytes bytes_per_token;  ///< cached layers of the stage, as if no window were full, one rank
  Bytes kv_bytes;         ///< at the given context, one rank
  Bytes state_bytes;      ///< recurrent state, one rank
};

/// Per-rank bytes of one sequence at context L for every pipeline stage.
std::vector<StageBytes> per_gpu_sequence_bytes(const ModelSpec& m, const KvDtypes& t, Tokens context,
                                               const Parallelism& p);

/// KV + state of one sequence summed over every GPU of one replica (tp x pp GPUs), so
/// replicated KV heads and MLA latents are counted once per rank that holds them.
Bytes replica_sequence_bytes(const ModelSpec& m, const KvDtypes& t, Tokens context, const Parallelism& p);

}  // namespace kvplan
