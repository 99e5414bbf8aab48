#include <catch2/catch.hpp>

#include "kvplan/kv.hpp"
#include "test_support.hpp"

using namespace kvplan;
using namespace kvplan::test;

TEST_CASE("the lesson's figures, exactly", "[kv][lesson]") {
  const KvDtypes fp16{DType::fp16, DType::fp16};
  SECTION("MHA: 80 layers x 64 heads x head_dim 128 in fp16") {
    const auto m = model({{gqa(64, 64, 128), 80}});
    // 2 (K and V) * 64 heads * 128 dims = 16,384 values per layer; * 80 = 1,310,720 values; * 2 B = 2,621,440
    // B.
    CHECK(bytes_per_token(m, fp16).value == 2621440);
    // 2,621,440 B * 4,096 tokens = 10,737,418,240 B (the lesson's 10.7 GB).
    CHECK(kv_bytes_per_sequence(m, fp16, Tokens{4096}).value == 10737418240ULL);
  }
  SECTION("GQA with 8 KV heads: the 8x saving") {
    const auto mha = model({{gqa(64, 64, 128), 80}});
    const auto g8 = model({{gqa(64, 8, 128), 80}});
    // 2 * 8 * 128 = 2,048 values per layer; * 80 = 163,840 values; * 2 B = 327,680 B.
    CHECK(bytes_per_token(g8, fp16).value == 327680);
    // 327,680 B * 4,096 = 1,342,177,280 B (the lesson's 1.34 GB).
    CHECK(kv_bytes_per_sequence(g8, fp16, Tokens{4096}).value == 1342177280ULL);
    CHECK(kv_bytes_per_sequence(mha, fp16, Tokens{4096}).value ==
          8 * kv_bytes_per_sequence(g8, fp16, Tokens{4096}).value);
  }
  SECTION("MQA: one KV head") {
    // 2 * 1 * 128 * 2 B * 80 = 40,960 B.
    CHECK(bytes_per_token(model({{gqa(64, 1, 128), 80}}), fp16).value == 40960);
  }
}

TEST_CASE("K and V types and head dims may differ", "[kv]") {
  AttentionLayer a = gqa(32, 8, 128);
  a.head_dim_v = 64;
  // K: 8 * 128 = 1024 values in fp8 = 1,024 B; V: 8 * 64 = 512 values in q8_0 = 16 blocks * 34 = 544 B.
  CHECK(layer_bytes_per_token(a, KvDtypes{DType::fp8_e4m3, DType::q8_0}).value == 1024 + 544);
}

TEST_CASE("sliding windows and chunks cap the cache", "[kv]") {
  const KvDtypes bf16;
  // Per layer: 2 * 8 * 128 * 2 B = 4,096 B per token.
  const auto swa = model({{gqa(32, 8, 128, AttentionKind::sliding, 4096), 1}});
  CHECK(bytes_per_token(swa, bf16).value == 4096);
  CHECK(full_bytes_per_token(swa, bf16).value == 0);
  CHECK(kv_bytes_per_sequence(swa, bf16, Tokens{100}).value == 100 * 4096);
  CHECK(kv_bytes_per_sequence(swa, bf16, Tokens{10000}).value ==
        4096ULL * 4096);  // holds min(L, W) = 4096 tokens
  const auto chunked = model({{gqa(32, 8, 128, AttentionKind::chunked, 8192), 3}, {gqa(32, 8, 128), 1}});
  CHECK(bytes_per_token(chunked, bf16).value == 4 * 4096);
  CHECK(full_bytes_per_token(chunked, bf16).value == 4096);
  // 3 chunked layers hold 8,192 tokens, the global one 100,000: (3 * 8192 + 100000) * 4096.
  CHECK(kv_bytes_per_sequence(chunked, bf16, Tokens{100000}).value == (3ULL * 8192 + 100000) * 4096);
}

TEST_CASE("MLA caches the latent once per token per layer", "[kv][mla]") {
  // DeepSeek-V2-Lite: 27 layers, (kv_lora_rank 512 + qk_rope_head_dim 64) * 2 B = 1,152 B per layer; * 27 =
  // 31,104 B.
  const auto m = model({{mla(16, 512, 64), 27}});
  CHECK(bytes_per_token(m, KvDtypes{}).value == 31104);
  // vLLM's "KV cache needed for one 32,768-token request": 31,104 * 32,768 = 1,019,215,872 B = 0.949 GiB
  // (logged 0.95).
  CHECK(kv_bytes_per_sequence(m, KvDtypes{}, Tokens{32768}).value == 1019215872ULL);
  // Not split by tensor parallelism: every rank holds the whole latent.
  CHECK(layer_bytes_per_token(m.layers[0].attention, KvDtypes{}, 8).value == 1152);
}

