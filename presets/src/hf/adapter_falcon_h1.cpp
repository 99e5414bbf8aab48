// Falcon-H1 (configuration_falcon_h1.py FalconH1Config; modeling_falcon_h1.py FalconH1DecoderLayer):
// every layer runs attention and a Mamba2 mixer in parallel on the same input, so each layer keeps a
// per-token K/V cache (num_key_value_heads x head_dim) and a fixed Mamba2 state: mamba_d_ssm channels
// (mamba_n_heads x mamba_d_head; FalconH1Config default 1024 when absent), mamba_n_groups, mamba_d_state,
// mamba_d_conv, at the model dtype (vLLM registers one MambaSpec and one attention spec per layer).
// The µP multipliers scale activations, not weights or caches.
#include "adapters.hpp"

namespace kvplan::presets::hf {

ModelSpec adapt_falcon_h1(const HfConfig& c) {
  const Reader& r = c.r;
  DecoderRules rules;
  rules.mistral_window = false;
  Decoder d = read_decoder(c, rules);
  RecurrentSpec rec = mamba2_from_mamba_keys(r, d.m.dtype);
  // mamba_d_ssm: absent means the class default 1024; null means mamba_expand x hidden_size (vLLM
  // falcon_h1.py: intermediate = mamba_d_ssm if not None else int(mamba_expand * hidden_size)).
  if (const auto it = r.obj().find("mamba_d_ssm"); it != r.obj().end() && it->is_null())
    rec.d_inner = checked_mul(r.positive_or("mamba_expand", 2), d.m.hidden_size, "mamba_expand");
  else
    rec.d_inner = r.positive_or("mamba_d_ssm", 1024);
  r.refuse_null("mamba_d_head");  // FalconH1Config maps only "auto" to the width (None fails its check)
  rec.head_dim = r.has("mamba_d_head") ? r.positive("mamba_d_head") : rec.d_inner / rec.n_heads;
  if (checked_mul(rec.n_heads, rec.head_dim, "mamba_d_head") != rec.d_inner)
    r.fail("mamba_d_ssm", std::to_string(rec.d_inner) + " is not mamba_n_heads x mamba_d_head (" +
                              std::to_string(rec.n_heads) + " x " + std::to_string(rec.head_dim) + ")");
  r.consider("mamba_expand");  // mamba_d_ssm gives the width
  for (auto& a : d.layers) {
    if (!has_attention(a.kind)) continue;
    a.parallel_recurrent = true;
    a.recurrent = rec;
  }
  r.consider("sliding_window");  // Falcon-H1 attention is global
  return assemble(std::move(d));
}

}  // namespace kvplan::presets::hf
