// Laguna (poolside, model_type laguna): vLLM laguna.py (vllm-project/vllm @038481da3a60). Every layer caches
// num_key_value_heads x head_dim (LagunaDecoderLayer passes config.num_key_value_heads to each
// LagunaAttention); layer_types puts sliding_window on its "sliding_attention" layers only (LagunaModel
// clears the model-level window); num_attention_heads_per_layer, where given, sets each layer's query heads
// (Laguna-XS), which change the weights and not the cache. The MoE block (LagunaMoE) has one ungated shared
// expert of shared_expert_intermediate_size; mlp_layer_types ("dense" / "sparse", one per layer) says which
// layers route, else mlp_only_layers and decoder_sparse_step as Qwen MoE. The output gate g_proj (hidden x
// heads per layer with gating "per-head" / true; x head_dim per head otherwise) is counted in no weight
// figure: a warning says so.
#include "adapters.hpp"

namespace kvplan::presets::hf {

ModelSpec adapt_laguna(const HfConfig& c) {
  const Reader& r = c.r;
  DecoderRules rules;
  rules.mistral_window = false;  // LagunaModel: the window applies only through layer_types
  if (!r.has("layer_types")) r.consider("sliding_window");
  Decoder d = read_decoder(c, rules);
  d.moe.shared_expert_gate = false;
  for (auto& a : d.layers) a.qk_norm = true;  // LagunaAttention: q_norm and k_norm
  if (r.has("num_attention_heads_per_layer")) {
    const auto heads = r.u64_list("num_attention_heads_per_layer");
    if (heads->size() != d.n_layers)
      r.fail("num_attention_heads_per_layer", "has " + std::to_string(heads->size()) + " entries for " +
                                                  std::to_string(d.n_layers) + " layers");
    for (std::uint64_t i = 0; i < d.n_layers; ++i) {
      const std::uint64_t h = (*heads)[i];
      if (h == 0 || h % d.attn.num_key_value_heads != 0)
        r.fail("num_attention_heads_per_layer/" + std::to_string(i),
               std::to_string(h) + " query heads: must be a positive multiple of num_key_value_heads " +
                   std::to_string(d.attn.num_key_value_heads));
      d.layers[i].num_attention_heads = h;
    }
  }
  if (const json* types = r.get("mlp_layer_types")) {
    if (!types->is_array() || types->size() != d.n_layers)
      r.fail("mlp_layer_types", "must be an array of one \"dense\" or \"sparse\" per layer (" +
                                    std::to_string(d.n_layers) + ")");
    for (std::uint64_t i = 0; i < d.n_layers; ++i) {
      const json& t = (*types)[i];
      if (!t.is_string() || (t != "dense" && t != "sparse"))
        r.fail("mlp_layer_types/" + std::to_string(i), "must be \"dense\" or \"sparse\"");
      if (t == "sparse" && d.moe.num_experts == 0)
        r.fail("mlp_layer_types/" + std::to_string(i), "is \"sparse\", but the config has no num_experts");
      d.sparse[i] = t == "sparse";
    }
  }
  if (r.has("gating"))
    d.m.warnings.push_back(r.where("gating") +
                           ": Laguna's attention output gate (g_proj) is not in the weight figure (a few "
                           "million parameters); the KV cache is exact");
  return assemble(std::move(d));
}

}  // namespace kvplan::presets::hf
