#pragma once
/// @file dtype.hpp
/// Element types of the KV cache and of weights, with exact sizes as a ratio
/// (bytes per block of values), so int4 and llama.cpp's block formats stay exact.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "kvplan/units.hpp"

namespace kvplan {

/// Storage types. Block formats follow ggml (ggml/src/ggml.c type_traits: blck_size, type_size).
enum class DType {
  fp32,
  fp16,
  bf16,
  fp8_e4m3,
  fp8_e5m2,
  int8,
  int4,
  q8_0,
  q4_0,
  q4_1,
  q5_0,
  q5_1,
  mxfp4,
  iq4_nl
};

/// Exact size of a type: `block_bytes` bytes hold `block_values` values.
struct DTypeInfo {
  DType type;
  std::string_view name;       ///< canonical kvplan name ("bf16", "fp8_e4m3", "q8_0")
  std::uint64_t block_bytes;   ///< bytes per block (fp16: 2, q8_0: 34)
  std::uint64_t block_values;  ///< values per block (fp16: 1, int4: 2, q8_0: 32)
};

/// Size information of a type.
const DTypeInfo& info(DType t);
/// Canonical name of a type.
std::string_view name(DType t);
/// All types, in declaration order.
std::span<const DTypeInfo> all_dtypes();

/// Parses a type name, case-insensitive. Accepts kvplan names and common aliases:
/// float32/f32, float16/f16/half, bfloat16, fp8/fp8_e4m3/e4m3, fp8_e5m2/e5m2, int8/i8, int4/i4,
/// q8_0, q4_0, q4_1, q5_0, q5_1, mxfp4, iq4_nl. Throws kvplan::Error(field, ...) for anything else.
DType parse_dtype(std::string_view text, std::string_view field = "dtype");

/// Bytes of one row of `values` elements: ceil(values / block_values) * block_bytes
/// (ggml's ggml_row_size for block types; a partial last block is stored whole).
Bytes row_bytes(DType t, std::uint64_t values);

}  // namespace kvplan
