// Kimi Linear (moonshotai/Kimi-Linear, configuration_kimi.py KimiLinearConfig): linear_attn_config lists
// the 1-based layers of Kimi Delta Attention (kda_layers) and of full attention (full_attn_layers); the
// full layers are MLA (kv_lora_rank + qk_rope_head_dim cached per token). KDA keeps per sequence three
// short-conv states (q, k, v: num_heads x head_dim x (short_conv_kernel_size - 1)) at the model dtype and a
// num_heads x head_dim x head_dim recurrent state in float32 (vLLM mamba_utils.py kda_state_shape,
// kda_state_dtype).
#include "adapters.hpp"

namespace kvplan::presets::hf {

ModelSpec adapt_kimi_linear(const HfConfig& c) {
  const Reader& r = c.r;
  DecoderRules rules;
  rules.latent_attention = true;  // the full-attention layers are MLA
  Decoder d = read_decoder(c, rules);
  const auto lin = r.object("linear_attn_config");
  if (!lin) r.fail("linear_attn_config", "missing (required for kimi_linear)");
  RecurrentSpec rec;
  rec.kind = RecurrentSpec::Kind::kda;
  rec.num_key_heads = lin->positive("num_heads");
  rec.key_head_dim = lin->positive("head_dim");
  rec.d_conv = lin->positive("short_conv_kernel_size");
  rec.conv_dtype = d.m.dtype;
  rec.ssm_dtype = DType::fp32;
  const auto kda = layer_mask(*lin, "kda_layers", d.n_layers, true);
  const auto full = layer_mask(*lin, "full_attn_layers", d.n_layers, true);
  for (std::uint64_t i = 0; i < d.n_layers; ++i) {
    if (kda[i] == full[i])
      lin->fail("kda_layers", "layer " + std::to_string(i + 1) +
                                  " must be in exactly one of kda_layers and full_attn_layers");
    if (kda[i]) d.layers[i] = recurrent_layer(rec);
  }
  d.m.weights_unknown = "kvplan has no weight formula for Kimi Delta Attention layers";
  return assemble(std::move(d));
}

}  // namespace kvplan::presets::hf
