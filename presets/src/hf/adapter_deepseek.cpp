// DeepSeek-V2 / V3 / V3.2, Kimi K2 and GLM-4.7-Flash (glm4_moe_lite): multi-head latent attention
// (configuration_deepseek_v3.py DeepseekV3Config). The cache holds kv_lora_rank + qk_rope_head_dim values
// per token per layer, whatever the head count; no head_dim is needed.
// DeepSeek-V3.2 (deepseek_v32) adds the lightning indexer's key cache on every layer: index_head_dim fp8
// values and one fp32 scale per 128 (vLLM deepseek_v2.py DeepseekV32IndexerCache: head_dim + head_dim //
// quant_block_size * 4 bytes, uint8; index_n_heads and index_topk shape its compute, not its cache).
// GLM-5.2's IndexCache (index_topk_freq, index_skip_topk_offset, index_topk_pattern) builds the indexer,
// and so its key cache, on some layers only; the others reuse the top-k of the layer before. GLM-5.3 adds
// indexer_types, the same layout per layer ("full" / "shared").
// num_nextn_predict_layers (MTP) are not loaded unless speculative decoding asks for them.
#include "adapters.hpp"

namespace kvplan::presets::hf {

namespace {
/// Which layers build the lightning indexer (and so keep its key cache), as vLLM deepseek_v2.py
/// DeepseekV2MLAAttention.__init__ decides (vllm-project/vllm @002d6073aa03, "IndexCache config"): with
/// index_topk_pattern null or absent, layer i skips the indexer when max(i - index_skip_topk_offset + 1, 0)
/// % index_topk_freq != 0 (getattr defaults 1 and 2); with a pattern, layer i skips it when pattern[i] is
/// "S", and a layer past the pattern's end keeps it. Every layer keeps it when index_topk_freq is 1.
std::vector<bool> indexer_layers(const Reader& r, std::uint64_t n_layers) {
  // GLM-5.3 writes the layout out as indexer_types, one "full" (builds the indexer) or "shared" (reuses the
  // layer before's top-k) per layer, beside the frequency and offset it spells out: read first.
  if (const json* t = r.get("indexer_types"); t != nullptr && !t->is_null()) {
    if (!t->is_array() || t->size() != n_layers)
      r.fail("indexer_types", "must be a list of one \"full\" or \"shared\" per layer (" +
                                  std::to_string(n_layers) + " layers)");
    std::vector<bool> keep(n_layers, true);
    for (std::uint64_t i = 0; i < n_layers; ++i) {
      const json& e = (*t)[i];
      if (!e.is_string() || (e.get<std::string>() != "full" && e.get<std::string>() != "shared"))
        r.fail("indexer_types/" + std::to_string(i),
               "must be \"full\" or \"shared\", got " +
                   (e.is_string() ? "\"" + e.get<std::string>() + "\"" : a_type(e)));
      keep[i] = e.get<std::string>() == "full";
    }
    r.consider("index_topk_freq");
    r.consider("index_skip_topk_offset");
    r.consider("index_topk_pattern");
    return keep;
  }
  const std::uint64_t freq = r.positive_or("index_topk_freq", 1);
  const std::uint64_t offset = r.u64("index_skip_topk_offset").value_or(2);
  std::vector<bool> keep(n_layers, true);
  if (const json* p = r.get("index_topk_pattern")) {
    if (!p->is_string() && !p->is_array())
      r.fail("index_topk_pattern", "must be a string or an array of strings, got " + a_type(*p));
    // A string is one letter per layer (nlohmann's size() of a string is 1, not its length).
    const std::uint64_t given = p->is_string() ? p->get<std::string>().size() : p->size();
    for (std::uint64_t i = 0; i < n_layers && i < given; ++i) {
      const json e = p->is_string() ? json(p->get<std::string>().substr(i, 1)) : (*p)[i];
      if (!e.is_string())
        r.fail("index_topk_pattern/" + std::to_string(i), "must be a string, got " + a_type(e));
      keep[i] = e.get<std::string>() != "S";
    }
    r.consider("index_topk_freq");  // vLLM reads the pattern instead of the frequency
    r.consider("index_skip_topk_offset");
    return keep;
  }
  for (std::uint64_t i = 0; i < n_layers; ++i) keep[i] = (i + 1 >= offset ? i + 1 - offset : 0) % freq == 0;
  return keep;
}
}  // namespace

Decoder read_latent_decoder(const HfConfig& c) {
  if (!c.r.has("kv_lora_rank"))
    c.r.fail("kv_lora_rank", "missing (required for " + c.model_type + "'s latent attention)");
  DecoderRules rules;
  rules.latent_attention = true;
  return read_decoder(c, rules);
}

ModelSpec adapt_deepseek(const HfConfig& c) {
  const Reader& r = c.r;
  Decoder d = read_latent_decoder(c);
  if (r.has("index_head_dim") || c.model_type == "deepseek_v32") {
    const std::uint64_t dim = r.positive("index_head_dim");
    r.consider("index_n_heads");
    r.consider("index_topk");
    const std::vector<bool> keep = indexer_layers(r, d.n_layers);
    for (std::uint64_t i = 0; i < d.n_layers; ++i) d.layers[i].indexer_head_dim = keep[i] ? dim : 0;
  }
  return assemble(std::move(d));
}

}  // namespace kvplan::presets::hf
