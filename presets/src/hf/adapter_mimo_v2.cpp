// MiMo-V2-Flash (XiaomiMiMo/MiMo-V2-Flash, configuration_mimo_v2_flash.py): hybrid_layer_pattern has one
// entry per layer, 1 a sliding-window layer (swa_num_key_value_heads, swa_head_dim for K, swa_v_head_dim
// for V, window sliding_window), 0 a full-attention layer (num_key_value_heads, head_dim for K, v_head_dim
// for V). moe_layer_freq is a per-layer 0/1 list. Attention sinks are per-head scalars (no cache).
#include "adapters.hpp"

namespace kvplan::presets::hf {

ModelSpec adapt_mimo_v2(const HfConfig& c) {
  const Reader& r = c.r;
  DecoderRules rules;
  rules.mistral_window = false;
  rules.read_layer_types = false;
  Decoder d = read_decoder(c, rules);
  const auto pattern = r.u64_list("hybrid_layer_pattern", 2);
  if (!pattern) r.fail("hybrid_layer_pattern", "missing (required for " + c.model_type + ")");
  if (pattern->size() != d.n_layers)
    r.fail("hybrid_layer_pattern", "has " + std::to_string(pattern->size()) + " entries for " +
                                       std::to_string(d.n_layers) + " layers");
  AttentionLayer full = d.attn;
  full.head_dim_v = r.positive_or("v_head_dim", full.head_dim_k);
  AttentionLayer swa = d.attn;
  swa.num_attention_heads = r.positive_or("swa_num_attention_heads", d.attn.num_attention_heads);
  swa.num_key_value_heads = r.positive_or("swa_num_key_value_heads", d.attn.num_key_value_heads);
  swa.head_dim_k = r.positive_or("swa_head_dim", d.attn.head_dim_k);
  swa.head_dim_v = r.positive_or("swa_v_head_dim", full.head_dim_v);
  const std::uint64_t w = r.positive("sliding_window");
  r.consider("sliding_window_size");   // the same window, repeated
  r.consider("attention_chunk_size");  // equal to the window in the published config; no chunked layers
  for (std::uint64_t i = 0; i < d.n_layers; ++i)
    d.layers[i] = (*pattern)[i] == 1 ? with_kind(swa, AttentionKind::sliding, w) : full;
  return assemble(std::move(d));
}

}  // namespace kvplan::presets::hf
