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

TEST_CASE("compare under vLLM's fp8_ds_mla: engine figures for the MLA variants only", "[variants]") {
  // An MLA model (3 layers, 16 heads, kv_lora_rank 512, qk_rope_head_dim 64) with vLLM's fp8_ds_mla:
  // 656 B per token per layer (512 fp8 + 4 fp32 scales + 64 bf16) for "as configured" and MLA-512+64;
  // the MHA / GQA / MQA / SWA variants have no MLA layer, so no fp8_ds_mla cache, and say so instead of
  // refusing the whole comparison.
  const auto m = model({{mla(16, 512, 64), 3}});
  EngineOptions e;
  e.engine = Engine::vllm;
  e.fp8_ds_mla = true;
  const auto rows = compare_attention(m, KvDtypes{DType::fp8_e4m3, DType::fp8_e4m3}, Tokens{16}, {}, e);
  REQUIRE(rows.size() == 6);
  CHECK(rows[0].engine_note.empty());
  CHECK(rows[0].engine_bytes_per_token->value == 3 * 656);
  CHECK(rows[5].engine_bytes_per_token->value == 3 * 656);
  for (std::size_t i = 1; i < 5; ++i) {
    INFO(rows[i].label);
    CHECK_FALSE(rows[i].engine_bytes_per_token.has_value());
    CHECK(rows[i].engine_note.find("fp8_ds_mla") != std::string::npos);
  }
}

TEST_CASE("StreamingLLM's cap is one more variant; the others stay uncapped", "[variants][streaming]") {
  // 80 layers, 64 heads, 8 KV heads x 128, fp16: GQA-8 is 2 x 8 x 128 x 2 B x 80 = 327,680 B per token.
  const auto m = model({{gqa(64, 8, 128), 80}});
  VariantOptions o;
  o.streaming = StreamingCap{4, 1020};
  const KvDtypes t{DType::fp16, DType::fp16};
  const auto rows = compare_attention(m, t, Tokens{32768}, o);
  REQUIRE(rows.size() == 7);
  CHECK(rows[6].label == "StreamingLLM 4+1,020");
  // Capped at 4 + 1,020 = 1,024 tokens: 327,680 x 1,024 = 335,544,320 B per sequence, at any length.
  CHECK(rows[6].kv_bytes_per_sequence == Bytes{335'544'320});
  CHECK(rows[6].bytes_per_token == Bytes{327'680});
  CHECK(rows[6].full_bytes_per_token == Bytes{0});
  // As configured and MHA are not capped: 327,680 x 32,768 = 10,737,418,240 B; MHA 2,621,440 x 32,768 B.
  CHECK(rows[0].kv_bytes_per_sequence == Bytes{10'737'418'240});
  CHECK(rows[1].kv_bytes_per_sequence == Bytes{85'899'345'920});
  // vs MHA: 85,899,345,920 / 335,544,320 = 256.
  CHECK_THAT(rows[6].saving_vs_mha, Catch::Matchers::WithinRel(256.0, 1e-12));
  EngineOptions vllm;
  vllm.engine = Engine::vllm;
  CHECK_THROWS_WITH(compare_attention(m, t, Tokens{32768}, o, vllm), Catch::StartsWith("sink_tokens:"));
}
