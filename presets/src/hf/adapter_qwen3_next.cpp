// Qwen3-Next and Qwen3.5 (configuration_qwen3_next.py Qwen3NextConfig; Qwen3.5's text config has the
// same keys): Gated DeltaNet layers (linear_num_key_heads / linear_num_value_heads x linear_key_head_dim /
// linear_value_head_dim, linear_conv_kernel_dim) and full attention every full_attention_interval-th
// layer, or per layer from layer_types. The recurrent state is at mamba_ssm_dtype when the config
// declares it (vLLM models/config.py Qwen3_5ForConditionalGenerationConfig), else the model dtype; the
// conv state at the model dtype. Qwen3-Next's attention has a per-head q/k norm.
#include "adapters.hpp"

namespace kvplan::presets::hf {

const json* qwen3_next_defaults(std::string_view model_type) {
  // transformers src/transformers/models/qwen3_next/configuration_qwen3_next.py Qwen3NextConfig: the field
  // defaults of the keys kvplan reads, and full_attention_interval 4 (__post_init__'s
  // kwargs.pop("full_attention_interval", 4)). Qwen3.5's classes are others: nothing recorded for them.
  if (model_type != "qwen3_next") return nullptr;
  static const json d = {{"vocab_size", 151936},
                         {"hidden_size", 2048},
                         {"intermediate_size", 5632},
                         {"num_hidden_layers", 48},
                         {"num_attention_heads", 16},
                         {"num_key_value_heads", 2},
                         {"max_position_embeddings", 32768},
                         {"tie_word_embeddings", false},
                         {"head_dim", 256},
                         {"linear_conv_kernel_dim", 4},
                         {"linear_key_head_dim", 128},
                         {"linear_value_head_dim", 128},
                         {"linear_num_key_heads", 16},
                         {"linear_num_value_heads", 32},
                         {"decoder_sparse_step", 1},
                         {"moe_intermediate_size", 512},
                         {"shared_expert_intermediate_size", 512},
                         {"num_experts_per_tok", 10},
                         {"num_experts", 512},
                         {"full_attention_interval", 4}};
  return &d;
}

ModelSpec adapt_qwen3_next(const HfConfig& c) {
  const Reader& r = c.r;
  DecoderRules rules;
  rules.mistral_window = false;
  Decoder d = read_decoder(c, rules);
  RecurrentSpec rec;
  rec.kind = RecurrentSpec::Kind::gated_deltanet;
  rec.num_key_heads = r.positive("linear_num_key_heads");
  rec.num_value_heads = r.positive("linear_num_value_heads");
  rec.key_head_dim = r.positive("linear_key_head_dim");
  rec.value_head_dim = r.positive("linear_value_head_dim");
  rec.d_conv = r.positive("linear_conv_kernel_dim");
  rec.conv_dtype = d.m.dtype;
  rec.ssm_dtype = r.dtype("mamba_ssm_dtype").value_or(d.m.dtype);
  if (r.boolean("use_sliding_window").value_or(false))
    r.fail("use_sliding_window", "true: a window on Qwen3-Next's attention layers is not modelled");
  r.consider("sliding_window");  // Qwen3-Next attention is global (use_sliding_window false)
  r.consider("max_window_layers");
  if (!r.has("layer_types")) {
    const std::uint64_t interval = r.positive("full_attention_interval");
    for (std::uint64_t i = 0; i < d.n_layers; ++i)
      if ((i + 1) % interval != 0) d.layers[i] = recurrent_layer(rec);
  } else {
    r.consider("full_attention_interval");  // layer_types is the per-layer truth
    for (auto& a : d.layers)
      if (a.kind == AttentionKind::recurrent) a = recurrent_layer(rec);
  }
  for (auto& a : d.layers)
    if (a.kind == AttentionKind::full) a.qk_norm = true;
  // Qwen3.5 dense models have no experts; Qwen3-Next/3.5 MoE models' shared expert is gated.
  return assemble(std::move(d));
}

}  // namespace kvplan::presets::hf
