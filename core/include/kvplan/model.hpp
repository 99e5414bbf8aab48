#pragma once
/// @file model.hpp
/// The architecture of a model as kvplan sees it: a sequence of layer groups (run-length
/// encoded, in layer order, so hybrids and pipeline stages are natural), each with its
/// token mixer (attention of some kind, or a recurrent layer with a fixed state) and its MLP.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kvplan/dtype.hpp"

namespace kvplan {

/// What a layer's token mixer keeps per token.
enum class AttentionKind {
  full,       ///< global attention: K and V for every token seen (MHA, GQA, MQA)
  sliding,    ///< sliding-window attention: K and V for the last `window` tokens
  chunked,    ///< chunked local attention (Llama 4): K and V within the current chunk of `window` tokens
  mla,        ///< multi-head latent attention: kv_lora_rank + qk_rope_head_dim values per token, no K/V split
  recurrent,  ///< no per-token cache (Mamba, linear attention, short conv): a fixed per-sequence state only
  mlp_only,   ///< no token mixer at all: a block with only its MLP (NemotronH's '-' and 'E' layers)
};

/// Whether a layer of this kind attends (full, sliding, chunked, MLA), i.e. has heads and a per-token cache.
constexpr bool has_attention(AttentionKind k) {
  return k != AttentionKind::recurrent && k != AttentionKind::mlp_only;
}

/// Name of a kind ("full", "sliding", "chunked", "mla", "recurrent", "mlp_only").
std::string_view name(AttentionKind k);

/// Parameters of a recurrent (state-space, linear-attention or short-convolution) layer: its fixed
/// per-sequence state and its weights. The state has two parts, each at its own element type: a
/// rolling convolution window (`conv_dtype`) and the recurrent / SSM state (`ssm_dtype`). Shapes follow
/// vLLM's vllm/model_executor/layers/mamba/mamba_utils.py MambaStateShapeCalculator (see
/// layer_state_bytes in kv.hpp).
struct RecurrentSpec {
  enum class Kind {
    mamba,           ///< Mamba (Jamba, Falcon-Mamba): d_inner, d_state, d_conv, dt_rank
    mamba2,          ///< Mamba2 (NemotronH, Granite-4.0-H, Falcon-H1): n_heads x head_dim, n_groups, d_state
    gated_deltanet,  ///< Gated DeltaNet (Qwen3-Next, Qwen3.5): key/value heads and head dims, d_conv
    kda,             ///< Kimi Delta Attention (Kimi Linear): num_key_heads x key_head_dim, d_conv
    lightning,       ///< lightning / linear attention (MiniMax-Text-01, M1): num_key_heads x key_head_dim
    short_conv,      ///< gated short convolution (LFM2): d_inner channels, d_conv taps
  };
  Kind kind = Kind::mamba;
  // Mamba / Mamba2: d_inner = expand * hidden_size (Mamba2: n_heads * head_dim).
  std::uint64_t d_inner = 0;
  std::uint64_t d_state = 0;
  std::uint64_t d_conv = 0;    ///< convolution kernel width (the state keeps d_conv - 1 taps)
  std::uint64_t dt_rank = 0;   ///< Mamba1's dt projection rank
  std::uint64_t n_heads = 0;   ///< Mamba2: mamba_n_heads
  std::uint64_t head_dim = 0;  ///< Mamba2: mamba_d_head
  std::uint64_t n_groups = 0;  ///< Mamba2: B/C groups (n_groups)
  // Gated DeltaNet (Qwen3-Next's linear_* keys); KDA and lightning use num_key_heads x key_head_dim.
  std::uint64_t num_key_heads = 0;
  std::uint64_t num_value_heads = 0;
  std::uint64_t key_head_dim = 0;
  std::uint64_t value_head_dim = 0;
  DType conv_dtype = DType::bf16;  ///< as the model declares it (its torch_dtype)
  DType ssm_dtype = DType::bf16;   ///< as declared (mamba_ssm_cache_dtype), else the model dtype
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
  /// A per-token side cache beside K/V: DeepSeek-V3.2's lightning-indexer key (index_head_dim values in
  /// fp8 plus one fp32 scale per 128 values; vLLM DeepseekV32IndexerCache). 0: none.
  std::uint64_t indexer_head_dim = 0;
  /// The layer reads another layer's K/V and caches nothing (gemma-3n num_kv_shared_layers).
  bool kv_shared = false;
  /// An attention layer that also runs `recurrent` beside it on the same input (Falcon-H1's parallel
  /// attention and Mamba2): it keeps a per-token K/V cache and a fixed state.
  bool parallel_recurrent = false;
  /// MLA as llama.cpp runs a GGUF converted before its MLA split (no key_length_mla, no attn_k_b /
  /// attn_v_b tensors): K (heads x head_dim_k) and V (heads x head_dim_v) cached per head, not the latent.
  /// Only the llama.cpp engine reads it; the exact (ideal) layout is the latent.
  bool mla_per_head_cache = false;
  RecurrentSpec recurrent;  ///< kind == recurrent: the recurrent layer
  bool operator==(const AttentionLayer&) const = default;
};

/// Whether a layer keeps a recurrent state: a recurrent layer, or attention with a parallel recurrent mixer.
constexpr bool has_state(const AttentionLayer& a) {
  return a.kind == AttentionKind::recurrent || (a.parallel_recurrent && a.kind != AttentionKind::mlp_only);
}

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

/// A config's RoPE scaling (config.json `rope_scaling`, or transformers v5 `rope_parameters`), as the
/// engines read it to derive their context limit (engine_max_context). All empty / 0: absent.
struct RopeScaling {
  std::string key;   ///< "rope_scaling" or "rope_parameters": where it was read; empty: the config has none
  std::string type;  ///< its "rope_type", or the older "type" ("yarn", "linear", "llama3", ...); may be empty
  double factor = 0;                                   ///< "factor"; 0: absent (the engines take 1)
  std::uint64_t original_max_position_embeddings = 0;  ///< 0: absent
  bool operator==(const RopeScaling&) const = default;
};

/// What a (text) config says about its context length besides max_position_embeddings: its other length
/// keys and its RoPE scaling, from which each engine derives its own limit (engine_max_context).
struct ContextKeys {
  /// Length keys present in the config other than max_position_embeddings, with their values, in the
  /// order vLLM's _get_and_verify_max_len lists them (n_positions, max_seq_len, seq_length,
  /// model_max_length, max_target_positions, max_sequence_length, max_seq_length, seq_len).
  std::vector<std::pair<std::string, std::uint64_t>> lengths;
  RopeScaling rope;
  std::string model_type;  ///< the text config's model_type (vLLM applies no RoPE factor to "gemma3")
  /// The model comes from a config that has no length key at all (neither max_position_embeddings nor any
  /// of `lengths`' keys): vLLM (_get_and_verify_max_len), SGLang (get_context_length) and TensorRT-LLM
  /// (_infer_max_seq_len_from_config) then assume 2,048 tokens. False for a model from flags or a preset.
  bool no_length_key = false;
  bool operator==(const ContextKeys&) const = default;
};

/// How a quantised checkpoint stores its linear layers (config.json `quantization_config`), so that their
/// bytes are counted tensor by tensor as the quantiser writes them (weights.hpp quantized_linear_bytes;
/// docs/quantised-weights.md has each layout and its source). Embeddings, the LM head, norms, biases and the
/// MoE router stay in the config's torch_dtype (ModelSpec::embedding_dtype). `method` none: the DType fields
/// of ModelSpec alone say how the weights are stored (bf16, fp8 without scales, gpt-oss's mxfp4 experts).
struct WeightQuant {
  enum class Method {
    none,
    fp8,        ///< quant_method fp8: fp8_e4m3 weights, fp32 block or per-tensor scales (vLLM fp8.py)
    awq,        ///< AutoAWQ GEMM/GEMV: qweight [in, out/8] int32, qzeros, fp16 scales per group (vLLM awq.py)
    gptq,       ///< GPTQ: qweight [in*bits/32, out] int32, qzeros, fp16 scales, g_idx (vLLM gptq.py)
    ct_packed,  ///< compressed-tensors pack-quantized (w4a16, w8a16): weight_packed int32, weight_scale,
                ///< weight_shape
    ct_int,     ///< compressed-tensors int-quantized (w8a8 int8): weight int8, weight_scale
    ct_float,   ///< compressed-tensors float-quantized (w8a8 fp8): weight fp8_e4m3, weight_scale
    bnb_4bit,   ///< bitsandbytes load_in_4bit (nf4 / fp4): packed uint8, absmax per 64 values, quant_map
    bnb_8bit,   ///< bitsandbytes load_in_8bit (LLM.int8): weight int8, SCB fp32 per output row
  };
  Method method = Method::none;
  std::uint64_t bits = 0;  ///< bits per stored weight value (awq 4; gptq 2, 3, 4, 8; ct 4, 8; bnb 4, 8)
  /// Input-dimension values per scale: 0 is one scale per output channel (a group spanning the row, GPTQ's
  /// group_size -1, compressed-tensors strategy "channel"); groups are ceil(in / group_size).
  std::uint64_t group_size = 0;
  bool tensor_scale = false;    ///< one scale for the whole tensor (fp8 without blocks, ct strategy "tensor")
  std::uint64_t block_out = 0;  ///< fp8 / ct block scales: one fp32 per block_out x block_in block (0: none)
  std::uint64_t block_in = 0;
  bool zero_point = false;    ///< zero points stored (AWQ zero_point; ct symmetric false)
  bool g_idx = false;         ///< an int32 group index per input row (GPTQ always; ct actorder "group")
  bool input_scale = false;   ///< a static activation scale per linear (fp32): activation_scheme "static"
  bool double_quant = false;  ///< bitsandbytes bnb_4bit_use_double_quant: absmax quantised to uint8
  DType scale_dtype = DType::fp16;  ///< dtype of the scales (AWQ/GPTQ fp16; ct and bnb as noted there)
  /// ModelSpec::weight_dtype the reader set with this layout; the layout applies only while weight_dtype is
  /// still this (an explicit weight dtype, --weight-dtype or the GUI's, replaces the checkpoint's layout).
  DType stored = DType::bf16;
  bool attention = true;       ///< token mixers' projections quantised (false: named in the ignore list)
  bool mlp = true;             ///< dense MLPs quantised
  bool shared_experts = true;  ///< shared experts quantised
  bool experts = true;         ///< routed experts quantised
  bool router = false;         ///< the MoE router quantised (bitsandbytes: every nn.Linear but lm_head)
  std::string label;           ///< what it is, in words: "awq int4 g128"
  /// Quantised by the engine while it loads an unquantised checkpoint (apply_weight_dtype: vLLM's and
  /// SGLang's --quantization fp8), not stored so.
  bool at_load = false;
  bool operator==(const WeightQuant&) const = default;
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
  /// llama.cpp keeps 1 + n_rs_seq recurrent states per sequence for this architecture (src/llama-arch.cpp
  /// llm_arch_supports_rs_rollback: qwen35, qwen35moe, nemotron_h, nemotron_h_moe, lfm2, lfm2moe, ...);
  /// set by the GGUF reader from general.architecture. Configs: core reads their model_type instead.
  bool llamacpp_rs_rollback = false;
  std::uint64_t learned_position_embeddings = 0;  ///< rows of a learned position table (GPT-2: n_positions)
  bool norm_bias = false;                         ///< LayerNorm with bias (GPT-2, Falcon) vs RMSNorm
  /// Hidden-size norms in each layer: 2 (before attention and before the MLP); 4 in Gemma 2 and 3
  /// (post-attention and post-feedforward norms too: transformers modeling_gemma2.py
  /// Gemma2DecoderLayer); 1 in Falcon's parallel attention without new_decoder_architecture
  /// (modeling_falcon.py FalconDecoderLayer: input_layernorm only).
  std::uint64_t norms_per_layer = 2;
  std::uint64_t max_position_embeddings = 0;  ///< 0: unknown
  ContextKeys context_keys;  ///< the config's other length keys and RoPE scaling (empty: none, or GGUF)
  DType dtype =
      DType::bf16;  ///< the model's compute dtype (config torch_dtype): what a KV cache "auto" stores
  DType weight_dtype = DType::bf16;  ///< linear layers' dtype (config torch_dtype, or its quantisation)
  DType embedding_dtype =
      DType::bf16;  ///< embeddings and LM head (kept unquantised by fp8/mxfp4 checkpoints)
  DType expert_weight_dtype = DType::bf16;  ///< routed experts (gpt-oss: mxfp4)
  /// A quantised checkpoint's layout of its linear layers (quantization_config); method none: the DType
  /// fields above alone.
  WeightQuant quant;
  std::uint64_t published_params = 0;  ///< published total parameters (0: none recorded)
  /// Multi-token-prediction layers the checkpoint carries (num_nextn_predict_layers, mtp_num_hidden_layers);
  /// loaded, and cached, only with speculative decoding (with_mtp_layers).
  std::uint64_t mtp_layers = 0;
  /// The last `draft_layers` of `layers` are a speculative drafter's (with_draft_layers, with_mtp_layers).
  /// vLLM splits the target's layers alone over the pipeline stages (vllm/distributed/utils.py
  /// get_pp_indices over the target's num_hidden_layers) and loads the drafter on the last rank only
  /// (vllm/v1/spec_decode/eagle.py load_model), so the draft layers join the last stage (pipeline_stage).
  std::uint64_t draft_layers = 0;
  /// Exact weight bytes read from the checkpoint itself (GGUF tensor infos, safetensors headers): the
  /// plan's weights unless --weights is given. nullopt: from the architecture.
  std::optional<Bytes> weights_bytes;
  std::uint64_t weights_parameters = 0;  ///< the stored tensors' elements, with weights_bytes
  /// Parameters of the vision (or audio) encoder and its projector that a multimodal checkpoint carries
  /// beside the language model (config.json vision_config), stored in `dtype`; 0: none, or not counted
  /// (then a warning says so). The engines load them unless told the model is text-only.
  std::uint64_t encoder_parameters = 0;
  /// Whether vLLM holds the encoders whole on every tp rank rather than split: Gemma 4's towers, built from
  /// transformers with every nn.Linear a ReplicatedLinear (vllm/model_executor/models/gemma4_mm.py,
  /// transformers/utils.py recursive_replace_linear: style "replicate"). SigLIP and Qwen3-VL's towers are
  /// split (QKVParallelLinear, Row/ColumnParallelLinear; mm_encoder_tp_mode "weights", the default).
  bool encoder_whole_per_gpu = false;
  /// A vision_config kvplan cannot count (its model_type), in words; empty when counted or absent.
  std::string encoder_unknown;
  std::string weights_origin;  ///< where weights_bytes came from ("GGUF tensors (exact)")
  /// Non-empty when the architecture lacks what the weights need (a config without
  /// intermediate_size or vocab_size, or a layer kvplan has no weight formula for): why, in words. KV figures
  /// are exact regardless; a figure that needs the weights asks for --weights.
  std::string weights_unknown;
  /// What the loader assumed or could not model exactly (an unknown model_type read by the generic
  /// decoder rules): shown with every plan, in the human output and in --json "warnings".
  std::vector<std::string> warnings;
  bool operator==(const ModelSpec&) const = default;
};

/// Name of a recurrent kind ("mamba", "mamba2", "gated_deltanet", "kda", "lightning", "short_conv").
std::string_view name(RecurrentSpec::Kind k);

/// One line for people: "Mamba2: 64 heads x 64, 8 groups, d_state 128, conv 4, SSM fp32".
std::string describe(const RecurrentSpec& r);

/// Checks that a recurrent layer has every dimension its kind's state needs (positive; Mamba2:
/// d_inner = n_heads x head_dim, n_groups divides n_heads); throws kvplan::Error naming the field.
void validate(const RecurrentSpec& r);

/// The target model with a speculative-decoding draft's layers appended: vLLM registers the draft's
/// attention layers (EAGLE / EAGLE-3 heads, draft models, MTP layers) in the same KV cache config as the
/// target's, so they share its block pool (vllm/v1/worker/gpu_model_runner.py
/// initialize_kv_cache / get_kv_cache_spec over every Attention layer, the drafter's included;
/// vllm/v1/spec_decode/eagle.py). The draft's embeddings and LM head are not added (EAGLE shares the
/// target's). Throws kvplan::Error("speculative_config", ...) when the draft has no layers.
ModelSpec with_draft_layers(const ModelSpec& target, const ModelSpec& draft);

/// The target with `n` multi-token-prediction layers appended, each a copy of its last layer (DeepSeek /
/// Qwen MTP: num_nextn_predict_layers decoder layers of the target's shape, vllm/model_executor/models/
/// deepseek_mtp.py). Throws kvplan::Error("speculative_config", ...) when n is 0.
ModelSpec with_mtp_layers(const ModelSpec& target, std::uint64_t n);

/// Total number of layers.
std::uint64_t num_layers(const ModelSpec& m);

/// Checks a model for consistency; throws kvplan::Error naming the field:
/// at least one layer; every attention layer has positive heads, KV heads and head dims;
/// KV heads divide query heads; windows positive for sliding/chunked; MLA ranks positive.
void validate(const ModelSpec& m);

/// Merges adjacent identical groups (run-length encoding).
std::vector<LayerGroup> compress(std::vector<LayerGroup> layers);

}  // namespace kvplan
