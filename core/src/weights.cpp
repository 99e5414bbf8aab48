#include "kvplan/weights.hpp"

namespace kvplan {

namespace {
// Small checked helpers: every product in a parameter count can be huge for a fuzzed model.
std::uint64_t mul(std::uint64_t a, std::uint64_t b) { return checked_mul(a, b, "parameters"); }
std::uint64_t add(std::uint64_t a, std::uint64_t b) { return checked_add(a, b, "parameters"); }

std::uint64_t parameters(const ModelSpec& m, bool active) {
  const std::uint64_t h = m.hidden_size;
  std::uint64_t total = mul(m.vocab_size, h);                            // token embeddings
  if (!m.tie_word_embeddings) total = add(total, mul(m.vocab_size, h));  // LM head
  total = add(total, mul(m.learned_position_embeddings, h));
  const std::uint64_t norm = m.norm_bias ? mul(2, h) : h;
  total = add(total, norm);  // final norm
  for (const auto& g : m.layers) {
    std::uint64_t layer = add(mixer_parameters(g.attention, h), mlp_parameters(g.mlp, h, active));
    layer = add(layer, mul(m.norms_per_layer, norm));
    total = add(total, mul(layer, g.count));
  }
  return total;
}
}  // namespace

std::uint64_t mixer_parameters(const AttentionLayer& a, std::uint64_t h) {
  const std::uint64_t H = a.num_attention_heads, dk = a.head_dim_k, dv = a.head_dim_v;
  switch (a.kind) {
    case AttentionKind::mlp_only: return 0;
    case AttentionKind::recurrent: {
      const auto& r = a.recurrent;
      if (r.kind == RecurrentSpec::Kind::mamba) {
        // Jamba's JambaMambaMixer: in_proj, conv1d (+bias), x_proj, dt_proj (+bias), A_log, D, out_proj,
        // and the dt/B/C layer norms.
        std::uint64_t p = mul(h, mul(2, r.d_inner));
        p = add(p, add(mul(r.d_inner, r.d_conv), r.d_inner));
        p = add(p, mul(r.d_inner, add(r.dt_rank, mul(2, r.d_state))));
        p = add(p, add(mul(r.dt_rank, r.d_inner), r.d_inner));
        p = add(p, mul(r.d_inner, r.d_state));
        p = add(p, r.d_inner);
        p = add(p, mul(r.d_inner, h));
        p = add(p, add(r.dt_rank, mul(2, r.d_state)));
        return p;
      }
      if (r.kind == RecurrentSpec::Kind::mamba2) {
        // MambaMixer2 (transformers modeling_nemotron_h.py / modeling_granitemoehybrid.py): in_proj to
        // z, x, B, C and dt; conv1d over x, B, C (+bias); dt_bias, A_log, D per head; gated RMSNorm;
        // out_proj.
        const std::uint64_t bc = mul(mul(2, r.n_groups), r.d_state);
        const std::uint64_t conv_dim = add(r.d_inner, bc);
        std::uint64_t p = mul(h, add(add(mul(2, r.d_inner), bc), r.n_heads));
        p = add(p, add(mul(conv_dim, r.d_conv), conv_dim));
        p = add(p, mul(3, r.n_heads));
        p = add(p, r.d_inner);
        p = add(p, mul(r.d_inner, h));
        return p;
      }
      if (r.kind == RecurrentSpec::Kind::lightning) {
        // vLLM minimax_text_01.py MiniMaxText01LinearAttention: qkv_proj, output_gate, norm, out_proj.
        const std::uint64_t inner = mul(r.num_key_heads, r.key_head_dim);
        return add(add(mul(h, mul(4, inner)), inner), mul(inner, h));
      }
      if (r.kind == RecurrentSpec::Kind::short_conv) {
        // transformers modeling_lfm2.py Lfm2ShortConv: in_proj (3 x hidden), depthwise conv1d (no bias),
        // out_proj.
        return add(add(mul(h, mul(3, r.d_inner)), mul(r.d_inner, r.d_conv)), mul(r.d_inner, h));
      }
      if (r.kind == RecurrentSpec::Kind::kda)
        return 0;  // not in the formula: the adapter marks the weights unknown
      // Qwen3-Next's Qwen3NextGatedDeltaNet: in_proj_qkvz, in_proj_ba, conv1d, dt_bias, A_log, norm,
      // out_proj.
      const std::uint64_t kd = mul(r.num_key_heads, r.key_head_dim),
                          vd = mul(r.num_value_heads, r.value_head_dim);
      std::uint64_t p = mul(h, add(mul(2, kd), mul(2, vd)));
      p = add(p, mul(h, mul(2, r.num_value_heads)));
      p = add(p, mul(add(mul(2, kd), vd), r.d_conv));
      p = add(p, mul(2, r.num_value_heads));
      p = add(p, r.value_head_dim);
      p = add(p, mul(vd, h));
      return p;
    }
    case AttentionKind::mla: {
      const std::uint64_t rope = a.qk_rope_head_dim, nope = dk > rope ? dk - rope : 0;
      std::uint64_t p = a.q_lora_rank > 0
                            ? add(add(mul(h, a.q_lora_rank), a.q_lora_rank), mul(a.q_lora_rank, mul(H, dk)))
                            : mul(h, mul(H, dk));
      p = add(p, mul(h, add(a.kv_lora_rank, rope)));
      p = add(p, a.kv_lora_rank);
      p = add(p, mul(a.kv_lora_rank, mul(H, add(nope, dv))));
      p = add(p, mul(mul(H, dv), h));
      return p;
    }
    default: {
      if (a.parallel_recurrent) {  // Falcon-H1: the Mamba2 mixer beside the attention
        AttentionLayer attention = a, mixer = a;
        attention.parallel_recurrent = false;
        mixer.kind = AttentionKind::recurrent;
        return add(mixer_parameters(attention, h), mixer_parameters(mixer, h));
      }
      const std::uint64_t KV = a.num_key_value_heads;
      const std::uint64_t qkv = add(mul(H, dk), add(mul(KV, dk), mul(KV, dv)));
      std::uint64_t p = add(mul(h, qkv), mul(mul(H, dv), h));
      if (a.qkv_bias) p = add(p, qkv);
      if (a.o_bias) p = add(p, h);
      if (a.qk_norm) p = add(p, mul(2, dk));
      return p;
    }
  }
}

std::uint64_t mlp_parameters(const MlpSpec& m, std::uint64_t h, bool active) {
  const auto dense = [&](std::uint64_t inter, bool gated, bool bias) {
    std::uint64_t p = mul(mul(h, inter), gated ? 3 : 2);
    if (bias) p = add(p, add(mul(inter, gated ? 2 : 1), h));
    return p;
  };
  if (m.num_experts == 0) return m.intermediate_size == 0 ? 0 : dense(m.intermediate_size, m.gated, m.bias);
  std::uint64_t p = mul(h, m.num_experts);  // router
  if (m.router_bias) p = add(p, m.num_experts);
  const std::uint64_t experts = active && m.experts_per_token > 0 ? m.experts_per_token : m.num_experts;
  p = add(p, mul(experts, dense(m.expert_intermediate_size, m.gated, m.bias)));
  p = add(p, mul(m.num_shared_experts, dense(m.shared_intermediate_size, m.gated, false)));
  if (m.shared_expert_gate) p = add(p, h);
  return p;
}

std::uint64_t parameter_count(const ModelSpec& m) { return parameters(m, false); }
std::uint64_t active_parameter_count(const ModelSpec& m) { return parameters(m, true); }

Bytes weight_bytes(std::uint64_t params, DType t) { return row_bytes(t, params); }

ParameterBreakdown parameter_breakdown(const ModelSpec& m) {
  ParameterBreakdown b;
  const std::uint64_t h = m.hidden_size;
  b.embeddings = mul(m.vocab_size, h);
  if (!m.tie_word_embeddings) b.embeddings = add(b.embeddings, mul(m.vocab_size, h));
  b.embeddings = add(b.embeddings, mul(m.learned_position_embeddings, h));
  for (const auto& g : m.layers) {
    const auto& e = g.mlp;
    if (e.num_experts == 0) continue;
    MlpSpec routed = e;
    routed.num_experts = 1;
    routed.num_shared_experts = 0;
    routed.shared_expert_gate = false;
    routed.router_bias = false;
    // One routed expert's matrices (and biases) = the MoE MLP with a single expert, less its router.
    const std::uint64_t one = mlp_parameters(routed, h) - h;
    b.experts = add(b.experts, mul(mul(one, e.num_experts), g.count));
  }
  b.other = parameter_count(m) - b.embeddings - b.experts;
  return b;
}

Bytes model_weight_bytes(const ModelSpec& m) {
  const auto b = parameter_breakdown(m);
  return weight_bytes(b.embeddings, m.embedding_dtype) + weight_bytes(b.experts, m.expert_weight_dtype) +
         weight_bytes(b.other, m.weight_dtype);
}

Bytes routed_expert_weight_bytes(const ModelSpec& m) {
  return weight_bytes(parameter_breakdown(m).experts, m.expert_weight_dtype);
}

std::string weight_dtype_label(const ModelSpec& m) {
  bool experts = false;
  for (const auto& g : m.layers) experts = experts || g.mlp.num_experts > 0;
  const std::string rest(name(m.weight_dtype));
  if (experts && m.expert_weight_dtype != m.weight_dtype)
    return std::string(name(m.expert_weight_dtype)) + " experts, " +
           (m.embedding_dtype != m.weight_dtype
                ? rest + " rest, " + std::string(name(m.embedding_dtype)) + " embeddings"
                : rest + " rest");
  if (m.embedding_dtype != m.weight_dtype)
    return rest + ", " + std::string(name(m.embedding_dtype)) + " embeddings";
  return rest;
}

}  // namespace kvplan
