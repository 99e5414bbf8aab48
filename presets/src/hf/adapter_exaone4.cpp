// EXAONE 4 (configuration_exaone4.py Exaone4Config): sliding_window_pattern is a string such as "LLLG",
// repeated over the layers: 'L' a local (sliding_window) layer, 'G' a global one; layer_types, when the
// config has it, says the same per layer and wins. With no window (the 1.2B model) every layer is global.
// EXAONE 4.5's text config (exaone4_5_text) is the same decoder: vLLM exaone4_5.py builds its language model
// as Exaone4ForCausalLM on config.get_text_config() (vllm-project/vllm @0445b1f10562).
#include "adapters.hpp"

namespace kvplan::presets::hf {

ModelSpec adapt_exaone4(const HfConfig& c) {
  const Reader& r = c.r;
  DecoderRules rules;
  rules.mistral_window = false;
  Decoder d = read_decoder(c, rules);
  if (r.has("layer_types")) {
    r.consider("sliding_window_pattern");
    return assemble(std::move(d));
  }
  const json* p = r.get("sliding_window_pattern");
  if (p == nullptr || !r.has("sliding_window")) {
    r.consider("sliding_window");
    return assemble(std::move(d));
  }
  const std::uint64_t w = r.positive("sliding_window");
  if (p->is_string()) {
    const std::string s = p->get<std::string>();
    if (s.empty()) r.fail("sliding_window_pattern", "is empty");
    for (std::uint64_t i = 0; i < d.n_layers; ++i) {
      const char ch = s[i % s.size()];
      if (ch != 'L' && ch != 'G') r.fail("sliding_window_pattern", "must hold only L and G, got '" + s + "'");
      // Exaone4Config: the last layer is always global, whatever the pattern says.
      if (ch == 'L' && i + 1 < d.n_layers) d.layers[i] = with_kind(d.attn, AttentionKind::sliding, w);
    }
  } else {
    // An integer pattern: layer i is global when (i + 1) % pattern == 0.
    const std::uint64_t n = r.positive("sliding_window_pattern");
    for (std::uint64_t i = 0; i < d.n_layers; ++i)
      if ((i + 1) % n != 0 && i + 1 < d.n_layers) d.layers[i] = with_kind(d.attn, AttentionKind::sliding, w);
  }
  return assemble(std::move(d));
}

}  // namespace kvplan::presets::hf
