// Llama 4 (configuration_llama4.py Llama4TextConfig): no_rope_layers[i] == 0 marks a global NoPE layer;
// the others use chunked attention of attention_chunk_size. Absent: every no_rope_layer_interval-th layer
// (default 4) is global. MoE every interleave_moe_layer_step-th layer, with one shared expert; the dense
// layers' width is intermediate_size_mlp.
#include "adapters.hpp"

namespace kvplan::presets::hf {

const json* llama4_defaults(std::string_view) {
  // transformers src/transformers/models/llama4/configuration_llama4.py Llama4TextConfig: the class's
  // field defaults for the keys kvplan reads (a config.json that omits one gets it in transformers, and
  // vLLM reads the same config object). num_experts_per_tok 1: a config without it still routes one expert.
  static const json d = {{"vocab_size", 202048},
                         {"hidden_size", 5120},
                         {"intermediate_size", 8192},
                         {"intermediate_size_mlp", 16384},
                         {"num_hidden_layers", 48},
                         {"num_attention_heads", 40},
                         {"num_key_value_heads", 8},
                         {"head_dim", 128},
                         {"max_position_embeddings", 4096 * 32},
                         {"tie_word_embeddings", false},
                         {"num_experts_per_tok", 1},
                         {"num_local_experts", 16},
                         {"interleave_moe_layer_step", 1},
                         {"no_rope_layer_interval", 4},
                         {"attention_chunk_size", 8192}};
  return &d;
}

ModelSpec adapt_llama4(const HfConfig& c) {
  const Reader& r = c.r;
  DecoderRules rules;
  rules.read_layer_types = false;
  rules.mistral_window = false;
  Decoder d = read_decoder(c, rules);
  const std::uint64_t n = d.n_layers;
  if (r.has("attention_chunk_size")) {
    const std::uint64_t chunk = r.positive("attention_chunk_size");
    std::vector<std::uint64_t> no_rope(n, 1);
    if (const json* nr = r.get("no_rope_layers"); nr != nullptr && !(nr->is_array() && nr->empty())) {
      if (!nr->is_array() || nr->size() != n)
        r.fail("no_rope_layers", "must be an array of one 0/1 entry per layer (" + std::to_string(n) + ")");
      const auto list = r.u64_list("no_rope_layers", 2);
      no_rope = *list;
    } else {
      const std::uint64_t interval = r.positive_or("no_rope_layer_interval", 4);
      for (std::uint64_t i = 0; i < n; ++i) no_rope[i] = (i + 1) % interval != 0 ? 1 : 0;
    }
    for (std::uint64_t i = 0; i < n; ++i)
      d.layers[i] = with_kind(d.attn, no_rope[i] == 1 ? AttentionKind::chunked : AttentionKind::full, chunk);
  } else {
    r.consider("no_rope_layers");  // without chunked attention every layer is global
  }
  d.dense.intermediate_size = r.positive_any({"intermediate_size_mlp", "intermediate_size"});
  if (d.moe.num_experts > 0) {
    d.moe.num_shared_experts = 1;
    d.moe.shared_intermediate_size = d.moe.expert_intermediate_size;
    const std::uint64_t step = r.positive_or("interleave_moe_layer_step", 1);
    for (std::uint64_t i = 0; i < n; ++i) d.sparse[i] = (i + 1) % step == 0;
  }
  return assemble(std::move(d));
}

}  // namespace kvplan::presets::hf
