#include "kvplan/serving_dtype.hpp"

#include <string>

#include "kvplan/budget.hpp"
#include "kvplan/error.hpp"

namespace kvplan {

DType auto_serving_dtype(const ModelSpec& m, Engine engine) {
  if (m.dtype != DType::fp32) return m.dtype;
  switch (engine) {
    case Engine::sglang:
      // srt/configs/model_config.py _get_and_verify_dtype: "auto" on float32 is float16, bfloat16 for a
      // model_type starting "gemma"; the GPU plays no part.
      return m.context_keys.model_type.rfind("gemma", 0) == 0 ? DType::bf16 : DType::fp16;
    case Engine::trtllm:
    case Engine::llamacpp: return DType::fp16;  // llama.cpp's cache is f16 by default (-ctk / -ctv)
    case Engine::ideal:
    case Engine::vllm:
    default:
      // vllm/config/model.py _resolve_auto_dtype (v0.10.1 and later): a float32 checkpoint runs in the
      // platform's first supported dtype, bfloat16 on compute capability 8.0 and later (every GPU preset:
      // Ampere, Ada, Hopper, Blackwell; ROCm's MI300X), float16 on 6.0-7.5.
      return DType::bf16;
  }
}

void serve_fp32_weights(ModelSpec& m, Engine engine) {
  // An fp32 checkpoint, its weights from the architecture: the serving engines' --dtype auto loads them
  // at their auto dtype (auto_serving_dtype), 2 B a parameter. llama.cpp reads a GGUF, whose types are
  // its own; weights read from the files (weights_bytes) stay as stored.
  if (m.dtype != DType::fp32 || engine == Engine::llamacpp || m.weights_bytes) return;
  const DType served = auto_serving_dtype(m, engine);
  bool changed = false;
  for (DType* d : {&m.weight_dtype, &m.embedding_dtype, &m.expert_weight_dtype})
    if (*d == DType::fp32) {
      *d = served;
      changed = true;
    }
  if (!changed) return;
  std::string rule;
  switch (engine) {
    case Engine::sglang:
      rule =
          "SGLang's --dtype auto loads them in fp16, bf16 for Gemma (srt/configs/model_config.py "
          "_get_and_verify_dtype)";
      break;
    case Engine::trtllm: rule = "TensorRT-LLM serves them in fp16"; break;
    default:
      rule =
          "vLLM's --dtype auto loads them in bf16 on compute capability 8.0 and later, fp16 before "
          "(vllm/config/model.py _resolve_auto_dtype)";
  }
  m.warnings.push_back("weights of the fp32 checkpoint " + m.name + ": " + rule + ", 2 B a parameter; " +
                       "a weight dtype of fp32 counts 4 B");
}

bool online_quantization(Engine engine, DType t) {
  return t == DType::fp8_e4m3 &&
         (engine == Engine::vllm || engine == Engine::ideal || engine == Engine::sglang);
}

bool gguf_weight_type(DType t) {
  switch (t) {
    case DType::fp32:
    case DType::fp16:
    case DType::bf16:
    case DType::q8_0:
    case DType::q4_0:
    case DType::q4_1:
    case DType::q5_0:
    case DType::q5_1:
    case DType::iq4_nl:
    case DType::mxfp4: return true;
    default: return false;
  }
}

bool loads_checkpoint_before_quantising(const EngineOptions& o) {
  if (o.engine == Engine::sglang) return true;
  return o.engine == Engine::vllm && vllm_release_minor(o) < 16;
}

std::string whole_load_reason(Engine engine) {
  if (engine == Engine::sglang)
    return "SGLang quantises to fp8 once the whole checkpoint is loaded at its own precision "
           "(sgl-project/sglang "
           "#2895)";
  return "vLLM before 0.16 quantises to fp8 once the whole checkpoint is loaded at its own precision (0.16 "
         "quantises each weight as it loads: vllm PR #31914)";
}

bool quantised_at_load(const ModelSpec& m, DType t, Engine engine) {
  const auto wide = [](DType d) { return d == DType::bf16 || d == DType::fp16 || d == DType::fp32; };
  // Only an unquantised checkpoint: vLLM refuses a --quantization other than the checkpoint's own method
  // (vllm/config/model.py _verify_quantization: "Quantization method specified in the model config (X)
  // does not match ..."), and so does SGLang.
  return online_quantization(engine, t) && m.quant.method == WeightQuant::Method::none &&
         wide(m.weight_dtype) && wide(m.expert_weight_dtype);
}

void apply_weight_dtype(ModelSpec& m, DType t, Engine engine) {
  if (engine == Engine::llamacpp && !gguf_weight_type(t))
    throw Error("weight_dtype", std::string(name(t)) +
                                    ": llama.cpp has no such weight type (a GGUF's: f32, f16, bf16, q8_0, "
                                    "q4_0, q4_1, q5_0, q5_1, iq4_nl, mxfp4)");
  // A checkpoint quantised to that type already: the checkpoint as it is (vLLM takes --quantization fp8
  // over an fp8 checkpoint as its own method).
  if (m.quant.method != WeightQuant::Method::none && m.quant.stored == t && m.weight_dtype == t) return;
  const bool at_load = quantised_at_load(m, t, engine);
  m.quant = {};             // the architecture at that precision, not the checkpoint's quantised layout
  m.weights_bytes.reset();  // a precision asked for: the architecture at it, not the checkpoint's bytes
  if (!at_load) {
    m.weight_dtype = m.embedding_dtype = m.expert_weight_dtype = t;
    return;
  }
  // What is not quantised stays at the dtype the engine serves the checkpoint in.
  const DType served = auto_serving_dtype(m, engine);
  if (m.embedding_dtype == DType::fp32) m.embedding_dtype = served;
  WeightQuant q;
  q.method = WeightQuant::Method::fp8;
  q.bits = 8;
  q.stored = DType::fp8_e4m3;
  q.scale_dtype = DType::fp32;
  q.tensor_scale = true;
  q.label = "fp8_e4m3 per-tensor (quantised at load)";
  q.at_load = true;
  m.quant = q;
  m.weight_dtype = m.expert_weight_dtype = DType::fp8_e4m3;
}

}  // namespace kvplan
