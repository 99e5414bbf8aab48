// LongCat-Flash (longcat_flash; vLLM longcat_flash.py FlashConfig, FlashDecoderLayer): each decoder layer
// holds two MLA attentions (self_attn.0 and self_attn.1, DeepseekV2MLAAttention: kv_lora_rank +
// qk_rope_head_dim cached per token each), two dense SwiGLU MLPs of intermediate_size (FlashConfig takes
// ffn_hidden_size when present) and one MoE block of n_routed_experts experts of moe_intermediate_size
// (else expert_ffn_hidden_size, else intermediate_size), moe_topk routed per token, plus zero_expert_num
// identity ("zero") experts that hold no weights. Decoder layers: num_hidden_layers when given, else
// num_layers (FlashConfig.__init__). So the cache has 2 x layers MLA caches: the generic rules, reading
// num_layers as the layer count, cached half of them.
// kvplan lays each decoder layer out as two: the first attention with one dense MLP, the second with the
// other dense MLP (as a shared expert of the same width) beside the MoE block. The weights are exact; the
// active parameters count moe_topk real experts, an upper bound where tokens go to zero experts.
#include "adapters.hpp"

#include "kvplan/format.hpp"

namespace kvplan::presets::hf {

ModelSpec adapt_longcat_flash(const HfConfig& c) {
  const Reader& r = c.r;
  Decoder d = read_latent_decoder(c);
  if (r.has("ffn_hidden_size")) {
    d.dense.intermediate_size = r.positive("ffn_hidden_size");
    d.dense_width_missing = false;
  }
  if (d.dense_width_missing)
    r.fail("ffn_hidden_size", "missing: the dense MLPs' width (or intermediate_size)");
  if (d.moe.num_experts == 0)
    r.fail("n_routed_experts", "missing or 0: LongCat-Flash layers hold a MoE block");
  d.moe.expert_intermediate_size = r.has("moe_intermediate_size")    ? r.positive("moe_intermediate_size")
                                   : r.has("expert_ffn_hidden_size") ? r.positive("expert_ffn_hidden_size")
                                                                     : d.dense.intermediate_size;
  d.moe.num_shared_experts = 1;  // the second dense MLP
  d.moe.shared_intermediate_size = d.dense.intermediate_size;
  d.moe.shared_expert_gate = false;
  const std::uint64_t zero = r.u64("zero_expert_num").value_or(0);
  r.consider("zero_expert_type");
  const std::uint64_t n = d.n_layers;
  if (zero > 0)
    d.m.warnings.push_back(r.where("zero_expert_num") + " " + format_count(zero) +
                           ": identity experts hold no weights; the active parameters count " +
                           format_count(d.moe.experts_per_token) +
                           " real experts per token, an upper bound (tokens routed to zero experts run "
                           "none), and the router's " +
                           format_count(checked_mul(checked_mul(n, d.m.hidden_size, "zero_expert_num"), zero,
                                                    "zero_expert_num")) +
                           " parameters for them (hidden_size x zero_expert_num per layer) are not counted");
  if (n > kMaxLayers / 2) r.fail("num_layers", "more than " + format_count(kMaxLayers / 2) + " layers");
  std::vector<AttentionLayer> layers;
  std::vector<bool> sparse;
  layers.reserve(2 * n);
  sparse.reserve(2 * n);
  for (std::uint64_t i = 0; i < n; ++i) {
    layers.push_back(d.layers[i]);
    layers.push_back(d.layers[i]);
    sparse.push_back(false);
    sparse.push_back(true);
  }
  d.layers = std::move(layers);
  d.sparse = std::move(sparse);
  d.n_layers = 2 * n;
  return assemble(std::move(d));
}

}  // namespace kvplan::presets::hf
