// Falcon (configuration_falcon.py FalconConfig): MQA (multi_query) or, with new_decoder_architecture, GQA
// of num_kv_heads; a plain 4x MLP (ffn_hidden_size) and LayerNorm with bias; parallel attention without
// new_decoder_architecture has one norm per layer (modeling_falcon.py FalconDecoderLayer).
#include "adapters.hpp"

namespace kvplan::presets::hf {

ModelSpec adapt_falcon(const HfConfig& c) {
  const Reader& r = c.r;
  DecoderRules rules;
  rules.plain_mlp = true;
  rules.falcon_heads = true;
  Decoder d = read_decoder(c, rules);
  if (!r.boolean("new_decoder_architecture").value_or(false) && r.boolean("parallel_attn").value_or(true))
    d.m.norms_per_layer = 1;
  const bool bias = r.boolean("bias").value_or(false);
  for (auto& a : d.layers) a.qkv_bias = a.qkv_bias || bias;
  d.dense.bias = bias;
  d.dense.intermediate_size =
      r.u64("ffn_hidden_size").value_or(checked_mul(4, d.m.hidden_size, "hidden_size"));
  d.dense_width_missing = false;
  return assemble(std::move(d));
}

}  // namespace kvplan::presets::hf
