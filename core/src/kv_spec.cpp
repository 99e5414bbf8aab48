// The per-layer KV specs (kv_spec.hpp) and the layer formulas of kv.hpp built on them:
// layer_bytes_per_token, layer_state_bytes, indexer_bytes_per_token and cached_tokens.
#include "kvplan/kv_spec.hpp"

#include <algorithm>

namespace kvplan {

namespace {

/// The attention cache of a layer: full, sliding, chunked or mla; none without attention or when the
/// layer reads another's K/V.
KvSpec attention_spec(const AttentionLayer& a, const KvDtypes& t, std::uint64_t tp) {
  KvSpec s;
  if (a.kv_shared || !has_attention(a.kind)) return s;
  if (a.kind == AttentionKind::mla) {
    s.kind = KvKind::mla;
    s.k_values = checked_add(a.kv_lora_rank, a.qk_rope_head_dim, "kv_lora_rank");
    s.k_bytes = row_bytes(t.k, s.k_values);
    return s;
  }
  switch (a.kind) {
    case AttentionKind::sliding:
      s.kind = KvKind::sliding;
      s.window = a.window;
      break;
    case AttentionKind::chunked:
      s.kind = KvKind::chunked;
      s.window = a.window;
      break;
    default: s.kind = KvKind::full; break;
  }
  const std::uint64_t heads = kv_heads_per_rank(a, tp);
  s.k_values = checked_mul(heads, a.head_dim_k, "head_dim");
  s.v_values = checked_mul(heads, a.head_dim_v, "head_dim");
  s.k_bytes = row_bytes(t.k, s.k_values);
  s.v_bytes = row_bytes(t.v, s.v_values);
  return s;
}

/// The indexer cache beside a cached attention layer, or none.
KvSpec indexer_spec(const AttentionLayer& a) {
  KvSpec s;
  if (a.indexer_head_dim == 0) return s;
  s.kind = KvKind::indexer;
  s.k_bytes = indexer_bytes_per_token(a);
  s.k_values = s.k_bytes.value;  // uint8 values
  return s;
}

/// The conv and SSM parts of a layer's fixed state (layer_state_bytes), each none when the layer has no
/// such part.
void state_specs(const AttentionLayer& a, const KvDtypes& t, std::uint64_t tp, KvSpec* conv, KvSpec* ssm) {
  if (!has_state(a)) return;
  const RecurrentSpec& r = a.recurrent;
  const StateValues s = layer_state_values(r, tp);
  const DType conv_type = t.state.value_or(r.conv_dtype);
  DType ssm_type = t.ssm_state ? *t.ssm_state : t.state.value_or(r.ssm_dtype);
  if (r.kind == RecurrentSpec::Kind::kda) ssm_type = DType::fp32;  // kda_state_dtype: state in float32
  if (s.conv != 0) {
    conv->kind = KvKind::conv_state;
    conv->values = s.conv;
    conv->state = row_bytes(conv_type, s.conv);
  }
  if (s.ssm != 0) {
    ssm->kind = KvKind::recurrent_state;
    ssm->values = s.ssm;
    ssm->state = row_bytes(ssm_type, s.ssm);
  }
}

}  // namespace

std::string_view name(KvKind k) {
  switch (k) {
    case KvKind::full: return "full";
    case KvKind::sliding: return "sliding";
    case KvKind::chunked: return "chunked";
    case KvKind::mla: return "mla";
    case KvKind::indexer: return "indexer";
    case KvKind::recurrent_state: return "recurrent_state";
    case KvKind::conv_state: return "conv_state";
    case KvKind::none: return "none";
  }
  return "?";
}

Bytes KvSpec::page_size_bytes(std::uint64_t block_size) const {
  if (is_state()) return state;
  return bytes_per_token() * block_size;
}

Tokens KvSpec::cached_tokens(Tokens context) const {
  if (windowed()) return Tokens{std::min(context.value, window)};
  if (grows()) return context;
  return Tokens{0};
}

Bytes KvSpec::max_memory_bytes(Tokens context) const {
  if (is_state()) return state;
  return bytes_per_token() * cached_tokens(context);
}

std::uint64_t KvSpec::max_pages(std::uint64_t len, std::uint64_t block_size, std::uint64_t in_flight) const {
  // min(a + b, len) without wrapping when a window is near 2^64.
  const auto capped = [len](std::uint64_t a, std::uint64_t b) {
    return a >= len || b >= len - a ? len : a + b;
  };
  switch (kind) {
    case KvKind::recurrent_state:
    case KvKind::conv_state: return 1;  // mamba_cache_mode "none": one state per request
    case KvKind::none: return 0;
    case KvKind::sliding: return ceil_div(capped(window - 1, in_flight), block_size) + 1;
    case KvKind::chunked: return ceil_div(capped(window, in_flight), block_size);
    default: return ceil_div(len, block_size);
  }
}

Tokens LayerKv::cached_tokens(Tokens context) const {
  if (is_swa()) return Tokens{std::min(context.value, window)};
  if (!attends()) return Tokens{0};
  return context;
}

Bytes LayerKv::max_memory_bytes(Tokens context) const {
  return bytes_per_token() * cached_tokens(context) + state_bytes();
}

LayerKv layer_kv(const AttentionLayer& a, const KvDtypes& t, std::uint64_t tp) {
  LayerKv l;
  l.attention = attention_spec(a, t, tp);
  if (l.attention.kind != KvKind::none) l.indexer = indexer_spec(a);
  state_specs(a, t, tp, &l.conv, &l.ssm);
  switch (a.kind) {
    case AttentionKind::full: l.kind = KvKind::full; break;
    case AttentionKind::sliding: l.kind = KvKind::sliding; break;
    case AttentionKind::chunked: l.kind = KvKind::chunked; break;
    case AttentionKind::mla: l.kind = KvKind::mla; break;
    case AttentionKind::recurrent:
    case AttentionKind::mlp_only: l.kind = KvKind::none; break;
  }
  l.shared = l.attends() && a.kv_shared;
  l.recurrent = has_state(a);
  l.window = l.is_swa() ? a.window : 0;
  if (l.is_mla()) {
    l.n_embd_k_gqa = checked_add(a.kv_lora_rank, a.qk_rope_head_dim, "kv_lora_rank");
  } else if (l.attends()) {
    const std::uint64_t heads = kv_heads_per_rank(a, tp);
    l.n_embd_k_gqa = checked_mul(heads, a.head_dim_k, "head_dim");
    l.n_embd_v_gqa = checked_mul(heads, a.head_dim_v, "head_dim");
  }
  return l;
}

std::vector<KvSpecGroup> kv_specs(const ModelSpec& m, const KvDtypes& t, std::uint64_t tp) {
  std::vector<KvSpecGroup> out;
  out.reserve(m.layers.size());
  for (std::size_t i = 0; i < m.layers.size(); ++i)
    out.push_back({i, m.layers[i].count, layer_kv(m.layers[i].attention, t, tp)});
  return out;
}

// The layer formulas of kv.hpp, each the sum of its specs.

Bytes indexer_bytes_per_token(const AttentionLayer& a) {
  if (a.indexer_head_dim == 0) return Bytes{0};
  // fp8 values plus one fp32 scale per block of 128 (vLLM DeepseekV32IndexerCache, quant_block_size 128).
  return Bytes{checked_add(a.indexer_head_dim,
                           checked_mul(ceil_div(a.indexer_head_dim, 128), 4, "index_head_dim"),
                           "index_head_dim")};
}

Bytes layer_bytes_per_token(const AttentionLayer& a, const KvDtypes& t, std::uint64_t tp) {
  const KvSpec s = attention_spec(a, t, tp);
  if (s.kind == KvKind::none) return Bytes{0};
  return s.bytes_per_token() + indexer_spec(a).bytes_per_token();
}

Bytes layer_state_bytes(const AttentionLayer& a, const KvDtypes& t, std::uint64_t tp) {
  KvSpec conv, ssm;
  state_specs(a, t, tp, &conv, &ssm);
  return conv.state + ssm.state;
}

Tokens cached_tokens(const AttentionLayer& a, Tokens context) {
  if (a.kind == AttentionKind::sliding || a.kind == AttentionKind::chunked)
    return Tokens{std::min(context.value, a.window)};
  if (!has_attention(a.kind)) return Tokens{0};
  return context;
}

}  // namespace kvplan
