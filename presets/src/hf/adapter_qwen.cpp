// Qwen2 / Qwen2-MoE / Qwen3 / Qwen3-MoE (and the VL models' text configs): configuration_qwen2.py
// Qwen2Config, configuration_qwen3.py Qwen3Config; MiMo-7B ("mimo", vLLM mimo.py MiMoModel(Qwen2Model), its
// MTP layers apart). The window applies only when use_sliding_window, to
// layers >= max_window_layers (Qwen2Attention: sliding_window if layer_idx >= max_window_layers).
#include "adapters.hpp"

namespace kvplan::presets::hf {

ModelSpec adapt_qwen(const HfConfig& c) {
  const Reader& r = c.r;
  DecoderRules rules;
  rules.mistral_window = false;
  const bool slide = r.boolean("use_sliding_window").value_or(false);  // Qwen2Config's default: false
  rules.windows_off = !slide;
  Decoder d = read_decoder(c, rules);
  const bool qwen2 = c.model_type.rfind("qwen2", 0) == 0;
  // Qwen2 has biases on q, k, v (Qwen2Attention: bias=True); Qwen3 a per-head RMSNorm on q and k instead.
  for (auto* a : {&d.attn}) {
    a->qkv_bias = a->qkv_bias || qwen2;
    a->qk_norm = !qwen2;
  }
  for (auto& a : d.layers) {
    a.qkv_bias = d.attn.qkv_bias;
    a.qk_norm = d.attn.qk_norm;
  }
  const std::uint64_t first = r.u64("max_window_layers").value_or(0);
  if (slide && !r.has("layer_types")) {
    const std::uint64_t w = r.positive("sliding_window");
    for (std::uint64_t i = first; i < d.n_layers; ++i)
      d.layers[i] = with_kind(d.layers[i], AttentionKind::sliding, w);
  } else if (!slide) {
    r.consider("sliding_window");  // not applied: use_sliding_window is false
  }
  return assemble(std::move(d));
}

}  // namespace kvplan::presets::hf
