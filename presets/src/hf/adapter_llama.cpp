// Llama-like decoders: one attention layout for every layer (MHA / GQA / MQA), a sliding window on
// every layer when `sliding_window` is numeric (MistralConfig), or per layer from `layer_types`
// (OLMo 3, Cohere 2, Ministral 3). transformers configuration_llama.py LlamaConfig and the classes
// of the listed model types share these keys.
#include "adapters.hpp"

namespace kvplan::presets::hf {

namespace {
/// A numeric sliding_window on a model_type whose transformers configuration class does not define it
/// (LlamaConfig, GraniteConfig, ...): its attention never slides there, nor in llama.cpp (the converter
/// does not write it). vLLM applies it all the same: ModelConfig.get_sliding_window returns the config's
/// sliding_window, CacheConfig.sliding_window takes it, and vllm/attention/layer.py Attention uses it as
/// the model-level window of every layer without a per-layer one (llama.py sets one only from
/// layer_types). kvplan follows vLLM and says so.
void warn_unused_window(const HfConfig& c, const DecoderRules& rules, Decoder& d) {
  // The llama-like types whose configuration class reads sliding_window (MistralConfig and its kin).
  static constexpr std::string_view windowed[] = {"mistral", "mixtral",    "ministral", "ministral3",
                                                  "phi3",    "starcoder2", "cohere2",   "olmo3",
                                                  "smollm3", "seed_oss"};
  const Reader& r = c.r;
  if (!rules.mistral_window || r.has("layer_types") || !r.has("sliding_window")) return;
  for (const auto t : windowed)
    if (t == c.model_type) return;
  d.m.warnings.push_back(
      r.where("sliding_window") + " " + std::to_string(r.positive("sliding_window")) + ": model_type '" +
      c.model_type +
      "' does not use it in transformers or llama.cpp (full attention there), but vLLM applies it to every "
      "layer (ModelConfig.get_sliding_window -> CacheConfig.sliding_window -> Attention's model-level "
      "window), so kvplan caps every layer as vLLM does");
}
}  // namespace

ModelSpec adapt_llama(const HfConfig& c) {
  const Reader& r = c.r;
  DecoderRules rules;
  if (c.model_type == "cohere2" && !r.has("layer_types") && r.has("sliding_window_pattern")) {
    // Cohere2Config (configuration_cohere2.py): layer i is global when (i + 1) % sliding_window_pattern == 0.
    rules.mistral_window = false;
    Decoder d = read_decoder(c, rules);
    const std::uint64_t pattern = r.positive("sliding_window_pattern");
    const std::uint64_t w = r.positive("sliding_window");
    for (std::uint64_t i = 0; i < d.n_layers; ++i)
      d.layers[i] =
          with_kind(d.attn, (i + 1) % pattern == 0 ? AttentionKind::full : AttentionKind::sliding, w);
    return assemble(std::move(d));
  }
  // Hunyuan's cross-layer attention (use_cla: layers share the K/V of the layer before, cla_share_factor at
  // a time) is not modelled; its released configs have it off, which changes nothing.
  if (r.has("use_cla") || r.has("cla_share_factor")) {
    if (r.boolean("use_cla").value_or(false))
      r.fail("use_cla", "is true: cross-layer KV sharing (cla_share_factor) is not modelled by kvplan");
    r.consider("cla_share_factor");
  }
  // MiniMax-M2's config.json keeps MiniMax-M1's attn_type_list (1 = softmax attention, 0 = lightning), all
  // 1: every layer full attention, as vLLM minimax_m2.py builds it. A 0 would be a linear-attention layer.
  if (c.model_type == "minimax_m2" && r.has("attn_type_list")) {
    const auto types = r.u64_list("attn_type_list", 2);
    // One entry per layer, as MiniMax-M1's adapter (adapter_minimax.cpp) and vLLM's minimax_text_01.py
    // index it: a list of another length belongs to another model.
    const std::uint64_t n_layers = r.positive_any({"num_hidden_layers", "n_layer", "num_layers", "n_layers"});
    if (types->size() != n_layers)
      r.fail("attn_type_list", "has " + std::to_string(types->size()) + " entries for " +
                                   std::to_string(n_layers) + " layers (num_hidden_layers)");
    for (std::size_t i = 0; i < types->size(); ++i)
      if ((*types)[i] != 1)
        r.fail("attn_type_list/" + std::to_string(i),
               "0 (lightning attention) on minimax_m2, whose layers are all softmax attention in vLLM "
               "minimax_m2.py: give model_type minimax (MiniMax-M1) for a hybrid");
  }
  if (r.has("layer_types")) r.consider("sliding_window_pattern");  // layer_types is the per-layer truth
  // SmolLM3's no_rope_layers only drops RoPE on some layers; the cache is the same.
  if (c.model_type == "smollm3") r.consider("no_rope_layers");
  // SmolLM3 and Seed-OSS carry Qwen-style use_sliding_window / max_window_layers, off in their configs.
  if (r.has("use_sliding_window") && !r.boolean("use_sliding_window").value_or(false)) {
    r.consider("sliding_window");
    r.consider("max_window_layers");
    rules.mistral_window = false;
    rules.windows_off = true;
  }
  Decoder d = read_decoder(c, rules);
  if (c.model_type == "mixtral" || c.model_type == "minimax_m2") d.moe.shared_expert_gate = false;
  warn_unused_window(c, rules, d);
  return assemble(std::move(d));
}

}  // namespace kvplan::presets::hf
