#pragma once
/// @file model_json.hpp
/// A model (kvplan::ModelSpec) as JSON in kvplan's own dialect, and back: what a scenario file holds
/// under /model/architecture, and what `kvplan show|size --json` prints for each layer group's
/// "attention". One dialect for both: a layer's keys are those of model.hpp, except where a Hugging Face
/// config.json has a standard name for the field, which is used instead:
///   `sliding_window` (a sliding layer's window, tokens), `attention_chunk_size` (a chunked layer's chunk,
///   tokens), `index_head_dim` (DeepSeek-V3.2's indexer key width, values per token).
/// Scenarios written before this dialect named the window `window` and the indexer `indexer_head_dim`;
/// attention_from_json still reads those, as aliases.

#include <string>

#include <nlohmann/json.hpp>

#include "kvplan/model.hpp"

namespace kvplan::presets {

/// One layer's attention (kvplan::AttentionLayer) as a JSON object. "kind" is always written (a
/// kvplan::name(AttentionKind)); every other field only when it differs from attention_from_json's
/// default (0, false, an empty RecurrentSpec), so that the object lists what describes the layer:
/// head counts; head dims in values (MLA: head_dim_k = qk_nope_head_dim + qk_rope_head_dim, head_dim_v =
/// v_head_dim); `sliding_window` or, on a chunked layer, `attention_chunk_size` (tokens); MLA's kv_lora_rank,
/// qk_rope_head_dim, q_lora_rank; qkv_bias, o_bias, qk_norm; index_head_dim; kv_shared;
/// parallel_recurrent; mla_per_head_cache (a GGUF's MLA as llama.cpp caches it); "recurrent" (the state's
/// RecurrentSpec as an object of its fields, its dtypes by kvplan name). Never throws.
/// attention_from_json(attention_to_json(a), w) == a.
nlohmann::json attention_to_json(const AttentionLayer& a);

/// The inverse of attention_to_json; `where` is the object's location for messages ("s.json:
/// /model/architecture/layers/0/attention"). Also reads the legacy keys `window` (for either
/// `sliding_window` or `attention_chunk_size`, by the layer's kind), `indexer_head_dim` and the kind
/// "none" (now "recurrent"). Throws kvplan::Error naming where + "/key": an unknown key, a null, a value
/// of the wrong type, an unknown kind, a legacy key given beside its new name, `sliding_window` on a
/// chunked layer or `attention_chunk_size` on another. Values are read as given; the model-wide checks
/// (kvplan::validate) are model_from_json's.
AttentionLayer attention_from_json(const nlohmann::json& j, const std::string& where);

/// A whole model as JSON: {"id", "name", "source", "layers": [{"count", "attention"
/// (attention_to_json), "mlp"}], "hidden_size", "vocab_size", ..., "dtype", "weight_dtype",
/// "embedding_dtype", "expert_weight_dtype" (kvplan dtype names), "published_params", "context_keys",
/// "quant" (null when unquantised), "llamacpp_rs_rollback" (a GGUF's architecture), "warnings"}: every field
/// a preset or a config.json sets, so that model_from_json(model_to_json(m), w) == m for any model a preset
/// or a config.json alone gives. Not written: draft_layers, weights_bytes, weights_parameters, weights_origin
/// (a checkpoint's own bytes), WeightQuant::at_load (set at plan time). Counts are integers. Never throws.
nlohmann::json model_to_json(const ModelSpec& m);

/// The inverse of model_to_json; `where` prefixes error messages ("s.json: /model/architecture").
/// Absent keys take ModelSpec's defaults (dtype bf16; the weight dtypes follow dtype). Throws
/// kvplan::Error naming where and the JSON path of the value at fault (one line): an unknown or null
/// key, a wrong type, "layers" missing or empty, more than kvplan::kMaxLayers layers in all, and a layer
/// group that kvplan::validate refuses (named at its "attention").
ModelSpec model_from_json(const nlohmann::json& j, const std::string& where);

}  // namespace kvplan::presets
