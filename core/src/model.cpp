#include "kvplan/model.hpp"

namespace kvplan {

std::string_view name(AttentionKind k) {
  switch (k) {
    case AttentionKind::full: return "full";
    case AttentionKind::sliding: return "sliding";
    case AttentionKind::chunked: return "chunked";
    case AttentionKind::mla: return "mla";
    case AttentionKind::none: return "none";
  }
  return "?";
}

std::uint64_t num_layers(const ModelSpec& m) {
  std::uint64_t n = 0;
  for (const auto& g : m.layers) n = checked_add(n, g.count, "layers");
  return n;
}

void validate(const ModelSpec& m) {
  if (m.layers.empty()) throw Error("layers", "the model has no layers");
  (void)num_layers(m);
  for (const auto& g : m.layers) {
    if (g.count == 0) throw Error("layers", "a layer group has zero layers");
    const auto& a = g.attention;
    if (a.kind == AttentionKind::none) continue;
    if (a.num_attention_heads == 0) throw Error("num_attention_heads", "must be positive");
    if (a.kind == AttentionKind::mla) {
      if (a.kv_lora_rank == 0) throw Error("kv_lora_rank", "must be positive for MLA");
      continue;
    }
    if (a.num_key_value_heads == 0) throw Error("num_key_value_heads", "must be positive");
    if (a.head_dim_k == 0 || a.head_dim_v == 0) throw Error("head_dim", "must be positive");
    if (a.num_attention_heads % a.num_key_value_heads != 0)
      throw Error("num_key_value_heads", std::to_string(a.num_key_value_heads) +
                                             " does not divide num_attention_heads " +
                                             std::to_string(a.num_attention_heads));
    if ((a.kind == AttentionKind::sliding || a.kind == AttentionKind::chunked) && a.window == 0)
      throw Error(a.kind == AttentionKind::sliding ? "sliding_window" : "attention_chunk_size",
                  "must be positive");
  }
}

std::vector<LayerGroup> compress(std::vector<LayerGroup> layers) {
  std::vector<LayerGroup> out;
  for (auto& g : layers) {
    if (g.count == 0) continue;
    if (!out.empty() && out.back().attention == g.attention && out.back().mlp == g.mlp)
      out.back().count = checked_add(out.back().count, g.count, "layers");
    else
      out.push_back(std::move(g));
  }
  return out;
}

}  // namespace kvplan
