// DeepSeek-V2 / V3 / V3.2, Kimi K2 and GLM-4.7-Flash (glm4_moe_lite): multi-head latent attention
// (configuration_deepseek_v3.py DeepseekV3Config). The cache holds kv_lora_rank + qk_rope_head_dim values
// per token per layer, whatever the head count; no head_dim is needed.
// DeepSeek-V3.2 (deepseek_v32) adds the lightning indexer's key cache on every layer: index_head_dim fp8
// values and one fp32 scale per 128 (vLLM deepseek_v2.py DeepseekV32IndexerCache: head_dim + head_dim //
// quant_block_size * 4 bytes, uint8; index_n_heads and index_topk shape its compute, not its cache).
// num_nextn_predict_layers (MTP) are not loaded unless speculative decoding asks for them.
#include "adapters.hpp"

namespace kvplan::presets::hf {

ModelSpec adapt_deepseek(const HfConfig& c) {
  const Reader& r = c.r;
  if (!r.has("kv_lora_rank"))
    r.fail("kv_lora_rank", "missing (required for " + c.model_type + "'s latent attention)");
  DecoderRules rules;
  rules.latent_attention = true;
  Decoder d = read_decoder(c, rules);
  if (r.has("index_head_dim") || c.model_type == "deepseek_v32") {
    const std::uint64_t dim = r.positive("index_head_dim");
    r.consider("index_n_heads");
    r.consider("index_topk");
    for (auto& a : d.layers) a.indexer_head_dim = dim;
  }
  return assemble(std::move(d));
}

}  // namespace kvplan::presets::hf
