#pragma once
/// @file weights.hpp
/// Parameter counts from the architecture, and weight bytes at a given precision.

#include <cstdint>
#include <string>
#include <vector>

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

/// What a linear layer is, for the quantisers' lists of what they keep unquantised.
enum class LinearRole {
  mixer,  ///< a token mixer's projection: attention q/k/v/o, MLA's down/up projections, Mamba/DeltaNet in/out
  mlp,    ///< a dense MLP's gate/up/down (or fc1/fc2)
  expert,         ///< one routed expert's matrix
  shared_expert,  ///< one shared expert's matrix
  router,         ///< the MoE router (hidden -> experts)
};

/// One weight matrix of the model: `count` copies of an `in` x `out` linear layer (nn.Linear(in, out)).
struct LinearShape {
  std::uint64_t in = 0;
  std::uint64_t out = 0;
  std::uint64_t count = 0;
  LinearRole role = LinearRole::mixer;
  bool operator==(const LinearShape&) const = default;
};

/// The model's linear layers as checkpoints store them, one entry per matrix kind per layer group: q_proj,
/// k_proj, v_proj, o_proj (MLA: q_a/q_b or q, kv_a_proj_with_mqa, kv_b, o), gate/up/down per dense MLP,
/// expert and shared expert, the router, and the recurrent mixers' projections (the same shapes
/// mixer_parameters counts). Embeddings, LM head, norms, biases and convolutions are not linear layers.
/// Checked arithmetic.
std::vector<LinearShape> linear_shapes(const ModelSpec& m);

/// Bytes of one `in` x `out` linear layer stored in the quantised layout `q` (method not none): every tensor
/// the quantiser writes for it, each exact for its shape (a partial group, block or pack word stored whole).
/// G = ceil(in / group_size) groups (1 when group_size is 0), P = 32 / bits values per int32:
///   awq:       qweight in x ceil(out/P) int32 + qzeros G x ceil(out/P) int32 + scales G x out fp16
///              (vLLM awq.py AWQLinearMethod.create_weights; AutoAWQ WQLinear_GEMM.__init__);
///   gptq:      qweight ceil(in x bits / 32) x out int32 + qzeros G x ceil(out x bits / 32) int32 + scales
///              G x out fp16 + g_idx in int32 (vLLM gptq.py GPTQLinearMethod.create_weights);
///   ct_packed: weight_packed out x ceil(in/P) int32 + weight_scale out x G + weight_shape 2 int64 (+ zero
///              points ceil(out/P) x G int32 when asymmetric, + weight_g_idx in int32 with actorder group)
///              (vLLM compressed_tensors_wNa16.py CompressedTensorsWNA16.create_weights);
///   ct_int / ct_float: weight out x in (int8 / fp8) + weight_scale (out x G, 1 per tensor, or per block)
///              (+ input_scale) (compressed_tensors_w8a8_int8.py / _w8a8_fp8.py create_weights);
///   fp8:       weight out x in fp8 + weight_scale_inv ceil(out/bo) x ceil(in/bi) fp32, or one fp32
///              weight_scale per tensor (+ input_scale) (vLLM fp8.py Fp8LinearMethod.create_weights);
///   bnb_4bit:  ceil(in x out / 2) packed bytes + absmax per 64 values (fp32, or uint8 with double
///              quantisation: + fp32 per 256 absmax + a 256-entry fp32 nested map) + a 16-entry fp32
///              quant_map (bitsandbytes functional.py quantize_4bit, QuantState.as_dict);
///   bnb_8bit:  weight out x in int8 + SCB out fp32 (bitsandbytes Int8Params).
/// Scales are in q.scale_dtype. Throws kvplan::Error("weights", ...) on overflow.
Bytes quantized_linear_bytes(const WeightQuant& q, std::uint64_t in, std::uint64_t out);

/// Whether a linear of `role` is stored in `q`'s layout (false: kept at the torch_dtype).
bool quantized(const WeightQuant& q, LinearRole role);

/// Whether the model's quantised layout (ModelSpec::quant) applies: a method is set and weight_dtype is
/// still the one the reader set with it (WeightQuant::stored).
bool quant_applies(const ModelSpec& m);

/// The model's weight bytes. With a quantised layout (quant_applies): each linear layer in it
/// (quantized_linear_bytes) or at embedding_dtype where the quantiser keeps it, and everything else
/// (embeddings, LM head, norms, biases, router, convolutions) at embedding_dtype (the config's torch_dtype).
/// Otherwise: embeddings in embedding_dtype, routed experts in expert_weight_dtype, the rest in
/// weight_dtype (fp8 without a quantization_config's scales, gpt-oss's mxfp4 experts).
Bytes model_weight_bytes(const ModelSpec& m);

/// The routed experts' share of model_weight_bytes: parameter_breakdown(m).experts in
/// expert_weight_dtype, or in the quantised layout where it applies (0 for a dense model). What expert
/// parallelism splits over its ranks.
Bytes routed_expert_weight_bytes(const ModelSpec& m);

/// What the weights are stored as, in words: the linear layers' dtype ("bf16"), or, where the routed
/// experts or the embeddings differ, each part named ("mxfp4 experts, bf16 rest"; "fp8, bf16
/// embeddings"), so that a label never calls a checkpoint bf16 that is not. A quantised layout is named by
/// its label and what stays at the torch_dtype ("awq int4 g128, fp16 embeddings"; "int4 g32 experts
/// (compressed-tensors), bf16 rest").
std::string weight_dtype_label(const ModelSpec& m);

}  // namespace kvplan
