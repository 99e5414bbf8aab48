#include "kvplan/dtype.hpp"

#include <array>
#include <cctype>
#include <string>

namespace kvplan {

namespace {
// Block formats: ggml/src/ggml.c type_traits (q8_0: 32 values in 2 B scale + 32 B;
// q4_0: 2 + 16; q4_1: 2 + 2 + 16; q5_0: 2 + 4 + 16; q5_1: 2 + 2 + 4 + 16; iq4_nl: block_iq4_nl, 2 + 16
// for QK4_NL = 32 values, ggml-common.h).
constexpr std::array<DTypeInfo, 14> kTypes{{
    {DType::fp32, "fp32", 4, 1},
    {DType::fp16, "fp16", 2, 1},
    {DType::bf16, "bf16", 2, 1},
    {DType::fp8_e4m3, "fp8_e4m3", 1, 1},
    {DType::fp8_e5m2, "fp8_e5m2", 1, 1},
    {DType::int8, "int8", 1, 1},
    {DType::int4, "int4", 1, 2},
    {DType::q8_0, "q8_0", 34, 32},
    {DType::q4_0, "q4_0", 18, 32},
    {DType::q4_1, "q4_1", 20, 32},
    {DType::q5_0, "q5_0", 22, 32},
    {DType::q5_1, "q5_1", 24, 32},
    {DType::mxfp4, "mxfp4", 17, 32},
    {DType::iq4_nl, "iq4_nl", 18, 32},
}};
}  // namespace

const DTypeInfo& info(DType t) { return kTypes.at(static_cast<std::size_t>(t)); }
std::string_view name(DType t) { return info(t).name; }
std::span<const DTypeInfo> all_dtypes() { return kTypes; }

DType parse_dtype(std::string_view text, std::string_view field) {
  std::string s(text);
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const auto& t : kTypes)
    if (s == t.name) return t.type;
  struct Alias {
    std::string_view name;
    DType type;
  };
  static constexpr std::array<Alias, 14> aliases{{{"float32", DType::fp32},
                                                  {"f32", DType::fp32},
                                                  {"float16", DType::fp16},
                                                  {"f16", DType::fp16},
                                                  {"half", DType::fp16},
                                                  {"bfloat16", DType::bf16},
                                                  {"fp8", DType::fp8_e4m3},
                                                  {"e4m3", DType::fp8_e4m3},
                                                  {"fp8_e4m3fn", DType::fp8_e4m3},
                                                  {"e5m2", DType::fp8_e5m2},
                                                  {"i8", DType::int8},
                                                  {"i4", DType::int4},
                                                  {"float8_e4m3fn", DType::fp8_e4m3},
                                                  {"float8_e5m2", DType::fp8_e5m2}}};
  for (const auto& a : aliases)
    if (s == a.name) return a.type;
  throw Error(std::string(field), "unknown type '" + std::string(text) +
                                      "' (fp32, fp16, bf16, fp8_e4m3, fp8_e5m2, int8, int4, q8_0, "
                                      "q4_0, q4_1, q5_0, q5_1, mxfp4, iq4_nl)");
}

Bytes row_bytes(DType t, std::uint64_t values) {
  const auto& i = info(t);
  // Plain types skip the division: the planner asks this for every layer group of every plan.
  const std::uint64_t blocks = i.block_values == 1 ? values : ceil_div(values, i.block_values);
  return Bytes{checked_mul(blocks, i.block_bytes, "bytes")};
}

}  // namespace kvplan
