#include "kvplan/model.hpp"

#include "kvplan/format.hpp"
#include "kvplan/limits.hpp"

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
  if (m.layers.size() > kMaxLayers || num_layers(m) > kMaxLayers)
    throw Error("layers", format_count(m.layers.size() > kMaxLayers ? m.layers.size() : num_layers(m)) +
                              " layers: kvplan plans at most " + format_count(kMaxLayers));
  for (const auto& g : m.layers) {
    if (g.count == 0) throw Error("layers", "a layer group has zero layers");
    const auto& a = g.attention;
    if (a.kind == AttentionKind::none) {
      // A recurrent layer's state is what it caches: without its sizes it would be 0 B, and engines
      // that page the state (vLLM's hybrid allocator) would divide by it.
      const auto& r = a.recurrent;
      if (r.kind == RecurrentSpec::Kind::mamba && (r.d_inner == 0 || r.d_state == 0))
        throw Error("recurrent", "a Mamba layer needs positive d_inner and d_state (its state would be 0 B)");
      if (r.kind == RecurrentSpec::Kind::gated_deltanet &&
          (r.num_key_heads == 0 || r.num_value_heads == 0 || r.key_head_dim == 0 || r.value_head_dim == 0))
        throw Error("recurrent",
                    "a linear-attention layer needs positive key/value heads and head dims (its state "
                    "would be 0 B)");
      continue;
    }
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
