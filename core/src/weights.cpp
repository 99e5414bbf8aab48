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

namespace {
void push(std::vector<LinearShape>& v, std::uint64_t in, std::uint64_t out, std::uint64_t count,
          LinearRole role) {
  if (in != 0 && out != 0 && count != 0) v.push_back(LinearShape{in, out, count, role});
}

// The projections of one layer's token mixer: the matrices mixer_parameters counts, less its vectors.
void mixer_linears(const AttentionLayer& a, std::uint64_t h, std::uint64_t n, std::vector<LinearShape>& v) {
  const std::uint64_t H = a.num_attention_heads, dk = a.head_dim_k, dv = a.head_dim_v;
  constexpr auto r_ = LinearRole::mixer;
  switch (a.kind) {
    case AttentionKind::mlp_only: return;
    case AttentionKind::recurrent: {
      const auto& r = a.recurrent;
      switch (r.kind) {
        case RecurrentSpec::Kind::mamba:  // in_proj, x_proj, dt_proj, out_proj
          push(v, h, mul(2, r.d_inner), n, r_);
          push(v, r.d_inner, add(r.dt_rank, mul(2, r.d_state)), n, r_);
          push(v, r.dt_rank, r.d_inner, n, r_);
          push(v, r.d_inner, h, n, r_);
          return;
        case RecurrentSpec::Kind::mamba2: {  // in_proj (z, x, B, C, dt), out_proj
          const std::uint64_t bc = mul(mul(2, r.n_groups), r.d_state);
          push(v, h, add(add(mul(2, r.d_inner), bc), r.n_heads), n, r_);
          push(v, r.d_inner, h, n, r_);
          return;
        }
        case RecurrentSpec::Kind::lightning: {  // qkv_proj, output_gate, out_proj
          const std::uint64_t inner = mul(r.num_key_heads, r.key_head_dim);
          push(v, h, mul(3, inner), n, r_);
          push(v, h, inner, n, r_);
          push(v, inner, h, n, r_);
          return;
        }
        case RecurrentSpec::Kind::short_conv:  // in_proj, out_proj
          push(v, h, mul(3, r.d_inner), n, r_);
          push(v, r.d_inner, h, n, r_);
          return;
        case RecurrentSpec::Kind::kda: return;  // not in the parameter formula either
        default: {                              // Gated DeltaNet: in_proj_qkvz, in_proj_ba, out_proj
          const std::uint64_t kd = mul(r.num_key_heads, r.key_head_dim),
                              vd = mul(r.num_value_heads, r.value_head_dim);
          push(v, h, add(mul(2, kd), mul(2, vd)), n, r_);
          push(v, h, mul(2, r.num_value_heads), n, r_);
          push(v, vd, h, n, r_);
          return;
        }
      }
    }
    case AttentionKind::mla: {
      const std::uint64_t rope = a.qk_rope_head_dim, nope = dk > rope ? dk - rope : 0;
      if (a.q_lora_rank > 0) {
        push(v, h, a.q_lora_rank, n, r_);
        push(v, a.q_lora_rank, mul(H, dk), n, r_);
      } else {
        push(v, h, mul(H, dk), n, r_);
      }
      push(v, h, add(a.kv_lora_rank, rope), n, r_);
      push(v, a.kv_lora_rank, mul(H, add(nope, dv)), n, r_);
      push(v, mul(H, dv), h, n, r_);
      return;
    }
    default: {
      if (a.parallel_recurrent) {  // Falcon-H1: the Mamba2 mixer beside the attention
        AttentionLayer attention = a, mixer = a;
        attention.parallel_recurrent = false;
        mixer.kind = AttentionKind::recurrent;
        mixer_linears(attention, h, n, v);
        mixer_linears(mixer, h, n, v);
        return;
      }
      const std::uint64_t KV = a.num_key_value_heads;
      push(v, h, mul(H, dk), n, r_);   // q_proj
      push(v, h, mul(KV, dk), n, r_);  // k_proj
      push(v, h, mul(KV, dv), n, r_);  // v_proj
      push(v, mul(H, dv), h, n, r_);   // o_proj
      return;
    }
  }
}

void dense_linears(std::uint64_t h, std::uint64_t inter, bool gated, std::uint64_t n, LinearRole role,
                   std::vector<LinearShape>& v) {
  push(v, h, inter, gated ? mul(2, n) : n, role);  // gate_proj and up_proj (or fc1)
  push(v, inter, h, n, role);                      // down_proj (or fc2)
}

// Bytes of `n` values of a dtype.
std::uint64_t elems(std::uint64_t n, DType t) { return row_bytes(t, n).value; }
}  // namespace

