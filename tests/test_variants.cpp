#include <catch2/catch.hpp>

#include "kvplan/variants.hpp"
#include "test_support.hpp"

using namespace kvplan;
using namespace kvplan::test;

TEST_CASE("attention variants generalise the 8x GQA saving", "[variants]") {
  const auto m = model({{gqa(64, 8, 128), 80}});
  const auto rows = compare_attention(m, KvDtypes{DType::fp16, DType::fp16}, Tokens{4096});
  REQUIRE(rows.size() == 6);
  CHECK(rows[1].label == "MHA");
  CHECK(rows[1].bytes_per_token.value == 2621440);  // 2 * 64 * 128 * 2 B * 80
  CHECK(rows[2].label == "GQA-8");
  CHECK(rows[2].bytes_per_token.value == 327680);  // 2 * 8 * 128 * 2 B * 80
  CHECK_THAT(rows[2].saving_vs_mha, Catch::Matchers::WithinRel(8.0, 1e-12));
  CHECK(rows[3].label == "MQA");
  CHECK_THAT(rows[3].saving_vs_mha, Catch::Matchers::WithinRel(64.0, 1e-12));
  // SWA-4096 at 4,096 tokens holds the same as GQA-8.
  CHECK(rows[4].kv_bytes_per_sequence == rows[2].kv_bytes_per_sequence);
  CHECK(rows[4].full_bytes_per_token.value == 0);
  // MLA 512 + 64: 576 * 2 B * 80 = 92,160 B per token.
  CHECK(rows[5].bytes_per_token.value == 92160);
}
