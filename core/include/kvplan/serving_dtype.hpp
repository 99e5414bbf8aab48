#pragma once
/// @file serving_dtype.hpp
/// The dtype an engine serves a checkpoint in when told "auto" (its --dtype default), and the weights of
/// an fp32 checkpoint at that dtype.

#include "kvplan/engine.hpp"
#include "kvplan/model.hpp"

namespace kvplan {

/// The dtype `engine`'s "auto" serves `m` in: the checkpoint's own, except an fp32 checkpoint: vLLM (and
/// ideal, whose lines are vLLM's) bf16 on compute capability 8.0 and later (vllm/config/model.py
/// _resolve_auto_dtype, v0.10.1 and later), SGLang fp16, bf16 for a model_type starting "gemma"
/// (srt/configs/model_config.py _get_and_verify_dtype), TensorRT-LLM fp16, llama.cpp f16 (its cache
/// default).
DType auto_serving_dtype(const ModelSpec& m, Engine engine);

/// An fp32 checkpoint whose weights come from the architecture (no weights_bytes): its fp32 weight,
/// embedding and expert types become auto_serving_dtype (2 B a parameter), with a warning in m.warnings
/// naming the rule. Nothing changes under llama.cpp (a GGUF's types are its own), for weights read from
/// files, or for a checkpoint that is not fp32. For a caller whose user asked for no weight dtype.
void serve_fp32_weights(ModelSpec& m, Engine engine);

}  // namespace kvplan