std::vector<LinearShape> linear_shapes(const ModelSpec& m) {
  std::vector<LinearShape> v;
  const std::uint64_t h = m.hidden_size;
  for (const auto& g : m.layers) {
    mixer_linears(g.attention, h, g.count, v);
    const auto& e = g.mlp;
    if (e.num_experts == 0) {
      dense_linears(h, e.intermediate_size, e.gated, g.count, LinearRole::mlp, v);
      continue;
    }
    push(v, h, e.num_experts, g.count, LinearRole::router);
    dense_linears(h, e.expert_intermediate_size, e.gated, mul(e.num_experts, g.count), LinearRole::expert, v);
    dense_linears(h, e.shared_intermediate_size, e.gated, mul(e.num_shared_experts, g.count),
                  LinearRole::shared_expert, v);
  }
  return v;
}

Bytes quantized_linear_bytes(const WeightQuant& q, std::uint64_t in, std::uint64_t out) {
  using M = WeightQuant::Method;
  const auto mul_ = [](std::uint64_t a, std::uint64_t b) { return checked_mul(a, b, "weights"); };
  const auto add_ = [](std::uint64_t a, std::uint64_t b) { return checked_add(a, b, "weights"); };
  const std::uint64_t groups = q.group_size == 0 ? 1 : ceil_div(in, q.group_size);
  const std::uint64_t per_int32 = q.bits == 0 ? 1 : 32 / q.bits;  // values packed per int32 (4 bits: 8)
  const std::uint64_t scale = elems(1, q.scale_dtype);
  // Scales of a one-byte (int8 / fp8) weight by strategy: per tensor, per block, or out x groups.
  const auto byte_scales = [&] {
    if (q.tensor_scale) return scale;
    if (q.block_out != 0 && q.block_in != 0)
      return mul_(mul_(ceil_div(out, q.block_out), ceil_div(in, q.block_in)), scale);
    return mul_(mul_(out, groups), scale);
  };
  std::uint64_t b = 0;
  switch (q.method) {
    case M::none: return row_bytes(DType::bf16, mul_(in, out));
    case M::awq: {
      const std::uint64_t words = ceil_div(out, per_int32);
      b = mul_(mul_(in, words), 4);                 // qweight [in, out / 8] int32
      b = add_(b, mul_(mul_(groups, words), 4));    // qzeros [in / group, out / 8] int32
      b = add_(b, mul_(mul_(groups, out), scale));  // scales [in / group, out] fp16
      return Bytes{b};
    }
    case M::gptq: {
      b = mul_(mul_(ceil_div(mul_(in, q.bits), 32), out), 4);  // qweight [in * bits / 32, out]
      b = add_(b,
               mul_(mul_(groups, ceil_div(mul_(out, q.bits), 32)), 4));  // qzeros [groups, out * bits / 32]
      b = add_(b, mul_(mul_(groups, out), scale));                       // scales [groups, out] fp16
      b = add_(b, mul_(in, 4));                                          // g_idx [in] int32
      return Bytes{b};
    }
    case M::ct_packed: {
      b = mul_(mul_(out, ceil_div(in, per_int32)), 4);  // weight_packed [out, in / pack] int32
      b = add_(b, mul_(mul_(out, groups), scale));      // weight_scale [out, groups]
      b = add_(b, 16);                                  // weight_shape [2] int64
      if (q.zero_point) b = add_(b, mul_(mul_(ceil_div(out, per_int32), groups), 4));  // weight_zero_point
      if (q.g_idx) b = add_(b, mul_(in, 4));  // weight_g_idx [in] int32
      return Bytes{b};
    }
    case M::ct_int:
    case M::ct_float:
    case M::fp8:
      b = add_(mul_(in, out), byte_scales());  // weight [out, in] one byte each, and its scales
      if (q.input_scale) b = add_(b, scale);   // input_scale
      return Bytes{b};
    case M::bnb_4bit: {
      const std::uint64_t n = mul_(in, out), blocks = ceil_div(n, 64);
      b = ceil_div(n, 2);                                      // two 4-bit values a byte
      b = add_(b, q.double_quant ? blocks : mul_(blocks, 4));  // absmax: uint8 (double quant) or fp32
      if (q.double_quant) b = add_(b, add_(mul_(ceil_div(blocks, 256), 4), 256 * 4));  // nested absmax, map
      b = add_(b, 16 * 4);  // quant_map: 16 fp32 code values
      return Bytes{b};
    }
    case M::bnb_8bit: return Bytes{add_(mul_(in, out), mul_(out, 4))};  // weight int8, SCB fp32 per row
  }
  return Bytes{b};
}

