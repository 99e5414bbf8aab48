#include <catch2/catch.hpp>

#include "kvplan/bench/cpu_attention.hpp"
#include "kvplan/bench/shape.hpp"
#include "kvplan/error.hpp"

using namespace kvplan::bench;
using Catch::Matchers::WithinAbs;

TEST_CASE("FLOP convention: 4 b h n^2 d, halved when causal", "[bench][shape]") {
  Shape s{.batch = 1, .heads = 8, .kv_heads = 8, .n = 1024, .head_dim = 64};
  // 4 * 1 * 8 * 1024^2 * 64 = 2^2 * 2^3 * 2^20 * 2^6 = 2^31.
  CHECK(attention_flops(s) == 2147483648ull);
  s.causal = true;
  CHECK(attention_flops(s) == 1073741824ull);  // 2^30
  // GQA does not change the work: every query head still attends.
  s.kv_heads = 1;
  CHECK(attention_flops(s) == 1073741824ull);
  // 4 * 2 * 32 * 4096^2 * 128 = 2^2 * 2 * 2^5 * 2^24 * 2^7 = 2^39.
  CHECK(attention_flops({.batch = 2, .heads = 32, .kv_heads = 8, .n = 4096, .head_dim = 128}) ==
        549755813888ull);
  CHECK_THROWS_AS(attention_flops({.batch = 1, .heads = 1, .kv_heads = 1, .n = 1ull << 32, .head_dim = 1024}),
                  kvplan::Error);
  CHECK_THAT(flops_convention(), Catch::Matchers::Contains("halved when causal"));
}

TEST_CASE("shape validation names the option", "[bench][shape]") {
  const auto message = [](const Shape& s) {
    try {
      validate(s);
    } catch (const kvplan::Error& e) {
      return std::string(e.what());
    }
    return std::string("valid");
  };
  CHECK(message({.batch = 1, .heads = 8, .kv_heads = 2, .n = 16, .head_dim = 64}) == "valid");
  CHECK(message({.batch = 1, .heads = 8, .kv_heads = 3, .n = 16, .head_dim = 64}) ==
        "--kv-heads: 3 does not divide --heads 8");
  CHECK(message({.batch = 0, .heads = 8, .kv_heads = 8, .n = 16, .head_dim = 64}) ==
        "--batch: must be positive");
  CHECK(message({.batch = 1, .heads = 8, .kv_heads = 8, .n = 0, .head_dim = 64}) ==
        "--seq: must be positive");
  CHECK(message({.batch = 1, .heads = 8, .kv_heads = 8, .n = 16, .head_dim = 0}) ==
        "--head-dim: must be positive");
  CHECK(message({.batch = 1, .heads = 1, .kv_heads = 1, .n = 1ull << 40, .head_dim = 64}) != "valid");
}

TEST_CASE("scale, GQA mapping and element counts", "[bench][shape]") {
  Shape s{.batch = 2, .heads = 8, .kv_heads = 2, .n = 10, .head_dim = 64};
  CHECK(softmax_scale(s) == 0.125);  // 1 / sqrt(64), exact in binary
  s.scale = 0.5;
  CHECK(softmax_scale(s) == 0.5);
  // 8 query heads over 2 KV heads: groups of 4.
  CHECK(kv_head_of(s, 0) == 0);
  CHECK(kv_head_of(s, 3) == 0);
  CHECK(kv_head_of(s, 4) == 1);
  CHECK(kv_head_of(s, 7) == 1);
  CHECK(q_elements(s) == 2 * 8 * 10 * 64);
  CHECK(kv_elements(s) == 2 * 2 * 10 * 64);
}

TEST_CASE("extra memory of the CPU backends", "[bench][shape]") {
  const Shape s{.batch = 1, .heads = 8, .kv_heads = 8, .n = 1024, .head_dim = 64};
  // Naive: 8 heads x 1024^2 scores x 4 B = 33,554,432 B (32 MiB): quadratic in n.
  CHECK(naive_extra_bytes(s) == 33554432u);
  Shape twice = s;
  twice.n = 2048;
  CHECK(naive_extra_bytes(twice) == 4 * naive_extra_bytes(s));
  // Tiled, per thread: 4 B x (256 x 256 scores + 2 x 256 x 64 for Q and O + 2 x 256 for m and l)
  // = 4 x 98,816 = 395,264 B, whatever n.
  CHECK(tiled_extra_bytes_per_thread(s, {256, 256}) == 395264u);
  CHECK(tiled_extra_bytes_per_thread(twice, {256, 256}) == 395264u);
  // Tiles larger than n shrink to n: 4 x (100 x 100 + 2 x 100 x 64 + 200) = 92,000.
  Shape small = s;
  small.n = 100;
  CHECK(tiled_extra_bytes_per_thread(small, {256, 256}) == 92000u);
}

TEST_CASE("bf16 rounding: nearest, ties to even", "[bench][shape]") {
  // 1.2 = 1.0011001 1001...b: the dropped bits start with 1 and are not a tie: up to 1.0011010b = 1.203125.
  CHECK(round_to_bf16(1.2f) == 1.203125f);
  // 0.4 = 1.1001100 1100...b x 2^-2: up to 1.1001101b x 2^-2 = 0.400390625.
  CHECK(round_to_bf16(0.4f) == 0.400390625f);
  // 1 + 2^-8 lies halfway between 1 and 1 + 2^-7: ties to the even mantissa, 1.
  CHECK(round_to_bf16(1.00390625f) == 1.0f);
  // 1 + 3 x 2^-8 lies halfway between 1 + 2^-7 (odd) and 1 + 2^-6 (even): 1.015625.
  CHECK(round_to_bf16(1.01171875f) == 1.015625f);
  CHECK(round_to_bf16(-2.0f) == -2.0f);
  CHECK(bf16_bits(1.0f) == 0x3F80);
  CHECK(bf16_value(0x3F80) == 1.0f);
  CHECK(bf16_value(bf16_bits(1.2f)) == 1.203125f);
}
