#pragma once
/// @file weights.hpp
/// Parameter counts from the architecture, and weight bytes at a given precision.

#include <cstdint>

#include "kvplan/model.hpp"

namespace kvplan {

/// Parameters of one layer's token mixer (attention projections, MLA down/up projections,
/// Mamba or Gated-DeltaNet projections), with the model's hidden size.
/// GQA: hidden*(H*dk + KV*dk + KV*dv) + H*dv*hidden (+ biases, + 2*dk for QK-norm).
/// MLA (DeepSeek-V2 paper, 2.1.2-2.1.3; modeling_deepseek.py DeepseekV2Attention):
///   q: hidden*q_lora + q_lora + q_lora*H*dk (or hidden*H*dk), kv_a: hidden*(kv_lora + rope),
///   kv_a_norm: kv_lora, kv_b: kv_lora*H*(dk - rope + dv), o: H*dv*hidden.
std::uint64_t mixer_parameters(const AttentionLayer& a, std::uint64_t hidden);

/// Parameters of one layer's MLP: dense (3 or 2 matrices), or MoE (router + experts + shared).
/// `active` counts only experts_per_token routed experts (the per-token compute).
std::uint64_t mlp_parameters(const MlpSpec& m, std::uint64_t hidden, bool active = false);

/// Total parameters: embeddings, LM head unless tied, learned position table, every layer
/// (mixer + MLP + two norms), final norm. Checked arithmetic.
std::uint64_t parameter_count(const ModelSpec& m);

/// Parameters used per token (MoE: only the active experts); equals parameter_count for dense models.
/// The linear part of prefill compute is 2 x this x tokens.
std::uint64_t active_parameter_count(const ModelSpec& m);

/// Weight bytes of `params` parameters stored as `t` (exact for block types: row_bytes).
Bytes weight_bytes(std::uint64_t params, DType t);

/// Parameters by how checkpoints store them: embeddings (token and position tables, LM head unless
/// tied), routed experts, and the rest (attention, dense and shared MLPs, norms).
struct ParameterBreakdown {
  std::uint64_t embeddings = 0;
  std::uint64_t experts = 0;
  std::uint64_t other = 0;
};
ParameterBreakdown parameter_breakdown(const ModelSpec& m);

/// The model's weight bytes: embeddings in embedding_dtype, routed experts in expert_weight_dtype,
/// the rest in weight_dtype (a quantised checkpoint's quantization_config sets these; block scales of
/// fp8 block quantisation, under 0.03%, are not counted).
Bytes model_weight_bytes(const ModelSpec& m);

/// The routed experts' share of model_weight_bytes: parameter_breakdown(m).experts in
/// expert_weight_dtype (0 for a dense model). What expert parallelism splits over its ranks.
Bytes routed_expert_weight_bytes(const ModelSpec& m);

/// What the weights are stored as, in words: the linear layers' dtype ("bf16"), or, where the routed
/// experts or the embeddings differ, each part named ("mxfp4 experts, bf16 rest"; "fp8, bf16
/// embeddings"), so that a label never calls a checkpoint bf16 that is not.
std::string weight_dtype_label(const ModelSpec& m);

}  // namespace kvplan
