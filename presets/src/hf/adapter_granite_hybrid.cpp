// Granite 4.0 hybrid (configuration_granitemoehybrid.py GraniteMoeHybridConfig): layer_types "mamba" /
// "attention"; Mamba2 mixers of mamba_n_heads x mamba_d_head channels (mamba_expand x hidden_size),
// mamba_n_groups, mamba_d_state, mamba_d_conv; every layer has a shared MLP (shared_intermediate_size) and,
// with num_local_experts > 0, routed experts of intermediate_size. State at the model dtype (vLLM has no
// dtype hook for this family).
// Bamba (configuration_bamba.py BambaConfig), the design Granite 4.0 hybrid grew from: the same Mamba2 keys
// and "auto" head width; its attention layers named by 0-based index in attn_layer_indices
// (layers_block_type: "attention" if i in attn_layer_indices else "mamba"; none given: every layer Mamba2), a
// dense SwiGLU MLP of intermediate_size on every layer. vLLM bamba.py builds the same
// (BambaAttentionDecoderLayer at those indices, BambaMixerDecoderLayer elsewhere), its state at the model
// dtype unless --mamba-cache-dtype says otherwise (MambaStateDtypeCalculator.mamba2_state_dtype).
#include "adapters.hpp"

namespace kvplan::presets::hf {

namespace {
/// The Mamba2 mixer that GraniteMoeHybridConfig and BambaConfig describe: mamba2_from_mamba_keys, its width
/// mamba_expand (default 2) x hidden_size split into mamba_n_heads heads of mamba_d_head ("auto": the width
/// / mamba_n_heads); errors name the key when the two disagree, as the classes' __init__ raise.
RecurrentSpec expanded_mamba2(const Reader& r, const Decoder& d) {
  RecurrentSpec rec = mamba2_from_mamba_keys(r, d.m.dtype);
  const std::uint64_t expand = r.positive_or("mamba_expand", 2);
  const std::uint64_t d_inner = checked_mul(expand, d.m.hidden_size, "mamba_expand");
  r.refuse_null("mamba_d_head");  // the classes map only "auto", not None, to the width
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
  return rec;
}
}  // namespace

ModelSpec adapt_granite_hybrid(const HfConfig& c) {
  const Reader& r = c.r;
  DecoderRules rules;
  rules.mistral_window = false;
  Decoder d = read_decoder(c, rules);
  const RecurrentSpec rec = expanded_mamba2(r, d);
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

const json* bamba_defaults(std::string_view model_type) {
  // transformers src/transformers/models/bamba/configuration_bamba.py BambaConfig.__init__: the defaults of
  // the keys kvplan reads (those of ibm-fms/Bamba-9.8b-2.2T-hf).
  if (model_type != "bamba") return nullptr;
  static const json d = {{"vocab_size", 128000},     {"tie_word_embeddings", false},
                         {"hidden_size", 4096},      {"intermediate_size", 14336},
                         {"num_hidden_layers", 32},  {"num_attention_heads", 32},
                         {"num_key_value_heads", 8}, {"max_position_embeddings", 262144},
                         {"mamba_n_heads", 128},     {"mamba_d_head", "auto"},
                         {"mamba_n_groups", 1},      {"mamba_d_state", 256},
                         {"mamba_d_conv", 4},        {"mamba_expand", 2}};
  return &d;
}

ModelSpec adapt_bamba(const HfConfig& c) {
  const Reader& r = c.r;
  DecoderRules rules;
  rules.mistral_window = false;
  rules.read_layer_types = false;  // BambaConfig derives layers_block_type from attn_layer_indices
  Decoder d = read_decoder(c, rules);
  const RecurrentSpec rec = expanded_mamba2(r, d);
  const std::vector<bool> attention = layer_mask(r, "attn_layer_indices", d.n_layers, false);
  for (std::uint64_t i = 0; i < d.n_layers; ++i)
    if (!attention[i]) d.layers[i] = recurrent_layer(rec);
  return assemble(std::move(d));
}

}  // namespace kvplan::presets::hf
