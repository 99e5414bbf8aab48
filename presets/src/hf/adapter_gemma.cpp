// Gemma 1-4 and gemma-3n. Per family (transformers configuration_gemma*.py):
//  - Gemma2Config: even layers slide (modeling_gemma2.py: is_sliding = not bool(layer_idx % 2)).
//  - Gemma3TextConfig: layer i is global when (i + 1) % sliding_window_pattern == 0 (default 6), or
//    `layer_types`.
//  - Gemma3nTextConfig: layer_types; the last num_kv_shared_layers layers reuse the K/V of an earlier
//    layer of the same type and cache nothing (modeling_gemma3n.py Gemma3nTextAttention: is_kv_shared_layer
//    = layer_idx >= num_hidden_layers - num_kv_shared_layers).
//  - Gemma4TextConfig: layer_types; sliding layers use num_key_value_heads x head_dim, full layers
//    global_head_dim, with num_global_key_value_heads under attention_k_eq_v (else num_key_value_heads);
//    attention_k_eq_v shares one projection for K and V, yet vLLM and llama.cpp still allocate a K and a V
//    cache, so both are counted (and vLLM's V projection slot, which it allocates too).
// Gemma 2/3/4 have four norms per layer (pre/post attention and MLP).
#include "adapters.hpp"
#include "kvplan/format.hpp"

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
    // num_global_key_value_heads is the full layers' only with attention_k_eq_v (modeling_gemma4.py
    // Gemma4TextAttention, commit 0246b4f3335464614ef1de66531f9131a44ec801: num_key_value_heads =
    // num_global_key_value_heads if attention_k_eq_v and not sliding, else num_key_value_heads; vLLM's
    // gemma4.py reads it so); global_head_dim is theirs either way (when set).
    const bool k_eq_v = r.boolean("attention_k_eq_v").value_or(false);
    const std::uint64_t global_kv =
        k_eq_v ? r.positive_or_null("num_global_key_value_heads", d.attn.num_key_value_heads)
               : d.attn.num_key_value_heads;
    if (!k_eq_v) r.consider("num_global_key_value_heads");  // unread by the model without k_eq_v
    const std::uint64_t global_dim = r.positive_or_null("global_head_dim", d.attn.head_dim_k);
    for (auto& a : d.layers)
      if (a.kind == AttentionKind::full) {
        a.num_key_value_heads = global_kv;
        a.head_dim_k = a.head_dim_v = global_dim;
      }
    // The MoE block beside the dense MLP in every layer (enable_moe_block; modeling_gemma4.py
    // Gemma4TextDecoderLayer, Gemma4TextRouter, Gemma4TextExperts, commit
    // 0246b4f3335464614ef1de66531f9131a44ec801): router.proj num_experts x hidden, router.scale (hidden),
    // router.per_expert_scale (num_experts), the experts' gate_up_proj and down_proj (3 x hidden x
    // moe_intermediate_size each), top_k_experts of them a token, and three more norms over hidden. In
    // kvplan's MLP terms, with the same counts: the dense MLP is an always-on (shared) expert of
    // intermediate_size, per_expert_scale counts as a router bias (num_experts values), router.scale as a
    // shared-expert gate (hidden values), and the norms make seven per layer. google/gemma-4-26B-A4B:
    // 25,233,141,760 text parameters (its total_size, 51,611,872,412 B in bf16, less the vision tower and
    // the 30 layer_scalar values), plus the V projection slots vLLM allocates on k_eq_v layers.
    if (r.boolean("enable_moe_block").value_or(false)) {
      MlpSpec block;
      block.num_experts = r.positive("num_experts");
      block.experts_per_token = r.positive("top_k_experts");
      block.expert_intermediate_size = r.positive_any({"moe_intermediate_size", "expert_intermediate_size"});
      if (block.experts_per_token > block.num_experts)
        r.fail("top_k_experts", "must be at most num_experts " + format_count(block.num_experts));
      block.router_bias = true;  // router.per_expert_scale
      block.num_shared_experts = 1;
      block.shared_intermediate_size = d.dense.intermediate_size;  // the dense MLP beside the block
      // Every layer has experts, so the decoder's check for a missing dense width (dense layers only) would
      // pass over it, and the dense MLP would count as 0 parameters: no figure rather than a low one.
      if (d.dense_width_missing && d.m.weights_unknown.empty())
        d.m.weights_unknown =
            "the config has no intermediate_size (Gemma 4's dense MLP beside its MoE block)";
      block.shared_expert_gate = true;  // router.scale
      d.moe = block;
      d.sparse.assign(d.n_layers, true);
      d.m.norms_per_layer = 7;
    } else {
      r.consider("num_experts");
      r.consider("top_k_experts");
      d.sparse.assign(d.n_layers, false);
    }
    // Weights: per-layer input embeddings and the double-wide MLP are not in kvplan's weight formula; KV
    // figures stay exact.
    if (r.u64("hidden_size_per_layer_input").value_or(0) > 0 ||
        r.boolean("use_double_wide_mlp").value_or(false))
      d.m.weights_unknown = "kvplan has no weight formula for Gemma 4's per-layer inputs and double-wide MLP";
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
