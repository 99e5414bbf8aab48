// GPT-2 (configuration_gpt2.py GPT2Config): MHA with biases, learned position embeddings of n_positions
// rows, a plain MLP of n_inner (default 4 x n_embd), LayerNorm with bias.
#include "adapters.hpp"

namespace kvplan::presets::hf {

ModelSpec adapt_gpt2(const HfConfig& c) {
  const Reader& r = c.r;
  DecoderRules rules;
  rules.plain_mlp = true;
  Decoder d = read_decoder(c, rules);
  d.m.learned_position_embeddings = r.positive("n_positions");
  for (auto& a : d.layers) a.qkv_bias = a.o_bias = true;
  d.dense.bias = true;
  d.dense.intermediate_size = r.u64("n_inner").value_or(checked_mul(4, d.m.hidden_size, "n_embd"));
  d.dense_width_missing = false;
  return assemble(std::move(d));
}

}  // namespace kvplan::presets::hf
