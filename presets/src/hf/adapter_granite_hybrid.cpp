// Granite 4.0 hybrid (configuration_granitemoehybrid.py GraniteMoeHybridConfig): layer_types "mamba" /
// "attention"; Mamba2 mixers of mamba_n_heads x mamba_d_head channels (mamba_expand x hidden_size),
// mamba_n_groups, mamba_d_state, mamba_d_conv; every layer has a shared MLP (shared_intermediate_size) and,
// with num_local_experts > 0, routed experts of intermediate_size. State at the model dtype (vLLM has no
// dtype hook for this family).
#include "adapters.hpp"

namespace kvplan::presets::hf {

ModelSpec adapt_granite_hybrid(const HfConfig& c) {
  const Reader& r = c.r;
  DecoderRules rules;
  rules.mistral_window = false;
  Decoder d = read_decoder(c, rules);
  RecurrentSpec rec = mamba2_from_mamba_keys(r, d.m.dtype);
  const std::uint64_t expand = r.positive_or("mamba_expand", 2);
  const std::uint64_t d_inner = checked_mul(expand, d.m.hidden_size, "mamba_expand");
  // mamba_d_head "auto" (the class default): mamba_expand x hidden_size / mamba_n_heads.
  r.refuse_null("mamba_d_head");  // GraniteMoeHybridConfig maps only "auto", not None, to the width
  const json* dh = r.get("mamba_d_head");
  if (dh == nullptr || (dh->is_string() && dh->get<std::string>() == "auto")) {
    if (d_inner % rec.n_heads != 0)
      r.fail("mamba_d_head", "auto, but mamba_expand x hidden_size is not a multiple of mamba_n_heads");
    rec.head_dim = d_inner / rec.n_heads;
  } else {
    rec.head_dim = r.positive("mamba_d_head");
  }
  rec.d_inner = checked_mul(rec.n_heads, rec.head_dim, "mamba_n_heads");
  if (rec.d_inner != d_inner)
    r.fail("mamba_d_head", "mamba_n_heads x mamba_d_head = " + std::to_string(rec.d_inner) +
                               " differs from mamba_expand x hidden_size = " + std::to_string(d_inner));
  if (!r.has("layer_types")) r.fail("layer_types", "missing (required for granitemoehybrid)");
  for (auto& a : d.layers)
    if (a.kind == AttentionKind::recurrent) a = recurrent_layer(rec);
  // The shared MLP on every layer; routed experts of intermediate_size beside it.
  const std::uint64_t shared = r.u64("shared_intermediate_size").value_or(0);
  if (d.moe.num_experts > 0) {
    d.moe.num_shared_experts = shared > 0 ? 1 : 0;
    d.moe.shared_intermediate_size = shared;
  } else {
    d.dense.intermediate_size = shared > 0 ? shared : d.dense.intermediate_size;
  }
  return assemble(std::move(d));
}

}  // namespace kvplan::presets::hf