bool quantized(const WeightQuant& q, LinearRole role) {
  if (q.method == WeightQuant::Method::none) return false;
  switch (role) {
    case LinearRole::mixer: return q.attention;
    case LinearRole::mlp: return q.mlp;
    case LinearRole::expert: return q.experts;
    case LinearRole::shared_expert: return q.shared_experts;
    case LinearRole::router: return q.router;
  }
  return false;
}

bool quant_applies(const ModelSpec& m) {
  return m.quant.method != WeightQuant::Method::none && m.weight_dtype == m.quant.stored;
}

namespace {
Bytes shape_bytes(const ModelSpec& m, const LinearShape& s) {
  const Bytes one = quantized(m.quant, s.role) ? quantized_linear_bytes(m.quant, s.in, s.out)
                                               : weight_bytes(mul(s.in, s.out), m.embedding_dtype);
  return one * s.count;
}
}  // namespace

Bytes model_weight_bytes(const ModelSpec& m) {
  if (!quant_applies(m)) {
    const auto b = parameter_breakdown(m);
    return weight_bytes(b.embeddings, m.embedding_dtype) + weight_bytes(b.experts, m.expert_weight_dtype) +
           weight_bytes(b.other, m.weight_dtype);
  }
  Bytes total{0};
  std::uint64_t linear = 0;
  for (const auto& s : linear_shapes(m)) {
    linear = add(linear, mul(mul(s.in, s.out), s.count));
    total = total + shape_bytes(m, s);
  }
  const std::uint64_t all = parameter_count(m);
  return total + weight_bytes(all > linear ? all - linear : 0, m.embedding_dtype);
}

Bytes routed_expert_weight_bytes(const ModelSpec& m) {
  const std::uint64_t experts = parameter_breakdown(m).experts;
  if (!quant_applies(m)) return weight_bytes(experts, m.expert_weight_dtype);
  Bytes total{0};
  std::uint64_t linear = 0;
  for (const auto& s : linear_shapes(m)) {
    if (s.role != LinearRole::expert) continue;
    linear = add(linear, mul(mul(s.in, s.out), s.count));
    total = total + shape_bytes(m, s);
  }
  // The experts' biases (gpt-oss) stay at the torch_dtype.
  return total + weight_bytes(experts > linear ? experts - linear : 0, m.embedding_dtype);
}

std::string weight_dtype_label(const ModelSpec& m) {
  bool experts = false, dense = false, shared = false;
  for (const auto& g : m.layers) {
    experts = experts || g.mlp.num_experts > 0;
    dense = dense || (g.mlp.num_experts == 0 && g.mlp.intermediate_size > 0);
    shared = shared || (g.mlp.num_experts > 0 && g.mlp.num_shared_experts > 0);
  }
  if (quant_applies(m)) {
    const auto& q = m.quant;
    std::string kept = std::string(name(m.embedding_dtype)) + " embeddings";
    if (!q.attention) kept += ", attention";
    if (dense && !q.mlp) kept += ", dense MLPs";
    if (shared && !q.shared_experts) kept += ", shared experts";
    if (experts && !q.experts) kept += ", experts";
    return q.label + ", " + kept;
  }
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
