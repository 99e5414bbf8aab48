#include "kvplan/variants.hpp"

#include <algorithm>
#include <functional>

namespace kvplan {

namespace {
ModelSpec transform(const ModelSpec& m, const std::function<void(AttentionLayer&)>& f) {
  ModelSpec out = m;
  for (auto& g : out.layers)
    if (has_attention(g.attention.kind)) f(g.attention);
  out.layers = compress(std::move(out.layers));
  return out;
}

/// An MHA/GQA layer from any attention layer, keeping query heads and head dims.
void as_grouped(AttentionLayer& a, AttentionKind kind, std::uint64_t kv_heads, std::uint64_t window) {
  if (a.kind == AttentionKind::mla) {
    a.head_dim_k = a.head_dim_k > 0 ? a.head_dim_k : a.qk_rope_head_dim;
    a.kv_lora_rank = a.qk_rope_head_dim = a.q_lora_rank = 0;
  }
  a.kind = kind;
  a.num_key_value_heads = kv_heads;
  a.window = window;
}

std::uint64_t largest_divisor_at_most(std::uint64_t n, std::uint64_t k) {
  for (std::uint64_t d = std::min(n, k); d > 1; --d)
    if (n % d == 0) return d;
  return 1;
}
}  // namespace

std::vector<Variant> attention_variants(const ModelSpec& m, const VariantOptions& o) {
  const AttentionLayer* any = nullptr;
  for (const auto& g : m.layers)
    if (has_attention(g.attention.kind)) any = &g.attention;
  if (any == nullptr) throw Error("layers", "the model has no attention layer to compare");
  const std::uint64_t gqa = largest_divisor_at_most(any->num_attention_heads, o.gqa_kv_heads);

  std::vector<Variant> out;
  out.push_back({"as configured", m});
  out.push_back({"MHA", transform(m, [](AttentionLayer& a) {
                   as_grouped(a, AttentionKind::full, a.num_attention_heads, 0);
                 })});
  out.push_back({"GQA-" + std::to_string(gqa), transform(m, [&](AttentionLayer& a) {
                   as_grouped(a, AttentionKind::full, largest_divisor_at_most(a.num_attention_heads, gqa), 0);
                 })});
  out.push_back({"MQA", transform(m, [](AttentionLayer& a) { as_grouped(a, AttentionKind::full, 1, 0); })});
  out.push_back({"SWA-" + std::to_string(o.sliding_window) + " (GQA-" + std::to_string(gqa) + ")",
                 transform(m, [&](AttentionLayer& a) {
                   as_grouped(a, AttentionKind::sliding, largest_divisor_at_most(a.num_attention_heads, gqa),
                              o.sliding_window);
                 })});
  out.push_back({"MLA-" + std::to_string(o.kv_lora_rank) + "+" + std::to_string(o.qk_rope_head_dim),
                 transform(m, [&](AttentionLayer& a) {
                   a.kind = AttentionKind::mla;
                   a.num_key_value_heads = 0;
                   a.window = 0;
                   a.kv_lora_rank = o.kv_lora_rank;
                   a.qk_rope_head_dim = o.qk_rope_head_dim;
                 })});
  if (o.streaming)
    out.push_back(
        {streaming_label(*o.streaming), with_attention_sinks(m, o.streaming->sink, o.streaming->recent)});
  for (auto& v : out) v.model.name = m.name + " [" + v.label + "]";
  return out;
}

std::vector<VariantFigures> compare_attention(const ModelSpec& m, const KvDtypes& t, Tokens context,
                                              const VariantOptions& o, const EngineOptions& engine) {
  if (context.value == 0) throw Error("context", "must be positive");
  // Under an engine's rules the capped layers would be planned as the engine's sliding windows.
  if (o.streaming) require_streaming_engine(engine.engine);
  std::vector<VariantFigures> out;
  for (auto& v : attention_variants(m, o)) {
    VariantFigures f;
    f.label = v.label;
    f.bytes_per_token = bytes_per_token(v.model, t);
    f.full_bytes_per_token = full_bytes_per_token(v.model, t);
    f.kv_bytes_per_sequence = kv_bytes_per_sequence(v.model, t, context);
    const bool has_mla = std::any_of(v.model.layers.begin(), v.model.layers.end(), [](const LayerGroup& g) {
      return g.attention.kind == AttentionKind::mla;
    });
    if (engine.fp8_ds_mla && !has_mla) {
      f.engine_note = "fp8_ds_mla is vLLM's cache for MLA layers: no such cache without MLA";
    } else if (engine.engine != Engine::ideal) {
      const EngineResult e = apply_engine(v.model, t, Parallelism{}, context, 1, engine, std::nullopt);
      f.engine_bytes_per_token = e.bytes_per_token;
      f.engine_kv_bytes_per_sequence = e.kv_bytes_total;
    }
    f.model = std::move(v.model);
    out.push_back(std::move(f));
  }
  const Bytes mha = out.at(1).kv_bytes_per_sequence;  // attention_variants puts MHA second
  for (auto& f : out)
    if (f.kv_bytes_per_sequence != Bytes{0})
      f.saving_vs_mha = static_cast<double>(mha.value) / static_cast<double>(f.kv_bytes_per_sequence.value);
  return out;
}

}  // namespace kvplan