TEST_CASE("recurrent layers keep a fixed state, no per-token cache", "[kv]") {
  AttentionLayer mamba;
  mamba.kind = AttentionKind::none;
  mamba.recurrent = {RecurrentSpec::Kind::mamba, 8192, 16, 4, 256, 0, 0, 0, 0};
  CHECK(layer_bytes_per_token(mamba, KvDtypes{}).value == 0);
  // Jamba-like: d_inner 8192 * (d_conv 4 - 1) + 8192 * d_state 16 = 24,576 + 131,072 = 155,648 values * 2 B.
  CHECK(layer_state_bytes(mamba, KvDtypes{}).value == 311296);
  AttentionLayer dn;
  dn.kind = AttentionKind::none;
  dn.recurrent = {RecurrentSpec::Kind::gated_deltanet, 0, 0, 4, 0, 16, 32, 128, 128};
  // Qwen3-Next-like: key_dim 16*128 = 2048, value_dim 32*128 = 4096; conv (2*2048 + 4096) * 3 = 24,576;
  // state 32 * 128 * 128 = 524,288; 548,864 values * 2 B = 1,097,728 B.
  CHECK(layer_state_bytes(dn, KvDtypes{}).value == 1097728);
  const auto m = model({{mamba, 7}, {gqa(32, 8, 128), 1}});
  CHECK(bytes_per_token(m, KvDtypes{}).value == 4096);
  CHECK(state_bytes_per_sequence(m, KvDtypes{}).value == 7 * 311296);
}

TEST_CASE("tensor parallel splits KV heads, replicating past the head count", "[kv][parallel]") {
  const AttentionLayer a = gqa(64, 8, 128);
  CHECK(kv_heads_per_rank(a, 1) == 8);
  CHECK(kv_heads_per_rank(a, 4) == 2);
  CHECK(kv_heads_per_rank(a, 8) == 1);
  CHECK(kv_heads_per_rank(a, 16) == 1);  // each rank still holds one head
  // tp 16: 1 head * 128 * 2 (K, V) * 2 B = 512 B per rank; 16 ranks hold 8,192 B, twice the unsplit 4,096 B.
  const auto m = model({{a, 1}});
  const Parallelism tp16{16, 1, 1};
  CHECK(layer_bytes_per_token(a, KvDtypes{}, 16).value == 512);
  CHECK(replica_sequence_bytes(m, KvDtypes{}, Tokens{1}, tp16).value == 8192);
  CHECK_THROWS_AS(validate_parallelism(m, Parallelism{3, 1, 1}), Error);  // 3 does not divide 64 heads
  CHECK_THROWS_AS(validate_parallelism(model({{gqa(48, 6, 128), 1}}), Parallelism{4, 1, 1}),
                  Error);  // 4 vs 6 KV heads
  CHECK_NOTHROW(validate_parallelism(m, tp16));
}

TEST_CASE("pipeline stages split layers; the fullest decides", "[kv][parallel]") {
  const auto s = pipeline_stages(80, 3);
  REQUIRE(s.size() == 3);
  CHECK(s[0].count == 27);
  CHECK(s[1].count == 27);
  CHECK(s[2].count == 26);
  CHECK(s[2].first == 54);
  CHECK_THROWS_AS(pipeline_stages(4, 5), Error);
  CHECK_THROWS_AS(pipeline_stages(4, 0), Error);
  // Alternating sliding (W = 10) and full layers, 4 layers in 2 stages: each stage has one of each.
  const auto m = model({{gqa(8, 8, 16, AttentionKind::sliding, 10), 1},
                        {gqa(8, 8, 16), 1},
                        {gqa(8, 8, 16, AttentionKind::sliding, 10), 1},
                        {gqa(8, 8, 16), 1}});
  // Per layer: 2 * 8 * 16 * 2 B = 512 B per token. At L = 100: 512 * 10 + 512 * 100 = 56,320 B per stage.
  const auto per = per_gpu_sequence_bytes(m, KvDtypes{}, Tokens{100}, Parallelism{1, 2, 1});
  REQUIRE(per.size() == 2);
  CHECK(per[0].kv_bytes.value == 56320);
  CHECK(per[1].kv_bytes.value == 56320);
  CHECK(per[0].bytes_per_token.value == 1024);
}

TEST_CASE("overflow is an error, never a wrapped number", "[kv][overflow]") {
  // 4e9 layers * 2 * 1e5 heads * 1e5 dims * 2 B does not fit in 64 bits.
  const auto m = model({{gqa(100000, 100000, 100000), 4000000000ULL}});
  CHECK_THROWS_AS(bytes_per_token(m, KvDtypes{}), Error);
  const auto ok = model({{gqa(64, 8, 128), 80}});
  CHECK_THROWS_AS(kv_bytes_per_sequence(ok, KvDtypes{}, Tokens{1ULL << 62}), Error);
}
