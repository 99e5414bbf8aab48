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
/// compressed-tensors format) throw kvplan::Error naming the JSON path.
void read_quantization(const HfConfig& c, ModelSpec& m);

}  // namespace kvplan::presets::hf
