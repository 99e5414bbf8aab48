// Jamba (configuration_jamba.py JambaConfig): layer i is attention when i % attn_layer_period ==
// attn_layer_offset, else Mamba (v1: mamba_d_state, mamba_d_conv, mamba_expand, mamba_dt_rank "auto" =
// ceil(hidden_size / 16)); MoE when i % expert_layer_period == expert_layer_offset.
#include "adapters.hpp"

namespace kvplan::presets::hf {

ModelSpec adapt_jamba(const HfConfig& c) {
  const Reader& r = c.r;
  Decoder d = read_decoder(c);
  const std::uint64_t period = r.positive("attn_layer_period");
  r.refuse_null("attn_layer_offset");  // JambaConfig keeps None: no layer would match it
  const std::uint64_t offset = r.u64("attn_layer_offset").value_or(0);
  if (offset >= period) r.fail("attn_layer_offset", "must be less than attn_layer_period");
  RecurrentSpec rec;
  rec.kind = RecurrentSpec::Kind::mamba;
  rec.d_state = r.positive("mamba_d_state");
  rec.d_conv = r.positive("mamba_d_conv");
  rec.d_inner = checked_mul(r.positive("mamba_expand"), d.m.hidden_size, "mamba_expand");
  r.refuse_null("mamba_dt_rank");  // JambaConfig maps only "auto", not None, to ceil(hidden / 16)
  const json* dt = r.get("mamba_dt_rank");
  if (dt == nullptr || (dt->is_string() && dt->get<std::string>() == "auto"))  // JambaConfig default "auto"
    rec.dt_rank = ceil_div(d.m.hidden_size, 16);
  else
    rec.dt_rank = r.positive("mamba_dt_rank");
  rec.conv_dtype = rec.ssm_dtype = d.m.dtype;
  for (std::uint64_t i = 0; i < d.n_layers; ++i)
    if (i % period != offset) d.layers[i] = recurrent_layer(rec);
  if (d.moe.num_experts > 0) {
    const std::uint64_t ep = r.positive("expert_layer_period");
    const std::uint64_t eo = r.u64("expert_layer_offset").value_or(0);
    for (std::uint64_t i = 0; i < d.n_layers; ++i) d.sparse[i] = i % ep == eo;
  }
  return assemble(std::move(d));
}

}  // namespace kvplan::presets::hf
