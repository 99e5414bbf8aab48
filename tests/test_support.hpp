#pragma once
// Small builders for hand-made models in tests.
#include "kvplan/model.hpp"

namespace kvplan::test {

inline AttentionLayer gqa(std::uint64_t heads, std::uint64_t kv, std::uint64_t dim,
                          AttentionKind kind = AttentionKind::full, std::uint64_t window = 0) {
  AttentionLayer a;
  a.kind = kind;
  a.num_attention_heads = heads;
  a.num_key_value_heads = kv;
  a.head_dim_k = a.head_dim_v = dim;
  a.window = window;
  return a;
}

inline AttentionLayer mla(std::uint64_t heads, std::uint64_t rank, std::uint64_t rope) {
  AttentionLayer a;
  a.kind = AttentionKind::mla;
  a.num_attention_heads = heads;
  a.kv_lora_rank = rank;
  a.qk_rope_head_dim = rope;
  a.head_dim_k = 128 + rope;
  a.head_dim_v = 128;
  return a;
}

inline ModelSpec model(std::initializer_list<std::pair<AttentionLayer, std::uint64_t>> groups) {
  ModelSpec m;
  m.id = m.name = "test";
  for (const auto& [a, n] : groups) m.layers.push_back(LayerGroup{a, MlpSpec{}, n});
  return m;
}

}  // namespace kvplan::test
