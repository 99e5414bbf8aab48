#pragma once
/// @file model.hpp
/// The architecture of a model as kvplan sees it: a sequence of layer groups (run-length
/// encoded, in layer order, so hybrids and pipeline stages are natural), each with its
/// token mixer (attention of some kind, or a recurrent layer with a fixed state) and its MLP.

#include <cstdint>
#include <string>
#include <vector>

#include "kvplan/dtype.hpp"

namespace kvplan {

/// What a layer's token mixer keeps per token.
enum class AttentionKind {
  full,     ///< global attention: K and V for every token seen (MHA, GQA, MQA)
  sliding,  ///< sliding-window attention: K and V for the last `window` tokens
  chunked,  ///< chunked local attention (Llama 4): K and V within the current chunk of `window` tokens
  mla,      ///< multi-head latent attention: kv_lora_rank + qk_rope_head_dim values per token, no K/V split
  none,     ///< no per-token cache (Mamba, linear attention): a fixed per-sequence state only
};

/// Name of a kind ("full", "sliding", "chunked", "mla", "none").
std::string_view name(AttentionKind k);

/// Parameters of a recurrent (state-space or linear-attention) layer, for its fixed state and weights.
struct RecurrentSpec {
  enum class Kind { mamba, gated_deltanet };
  Kind kind = Kind::mamba;
  // Mamba (Jamba's mamba_* keys): d_inner = expand * hidden_size.
  std::uint64_t d_inner = 0;
  std::uint64_t d_state = 0;
  std::uint64_t d_conv = 0;
  std::uint64_t dt_rank = 0;
  // Gated DeltaNet (Qwen3-Next's linear_* keys).
  std::uint64_t num_key_heads = 0;
  std::uint64_t num_value_heads = 0;
  std::uint64_t key_head_dim = 0;
  std::uint64_t value_head_dim = 0;
  bool operator==(const RecurrentSpec&) const = default;
};

/// The token mixer of one layer. Head dims of K and V may differ.
struct AttentionLayer {
  AttentionKind kind = AttentionKind::full;
  std::uint64_t num_attention_heads = 0;  ///< query heads
  std::uint64_t num_key_value_heads = 0;  ///< K/V heads (== query heads: MHA; 1: MQA; else GQA)
  std::uint64_t head_dim_k = 0;           ///< query/key head dim (MLA: qk_nope_head_dim + qk_rope_head_dim)
  std::uint64_t head_dim_v = 0;           ///< value head dim (MLA: v_head_dim)
  std::uint64_t window = 0;               ///< sliding: window W in tokens; chunked: chunk C in tokens
  std::uint64_t kv_lora_rank = 0;         ///< MLA: latent width (DeepSeek-V2 paper, section 2.1.2, d_c)
  std::uint64_t qk_rope_head_dim = 0;     ///< MLA: decoupled RoPE key width (d_h^R), cached once per token
  std::uint64_t q_lora_rank = 0;          ///< MLA: query compression rank (0: no query compression)
  bool qkv_bias = false;                  ///< biases on the Q, K, V projections (Qwen2, GPT-2)
  bool o_bias = false;                    ///< bias on the output projection (GPT-2)
  bool qk_norm = false;                   ///< per-head RMSNorm on Q and K (Qwen3, Gemma 3)
  RecurrentSpec recurrent;                ///< kind == none: the recurrent layer
  bool operator==(const AttentionLayer&) const = default;
};

/// The MLP of one layer: dense (num_experts == 0) or mixture of experts.
struct MlpSpec {
  std::uint64_t intermediate_size = 0;         ///< dense MLP width
  bool gated = true;                           ///< SwiGLU/GeGLU (3 matrices) or plain (2 matrices)
  bool bias = false;                           ///< biases on the MLP matrices (GPT-2, gpt-oss)
  std::uint64_t num_experts = 0;               ///< routed experts (0: dense)
  std::uint64_t expert_intermediate_size = 0;  ///< width of one routed expert
  std::uint64_t experts_per_token = 0;         ///< routed experts active per token (top-k)
  bool router_bias = false;                    ///< bias on the router (gpt-oss)
  std::uint64_t num_shared_experts = 0;        ///< always-on experts
  std::uint64_t shared_intermediate_size = 0;  ///< width of one shared expert
  bool shared_expert_gate = false;             ///< a hidden -> 1 gate on the shared expert (Qwen MoE)
  bool operator==(const MlpSpec&) const = default;
};

/// `count` consecutive identical layers.
struct LayerGroup {
  AttentionLayer attention;
  MlpSpec mlp;
  std::uint64_t count = 1;
  bool operator==(const LayerGroup&) const = default;
};

/// A model: identity, source, layers in order, and what weights need beyond the layers.
struct ModelSpec {
  std::string id;      ///< preset id or file name
  std::string name;    ///< display name
  std::string source;  ///< where the architecture came from (HF repo id, file)
  std::vector<LayerGroup> layers;
  std::uint64_t hidden_size = 0;
  std::uint64_t vocab_size = 0;
  bool tie_word_embeddings = false;
  std::uint64_t learned_position_embeddings = 0;  ///< rows of a learned position table (GPT-2: n_positions)
  bool norm_bias = false;                         ///< LayerNorm with bias (GPT-2, Falcon) vs RMSNorm
  /// Hidden-size norms in each layer: 2 (before attention and before the MLP); 4 in Gemma 2 and 3
  /// (post-attention and post-feedforward norms too: transformers modeling_gemma2.py
  /// Gemma2DecoderLayer); 1 in Falcon's parallel attention without new_decoder_architecture
  /// (modeling_falcon.py FalconDecoderLayer: input_layernorm only).
  std::uint64_t norms_per_layer = 2;
  std::uint64_t max_position_embeddings = 0;  ///< 0: unknown
  DType dtype =
      DType::bf16;  ///< the model's compute dtype (config torch_dtype): what a KV cache "auto" stores
  DType weight_dtype = DType::bf16;  ///< linear layers' dtype (config torch_dtype, or its quantisation)
  DType embedding_dtype =
      DType::bf16;  ///< embeddings and LM head (kept unquantised by fp8/mxfp4 checkpoints)
  DType expert_weight_dtype = DType::bf16;  ///< routed experts (gpt-oss: mxfp4)
  std::uint64_t published_params = 0;       ///< published total parameters (0: none recorded)
  bool operator==(const ModelSpec&) const = default;
};

/// Total number of layers.
std::uint64_t num_layers(const ModelSpec& m);

/// Checks a model for consistency; throws kvplan::Error naming the field:
/// at least one layer; every attention layer has positive heads, KV heads and head dims;
/// KV heads divide query heads; windows positive for sliding/chunked; MLA ranks positive.
void validate(const ModelSpec& m);

/// Merges adjacent identical groups (run-length encoding).
std::vector<LayerGroup> compress(std::vector<LayerGroup> layers);

}  // namespace kvplan
