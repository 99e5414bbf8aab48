#pragma once
// The generic decoder reading that every family adapter starts from: the keys almost every
// transformers configuration class shares (num_hidden_layers, hidden_size, num_attention_heads,
// num_key_value_heads, head_dim, intermediate_size, vocab_size, MoE keys, layer_types). Adapters
// (one file per family, registered in adapters.cpp) adjust the per-layer result, then assemble().
#include <string>
#include <vector>

#include "kvplan/model.hpp"
#include "reader.hpp"

namespace kvplan::presets::hf {

/// A config as an adapter sees it.
struct HfConfig {
  Reader r;    ///< the text config (`text_config` when present, else the root) with class defaults
  Reader top;  ///< the root object
  std::string model_type;
  std::string architecture;  ///< architectures[0], "" when absent
};

/// The generic decoder's reading, which adapters adjust before assemble().
struct Decoder {
  ModelSpec m;
  std::uint64_t n_layers = 0;
  AttentionLayer attn;                 ///< the attention every attention layer starts from
  std::vector<AttentionLayer> layers;  ///< one per layer, in order
  MlpSpec dense;                       ///< dense MLP (intermediate_size 0 when unknown)
  MlpSpec moe;                         ///< the MoE MLP (num_experts 0: none)
  std::vector<bool> sparse;            ///< per layer: the MoE MLP
  /// When set (one per layer), each layer's MLP instead of dense / moe (DeciLM's per-block ffn_mult).
  std::vector<MlpSpec> per_layer_mlp;
  bool dense_width_missing = false;  ///< no intermediate_size: dense layers' weights unknown
  std::string where;                 ///< "file: /text_config": where validate()'s errors point
};

/// Most layers a config may declare: the largest real models have a few hundred.
inline constexpr std::uint64_t kMaxLayers = 100000;

/// Options of the generic reading that differ by family.
struct DecoderRules {
  bool plain_mlp = false;        ///< 2-matrix MLP with biases allowed, LayerNorm with bias (GPT-2, Falcon)
  bool read_layer_types = true;  ///< apply `layer_types` (full / sliding / chunked / recurrent strings)
  bool mistral_window = true;    ///< a numeric sliding_window without layer_types slides every layer
  /// kv_lora_rank makes the attention MLA (DeepSeek-like families, and the generic rules). Elsewhere it is
  /// an error: vLLM's model for that model_type caches num_key_value_heads x head_dim and ignores it.
  bool latent_attention = false;
  /// Falcon's KV heads (modeling_falcon.py FalconAttention, vLLM ModelConfig.get_total_num_kv_heads):
  /// new_decoder_architecture -> num_kv_heads; else multi_query (FalconConfig default true) -> 1; else MHA.
  bool falcon_heads = false;
  /// use_sliding_window is false (Qwen2Config and its kin): sliding_window is then None in transformers, so
  /// layer_types' sliding entries run as full attention there and in vLLM; read so, with a warning.
  bool windows_off = false;
};

/// Reads the shared keys. Errors name the JSON path. MLA (kv_lora_rank present) needs no head_dim.
Decoder read_decoder(const HfConfig& c, const DecoderRules& rules = {});

/// Per-layer kind from a `layer_types` string; fails naming layer_types/i for an unknown one.
AttentionKind kind_from_layer_type(const Reader& r, std::size_t i, const std::string& s);

/// The attention layer with a kind (and window for sliding / chunked).
AttentionLayer with_kind(AttentionLayer a, AttentionKind k, std::uint64_t window);

/// A recurrent layer (kind none) with this state.
AttentionLayer recurrent_layer(const RecurrentSpec& r);

/// Checks a per-layer index list (1-based when `one_based`) and returns a per-layer mask.
std::vector<bool> layer_mask(const Reader& r, std::string_view key, std::uint64_t n_layers, bool one_based);

/// A Mamba2 mixer from the mamba_n_heads, mamba_n_groups, mamba_d_state and mamba_d_conv keys that
/// GraniteMoeHybridConfig and FalconH1Config share, with their shared defaults (128, 1, 256, 4); state at
/// the model dtype `dtype`. The caller sets d_inner and head_dim.
RecurrentSpec mamba2_from_mamba_keys(const Reader& r, DType dtype);

/// Run-length groups from the per-layer reading, validated.
ModelSpec assemble(Decoder d);

}  // namespace kvplan::presets::hf
