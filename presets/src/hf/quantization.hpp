#pragma once
// config.json quantization_config: how a quantised checkpoint stores its weights (ModelSpec::quant).
#include "decoder.hpp"

namespace kvplan::presets::hf {

/// Reads the config's quantization_config (top level, else the text config's) into m.quant and the weight
/// dtypes: fp8 (block or per-tensor scales), mxfp4 (gpt-oss experts), awq, gptq, compressed-tensors
/// (pack-quantized, int-quantized, float-quantized, naive-quantized), bitsandbytes (4-bit nf4/fp4, 8-bit).
/// Each layout and its source: core/include/kvplan/weights.hpp quantized_linear_bytes and
/// docs/quantised-weights.md. A method or option kvplan cannot count is a warning naming it and what was
/// assumed. Invalid values (AWQ bits other than 4, group_size 0, a non-integer, an unknown
/// compressed-tensors format) throw kvplan::Error naming the JSON path, and so does a quantization_config
/// with no quant_method ({} included) unless load_in_4bit or load_in_8bit is set (then bitsandbytes), as
/// transformers (quantizers/auto.py AutoHfQuantizer.supports_quant_method) and vLLM refuse it.
void read_quantization(const HfConfig& c, ModelSpec& m);

/// AWQ and GPTQ store one scale per group of `group_size` input values, and vLLM refuses a quantised layer
/// whose input width is not a multiple of it (awq.py AWQLinearMethod.create_weights, gptq.py
/// GPTQLinearMethod.create_weights: "The input size is not aligned with the quantized weight shape"; GPTQ's
/// -1 is one group of the whole width). Checks every quantised linear layer those methods build (attention
/// and mixer projections, dense MLPs, shared experts; not the routed experts, which vLLM's fused-MoE methods
/// build) of the assembled model (m.layers, at tensor parallel 1; vLLM checks each rank's share of a
/// row-parallel layer), and throws kvplan::Error
/// naming quantization_config.group_size and the width. Other methods: nothing to check.
void check_quantized_widths(const HfConfig& c, const ModelSpec& m);

}  // namespace kvplan::presets::hf
