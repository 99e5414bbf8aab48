#pragma once
/// @file kv.hpp
/// The exact KV-cache layout: bytes per token per layer, per model, per sequence, and per GPU
/// under tensor and pipeline parallelism. All figures are integers (bytes); every product is
/// overflow-checked and throws kvplan::Error instead of wrapping.

#include <cstdint>
#include <vector>

#include "kvplan/model.hpp"
#include "kvplan/units.hpp"

namespace kvplan {

/// Element types of the cache: K and V separately (MLA's latent uses `k`). `state` is the
/// element type of recurrent layers' fixed state (Mamba conv and SSM state).
struct KvDtypes {
  DType k = DType::bf16;
  DType v = DType::bf16;
  DType state = DType::bf16;
  bool operator==(const KvDtypes&) const = default;
};

/// How the model is split over GPUs: tp ranks share each layer's heads, pp stages own
/// consecutive layers, and `dp` whole replicas (tp x pp GPUs each) share the users.
struct Parallelism {
  std::uint64_t tp = 1;
  std::uint64_t pp = 1;
  std::uint64_t dp = 1;
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
///   none: 0.
/// With tp = 1 this is the whole layer's figure.
Bytes layer_bytes_per_token(const AttentionLayer& a, const KvDtypes& t, std::uint64_t tp = 1);

/// Fixed per-sequence state of a recurrent layer (kind none), one rank, in `t.state`:
///   mamba: d_inner * (d_conv - 1) conv state + d_inner * d_state SSM state
///          (Mamba's inference cache, as in transformers' MambaCache / vLLM's MambaSpec)
///   gated_deltanet: (2 * key_dim + value_dim) * (d_conv - 1) conv state
///          + num_value_heads * key_head_dim * value_head_dim recurrent state.
/// With tp > 1 the state is split like the layer (d_inner, or the heads, divided by tp, rounded up).
/// Attention layers: 0.
Bytes layer_state_bytes(const AttentionLayer& a, const KvDtypes& t, std::uint64_t tp = 1);

/// Tokens one layer keeps at context L: min(L, W) for sliding/chunked, L otherwise.
Tokens cached_tokens(const AttentionLayer& a, Tokens context);

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
};

/// Most pipeline stages kvplan plans: far past real deployments (tens of stages), and every figure
/// walks the stages, so a larger count would only exhaust memory and time.
inline constexpr std::uint64_t kMaxPipelineStages = 4096;

/// Splits `layers` into `pp` contiguous stages of floor(L / pp) layers, the first L mod pp
/// stages taking one more (an even split; engines may place the remainder elsewhere).
/// Throws kvplan::Error("pp", ...) when pp is 0, exceeds the layer count or kMaxPipelineStages.
std::vector<Stage> pipeline_stages(std::uint64_t layers, std::uint64_t pp);

/// Checks tp and pp against the model: tp must divide num_attention_heads; with tp <= kv heads,
/// tp must divide them, else tp must be a multiple of them (vLLM's rule); pp <= layers.
void validate_parallelism(const ModelSpec& m, const Parallelism& p);

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
