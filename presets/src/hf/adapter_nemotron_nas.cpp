// Llama-Nemotron NAS models (model_type "nemotron-nas", DeciLMForCausalLM: Llama-3.3-Nemotron-Super-49B,
// Llama-3.1-Nemotron-Ultra-253B, Nano 4B ...): a Llama whose blocks differ, each described by
// block_configs[i]. vLLM nemotron_nas.py DeciLMDecoderLayer: attention.no_op means no attention (no cache);
// otherwise num_kv_heads = num_attention_heads // attention.n_heads_in_group, head_dim hidden / heads. The
// FFN width is _ffn_mult_to_intermediate_size(ffn_mult, hidden): int(2 * ffn_mult * hidden / 3) rounded
// up to a multiple of 256; ffn.no_op means no MLP. num_key_value_heads and intermediate_size are null at
// the top level. Attention replaced by a linear layer, sink tokens or windows are not in vLLM's model and
// not modelled: refused, naming the key.
#include <cmath>

#include "adapters.hpp"

namespace kvplan::presets::hf {

namespace {
/// vLLM nemotron_nas.py _ffn_mult_to_intermediate_size (Python float arithmetic, then int()).
std::uint64_t ffn_width(const Reader& ffn, std::uint64_t hidden) {
  const json* v = ffn.get("ffn_mult");
  if (v == nullptr || !v->is_number() || !(v->get<double>() > 0) || !std::isfinite(v->get<double>()))
    ffn.fail("ffn_mult", "must be a positive number");
  const double w = std::trunc(2 * v->get<double>() * static_cast<double>(hidden) / 3);
  if (w >= 1e15) ffn.fail("ffn_mult", "gives an MLP wider than any real model's");
  const auto n = static_cast<std::uint64_t>(w);
  return n % 256 == 0 ? n : n + 256 - n % 256;
}

/// Keys of a block's attention or ffn object that vLLM's DeciLM model does not implement: any set (true,
/// or a non-null value) is refused.
void refuse_unmodelled(const Reader& part, std::initializer_list<const char*> keys) {
  for (const auto* k : keys) {
    const json* v = part.get(k);
    if (v == nullptr || (v->is_boolean() && !v->get<bool>())) continue;
    part.fail(k, "is set (" + v->dump() +
                     "): vLLM's nemotron_nas.py has no such block, and kvplan does not model it");
  }
}
}  // namespace

ModelSpec adapt_nemotron_nas(const HfConfig& c) {
  const Reader& r = c.r;
  Decoder d = read_decoder(c);
  const json* blocks = r.get("block_configs");
  if (blocks == nullptr) r.fail("block_configs", "missing (required for nemotron-nas)");
  if (!blocks->is_array()) r.fail("block_configs", "must be an array, got " + a_type(*blocks));
  if (blocks->size() != d.n_layers)
    r.fail("block_configs", "has " + std::to_string(blocks->size()) + " entries for " +
                                std::to_string(d.n_layers) + " layers");
  const std::uint64_t heads = d.attn.num_attention_heads;
  d.per_layer_mlp.assign(d.n_layers, d.dense);
  for (std::size_t i = 0; i < blocks->size(); ++i) {
    const std::string at = "block_configs/" + std::to_string(i);
    const json& b = (*blocks)[i];
    if (!b.is_object()) r.fail(at, "must be an object, got " + a_type(b));
    const Reader block(b, r.origin(), r.path() + "/" + at);
    const auto attn = block.object("attention");
    const auto ffn = block.object("ffn");
    if (!attn) block.fail("attention", "missing");
    if (!ffn) block.fail("ffn", "missing");
    refuse_unmodelled(*attn, {"replace_with_linear", "sparsify", "num_sink_tokens", "window_length",
                              "unshifted_sink", "use_prefill_window_in_sink_attention"});
    refuse_unmodelled(*ffn, {"replace_with_linear", "sparsify"});
    if (attn->boolean("no_op").value_or(false)) {
      d.layers[i].kind = AttentionKind::mlp_only;
    } else {
      const std::uint64_t group = attn->positive("n_heads_in_group");
      if (heads % group != 0)
        attn->fail("n_heads_in_group",
                   std::to_string(group) + " does not divide num_attention_heads " + std::to_string(heads));
      d.layers[i].num_key_value_heads = heads / group;
    }
    d.per_layer_mlp[i].intermediate_size =
        ffn->boolean("no_op").value_or(false) ? 0 : ffn_width(*ffn, d.m.hidden_size);
  }
  // The top level's nulls are the class's way of saying "per block".
  r.consider("num_key_value_heads");
  r.consider("intermediate_size");
  d.dense_width_missing = false;  // every block gives its width
  return assemble(std::move(d));
}

}  // namespace kvplan::presets::hf
