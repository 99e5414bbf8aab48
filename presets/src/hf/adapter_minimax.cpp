// MiniMax-Text-01 / MiniMax-M1 (configuration_minimax.py MiniMaxConfig): attn_type_list gives each layer's
// attention, 0 lightning (linear) attention, 1 softmax attention with num_key_value_heads x head_dim.
// Lightning layers keep one num_attention_heads x head_dim x head_dim state per sequence at the model dtype
// (vLLM mamba_utils.py linear_attention_state_shape / linear_attention_state_dtype).
#include "adapters.hpp"

namespace kvplan::presets::hf {

ModelSpec adapt_minimax(const HfConfig& c) {
  const Reader& r = c.r;
  DecoderRules rules;
  rules.mistral_window = false;
  rules.read_layer_types = false;
  Decoder d = read_decoder(c, rules);
  r.consider("sliding_window");  // null in MiniMax configs; softmax layers are global
  RecurrentSpec rec;
  rec.kind = RecurrentSpec::Kind::lightning;
  rec.num_key_heads = d.attn.num_attention_heads;
  rec.key_head_dim = d.attn.head_dim_k;
  rec.conv_dtype = rec.ssm_dtype = d.m.dtype;
  const auto types = r.u64_list("attn_type_list", 2);
  if (!types) r.fail("attn_type_list", "missing (required for " + c.model_type + ")");
  if (types->size() != d.n_layers)
    r.fail("attn_type_list",
           "has " + std::to_string(types->size()) + " entries for " + std::to_string(d.n_layers) + " layers");
  for (std::uint64_t i = 0; i < d.n_layers; ++i)
    if ((*types)[i] == 0) d.layers[i] = recurrent_layer(rec);
  d.moe.shared_expert_gate = false;
  return assemble(std::move(d));
}

}  // namespace kvplan::presets::hf
