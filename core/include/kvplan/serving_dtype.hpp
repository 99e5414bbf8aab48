#pragma once
/// @file serving_dtype.hpp
/// The dtype an engine serves a checkpoint in when told "auto" (its --dtype default), and the weights of
/// an fp32 checkpoint at that dtype.

#include <string>

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

/// Whether `engine` quantises an unquantised checkpoint's weights to `t` itself while loading: fp8_e4m3
/// under vLLM (and ideal, whose lines are vLLM's) and SGLang, `--quantization fp8` (vllm/model_executor/
/// layers/quantization/fp8.py Fp8Config with is_checkpoint_fp8_serialized false; SGLang's fp8.py is its
/// port). Any other type, and any type under TensorRT-LLM or llama.cpp, needs a checkpoint quantised so.
bool online_quantization(Engine engine, DType t);

/// Whether the engine of `o` loads every weight at the checkpoint's precision before quantising it at load,
/// so that the GPUs must hold the unquantised checkpoint first: SGLang (sgl-project/sglang #2895), vLLM's
/// V0 engine and vLLM releases before 0.16. vLLM PR #31914 ("fix memory for online fp8 quantization with
/// streaming weight load": weights created on the meta device and quantised as each loads) was merged in
/// the week of vLLM's weekly summary of 2026-02-06, after 0.15.0 was out (the same summary lists "Update
/// Documentation to reflect v0.15.0 release"), and 0.15.1 was a patch release of cherry-picks: 0.16.0 is
/// the first release with it. Throws kvplan::Error("engine_version", ...) for a vLLM release outside the
/// range kvplan models (vllm_release_minor).
bool loads_checkpoint_before_quantising(const EngineOptions& o);

/// Why `engine` holds the whole checkpoint before quantising it, with the source, for warnings and
/// refusals: "SGLang quantises to fp8 once the whole checkpoint is loaded at its own precision
/// (sgl-project/sglang #2895)", or vLLM's before 0.16 (PR #31914).
std::string whole_load_reason(Engine engine);

/// Whether `engine` quantises `m`'s weights to `t` while loading: online_quantization, over an unquantised
/// 16- or 32-bit checkpoint only (vLLM and SGLang refuse a --quantization other than a quantised
/// checkpoint's own method: vllm/config/model.py _verify_quantization).
bool quantised_at_load(const ModelSpec& m, DType t, Engine engine);

/// Whether llama.cpp has weights of type `t` in a GGUF file (ggml's types kvplan models: f32, f16, bf16,
/// q8_0, q4_0, q4_1, q5_0, q5_1, iq4_nl, mxfp4).
bool gguf_weight_type(DType t);

/// The model as `engine` holds it when told to load its weights as `t` (size's --weight-dtype, fit's
/// weight search). A checkpoint quantised to `t` already stays as it is. Else the checkpoint's quantised
/// layout and bytes are dropped: the architecture at `t`. Throws Error("weight_dtype", ...) for a type
/// llama.cpp has no GGUF weights of (gguf_weight_type).
/// - Online quantisation (online_quantization, of an unquantised 16- or 32-bit checkpoint only: vLLM and
///   SGLang refuse a --quantization other than a quantised checkpoint's own method, vllm/config/model.py
///   _verify_quantization), WeightQuant::at_load set: Fp8Config.get_quant_method gives Fp8LinearMethod to
///   LinearBase layers and Fp8MoEMethod to FusedMoE experts only, so the token embeddings and the LM head
///   (VocabParallelEmbedding) and the routers the models build unquantised keep the serving dtype
///   (auto_serving_dtype); each quantised weight gets one fp32 scale per tensor
///   (Fp8LinearMethod.process_weights_after_loading: ops.scaled_fp8_quant with scale None).
/// - Otherwise every weight, embeddings included, is at `t`: a checkpoint quantised so.
void apply_weight_dtype(ModelSpec& m, DType t, Engine engine);

}  // namespace kvplan
