// Gemma 1-4 and gemma-3n. Per family (transformers configuration_gemma*.py):
//  - Gemma2Config: even layers slide (modeling_gemma2.py: is_sliding = not bool(layer_idx % 2)).
//  - Gemma3TextConfig: layer i is global when (i + 1) % sliding_window_pattern == 0 (default 6), or
//    `layer_types`.
//  - Gemma3nTextConfig: layer_types; the last num_kv_shared_layers layers reuse the K/V of an earlier
//    layer of the same type and cache nothing (modeling_gemma3n.py Gemma3nTextAttention: is_kv_shared_layer
//    = layer_idx >= num_hidden_layers - num_kv_shared_layers).
//  - Gemma4TextConfig: layer_types; sliding layers use num_key_value_heads x head_dim, full layers
//    num_global_key_value_heads x global_head_dim; attention_k_eq_v shares one projection for K and V,
//    yet vLLM and llama.cpp still allocate a K and a V cache, so both are counted.
// Gemma 2/3/4 have four norms per layer (pre/post attention and MLP).
#include "adapters.hpp"

namespace kvplan::presets::hf {

/// Gemma3TextConfig defaults (configuration_gemma3.py, commit 008f5c8c29be84d4721dc6d1e0fcd72300580be4):
/// google/gemma-3-4b-it's text_config omits these.
const json* gemma_defaults(std::string_view model_type) {
  if (model_type != "gemma3" && model_type != "gemma3_text") return nullptr;
  static const json d = {{"vocab_size", 262208},
                         {"hidden_size", 2304},
                         {"intermediate_size", 9216},
                         {"num_hidden_layers", 26},
                         {"num_attention_heads", 8},
                         {"num_key_value_heads", 4},
                         {"head_dim", 256},
                         {"max_position_embeddings", 131072},
                         {"tie_word_embeddings", true},
                         {"sliding_window", 4096},
                         {"sliding_window_pattern", 6}};
  return &d;
}

ModelSpec adapt_gemma(const HfConfig& c) {
  const std::string& t = c.model_type;
  const bool g3 = t == "gemma3" || t == "gemma3_text";
  const Reader& r = c.r;  // with gemma_defaults for Gemma 3 (the adapter record's)
  DecoderRules rules;
  rules.mistral_window = false;
  Decoder d = read_decoder(c, rules);
  if (t != "gemma") d.m.norms_per_layer = 4;
  const bool qk_norm = t != "gemma" && t != "gemma2";
  for (auto& a : d.layers) a.qk_norm = qk_norm;
  d.attn.qk_norm = qk_norm;

  if (t == "gemma2" && !r.has("layer_types")) {
    const std::uint64_t w = r.positive("sliding_window");
    for (std::uint64_t i = 0; i < d.n_layers; ++i)
      d.layers[i] = with_kind(d.attn, i % 2 == 0 ? AttentionKind::sliding : AttentionKind::full, w);
  } else if (g3 && !r.has("layer_types")) {
    const std::uint64_t w = r.positive("sliding_window");
    const std::uint64_t pattern = r.positive_or("sliding_window_pattern", 6);
    for (std::uint64_t i = 0; i < d.n_layers; ++i)
      d.layers[i] =
          with_kind(d.attn, (i + 1) % pattern == 0 ? AttentionKind::full : AttentionKind::sliding, w);
  } else {
    r.consider("sliding_window_pattern");  // layer_types is the per-layer truth
  }

  if (t == "gemma4" || t == "gemma4_text") {
    // Gemma 4's released configs carry "num_global_key_value_heads": null where the full layers keep
    // num_key_value_heads (Gemma4TextConfig's default is None: the modeling code then uses the per-layer
    // value), so null is the class default here.
    const std::uint64_t global_kv =
        r.positive_or_null("num_global_key_value_heads", d.attn.num_key_value_heads);
    const std::uint64_t global_dim = r.positive_or_null("global_head_dim", d.attn.head_dim_k);
    r.consider("attention_k_eq_v");
    for (auto& a : d.layers)
      if (a.kind == AttentionKind::full) {
        a.num_key_value_heads = global_kv;
        a.head_dim_k = a.head_dim_v = global_dim;
      }
    // Weights: the MoE block beside the dense MLP, per-layer input embeddings and the double-wide MLP are
    // not in kvplan's weight formula; KV figures stay exact.
    if (r.boolean("enable_moe_block").value_or(false) ||
        r.u64("hidden_size_per_layer_input").value_or(0) > 0 ||
        r.boolean("use_double_wide_mlp").value_or(false))
      d.m.weights_unknown = "kvplan has no weight formula for Gemma 4's MoE block and per-layer inputs";
    d.sparse.assign(d.n_layers, false);
  }
  if (t == "gemma3n" || t == "gemma3n_text") {
    d.m.weights_unknown =
        "kvplan has no weight formula for gemma-3n's per-layer embeddings, AltUp and LAuReL";
  }
  // Only Gemma3nTextConfig and Gemma4TextConfig define num_kv_shared_layers; Gemma 1-3 classes keep it as
  // an unused attribute, and their transformers and vLLM models (gemma3.py Gemma3Attention) cache every
  // layer. A non-zero value there is refused: the author may have meant a gemma-3n / Gemma 4 model, and
  // no reading of it is sure (0 changes nothing and is accepted).
  const bool shares_kv = t == "gemma3n" || t == "gemma3n_text" || t == "gemma4" || t == "gemma4_text";
  if (!shares_kv) {
    if (r.u64("num_kv_shared_layers").value_or(0) > 0)
      r.fail("num_kv_shared_layers",
             std::to_string(*r.u64("num_kv_shared_layers")) + " shared layers on model_type '" + t +
                 "', whose transformers class and vLLM model do not share KV (only gemma3n and gemma4 do): "
                 "they would cache every layer; remove the key, or give the model_type that shares KV");
  } else if (const auto shared = r.u64("num_kv_shared_layers"); shared && *shared > 0) {
    if (*shared >= d.n_layers)
      r.fail("num_kv_shared_layers", std::to_string(*shared) + " shared layers leave none of the " +
                                         std::to_string(d.n_layers) + " layers to own a cache");
    for (std::uint64_t i = d.n_layers - *shared; i < d.n_layers; ++i) d.layers[i].kv_shared = true;
  }
  return assemble(std::move(d));
}

}  // namespace kvplan::presets::hf
