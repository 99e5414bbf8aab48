// LFM2 (configuration_lfm2.py Lfm2Config): gated short-convolution layers and GQA attention layers, from
// layer_types ("conv" / "full_attention") or full_attn_idxs. A conv layer keeps hidden_size x
// (conv_L_cache - 1) values per sequence at the model dtype (vLLM mamba_utils.py short_conv_state_shape;
// llama.cpp n_embd_r = n_embd x (n_shortconv_l_cache - 1)). Lfm2Config defaults: conv_L_cache 3.
#include "adapters.hpp"

namespace kvplan::presets::hf {

ModelSpec adapt_lfm2(const HfConfig& c) {
  const Reader& r = c.r;
  DecoderRules rules;
  rules.mistral_window = false;
  Decoder d = read_decoder(c, rules);
  RecurrentSpec rec;
  rec.kind = RecurrentSpec::Kind::short_conv;
  rec.d_inner = d.m.hidden_size;
  rec.d_conv = r.positive_or("conv_L_cache", 3);
  rec.conv_dtype = rec.ssm_dtype = d.m.dtype;
  if (r.has("layer_types")) {
    r.consider("full_attn_idxs");
    for (auto& a : d.layers)
      if (a.kind == AttentionKind::recurrent) a = recurrent_layer(rec);
  } else {
    if (!r.has("full_attn_idxs"))
      r.fail("full_attn_idxs", "missing (LFM2 needs layer_types or full_attn_idxs)");
    const auto full = layer_mask(r, "full_attn_idxs", d.n_layers, false);
    for (std::uint64_t i = 0; i < d.n_layers; ++i)
      if (!full[i]) d.layers[i] = recurrent_layer(rec);
  }
  // The MLP width: block_ff_dim, auto-adjusted as Lfm2MLP does (2/3, multiplier, multiple_of).
  if (const auto ff = r.u64("block_ff_dim")) {
    std::uint64_t w = *ff;
    if (r.boolean("block_auto_adjust_ff_dim").value_or(true)) {
      w = checked_mul(2, w, "block_ff_dim") / 3;
      if (const json* m = r.get("block_ffn_dim_multiplier")) {
        // A width multiplier, then truncated as int(multiplier * ff) does; bounded so that the
        // conversion back to an integer is exact and defined.
        const double f = m->is_number() ? m->get<double>() : -1.0;
        if (!(f > 0.0 && f <= 64.0) || static_cast<double>(w) * f >= 9007199254740992.0)
          r.fail("block_ffn_dim_multiplier", "must be a number in (0, 64] giving a width below 2^53, got " +
                                                 (m->is_number() ? m->dump() : a_type(*m)));
        w = static_cast<std::uint64_t>(f * static_cast<double>(w));
      }
      const std::uint64_t of = r.positive_or("block_multiple_of", 256);
      w = checked_mul(of, ceil_div(w, of), "block_multiple_of");
    }
    d.dense.intermediate_size = w;
    d.dense_width_missing = false;
  } else if (d.dense.intermediate_size > 0) {
    // Configs that carry intermediate_size already hold the adjusted width (e.g. LFM2-350M: 4608).
  }
  return assemble(std::move(d));
}

}  // namespace kvplan::presets::hf
