#pragma once
// One adapter per architecture family (each in its own adapter_<family>.cpp), keyed by model_type.
// An adapter starts from the generic decoder reading (decoder.hpp), applies its family's layer
// pattern, per-layer geometry, recurrent state and the transformers configuration class's defaults
// (cited in each file), and returns the ModelSpec. Keys that shape the cache and that no rule read are
// errors (hf_config.cpp), so a family's unmodelled key is never ignored.
#include <string_view>

#include "decoder.hpp"

namespace kvplan::presets::hf {

using AdapterFn = ModelSpec (*)(const HfConfig&);

/// The transformers configuration class's defaults for the keys a config of `model_type` may omit (a JSON
/// object, key -> default), which the text config's Reader answers with (Reader::with_defaults); nullptr
/// when none are recorded for that model_type (a family's types can have different classes).
using DefaultsFn = const json* (*)(std::string_view model_type);

/// A family: its name, the model_type values it reads, its adapter, and its configuration class's defaults
/// (nullptr: none recorded; each with its transformers file cited where it is defined).
struct Adapter {
  std::string_view family;
  std::initializer_list<std::string_view> model_types;
  AdapterFn read;
  DefaultsFn defaults = nullptr;
};

/// The family adapter for a model_type; nullptr for an unknown one (read by the generic rules, with a
/// warning).
const Adapter* find_adapter(std::string_view model_type);

/// The generic decoder rules alone (an unknown model_type).
ModelSpec adapt_generic(const HfConfig& c);

// Families (adapter_<family>.cpp).
ModelSpec adapt_llama(const HfConfig& c);
ModelSpec adapt_qwen(const HfConfig& c);
ModelSpec adapt_gemma(const HfConfig& c);
ModelSpec adapt_deepseek(const HfConfig& c);
/// The decoder reading of a latent-attention (MLA) family: kv_lora_rank required (an error naming it), the
/// generic rules with latent_attention (adapter_deepseek.cpp; LongCat-Flash too).
Decoder read_latent_decoder(const HfConfig& c);
ModelSpec adapt_llama4(const HfConfig& c);
/// Llama4TextConfig's defaults (configuration_llama4.py), for llama4 and llama4_text.
const json* llama4_defaults(std::string_view model_type);
/// Gemma3TextConfig's defaults (configuration_gemma3.py), for gemma3 and gemma3_text; nullptr otherwise.
const json* gemma_defaults(std::string_view model_type);
/// Qwen3NextConfig's defaults (configuration_qwen3_next.py), for qwen3_next; nullptr otherwise.
const json* qwen3_next_defaults(std::string_view model_type);
ModelSpec adapt_gpt_oss(const HfConfig& c);
ModelSpec adapt_falcon(const HfConfig& c);
ModelSpec adapt_gpt2(const HfConfig& c);
ModelSpec adapt_jamba(const HfConfig& c);
ModelSpec adapt_nemotron_h(const HfConfig& c);
ModelSpec adapt_granite_hybrid(const HfConfig& c);
ModelSpec adapt_bamba(const HfConfig& c);
ModelSpec adapt_longcat_flash(const HfConfig& c);
/// BambaConfig's defaults (configuration_bamba.py), for bamba.
const json* bamba_defaults(std::string_view model_type);
ModelSpec adapt_falcon_h1(const HfConfig& c);
ModelSpec adapt_qwen3_next(const HfConfig& c);
ModelSpec adapt_kimi_linear(const HfConfig& c);
ModelSpec adapt_minimax(const HfConfig& c);
ModelSpec adapt_lfm2(const HfConfig& c);
ModelSpec adapt_exaone4(const HfConfig& c);
ModelSpec adapt_mimo_v2(const HfConfig& c);
ModelSpec adapt_nemotron_nas(const HfConfig& c);
ModelSpec adapt_bailing_linear(const HfConfig& c);
ModelSpec adapt_laguna(const HfConfig& c);
ModelSpec adapt_step3(const HfConfig& c);

/// The keys that shape the KV cache or the recurrent state in some family. After an adapter runs, any of
/// these that the config sets (non-null) and that no rule read is an error naming it.
const std::initializer_list<std::string_view>& cache_shaping_keys();

}  // namespace kvplan::presets::hf
