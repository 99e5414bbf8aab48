// gpt-oss (configuration_gpt_oss.py GptOssConfig): layer_types alternate sliding (window 128) and full
// attention; experts and router carry biases; attention sinks are per-head scalars (no cache).
#include "adapters.hpp"

namespace kvplan::presets::hf {

ModelSpec adapt_gpt_oss(const HfConfig& c) {
  DecoderRules rules;
  rules.mistral_window = false;
  Decoder d = read_decoder(c, rules);
  if (!c.r.has("layer_types")) {
    // GptOssConfig.__init__: layer_types default "sliding_attention" if (i + 1) % 2 else "full_attention".
    const std::uint64_t w = c.r.positive("sliding_window");
    for (std::uint64_t i = 0; i < d.n_layers; ++i)
      d.layers[i] = with_kind(d.attn, (i + 1) % 2 ? AttentionKind::sliding : AttentionKind::full, w);
  }
  d.moe.bias = d.moe.router_bias = true;
  return assemble(std::move(d));
}

}  // namespace kvplan::presets::hf
