#pragma once
/// @file kv_spec.hpp
/// What one layer caches, per kind, for one tensor-parallel rank: the one place that reads a layer's
/// attention kind to size its cache. Every engine policy asks these specs for the geometry (bytes per
/// token, per page, per request) and keeps only its own rules (paging, padding, pools).
/// Modelled on vLLM's KVCacheSpec classes (vllm/v1/kv_cache_interface.py: FullAttentionSpec,
/// SlidingWindowSpec, ChunkedLocalAttentionSpec, MLAAttentionSpec, MambaSpec; page_size_bytes,
/// max_memory_usage_bytes) and llama.cpp's per-layer accessors (src/llama-hparams.cpp n_embd_k_gqa(il),
/// n_embd_v_gqa(il), is_swa(il), is_recurrent(il)).

#include <cstdint>
#include <vector>

#include "kvplan/kv.hpp"
#include "kvplan/model.hpp"
#include "kvplan/units.hpp"

namespace kvplan {

/// The kinds of cache a layer keeps.
enum class KvKind {
  full,             ///< K and V of every token (MHA, GQA, MQA): vLLM FullAttentionSpec
  sliding,          ///< K and V of the last `window` tokens: SlidingWindowSpec
  chunked,          ///< K and V within the current chunk of `window` tokens: ChunkedLocalAttentionSpec
  mla,              ///< one latent per token (kv_lora_rank + qk_rope_head_dim), K only: MLAAttentionSpec
  indexer,          ///< DeepSeek-V3.2's lightning-indexer keys beside the latent (DeepseekV32IndexerCache)
  recurrent_state,  ///< the SSM / recurrent part of a recurrent layer's fixed state (MambaSpec's ssm shape)
  conv_state,       ///< the rolling convolution window of a recurrent layer (MambaSpec's conv shape)
  none,             ///< nothing cached (an MLP-only block, a layer that reads another's K/V)
};

/// "full", "sliding", "chunked", "mla", "indexer", "recurrent_state", "conv_state", "none".
std::string_view name(KvKind k);

/// One cache of one layer on one tp rank. Per-token kinds (full, sliding, chunked, mla, indexer) keep
/// k_bytes + v_bytes per token; the state kinds keep `state` bytes per sequence whatever its length.
struct KvSpec {
  KvKind kind = KvKind::none;
  /// Values per token of the K and V rows (llama.cpp n_embd_k_gqa / n_embd_v_gqa at this rank): full,
  /// sliding, chunked: kv_heads_per_rank x head_dim_k, x head_dim_v; mla: kv_lora_rank + qk_rope_head_dim
  /// and 0; indexer: its bytes (uint8) and 0; state and none kinds: 0.
  std::uint64_t k_values = 0;
  std::uint64_t v_values = 0;
  Bytes k_bytes{0};          ///< bytes of the K row per token (row_bytes of the K type)
  Bytes v_bytes{0};          ///< bytes of the V row per token
  std::uint64_t window = 0;  ///< sliding: the window W; chunked: the chunk C; else 0
  std::uint64_t values = 0;  ///< state kinds: values of the state per sequence; else 0
  Bytes state{0};            ///< state kinds: bytes per sequence; else 0

