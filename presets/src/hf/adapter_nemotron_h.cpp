// NemotronH (Nemotron-H, Nemotron Nano 2, Nemotron-3): configuration_nemotron_h.py NemotronHConfig.
// hybrid_override_pattern has one character per layer: 'M' a Mamba2 mixer, '*' attention, '-' a dense MLP,
// 'E' a mixture of experts; each layer is one of them alone (modeling_nemotron_h.py NemotronHBlock).
// Mamba2: mamba_num_heads x mamba_head_dim channels, n_groups, ssm_state_size, conv_kernel. The SSM state
// is kept at mamba_ssm_cache_dtype, float32 when the config omits it (vLLM models/config.py
// NemotronHForCausalLMConfig.verify_and_update_config); the conv state at the model dtype.
// MLPs are not gated (relu2: up and down projections only).
#include "adapters.hpp"

namespace kvplan::presets::hf {

namespace {
/// layers_block_type ("mamba", "attention", "mlp", "moe" per layer) as hybrid_override_pattern's
/// characters ('M', '*', '-', 'E').
std::string pattern_from_block_types(const Reader& r) {
  const json& lbt = *r.get("layers_block_type");
  if (!lbt.is_array()) r.fail("layers_block_type", "must be an array of strings, got " + a_type(lbt));
  std::string p;
  for (std::size_t i = 0; i < lbt.size(); ++i) {
    const std::string s = lbt[i].is_string() ? lbt[i].get<std::string>() : "";
    if (s == "mamba" || s == "linear_attention")
      p += 'M';
    else if (s == "attention" || s == "full_attention")
      p += '*';
    else if (s == "mlp")
      p += '-';
    else if (s == "moe")
      p += 'E';
    else
      r.fail("layers_block_type/" + std::to_string(i), "unknown layer type");
  }
  return p;
}
}  // namespace

ModelSpec adapt_nemotron_h(const HfConfig& base) {
  // NemotronHConfig of newer transformers derives num_hidden_layers from layers_block_type (a property; a
  // saved num_hidden_layers is ignored), and Nemotron-3-Ultra's config.json has none: its count is then the
  // list's length.
  json derived = json::object();
  if (const json* lbt = base.r.get("layers_block_type");
      lbt != nullptr && lbt->is_array() && !base.r.has("num_hidden_layers"))
    derived["num_hidden_layers"] = lbt->size();
  const HfConfig c{derived.empty() ? base.r : base.r.with_defaults(derived), base.top, base.model_type,
                   base.architecture};
  const Reader& r = c.r;
  DecoderRules rules;
  rules.mistral_window = false;
  rules.read_layer_types = false;
  Decoder d = read_decoder(c, rules);
  auto pattern = r.string("hybrid_override_pattern");
  if (r.has("layers_block_type")) {
    // Newer transformers save the pattern as layers_block_type strings. Both given and different: the
    // transformers versions read one or the other, so the model has no one reading.
    const std::string p = pattern_from_block_types(r);
    if (pattern && *pattern != p)
      r.fail("layers_block_type", "reads as \"" + p + "\", which contradicts hybrid_override_pattern \"" +
                                      *pattern + "\"; give one");
    pattern = p;
  }
  if (!pattern) r.fail("hybrid_override_pattern", "missing (required for nemotron_h)");
  if (pattern->size() != d.n_layers) {
    // Name the key the pattern came from: layers_block_type when hybrid_override_pattern is absent.
    const bool own = r.has("hybrid_override_pattern");
    r.fail(own ? "hybrid_override_pattern" : "layers_block_type",
           "has " + std::to_string(pattern->size()) + (own ? " characters" : " entries") + " for " +
               std::to_string(d.n_layers) + " layers (num_hidden_layers)");
  }
  RecurrentSpec rec;
  rec.kind = RecurrentSpec::Kind::mamba2;
  rec.n_heads = r.positive("mamba_num_heads");
  rec.head_dim = r.positive("mamba_head_dim");
  rec.n_groups = r.positive_or("n_groups", 8);  // NemotronHConfig default n_groups=8
  rec.d_state = r.positive("ssm_state_size");
  rec.d_conv = r.positive_or("conv_kernel", 4);  // NemotronHConfig default conv_kernel=4
  rec.d_inner = checked_mul(rec.n_heads, rec.head_dim, "mamba_num_heads");
  rec.conv_dtype = d.m.dtype;
  rec.ssm_dtype = r.dtype("mamba_ssm_cache_dtype").value_or(DType::fp32);
  r.consider("sliding_window");  // NemotronH attention is global (sliding_window is null in its configs)

  d.dense.gated = false;
  d.moe.gated = false;
  if (d.moe.num_experts > 0) {
    // NemotronHMOE: shared experts of moe_shared_expert_intermediate_size.
    d.moe.shared_intermediate_size =
        r.u64("moe_shared_expert_intermediate_size").value_or(d.moe.shared_intermediate_size);
  }
  MlpSpec none;
  none.intermediate_size = 0;
  for (std::uint64_t i = 0; i < d.n_layers; ++i) {
    const char ch = (*pattern)[i];
    d.sparse[i] = false;
    switch (ch) {
      case 'M': d.layers[i] = recurrent_layer(rec); break;
      case '*': break;  // attention, as read
      case '-':
      case 'E': {
        AttentionLayer a;
        a.kind = AttentionKind::mlp_only;
        d.layers[i] = a;
        d.sparse[i] = ch == 'E';
        if (ch == 'E' && d.moe.num_experts == 0)
          r.fail("hybrid_override_pattern/" + std::to_string(i),
                 "'E' (experts) but the config has no n_routed_experts");
        break;
      }
      default:
        r.fail("hybrid_override_pattern/" + std::to_string(i),
               std::string("unknown layer '") + ch + "' (M Mamba2, * attention, - MLP, E experts)");
    }
  }
  // Mixer layers carry no MLP of their own.
  std::vector<LayerGroup> layers;
  for (std::uint64_t i = 0; i < d.n_layers; ++i) {
    LayerGroup g;
    g.attention = d.layers[i];
    const char ch = (*pattern)[i];
    g.mlp = ch == 'E' ? d.moe : ch == '-' ? d.dense : MlpSpec{0, false};
    layers.push_back(std::move(g));
  }
  d.m.layers = compress(std::move(layers));
  d.m.norms_per_layer = 1;  // NemotronHBlock: one norm before its mixer
  if (d.dense_width_missing && pattern->find('-') != std::string::npos && d.m.weights_unknown.empty())
    d.m.weights_unknown = "the config has no intermediate_size";
  validate(d.m);
  return std::move(d.m);
}

}  // namespace kvplan::presets::hf
