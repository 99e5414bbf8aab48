#pragma once
/// @file variants.hpp
/// The same model with another attention scheme, for side-by-side comparison
/// (the lesson's 8x GQA saving, generalised).

#include <optional>
#include <string>
#include <vector>

#include "kvplan/engine.hpp"
#include "kvplan/kv.hpp"
#include "kvplan/model.hpp"
#include "kvplan/streaming.hpp"

namespace kvplan {

/// A named variant of a model.
struct Variant {
  std::string label;  ///< "MHA", "GQA-8", "MQA", "SWA-4096", "MLA-512+64", "as configured"
  ModelSpec model;
};

/// Options of the comparison.
struct VariantOptions {
  std::uint64_t gqa_kv_heads = 8;       ///< KV heads of the GQA variant (clamped to a divisor of the heads)
  std::uint64_t sliding_window = 4096;  ///< window of the sliding-window variant (every layer)
  std::uint64_t kv_lora_rank = 512;     ///< MLA latent width (DeepSeek-V2/V3 use 512)
  std::uint64_t qk_rope_head_dim = 64;  ///< MLA RoPE key width (DeepSeek-V2/V3 use 64)
  /// Adds a last variant, streaming_label(cap) ("StreamingLLM 4+1,020"): the model as configured with
  /// with_attention_sinks applied. The other variants stay uncapped, as schemes to hold the cap against
  /// (the GUI's StreamingLLM curve beside the variants' curves).
  std::optional<StreamingCap> streaming;
};

/// The model as configured, then with every attention layer (full, sliding, chunked, MLA)
/// replaced by MHA, GQA-k, MQA, sliding window and MLA of the same query heads and head dims, then (with
/// o.streaming) the model as configured under StreamingLLM's cap. Recurrent layers stay as they are.
/// Throws kvplan::Error when the model has no attention layer, and with_attention_sinks' errors.
std::vector<Variant> attention_variants(const ModelSpec& m, const VariantOptions& o = {});

/// Figures of one variant at a context.
struct VariantFigures {
  std::string label;
  ModelSpec model;
  Bytes bytes_per_token;
  Bytes full_bytes_per_token;
  Bytes kv_bytes_per_sequence;
  double saving_vs_mha = 0;  ///< MHA's kv_bytes_per_sequence / this one's (0 when this one is 0)
  std::optional<Bytes> engine_bytes_per_token;  ///< under the engine's rules (nullopt: ideal, or meaningless)
  Bytes engine_kv_bytes_per_sequence;           ///< what the engine allocates for one sequence of the context
  /// Why the engine has no figures for this variant (empty when it has them, or under ideal rules): vLLM's
  /// fp8_ds_mla cache is for MLA layers only, so a variant without MLA has no such cache.
  std::string engine_note;
};

/// attention_variants() with their figures at `context` (KV only, recurrent state excluded).
/// With an engine other than ideal, each variant also gets the engine's figures (tp = pp = 1, one sequence);
/// o.streaming is then refused (Error "sink_tokens": no engine keeps an attention-sink cache).
std::vector<VariantFigures> compare_attention(const ModelSpec& m, const KvDtypes& t, Tokens context,
                                              const VariantOptions& o = {}, const EngineOptions& engine = {});

}  // namespace kvplan
