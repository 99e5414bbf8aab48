#include "kvplan/serving_dtype.hpp"

#include <string>

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
                       "--weight-dtype fp32 counts 4 B");
}

bool online_quantization(Engine engine, DType t) {
  return t == DType::fp8_e4m3 &&
         (engine == Engine::vllm || engine == Engine::ideal || engine == Engine::sglang);
}

void apply_weight_dtype(ModelSpec& m, DType t, Engine engine) {
  m.quant = {};             // the architecture at that precision, not the checkpoint's quantised layout
  m.weights_bytes.reset();  // a precision asked for: the architecture at it, not the checkpoint's bytes
  if (!online_quantization(engine, t)) {
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
  m.quant = q;
  m.weight_dtype = m.expert_weight_dtype = DType::fp8_e4m3;
}

}  // namespace kvplan
