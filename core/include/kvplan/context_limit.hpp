#pragma once
/// \file
/// The context limit each engine derives from a model's config (max_position_embeddings, the other
/// length keys, RoPE scaling), and what the engine does with a longer context.

#include <optional>
#include <string>

#include "kvplan/engine.hpp"
#include "kvplan/units.hpp"

namespace kvplan {

/// An engine's context limit for a model: the figure, how the engine reached it, and what it does past it.
struct ContextLimit {
  Tokens tokens;  ///< the longest context the engine takes without being told otherwise
  /// The rule and its numbers: "vLLM's derived max_model_len 131,072 (original_max_position_embeddings
  /// 32,768 x rope_scaling factor 4, yarn)".
  std::string text;
  /// What the engine does with a longer context: "vLLM refuses it without VLLM_ALLOW_LONG_MAX_MODEL_LEN=1";
  /// llama.cpp: "llama-server warns (n_ctx_per_seq > n_ctx_train) and runs it".
  std::string effect;
  /// The setting with which the engine takes a longer context (empty: it needs none, llama.cpp; ideal).
  std::string env;
};

/// The context limit `engine` derives for `m`; nullopt when the model gives none (a model from flags, with
/// max_position_embeddings and every other length key unknown). A config with no length key at all
/// (ContextKeys::no_length_key) gets the engines' default, 2,048 tokens (vLLM and TensorRT-LLM then apply
/// the RoPE factor, SGLang does not); llama.cpp and ideal have none. Throws Error naming
/// "<rope key>/factor" when an engine's product of a length and the RoPE factor is under one token or past
/// 2^63 tokens (no engine serves it; vLLM's int() would give 0 or a number no GPU holds). Per engine:
///  - vLLM (vllm/config/model.py _get_and_verify_max_len, with ModelArchConfigConvertorBase
///    .derive_max_model_len_and_key; vllm/config.py in 0.8-0.10): the smallest of max_position_embeddings,
///    n_positions, max_seq_len, seq_length, model_max_length, max_target_positions, max_sequence_length,
///    max_seq_length, seq_len; model_max_length, when set, replaces it; then, with rope_scaling
///    (rope_parameters) on a model_type without "gemma3" and a rope_type other than su, longrope, llama3:
///    yarn starts from original_max_position_embeddings, and the result is multiplied by factor
///    (default 1), truncated. A longer --max-model-len up to model_max_length passes; past both, vLLM
///    raises unless VLLM_ALLOW_LONG_MAX_MODEL_LEN=1.
///  - SGLang (python/sglang/srt/utils/hf_transformers_utils.py get_context_length; checked in
///    srt/configs/model_config.py): factor = rope_scaling.factor (default 1), but 1 when rope_scaling
///    holds original_max_position_embeddings or its rope_type is llama3; the first of
///    max_sequence_length, seq_length, max_seq_len, model_max_length, max_position_embeddings, times the
///    factor, truncated. A longer --context-length raises unless SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1.
///  - TensorRT-LLM (tensorrt_llm/_torch/pyexecutor/model_engine.py _infer_max_seq_len_from_config,
///    _init_max_seq_len): max_position_embeddings (else text_config's), times rope_scaling.factor unless
///    its type is su, longrope, llama3 or yarn, rounded up. A longer --max_seq_len is lowered to it with a
///    warning unless TLLM_ALLOW_LONG_MAX_MODEL_LEN=1.
///  - llama.cpp (src/llama-context.cpp): n_ctx_train, the GGUF's context_length (for a config,
///    max_position_embeddings, which convert_hf_to_gguf.py writes there); a longer -c only warns.
///  - ideal: the config's max_position_embeddings as transformers reads it.
std::optional<ContextLimit> context_limit(const ModelSpec& m, Engine engine);

/// The longest context `engine` takes for `m` without being told otherwise (context_limit's figure);
/// nullopt when unknown.
std::optional<Tokens> engine_max_context(const ModelSpec& m, Engine engine);

}  // namespace kvplan
