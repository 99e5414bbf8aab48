// Ling/Ring linear (bailing_moe_linear: Ring-mini-linear-2.0, Ring-flash-linear-2.0; sglang/srt/configs/
// bailing_moe_linear.py BailingMoeLinearConfig, vllm/model_executor/models/bailing_moe_linear.py): layer l
// is full attention when (l + 1) % layer_group_size == 0, else lightning (linear) attention
// (is_linear_layer; layer_group_size 0: every layer full). Full layers cache num_key_value_heads x head_dim
// (MLA where the config has kv_lora_rank, as Ring-2.5's). Linear layers keep one num_attention_heads x
// head_dim x head_dim state per sequence at the model dtype (get_mamba_state_shape_from_config:
// MambaStateShapeCalculator.linear_attention_state_shape, linear_attention_state_dtype). Shared experts:
// num_shared_experts x moe_shared_expert_intermediate_size (moe_intermediate_size when absent), ungated
// (BailingMoeV25); the first first_k_dense_replace layers are dense.
#include "adapters.hpp"

namespace kvplan::presets::hf {

ModelSpec adapt_bailing_linear(const HfConfig& c) {
  const Reader& r = c.r;
  DecoderRules rules;
  rules.mistral_window = false;
  rules.read_layer_types = false;
  rules.latent_attention = true;
  Decoder d = read_decoder(c, rules);
  r.consider("sliding_window");  // not read by the model: its softmax layers are global
  r.consider("max_window_layers");
  RecurrentSpec rec;
  rec.kind = RecurrentSpec::Kind::lightning;
  rec.num_key_heads = d.attn.num_attention_heads;
  // getattr(config, "head_dim", hidden_size // num_attention_heads), also beside MLA full layers.
  rec.key_head_dim = r.positive_or("head_dim", d.m.hidden_size / d.attn.num_attention_heads);
  rec.conv_dtype = rec.ssm_dtype = d.m.dtype;
  // BailingMoeLinearConfig's default is 1 (every layer full); 0 also makes none linear (is_linear_layer).
  const std::uint64_t group = r.u64("layer_group_size").value_or(1);
  if (group > 1)
    for (std::uint64_t i = 0; i < d.n_layers; ++i)
      if ((i + 1) % group != 0) d.layers[i] = recurrent_layer(rec);
  if (d.moe.num_experts > 0) {
    const std::uint64_t shared = r.u64("num_shared_experts").value_or(0);
    d.moe.num_shared_experts = shared;
    d.moe.shared_intermediate_size =
        shared == 0 ? 0
                    : r.positive_or("moe_shared_expert_intermediate_size", d.moe.expert_intermediate_size);
    d.moe.shared_expert_gate = false;
  }
  return assemble(std::move(d));
}

}  // namespace kvplan::presets::hf
