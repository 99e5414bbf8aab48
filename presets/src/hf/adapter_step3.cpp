// Step-3 (step3_text, the text config of step3_vl): vLLM step3_text.py (vllm-project/vllm @0169d3962cca)
// Step3TextDecoderLayer builds every layer's attention with num_kv_heads=1 and head_dim, whatever
// num_attention_groups says, so the cache is one K and one V head per layer. The query is narrowed to
// share_q_dim (qkv_proj: hidden -> share_q_dim + 2 x head_dim), normed (inter_norm) and widened (wq:
// share_q_dim -> heads x head_dim); kvplan's attention weight formula has no such path and counts
// hidden x heads x head_dim for the query instead: a warning gives the difference. The MoE layers
// (moe_layers_enum, moe_num_experts, moe_top_k, one ungated share_expert) are read by the decoder rules.
#include "adapters.hpp"

#include "kvplan/format.hpp"

namespace kvplan::presets::hf {

ModelSpec adapt_step3(const HfConfig& c) {
  const Reader& r = c.r;
  r.consider("num_attention_groups");  // vLLM builds num_kv_heads=1 on every layer
  DecoderRules rules;
  rules.mistral_window = false;
  Decoder d = read_decoder(c, rules);
  for (auto& a : d.layers) a.num_key_value_heads = 1;
  d.attn.num_key_value_heads = 1;
  if (r.has("share_q_dim")) {
    const std::uint64_t q = r.positive("share_q_dim"), h = d.m.hidden_size;
    const std::uint64_t wide = checked_mul(d.attn.num_attention_heads, d.attn.head_dim_k, "share_q_dim");
    // Counted: hidden x wide. The model: hidden x q + q (inter_norm) + q x wide.
    const std::uint64_t counted = checked_mul(h, wide, "share_q_dim");
    const std::uint64_t real = checked_add(checked_add(checked_mul(h, q, "share_q_dim"), q, "share_q_dim"),
                                           checked_mul(q, wide, "share_q_dim"), "share_q_dim");
    d.m.warnings.push_back(r.where("share_q_dim") + " " + std::to_string(q) +
                           ": Step-3's narrowed query (vLLM step3_text.py: hidden x share_q_dim, inter_norm, "
                           "share_q_dim x heads x "
                           "head_dim) is counted as one hidden x heads x head_dim projection, " +
                           (counted >= real
                                ? format_count(counted - real) + " parameters per layer too many"
                                : format_count(real - counted) + " parameters per layer too few") +
                           " in the weights; the KV cache (one K and one V head per layer) is exact");
  }
  return assemble(std::move(d));
}

}  // namespace kvplan::presets::hf
