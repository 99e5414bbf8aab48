#include <catch2/catch.hpp>

#include "kvplan/dtype.hpp"

using namespace kvplan;

TEST_CASE("element sizes are exact ratios", "[dtype]") {
  // One row of 1024 values (8 KV heads x 128).
  CHECK(row_bytes(DType::fp32, 1024).value == 4096);
  CHECK(row_bytes(DType::bf16, 1024).value == 2048);
  CHECK(row_bytes(DType::fp16, 1024).value == 2048);
  CHECK(row_bytes(DType::fp8_e4m3, 1024).value == 1024);
  CHECK(row_bytes(DType::fp8_e5m2, 1024).value == 1024);
  CHECK(row_bytes(DType::int8, 1024).value == 1024);
  CHECK(row_bytes(DType::int4, 1024).value == 512);
  // ggml blocks of 32 values: 1024 / 32 = 32 blocks.
  CHECK(row_bytes(DType::q8_0, 1024).value == 32 * 34);
  CHECK(row_bytes(DType::q4_0, 1024).value == 32 * 18);
  CHECK(row_bytes(DType::q4_1, 1024).value == 32 * 20);
  CHECK(row_bytes(DType::q5_0, 1024).value == 32 * 22);
  CHECK(row_bytes(DType::q5_1, 1024).value == 32 * 24);
  // A partial block is stored whole: 33 values = 2 blocks.
  CHECK(row_bytes(DType::q8_0, 33).value == 68);
  CHECK(row_bytes(DType::int4, 3).value == 2);
}

TEST_CASE("dtype names parse, aliases included", "[dtype]") {
  CHECK(parse_dtype("BF16") == DType::bf16);
  CHECK(parse_dtype("bfloat16") == DType::bf16);
  CHECK(parse_dtype("f16") == DType::fp16);
  CHECK(parse_dtype("fp8") == DType::fp8_e4m3);
  CHECK(parse_dtype("fp8_e5m2") == DType::fp8_e5m2);
  CHECK(parse_dtype("q4_1") == DType::q4_1);
  CHECK_THROWS_AS(parse_dtype("fp7"), Error);
  for (const auto& t : all_dtypes()) CHECK(parse_dtype(t.name) == t.type);
}
