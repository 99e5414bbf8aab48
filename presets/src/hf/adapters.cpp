#include "adapters.hpp"

namespace kvplan::presets::hf {

namespace {
// clang-format off
const Adapter kAdapters[] = {
    {"llama-like decoder", {"llama", "mistral", "mixtral", "ministral", "ministral3", "phi3", "phi", "granite", "granitemoe",
                            "olmo", "olmo2", "olmo3", "smollm3", "seed_oss", "ernie4_5", "ernie4_5_moe", "glm", "glm4",
                            "glm4_moe", "apertus", "hunyuan_v1_dense", "hunyuan_v1_moe", "cohere", "cohere2",
                            "starcoder2", "stablelm", "internlm2", "arcee", "minimax_m2"}, adapt_llama},
    {"Qwen", {"qwen2", "qwen2_moe", "mimo", "qwen3", "qwen3_moe", "qwen2_5_vl_text", "qwen2_vl_text", "qwen3_vl_text",
              "qwen3_vl_moe_text"}, adapt_qwen},
    {"Gemma", {"gemma", "gemma2", "gemma3", "gemma3_text", "gemma3n", "gemma3n_text", "gemma4", "gemma4_text"}, adapt_gemma, gemma_defaults},
    {"DeepSeek MLA", {"deepseek_v2", "deepseek_v3", "deepseek_v32", "kimi_k2", "glm4_moe_lite", "glm_moe_dsa"}, adapt_deepseek},
    {"Llama 4", {"llama4", "llama4_text"}, adapt_llama4, llama4_defaults},
    {"gpt-oss", {"gpt_oss"}, adapt_gpt_oss},
    {"Falcon", {"falcon", "RefinedWeb", "RefinedWebModel"}, adapt_falcon},
    {"GPT-2", {"gpt2"}, adapt_gpt2},
    {"Jamba", {"jamba"}, adapt_jamba},
    {"NemotronH", {"nemotron_h"}, adapt_nemotron_h},
    {"Granite 4.0 hybrid", {"granitemoehybrid"}, adapt_granite_hybrid},
    {"Bamba", {"bamba"}, adapt_bamba, bamba_defaults},
    {"Falcon-H1", {"falcon_h1"}, adapt_falcon_h1},
    {"Qwen3-Next / Qwen3.5", {"qwen3_next", "qwen3_5", "qwen3_5_text", "qwen3_5_moe", "qwen3_5_moe_text"}, adapt_qwen3_next, qwen3_next_defaults},
    {"Kimi Linear", {"kimi_linear"}, adapt_kimi_linear},
    {"MiniMax", {"minimax", "minimax_m1", "minimax_text_01"}, adapt_minimax},
    {"LFM2", {"lfm2", "lfm2_moe"}, adapt_lfm2},
    {"EXAONE 4", {"exaone4", "exaone4_5", "exaone4_5_text"}, adapt_exaone4},
    {"MiMo-V2", {"mimo_v2_flash", "mimo_v2"}, adapt_mimo_v2},
    {"Llama-Nemotron NAS", {"nemotron-nas"}, adapt_nemotron_nas},
    {"Ling/Ring linear", {"bailing_moe_linear"}, adapt_bailing_linear},
    {"Laguna", {"laguna"}, adapt_laguna},
    {"Step-3", {"step3_text", "step3_vl"}, adapt_step3},
    {"LongCat-Flash", {"longcat_flash"}, adapt_longcat_flash},
};

const std::initializer_list<std::string_view> kCacheKeys = {
    "sliding_window", "layer_types", "sliding_window_pattern", "attention_chunk_size", "kv_lora_rank",
    "num_kv_shared_layers", "index_head_dim", "index_n_heads", "hybrid_override_pattern", "hybrid_layer_pattern",
    "attn_layer_period", "attn_layer_offset", "full_attention_interval", "linear_attn_config", "attn_type_list",
    "full_attn_idxs", "mamba_d_state", "mamba_n_heads", "mamba_d_head", "mamba_n_groups", "mamba_num_heads",
    "mamba_head_dim", "ssm_state_size", "conv_L_cache", "linear_num_key_heads", "linear_num_value_heads",
    "linear_key_head_dim", "linear_value_head_dim", "num_global_key_value_heads", "global_head_dim",
    "swa_num_key_value_heads", "swa_head_dim", "swa_v_head_dim", "v_head_dim", "num_attention_groups",
    "use_sliding_window", "max_window_layers", "mamba_ssm_cache_dtype", "mamba_ssm_dtype", "no_rope_layers",
    "cross_attention_layers", "layers_block_type", "kv_channels", "global_attn_every_n_layers", "local_attention",
    "attn_layer_indices",
    // Layouts no generic rule reads: per-block attention (DeciLM), compressed / sparse attention with index
    // caches (DeepSeek-V4, MiniMax-M3), cross-layer KV sharing (Hunyuan's use_cla).
    "block_configs", "compress_ratios", "sparse_attention_config", "use_cla", "cla_share_factor",
    // The lightning indexer on some layers only (GLM-5.2's IndexCache; adapter_deepseek.cpp).
    "index_topk_freq", "index_topk_pattern", "index_skip_topk_offset", "indexer_types",
    // Phi-4-mini-flash (phi4flash, SambaY): a Mamba layer every mb_per_layer and a second half that reads
    // one layer's K/V (YOCO cross-decoder with gated memory units; vLLM phi4flash.py): no generic reading.
    "mb_per_layer",
};
// clang-format on
}  // namespace

const std::initializer_list<std::string_view>& cache_shaping_keys() { return kCacheKeys; }

const Adapter* find_adapter(std::string_view model_type) {
  for (const auto& a : kAdapters)
    for (const auto t : a.model_types)
      if (t == model_type) return &a;
  return nullptr;
}

ModelSpec adapt_generic(const HfConfig& c) {
  // Layouts the generic rules cannot even start on: named before any other key trips on them (DeepSeek-V4's
  // qk_rope_head_dim beside compress_ratios is not a half-given MLA).
  for (const auto* k : {"block_configs", "compress_ratios", "sparse_attention_config"})
    if (c.r.has(k))
      c.r.fail(k,
               "shapes the KV cache or state, and the generic decoder rules do not model it: no figure "
               "rather than a wrong one");
  DecoderRules rules;
  rules.latent_attention = true;  // kv_lora_rank on an unknown model_type: read as DeepSeek's MLA
  return assemble(read_decoder(c, rules));
}

}  // namespace kvplan::presets::hf