  /// Whether the cache grows with every token (full, mla, indexer): it never caps.
  [[nodiscard]] bool grows() const {
    return kind == KvKind::full || kind == KvKind::mla || kind == KvKind::indexer;
  }
  /// Whether the cache keeps a window of tokens (sliding, chunked): llama.cpp's is_swa(il).
  [[nodiscard]] bool windowed() const { return kind == KvKind::sliding || kind == KvKind::chunked; }
  /// Whether it is a fixed state per sequence (recurrent_state, conv_state): llama.cpp's is_recurrent(il).
  [[nodiscard]] bool is_state() const {
    return kind == KvKind::recurrent_state || kind == KvKind::conv_state;
  }
  /// Bytes per token: k_bytes + v_bytes (0 for the state and none kinds).
  [[nodiscard]] Bytes bytes_per_token() const { return k_bytes + v_bytes; }
  /// Bytes of one page of `block_size` tokens (vLLM's page_size_bytes before any padding):
  /// bytes_per_token x block_size; the state kinds: the state (one page per sequence); none: 0. Checked.
  [[nodiscard]] Bytes page_size_bytes(std::uint64_t block_size) const;
  /// Tokens kept at most for one request of `context` tokens: min(L, W) for sliding and chunked, L for the
  /// other per-token kinds, 0 for the state and none kinds.
  [[nodiscard]] Tokens cached_tokens(Tokens context) const;
  /// The most memory one request of `context` tokens takes, unpaged (the exact layout):
  /// bytes_per_token x cached_tokens(L), or the state. Checked.
  [[nodiscard]] Bytes max_memory_bytes(Tokens context) const;
  /// Pages of `block_size` tokens one request of `context` tokens needs at most in a paged pool that
  /// frees what leaves the window, as vLLM's max_memory_usage_bytes / page_size_bytes
  /// (vllm/v1/kv_cache_interface.py): full, mla, indexer: cdiv(L, bs); sliding: cdiv(min(W - 1 + T, L), bs) +
  /// 1 (SlidingWindowSpec: the window may not start at a page boundary); chunked: cdiv(min(C + T, L), bs)
  /// (ChunkedLocalAttentionSpec); the state kinds: 1 (MambaSpec, mamba_cache_mode "none"); none: 0. T is
  /// `in_flight`, the tokens scheduled but not settled (max_num_batched_tokens). block_size must be
  /// positive; min(a + b, L) is taken without wrapping.
  [[nodiscard]] std::uint64_t max_pages(std::uint64_t context, std::uint64_t block_size,
                                        std::uint64_t in_flight) const;
  bool operator==(const KvSpec&) const = default;
};

/// Everything one layer caches on one tp rank, with the per-layer facts llama.cpp's accessors answer.
/// Built by layer_kv; each part is a KvSpec of its own kind or of kind none.
struct LayerKv {
  KvSpec attention;  ///< full, sliding, chunked or mla; none without attention or when sharing K/V
  KvSpec indexer;    ///< indexer, or none
  KvSpec conv;       ///< conv_state, or none
  KvSpec ssm;        ///< recurrent_state, or none
  /// The layer's attention kind as if it cached its own K/V, even when shared (full, sliding, chunked,
  /// mla), none without attention (recurrent and MLP-only blocks).
  KvKind kind = KvKind::none;
  bool shared = false;       ///< attends but reads another layer's K/V (kv_shared): caches nothing itself
  bool recurrent = false;    ///< keeps a fixed state (has_state: llama.cpp is_recurrent(il))
  std::uint64_t window = 0;  ///< sliding window / chunk of a swa layer, even when shared; else 0
  /// The layer has attention heads (has_attention), even when sharing another's K/V.
  [[nodiscard]] bool attends() const { return kind != KvKind::none; }
  /// The attention is MLA.
  [[nodiscard]] bool is_mla() const { return kind == KvKind::mla; }
  /// Sliding or chunked attention, even when shared (llama.cpp is_swa(il)).
  [[nodiscard]] bool is_swa() const { return kind == KvKind::sliding || kind == KvKind::chunked; }
  /// K and V values per token of the layer's own heads, even when shared (llama.cpp n_embd_k_gqa(il),
  /// n_embd_v_gqa(il) at this rank); MLA: the latent (kv_lora_rank + qk_rope_head_dim) and 0.
  std::uint64_t n_embd_k_gqa = 0;
  std::uint64_t n_embd_v_gqa = 0;
  /// The attention and indexer caches per token (layer_bytes_per_token).
  [[nodiscard]] Bytes bytes_per_token() const {
    return attention.bytes_per_token() + indexer.bytes_per_token();
  }
  /// The fixed state per sequence: conv + ssm (layer_state_bytes).
  [[nodiscard]] Bytes state_bytes() const { return conv.state + ssm.state; }
  /// Tokens the layer keeps at context L (cached_tokens): min(L, W) for a swa layer, 0 without
  /// attention, L otherwise (a shared layer too: the figure is per layer, its bytes are 0).
  [[nodiscard]] Tokens cached_tokens(Tokens context) const;
  /// The exact layout's most memory for one request of L tokens: every part's max_memory_bytes summed.
  [[nodiscard]] Bytes max_memory_bytes(Tokens context) const;
  bool operator==(const LayerKv&) const = default;
};

/// The specs of one layer at tensor parallelism `tp` (positive), KV types `t`:
///   attention: full/sliding/chunked: kv_heads_per_rank x head_dim_k at t.k and x head_dim_v at t.v;
///              mla: kv_lora_rank + qk_rope_head_dim at t.k, not split by tp (DeepSeek-V2 paper 2.1.2);
///   indexer:   index_head_dim fp8 bytes + 4 B per 128 values (indexer_bytes_per_token), not split by tp;
///   conv, ssm: layer_state_values at the state types (layer_state_bytes);
/// none where the layer has no such part. Throws kvplan::Error("tp", ...) for tp 0 and
/// ("head_dim" / "kv_lora_rank" / "state" / "index_head_dim", ...) on overflow.
LayerKv layer_kv(const AttentionLayer& a, const KvDtypes& t, std::uint64_t tp = 1);

/// One layer group's specs: `count` layers of ModelSpec::layers[group].
struct KvSpecGroup {
  std::size_t group = 0;
  std::uint64_t count = 0;
  LayerKv kv;
};

/// layer_kv of every layer group of the model, in layer order (one entry per group, with its count).
std::vector<KvSpecGroup> kv_specs(const ModelSpec& m, const KvDtypes& t, std::uint64_t tp);

}  // namespace kvplan
